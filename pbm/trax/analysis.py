"""Analysis for a search (:mod:`pbm.ai`), and the counting check.

:class:`Analysis`, the layer of :class:`~pbm.trax.Board` above
:class:`~.rules.Rules`, answers what a search asks many thousands of times
and wants cheaply: where the open tracks run (:meth:`Analysis.track_ends`),
what the last turn placed (:meth:`Analysis.last_tiles`), and which turns
complete a loop or a line (:meth:`Analysis.completions`,
:meth:`Analysis.completes`).  It reads the position in *area coordinates*:
``(x, y)``, x to the right and y down, counted from the first tile of the
playing area.  Unlike notation coordinates, which move whenever the
formation grows left or up, they name the same cell for as long as the area
lasts (a whole game but in PointTrax, where a line starts a fresh area).

The counting check (:meth:`Analysis._count`, behind
:meth:`pbm.trax.Board.count_sequences`) plays cell and tile numbers on the
board's own dictionaries, with no Move objects and no records, and counts
the last ply from the kept answers.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .knowledge import Entry
from .moves import Move
from .position import ORIGIN_X, ORIGIN_Y
from .rules import Link, Rules
from .tiles import (
    BLACK,
    DELTA,
    EDGE_OFFSET,
    FIT_TILES,
    OPPOSITE,
    PATHS,
    STRIDE,
    WHITE,
    E,
    N,
    S,
    W,
)

#: _BALLS[r]: the cell offsets at most r steps away (for r up to 3).
_BALLS = tuple(
    tuple(dy * STRIDE + dx for dy in range(-r, r + 1) for dx in range(-r, r + 1) if abs(dx) + abs(dy) <= r)
    for r in range(4)
)

# An open track whose two ends are close enough for a turn to join them:
# (how far apart its ends are, colour, row and column of one end's cell, of
# the other's, whether the last turn changed it).
_Pair = tuple[int, int, int, int, int, int, bool]
# An end at a cell: (side of the formation or colour, colour or cell, changed).
_Found = tuple[int, int, bool]


@dataclass(slots=True)
class _Scan:
    """What :meth:`Analysis.completions` reads of the position once, for all
    the cells and turns it tries.

    ``changed`` is the open ends (edges) of the tracks the last turn changed,
    None when every track counts; ``rect`` the rows and columns (top,
    bottom, left, right) of the tiles the last turn placed; ``box`` the
    formation (minx, maxx, miny, maxy); ``wide`` and ``tall`` whether a line
    may be made across or down.  ``cells`` are the frontier cells of the
    legal moves with the moves at each; ``pairs`` the tracks whose ends are
    close enough for a turn to join them (nearest first); ``hot`` the ends
    whose track's other end is on an outermost edge, by cell (the side: 0
    left, 1 right, 2 top, 3 bottom); ``ends_at`` the open ends by the cell
    they enter (colour, the other end's cell); each marked when the last
    turn changed its track.  ``pairs_new`` and ``hot_new`` are the pairs
    and the hot cells (row, column) the last turn changed."""

    changed: set[int] | None
    rect: tuple[int, int, int, int]
    box: tuple[int, int, int, int]
    wide: bool
    tall: bool
    cells: dict[int, list[Move]]
    pairs: list[_Pair]
    pairs_new: list[_Pair]
    hot: dict[int, list[_Found]]
    hot_new: list[tuple[int, int]]
    ends_at: dict[int, list[_Found]]


class Analysis(Rules):
    """Rules, with what a search reads of the position and the counting
    check."""

    __slots__ = ()

    # ------------------------------------------------------------------
    # where things are, in area coordinates

    def last_tiles(self) -> list[tuple[int, int, int]]:
        """``(x, y, tile)`` in area coordinates of every tile the last turn
        placed, the chosen one first (``[]`` before the first move and after
        a pass).  A search keeps a hash of the position up to date with it."""
        tiles = self._tiles
        out = []
        for cell in self._last_cells():
            y, x = divmod(cell, STRIDE)
            out.append((x - ORIGIN_X, y - ORIGIN_Y, tiles[cell]))
        return out

    def track_ends(self) -> list[tuple[int, int, int, int, int]]:
        """Every open track (one whose two ends leave the formation) as
        ``(colour, x1, y1, x2, y2)``: ``WHITE`` (0) or ``BLACK`` (1), and the
        area coordinates of the empty cells its two ends enter.  Closed loops
        are not listed; ``[]`` when the next move starts an area."""
        if self._reset_due:
            return []
        out = []
        for edge, cell, colour, other in self._open_ends():
            if edge < other:
                y, x = divmod(cell, STRIDE)
                oy, ox = divmod(self._end_cell(other)[0], STRIDE)
                out.append((colour, x - ORIGIN_X, y - ORIGIN_Y, ox - ORIGIN_X, oy - ORIGIN_Y))
        return out

    def _open_ends(self) -> Iterator[tuple[int, int, int, int]]:
        """``(edge, empty cell it enters, colour, the track's other end)`` for
        every open end."""
        end_cell = self._end_cell
        for edge, other in self._ends.items():
            cell, colour = end_cell(edge)
            yield edge, cell, colour, other

    # ------------------------------------------------------------------
    # the turns that complete a loop or a line

    def completions(self, stop: int = 0, new_only: bool = False) -> list[tuple[Move, int]]:
        """The legal moves that complete a loop or a line, each with the
        colours it completes (bit 0 white, bit 1 black; both when it closes
        tracks of both colours).

        Either side may play any legal move, so this answers for both: the
        side to move wins at once with a move that completes its colour (in
        the game types where a loop or a line wins), and a move completing
        only the other colour hands that side the game.  In PointTrax it
        lists the moves that score.  ``[]`` once the game is over and when
        the next move starts an area.

        ``stop`` (colour bits) asks for less: the moves that may complete
        those colours are tried first, and the answer ends with the first
        move found that completes one of them (a search that finds a win in
        one needs no more).  Without it the answer is every such move; the
        order is otherwise that of :meth:`legal_moves`, cell by cell.

        ``new_only`` asks only for the completions the last turn made
        possible: the moves whose forced tiles would come near the tiles it
        placed or reach a track it changed (a line that the formation's
        growth makes possible runs through the tiles that made it grow).
        That is every completion, and every colour a move completes, that
        the position before the last turn did not have: all of them when
        that position had none the last turn left standing, which a search
        knows (it has checked them).

        It gives what playing every legal move would show, but plays few of
        them: a loop needs the turn's tiles to reach both ends of one track
        of its colour; a line needs them to reach, on each side, the
        outermost edge or an end whose track's other end lies on that
        side's outermost edge.  The test is made first on the cells within
        the reach the legality answers already know (a turn's forced tiles
        lie no farther from its chosen tile: :meth:`_cells_to_try`), then on
        the cells each remaining turn's chain takes (worked out on a scratch
        layer, as legality is: :meth:`_completed_by`), and only the turns
        that pass both are played, on the board's own dictionaries, and
        taken back at once."""
        if self._outcome is not None or not self._tiles or self._reset_due:
            return []
        moves = self.legal_moves()
        if not moves:
            return []
        scan = self._scan(moves, new_only)
        if scan is None:
            return []  # a pass changed nothing
        out: list[tuple[Move, int]] = []
        completed_by = self._completed_by
        cells = scan.cells
        for signed in self._cells_to_try(scan, stop):
            cell = signed if signed > 0 else -signed
            for move in cells[cell]:
                bits = completed_by(scan, cell, move.tile, signed > 0)
                if bits:
                    out.append((move, bits))
                    if bits & stop:
                        return out
        return out

    def _scan(self, moves: list[Move], new_only: bool) -> _Scan | None:
        """What :meth:`completions` reads of the position once (see
        :class:`_Scan`); None when asked only for what the last turn made
        possible and it was a pass."""
        changed: set[int] | None = None
        recent: list[tuple[int, int]] = []
        if new_only:
            placed = self._last_cells()
            if not placed:
                return None
            if len(placed) < len(self._tiles):  # else the area's first turn: look at everything
                changed = self._changed_ends(placed)
                recent = [divmod(cell, STRIDE) for cell in placed]
        # the rectangle around the last turn's tiles (how near a cell is to
        # them is measured to it: never farther than the nearest tile)
        if recent:
            rect = (min(py for py, _ in recent), max(py for py, _ in recent),
                    min(px for _, px in recent), max(px for _, px in recent))
        else:
            rect = (0, 0, 0, 0)
        legal = self._legal
        minx, maxx, miny, maxy = self._minx, self._maxx, self._miny, self._maxy
        base = (miny - 1) * STRIDE + minx - 1
        wide = tall = False
        if self._lines_win:
            wide = maxx - minx >= 6
            tall = maxy - miny >= 6
        # the cell each open end enters and its colour, by edge
        tiles = self._tiles
        where: dict[int, tuple[int, int]] = {}
        for edge in self._ends:
            cell = edge >> 1
            tile = tiles.get(cell)
            if edge & 1:  # the left edge of cell
                if tile is None:
                    where[edge] = (cell, (tiles[cell - 1] >> E & 1) ^ 1)
                else:
                    where[edge] = (cell - 1, (tile >> W & 1) ^ 1)
            elif tile is None:
                where[edge] = (cell, (tiles[cell - STRIDE] >> S & 1) ^ 1)
            else:
                where[edge] = (cell - STRIDE, (tile >> N & 1) ^ 1)
        # the frontier cells of the legal moves with how far their forced
        # tiles may reach, and the moves at each
        reach = 1
        cells: dict[int, list[Move]] = {}
        for move in moves:
            cell = base + move.row * STRIDE + move.column
            at = cells.get(cell)
            if at is None:
                cells[cell] = [move]
                r = legal[cell][1]
                if r > reach:
                    reach = r
            else:
                at.append(move)
        span = 2 * (reach - 1)
        pairs: list[_Pair] = []
        hot: dict[int, list[_Found]] = {}
        ends_at: dict[int, list[_Found]] = {}
        left, right, top, bottom = minx - 1, maxx + 1, miny - 1, maxy + 1
        for edge, other in self._ends.items():
            a, colour = where[edge]
            b = where[other][0]
            ay, ax = divmod(a, STRIDE)
            by, bx = divmod(b, STRIDE)
            new = changed is None or edge in changed
            ends_at.setdefault(a, []).append((colour, b, new))
            if edge < other:
                d = abs(ay - by) + abs(ax - bx)
                if d <= span:
                    pairs.append((d, colour, ay, ax, by, bx, new))
            if wide:
                if bx == left:
                    hot.setdefault(a, []).append((0, colour, new))
                elif bx == right:
                    hot.setdefault(a, []).append((1, colour, new))
            if tall:
                if by == top:
                    hot.setdefault(a, []).append((2, colour, new))
                elif by == bottom:
                    hot.setdefault(a, []).append((3, colour, new))
        pairs.sort()
        # what the last turn changed (everything when asked for all)
        pairs_new = pairs if changed is None else [pair for pair in pairs if pair[6]]
        hot_new = [divmod(h, STRIDE) for h, found in hot.items() if any(new for _, _, new in found)]
        return _Scan(changed, rect, (minx, maxx, miny, maxy), wide, tall, cells, pairs, pairs_new, hot, hot_new,
                     ends_at)

    def _cells_to_try(self, scan: _Scan, stop: int) -> list[int]:
        """The cells of :class:`_Scan` whose turns may complete something,
        judged by what lies within the reach of their legality answers:
        those that may complete a colour of ``stop`` first, each negated
        when no line can come of it."""
        legal = self._legal
        changed = scan.changed
        top_r, bottom_r, left_r, right_r = scan.rect
        minx, maxx, miny, maxy = scan.box
        wide, tall = scan.wide, scan.tall
        pairs, pairs_new, hot, hot_new = scan.pairs, scan.pairs_new, scan.hot, scan.hot_new
        first: list[int] = []
        later: list[int] = []
        for cell in scan.cells:
            far = legal[cell][1] - 1
            cy, cx = divmod(cell, STRIDE)
            # near: the last turn placed a tile within what the turn reads;
            # elsewhere only the tracks it changed can make a difference
            near = changed is None or (max(0, top_r - cy, cy - bottom_r)
                                       + max(0, left_r - cx, cx - right_r)) <= far + 1
            possible = 0
            if far:
                most = 2 * far
                for d, colour, ay, ax, by, bx, _ in (pairs if near else pairs_new):
                    if d > most:
                        break
                    if abs(cy - ay) + abs(cx - ax) <= far and abs(cy - by) + abs(cx - bx) <= far:
                        possible |= 1 << colour
            line = False
            reached = near
            if not near:
                for hy, hx in hot_new:
                    if abs(cy - hy) + abs(cx - hx) <= far:
                        reached = True
                        break
            if (wide or tall) and reached:
                # sides[colour]: the sides (bits) the turn's tiles may reach,
                # by touching them or by an end whose track runs to them
                touch = ((cx - far <= minx) | (cx + far >= maxx) << 1
                         | (cy - far <= miny) << 2 | (cy + far >= maxy) << 3)
                sides = [touch, touch]
                fresh = near
                if hot:
                    if far < len(_BALLS):
                        for offset in _BALLS[far]:
                            found = hot.get(cell + offset)
                            if found is not None:
                                for side, colour, new in found:
                                    sides[colour] |= 1 << side
                                    fresh = fresh or new
                    else:
                        for h, found in hot.items():
                            hy, hx = divmod(h, STRIDE)
                            if abs(cy - hy) + abs(cx - hx) <= far:
                                for side, colour, new in found:
                                    sides[colour] |= 1 << side
                                    fresh = fresh or new
                if fresh:
                    for colour in (0, 1):
                        n = sides[colour]
                        if (wide and n & 3 == 3) or (tall and n & 12 == 12):
                            possible |= 1 << colour
                            line = True
            if possible:
                (first if possible & stop else later).append(cell if line else -cell)
        return first + later

    def _completed_by(self, scan: _Scan, cell: int, tile: int, line_possible: bool) -> int:
        """What the legal turn placing ``tile`` at ``cell`` completes
        (colour bits, 0 for nothing): the tests of :meth:`_cells_to_try`
        made again on the cells its forced tiles take (worked out on a
        scratch layer, as legality is), then, when they pass, the turn
        itself, looking for a line only where one may be."""
        changed = scan.changed
        region = [cell]
        for level in self._chain(cell, tile)[1]:
            region.extend(level)
        taken = set(region)
        where_r = [divmod(r, STRIDE) for r in region]
        near = changed is None
        if not near:
            top_r, bottom_r, left_r, right_r = scan.rect
            for ry, rx in where_r:
                if max(0, top_r - ry, ry - bottom_r) + max(0, left_r - rx, rx - right_r) <= 2:
                    near = True
                    break
        possible = 0
        ends_at = scan.ends_at
        for r in region:
            found = ends_at.get(r)
            if found is not None:
                for colour, b, new in found:
                    if b in taken and (near or new):
                        possible |= 1 << colour
        line = False
        wide, tall = scan.wide, scan.tall
        if (wide or tall) and line_possible:
            minx, maxx, miny, maxy = scan.box
            ys = [ry for ry, _ in where_r]
            xs = [rx for _, rx in where_r]
            touch = ((min(xs) <= minx) | (max(xs) >= maxx) << 1
                     | (min(ys) <= miny) << 2 | (max(ys) >= maxy) << 3)
            sides = [touch, touch]
            fresh = near
            hot = scan.hot
            for r in region:
                found_hot = hot.get(r)
                if found_hot is not None:
                    for side, colour, new in found_hot:
                        sides[colour] |= 1 << side
                        fresh = fresh or new
            if fresh:
                for colour in (0, 1):
                    n = sides[colour]
                    if (wide and n & 3 == 3) or (tall and n & 12 == 12):
                        possible |= 1 << colour
                        line = True
        if not possible:
            return 0
        return self._dry_run(cell, tile, line)

    def _changed_ends(self, placed: list[int]) -> set[int]:
        """The open ends (edges) of the tracks that run through the tiles at
        ``placed``, found by following each track from them."""
        tiles = self._tiles
        out: set[int] = set()
        walked: set[tuple[int, int]] = set()
        for start in placed:
            tile = tiles[start]
            for colour in (WHITE, BLACK):
                if (start, colour) in walked:
                    continue
                for side in PATHS[tile][colour]:
                    cell = start
                    while True:
                        walked.add((cell, colour))
                        after = cell + DELTA[side]
                        next_tile = tiles.get(after)
                        if next_tile is None:
                            out.add(2 * cell + EDGE_OFFSET[side])
                            break
                        if after == start:
                            break
                        one, other = PATHS[next_tile][colour]
                        side = other if one == OPPOSITE[side] else one
                        cell = after
        return out

    def completes(self, x: int, y: int, tile: int) -> int | None:
        """What the turn placing ``tile`` at area coordinates ``(x, y)`` would
        complete (colour bits as in :meth:`completions`: 0 for nothing), or
        None when that is no legal turn here (the cell is taken or out of
        reach, the tile does not fit, the turn is illegal, the game is over,
        or the next move starts an area)."""
        if self._outcome is not None or not self._tiles or self._reset_due:
            return None
        cell = (y + ORIGIN_Y) * STRIDE + x + ORIGIN_X
        key = self._keys.get(cell)
        if key is None or tile not in FIT_TILES[key]:
            return None
        limit = self._limit
        if limit is not None:
            if not (self._maxx - limit + 1 <= x + ORIGIN_X <= self._minx + limit - 1
                    and self._maxy - limit + 1 <= y + ORIGIN_Y <= self._miny + limit - 1):
                return None
            if self.outcome() is not None:
                return None
        if tile not in self._entry(cell)[0]:
            return None
        return self._dry_run(cell, tile)

    def _dry_run(self, cell: int, tile: int, lines: bool = True) -> int:
        """Play the legal turn placing ``tile`` at ``cell`` on the board's own
        dictionaries and take it back at once: the colours (bits) of the
        loops and lines (unless ``lines`` is false) it completes.  Nothing
        else (the legality answers, the move list, the history) notices."""
        old_bbox = (self._minx, self._maxx, self._miny, self._maxy)
        y, x = divmod(cell, STRIDE)
        self._minx, self._maxx = min(self._minx, x), max(self._maxx, x)
        self._miny, self._maxy = min(self._miny, y), max(self._maxy, y)
        links = self._new_links() if lines else None
        placed: list[int] = []
        try:
            bad, bits = self._run(cell, tile, placed, links)
            assert bad is None, "only legal turns are tried"
            if links:
                for colour in self._lines(links):
                    bits |= 1 << colour
            return bits
        finally:
            self._unrun(len(placed))
            self._minx, self._maxx, self._miny, self._maxy = old_bbox

    # ------------------------------------------------------------------
    # the counting check

    def _count(self, depth: int, made: list[int]) -> int:
        """The counting check (:meth:`pbm.trax.Board.count_sequences`, ``depth``
        at least 1) in a position nobody has won, with no Move objects and no records: each legal turn is
        played by cell and tile and taken back.  The last ply is counted from
        the legality answers the position keeps, except where the turn
        before it may have changed them: those are answered afresh and not
        kept.  Deeper, the answers a turn made stale are kept aside and put
        back when it is taken back, and those made after it (each call adds
        the cells it answered to ``made``) are dropped."""
        cache = self._legal
        get = cache.get
        evaluate = self._evaluate
        keys = self._keys
        if depth == 1:
            total = 0
            for cell in (keys if self._limit is None else self._frontier()):
                entry = get(cell)
                if entry is None:
                    entry = evaluate(cell)
                    made.append(cell)
                total += len(entry[0])
            return total
        turns = []
        for cell in self._frontier():
            entry = get(cell)
            if entry is None:
                entry = evaluate(cell)
                made.append(cell)
            for tile in entry[0]:
                turns.append((cell, tile))
        total = 0
        far = self._far
        answer = self._answer
        lines_win = self._lines_win
        run = self._run
        for cell, tile in turns:
            minx, maxx, miny, maxy = old_bbox = (self._minx, self._maxx, self._miny, self._maxy)
            y, x = divmod(cell, STRIDE)
            if x < minx:
                self._minx = minx = x
            elif x > maxx:
                self._maxx = maxx = x
            if y < miny:
                self._miny = miny = y
            elif y > maxy:
                self._maxy = maxy = y
            links: list[Link] | None = [] if lines_win and (maxx - minx >= 7 or maxy - miny >= 7) else None
            placed: list[int] = []
            bad, loops = run(cell, tile, placed, links)
            assert bad is None, "only legal turns are counted"
            if loops or (links and self._lines(links)):
                pass  # a win: no turn follows
            elif depth == 2:
                # The last ply, counted from the kept answers but where the
                # turn may have changed them: those are answered afresh and
                # not kept, so the answers stay as they are.
                near = self._near(placed)
                for q in (keys if self._limit is None else self._frontier()):
                    entry = None if q in near else get(q)
                    total += len(answer(q)[0] if entry is None else entry[0])
            else:
                kept: list[tuple[int, Entry]] = []
                self._forget_near_keeping(placed, kept)
                answered: list[int] = []
                total += self._count(depth - 1, answered)
                for q in answered:
                    cache.pop(q, None)
                for q, entry in kept:
                    cache[q] = entry
                    if entry[1] >= 3:
                        far.add(q)
            self._unrun(len(placed))
            self._minx, self._maxx, self._miny, self._maxy = old_bbox
        return total
