"""Build the opening book (``pbm/ai/book.txt``) from recorded games.

    python bench/book.py                       # the human games only
    python bench/book.py --selfplay 60 --budget 0.2 --jobs 2
    python bench/book.py ../shared/data/human-games.tsv --plies 12 --out pbm/ai/book.txt

The human games are a tab-separated file (``#`` lines are comments):
number, the variant as recorded (``Trax``, ``Loop Trax``, ``8x8 Trax``),
how the record ends, the result the board shows (``white:loop`` ...,
``none``) and the moves.  Each game is replayed with the engine; a game
the engine refuses is skipped and counted.  Trax and 8x8 Trax games go to
the ``trax`` section (8x8 games replayed under Trax rules: their first
plies are the same, and one recorded 8x8 game leaves the area later on),
Loop Trax games to ``looptrax``.

Who won a game whose board shows no result (a resignation, a loss on time,
a record that stops): the side to move when it can win at once, else the
side that moved last (the side to move gave up; nearly always it faces a
threat).

``--selfplay N`` adds N games of the computer against itself per section
(level 4 both sides, ``--budget`` CPU seconds a move, no book): each starts
from the recorded games' moves (chosen at random, weighted by games, while
the position has any) and ends by the rules or as a draw after ``--max-plies``.

The book keeps, for every position of the first ``--plies`` plies, the moves
played from it with at least ``--keep`` games, and the wins, draws and
losses of the player who made them (see :mod:`pbm.ai.book` for the keys),
and only the positions reachable from the empty board through kept moves.
Only this script reads the game records; the server and the tests read the
book it writes.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbm.ai import ThinkRequest, think
from pbm.ai.book import Entry, position_key
from pbm.trax import Board, TraxError

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_GAMES = ROOT.parent / "shared" / "data" / "human-games.tsv"
DEFAULT_OUT = ROOT / "pbm" / "ai" / "book.txt"
#: The variant as recorded -> (book section, game type the moves are replayed as).
RECORDED = {"trax": ("trax", "trax"), "8x8 trax": ("trax", "trax"), "loop trax": ("looptrax", "looptrax")}

#: section -> parent key -> child key -> [wins, draws, losses] of the mover.
Stats = dict[str, dict[str, dict[str, list[int]]]]


@dataclass(frozen=True)
class Game:
    section: str
    game_type: str
    moves: tuple[str, ...]
    winner: str | None  # "white", "black" or None (a draw)
    source: str


def judged_winner(board: Board) -> str:
    """Who won a record that stops undecided (see the module docs)."""
    bit = 1 << (board.ply & 1)
    found = board.completions(stop=bit)
    if found and found[-1][1] & bit:
        return board.turn
    return "black" if board.turn == "white" else "white"


def read_human(path: Path) -> tuple[list[Game], list[str], int]:
    """The games of the file, the reasons games were skipped, and how many
    results were judged (no result on the board)."""
    games: list[Game] = []
    skipped: list[str] = []
    judged = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 5:
            skipped.append(f"{fields[0]}: {len(fields)} fields")
            continue
        number, recorded, _end, result, moves = fields
        kind = RECORDED.get(recorded.strip().lower())
        if kind is None:
            skipped.append(f"{number}: variant {recorded!r} has no book")
            continue
        section, game_type = kind
        try:
            board = Board.replay(moves.split(), game_type)
        except TraxError as exc:
            skipped.append(f"{number}: {exc}")
            continue
        outcome = board.outcome()
        shown = "none" if outcome is None else f"{outcome.winner}:{outcome.reason}"
        if shown != result.strip():
            skipped.append(f"{number}: the board shows {shown}, the record {result}")
            continue
        if outcome is None:
            winner: str | None = judged_winner(board)
            judged += 1
        else:
            winner = outcome.winner
        games.append(Game(section, game_type, tuple(moves.split()), winner, "human"))
    return games, skipped, judged


def add_game(stats: Stats, game: Game, plies: int) -> None:
    """Count the game's moves of its first ``plies`` plies."""
    positions = stats.setdefault(game.section, {})
    board = Board(game.game_type)
    for move in game.moves[:plies]:
        if board.outcome() is not None:
            break
        parent = position_key(board)
        mover = board.turn
        board.play(move)
        child = position_key(board)
        if parent is None or child is None:
            break
        counts = positions.setdefault(parent, {}).setdefault(child, [0, 0, 0])
        counts[0 if game.winner == mover else 1 if game.winner is None else 2] += 1


def pick_recorded(board: Board, stats: Stats, section: str, rng: random.Random) -> str | None:
    """A move of the recorded games from the board's position (weighted by
    games), or None when they have none."""
    key = position_key(board)
    children = stats.get(section, {}).get(key or "", {})
    if not children:
        return None
    options = []
    for move in board.legal_moves():
        board.play(move)
        child = position_key(board)
        board.pop()
        if child in children:
            options.append((str(move), sum(children.pop(child))))
    if not options:
        return None
    return rng.choices([m for m, _ in options], weights=[n for _, n in options])[0]


