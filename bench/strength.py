"""How strong the computer players are: matches between any two of them.

    python bench/strength.py 2 random --games 200
    python bench/strength.py 4 2 --games 100 --budget 4=0.8
    python bench/strength.py 4 3 --games 100 --budget 4=0.8,3=0.1 --jobs 2
    python bench/strength.py greedy random --variant 8x8trax --games 50

    python bench/strength.py 4 rival --games 30 --budget 4=1,rival=1 --jobs 2
    python bench/strength.py 4 rival --games 30 --budget 4=1,rival=4 --jobs 2
    python bench/strength.py 4 crival --games 30 --budget 4=0.5,crival=0.5 --jobs 2
    python bench/strength.py 4 4@v0.1.0 --games 30 --budget 4=1,4@v0.1.0=1 --jobs 2
    python bench/strength.py 4 deep3 --games 30 --budget 4=1 --jobs 2 --json out.json

Players:

``1`` to ``4``
    the levels of :mod:`pbm.ai` (of the working tree); ``4nobook`` (``3nobook``) the
    level without its opening book;
``random``
    a uniformly random legal move;
``greedy``
    a win in one when it has one, else a random move that leaves the other
    side no win in one;
``rival``
    an independent contest-style engine (:mod:`rival`, ``bench/rival.py``:
    negamax alpha-beta, iterative deepening, its own transposition table,
    threat-space search and threat-aware evaluation) on the rules engine
    only;
``crival``
    a contest-style engine in C (:mod:`crival`, ``bench/crival.py`` and
    ``bench/crival/trax.c``: the rules written again in C, some tens of
    thousands of nodes a second), compiled with gcc on first use and run in
    a subprocess; its move is checked legal by pbm.trax before it is played;
``deepN``
    pbm.ai's search to a fixed depth N (``deep4``), with no time limit;
``L@REF``
    level L of pbm.ai as of a git ref (``4@v0.1.0``, a branch, a commit),
    exported from git into a temporary folder and run in a subprocess of its
    own that answers over a pipe (:mod:`release`, ``bench/release.py``).

Games are played in pairs: both games of a pair start from the same random
opening (``--opening`` plies, 2 by default, so that deterministic players do
not repeat one game; each opening move leaves neither side a win in one),
with the colours swapped.  A game still undecided after
``--plies`` plies (200 by default) counts as a draw.  In LuckyTrax every turn
draws a face from the game's own random generator and a face that fits
nowhere is passed, as the server does.

``--budget 4=0.5,3=0.1,rival=2,4@v0.1.0=0.5`` sets the CPU seconds per move
of any player by its name (default: :data:`pbm.ai.DEFAULT_BUDGETS` for the
levels, that of level L for ``L@REF``, level 4's for ``rival`` and
``crival``; the budget of a level is capped by pbm.ai at its
``MAX_BUDGET``); ``--jobs 2`` plays
games in two processes (CPU time is measured per process, and in the
subprocess of a release player or crival, so budgets stay fair).

Printed: wins, draws and losses of the first player, its score with a 95%
confidence interval (Wilson score interval over the games, a draw counting
half), the Elo difference that score means with its interval, and for each
player the median and maximum CPU time of its moves.  ``--json FILE`` writes
the same figures (and the command's arguments) as JSON, ``-`` to stdout.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))

import crival  # noqa: E402
import release  # noqa: E402
import rival  # noqa: E402

from pbm.ai import DEFAULT_BUDGETS, Searcher, ThinkRequest, greedy_move, random_move, think  # noqa: E402
from pbm.trax import PASS, Board  # noqa: E402

FACES = (5, 10, 9, 6, 3, 12)
#: The players' names (see the module docs); ``deepN`` and ``L@REF`` are patterns.
PLAYER = re.compile(r"^(?:[1-4](?:nobook)?|random|greedy|c?rival|deep[1-9][0-9]?|[1-4]@[^\s=,]+)$")
#: A fixed-depth search's deadline: never.
NEVER = 1e12
#: Budgets here are CPU time only: pbm.ai's wall-clock limit (where it has
#: one) is lifted, so that a shared, busy machine cuts no side short.
UNWALLED: dict[str, Any] = {"wall": NEVER} if "wall" in {f.name for f in fields(ThinkRequest)} else {}


def player(name: str) -> str:
    """``name`` if it names a player (for argparse)."""
    if not PLAYER.match(name):
        raise argparse.ArgumentTypeError(
            f"unknown player {name!r}: 1 to 4 (4nobook: without the opening book), random, greedy, rival, "
            "crival, deepN or L@REF (e.g. 4@v0.1.0)")
    return name


@dataclass(frozen=True)
class Game:
    """One game to play: its number, the players of white and black, and
    what decides its opening and draws; ``trees`` the exported tree of each
    release player."""

    number: int
    white: str
    black: str
    variant: str
    seed: int
    opening: int
    plies: int
    budgets: tuple[tuple[str, float], ...]
    trees: tuple[tuple[str, str], ...] = ()


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


#: The release players' subprocesses of this process, by tree.
_RELEASES: dict[str, release.Release] = {}


def choose(name: str, board: Board, face: int | None, rng: random.Random,
           budgets: dict[str, float], trees: dict[str, str] | None = None) -> tuple[str, float]:
    """The player's move in the board's position and the CPU seconds it took."""
    start = time.process_time()
    if name == "random":
        move = str(random_move(board, face, rng))
    elif name == "greedy":
        move = str(greedy_move(board, face, rng))
    elif name == "rival":
        if face is not None:
            raise SystemExit("rival does not play LuckyTrax")
        move = str(rival.choose(board.copy(), budgets[name], seed=rng.getrandbits(32)))
    elif name == "crival":
        if face is not None:
            raise SystemExit("crival does not play LuckyTrax")
        chosen, seconds, _ = crival.choose(board, budgets[name], seed=rng.getrandbits(32))
        return str(chosen), seconds
    elif name.startswith("deep"):
        clock = time.process_time
        searcher = Searcher(board.copy(), NEVER, face=face, seed=rng.getrandbits(32), clock=clock)
        move = str(searcher.run(NEVER, clock(), max_depth=int(name[4:])).move)
    elif "@" in name:
        tree = (trees or {})[name]
        process = _RELEASES.get(tree)
        if process is None:
            process = _RELEASES[tree] = release.Release(Path(tree))
        return process.ask(board.variant.name, [str(m) for m in board.moves], int(name[0]), budgets[name],
                           rng.getrandbits(32), face)
    else:
        level = int(name[0])
        request = ThinkRequest(board.variant.name, tuple(str(m) for m in board.moves), level=level,
                               budget=budgets.get(name), seed=rng.getrandbits(32), face=face,
                               book=not name.endswith("nobook"), **UNWALLED)
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
    trees = dict(game.trees)
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
        move, seconds = choose(side, board, face, rng, budgets, trees)
        times.append(("white" if board.ply % 2 == 0 else "black", seconds))
        board.play(move)
    outcome = board.outcome()
    winner = None
    reason = "plies" if outcome is None else outcome.reason
    if outcome is not None and outcome.winner is not None:
        winner = game.white if outcome.winner == "white" else game.black
    return Played(game.number, game.white, game.black, winner, board.ply, reason, tuple(times))


def default_budget(name: str) -> float | None:
    """A player's budget when ``--budget`` names none (None: it needs none)."""
    if name in ("1", "2", "3", "4"):
        return DEFAULT_BUDGETS.get(int(name))
    if "@" in name or name.endswith("nobook"):
        return DEFAULT_BUDGETS.get(int(name[0]))
    if name in ("rival", "crival"):
        return DEFAULT_BUDGETS[4]
    return None


