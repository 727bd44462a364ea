"""Benchmarks of the Trax rules engine: the figures of one checkout's engine.

    python bench/engine.py                     # all figures, about a minute
    python bench/engine.py --depth 6           # also the counting check to depth 6
    python bench/engine.py --variants trax,8x8trax,looptrax --seconds 8
    python bench/engine.py --list              # the figures' names
    python bench/engine.py --only playouts/trax,counting/5 --json
    python bench/engine.py --tree DIR          # the engine of another checkout

The engine measured is ``pbm.trax`` of this checkout, or of ``--tree`` (a
checkout of another commit: ``bench/compare.py`` makes one of a release with
``git worktree`` and runs this script under both, figure by figure, in
turn).  The bench itself is always this file and ``bench/games.py``: only
the engine's public API is used (``Board``, its moves, ``replay``,
``count_sequences``, and ``Knowledge`` where the engine has one), so the same
code measures releases from before the engine was split into modules.

Figures printed:
  playouts   random games of each game type where every turn builds the full
             legal-move list (turns per second; games per second and turns
             per game beside); in luckytrax each turn draws a random face
             and plays a random placement of it, or passes; pointtrax plays
             to a target of 25.  The boards of a game type share one
             Knowledge (what an engine from before issue 29 kept in a table
             of its module instead), made fresh for the figure, so each
             figure pays for its own learning
  replay     the 300 recorded games replayed from their notation (moves/s),
             and for each game type 100 random games replayed from their
             move lists (as the server does when a position is not kept)
  board250   a random 250-move looptrax game nobody wins: the memory its
             board holds after the replay (a deep walk of the Board object,
             leaving out what boards share: the game type and the
             Knowledge), what tracemalloc sees a replay keep, and the time
             to replay it (best of 30)
  counting   distinct move sequences from the empty board to depth 5 (and on
             to --depth), in seconds, starting from nothing learnt
  play+pop   the cost of one play and its undo on a small and on a large
             position (microseconds)

Each figure runs in its own process when compare.py asks (--only), so
nothing one figure learnt is found by the next.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from types import BuiltinFunctionType, FunctionType, ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def engine_tree(argv: list[str]) -> Path:
    """The checkout whose engine is measured (``--tree``, read before
    anything imports ``pbm``)."""
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--tree", type=Path, default=ROOT)
    return early.parse_known_args(argv)[0].tree.resolve()


# pbm from the engine's checkout: right after this script's folder (where
# games.py is, always this checkout's), before any installed pbm
TREE = engine_tree(sys.argv[1:])
sys.path.insert(1, str(TREE))

from games import load_games, quiet_board, quiet_game, random_turn  # noqa: E402

import pbm.trax as trax  # noqa: E402

ALL_VARIANTS = ("trax", "8x8trax", "looptrax", "minitrax", "luckytrax", "pointtrax")
#: A playout stops here if nothing has decided it (unlimited game types).
MAX_PLY = 400


class Engine:
    """The engine under test through the public API every release has.
    ``Knowledge`` came with issue 29: before it, what boards learnt was kept
    in a table of the engine's module, shared by every board of the process
    (a figure in a process of its own starts it empty, as a new Knowledge
    starts)."""

    def __init__(self) -> None:
        self.Board: Any = trax.Board
        self.Knowledge: Any = getattr(trax, "Knowledge", None)
        self.where = Path(trax.__file__).resolve().parent

    def knowledge(self) -> dict[str, Any]:
        """The keyword that gives boards a Knowledge of their own, new (none
        for an engine without one)."""
        return {} if self.Knowledge is None else {"knowledge": self.Knowledge()}

    def board_maker(self, variant: str) -> Callable[[], Any]:
        """A function that makes an empty board of ``variant``; its boards
        all share one Knowledge, new for this call."""
        shared = self.knowledge()
        return lambda: self.Board(variant, **shared)

    def replay(self, moves: list[str], variant: str) -> Any:
        return self.Board.replay(moves, variant)


ENGINE = Engine()


@dataclass
class Figure:
    """One measured figure, as --json prints it for compare.py."""

    name: str
    value: float
    unit: str
    better: str  # "higher" or "lower"
    note: str = ""


def playouts(seconds: float, variant: str = "trax", seed: int = 1) -> tuple[int, int, float]:
    """Random games of ``variant`` for about ``seconds``: (turns, games, seconds)."""
    rng = random.Random(seed)
    turns = games = 0
    new_board = ENGINE.board_maker(variant)
    start = time.perf_counter()
    if variant in ("luckytrax", "pointtrax"):
        while time.perf_counter() - start < seconds:
            board = new_board()
            while board.outcome() is None and board.ply < MAX_PLY:
                random_turn(board, rng)
                turns += 1
            games += 1
        return turns, games, time.perf_counter() - start
    # the three original game types: exactly the loop the figures before the
    # new game types were measured with
    while time.perf_counter() - start < seconds:
        board = new_board()
        while board.outcome() is None and board.ply < MAX_PLY:
            moves = board.legal_moves()
            board.play(rng.choice(moves))
            turns += 1
        games += 1
    return turns, games, time.perf_counter() - start


def replay_records(records: list[tuple[str, list[str]]], rounds: int) -> tuple[int, float]:
    """Replay (game type, moves) records ``rounds`` times: (moves, seconds)."""
    moves = 0
    start = time.perf_counter()
    for _ in range(rounds):
        for variant, record in records:
            ENGINE.replay(record, variant)
            moves += len(record)
    return moves, time.perf_counter() - start


def random_records(variant: str, count: int, seed: int = 2) -> list[tuple[str, list[str]]]:
    """The move lists of ``count`` random games of ``variant``."""
    rng = random.Random(seed)
    new_board = ENGINE.board_maker(variant)
    records = []
    for _ in range(count):
        board = new_board()
        while board.outcome() is None and board.ply < MAX_PLY:
            random_turn(board, rng)
        records.append((variant, [str(m) for m in board.moves]))
    return records


def deep_size(obj: object, shared: tuple[object, ...] = ()) -> int:
    """Bytes of ``obj`` and everything it holds (each object once), leaving
    out classes, modules, functions and the ``shared`` objects (the game
    type, which every board of that type holds)."""
    seen = {id(o) for o in shared}
    stack = [obj]
    total = 0
    while stack:
        o = stack.pop()
        if id(o) in seen or isinstance(o, (type, ModuleType, FunctionType, BuiltinFunctionType)):
            continue
        seen.add(id(o))
        total += sys.getsizeof(o)
        if isinstance(o, dict):
            stack.extend(o.keys())
            stack.extend(o.values())
        elif isinstance(o, (list, tuple, set, frozenset)):
            stack.extend(o)
        else:
            for cls in type(o).__mro__:
                for name in getattr(cls, "__slots__", ()):
                    if hasattr(o, name):
                        stack.append(getattr(o, name))
            if hasattr(o, "__dict__"):
                stack.append(o.__dict__)
    return total


def kept_by_replay(moves: list[str], variant: str) -> int:
    """Bytes tracemalloc sees a replay keep (after a first replay, so that
    what the engine shares between boards is made already)."""
    ENGINE.replay(moves, variant)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    board = ENGINE.replay(moves, variant)
    gc.collect()
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del board
    return kept


def replay_time(moves: list[str], variant: str, repeat: int = 30) -> float:
    """Best seconds of ``repeat`` replays of ``moves``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        ENGINE.replay(moves, variant)
        best = min(best, time.perf_counter() - start)
    return best


