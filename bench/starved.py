"""A search starved of CPU by other work: does it still answer, and when?

    python bench/starved.py                       # 2 hogs a core, level 3 at 1 s, 6 searches a policy
    python bench/starved.py --hogs 4 --budget 2 --searches 4

Starts ``--hogs`` busy processes at the ordinary priority (a machine busy
with something else), then runs level-3 searches of middle-game positions
in a worker process under each scheduling policy the daemon could give its
workers: ``idle`` (Linux SCHED_IDLE: only CPU time nobody else wants),
``nice19`` (SCHED_BATCH at nice 19: the smallest share, never none) and
``normal``; each search with pbm.ai's wall-clock deadline
(``ThinkRequest.wall``, by default 3 x the budget + 1 s) and without it.
Prints, for each, the wall-clock seconds until the answer (median and
max), the CPU seconds the search got and the depth it reached.  A search
that gives no answer within ``--give-up`` seconds counts as none.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pbm.ai import ThinkRequest, think  # noqa: E402
from pbm.trax import Board  # noqa: E402

POLICIES = ("idle", "nice19", "normal")


def hog() -> None:
    while True:
        pass


def set_policy(policy: str) -> None:
    if policy == "idle":
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    elif policy == "nice19":
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
        os.nice(19)


def position(seed: int) -> tuple[str, ...]:
    """A calm middle game: 14 plies of moves after which neither side can
    win at once (so the search has work to do)."""
    import random

    rng = random.Random(seed)
    board = Board()
    while board.ply < 14:
        moves = board.legal_moves()
        rng.shuffle(moves)
        for move in moves:
            board.play(move)
            if board.outcome() is None and not board.completions():
                break
            board.pop()
    return tuple(str(m) for m in board.moves)


def one_search(policy: str, moves: tuple[str, ...], budget: float, wall: bool) -> tuple[float, float, int]:
    set_policy(policy)
    start, cpu = time.monotonic(), time.process_time()
    request = ThinkRequest("trax", moves, level=3, budget=budget, seed=1, **({} if wall else {"wall": 3600.0}))
    choice = think(request)
    return time.monotonic() - start, time.process_time() - cpu, choice.depth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hogs", type=int, default=2 * (os.cpu_count() or 1), help="busy processes")
    parser.add_argument("--budget", type=float, default=1.0, help="CPU seconds a search may take")
    parser.add_argument("--searches", type=int, default=6, help="searches per policy")
    parser.add_argument("--give-up", type=float, default=60.0, help="wall seconds before a search counts as none")
    args = parser.parse_args()
    context = multiprocessing.get_context("spawn")
    hogs = [context.Process(target=hog, daemon=True) for _ in range(args.hogs)]
    for h in hogs:
        h.start()
    print(f"{args.hogs} hogs on {os.cpu_count()} CPUs; level 3, budget {args.budget} s CPU, "
          f"{args.searches} searches each")
    print(f"{'policy':8} {'deadline':9} {'answered':>8} {'wall median':>11} {'wall max':>9} {'CPU median':>10} "
          f"{'depth':>6}")
    try:
        for policy in POLICIES:
            for wall in (True, False):
                walls, cpus, depths, missing = [], [], [], 0
                for n in range(args.searches):
                    with context.Pool(1) as pool:
                        pending = pool.apply_async(one_search, (policy, position(n), args.budget, wall))
                        try:
                            w, c, d = pending.get(timeout=args.give_up)
                        except multiprocessing.TimeoutError:
                            missing += 1
                            continue
                    walls.append(w)
                    cpus.append(c)
                    depths.append(d)
                answered = f"{len(walls)}/{args.searches}"
                if walls:
                    print(f"{policy:8} {'wall' if wall else 'CPU only':9} {answered:>8} "
                          f"{statistics.median(walls):>10.2f}s {max(walls):>8.2f}s "
                          f"{statistics.median(cpus):>9.2f}s {statistics.median(depths):>6.1f}")
                else:
                    print(f"{policy:8} {'wall' if wall else 'CPU only':9} {answered:>8} {'none':>11}")
    finally:
        for h in hogs:
            h.terminate()


if __name__ == "__main__":
    main()
