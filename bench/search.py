"""The computer's search speed here against another commit's, in one run:

    python bench/search.py --against f80cd15               # about three minutes
    python bench/search.py --against f80cd15 --rounds 5 --nodes 2000 --depth 2
    python bench/search.py --tree DIR --child              # one tree's figures as JSON

Two figures of the alpha-beta search (without the threat search of
``pbm/ai/threats.py`` where the tree has one) over a fixed set of
middle-game Trax positions (random games of 20 to 40 plies that leave
neither side a win in one, the same for both):

  nodes/s   each position searched for a fixed number of nodes (a clock
            that counts the search's readings, so both trees search the
            same amount), the nodes over the CPU seconds of the whole set
  depth     the CPU seconds to finish the iterations up to ``--depth`` on
            every position (what a faster search or a smaller tree buys)

Makes a checkout of ``--against`` with ``git worktree`` (as
``bench/compare.py`` does) and runs this file under both trees, each in a
process of its own, alternating which goes first, ``--rounds`` times; prints
the median of each and the median of the rounds' ratios (new / old).  "new"
is this checkout as it stands, uncommitted changes included.  The machine
is shared: read a ratio together with the spread of its rounds.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

SEEDS = ((1, 20), (2, 30), (3, 40), (4, 25), (5, 35), (6, 28))


class Counter:
    """A clock that moves one step each time it is read."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def position(board_class: Any, seed: int, plies: int) -> Any:
    """A random trax game of up to ``plies`` plies after which neither side
    can win at once (the same for any engine: only public calls)."""
    rng = random.Random(seed)
    board = board_class("trax")
    while board.ply < plies:
        options = board.legal_moves()
        rng.shuffle(options)
        for move in options:
            board.play(move)
            if board.outcome() is None and not board.completions():
                break
            board.pop()
        else:
            break
    return board


def child(tree: Path, nodes: int, depth: int) -> dict[str, float]:
    """The figures of the tree's search (run in a process of its own)."""
    sys.path.insert(0, str(tree))
    from pbm.ai.search import Searcher
    from pbm.trax import Board

    boards = [position(Board, seed, plies) for seed, plies in SEEDS]
    plain: dict[str, Any] = {}
    try:  # the alpha-beta search alone: a tree with the threat search (pbm.ai.threats) can leave it out
        Searcher(boards[0], 0.0, threats=False)
        plain["threats"] = False
    except TypeError:
        pass
    total_nodes = 0
    start = time.process_time()
    for board in boards:
        searcher = Searcher(board, float(nodes), seed=1, clock=Counter(), **plain)
        total_nodes += searcher.run(float(nodes) * 4, 0.0).nodes
    node_seconds = time.process_time() - start
    depth_nodes = 0
    start = time.process_time()
    for board in boards:
        searcher = Searcher(board, float("inf"), seed=1, **plain)
        depth_nodes += searcher.run(float("inf"), 0.0, max_depth=depth).nodes
    depth_seconds = time.process_time() - start
    return {"nodes/s": total_nodes / node_seconds, "depth s": depth_seconds, "depth nodes": depth_nodes}


def run_child(tree: Path, nodes: int, depth: int) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, "--child", "--tree", str(tree), "--nodes", str(nodes),
                          "--depth", str(depth)], check=True, capture_output=True, text=True).stdout
    result: dict[str, float] = json.loads(out)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", default=None, help="the commit to compare with")
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--child", action="store_true")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=1500, help="nodes per position (nodes/s)")
    parser.add_argument("--depth", type=int, default=2, help="iterations per position (depth s)")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.tree, args.nodes, args.depth)))
        return
    if args.against is None:
        print(json.dumps(run_child(args.tree, args.nodes, args.depth)))
        return
    sys.path.insert(0, str(ROOT / "bench"))
    from compare import worktree

    figures = ("nodes/s", "depth s", "depth nodes")
    runs: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    with worktree(args.against) as old_tree:
        trees = {"old": old_tree, "new": ROOT}
        for round_ in range(args.rounds):
            order = ("old", "new") if round_ % 2 == 0 else ("new", "old")
            for name in order:
                runs[name].append(run_child(trees[name], args.nodes, args.depth))
            print(f"round {round_ + 1}: " + "  ".join(
                f"{name} {runs[name][-1]['nodes/s']:.0f} nodes/s {runs[name][-1]['depth s']:.1f} s" for name in order),
                flush=True)
    print(f"{len(SEEDS)} positions, {args.nodes} nodes each; depth {args.depth}; {args.rounds} rounds; "
          f"new = this checkout, old = {args.against}")
    for figure in figures:
        old = statistics.median(r[figure] for r in runs["old"])
        new = statistics.median(r[figure] for r in runs["new"])
        ratios = [n[figure] / o[figure] for n, o in zip(runs["new"], runs["old"], strict=True) if o[figure]]
        print(f"{figure:12} old {old:10.1f}  new {new:10.1f}  new/old {statistics.median(ratios):.2f} "
              f"(rounds {min(ratios):.2f}-{max(ratios):.2f})")


if __name__ == "__main__":
    main()
