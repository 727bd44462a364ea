"""Which turns are legal: forced chains, and the answers kept per cell.

A turn is legal when none of the tiles it forces would bring three track
ends of one colour into a cell.  :class:`Legality`, the layer of
:class:`~pbm.trax.Board` above :class:`~.reading.Reading`, decides that for
each tile that fits each frontier cell, and keeps the answers between turns:

* Only the empty neighbours of a tile just placed can have become forced,
  so a turn costs the number of tiles it places, never a scan of the board.
* An answer that read cells up to ``r`` steps away is dropped when a turn
  places (or takes back) a tile within ``r + 1`` steps
  (:meth:`Legality._forget_near`).  A tile that forces nothing is always
  legal.
* The others are decided by what their forced chains read, looked up in the
  decision tree of the board's :class:`~.knowledge.Knowledge`, shared by the
  boards made from one another and learnt from the positions they meet: a
  chain is played out (:meth:`Legality._chain`, on a scratch layer of entry
  keys) only where what it reads is new.
"""

from __future__ import annotations

from collections.abc import Iterator

from .knowledge import IDENT_BITS, Entry, Knowledge, Node, Played
from .reading import Reading
from .tiles import (
    COLOURS_IN,
    FIT_TILES,
    FITS,
    FORCE,
    NEIGHBOURS,
    SAFE,
    SIG,
    STRIDE,
)

# Cell offsets within two steps of a cell, and exactly three steps away: a
# legality answer that read cells up to r steps away is stale once a turn
# places a tile within r + 1 steps (the tile changes its neighbours' keys).
_NEAR = tuple(dy * STRIDE + dx for dy in range(-2, 3) for dx in range(-2, 3) if abs(dx) + abs(dy) <= 2)
_RING3 = tuple(dy * STRIDE + dx for dy in range(-3, 4) for dx in range(-3, 4) if abs(dx) + abs(dy) == 3)
_SIG_N, _SIG_E, _SIG_S, _SIG_W = SIG


