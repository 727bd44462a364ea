"""crival: the C contest-style engine (``bench/crival/trax.c``) as a player.

The rival of :mod:`rival` searches on pbm's pure-Python rules engine and
reaches a depth of one or two plies in a second; contest programs written in
C or C++ search some hundred thousand positions a second.  ``crival`` is
such a program: the rules written again in C (a fixed board array, the
forced-move rule, loops and lines), negamax alpha-beta with iterative
deepening, a transposition table, killer and history ordering, forced
blocks with quiescence, threat-space search at the root and a threat-aware
evaluation (see the comment at the top of the C file).

On first use the C file is compiled (``gcc -O2``) into a cache folder
(``$PBM_CRIVAL_CACHE``, else ``$XDG_CACHE_HOME/pbm-crival`` or
``~/.cache/pbm-crival``), named by a hash of the source so that an edit
builds anew; the build goes to a temporary name and is renamed into place,
so processes starting together never run half a file.  Each process that
plays starts the program once and keeps it (and its transposition table)
for the games it plays.

The position goes over the pipe as the tiles of a :class:`pbm.trax.Board`
in area coordinates (the Board replays the game's moves, so any notation
pbm stores will do); the answer (area coordinates and a tile) is turned
back into a move of pbm's notation and checked against the board's legal
moves: an answer that is not a legal move raises :class:`CrivalError` and
is never played.

    choose(board, budget, seed) -> (Move, CPU seconds, details)
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from pbm.trax import Board, Move

SOURCE = Path(__file__).resolve().parent / "crival" / "trax.c"
#: The C compiler and its flags.
CC = os.environ.get("CC", "gcc")
CFLAGS = ("-O2", "-std=gnu11")


class CrivalError(RuntimeError):
    """The C engine failed to build, ended, or answered no legal move."""


@dataclass(frozen=True)
class Answer:
    """What the engine said about its move: the depth it completed, the
    nodes it searched, its score (for the side to move) and its CPU time."""

    depth: int
    nodes: int
    score: int
    seconds: float


@dataclass(frozen=True)
class Turn:
    """A legal turn as the C engine plays it: the chosen tile ``(x, y,
    tile)`` in area coordinates, the winner (-1 none, 0 white, 1 black),
    the reason (0 none, 1 loop, 2 line), the tiles it places (the chosen one
    first), and what the search's shortcut for a turn that forces nothing
    says: its winner (-2 when the turn forces, so the shortcut is not
    taken) and whether its key is that of the turn played."""

    chosen: tuple[int, int, int]
    winner: int
    reason: int
    tiles: tuple[tuple[int, int, int], ...]
    quick: int
    same_key: bool


def cache_folder() -> Path:
    folder = os.environ.get("PBM_CRIVAL_CACHE")
    if folder:
        return Path(folder)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pbm-crival"


def build() -> Path:
    """The compiled engine, compiled first if the cache has none for this
    source."""
    source = SOURCE.read_bytes()
    digest = hashlib.sha256(source + " ".join((CC, *CFLAGS)).encode()).hexdigest()[:16]
    folder = cache_folder()
    binary = folder / f"crival-{digest}"
    if binary.exists():
        return binary
    if shutil.which(CC) is None:
        raise CrivalError(f"no C compiler {CC!r} to build {SOURCE.name} (apt-get install gcc)")
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=binary.name + ".", dir=folder)
    os.close(handle)
    try:
        done = subprocess.run([CC, *CFLAGS, "-o", temporary, str(SOURCE)], capture_output=True, text=True)
        if done.returncode != 0:
            raise CrivalError(f"{CC} could not build {SOURCE}:\n{done.stderr}")
        os.chmod(temporary, 0o755)
        os.replace(temporary, binary)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return binary


def position(board: Board) -> str:
    """``PLY N x y tile ...``: the board's tiles in area coordinates."""
    x0, y0 = board.frame()
    tiles = [f"{x0 + column} {y0 + row} {tile}" for column, row, tile in board.cells()]
    return " ".join([str(board.ply), str(len(tiles)), *tiles])


