"""Benchmark of the board pictures (pbm.trax.picture).

    python bench/picture.py              # the table, about ten seconds
    python bench/picture.py --runs 500   # more runs per board

For boards of about 10, 40, 100 and 250 tiles it prints the median and 95th
percentile time of one picture (``board_png``: pasting the sprites,
outlines, PNG compression), the PNG's size and the picture's size in pixels,
at the zoom of the board mails (``--zoom``, default
:data:`pbm.app.compose.MAIL_ZOOM`, 2: the mail's pictures are drawn at twice
their size).  Then, for the 40-tile board, the drawing alone and the PNG
encoding at each zlib level of ``--levels``: the time against the size that
the choice of :data:`pbm.trax.picture.COMPRESS_LEVEL` rests on.
The boards up to 100 tiles are positions of the recorded games in
tests/data/human-games.tsv (the first to reach that many tiles); the
250-tile board is a random looptrax game with a fixed seed whose moves
close no loop.  Sprites are drawn before timing (once per process, as in
the server).  The target: a 40-tile board in at most 2 ms and 30 KB.
"""

from __future__ import annotations

import argparse
import io
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
from pbm.app.compose import MAIL_ZOOM  # noqa: E402
from pbm.trax import Board  # noqa: E402
from pbm.trax.picture import COMPRESS_LEVEL, board_image, board_png, picture_size  # noqa: E402

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


def measure(board: Board, runs: int, zoom: int) -> tuple[float, float, int]:
    """Median and 95th percentile milliseconds of one picture, and its bytes."""
    png = board_png(board, zoom=zoom)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        board_png(board, zoom=zoom)
        samples.append((time.perf_counter() - start) * 1e3)
    samples.sort()
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))], len(png)


def median_ms(work: object, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.process_time()
        work()  # type: ignore[operator]
        samples.append((time.process_time() - start) * 1e3)
    return statistics.median(samples)


def levels(board: Board, runs: int, zoom: int, chosen: list[int]) -> None:
    """The drawing alone, then the encoding and the size at each zlib level."""
    image = board_image(board, zoom=zoom)
    drawing = median_ms(lambda: board_image(board, zoom=zoom), runs)
    print(f"\n{board.tile_count} tiles at zoom {zoom}: drawing {drawing:.2f} ms (CPU, median); "
          "PNG encoding by zlib level:")
    print(f"{'level':>6} {'encode ms':>10} {'PNG KB':>8}")
    for level in chosen:
        def encode(level: int = level) -> bytes:
            buffer = io.BytesIO()
            image.save(buffer, format="PNG", compress_level=level)
            return buffer.getvalue()

        mark = "  (used)" if level == COMPRESS_LEVEL else ""
        print(f"{level:>6} {median_ms(encode, runs):>10.2f} {len(encode()) / 1024:>8.1f}{mark}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=300, help="pictures per board (default 300)")
    parser.add_argument("--zoom", type=int, default=MAIL_ZOOM, help=f"the pictures' zoom (default {MAIL_ZOOM}, mail's)")
    parser.add_argument("--levels", default="1,2,3,4,6,9", help="zlib levels compared (default 1,2,3,4,6,9)")
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
        median, p95, size = measure(board, args.runs, args.zoom)
        width, height = picture_size(board, zoom=args.zoom)
        print(f"{board.tile_count:>6} {board.ply:>6} {source:>9} {f'{width}x{height}':>9} "
              f"{median:>10.2f} {p95:>8.2f} {size / 1024:>8.1f}")
    print(f"zlib:     level {COMPRESS_LEVEL}; zoom {args.zoom}")
    forty = recorded(40)
    assert forty is not None
    levels(forty, max(args.runs // 3, 20), args.zoom, [int(n) for n in args.levels.split(",")])
    print(f"machine:  Python {sys.version.split()[0]} on {platform.platform()} "
          f"({platform.processor() or platform.machine()}, {os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