class Legality(Reading):
    """Reading, with the legal tiles of each frontier cell: ``_legal``
    (cell -> :data:`~.knowledge.Entry`, kept between turns), ``_far`` (the
    cells among them whose answers read three or more steps away) and
    ``_limit`` (the widest and tallest the formation may grow, or None)."""

    __slots__ = ("_far", "_legal", "_limit")

    def __init__(self, knowledge: Knowledge | None, limit: int | None) -> None:
        super().__init__(knowledge)
        self._legal: dict[int, Entry] = {}
        self._far: set[int] = set()
        self._limit = limit

    # ------------------------------------------------------------------
    # the frontier

    def _frontier(self) -> list[int]:
        """The frontier cells a chosen tile may go into (within the size
        limit), in reading order."""
        keys = self._keys
        limit = self._limit
        if limit is None:
            return sorted(keys)
        lo_x, hi_x = self._maxx - limit + 1, self._minx + limit - 1
        lo_y, hi_y = self._maxy - limit + 1, self._miny + limit - 1
        return sorted(c for c in keys if lo_x <= c % STRIDE <= hi_x and lo_y <= c // STRIDE <= hi_y)

    def _candidates(self) -> Iterator[tuple[int, int, str]]:
        """(cell, tile, symbol) for every fitting placement within the size
        limit, legal or not, in reading order."""
        keys = self._keys
        for cell in self._frontier():
            for sym, tile in FITS[keys[cell]]:
                yield cell, tile, sym

    def _any_legal(self) -> bool:
        entry = self._entry
        return any(entry(cell)[0] for cell in self._frontier())

    def _turn_is_legal(self, cell: int, tile: int) -> bool:
        """Would placing ``tile`` at the empty frontier ``cell`` be a legal
        turn?  (Fitting and size limits are the caller's business.)"""
        return tile in self._entry(cell)[0]

    # ------------------------------------------------------------------
    # the answers kept, and when they go stale

    def _forget_near(self, cells: list[int]) -> None:
        """Drop the legality answers a change at ``cells`` (tiles placed or
        taken back) may have made stale."""
        cache = self._legal
        drop = cache.pop
        get = cache.get
        for c in cells:
            for offset in _NEAR:
                drop(c + offset, None)
            for offset in _RING3:
                entry = get(c + offset)
                if entry is not None and entry[1] >= 2:
                    del cache[c + offset]
        if self._far:
            self._forget_far(cells, None)

    def _forget_near_keeping(self, cells: list[int], kept: list[tuple[int, Entry]]) -> None:
        """:meth:`_forget_near`, keeping what it drops in ``kept`` (the
        counting check puts it back when it takes the move back)."""
        cache = self._legal
        drop = cache.pop
        get = cache.get
        keep = kept.append
        for c in cells:
            for offset in _NEAR:
                entry = drop(c + offset, None)
                if entry is not None:
                    keep((c + offset, entry))
            for offset in _RING3:
                q = c + offset
                entry = get(q)
                if entry is not None and entry[1] >= 2:
                    del cache[q]
                    keep((q, entry))
        if self._far:
            self._forget_far(cells, kept)

    def _near(self, cells: list[int]) -> set[int]:
        """The cells whose kept answers :meth:`_forget_near` would drop for
        a change at ``cells``."""
        cache = self._legal
        get = cache.get
        near = {c + offset for c in cells for offset in _NEAR}
        for c in cells:
            for offset in _RING3:
                entry = get(c + offset)
                if entry is not None and entry[1] >= 2:
                    near.add(c + offset)
        if self._far:
            where = [divmod(c, STRIDE) for c in cells]
            for cell in self._far:
                entry = get(cell)
                if entry is not None and entry[1] >= 3:
                    y, x = divmod(cell, STRIDE)
                    reach = entry[1] + 1
                    for cy, cx in where:
                        if abs(cx - x) + abs(cy - y) <= reach:
                            near.add(cell)
                            break
        return near

    def _forget_far(self, cells: list[int], kept: list[tuple[int, Entry]] | None) -> None:
        """Drop the answers that read three or more steps away and lie
        within their reach (plus one) of ``cells``."""
        cache = self._legal
        far = self._far
        where = [divmod(c, STRIDE) for c in cells]
        for cell in list(far):
            entry = cache.get(cell)
            if entry is None or entry[1] < 3:
                far.discard(cell)
                continue
            reach = entry[1] + 1
            y, x = divmod(cell, STRIDE)
            for cy, cx in where:
                if abs(cx - x) + abs(cy - y) <= reach:
                    del cache[cell]
                    far.discard(cell)
                    if kept is not None:
                        kept.append((cell, entry))
                    break

    # ------------------------------------------------------------------
    # deciding a cell

    def _entry(self, cell: int) -> Entry:
        entry = self._legal.get(cell)
        return self._evaluate(cell) if entry is None else entry

    def _evaluate(self, cell: int) -> Entry:
        """:meth:`_answer`, kept."""
        entry = self._answer(cell)
        self._legal[cell] = entry
        if entry[1] >= 3:
            self._far.add(cell)
        return entry

    def _answer(self, cell: int) -> Entry:
        """Decide which tiles that fit the frontier ``cell`` are legal turns:
        looked up in the tree of learnt answers (the knowledge's
        ``answers``), reading only what the forced chains reach, or learnt
        (:meth:`_learn`)."""
        kget = self._keys.get
        answers = self._knowledge.answers
        known = answers.get(self._keys[cell] << 8 | _SIG_N[kget(cell - STRIDE, 0)] | _SIG_E[kget(cell + 1, 0)]
                            | _SIG_S[kget(cell + STRIDE, 0)] | _SIG_W[kget(cell - 1, 0)])
        while isinstance(known, Node):
            full = known.full
            if full is None:
                return self._play_out(cell, known)
            seen = 1
            for offset in full:
                seen = seen << 8 | kget(cell + offset, 0)
            for offset in known.colours:
                seen = seen << 2 | COLOURS_IN[kget(cell + offset, 0)]
            known = answers.get(seen << IDENT_BITS | known.ident)
        return self._learn(cell) if known is None else known

    def _play_out(self, cell: int, node: Node) -> Entry:
        """The answer at ``cell`` when ``node`` leaves tiles whose chains run
        too far to learn: those are played out here."""
        reach = node.reach
        mask = node.mask
        legal = []
        for tile in FIT_TILES[self._keys[cell]]:
            if mask >> tile & 1:
                legal.append(tile)
            elif tile in node.pending:
                steps = self._chain(cell, tile)[0]
                if steps > 0:
                    legal.append(tile)
                    mask |= 1 << tile
                reach = max(reach, abs(steps))
        return (tuple(legal), reach, mask)

    def _learn(self, cell: int) -> Entry:
        """Work out which tiles are legal at ``cell`` by playing their chains,
        and add to the knowledge's tree what this position teaches along its
        path: at each step, the tiles decided by what was read so far and
        the cells to read next for the others."""
        keys = self._keys
        kget = keys.get
        k = keys[cell]
        sig = (_SIG_N[kget(cell - STRIDE, 0)] | _SIG_E[kget(cell + 1, 0)]
               | _SIG_S[kget(cell + STRIDE, 0)] | _SIG_W[kget(cell - 1, 0)])
        safe = SAFE[sig]
        played: list[Played] = []
        for tile in FIT_TILES[k]:
            if safe >> tile & 1:
                played.append((tile, 1, []))
            else:
                steps, levels = self._chain(cell, tile)
                played.append((tile, steps, levels))
        knowledge = self._knowledge
        if knowledge.full():
            knowledge.forget()
        answers = knowledge.answers
        key = k << 8 | sig
        step = 0
        known = answers.get(key)
        if known is None:
            known = answers[key] = knowledge.node(cell, played, step)
        while isinstance(known, Node) and known.full is not None:
            seen = 1
            for offset in known.full:
                seen = seen << 8 | kget(cell + offset, 0)
            for offset in known.colours:
                seen = seen << 2 | COLOURS_IN[kget(cell + offset, 0)]
            key = seen << IDENT_BITS | known.ident
            step += 1
            child = answers.get(key)
            if child is None:
                child = answers[key] = knowledge.node(cell, played, step)
            known = child
        legal = tuple(tile for tile, steps, _ in played if steps > 0)
        mask = sum(1 << tile for tile in legal)
        return (legal, max(abs(steps) for _, steps, _ in played), mask)

    def _chain(self, cell: int, tile: int) -> tuple[int, list[list[int]]]:
        """Play the forced chain of ``tile`` at ``cell`` on a scratch layer of
        entry keys, one step away from the cell after another.  Returns how
        many steps away the answer read (one more than the farthest forced
        tile), negated when the turn is illegal (three ends of one colour
        meet), and the cells each step forced.

        Cells forced at the same step lie at the same parity, so none of them
        touches another: each step's tiles can go down in any order."""
        tiles = self._tiles
        kget = self._keys.get
        scratch: dict[int, int] = {}
        level = []
        for step, bits, _ in NEIGHBOURS[tile]:
            n = cell + step
            if n not in tiles:
                k = kget(n, 0) | bits
                scratch[n] = k
                if FORCE[k]:
                    level.append(n)
        placed = {cell}
        levels: list[list[int]] = []
        depth = 1
        while level:
            following = []
            went: list[int] = []
            levels.append(went)
            for p in level:
                if p in placed:
                    continue
                f = FORCE[scratch[p]]
                if f < 0:
                    return -depth, levels
                placed.add(p)
                went.append(p)
                for step, bits, _ in NEIGHBOURS[f]:
                    n = p + step
                    if n in tiles or n in placed:
                        continue
                    known = scratch.get(n)
                    k = (kget(n, 0) if known is None else known) | bits
                    scratch[n] = k
                    if FORCE[k]:
                        following.append(n)
            level = following
            depth += 1
        return depth, levels
