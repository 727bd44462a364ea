"""A move's notation read against a position: which cell, which tile.

:mod:`.notation` reads text into coordinates and a symbol (or an old
notation letter); :class:`Reading` resolves those in a position, the layer
of :class:`~pbm.trax.Board` above :class:`~.position.Position`: the cell the
coordinates name, and the colouring of the symbol that fits the tracks
entering it.  What it refuses (an empty or missing cell, a tile that does not
fit, an old-notation letter that names no curve) it refuses with a message
for the player, a code and the facts (see :mod:`.errors`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .errors import IllegalMoveError, Param
from .moves import Move
from .notation import NewNotation, OldNotation, column_letters
from .position import Position
from .tiles import (
    COLOUR_NAMES,
    DIRECTION_NAMES,
    FITS,
    ORIGIN,
    PATHS,
    STRIDE,
    TILES_OF_SYMBOL,
    WHITE,
    E,
    N,
    S,
    W,
)

_TURN_LETTER: Mapping[int, str] = MappingProxyType({N: "U", E: "R", S: "D", W: "L"})
_TURN_WORD: Mapping[str, str] = MappingProxyType({"U": "up", "D": "down", "L": "left", "R": "right"})


class Reading(Position):
    """Position, with moves read against it (:meth:`_resolve_new`,
    :meth:`_resolve_old`)."""

    __slots__ = ()

    def _move_for(self, cell: int, tile: int) -> Move:
        """The (shared) Move placing ``tile`` at ``cell``, in notation
        coordinates read before the move."""
        if not self._tiles:
            return self._knowledge.move(0, 0, tile)
        y, x = divmod(cell, STRIDE)
        return self._knowledge.move(x - self._minx + 1, y - self._miny + 1, tile)

    def _entries(self, cell: int) -> tuple[tuple[str, str], ...]:
        """The track ends entering ``cell``: ``(colour, side)`` pairs, e.g.
        ``("white", "top")``, going round from the top."""
        key = self._keys.get(cell, 0)
        parts = []
        for d in (N, E, S, W):
            if key >> d & 1:
                parts.append((COLOUR_NAMES[0], DIRECTION_NAMES[d]))
            elif key >> (d + 4) & 1:
                parts.append((COLOUR_NAMES[1], DIRECTION_NAMES[d]))
        return tuple(parts)

    @staticmethod
    def _facts(spec: OldNotation, shown: str) -> dict[str, Param]:
        """The params of a refusal of an old-notation move."""
        return {"move": str(spec), "cell": shown}

    def _check_cell(self, cell: int, shown: str) -> None:
        """Refuse a cell off the board, holding a tile, or touching none."""
        y, x = divmod(cell, STRIDE)
        if not (self._minx - 1 <= x <= self._maxx + 1 and self._miny - 1 <= y <= self._maxy + 1):
            last_column, last_row = column_letters(self.width + 1), self.height + 1
            raise IllegalMoveError("off-board", {"cell": shown, "last_column": last_column, "last_row": last_row})
        if cell in self._tiles:
            raise IllegalMoveError("occupied", {"cell": shown})
        if cell not in self._keys:
            raise IllegalMoveError("not-touching", {"cell": shown})

    def _resolve_new(self, spec: NewNotation) -> tuple[int, int]:
        """The cell and tile of a move in the new notation."""
        if not self._tiles:
            if (spec.column, spec.row) != (0, 0) or spec.symbol == "\\":
                raise IllegalMoveError("first-move", {"move": str(spec), "fresh_area": bool(self._areas)})
            return ORIGIN, TILES_OF_SYMBOL[spec.symbol][0]
        cell = (self._miny - 1 + spec.row) * STRIDE + self._minx - 1 + spec.column
        shown = f"{column_letters(spec.column)}{spec.row}"
        self._check_cell(cell, shown)
        for sym, tile in FITS[self._keys[cell]]:
            if sym == spec.symbol:
                return cell, tile
        raise IllegalMoveError(
            "no-fit", {"move": str(spec), "symbol": spec.symbol, "cell": shown, "entries": self._entries(cell)})

    def _resolve_old(self, spec: OldNotation) -> tuple[int, int]:
        """The cell and tile of a move in the old notation (coordinates read
        after the move)."""
        if not self._tiles:
            if (spec.column, spec.row) != (1, 1) or spec.letter not in "SC":
                raise IllegalMoveError("first-move-old", {"move": str(spec), "fresh_area": bool(self._areas)})
            return ORIGIN, (5 if spec.letter == "S" else 9)
        x = self._minx + spec.column - 1
        y = self._miny + spec.row - 1
        tiles = self._tiles
        if spec.column == 1 and spec.row == 1:
            if y * STRIDE + x in tiles:
                if spec.row_first:
                    y -= 1
                else:
                    x -= 1
        elif spec.column == 1:
            if y * STRIDE + x in tiles:
                x -= 1
        elif spec.row == 1 and y * STRIDE + x in tiles:
            y -= 1
        cell = y * STRIDE + x
        shown = str(spec)[:-1]
        self._check_cell(cell, shown)
        fits = FITS[self._keys[cell]]
        if spec.letter == "S":
            for sym, tile in fits:
                if sym == "+":
                    return cell, tile
            raise IllegalMoveError("no-straight", {**self._facts(spec, shown), "entries": self._entries(cell)})
        curves = [tile for sym, tile in fits if sym != "+"]
        if not curves:
            raise IllegalMoveError("no-curve", {**self._facts(spec, shown), "entries": self._entries(cell)})
        if spec.letter == "C":
            if len(curves) == 1:
                return cell, curves[0]
            raise IllegalMoveError("which-curve", self._facts(spec, shown))
        # U/D/L/R: the curve that turns a track coming from a touching tile
        # that way; when that could be either track, the white one decides.
        key = self._keys[cell]
        white_match: list[int] = []
        any_match: list[int] = []
        for tile in curves:
            for colour, (a, b) in enumerate(PATHS[tile]):
                for come, go in ((a, b), (b, a)):
                    enters = key >> (come + 4 * colour) & 1
                    if enters and _TURN_LETTER[go] == spec.letter:
                        (white_match if colour == WHITE else any_match).append(tile)
        chosen = white_match or any_match
        if len(set(chosen)) == 1:
            return cell, chosen[0]
        if not chosen:
            direction = _TURN_WORD[spec.letter]
            raise IllegalMoveError("no-such-turn", {**self._facts(spec, shown), "direction": direction})
        raise IllegalMoveError("ambiguous", self._facts(spec, shown))
