"""Move notation, syntax only: text -> a description of a move.

Two notations are in use.

*New notation* (official since 1998): ``<column><row><symbol>``, read
**before** the move relative to the formation's bounding box.  Column ``@`` is
the empty column left of the formation, then ``A`` .. ``Z``, ``AA`` ...
(bijective base 26); row ``0`` is the empty row above it, then ``1``, ``2``...
The symbol is ``+``, ``/`` or ``\\``.

*Old notation* (before 1998): column letters and row numbers read **after**
the move, then ``S`` (straight), ``C`` (the only curve that fits) or ``U``,
``D``, ``L``, ``R`` (the curve that turns a track up, down, left or right).
Row-first (``1A``) marks a tile placed in a new row above the top-left cell.

A LuckyTrax turn whose drawn tile fits nowhere is written ``pass`` (any
case): not a notation, so :func:`parse_notation` refuses it; :func:`is_pass`
recognises it and the board decides whether a pass is allowed.

Resolving a description against a position (which cell, which colouring) is
the board's job; this module only reads text and writes coordinates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import NotationError

NEW_FORM = re.compile(r"^(@|[A-Z]+)(\d+)([+/\\])$")
OLD_COLUMN_FIRST = re.compile(r"^([A-Z]+)(\d+)([SCUDLR])$")
OLD_ROW_FIRST = re.compile(r"^(\d+)([A-Z]+)([SCUDLR])$")


#: How a LuckyTrax pass is written (and shown).
PASS_WORD = "pass"


def is_pass(text: str) -> bool:
    """Is ``text`` the word ``pass`` (any case, surrounding blanks ignored)?"""
    return isinstance(text, str) and text.strip().lower() == PASS_WORD


def column_index(letters: str) -> int:
    """``@`` -> 0, ``A`` -> 1, ``Z`` -> 26, ``AA`` -> 27 (bijective base 26)."""
    if letters == "@":
        return 0
    n = 0
    for ch in letters:
        n = n * 26 + (ord(ch) - 64)
    return n


def column_letters(index: int) -> str:
    """The inverse of :func:`column_index`."""
    if index < 0:
        raise ValueError(f"no column letters for {index}")
    if index == 0:
        return "@"
    out = []
    while index:
        index, rem = divmod(index - 1, 26)
        out.append(chr(65 + rem))
    return "".join(reversed(out))


@dataclass(frozen=True, slots=True)
class NewNotation:
    """A move in the new notation: coordinates before the move."""

    column: int
    row: int
    symbol: str

    def __str__(self) -> str:
        return f"{column_letters(self.column)}{self.row}{self.symbol}"


@dataclass(frozen=True, slots=True)
class OldNotation:
    """A move in the old notation: coordinates after the move (1-based)."""

    column: int
    row: int
    letter: str  # S, C, U, D, L or R
    row_first: bool

    def __str__(self) -> str:
        col = column_letters(self.column)
        if self.row_first:
            return f"{self.row}{col}{self.letter}"
        return f"{col}{self.row}{self.letter}"


def parse_notation(text: str) -> NewNotation | OldNotation:
    """Read a move in either notation (any case, surrounding blanks ignored).

    Raises :class:`NotationError` with a message for players when the text is
    not a move at all.
    """
    if not isinstance(text, str):
        raise NotationError("not-text", {"type": type(text).__name__})
    raw = text.strip()
    s = raw.upper()
    if not s:
        raise NotationError("no-move")
    m = NEW_FORM.match(s)
    if m:
        col, row, sym = m.groups()
        if len(row) > 1 and row[0] == "0":
            raise NotationError("leading-zero", {"move": raw})
        return NewNotation(column_index(col), int(row), sym)
    m = OLD_COLUMN_FIRST.match(s)
    row_first = False
    if m:
        col, row, letter = m.groups()
    else:
        m = OLD_ROW_FIRST.match(s)
        if not m:
            raise NotationError("not-notation", {"move": raw})
        row, col, letter = m.groups()
        row_first = True
    if int(row) < 1 or (len(row) > 1 and row[0] == "0"):
        raise NotationError("old-row-zero", {"move": raw})
    return OldNotation(column_index(col), int(row), letter, row_first)
