"""How strong the computer players are: matches between any two of them.

    python bench/strength.py 2 random --games 200
    python bench/strength.py 4 2 --games 100 --budget 4=0.8
    python bench/strength.py 4 3 --games 100 --budget 4=0.8,3=0.1 --jobs 2
    python bench/strength.py greedy random --variant 8x8trax --games 50

Players: ``1`` to ``4`` (the levels of :mod:`pbm.ai`), ``random`` (a
uniformly random legal move) and ``greedy`` (a win in one when it has one,
else a random move that leaves the other side no win in one).

Games are played in pairs: both games of a pair start from the same random
opening (``--opening`` plies, 2 by default, so that deterministic players do
not repeat one game; each opening move leaves neither side a win in one),
with the colours swapped.  A game still undecided after
``--plies`` plies (200 by default) counts as a draw.  In LuckyTrax every turn
draws a face from the game's own random generator and a face that fits
nowhere is passed, as the server does.

``--budget 4=0.5,3=0.1`` sets the CPU seconds per move of levels 3 and 4
(default :data:`pbm.ai.DEFAULT_BUDGETS`); ``--jobs 2`` plays games in two
processes (CPU time is measured per process, so budgets stay fair).

Printed: wins, draws and losses of the first player, its score with a 95%
confidence interval (normal approximation over the games), the Elo
difference that score means with its interval, and for each player the
median and maximum CPU time of its moves.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pbm.ai import DEFAULT_BUDGETS, ThinkRequest, greedy_move, random_move, think  # noqa: E402
from pbm.trax import PASS, Board  # noqa: E402

FACES = (5, 10, 9, 6, 3, 12)
PLAYERS = ("1", "2", "3", "4", "random", "greedy")


@dataclass(frozen=True)
class Game:
    """One game to play: its number, the players of white and black, and
    what decides its opening and draws."""

    number: int
    white: str
    black: str
    variant: str
    seed: int
    opening: int
    plies: int
    budgets: tuple[tuple[int, float], ...]


@dataclass(frozen=True)
class Played:
    """A game's result: the winner's player name, or None for a draw (or
    the ply limit), the number of plies, and each side's move times."""

    number: int
    white: str
    black: str
    winner: str | None
    plies: int
    reason: str
    times: tuple[tuple[str, float], ...]


def choose(player: str, board: Board, face: int | None, rng: random.Random,
           budgets: dict[int, float]) -> tuple[str, float]:
    """The player's move in the board's position and the CPU seconds it took."""
    start = time.process_time()
    if player == "random":
        move = str(random_move(board, face, rng))
    elif player == "greedy":
        move = str(greedy_move(board, face, rng))
    else:
        level = int(player)
        request = ThinkRequest(board.variant.name, tuple(str(m) for m in board.moves), level=level,
                               budget=budgets.get(level), seed=rng.getrandbits(32), face=face)
        move = think(request).move
    return move, time.process_time() - start


def quiet_move(board: Board, face: int | None, rng: random.Random) -> str:
    """A random opening move that leaves neither side a win in one (any
    move when there is none; a pass when the drawn face fits nowhere)."""
    options = board.placements(face) if face is not None else board.legal_moves()
    if not options:
        return str(PASS)
    rng.shuffle(options)
    for move in options:
        board.play(move)
        quiet = board.outcome() is None and not board.completions()
        board.pop()
        if quiet:
            return str(move)
    return str(options[0])


