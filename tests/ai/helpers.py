"""What the tests of the computer player share: random positions, a clock
that counts instead of timing (so a search is cut after a number of nodes,
the same on every machine), and a plain minimax to check the search by."""

from __future__ import annotations

import random
from collections.abc import Callable

from pbm.ai.search import WIN, Searcher, terminal_score
from pbm.trax import Board, Move

FACES = (5, 10, 9, 6, 3, 12)
VARIANTS = ("trax", "8x8trax", "looptrax", "minitrax", "luckytrax", "pointtrax")

# a win in one for the side to move (exactly one move completes its colour)
WINS = [
    "@0/ A2+ @1\\ C1/ D2+ C0+ B4/ E2+ F2/",
    "@0+ A2\\ A0\\ @3/ @3\\ C4\\ D3+ A2\\ @3+ C0/ F3+ @3\\ D5+ G2\\ B5\\ A2\\",
]
# the other side threatens to win in one, and the side to move cannot win first
THREATS = [
    "@0/ A2+ @1\\ C1/ D2+ C0+ B4/ E2+ F2/ @2\\",
    "@0+ @1/ A0+ A0\\ @1+ A0\\ C2/ D4+ @3/ @3+ E1/",
    "@0+ A2\\ A0\\ @3/ @3\\ C4\\ D3+ A2\\ @3+ C0/ F3+ @3\\ D5+ G2\\ B5\\ A2\\ @2+",
    # of tests/test_bench_strength.py: only these moves stop the threat
    "@0/ A0+ @1\\ B0\\ C2\\ B0+ A5+ @5+",
    "@0+ A2\\ B2/ @2+ D2+ A3/ B4+ D3+",
]


class Ticks:
    """A clock that moves one step each time it is read."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def random_position(variant: str, seed: int, plies: int, quiet: bool = True, calm: bool = False) -> Board:
    """A random game of up to ``plies`` plies that nobody has won (``quiet``:
    no move on the way may end it; ``calm``: nor leave a move that would;
    the game stops early when every move would).  LuckyTrax draws a face
    for each turn and passes when it fits nowhere."""
    rng = random.Random(seed)
    board = Board(variant)
    while board.outcome() is None and board.ply < plies:
        if board.variant.drawn:
            options = board.placements(rng.choice(FACES))
            if not options:
                board.play("pass")
                continue
        else:
            options = board.legal_moves()
        rng.shuffle(options)
        for move in options:
            board.play(move)
            if not quiet or (board.outcome() is None and not (calm and board.completions())):
                break
            board.pop()
        else:
            break
    return board


def searched(board: Board, nodes: int = 200, face: int | None = None, max_depth: int = 40,
             seed: int = 0) -> tuple[Searcher, object]:
    """A search of the position cut after about ``nodes`` clock readings."""
    searcher = Searcher(board, float(nodes), face=face, seed=seed, clock=Ticks())
    return searcher, searcher.run(float(nodes) * 4, 0.0, max_depth=max_depth)


def plain(board: Board, depth: int, ply: int = 0) -> int:
    """Plain negamax over every legal move to ``depth`` plies, scoring only
    finished games (a win n plies from the start is WIN - n, unfinished
    positions 0); it stops looking at a node once it has found a win there."""
    outcome = board.outcome()
    if outcome is not None:
        return terminal_score(outcome, board.turn, ply)
    if depth == 0:
        return 0
    best = -WIN - 1
    for move in board.legal_moves():
        board.play(move)
        value = -plain(board, depth - 1, ply + 1)
        board.pop()
        if value > best:
            best = value
            if best > 0:
                break
    return best


def wins_by_force(board: Board, move: str) -> bool:
    """Does ``move`` win by force within three plies: it wins at once, or
    every reply either loses at once or leaves the mover a win in one?"""
    mover = board.turn
    board.play(move)
    try:
        outcome = board.outcome()
        if outcome is not None:
            return outcome.winner == mover
        for reply in board.legal_moves():
            board.play(reply)
            try:
                after = board.outcome()
                if after is not None:
                    if after.winner != mover:
                        return False
                    continue
                if not any(bits & (1 << (board.ply & 1)) for _, bits in board.completions()):
                    return False
            finally:
                board.pop()
        return True
    finally:
        board.pop()


def safe(board: Board, move: str) -> bool:
    """After ``move``, can the other side not win at once?"""
    mover = board.turn
    board.play(move)
    try:
        outcome = board.outcome()
        if outcome is not None:
            return outcome.winner in (mover, None)
        return not any(bits & (1 << (board.ply & 1)) for _, bits in board.completions())
    finally:
        board.pop()


def verify_forced_win(board: Board, plies: int, propose: Callable[[Board, int], Move | None]) -> bool:
    """Does the side to move win within ``plies`` plies against every
    defence?  At its turns it plays a move that wins at once (found among
    the completions and played to see) or else ``propose(board, plies)``;
    at the other side's turns every legal move is played."""
    mover = board.turn
    for move, _ in board.completions():
        board.play(move)
        outcome = board.outcome()
        board.pop()
        if outcome is not None and outcome.winner == mover:
            return True
    if plies < 3:
        return False
    choice = propose(board, plies)
    if choice is None:
        return False
    board.play(choice)
    try:
        outcome = board.outcome()
        if outcome is not None:
            return outcome.winner == mover
        for reply in board.legal_moves():
            board.play(reply)
            try:
                after = board.outcome()
                if after is not None:
                    if after.winner != mover:
                        return False
                    continue
                if not verify_forced_win(board, plies - 2, propose):
                    return False
            finally:
                board.pop()
        return True
    finally:
        board.pop()
