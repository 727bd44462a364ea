"""Tiles, directions and the lookup tables the engine is built on.

A placed tile is stored as a 4-bit *white mask*: bit ``d`` is set when the
edge in direction ``d`` carries the white track.  Every tile has exactly two
white edges (and so two black ones), which gives the six placements:

====  ==========  ======  ========================================
mask  white on    symbol  picture
====  ==========  ======  ========================================
 5    N + S       ``+``   white vertical, black horizontal
10    E + W       ``+``   white horizontal, black vertical
 9    N + W       ``/``   white joins top-left, black bottom-right
 6    E + S       ``/``   black joins top-left, white bottom-right
 3    N + E       ``\\``  white joins top-right, black bottom-left
12    S + W       ``\\``  black joins top-right, white bottom-left
====  ==========  ======  ========================================

Cells are integers ``y * STRIDE + x`` so that a neighbour is one addition
away; edges between cells are integers too (see ``EDGE_OFFSET``).
"""

from __future__ import annotations

N, E, S, W = 0, 1, 2, 3
DIRECTIONS = (N, E, S, W)
OPPOSITE = (S, W, N, E)
DIRECTION_NAMES = ("top", "right", "bottom", "left")

WHITE, BLACK = 0, 1
COLOUR_NAMES = ("white", "black")

STRIDE = 1 << 21
ORIGIN = (1 << 20) * STRIDE + (1 << 20)  # the first tile's cell; leaves room on every side
DELTA = (-STRIDE, 1, STRIDE, -1)

# Edge ids: the top edge of cell c is 2c, its left edge 2c+1; the bottom edge
# of c is the top edge of the cell below, its right edge the left edge of the
# cell to the right.  Two neighbouring cells therefore name their shared edge
# with the same number.
EDGE_OFFSET = (0, 2 * 1 + 1, 2 * STRIDE, 1)

TILES = (5, 10, 9, 6, 3, 12)
SYMBOL = {5: "+", 10: "+", 9: "/", 6: "/", 3: "\\", 12: "\\"}
TILES_OF_SYMBOL = {"+": (5, 10), "/": (9, 6), "\\": (3, 12)}


def _dirs(mask: int) -> tuple[int, ...]:
    return tuple(d for d in DIRECTIONS if (mask >> d) & 1)


# For each tile: ((a, b) white directions, (c, d) black directions).
PATHS = {t: (_dirs(t), _dirs(15 ^ t)) for t in TILES}


# Entry keys: for an empty cell, ``wm | bm << 4`` where wm (bm) has bit d set
# when a white (black) track end enters the cell from direction d.
#
# FORCE[key]: -1 if three or more ends of one colour enter (an illegal turn),
#             the forced tile when exactly two ends of one colour enter,
#             0 when the cell is not forced.
# FITS[key]:  ((symbol, tile), ...) for the tiles whose edges match every
#             entering end; at most one tile per symbol once anything enters.
FORCE = [0] * 256
FITS: list[tuple[tuple[str, int], ...]] = [()] * 256
for _key in range(256):
    _wm, _bm = _key & 15, _key >> 4
    if _wm & _bm:
        FORCE[_key] = -1  # impossible on a real board; never a legal cell
        continue
    if _wm.bit_count() > 2 or _bm.bit_count() > 2:
        FORCE[_key] = -1
    elif _wm.bit_count() == 2:
        FORCE[_key] = _wm
    elif _bm.bit_count() == 2:
        FORCE[_key] = 15 ^ _bm
    FITS[_key] = tuple(
        (SYMBOL[t], t) for t in TILES if (t & (_wm | _bm)) == _wm
    )
del _key, _wm, _bm


# CONTRIB[tile][d]: the bits a tile adds to the entry key of the empty cell
# next to it in direction d (that cell sees the track enter from OPPOSITE[d]).
CONTRIB = {
    t: tuple((1 << OPPOSITE[d]) if (t >> d) & 1 else (16 << OPPOSITE[d]) for d in DIRECTIONS)
    for t in TILES
}
