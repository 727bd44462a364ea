"""Benchmarks of the Trax rules engine, old and new in one run.

    python bench/engine.py            # all figures, about two minutes
    python bench/engine.py --depth 6  # also the counting check to depth 6
    python bench/engine.py --variants trax,8x8trax,looptrax --seconds 8

"old" is the engine as it stood before issue 20 made it faster, kept frozen
in ``bench/baseline_engine`` for this comparison; "new" is ``pbm.trax``.
Both run the same games (the same seeds give the same move lists) on the
same machine, one after the other.

Figures printed:
  playouts   random games of each game type where every turn builds the full
             legal-move list (turns per second, and games per second); in
             luckytrax each turn draws a random face and plays a random
             placement of it, or passes; pointtrax plays to a target of 25.
             The new engine's boards of each game type share one Knowledge
             (the legality answers learnt from the positions they meet, and
             the Move objects), made fresh for that game type, so each
             figure pays for its own learning
  replay     the 300 recorded games replayed from their notation (moves/s),
             and for each game type random games replayed from their move
             lists (as the server does when a position is not kept: each
             board with a Knowledge of its own)
  250 moves  a random 250-move looptrax game nobody wins: the memory its
             board holds after the replay (a deep walk of the Board object,
             leaving out what boards share: the game type and the Knowledge,
             and what tracemalloc sees the replay keep) and the time to replay
             it (best of 30)
  counting   distinct move sequences from the empty board to depth 5 (and
             on to --depth, new engine only past --old-depth), in seconds;
             the new engine's board starts from an empty Knowledge
  scaling    cost of one play+pop on a small and on a large position (ratio)
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from types import BuiltinFunctionType, FunctionType, ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.baseline_engine import Board as OldBoard  # noqa: E402
from bench.games import load_games, quiet_game, random_turn  # noqa: E402
from pbm.trax import Board, Knowledge  # noqa: E402

ALL_VARIANTS = ("trax", "8x8trax", "looptrax", "minitrax", "luckytrax", "pointtrax")
#: A playout stops here if nothing has decided it (unlimited game types).
MAX_PLY = 400
#: The engines compared: the frozen pre-optimisation one and pbm.trax.
ENGINES: tuple[tuple[str, Any], ...] = (("old", OldBoard), ("new", Board))


def board_maker(board_class: Any, variant: str) -> Any:
    """A function that makes an empty board of ``variant``: the new engine's
    boards all share one Knowledge, new for this call (the old engine's
    table of answers was emptied before each game type)."""
    if board_class is Board:
        knowledge = Knowledge()
        return lambda: Board(variant, knowledge=knowledge)
    return lambda: board_class(variant)


def playouts(seconds: float, variant: str = "trax", seed: int = 1,
             board_class: Any = Board) -> tuple[int, int, float]:
    """Random games of ``variant`` for about ``seconds``: (turns, games, seconds)."""
    rng = random.Random(seed)
    turns = games = 0
    new_board = board_maker(board_class, variant)
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


def replay(rounds: int, board_class: Any = Board) -> tuple[int, float]:
    games = load_games()
    moves = 0
    start = time.perf_counter()
    for _ in range(rounds):
        for variant, record in games:
            board_class.replay(record, variant)
            moves += len(record)
    return moves, time.perf_counter() - start


def random_records(variant: str, count: int, seed: int = 2) -> list[list[str]]:
    """The move lists of ``count`` random games of ``variant``."""
    rng = random.Random(seed)
    records = []
    for _ in range(count):
        board = Board(variant)
        while board.outcome() is None and board.ply < MAX_PLY:
            random_turn(board, rng)
        records.append([str(m) for m in board.moves])
    return records


def replay_records(variant: str, records: list[list[str]], rounds: int,
                   board_class: Any = Board) -> tuple[int, float]:
    moves = 0
    start = time.perf_counter()
    for _ in range(rounds):
        for record in records:
            board_class.replay(record, variant)
            moves += len(record)
    return moves, time.perf_counter() - start


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


def kept_by_replay(board_class: Any, moves: list[str], variant: str) -> int:
    """Bytes tracemalloc sees a replay keep (after a first replay, so that
    what the engine shares between boards is made already)."""
    board_class.replay(moves, variant)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    board = board_class.replay(moves, variant)
    gc.collect()
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del board
    return kept


def replay_time(board_class: Any, moves: list[str], variant: str, repeat: int = 30) -> float:
    """Best seconds of ``repeat`` replays of ``moves``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        board_class.replay(moves, variant)
        best = min(best, time.perf_counter() - start)
    return best


