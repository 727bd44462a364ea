"""Positions kept in memory between commands, so that a long game is not
replayed from its move list for every move.

A position is lent out (and forgotten) when its board's stored move list is
exactly the one it was kept with; anything else is a miss, and the engine
replays the stored moves.  What a command loaded is kept again only when the
command succeeded (:meth:`Positions.keep_lent`); after a failure it is
dropped (:meth:`Positions.drop_lent`), since the engine's boards are changed
in place and the database was rolled back.  A position kept after a
transaction that later rolls back is harmless: its move list no longer
matches the stored one, so it is never lent.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Protocol

from pbm.trax import Board, Knowledge

from .store.records import BoardRecord


class Loaded(Protocol):
    """A loaded board (a :class:`pbm.domain.boards.Game`)."""

    board: Board
    row: BoardRecord


class Positions:
    """Up to ``size`` positions kept, and the engine's :class:`Knowledge`
    every board replayed here shares (what one board learnt of legality
    answers serves the next mail's board)."""

    def __init__(self, size: int = 1000) -> None:
        self.size = size
        self.knowledge = Knowledge()
        self.kept: OrderedDict[int, tuple[str, Board]] = OrderedDict()
        self.lent: dict[int, Loaded] = {}

    def holds(self, number: int, moves: str) -> bool:
        """Is the position of board ``number`` at ``moves`` kept, or lent to
        the command under way (no replay needed)?"""
        entry = self.kept.get(number)
        lent = self.lent.get(number)
        return (entry is not None and entry[0] == moves) or (lent is not None and lent.row.moves == moves)

    def take(self, number: int, moves: str, variant: str, *, ending: str | None = None,
             points: int | None = None) -> Board:
        """The position of board ``number`` whose stored move list is ``moves``
        (under the board's own rules: its ``ending`` and ``points``)."""
        lent = self.lent.get(number)
        if lent is not None and lent.row.moves == moves and lent.board.variant.name == variant:
            return lent.board  # loaded again by the same command: the same position
        entry = self.kept.pop(number, None)
        if entry is not None and entry[0] == moves and entry[1].variant.name == variant:
            return entry[1]
        return Board.replay(moves.split(), variant, ending=ending, points=points, knowledge=self.knowledge)

    def lend(self, number: int, game: Loaded) -> None:
        """``game`` was loaded by the command under way."""
        self.lent[number] = game

    def keep_lent(self) -> None:
        """The command succeeded: keep what it loaded, as it left it."""
        for number, game in self.lent.items():
            self.keep(number, game.board, game.row.moves)
        self.lent.clear()

    def drop_lent(self) -> None:
        """The command failed: what it loaded may be half changed."""
        self.lent.clear()

    def keep(self, number: int, board: Board, moves: str) -> None:
        """Keep ``board``, whose stored move list is ``moves``."""
        self.kept[number] = (moves, board)
        self.kept.move_to_end(number)
        while len(self.kept) > self.size:
            self.kept.popitem(last=False)
