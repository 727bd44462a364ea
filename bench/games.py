"""Games the benchmarks share: the recorded human games, and random games
in which nobody has won."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from pbm.trax import Board

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "tests" / "data" / "human-games.tsv"
VARIANT = {"Trax": "trax", "Loop Trax": "looptrax", "8x8 Trax": "8x8trax"}


def load_games() -> list[tuple[str, list[str]]]:
    """(game type, moves) of the 300 recorded games (game 19, marked 8x8,
    leaves the 8x8 area: it is replayed as trax)."""
    out = []
    for line in GAMES.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        number, variant, _, _, moves = line.split("\t")
        out.append(("trax" if number == "19" else VARIANT[variant], moves.split()))
    return out


def quiet_board(rng: random.Random, variant: str, done: Callable[[Board], bool]) -> Board | None:
    """A random legal game nobody has won, played until ``done`` says so;
    None when every move on the way wins (rare: try another seed)."""
    board = Board(variant)
    while not done(board):
        options = board.legal_moves()
        rng.shuffle(options)
        for move in options:
            board.play(move)
            if board.outcome() is None:
                break
            board.pop()
        else:
            return None
    return board


def quiet_game(rng: random.Random, moves: int, variant: str = "trax") -> list[str]:
    """The moves of a random legal game of ``moves`` moves in which nobody wins."""
    while (board := quiet_board(rng, variant, lambda b: b.ply >= moves)) is None:
        pass
    return [str(m) for m in board.moves]


#: The six tile faces (white masks) a LuckyTrax draw picks from.
FACES = (5, 10, 9, 6, 3, 12)


def random_turn(board: Board, rng: random.Random) -> str:
    """Play one random turn as a server would: in LuckyTrax draw a face and
    play a random placement of it, or pass when it fits nowhere; else a
    random legal move.  Returns the move as played."""
    if board.variant.drawn:
        options = board.placements(rng.choice(FACES))
        return str(board.play(rng.choice(options) if options else "pass"))
    return str(board.play(rng.choice(board.legal_moves())))
