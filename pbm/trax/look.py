"""The look of a board drawn as a picture: the geometry in pixels and the
colours, shared by the PNG of the mail (:mod:`.picture`, Pillow) and the
SVG of the web view (:mod:`.svg`, plain text), so the two look the same."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

Rgb = tuple[int, int, int]

# ----------------------------------------------------------------------
# geometry (pixels of the final picture)

#: One cell of the picture: a square this many pixels wide.
CELL = 36
#: Background left around each tile face (so 2 * GAP between two tiles).
GAP = 1
#: A tile's face: the cell less the gap on each side.
FACE = CELL - 2 * GAP
#: Rounding of a face's corners.
CORNER = 3
#: Width of a track.
TRACK = 8
#: Black margin on each side of the white track where it crosses the red
#: one on a straight.
BRIDGE = 2
#: Width of the gold glow along each side of the winning track.
GLOW = 3
#: The band around the cells that holds the labels.
MARGIN = 30
#: Size of the label font (pixels).
FONT_SIZE = 14
#: Width of the solid outline round the chosen tile's cell.
CHOSEN_WIDTH = 3
#: Width of the dashed outline round each forced tile's cell.
FORCED_WIDTH = 2
#: Dashes of the forced outline: length and the gap after each.  Four
#: dashes of 6 with gaps of 4 fill a side of 36 symmetrically.
DASH, DASH_GAP = 6, 4
#: LuckyTrax: the height of the strip under the picture that shows the
#: face drawn (a cell, and half a margin below it).
STRIP = CELL + MARGIN // 2
#: LuckyTrax: the radius (to the outer edge) and width of the ring in each
#: cell the face drawn can go.
RING, RING_WIDTH = 8, 3

#: The base colours by name.
COLOURS: Mapping[str, Rgb] = MappingProxyType({
    "background": (244, 241, 233),
    "tile": (30, 30, 32),
    "white": (250, 250, 246),
    "red": (204, 36, 41),
    "win": (255, 201, 20),
    "label": (66, 62, 56),
    "grid": (214, 208, 196),
    "chosen": (0, 104, 214),
    "forced": (236, 104, 0),
    "placement": (22, 163, 74),
})
