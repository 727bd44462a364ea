"""Benchmarks of the Trax rules engine.

    python bench/engine.py            # all figures, about half a minute
    python bench/engine.py --depth 6  # also the counting check to depth 6 (slow)

Figures printed:
  playouts   random games where every turn builds the full legal-move list
             (turns per second, and games per second)
  replay     the 300 recorded games replayed from their notation (moves/s)
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

from bench.games import load_games  # noqa: E402
from pbm.trax import Board  # noqa: E402


def playouts(seconds: float, seed: int = 1) -> tuple[int, int, float]:
    rng = random.Random(seed)
    turns = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        board = Board("trax")
        while board.outcome() is None and board.ply < 400:
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
    parser.add_argument("--seconds", type=float, default=8.0, help="playout time (default 8)")
    parser.add_argument("--depth", type=int, default=5, help="counting depth (default 5)")
    args = parser.parse_args()

    turns, games, secs = playouts(args.seconds)
    print(f"playouts: {turns / secs:,.0f} turns/s ({games / secs:.1f} games/s, {turns / games:.0f} turns/game)")

    moves, secs = replay(3)
    print(f"replay:   {moves / secs:,.0f} moves/s (300 recorded games, parsed and played)")

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