def parse_budgets(text: str, names: tuple[str, ...] = ()) -> dict[str, float]:
    """``4=0.5,rival=2`` as a dict by player name, with the defaults of
    ``names`` (and of the levels) filled in."""
    budgets: dict[str, float] = {str(level): seconds for level, seconds in DEFAULT_BUDGETS.items()}
    for name in names:
        seconds = default_budget(name)
        if seconds is not None:
            budgets.setdefault(name, seconds)
    for part in filter(None, text.split(",")):
        name, _, seconds = part.partition("=")
        value = float(seconds)
        if not value > 0:
            raise ValueError(f"a budget is a positive number of seconds, not {seconds!r}")
        budgets[name.strip()] = value
    return budgets


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a score (draws counting half) over ``n`` games."""
    if n <= 0:
        return 0.0, 1.0
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def elo(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def show_elo(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return "+0" if round(value) == 0 else f"{value:+.0f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first", type=player)
    parser.add_argument("second", type=player)
    parser.add_argument("--games", type=int, default=20, help="games to play (even: pairs with colours swapped)")
    parser.add_argument("--variant", default="trax", help="game type (default trax)")
    parser.add_argument("--budget", default="", help="CPU seconds per move by player, e.g. 4=0.5,3=0.1,rival=2")
    parser.add_argument("--plies", type=int, default=200, help="a game still going after this many plies is a draw")
    parser.add_argument("--opening", type=int, default=2, help="random plies that open each pair of games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="processes to play in (2 on this machine at most)")
    parser.add_argument("--quiet", action="store_true", help="no line per game")
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON to FILE (- for stdout)")
    args = parser.parse_args(argv)
    budgets = parse_budgets(args.budget, (args.first, args.second))
    trees = tuple((name, str(release.export(name.partition("@")[2])))
                  for name in dict.fromkeys((args.first, args.second)) if "@" in name)
    games = []
    for number in range(args.games):
        pair, swapped = divmod(number, 2)
        white, black = (args.second, args.first) if swapped else (args.first, args.second)
        seed = (args.seed * 1_000_003 + pair) * 2 + swapped
        games.append(Game(number, white, black, args.variant, seed, args.opening, args.plies,
                          tuple(sorted(budgets.items())), trees))
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
    figures = summary(args, budgets, results, wall)
    if args.json:
        text = json.dumps(figures, indent=2)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n", encoding="utf-8")
    return 0


def report_game(played: Played) -> None:
    result = "draw" if played.winner is None else f"{played.winner} wins"
    print(f"game {played.number + 1:3}: {played.white} (white) v {played.black} (black): {result} "
          f"({played.reason}, {played.plies} plies)", flush=True)


def tally(first: str, second: str, results: list[Played]) -> tuple[int, int, int, list[float]]:
    """Wins, draws and losses of ``first`` (of white when both players are
    the same) and its points game by game."""
    same = first == second
    points = []
    for r in results:
        if r.winner is None:
            points.append(0.5)
        elif same:
            points.append(1.0 if r.winner == r.white else 0.0)
        else:
            points.append(1.0 if r.winner == first else 0.0)
    wins = points.count(1.0)
    losses = points.count(0.0)
    return wins, len(points) - wins - losses, losses, points


def move_times(name: str, results: list[Played]) -> list[float]:
    return [seconds for r in results for side, seconds in r.times
            if (r.white if side == "white" else r.black) == name]


def summary(args: argparse.Namespace, budgets: dict[str, float], results: list[Played],
            wall: float) -> dict[str, Any]:
    """Print the match's figures; return them as plain values."""
    first, second = args.first, args.second
    wins, draws, losses, points = tally(first, second, results)
    n = len(results)
    score = sum(points) / n if n else 0.0
    low, high = wilson(score, n)
    used = {name: budgets[name] for name in dict.fromkeys((first, second))
            if name in budgets and default_budget(name) is not None}
    print()
    print(f"{first} v {second}: {args.variant}, {n} games, opening {args.opening} plies, "
          f"draw after {args.plies} plies, budgets {used or '-'} s CPU per move, {args.jobs} job(s)")
    label = "white" if first == second else first
    print(f"{label}: {wins} wins, {draws} draws, {losses} losses")
    print(f"score {score:.3f} (95% CI {low:.3f} to {high:.3f}, Wilson)")
    print(f"Elo difference {show_elo(elo(score))} (95% CI {show_elo(elo(low))} to {show_elo(elo(high))})")
    timing: dict[str, dict[str, float | int]] = {}
    for name in dict.fromkeys((first, second)):
        times = move_times(name, results)
        if times:
            timing[name] = {"moves": len(times), "median": statistics.median(times), "max": max(times)}
            print(f"{name}: {len(times)} moves, median {statistics.median(times):.3f} s, "
                  f"max {max(times):.3f} s CPU")
    plies = [r.plies for r in results]
    if plies:
        print(f"game length: median {statistics.median(plies):.0f} plies; wall time {wall:.0f} s")

    def finite(value: float) -> float | str:
        return show_elo(value) if math.isinf(value) else round(value, 1)

    return {
        "first": first, "second": second, "variant": args.variant, "games": n, "budgets": used,
        "opening": args.opening, "plies": args.plies, "seed": args.seed, "jobs": args.jobs,
        "wins": wins, "draws": draws, "losses": losses,
        "score": round(score, 4), "score_ci": [round(low, 4), round(high, 4)],
        "elo": finite(elo(score)), "elo_ci": [finite(elo(low)), finite(elo(high))],
        "times": timing, "median_plies": statistics.median(plies) if plies else None, "wall": round(wall, 1),
    }


if __name__ == "__main__":
    raise SystemExit(main())
