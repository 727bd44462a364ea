"""Benchmarks of the Trax rules engine.

    python bench/engine.py            # all figures, about a minute
    python bench/engine.py --depth 6  # also the counting check to depth 6 (slow)
    python bench/engine.py --variants trax,8x8trax,looptrax --seconds 8

Figures printed:
  playouts   random games of each game type where every turn builds the full
             legal-move list (turns per second, and games per second); in
             luckytrax each turn draws a random face and plays a random
             placement of it, or passes; pointtrax plays to a target of 25
  replay     the 300 recorded games replayed from their notation (moves/s),
             and for each game type random games replayed from their move
             lists (as the server does when a position is not kept)
  counting   distinct move sequences from the empty board to depth 5 (seconds)
  scaling    cost of one play+pop on a small and on a large position (ratio)
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.games import load_games, random_turn  # noqa: E402
from pbm.trax import Board  # noqa: E402

ALL_VARIANTS = ("trax", "8x8trax", "looptrax", "minitrax", "luckytrax", "pointtrax")
#: A playout stops here if nothing has decided it (unlimited game types).
MAX_PLY = 400


def playouts(seconds: float, variant: str = "trax", seed: int = 1) -> tuple[int, int, float]:
    """Random games of ``variant`` for about ``seconds``: (turns, games, seconds)."""
    rng = random.Random(seed)
    turns = games = 0
    start = time.perf_counter()
    if variant in ("luckytrax", "pointtrax"):
        while time.perf_counter() - start < seconds:
            board = Board(variant)
            while board.outcome() is None and board.ply < MAX_PLY:
                random_turn(board, rng)
                turns += 1
            games += 1
        return turns, games, time.perf_counter() - start
    # the three original game types: exactly the loop the figures before the
    # new game types were measured with
    while time.perf_counter() - start < seconds:
        board = Board(variant)
        while board.outcome() is None and board.ply < MAX_PLY:
            moves = board.legal_moves()
            board.play(rng.choice(moves))
            turns += 1
        games += 1
    return turns, games, time.perf_counter() - start


def replay(rounds: int) -> tuple[int, float]:
    games = load_games()
    moves = 0
    start = time.perf_counter()
    for _ in range(rounds):
        for variant, record in games:
            Board.replay(record, variant)
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


def replay_records(variant: str, records: list[list[str]], rounds: int) -> tuple[int, float]:
    moves = 0
    start = time.perf_counter()
    for _ in range(rounds):
        for record in records:
            Board.replay(record, variant)
            moves += len(record)
    return moves, time.perf_counter() - start


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="playout time per game type (default 5)")
    parser.add_argument("--depth", type=int, default=5, help="counting depth (default 5)")
    parser.add_argument("--variants", default=",".join(ALL_VARIANTS),
                        help="game types to play out, separated by commas (default all)")
    args = parser.parse_args()
    variants = [v for v in args.variants.split(",") if v]

    for variant in variants:
        turns, games, secs = playouts(args.seconds, variant)
        print(f"playouts: {variant:<10} {turns / secs:>8,.0f} turns/s "
              f"({games / secs:.1f} games/s, {turns / games:.0f} turns/game)")

    moves, secs = replay(3)
    print(f"replay:   {moves / secs:,.0f} moves/s (300 recorded games, parsed and played)")
    for variant in variants:
        records = random_records(variant, 100)
        moves, secs = replay_records(variant, records, 3)
        print(f"replay:   {variant:<10} {moves / secs:>8,.0f} moves/s (100 random games, parsed and played)")

    for depth in range(5, args.depth + 1):
        start = time.perf_counter()
        n = Board().count_sequences(depth)
        print(f"counting: depth {depth} = {n:,} in {time.perf_counter() - start:.2f} s")

    small, large = grow(10, 3), grow(200, 3)
    a, b = cost_per_move(small), cost_per_move(large)
    print(
        f"scaling:  play+pop {a:.1f} us at {small.tile_count} tiles, "
        f"{b:.1f} us at {large.tile_count} tiles (ratio {b / a:.2f})"
    )
    print(f"machine:  Python {sys.version.split()[0]} on {sys.platform}")


if __name__ == "__main__":
    main()