class Engine:
    """One running C engine (a subprocess answering a line per request)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([str(build())], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, bufsize=1)
        atexit.register(self.close)

    def request(self, line: str) -> str:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(line + "\n")
            stdin.flush()
        except BrokenPipeError:
            raise CrivalError(f"the C engine ended (exit code {self.process.wait()})") from None
        answer = stdout.readline()
        if not answer:
            raise CrivalError(f"the C engine ended (exit code {self.process.wait()})")
        return answer.strip()

    def lines_until_end(self, line: str) -> list[str]:
        out = []
        answer = self.request(line)
        while answer != "end":
            out.append(answer)
            answer = self.process.stdout.readline().strip() if self.process.stdout else "end"
        return out

    def think(self, board: Board, budget: float, seed: int = 0) -> tuple[Move, Answer]:
        """The engine's move in ``board``'s position (checked legal) and
        what it said about it."""
        if board.variant.name != "trax":
            raise CrivalError(f"crival plays Trax only, not {board.variant.name}")
        if board.outcome() is not None:
            raise CrivalError("the game is over")
        answer = self.request(f"go {budget:.4f} {seed & 0x7FFFFFFF} {position(board)}").split()
        if len(answer) != 8 or answer[0] != "move":
            raise CrivalError(f"the C engine answered {' '.join(answer)!r}")
        x, y, tile, depth, nodes, score = (int(v) for v in answer[1:7])
        move = to_move(board, x, y, tile)
        return move, Answer(depth, nodes, score, float(answer[7]))

    def legal(self, board: Board) -> list[Turn]:
        """Every legal turn as the C engine sees it (see :class:`Turn`)."""
        out = []
        for line in self.lines_until_end(f"legal {position(board)}"):
            v = [int(n) for n in line.split()]
            count = v[7]
            tiles = tuple((v[8 + 3 * i], v[9 + 3 * i], v[10 + 3 * i]) for i in range(count))
            out.append(Turn((v[0], v[1], v[2]), v[5], v[6], tiles, v[3], bool(v[4])))
        return out

    def bench(self, board: Board, seconds: float) -> tuple[int, int, float]:
        """(depth, nodes, CPU seconds) of one search of ``seconds``."""
        answer = self.request(f"bench {seconds:.4f} {position(board)}").split()
        return int(answer[1]), int(answer[2]), float(answer[3])

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            try:
                self.process.stdin.write("quit\n")
                self.process.stdin.close()
            except (BrokenPipeError, ValueError):
                pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def to_move(board: Board, x: int, y: int, tile: int) -> Move:
    """The legal move of ``board`` placing ``tile`` at area ``(x, y)``;
    :class:`CrivalError` when there is none."""
    x0, y0 = board.frame()
    column, row = x - x0, y - y0
    for move in board.legal_moves():
        if move.column == column and move.row == row and move.tile == tile:
            return move
    raise CrivalError(f"the C engine answered no legal move: tile {tile} at area ({x}, {y}), "
                      f"column {column}, row {row}, after {' '.join(str(m) for m in board.moves)}")


_ENGINE: Engine | None = None


def engine() -> Engine:
    """This process's engine, started on first use."""
    global _ENGINE
    if _ENGINE is None or _ENGINE.process.poll() is not None:
        _ENGINE = Engine()
    return _ENGINE


def choose(board: Board, budget: float, seed: int = 0) -> tuple[Move, float, Answer]:
    """crival's move in ``board``'s position within ``budget`` CPU seconds:
    the move (legal: checked), the CPU seconds spent (the engine's own and
    this process's around it) and what the engine said."""
    start = time.process_time()
    move, answer = engine().think(board, budget, seed)
    return move, answer.seconds + time.process_time() - start, answer
