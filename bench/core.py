"""Positions a second of level 4's searches, in one run:

    python bench/core.py                  # 1 s a position, about half a minute
    python bench/core.py --seconds 2

On the same middle-game Trax positions (those of ``bench/search.py``: random
games of 20 to 40 plies that leave neither side a win in one), each searched
for ``--seconds`` of CPU time by

  board     the search on the rules engine's Board (pbm/ai/search.py, the
            alpha-beta without its root threat search): what level 4 plays
            in the other game types, and in plain Trax before the core
  core      the compact core (pbm/ai/core.py) as installed: compiled by the
            build when it had Cython and a C compiler
  pure      the same core's source loaded as plain Python (what runs where
            the build had no compiler)
  C         the C contest engine the core was ported from (bench/crival,
            compiled with gcc on first use), as the yardstick

and prints for each the nodes, the CPU seconds, nodes a second, the median
depth reached, and its ratio to the Board's search.  The machine is shared:
the ratios of one run are the figures to quote.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))

import crival  # noqa: E402
from search import SEEDS, position  # noqa: E402

from pbm.ai import core, fast  # noqa: E402
from pbm.ai.search import Searcher  # noqa: E402
from pbm.trax import Board  # noqa: E402


def pure_core() -> object:
    """pbm/ai/core.py loaded from its source as plain Python."""
    spec = importlib.util.spec_from_file_location("pbm_core_pure", ROOT / "pbm" / "ai" / "core.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    assert not module.compiled
    return module


def board_search(board: Board, seconds: float) -> tuple[int, int, float]:
    start = time.process_time()
    result = Searcher(board, start + seconds, seed=1, threats=False).run(seconds, start)
    return result.depth, result.nodes, time.process_time() - start


def core_search(module: object, board: Board, seconds: float) -> tuple[int, int, float]:
    engine = module.Core(fast.TT_BITS)  # type: ignore[attr-defined]
    ply, tiles = fast.position(board)
    engine.setup(ply, tiles)
    depth, nodes, cpu = engine.bench(seconds)
    return int(depth), int(nodes), float(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per position and engine")
    args = parser.parse_args()
    boards = [position(Board, seed, plies) for seed, plies in SEEDS]
    pure = pure_core()
    engines = {
        "board": lambda b: board_search(b, args.seconds),
        "core": lambda b: core_search(core, b, args.seconds),
        "pure": lambda b: core_search(pure, b, args.seconds),
        "C": lambda b: crival.engine().bench(b, args.seconds),
    }
    figures: dict[str, list[tuple[int, int, float]]] = {name: [] for name in engines}
    for board in boards:
        for name, run in engines.items():  # each position by every engine in turn: the same load for all
            figures[name].append(run(board))
    rate = {name: sum(n for _, n, _ in rows) / sum(s for _, _, s in rows) for name, rows in figures.items()}
    print(f"{len(boards)} positions, {args.seconds:g} s CPU each; the core is "
          f"{'compiled' if core.compiled else 'plain Python (the build had no compiler)'}")
    print(f"{'engine':8s} {'nodes':>10s} {'CPU s':>7s} {'nodes/s':>10s} {'depth':>6s} {'x board':>8s}")
    for name, rows in figures.items():
        nodes, seconds = sum(n for _, n, _ in rows), sum(s for _, _, s in rows)
        depth = statistics.median(d for d, _, _ in rows)
        ratio = rate[name] / rate["board"]
        print(f"{name:8s} {nodes:>10,d} {seconds:>7.2f} {rate[name]:>10,.0f} {depth:>6g} {ratio:>8.1f}")


if __name__ == "__main__":
    main()