def grow(tiles: int, seed: int) -> Any:
    """A random looptrax game with at least ``tiles`` tiles and no result
    (its moves chosen among those that win nothing: a random game rarely
    reaches 200 tiles without a loop)."""
    rng = random.Random(seed)
    while (board := quiet_board(rng, "looptrax", lambda b: b.tile_count >= tiles)) is None:
        pass
    return board


def cost_per_move(board: Any, repeat: int = 20000) -> float:
    """Median microseconds of play+pop over the position's legal moves."""
    moves = board.legal_moves()
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for i in range(repeat):
            board.play(moves[i % len(moves)])
            board.pop()
        samples.append((time.perf_counter() - start) / repeat * 1e6)
    return statistics.median(samples)


# --- the figures, by name ------------------------------------------------------------------------


def figure_playouts(variant: str, seconds: float) -> Figure:
    turns, games, secs = playouts(seconds, variant)
    return Figure(f"playouts/{variant}", turns / secs, "turns/s", "higher",
                  f"{games / secs:.1f} games/s, {turns / games:.0f} turns/game")


def figure_replay(variant: str) -> Figure:
    if variant == "recorded":
        records, rounds, what = load_games(), 3, "300 recorded games"
    else:
        records, rounds, what = random_records(variant, 100), 3, "100 random games"
    moves, secs = replay_records(records, rounds)
    return Figure(f"replay/{variant}", moves / secs, "moves/s", "higher", f"{what}, parsed and played")


