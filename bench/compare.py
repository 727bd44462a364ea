"""The engine's figures in this checkout against those of another commit
(a release), in one run:

    make bench-compare REF=v0.1.0
    python bench/compare.py --against v0.1.0             # about four minutes
    python bench/compare.py --against v0.1.0 --rounds 5 --only playouts/trax,counting/5

Makes a checkout of REF with ``git worktree`` in a temporary folder, then
runs ``bench/engine.py`` (this checkout's, the same bench for both) once per
figure and engine, each in a process of its own, the two engines of a figure
one right after the other and each first in turn (old then new, then new
then old), so that what else the machine is doing falls on both alike.
Prints, per figure, the median of each engine's runs and the median of the
pairs' ratios (new / old: above 1 is more of the figure, which is better
for a rate and worse for a time or a size).  Removes the worktree at the end.

"new" is this checkout as it stands, uncommitted changes included (the
header says when pbm/trax has some); "old" is REF.  A single run on a busy
machine moves by 10-20%: read a ratio together with the spread of its pairs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ENGINE_BENCH = ROOT / "bench" / "engine.py"


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


@contextmanager
def worktree(ref: str) -> Iterator[Path]:
    """A checkout of ``ref`` in a temporary folder, removed afterwards."""
    commit = git("rev-parse", "--verify", f"{ref}^{{commit}}")
    folder = Path(tempfile.mkdtemp(prefix="pbm-bench-"))
    tree = folder / "tree"
    try:
        git("worktree", "add", "--detach", "--quiet", str(tree), commit)
        yield tree
    finally:
        if tree.exists():
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                           check=False, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, check=False, capture_output=True)


def measure(tree: Path, figure: str, options: list[str]) -> dict[str, Any]:
    """One figure of the engine in ``tree``, in a process of its own."""
    done = subprocess.run([sys.executable, str(ENGINE_BENCH), "--tree", str(tree), "--only", figure, "--json",
                           *options], cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench/engine.py --tree {tree} --only {figure} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    if not Path(result["engine"]).is_relative_to(tree.resolve()):
        raise SystemExit(f"{figure}: measured the engine in {result['engine']}, not the one in {tree}")
    return result


def describe(ref: str) -> str:
    return git("log", "-1", "--format=%h %ad %s", "--date=short", ref)[:90]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", required=True, metavar="REF", help="the commit or tag to compare with")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each figure per engine (default 3)")
    parser.add_argument("--seconds", type=float, default=3.0, help="playout time per game type (default 3)")
    parser.add_argument("--depth", type=int, default=5, help="counting depth (default 5)")
    parser.add_argument("--variants", default="", help="game types, separated by commas (default all)")
    parser.add_argument("--only", default="", help="the figures to compare, by name (bench/engine.py --list)")
    args = parser.parse_args()
    options = ["--seconds", str(args.seconds), "--depth", str(args.depth)]
    if args.variants:
        options += ["--variants", args.variants]
    listed = subprocess.run([sys.executable, str(ENGINE_BENCH), "--list", *options], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.split()
    names = [n for n in args.only.split(",") if n] or listed
    unknown = [n for n in names if n not in listed]
    if unknown:
        parser.error(f"no figure named {', '.join(unknown)} (bench/engine.py --list names them)")

    changed = git("status", "--porcelain", "--", "pbm/trax")
    print(f"old: {args.against} = {describe(args.against)}")
    print(f"new: this checkout, HEAD = {describe('HEAD')}"
          + (" (with uncommitted changes to pbm/trax)" if changed else ""))
    print(f"{args.rounds} rounds; each figure of each engine in a process of its own, the two in turn\n")
    print(f"{'figure':<20} {'old':>12} {'new':>12} {'new/old':>8}  {'pairs':<17} unit")
    with worktree(args.against) as old_tree:
        trees = {"old": old_tree, "new": ROOT}
        for i, name in enumerate(names):
            runs: dict[str, list[float]] = {"old": [], "new": []}
            ratios = []
            last: dict[str, Any] = {}
            for r in range(args.rounds):
                order = ("old", "new") if (i + r) % 2 == 0 else ("new", "old")
                pair = {which: measure(trees[which], name, options) for which in order}
                for which, result in pair.items():
                    runs[which].append(result["value"])
                ratios.append(pair["new"]["value"] / pair["old"]["value"])
                last = pair["new"]
            old, new = statistics.median(runs["old"]), statistics.median(runs["new"])
            spread = f"{min(ratios):.2f}-{max(ratios):.2f}" if len(ratios) > 1 else ""
            print(f"{name:<20} {old:>12,.2f} {new:>12,.2f} {statistics.median(ratios):>7.2f}x  {spread:<17} "
                  f"{last['unit']} ({last['better']} is better)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
