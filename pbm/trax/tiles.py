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

from collections.abc import Mapping
from types import MappingProxyType

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
SYMBOL: Mapping[int, str] = MappingProxyType({5: "+", 10: "+", 9: "/", 6: "/", 3: "\\", 12: "\\"})
TILES_OF_SYMBOL: Mapping[str, tuple[int, int]] = MappingProxyType({"+": (5, 10), "/": (9, 6), "\\": (3, 12)})


def _dirs(mask: int) -> tuple[int, ...]:
    return tuple(d for d in DIRECTIONS if (mask >> d) & 1)


# For each tile: ((a, b) white directions, (c, d) black directions).
PATHS: Mapping[int, tuple[tuple[int, ...], tuple[int, ...]]] = MappingProxyType(
    {t: (_dirs(t), _dirs(15 ^ t)) for t in TILES}
)

# Every table below is a tuple (indexed by tile, key or signature) or a
# read-only mapping: made once when the module is imported, never changed.


def _forced(key: int) -> int:
    """FORCE[key] (see below)."""
    wm, bm = key & 15, key >> 4
    if wm & bm or wm.bit_count() > 2 or bm.bit_count() > 2:
        return -1  # wm & bm: impossible on a real board; never a legal cell
    if wm.bit_count() == 2:
        return wm
    if bm.bit_count() == 2:
        return 15 ^ bm
    return 0


def _fits(key: int) -> tuple[tuple[str, int], ...]:
    """FITS[key] (see below)."""
    wm, bm = key & 15, key >> 4
    if wm & bm:
        return ()
    return tuple((SYMBOL[t], t) for t in TILES if (t & (wm | bm)) == wm)


# Entry keys: for an empty cell, ``wm | bm << 4`` where wm (bm) has bit d set
# when a white (black) track end enters the cell from direction d.
#
# FORCE[key]: -1 if three or more ends of one colour enter (an illegal turn),
#             the forced tile when exactly two ends of one colour enter,
#             0 when the cell is not forced.
# FITS[key]:  ((symbol, tile), ...) for the tiles whose edges match every
#             entering end; at most one tile per symbol once anything enters.
FORCE: tuple[int, ...] = tuple(_forced(key) for key in range(256))
FITS: tuple[tuple[tuple[str, int], ...], ...] = tuple(_fits(key) for key in range(256))


# CONTRIB[tile][d]: the bits a tile adds to the entry key of the empty cell
# next to it in direction d (that cell sees the track enter from OPPOSITE[d]).
CONTRIB: Mapping[int, tuple[int, ...]] = MappingProxyType({
    t: tuple((1 << OPPOSITE[d]) if (t >> d) & 1 else (16 << OPPOSITE[d]) for d in DIRECTIONS)
    for t in TILES
})


# ----------------------------------------------------------------------
# Tables for the engine's hot paths (tuples indexed by tile or key, which
# are as fast as lists and build no objects when read).

#: FIT_TILES[key]: the tiles of FITS[key], in symbol order (+ / \).
FIT_TILES: tuple[tuple[int, ...], ...] = tuple(tuple(t for _, t in fits) for fits in FITS)

#: TILE_FOR[key]: symbol -> the tile of that symbol that fits (if any).
TILE_FOR: tuple[Mapping[str, int], ...] = tuple(MappingProxyType(dict(fits)) for fits in FITS)

#: NEIGHBOURS[tile]: (cell offset, bits added to that neighbour's entry key,
#: direction bit) for N, E, S, W; ``()`` for a number that is no tile.
NEIGHBOURS: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(
    tuple((DELTA[d], CONTRIB[t][d], 1 << d) for d in DIRECTIONS) if t in SYMBOL else () for t in range(16)
)
#: TRACKS[tile]: for white then black, (offset of the cell beyond edge a,
#: edge id offset of a, the same for b, bit of a, bit of b, loop bit).
TRACKS: tuple[tuple[tuple[int, int, int, int, int, int, int], ...], ...] = tuple(
    tuple(
        (DELTA[a], EDGE_OFFSET[a], DELTA[b], EDGE_OFFSET[b], 1 << a, 1 << b, 1 << colour)
        for colour, (a, b) in enumerate(PATHS[t])
    ) if t in SYMBOL else ()
    for t in range(16)
)
#: KEY_OF[tile][occupied]: the entry key the cell had before ``tile`` went
#: in, when the directions in the 4-bit mask ``occupied`` held tiles.
KEY_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        sum((1 << d) if (t >> d) & 1 else (16 << d) for d in DIRECTIONS if (occupied >> d) & 1)
        if t in SYMBOL else 0
        for occupied in range(16)
    )
    for t in range(16)
)

# Neighbour signatures.  For an empty cell X, bit d of its signature says a
# white end enters the neighbour in direction d, bit d + 4 a black one.  No
# neighbour of a settled position holds two ends of one colour, so a tile
# placed at X forces that neighbour exactly when it sends it an end of a
# colour already there.
#: SIG[d][key]: the signature bits of a neighbour in direction d with that key.
SIG: tuple[tuple[int, ...], ...] = tuple(
    tuple(((1 << d) if key & 15 else 0) | ((16 << d) if key >> 4 else 0) for key in range(256))
    for d in DIRECTIONS
)
#: SAFE[sig]: bit t set when tile t forces no neighbour of a cell with that
#: signature (a turn that forces nothing is always legal).
SAFE: tuple[int, ...] = tuple(
    sum(1 << t for t in TILES if not ((t & sig) | ((15 ^ t) & (sig >> 4)))) for sig in range(256)
)

#: COLOURS_IN[key]: which colours enter a cell with that key (bit 0 white,
#: bit 1 black).
COLOURS_IN: tuple[int, ...] = tuple((1 if key & 15 else 0) | (2 if key >> 4 else 0) for key in range(256))