def grow(tiles: int, seed: int) -> Board:
    """A random looptrax game with at least ``tiles`` tiles and no result."""
    rng = random.Random(seed)
    while True:
        board = Board("looptrax")
        while board.outcome() is None and board.tile_count < tiles:
            board.play(rng.choice(board.legal_moves()))
        if board.outcome() is None:
            return board


def cost_per_move(board: Board, repeat: int = 20000) -> float:
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
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="playout time per game type and engine (default 5)")
    parser.add_argument("--depth", type=int, default=5, help="counting depth (default 5)")
    parser.add_argument("--old-depth", type=int, default=5,
                        help="deepest counting the old engine runs too (default 5; 6 takes it ~40 s)")
    parser.add_argument("--variants", default=",".join(ALL_VARIANTS),
                        help="game types to play out, separated by commas (default all)")
    args = parser.parse_args()
    variants = [v for v in args.variants.split(",") if v]

    print(f"{'':10} {'':10} {'old':>10} {'new':>10} {'new/old':>8}")
    for variant in variants:
        rates = {}
        for name, board_class in ENGINES:
            turns, games, secs = playouts(args.seconds, variant, board_class=board_class)
            rates[name] = (turns / secs, games / secs, turns / games)
        (old, _, _), (new, games_per_s, per_game) = rates["old"], rates["new"]
        print(f"playouts: {variant:<10} {old:>10,.0f} {new:>10,.0f} {new / old:>7.2f}x  turns/s "
              f"(new: {games_per_s:.1f} games/s, {per_game:.0f} turns/game)")

    figures = {name: replay(3, board_class) for name, board_class in ENGINES}
    old, new = (moves / secs for moves, secs in figures.values())
    print(f"replay:   {'recorded':<10} {old:>10,.0f} {new:>10,.0f} {new / old:>7.2f}x  moves/s "
          f"(300 recorded games, parsed and played)")
    for variant in variants:
        records = random_records(variant, 100)
        figures = {name: replay_records(variant, records, 3, board_class) for name, board_class in ENGINES}
        old, new = (moves / secs for moves, secs in figures.values())
        print(f"replay:   {variant:<10} {old:>10,.0f} {new:>10,.0f} {new / old:>7.2f}x  moves/s "
              f"(100 random games, parsed and played)")

    moves = quiet_game(random.Random(250), 250, "looptrax")
    boards = {name: board_class.replay(moves, "looptrax") for name, board_class in ENGINES}
    tiles = boards["new"].tile_count
    old, new = (deep_size(board, (board.variant, getattr(board, "knowledge", None))) / 1024
                for board in boards.values())
    print(f"250 moves: {'memory':<9} {old:>8,.1f} K {new:>8,.1f} K {new / old:>7.2f}x  KiB the board holds "
          f"(deep walk; looptrax, {tiles} tiles)")
    old, new = (kept_by_replay(board_class, moves, "looptrax") / 1024 for _, board_class in ENGINES)
    print(f"250 moves: {'kept':<9} {old:>8,.1f} K {new:>8,.1f} K {new / old:>7.2f}x  KiB tracemalloc sees "
          f"the replay keep")
    old, new = (replay_time(board_class, moves, "looptrax") * 1000 for _, board_class in ENGINES)
    print(f"250 moves: {'replay':<9} {old:>8.2f} ms {new:>7.2f} ms {new / old:>6.2f}x  to replay the game "
          f"(best of 30)")

    for depth in range(5, args.depth + 1):
        times = {}
        for name, board_class in ENGINES:
            if name == "old" and depth > args.old_depth:
                continue
            start = time.perf_counter()
            n = board_class().count_sequences(depth)
            times[name] = time.perf_counter() - start
        shown_old = f"{times['old']:>8.2f} s" if "old" in times else f"{'-':>10}"
        ratio = f"{times['new'] / times['old']:>7.2f}x" if "old" in times else f"{'':>8}"
        print(f"counting: depth {depth:<4} {shown_old} {times['new']:>8.2f} s {ratio}  = {n:,} sequences")

    small, large = grow(10, 3), grow(200, 3)
    a, b = cost_per_move(small), cost_per_move(large)
    print(
        f"scaling:  play+pop {a:.1f} us at {small.tile_count} tiles, "
        f"{b:.1f} us at {large.tile_count} tiles (ratio {b / a:.2f}; new engine)"
    )
    print(f"machine:  {machine()}")


if __name__ == "__main__":
    main()