def selfplay(job: tuple[str, str, int, float, int, int, Stats]) -> Game:
    """One game of level 4 against itself from a recorded opening."""
    section, game_type, seed, budget, max_plies, opening, stats = job
    rng = random.Random(seed)
    board = Board(game_type)
    while board.outcome() is None and board.ply < max_plies:
        move = pick_recorded(board, stats, section, rng) if board.ply < opening else None
        if move is None:
            opening = 0  # out of the records: the computer plays on
            request = ThinkRequest(game_type, tuple(str(m) for m in board.moves), level=4, budget=budget,
                                   seed=rng.randrange(1 << 30), book=False)
            move = think(request).move
        board.play(move)
    outcome = board.outcome()
    return Game(section, game_type, tuple(str(m) for m in board.moves),
                outcome.winner if outcome is not None else None, "selfplay")


def prune(positions: dict[str, dict[str, list[int]]], keep: int) -> dict[str, dict[str, list[int]]]:
    """The moves with at least ``keep`` games, of the positions reachable
    from the empty board through such moves."""
    root = position_key(Board())
    assert root is not None
    out: dict[str, dict[str, list[int]]] = {}
    todo = [root]
    while todo:
        parent = todo.pop()
        if parent in out:
            continue
        kept = {child: counts for child, counts in positions.get(parent, {}).items() if sum(counts) >= keep}
        if kept:
            out[parent] = kept
            todo.extend(kept)
    return out


def write_book(path: Path, book: Stats, header: list[str]) -> None:
    lines = ["# The opening book of pbm.ai, written by bench/book.py (see pbm/ai/book.py)."]
    lines += [f"# {h}" for h in header]
    lines.append("# <position> <position after the move>:<wins>/<draws>/<losses of the mover> ...")
    for section in sorted(book):
        lines.append(f"[{section}]")
        for parent in sorted(book[section], key=lambda k: (len(k), k)):
            children = sorted(book[section][parent].items(), key=lambda item: (-sum(item[1]), item[0]))
            lines.append(" ".join([parent] + [f"{child}:{w}/{d}/{lo}" for child, (w, d, lo) in children]))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="?", type=Path, default=DEFAULT_GAMES, help="the human games (TSV)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--plies", type=int, default=12, help="the plies of each game the book looks at")
    parser.add_argument("--keep", type=int, default=2, help="the fewest games a book move keeps")
    parser.add_argument("--selfplay", type=int, default=0, help="games of the computer per section")
    parser.add_argument("--sections", default="trax", help="the sections self-play adds to")
    parser.add_argument("--budget", type=float, default=0.2, help="CPU seconds a self-play move")
    parser.add_argument("--max-plies", type=int, default=120, help="a self-play game is a draw after these")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    started = time.monotonic()
    games, skipped, judged = read_human(args.games)
    stats: Stats = {}
    for game in games:
        add_game(stats, game, args.plies)
    print(f"human games: {len(games)} used ({judged} results judged), {len(skipped)} skipped")
    for reason in skipped:
        print(f"  skipped {reason}")
    by_section: dict[str, int] = defaultdict(int)
    for game in games:
        by_section[game.section] += 1
    print("  by section: " + ", ".join(f"{s} {n}" for s, n in sorted(by_section.items())))

    played: list[Game] = []
    if args.selfplay:
        game_types = {"trax": "trax", "looptrax": "looptrax"}
        jobs = [(section, game_types[section], args.seed * 100_003 + i, args.budget, args.max_plies, args.plies, stats)
                for section in args.sections.split(",") for i in range(args.selfplay)]
        began = time.monotonic()
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            for game in pool.map(selfplay, jobs):
                played.append(game)
                print(f"  self-play {len(played)}/{len(jobs)}: {len(game.moves)} plies, "
                      f"{game.winner or 'draw'} ({time.monotonic() - began:.0f} s)", flush=True)
        for game in played:
            add_game(stats, game, args.plies)

    book = {section: prune(positions, args.keep) for section, positions in stats.items()}
    book = {section: positions for section, positions in book.items() if positions}
    header = [f"{len(games)} human games ({judged} results judged from the last position), {len(skipped)} skipped;"
              f" {len(played)} self-play games (level 4, {args.budget} s a move)",
              f"the first {args.plies} plies; moves with at least {args.keep} games"]
    write_book(args.out, book, header)

    for section, positions in sorted(book.items()):
        moves = sum(len(children) for children in positions.values())
        usable = sum(1 for children in positions.values() for counts in children.values()
                     if Entry("", *counts).games >= 3)
        plies = _plies_from_root(positions)
        by_ply: dict[int, int] = defaultdict(int)
        for parent in positions:
            by_ply[plies[parent]] += 1
        print(f"[{section}] {len(positions)} positions, {moves} moves ({usable} with 3 games or more),"
              f" plies 0 to {max(plies.values())}; positions by ply: "
              + " ".join(f"{p}:{n}" for p, n in sorted(by_ply.items())))
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes) in {time.monotonic() - started:.0f} s")
    return 0


def _plies_from_root(positions: dict[str, dict[str, list[int]]]) -> dict[str, int]:
    """The fewest moves from the empty board to each position of the book."""
    root = position_key(Board())
    assert root is not None
    plies = {root: 0}
    frontier = [root]
    while frontier:
        following = []
        for parent in frontier:
            for child in positions.get(parent, {}):
                if child not in plies:
                    plies[child] = plies[parent] + 1
                    following.append(child)
        frontier = following
    return plies


if __name__ == "__main__":
    sys.exit(main())