def play(game: Game) -> Played:
    """Play one game to its end (or the ply limit)."""
    rng = random.Random(game.seed)
    opening = random.Random(game.seed // 2)  # both games of a pair open alike
    budgets = dict(game.budgets)
    board = Board(game.variant)
    times: list[tuple[str, float]] = []
    lucky = board.variant.drawn
    while board.outcome() is None and board.ply < game.plies:
        face = rng.choice(FACES) if lucky else None
        if board.ply < game.opening:
            board.play(quiet_move(board, face, opening))
            continue
        side = game.white if board.ply % 2 == 0 else game.black
        if lucky and face is not None and not board.placements(face):
            board.play(PASS)
            continue
        move, seconds = choose(side, board, face, rng, budgets)
        times.append(("white" if board.ply % 2 == 0 else "black", seconds))
        board.play(move)
    outcome = board.outcome()
    winner = None
    reason = "plies" if outcome is None else outcome.reason
    if outcome is not None and outcome.winner is not None:
        winner = game.white if outcome.winner == "white" else game.black
    return Played(game.number, game.white, game.black, winner, board.ply, reason, tuple(times))


def parse_budgets(text: str) -> dict[int, float]:
    budgets = dict(DEFAULT_BUDGETS)
    for part in filter(None, text.split(",")):
        level, _, seconds = part.partition("=")
        budgets[int(level)] = float(seconds)
    return budgets


def interval(score: float, spread: float) -> tuple[float, float]:
    return max(0.0, score - 1.96 * spread), min(1.0, score + 1.96 * spread)


def elo(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def show_elo(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.0f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first", choices=PLAYERS)
    parser.add_argument("second", choices=PLAYERS)
    parser.add_argument("--games", type=int, default=20, help="games to play (even: pairs with colours swapped)")
    parser.add_argument("--variant", default="trax", help="game type (default trax)")
    parser.add_argument("--budget", default="", help="CPU seconds per move, e.g. 4=0.5,3=0.1")
    parser.add_argument("--plies", type=int, default=200, help="a game still going after this many plies is a draw")
    parser.add_argument("--opening", type=int, default=2, help="random plies that open each pair of games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="processes to play in (2 on this machine at most)")
    parser.add_argument("--quiet", action="store_true", help="no line per game")
    args = parser.parse_args(argv)
    budgets = parse_budgets(args.budget)
    games = []
    for number in range(args.games):
        pair, swapped = divmod(number, 2)
        white, black = (args.second, args.first) if swapped else (args.first, args.second)
        seed = (args.seed * 1_000_003 + pair) * 2 + swapped
        games.append(Game(number, white, black, args.variant, seed, args.opening, args.plies,
                          tuple(sorted(budgets.items()))))
    start = time.perf_counter()
    results: list[Played] = []
    if args.jobs > 1:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            for played in pool.map(play, games):
                results.append(played)
                if not args.quiet:
                    report_game(played)
    else:
        for game in games:
            played = play(game)
            results.append(played)
            if not args.quiet:
                report_game(played)
    wall = time.perf_counter() - start
    summary(args, budgets, results, wall)
    return 0


def report_game(played: Played) -> None:
    result = "draw" if played.winner is None else f"{played.winner} wins"
    print(f"game {played.number + 1:3}: {played.white} (white) v {played.black} (black): {result} "
          f"({played.reason}, {played.plies} plies)", flush=True)


def summary(args: argparse.Namespace, budgets: dict[int, float], results: list[Played], wall: float) -> None:
    first, second = args.first, args.second
    same = first == second
    wins = sum(1 for r in results if r.winner is not None and (r.winner == first and not same))
    losses = sum(1 for r in results if r.winner is not None and (r.winner == second and not same))
    if same:
        wins = sum(1 for r in results if r.winner is not None and r.winner == r.white)
        losses = sum(1 for r in results if r.winner is not None and r.winner == r.black)
    draws = len(results) - wins - losses
    n = len(results)
    points = [1.0 if r.winner == first else 0.0 if r.winner is not None else 0.5 for r in results]
    if same:
        points = [1.0 if r.winner == r.white else 0.0 if r.winner is not None else 0.5 for r in results]
    score = sum(points) / n if n else 0.0
    spread = statistics.pstdev(points) / math.sqrt(n) if n > 1 else 0.0
    low, high = interval(score, spread)
    used = {level: budgets[level] for level in (3, 4) if str(level) in (first, second)}
    print()
    print(f"{first} v {second}: {args.variant}, {n} games, opening {args.opening} plies, "
          f"draw after {args.plies} plies, budgets {used or '-'} s CPU per move, {args.jobs} job(s)")
    label = "white" if same else first
    print(f"{label}: {wins} wins, {draws} draws, {losses} losses")
    print(f"score {score:.3f} (95% CI {low:.3f} to {high:.3f})")
    print(f"Elo difference {show_elo(elo(score))} (95% CI {show_elo(elo(low))} to {show_elo(elo(high))})")
    for name in dict.fromkeys((first, second)):
        times = [seconds for r in results for side, seconds in r.times
                 if (r.white if side == "white" else r.black) == name]
        if times:
            print(f"{name}: {len(times)} moves, median {statistics.median(times):.3f} s, "
                  f"max {max(times):.3f} s CPU")
    plies = [r.plies for r in results]
    if plies:
        print(f"game length: median {statistics.median(plies):.0f} plies; wall time {wall:.0f} s")


if __name__ == "__main__":
    raise SystemExit(main())
