"""A finished game explained: the turning points the search can prove.

:func:`review` replays a game and searches the positions of it, from the
last move back (the end of a Trax game is where forced wins are, and where
the budget is best spent), each for a share of a CPU budget.  A position is
*won* for the side to move when the search proves a forced win there, *lost*
when it proves that every move loses.  A move is a turning point when

- after it the other side is lost, where before it the game was open
  (``forced-win``: the move that decided the game; its forced line is
  given), or
- its player had a forced win and, after the move, the search proves none
  (``missed-win``: it threw the win away; the computer's winning move and
  its forced line are given), or
- its player was not lost, and after the move the other side has a forced
  win (``into-loss``: it walked into a forced loss; the computer's move,
  after which it sees no forced win for the other side, and the other
  side's forced line after the move played are given).

Only what the search proves is said: a position it cannot settle in its
share of the budget is taken as open, never as won or lost, and a claimed
missed win is searched again with more time before it is said.  Pure code
like the rest of :mod:`pbm.ai`: the rules engine, the search, the CPU clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pbm.trax import PASS, Board, Move

from .search import WIN, WON, Searcher

#: The kinds of turning point (:class:`TurningPoint`).
KINDS = ("forced-win", "missed-win", "into-loss")
#: The most turning points a review reports (the latest ones).
MOST_POINTS = 6
#: The longest forced line given (plies).
LONGEST_LINE = 16
#: A position's share of the budget, in CPU seconds: at least the first,
#: at most the second (the budget spread over the game's positions).
SHARE = (0.05, 0.5)
#: The share of the budget the backward scan may spend; the rest is for
#: the forced lines and for checking a missed win again.
SCAN_SHARE = 0.7


@dataclass(frozen=True, slots=True)
class TurningPoint:
    """One move that changed the game's result as the search sees it.

    ``number`` is the move's number in the game (1: the first move);
    ``side`` who played it (``white`` or ``black``); ``kind`` one of
    :data:`KINDS`; ``played`` the move as recorded; ``better`` the move the
    computer would have played there; ``line`` the forced sequence that
    follows (``forced-win``: the win after ``played``; ``missed-win``: from
    ``better``, which it starts with; ``into-loss``: the other side's win
    after ``played``); ``plies`` how
    many plies the forced win takes from there (``line`` may stop short of
    the end when it is long)."""

    number: int
    side: str
    kind: str
    played: str
    better: str | None
    line: tuple[str, ...]
    plies: int


@dataclass(frozen=True, slots=True)
class Review:
    """What :func:`review` found: the turning points in the order they were
    played; ``first`` the number of the earliest move whose position was
    searched (the budget ran out before the earlier ones); ``positions``
    how many were searched; ``seconds`` the CPU time used."""

    points: tuple[TurningPoint, ...]
    first: int
    positions: int
    seconds: float


@dataclass(frozen=True, slots=True)
class _Seen:
    """A position's search: its best move, and what the search proved for
    the side to move: a win in ``wins`` plies, or a loss in ``loses``
    plies (0: the game is over and lost); both None: open."""

    best: Move | None
    wins: int | None = None
    loses: int | None = None

    @property
    def won(self) -> bool:
        return self.wins is not None

    @property
    def lost(self) -> bool:
        return self.loses is not None

    def before_forced(self, move: Move) -> _Seen:
        """The position one ply earlier, where ``move`` was the only move:
        what this one is, turned round."""
        if self.wins is not None:
            return _Seen(move, loses=self.wins + 1)
        if self.loses is not None:
            return _Seen(move, wins=self.loses + 1)
        return _Seen(move)


def _seen(move: Move, score: int) -> _Seen:
    if score >= WON:
        return _Seen(move, wins=WIN - score)
    if score <= -WON:
        return _Seen(move, loses=WIN + score)
    return _Seen(move)


class _Reviewer:
    def __init__(self, board: Board, faces: Sequence[int | None], clock: Callable[[], float]) -> None:
        self.board = board
        self.faces = faces
        self.clock = clock
        self.searched = 0

    def face(self, ply: int) -> int | None:
        return self.faces[ply] if ply < len(self.faces) else None

    def options(self, position: Board) -> list[Move]:
        face = self.face(position.ply)
        if position.variant.drawn and face is not None:
            return position.placements(face) or [PASS]
        return position.legal_moves()

    def search(self, position: Board, seconds: float) -> _Seen:
        """The best move and the proven result of ``position`` (the side to
        move's view), searched for ``seconds`` of CPU time."""
        if position.outcome() is not None:
            return _final(position)
        self.searched += 1
        start = self.clock()
        searcher = Searcher(position, start + seconds, face=self.face(position.ply), seed=0, clock=self.clock)
        found = searcher.run(seconds, start)
        if found.depth == 0 and found.score == 0:  # one move only: no search
            return _Seen(found.move)
        return _seen(found.move, found.score)

    def line(self, position: Board, seconds: float, plies: int, first: Move | None = None) -> tuple[str, ...]:
        """The forced sequence of ``plies`` plies from ``position`` (starting
        with ``first`` when given): each side's best move by the search,
        until the game ends, the search loses the thread, or
        :data:`LONGEST_LINE`.  A step that no longer proves the result is
        searched again with twice the time, once."""
        board = position.copy()
        played: list[str] = []
        length = min(max(plies, 1), LONGEST_LINE)
        share = max(seconds / length, SHARE[0])
        while board.outcome() is None and len(played) < length:
            if first is not None and not played:
                move: Move | None = first
            else:
                seen = self.search(board, share)
                if not (seen.won or seen.lost):
                    seen = self.search(board, 2 * share)
                move = seen.best
            if move is None:
                break
            played.append(str(board.play(move)))
        return tuple(played)


def review(game_type: str, moves: Sequence[str], *, budget: float = 4.0, ending: str | None = None,
           points: int | None = None, faces: Sequence[int | None] = (),
           clock: Callable[[], float] = time.process_time) -> Review:
    """The turning points of a game (see the module's text) found within
    ``budget`` CPU seconds.  ``faces``: in LuckyTrax, the face drawn for
    each turn (the search then chooses among its placements only).
    ``ValueError`` when the moves are not a game of ``game_type``."""
    start = clock()
    board = Board.replay(moves, game_type, ending=ending, points=points)
    played = list(board.moves)
    positions = [board.copy()]
    while board.ply:
        board.pop()
        positions.append(board.copy())
    positions.reverse()  # positions[i]: before move i (0-based); positions[-1]: after the last
    reviewer = _Reviewer(positions[0], faces, clock)
    count = len(played)
    share = min(max(budget * SCAN_SHARE / max(count, 1), SHARE[0]), SHARE[1])
    seen: dict[int, _Seen] = {count: _final(positions[-1])}
    first = count
    for i in range(count - 1, -1, -1):
        if clock() - start + share > budget * SCAN_SHARE:
            break
        found = reviewer.search(positions[i], share)
        if found.best is not None and not (found.won or found.lost) and len(reviewer.options(positions[i])) == 1:
            found = seen[i + 1].before_forced(found.best)  # the only move: the next position, turned round
        seen[i] = found
        first = i
    turning: list[TurningPoint] = []
    decided: str | None = None  # the side whose forced win the last turning point showed
    for i in range(first, count):
        before, after = seen[i], seen[i + 1]
        side = "white" if positions[i].turn == "white" else "black"
        move = str(played[i])
        if before.best is None:
            continue
        if before.wins is not None and not after.lost and str(before.best) != move:
            left = budget - (clock() - start)
            again = reviewer.search(positions[i + 1], min(max(left / 4, share), 3 * share))
            if again.lost:
                continue  # the move played wins too: the search saw it with more time
            line = reviewer.line(positions[i], max(left / 3, share), before.wins, before.best)
            turning.append(TurningPoint(i + 1, side, "missed-win", move, str(before.best), line, before.wins))
            decided = None
        elif not before.won and not before.lost and after.loses is not None:
            if decided == side:
                continue  # its win was forced already (the search proved it late)
            decided = side
            left = budget - (clock() - start)
            line = reviewer.line(positions[i + 1], max(left / 3, share), after.loses)
            turning.append(TurningPoint(i + 1, side, "forced-win", move, None, line, after.loses))
        elif not before.lost and after.wins is not None:
            decided = "black" if side == "white" else "white"
            left = budget - (clock() - start)
            line = reviewer.line(positions[i + 1], max(left / 3, share), after.wins)
            better = str(before.best) if str(before.best) != move else None
            turning.append(TurningPoint(i + 1, side, "into-loss", move, better, line, after.wins))
    return Review(tuple(turning[-MOST_POINTS:]), first + 1, reviewer.searched, clock() - start)


def _final(board: Board) -> _Seen:
    """A finished position, for the side to move there: won or lost (in 0
    plies) when the game ended with a win, else open (a draw, or a game
    that stopped by resignation or time)."""
    outcome = board.outcome()
    if outcome is None or outcome.winner is None:
        return _Seen(None)
    if outcome.winner == board.turn:
        return _Seen(None, wins=0)
    return _Seen(None, loses=0)
