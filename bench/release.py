"""pbm.ai as of any git ref, as a player for bench/strength.py.

``4@v0.1.0`` is level 4 of the release v0.1.0 (any tag, branch or commit).
The ref's tree is exported (``git archive``) into a temporary folder, a
worktree of its own that touches neither the working tree nor the index nor
the repository's list of worktrees, and every process that plays a game
starts a subprocess::

    python bench/release.py TREE

which imports ``pbm`` from ``TREE`` (never the working tree's: two versions
of pbm never share a process) and answers move requests, one JSON object a
line on stdin, one a line on stdout::

    {"variant": "trax", "moves": ["@0/", "B1+"], "level": 4, "budget": 1.0,
     "seed": 7, "face": null}
    {"move": "A0\\\\", "seconds": 0.98}

``seconds`` is the CPU time the subprocess spent on the move
(:func:`time.process_time`, around the release's own ``think``), so the
budget is kept as fairly as for the players in the benchmark's process.
"""

from __future__ import annotations

import atexit
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import fields
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent


def export(ref: str, into: Path | None = None) -> Path:
    """The tree of ``ref`` exported into a new temporary folder (removed
    when the process that made it ends)."""
    commit = subprocess.run(["git", "rev-parse", "--verify", f"{ref}^{{commit}}"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.strip()
    folder = Path(tempfile.mkdtemp(prefix=f"pbm-{commit[:10]}-", dir=into))
    atexit.register(shutil.rmtree, folder, True)
    archive = subprocess.run(["git", "archive", "--format=tar", commit, "pbm"], cwd=ROOT, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    if not (folder / "pbm" / "ai" / "__init__.py").exists():
        raise SystemExit(f"{ref} ({commit[:10]}) has no pbm.ai to play with")
    return folder


class Release:
    """A subprocess playing for pbm.ai from an exported tree."""

    def __init__(self, tree: Path) -> None:
        self.process = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), str(tree)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        atexit.register(self.close)

    def ask(self, variant: str, moves: list[str], level: int, budget: float | None, seed: int,
            face: int | None) -> tuple[str, float]:
        """The release's move and the CPU seconds it took."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        request = {"variant": variant, "moves": moves, "level": level, "budget": budget, "seed": seed, "face": face}
        stdin.write(json.dumps(request) + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            raise RuntimeError(f"the release player ended (exit code {self.process.wait()})")
        answer = json.loads(line)
        return str(answer["move"]), float(answer["seconds"])

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def serve(tree: str, lines: IO[str], out: IO[str]) -> None:
    """Answer move requests with the pbm.ai of ``tree`` (see the module docs)."""
    sys.path.insert(0, tree)
    from pbm.ai import ThinkRequest, think

    loaded = sys.modules["pbm"].__file__ or ""
    if not Path(loaded).resolve().is_relative_to(Path(tree).resolve()):
        raise SystemExit(f"pbm was imported from {loaded}, not from {tree}")
    # the budget is CPU time only, as for the benchmark's own players: a
    # release with a wall-clock limit has it lifted
    unwalled: dict[str, Any] = {"wall": 1e12} if "wall" in {f.name for f in fields(ThinkRequest)} else {}
    for line in lines:
        request: dict[str, Any] = json.loads(line)
        start = time.process_time()
        choice = think(ThinkRequest(request["variant"], tuple(request["moves"]), level=request["level"],
                                    budget=request["budget"], seed=request["seed"], face=request["face"],
                                    **unwalled))
        seconds = time.process_time() - start
        out.write(json.dumps({"move": choice.move, "seconds": seconds}) + "\n")
        out.flush()


if __name__ == "__main__":
    serve(sys.argv[1], sys.stdin, sys.stdout)
