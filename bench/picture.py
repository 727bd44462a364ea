"""Benchmark of the board pictures (pbm.trax.picture).

    python bench/picture.py              # the table, about ten seconds
    python bench/picture.py --runs 500   # more runs per board

For boards of about 10, 40, 100 and 250 tiles it prints the median and 95th
percentile time of one picture (``board_png``: pasting the sprites,
outlines, PNG compression), the PNG's size and the picture's size in pixels.
The boards up to 100 tiles are positions of the recorded games in
tests/data/human-games.tsv (the first to reach that many tiles); the
250-tile board is a random looptrax game with a fixed seed whose moves
close no loop.  Sprites are drawn before timing (once per process, as in
the server).  The target: a 40-tile board in at most 2 ms and 30 KB.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.games import load_games, quiet_board  # noqa: E402
from pbm.trax import Board  # noqa: E402
from pbm.trax.picture import COMPRESS_LEVEL, board_png, picture_size  # noqa: E402

SIZES = (10, 40, 100, 250)


def recorded(tiles: int) -> Board | None:
    """The first position of a recorded game with at least ``tiles`` tiles."""
    for variant, moves in load_games():
        board = Board(variant)
        for move in moves:
            board.play(move)
            if board.tile_count >= tiles:
                return board
    return None


def measure(board: Board, runs: int) -> tuple[float, float, int]:
    """Median and 95th percentile milliseconds of one picture, and its bytes."""
    png = board_png(board)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        board_png(board)
        samples.append((time.perf_counter() - start) * 1e3)
    samples.sort()
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))], len(png)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=300, help="pictures per board (default 300)")
    args = parser.parse_args()

    start = time.perf_counter()
    board_png(Board())  # the sprites are drawn once, at first use
    print(f"sprites:  drawn in {(time.perf_counter() - start) * 1e3:.0f} ms (once per process)")

    print(f"{'tiles':>6} {'moves':>6} {'source':>9} {'pixels':>9} {'median ms':>10} {'p95 ms':>8} {'PNG KB':>8}")
    for tiles in SIZES:
        board = recorded(tiles) if tiles <= 100 else None
        source = "recorded" if board is not None else "random"
        if board is None:
            board = quiet_board(random.Random(1), "looptrax", lambda b, n=tiles: b.tile_count >= n)
            assert board is not None
        median, p95, size = measure(board, args.runs)
        width, height = picture_size(board)
        print(f"{board.tile_count:>6} {board.ply:>6} {source:>9} {f'{width}x{height}':>9} "
              f"{median:>10.2f} {p95:>8.2f} {size / 1024:>8.1f}")
    print(f"zlib:     level {COMPRESS_LEVEL}")
    print(f"machine:  Python {sys.version.split()[0]} on {platform.platform()} "
          f"({platform.processor() or platform.machine()}, {os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
