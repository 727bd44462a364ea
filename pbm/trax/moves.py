"""What the engine hands out about moves and turns: immutable records.

:class:`Move` (a move as recorded, and :data:`PASS`), :class:`LastTurn`
(what the last turn placed), :class:`WinningTrack` (the track that won) and
:class:`Scored` (a track that scored in PointTrax).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .notation import PASS_WORD, column_letters

#: The symbol of a pass (:data:`PASS`): no notation symbol, so a pass can
#: never be taken for a tile.
PASS_SYMBOL = "pass"


@dataclass(frozen=True, slots=True)
class Move:
    """A move as recorded: new-notation coordinates (read before the move).

    ``tile`` says which colouring of the symbol was placed; it follows from
    the position, so it takes no part in comparisons.

    A LuckyTrax pass is the move :data:`PASS`: symbol :data:`PASS_SYMBOL`,
    column and row 0, no tile; ``str()`` gives ``"pass"``.
    """

    column: int
    row: int
    symbol: str
    tile: int = field(default=0, compare=False)

    def __str__(self) -> str:
        if self.symbol == PASS_SYMBOL:
            return PASS_WORD
        return f"{column_letters(self.column)}{self.row}{self.symbol}"

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"

    @property
    def is_pass(self) -> bool:
        """Is this a LuckyTrax pass (a turn that places nothing)?"""
        return self.symbol == PASS_SYMBOL

    @property
    def cell(self) -> str:
        """The cell part of the notation, e.g. ``B2`` (``""`` for a pass)."""
        if self.symbol == PASS_SYMBOL:
            return ""
        return f"{column_letters(self.column)}{self.row}"


#: The LuckyTrax pass: a turn that places nothing (see :meth:`Board.play`).
PASS = Move(0, 0, PASS_SYMBOL)


@dataclass(frozen=True, slots=True)
class LastTurn:
    """What the last turn placed, for a mail that shows it.

    ``move`` is the move as recorded (new notation, read before the move).
    ``placed`` is the chosen tile and ``forced`` the tiles it forced, in the
    order they were placed, all written in the coordinates of the position
    *after* the turn (the frame a diagram of the position shows): they differ
    from ``move`` when the move went into column ``@`` or row ``0``.  Each
    carries its ``tile`` (white mask).

    A LuckyTrax pass places nothing: ``move`` is :data:`PASS`, ``placed`` is
    ``None`` and ``forced`` is ``()``.
    """

    move: Move
    placed: Move | None
    forced: tuple[Move, ...]


@dataclass(frozen=True, slots=True)
class WinningTrack:
    """The track that won the game: its colour (``"white"`` or ``"black"``),
    ``kind`` (``"loop"`` or ``"line"``) and its ``cells`` ``(column, row)`` in
    the coordinates of the position (as :meth:`Board.cells` gives them), in
    order along the track.  A loop's cells go once round (the last cell
    touches the first); a line's run from the outermost left edge to the
    right one (or from the top edge to the bottom one)."""

    colour: str
    kind: str
    cells: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class Scored:
    """One track that scored in a PointTrax turn: its owner ``colour``
    (``"white"`` or ``"black"``), ``kind`` (``"loop"`` or ``"line"``), the
    points it scored (``tiles``: the number of tiles its track runs
    through) and those ``cells`` ``(column, row)`` in order along the track,
    in the coordinates of the position after the turn (the position that
    still shows a line that cleared the area)."""

    colour: str
    kind: str
    tiles: int
    cells: tuple[tuple[int, int], ...]