def the_250_moves() -> tuple[list[str], str]:
    return quiet_game(random.Random(250), 250, "looptrax"), "looptrax"


def figure_board250(what: str) -> Figure:
    moves, variant = the_250_moves()
    if what == "memory":
        board = ENGINE.replay(moves, variant)
        size = deep_size(board, (board.variant, getattr(board, "knowledge", None)))
        return Figure("board250/memory", size / 1024, "KiB", "lower",
                      f"the board holds (deep walk; looptrax, {board.tile_count} tiles)")
    if what == "kept":
        return Figure("board250/kept", kept_by_replay(moves, variant) / 1024, "KiB", "lower",
                      "tracemalloc sees the replay keep")
    return Figure("board250/replay", replay_time(moves, variant) * 1000, "ms", "lower",
                  "to replay the game (best of 30)")


def figure_counting(depth: int) -> Figure:
    board = ENGINE.Board("trax", **ENGINE.knowledge())
    start = time.perf_counter()
    n = board.count_sequences(depth)
    return Figure(f"counting/{depth}", time.perf_counter() - start, "s", "lower", f"{n:,} sequences")


def figure_play_pop(tiles: int) -> Figure:
    board = grow(tiles, 3)
    return Figure(f"play+pop/{tiles}", cost_per_move(board), "us", "lower", f"at {board.tile_count} tiles")


def figures(variants: list[str], depth: int, seconds: float) -> dict[str, Callable[[], Figure]]:
    """Every figure's name, and how to measure it, in the order printed."""
    out: dict[str, Callable[[], Figure]] = {}
    for v in variants:
        out[f"playouts/{v}"] = partial(figure_playouts, v, seconds)
    for v in ["recorded", *variants]:
        out[f"replay/{v}"] = partial(figure_replay, v)
    for what in ("memory", "kept", "replay"):
        out[f"board250/{what}"] = partial(figure_board250, what)
    for d in range(5, depth + 1):
        out[f"counting/{d}"] = partial(figure_counting, d)
    for tiles in (10, 200):
        out[f"play+pop/{tiles}"] = partial(figure_play_pop, tiles)
    return out


def machine() -> str:
    """Python, the platform, and the processor (its model where Linux says)."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"Python {sys.version.split()[0]} on {sys.platform}, {model}, {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=ROOT,
                        help="the checkout whose engine (pbm.trax) is measured (default: this one)")
    parser.add_argument("--seconds", type=float, default=5.0, help="playout time per game type (default 5)")
    parser.add_argument("--depth", type=int, default=5, help="counting depth (default 5)")
    parser.add_argument("--variants", default=",".join(ALL_VARIANTS),
                        help="game types to play out and replay, separated by commas (default all)")
    parser.add_argument("--only", default="", help="the figures to measure, by name, separated by commas")
    parser.add_argument("--list", action="store_true", help="print the figures' names and stop")
    parser.add_argument("--json", action="store_true", help="print each figure as a line of JSON")
    args = parser.parse_args()
    table = figures([v for v in args.variants.split(",") if v], args.depth, args.seconds)
    if args.list:
        print("\n".join(table))
        return
    names = [n for n in args.only.split(",") if n] or list(table)
    unknown = [n for n in names if n not in table]
    if unknown:
        parser.error(f"no figure named {', '.join(unknown)} (--list names them)")
    if not args.json:
        print(f"engine:   {ENGINE.where}")
    for name in names:
        figure = table[name]()
        if args.json:
            print(json.dumps({**asdict(figure), "engine": str(ENGINE.where)}), flush=True)
        else:
            print(f"{figure.name:<20} {figure.value:>12,.2f} {figure.unit:<8} {figure.note}", flush=True)
    if not args.json:
        print(f"machine:  {machine()}")


if __name__ == "__main__":
    main()
