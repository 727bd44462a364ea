"""Position and placement: the tiles, the grid, the track ends, the turns.

:class:`Position` is the base of :class:`~pbm.trax.Board` (as python-chess's
``BaseBoard`` is of its ``Board``): what lies where and how to put a tile
down or take it back, with no rule of the game in it.

* Tiles live in a dict ``cell -> white mask`` (see :mod:`.tiles`); a
  neighbour is one integer addition away.  The dict keeps the order tiles
  were placed in, so the tiles of the last turn are its last entries.
* Tracks are kept as a map of open path ends: for every edge where a track
  leaves the formation, the edge where the same track leaves at its other
  end.  Joining a tile links at most four ends, closing a loop is
  recognised when a path's two ends meet, and a line by where the two ends
  of a path lie.  No track is walked on the way through a turn, so a move
  on a 200-tile position costs what it costs on a 10-tile one; a track is
  walked (:meth:`Position._follow`) only to show or score it.
* The empty cells touching the formation (the *frontier*) are kept up to
  date, each with its *entry key* (which colour enters from which side).
* Undo keeps almost nothing: a turn is 16 bytes (its move, how it grew the
  bounding box, how many tiles it placed).  Taking a tile back works out
  everything else from the tiles still there: the entry keys from the
  neighbours, the path ends from the tile's own edges, except where a tile
  joined two paths, whose far end is the one number kept per join.  The
  moves as Move objects are made when first asked for.

Coordinates: a cell is ``y * STRIDE + x``; *notation* coordinates (column,
row) are read against the bounding box (column 0 is ``@``, the empty column
left of the formation); *area* coordinates ``(x, y)`` count from the first
tile of the playing area and do not move as the formation grows.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from .knowledge import Knowledge
from .moves import PASS, Move
from .notation import column_letters
from .tiles import (
    DELTA,
    EDGE_OFFSET,
    KEY_OF,
    NEIGHBOURS,
    OPPOSITE,
    ORIGIN,
    PATHS,
    STRIDE,
    SYMBOL,
    TRACKS,
    E,
    N,
    S,
    W,
)

# A turn as the board keeps it: two unsigned 64-bit words in the machine's
# byte order (so that memoryview.cast("Q") reads them all at once), the move
#   column << 30 | row << 8 | flags << 4 | chosen tile
# and the number of tiles the turn placed.
RECORD = 16
NATIVE: Literal["little", "big"] = (
    "little" if memoryview(bytes((1, 0, 0, 0, 0, 0, 0, 0))).cast("Q")[0] == 1 else "big"
)
COORD_MASK = (1 << 22) - 1
GREW_RIGHT = 1  # the chosen tile widened the formation to the right
GREW_DOWN = 2  # ... or made it taller at the bottom
FIRST = 4  # the first tile of the game or of a fresh PointTrax area
PASSED = 8  # a LuckyTrax pass

# the area coordinates (see Position.frame) of a cell are its own less the first tile's
ORIGIN_Y, ORIGIN_X = divmod(ORIGIN, STRIDE)


class Position:
    """The tiles of a playing area and the record of the turns that placed
    them.

    The state, shared with the layers built on it: ``_tiles`` (cell ->
    white mask, in the order placed), ``_ends`` (open path ends: edge ->
    the edge at the path's other end), ``_keys`` (frontier cell -> entry
    key), the bounding box ``_minx .. _maxy``, ``_elog`` (the far end of
    each pair of paths a tile joined, in order), ``_log`` (each turn in
    :data:`RECORD` bytes), ``_ply``, ``_version`` (counts every turn played
    or taken back, so that a position is known again), ``_areas`` (the
    plies after which a PointTrax line cleared the area) and ``_knowledge``
    (the :class:`~.knowledge.Knowledge` the board shares)."""

    __slots__ = (
        "__weakref__",
        "_areas",
        "_elog",
        "_ends",
        "_keys",
        "_knowledge",
        "_log",
        "_maxx",
        "_maxy",
        "_minx",
        "_miny",
        "_movelist",
        "_ply",
        "_tiles",
        "_version",
    )

    def __init__(self, knowledge: Knowledge | None = None) -> None:
        if knowledge is not None and not isinstance(knowledge, Knowledge):
            raise ValueError(f"knowledge must be a Knowledge, not {type(knowledge).__name__}")
        self._knowledge = Knowledge() if knowledge is None else knowledge
        self._tiles: dict[int, int] = {}
        self._ends: dict[int, int] = {}
        # frontier: empty cell touching the formation -> its entry key
        self._keys: dict[int, int] = {}
        self._minx = self._maxx = self._miny = self._maxy = 0
        # each turn in RECORD bytes, the number of turns, and the far ends
        # of the paths each placed tile joined, in the order they were
        # joined; the moves as Move objects are made when first asked for
        # (see moves) and kept in step from then on
        self._log = bytearray()
        self._ply = 0
        self._movelist: list[Move] | None = None
        self._elog: list[int] = []
        self._version = 0
        self._areas: list[int] = []

    @property
    def knowledge(self) -> Knowledge:
        """The :class:`~.knowledge.Knowledge` this board learns into and
        shares with the boards made from it."""
        return self._knowledge

    # ------------------------------------------------------------------
    # the record of turns

    @property
    def moves(self) -> tuple[Move, ...]:
        if self._movelist is None:
            view = memoryview(self._log)
            try:
                words = view.cast("Q").tolist()
            finally:
                view.release()
            self._movelist = [self._recorded(code) for code in words[::2]]
        return tuple(self._movelist)

    @property
    def ply(self) -> int:
        """Number of moves played so far."""
        return self._ply

    @property
    def turn(self) -> str:
        """The colour to move: ``"white"`` or ``"black"``."""
        return "white" if self._ply % 2 == 0 else "black"

    def _record(self, code: int, count: int, move: Move | None) -> None:
        """Keep a turn: its move (as ``code``, see :data:`RECORD`; ``move``
        is its Move when one is at hand) and the number of tiles it placed."""
        self._log += code.to_bytes(8, NATIVE) + count.to_bytes(8, NATIVE)
        self._ply += 1
        self._version += 1
        if self._movelist is not None:
            self._movelist.append(self._recorded(code) if move is None else move)

    def _last_move(self) -> Move:
        """The move of the last turn (there is one)."""
        made = self._movelist
        if made is not None:
            return made[-1]
        return self._recorded(int.from_bytes(self._log[-16:-8], NATIVE))

    def _recorded(self, code: int) -> Move:
        """The move of a turn as the board keeps it (see :data:`RECORD`)."""
        if code >> 4 & PASSED:
            return PASS
        return self._knowledge.move(code >> 30 & COORD_MASK, code >> 8 & COORD_MASK, code & 15)

    def _last_cells(self) -> list[int]:
        """The cells the last turn placed, in the order it placed them (the
        last entries of the tiles dict)."""
        if not self._ply:
            return []
        count = int.from_bytes(self._log[-8:], NATIVE)
        out: list[int] = []
        if count:
            newest = reversed(self._tiles)
            for _ in range(count):
                out.append(next(newest))
            out.reverse()
        return out

    # ------------------------------------------------------------------
    # what the position looks like

    @property
    def tile_count(self) -> int:
        return len(self._tiles)

    @property
    def width(self) -> int:
        return self._maxx - self._minx + 1 if self._tiles else 0

    @property
    def height(self) -> int:
        return self._maxy - self._miny + 1 if self._tiles else 0

    def tile_at(self, column: int, row: int) -> int | None:
        """The white mask of the tile at notation coordinates, or None."""
        if not self._tiles:
            return None
        return self._tiles.get((self._miny - 1 + row) * STRIDE + self._minx - 1 + column)

    def cells(self) -> Iterator[tuple[int, int, int]]:
        """``(column, row, white mask)`` of every tile, columns and rows from 1."""
        minx, miny = self._minx, self._miny
        for cell, tile in self._tiles.items():
            y, x = divmod(cell, STRIDE)
            yield x - minx + 1, y - miny + 1, tile

    def cell_name(self, cell: int) -> str:
        """The notation of ``cell`` (``y * STRIDE + x``) in this position: ``B2``."""
        y, x = divmod(cell, STRIDE)
        return f"{column_letters(x - self._minx + 1)}{y - self._miny + 1}"

    def _notation_cells(self, cells: list[int]) -> tuple[tuple[int, int], ...]:
        """``(column, row)`` of each of ``cells`` in notation coordinates."""
        minx, miny = self._minx, self._miny
        points = []
        for cell in cells:
            y, x = divmod(cell, STRIDE)
            points.append((x - minx + 1, y - miny + 1))
        return tuple(points)

    def last_placed(self) -> list[tuple[int, int]]:
        """Cells (column, row) placed by the last turn, the chosen one first,
        then the tiles it forced; empty before the first move and after a
        pass."""
        return list(self._notation_cells(self._last_cells()))

    def _placed_move(self, cell: int) -> Move:
        """The tile at ``cell`` as a move in the current coordinates."""
        y, x = divmod(cell, STRIDE)
        tile = self._tiles[cell]
        return Move(x - self._minx + 1, y - self._miny + 1, SYMBOL[tile], tile)

    def frame(self) -> tuple[int, int]:
        """The area coordinates of column 0, row 0 (the empty cell left of
        and above the formation): a move's cell is at ``(x0 + column, y0 +
        row)``, a tile of :meth:`cells` at ``(x0 + column, y0 + row)``.
        ``(0, 0)`` before the first tile (which goes to ``(0, 0)``).  While
        a PointTrax reset is due it is the frame of the area the position
        still shows; the next move starts a fresh area at ``(0, 0)``."""
        if not self._tiles:
            return (0, 0)
        return (self._minx - 1 - ORIGIN_X, self._miny - 1 - ORIGIN_Y)

    # ------------------------------------------------------------------
    # putting a tile down and taking it back

    def _place(self, cell: int, tile: int, links: list[tuple[int, int, int]] | None) -> int:
        """Put one tile down: its cell leaves the frontier, its empty
        neighbours hear its ends, and its paths join the paths they touch
        (each joined path's two ends and colour go to ``links`` when it is
        a list).  Returns the colours (bits) of the loops it closed."""
        tiles = self._tiles
        keys = self._keys
        tiles[cell] = tile
        keys.pop(cell, None)  # the first tile of an area was in no frontier
        kget = keys.get
        occupied = 0
        for step, bits, direction in NEIGHBOURS[tile]:
            n = cell + step
            if n in tiles:
                occupied |= direction
            else:
                keys[n] = kget(n, 0) | bits
        ends = self._ends
        loops = 0
        base = 2 * cell
        for _, oa, _, ob, abit, bbit, colour in TRACKS[tile]:
            ea = base + oa
            eb = base + ob
            if occupied & abit:
                fa = ends.pop(ea)
                if occupied & bbit:
                    fb = ends.pop(eb)
                    self._elog.append(fa)
                    if fa == eb:  # the path came back: a loop
                        loops |= colour
                        continue
                else:
                    fb = eb
            elif occupied & bbit:
                fa = ea
                fb = ends.pop(eb)
            else:
                fa = ea
                fb = eb
            ends[fa] = fb
            ends[fb] = fa
            if links is not None:
                links.append((fa, fb, colour >> 1))
        return loops

    def _unrun(self, count: int) -> list[int]:
        """Take back the last ``count`` tiles placed, newest first; returns
        their cells."""
        tiles = self._tiles
        keys = self._keys
        ends = self._ends
        elog = self._elog
        removed = []
        for _ in range(count):
            cell, tile = tiles.popitem()
            removed.append(cell)
            occupied = 0
            for step, bits, direction in NEIGHBOURS[tile]:
                n = cell + step
                if n in tiles:
                    occupied |= direction
                else:
                    k = keys[n] - bits
                    if k:
                        keys[n] = k
                    else:
                        del keys[n]
            if occupied:
                keys[cell] = KEY_OF[tile][occupied]
            base = 2 * cell
            black, white = TRACKS[tile][1], TRACKS[tile][0]
            for _, oa, _, ob, abit, bbit, _ in (black, white):
                ea = base + oa
                eb = base + ob
                if occupied & abit:
                    if occupied & bbit:
                        fa = elog.pop()
                        if fa == eb:
                            ends[ea] = eb
                            ends[eb] = ea
                        else:
                            fb = ends.pop(fa)
                            ends[fa] = ea
                            ends[ea] = fa
                            ends[fb] = eb
                            ends[eb] = fb
                    else:
                        fa = ends.pop(eb)
                        ends[fa] = ea
                        ends[ea] = fa
                elif occupied & bbit:
                    fb = ends.pop(ea)
                    ends[fb] = eb
                    ends[eb] = fb
                else:
                    del ends[ea]
                    del ends[eb]
        return removed

    # ------------------------------------------------------------------
    # tracks and their ends

    def _follow(self, start: int, colour: int, side: int) -> tuple[list[int], int | None]:
        """Walk the ``colour`` track from the tile at ``start`` out through
        its ``side``: the cells it passes, in order, and the edge where it
        leaves the formation, or None when it comes back to ``start``."""
        tiles = self._tiles
        cells: list[int] = []
        cell = start
        while True:
            after = cell + DELTA[side]
            tile = tiles.get(after)
            if tile is None:
                return cells, 2 * cell + EDGE_OFFSET[side]
            if after == start:
                return cells, None
            cells.append(after)
            one, other = PATHS[tile][colour]
            side = other if one == OPPOSITE[side] else one
            cell = after

    def _tracks_through(self, placed: list[int], colour: int, loops: bool,
                        lines: bool) -> Iterator[tuple[str, list[int]]]:
        """The ``colour`` loops (when ``loops``) and lines (when ``lines``)
        that run through the tiles at ``placed``, each once: ``("loop",
        cells)`` going once round, ``("line", cells)`` run from its left (or
        top) edge."""
        tiles = self._tiles
        width = self._maxx - self._minx + 1
        height = self._maxy - self._miny + 1
        seen: set[int] = set()
        for start in placed:
            if start in seen:
                continue
            seen.add(start)
            one, other = PATHS[tiles[start]][colour]
            ahead, end = self._follow(start, colour, other)
            seen.update(ahead)
            if end is None:
                if loops:
                    yield "loop", [start, *ahead]
                continue
            behind, start_end = self._follow(start, colour, one)
            seen.update(behind)
            if lines and start_end is not None and self._spans(start_end, end, width, height):
                cells = [*reversed(behind), start, *ahead]
                if self._edge_position(start_end) > self._edge_position(end):
                    cells.reverse()  # run it from the left (or top) edge
                yield "line", cells

    @staticmethod
    def _edge_position(edge: int) -> int:
        """How far right a vertical edge lies, or how far down a horizontal one."""
        y, x = divmod(edge // 2, STRIDE)
        return x if edge & 1 else y

    def _spans(self, ea: int, eb: int, width: int, height: int) -> bool:
        """Do path ends at edges ea and eb lie on opposite outermost sides
        of a formation at least 8 wide (or tall)?"""
        ca, va = divmod(ea, 2)
        cb, vb = divmod(eb, 2)
        if va != vb:
            return False
        ya, xa = divmod(ca, STRIDE)
        yb, xb = divmod(cb, STRIDE)
        if va:  # vertical edges: left side of cell x
            if width < 8:
                return False
            lo, hi = self._minx, self._maxx + 1
            return (xa == lo and xb == hi) or (xa == hi and xb == lo)
        if height < 8:
            return False
        lo, hi = self._miny, self._maxy + 1
        return (ya == lo and yb == hi) or (ya == hi and yb == lo)

    def _end_cell(self, edge: int) -> tuple[int, int]:
        """The empty cell the open end at ``edge`` enters, and the end's colour."""
        cell = edge >> 1
        tiles = self._tiles
        if edge & 1:  # the left edge of cell: the tile is at cell or left of it
            tile = tiles.get(cell)
            if tile is not None:
                return cell - 1, (tile >> W & 1) ^ 1
            return cell, (tiles[cell - 1] >> E & 1) ^ 1
        tile = tiles.get(cell)
        if tile is not None:
            return cell - STRIDE, (tile >> N & 1) ^ 1
        return cell, (tiles[cell - STRIDE] >> S & 1) ^ 1
