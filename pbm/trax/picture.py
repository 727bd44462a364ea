"""A picture of a Trax position: a small palette PNG for board mails.

Phones seldom show the text diagram (:mod:`.render`) in a fixed-width font,
so board mails carry this picture too.  It is pure drawing: a board in,
PNG bytes out (:func:`board_png`); the words around it (the ``alt`` text,
the caption) are the mail's templates'.  This is the one module that
imports Pillow.

Layout
    The picture shows what the text diagram shows: the formation with a
    ring of empty cells around it (column ``@`` on the left, row ``0`` on
    top, and the empty column and row past the right and bottom edges), so
    the next move's coordinates are read off it exactly as off the text.
    Every cell is a :data:`CELL` pixel square; the cells sit inside a
    :data:`MARGIN` wide band holding the column letters (above and below)
    and the row numbers (left and right)::

        +------------------------------------------+
        |           @     A     B     C            |  MARGIN
        |       +-----+-----+-----+-----+          |
        |     0 |  .  |  .  |  .  |  .  | 0        |
        |       +-----+-----+-----+-----+          |  one row of
        |     1 |  .  |tile |tile |  .  | 1        |  CELL pixels
        |        ...                               |

    :func:`cell_box` gives the pixel box of any cell; :func:`picture_size`
    the size of the whole picture.  A tile is drawn on a black face
    :data:`FACE` pixels square with rounded corners, leaving :data:`GAP`
    pixels of background on each side, so neighbouring tiles stand apart.
    An empty cell is a faint rounded outline in the same place.  An empty
    board is the single cell ``@0`` with its labels.

Tiles
    As on a real set: a black face, a white track and a red one (the text's
    "black" colour is red on modern sets).  Tracks are :data:`TRACK` pixels
    wide.  On a straight both run through the middle, the white one over the
    red one with a thin black margin, like the bridge printed on real tiles;
    on a curve each colour is a quarter circle centred on a corner of the
    face, joining the middles of the two sides that meet there.  Tile masks
    are those of :mod:`.tiles` (bit ``d`` of the white mask set: white on
    side ``d``; N=0, E=1, S=2, W=3).

Marks
    The last turn: the chosen tile's cell is outlined solid in
    ``"chosen"`` blue, :data:`CHOSEN_WIDTH` pixels wide, and each forced
    tile's cell dashed in ``"forced"`` orange, :data:`FORCED_WIDTH` pixels
    wide (told apart by shape as well as colour).  Both outlines lie inside
    the cell's box, over its gap and the edge of the face.  At a game's end
    the winning track (:meth:`~pbm.trax.Board.winning_track`) glows: a
    ``"win"`` gold band :data:`GLOW` pixels wide along each side of it.

LuckyTrax's draw
    With ``draw`` (the face drawn for the player to move, a white mask) the
    picture grows a strip :data:`STRIP` pixels tall under the bottom labels,
    holding that face as a tile (in the cell :func:`draw_box` gives, under
    column ``@``), and every cell the face can go (each move of
    :meth:`~pbm.trax.Board.placements`) gets a ring in its middle:
    :data:`RING` pixels from the centre, :data:`RING_WIDTH` wide, in
    ``"placement"`` green.  The cells above keep their boxes
    (:func:`cell_box`).

Palette
    Everything is drawn from one fixed palette (:data:`PALETTE`, its entries
    by name in :data:`COLOURS` and :data:`INDEX`): the base colours, then
    ramps of the shades anti-aliasing makes between two of them (the face
    and each track, the face and the background, the glow and the face or
    a track, the background and the label ink or the grid).  The outline
    colours ``"chosen"`` and ``"forced"`` are used by nothing but the
    outlines, ``"placement"`` by nothing but the rings of LuckyTrax's
    draw, and ``"win"`` and its shades by nothing but the glow, so a
    picture can be checked pixel by pixel.

Speed
    Every sprite (the six tiles, each again with either colour glowing, the
    empty cell, each label) is drawn once, :data:`SCALE` times as large,
    reduced with a box filter (each pixel the average of the
    :data:`SCALE` x :data:`SCALE` it covers: its exact coverage, with no
    ringing to stray off the ramps) and mapped to the palette, at first use.
    A picture is then only pasting palette sprites into a palette canvas,
    drawing the outlines and compressing (:data:`COMPRESS_LEVEL`).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from types import MappingProxyType

from PIL import Image, ImageDraw, ImageFont

from .board import Board
from .look import (
    BRIDGE,
    CELL,
    CHOSEN_WIDTH,
    COLOURS,
    CORNER,
    DASH,
    DASH_GAP,
    FACE,
    FONT_SIZE,
    FORCED_WIDTH,
    GAP,
    GLOW,
    MARGIN,
    RING,
    RING_WIDTH,
    STRIP,
    TRACK,
    Rgb,
)
from .notation import column_letters
from .tiles import PATHS, E, N, S, W

__all__ = (
    "CELL",
    "CHOSEN_WIDTH",
    "COLOURS",
    "COMPRESS_LEVEL",
    "CORNER",
    "FACE",
    "FONT_SIZE",
    "FORCED_WIDTH",
    "GAP",
    "GLOW",
    "INDEX",
    "MARGIN",
    "PALETTE",
    "RING",
    "RING_WIDTH",
    "SCALE",
    "STRIP",
    "TRACK",
    "ZOOMS",
    "board_image",
    "board_png",
    "cell_box",
    "draw_box",
    "frame_size",
    "picture_size",
)

#: Sprites are drawn this many times larger, then reduced.
SCALE = 4
#: The sizes a picture is drawn at: 1 (a cell 36 pixels square) for the
#: web view's PNG, 2 for mail, whose HTML part shows it at half its pixels
#: so that it is sharp on the screens of phones (two device pixels a CSS
#: pixel).
ZOOMS = (1, 2)
#: zlib level of the PNG, chosen by measurement (bench/picture.py, a
#: 43-tile board at the mail's zoom 2, 840x840 pixels, one run on a busy
#: 2-CPU machine): level 2 encodes 33.7 KB in 2.5 ms, level 3 30.4 KB in
#: 2.8 ms, level 4 31.3 KB in 5.5 ms, level 6 24.3 KB in 9.2 ms and level 9
#: 20.5 KB in 52 ms (the drawing itself 1.2 ms).  Level 3 costs a third of
#: level 6's time for 6 KB more a mail: the encoder was three quarters of a
#: board mail's picture and a quarter of its pipeline (issue 33), where 6 KB
#: is nothing to a mailbox.  (At zoom 1, 420x420, levels 3 and 6 cost 0.5
#: and 1.0 ms; the zlib strategies FILTERED and RLE do no better.)
COMPRESS_LEVEL = 3

# ----------------------------------------------------------------------
# palette



# The shades between two colours that anti-aliasing makes: (from, to, how
# many in between).
_RAMPS: tuple[tuple[str, str, int], ...] = (
    ("background", "tile", 7),
    ("tile", "white", 15),
    ("tile", "red", 15),
    ("tile", "win", 11),
    ("win", "white", 5),
    ("win", "red", 7),
    ("background", "label", 11),
    ("background", "grid", 3),
)


def _mix(one: Rgb, two: Rgb, t: float) -> Rgb:
    r, g, b = (round(a + (c - a) * t) for a, c in zip(one, two))
    return r, g, b


def _build_palette() -> tuple[tuple[Rgb, ...], Mapping[str, int], Mapping[tuple[str, str], tuple[int, ...]]]:
    entries = list(COLOURS.values())
    index = {name: n for n, name in enumerate(COLOURS)}
    ramps: dict[tuple[str, str], list[int]] = {}
    for one, two, steps in _RAMPS:
        ramps[(one, two)] = []
        for k in range(1, steps + 1):
            entries.append(_mix(COLOURS[one], COLOURS[two], k / (steps + 1)))
            ramps[(one, two)].append(len(entries) - 1)
    assert len(set(entries)) == len(entries) <= 256, "palette entries must be distinct"
    return tuple(entries), MappingProxyType(index), MappingProxyType({k: tuple(v) for k, v in ramps.items()})


_ENTRIES, _INDEX, _RAMP_INDEX = _build_palette()

#: Every colour of the picture, by palette index.  Index 0 is the background.
PALETTE: tuple[Rgb, ...] = _ENTRIES
#: Palette index of each colour in :data:`COLOURS`.
INDEX: Mapping[str, int] = _INDEX
_PALETTE_BYTES = bytes(channel for colour in PALETTE for channel in colour)


def _shades(*names: str) -> tuple[int, ...]:
    """Palette indices of the named colours and of the ramps between them."""
    out = [INDEX[name] for name in names]
    for (one, two), indices in _RAMP_INDEX.items():
        if one in names and two in names:
            out += indices
    return tuple(out)


# What each kind of sprite may be mapped to: plain tiles never take the glow
# colours, nothing takes the outline colours.
_TILE_INKS = _shades("background", "tile", "white", "red")
_WIN_INKS = _shades("background", "tile", "white", "red", "win")
_EMPTY_INKS = _shades("background", "grid")
_LABEL_INKS = _shades("background", "label")


def _to_palette(image: Image.Image, allowed: tuple[int, ...]) -> Image.Image:
    """An RGB image as a palette image, each pixel the nearest of ``allowed``."""
    nearest: dict[bytes, int] = {}
    rgb = image.tobytes()
    out = bytearray(len(rgb) // 3)
    for n in range(len(out)):
        key = rgb[3 * n : 3 * n + 3]
        found = nearest.get(key)
        if found is None:
            r, g, b = key
            found = min(allowed, key=lambda i: (PALETTE[i][0] - r) ** 2 + (PALETTE[i][1] - g) ** 2
                        + (PALETTE[i][2] - b) ** 2)
            nearest[key] = found
        out[n] = found
    sprite = Image.frombytes("P", image.size, bytes(out))
    sprite.putpalette(_PALETTE_BYTES)
    return sprite


# ----------------------------------------------------------------------
# geometry at a zoom


@dataclass(frozen=True)
class _Geometry:
    """The look's geometry (:mod:`.look`) at a zoom: every length in
    pixels of the final picture, ``zoom`` times those of the look."""

    zoom: int
    cell: int
    gap: int
    face: int
    corner: int
    track: int
    bridge: int
    glow: int
    margin: int
    font: int
    chosen: int
    forced: int
    dash: int
    dash_gap: int
    strip: int
    ring: int
    ring_width: int


@cache
def _geometry(zoom: int) -> _Geometry:
    if zoom not in ZOOMS:
        raise ValueError(f"zoom {zoom!r} is not one of {ZOOMS}")
    z = zoom
    return _Geometry(z, CELL * z, GAP * z, FACE * z, CORNER * z, TRACK * z, BRIDGE * z, GLOW * z, MARGIN * z,
                     FONT_SIZE * z, CHOSEN_WIDTH * z, FORCED_WIDTH * z, DASH * z, DASH_GAP * z, STRIP * z,
                     RING * z, RING_WIDTH * z)


# ----------------------------------------------------------------------
# sprites, drawn large and reduced once

# The corner of the face a curve's track goes round, by the two sides it joins.
_CORNER_OF = MappingProxyType({
    frozenset((N, W)): (0, 0),
    frozenset((N, E)): (1, 0),
    frozenset((S, E)): (1, 1),
    frozenset((S, W)): (0, 1),
})  # in faces


def _draw_face(mask: int, glowing: int | None, g: _Geometry) -> Image.Image:
    """The face of a tile, ``SCALE`` times large: tracks on black, the
    ``glowing`` colour (0 white, 1 red) with the gold glow along it."""
    s = SCALE
    size = g.face * s
    TRACK, BRIDGE, GLOW = g.track, g.bridge, g.glow  # the look's lengths at this zoom
    face = Image.new("RGB", (size, size), COLOURS["tile"])
    draw = ImageDraw.Draw(face)
    inks = (COLOURS["white"], COLOURS["red"])
    half = TRACK * s // 2
    mid = size // 2

    def band(side: int, ink: Rgb, extra: int) -> None:
        """A straight track (plus ``extra`` on each side) from ``side`` to
        the opposite side."""
        w = half + extra * s
        if side in (N, S):
            draw.rectangle((mid - w, 0, mid + w - 1, size - 1), fill=ink)
        else:
            draw.rectangle((0, mid - w, size - 1, mid + w - 1), fill=ink)

    def disc(corner: tuple[int, int], radius: int, ink: Rgb) -> None:
        cx, cy = corner[0] * size, corner[1] * size
        draw.ellipse((cx - radius, cy - radius, cx + radius - 1, cy + radius - 1), fill=ink)

    def arc(corner: tuple[int, int], ink: Rgb, glow: bool) -> None:
        """A quarter ring round ``corner`` through the middles of the two
        sides that meet there, with the glow along both its edges."""
        outer, inner = mid + half, mid - half
        if glow:
            disc(corner, outer + GLOW * s, COLOURS["win"])
        disc(corner, outer, ink)
        if glow:
            disc(corner, inner, COLOURS["win"])
            inner -= GLOW * s
        disc(corner, inner, COLOURS["tile"])

    paths = PATHS[mask]
    if paths[0][1] == paths[0][0] + 2:  # a straight: white from side a to the opposite one
        white_side, red_side = paths[0][0], paths[1][0]
        if glowing == 1:
            band(red_side, COLOURS["win"], GLOW)
        band(red_side, inks[1], 0)
        # the bridge: black beside the white track where it crosses the red one
        w = half + BRIDGE * s
        reach = half + (GLOW * s if glowing == 1 else 0)
        if white_side in (N, S):
            draw.rectangle((mid - w, mid - reach, mid + w - 1, mid + reach - 1), fill=COLOURS["tile"])
        else:
            draw.rectangle((mid - reach, mid - w, mid + reach - 1, mid + w - 1), fill=COLOURS["tile"])
        if glowing == 0:
            band(white_side, COLOURS["win"], GLOW)
        band(white_side, inks[0], 0)
    else:
        # the two arcs are far apart (their corners are a diagonal apart):
        # the order they are drawn in does not matter
        for colour in (0, 1):
            arc(_CORNER_OF[frozenset(paths[colour])], inks[colour], glowing == colour)
    return face


def _cell_sprite(face: Image.Image | None, g: _Geometry) -> Image.Image:
    """A cell, ``SCALE`` times large: the background with ``face`` on it,
    its corners rounded, or for an empty cell the faint outline of one."""
    s = SCALE
    CELL, GAP, FACE, CORNER = g.cell, g.gap, g.face, g.corner  # the look's lengths at this zoom
    cell = Image.new("RGB", (CELL * s, CELL * s), COLOURS["background"])
    box = (GAP * s, GAP * s, (GAP + FACE) * s - 1, (GAP + FACE) * s - 1)
    if face is None:
        ImageDraw.Draw(cell).rounded_rectangle(box, radius=CORNER * s, outline=COLOURS["grid"], width=s * g.zoom)
        return cell
    shape = Image.new("L", (CELL * s, CELL * s), 0)
    ImageDraw.Draw(shape).rounded_rectangle(box, radius=CORNER * s, fill=255)
    framed = Image.new("RGB", (CELL * s, CELL * s), COLOURS["background"])
    framed.paste(face, (GAP * s, GAP * s))
    cell.paste(framed, (0, 0), shape)
    return cell


def _reduce(image: Image.Image) -> Image.Image:
    return image.reduce(SCALE)


@dataclass(frozen=True)
class _Sprites:
    """The palette sprites every picture is pasted from."""

    tiles: dict[int, Image.Image]
    glowing: dict[tuple[int, int], Image.Image]  # (mask, colour) -> tile with that track glowing
    empty: Image.Image


@cache
def _sprites(zoom: int) -> _Sprites:
    """The tile and empty-cell sprites at ``zoom``, drawn at first use."""
    g = _geometry(zoom)
    masks = tuple(PATHS)
    tiles = {m: _to_palette(_reduce(_cell_sprite(_draw_face(m, None, g), g)), _TILE_INKS) for m in masks}
    glowing = {
        (m, colour): _to_palette(_reduce(_cell_sprite(_draw_face(m, colour, g), g)), _WIN_INKS)
        for m in masks
        for colour in (0, 1)
    }
    empty = _to_palette(_reduce(_cell_sprite(None, g)), _EMPTY_INKS)
    return _Sprites(tiles, glowing, empty)


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's own font (FreeType, built in: no file to find)."""
    return ImageFont.load_default(size=size)


@cache
def _label(text: str, row: bool, zoom: int = 1) -> Image.Image:
    """The sprite of a label, drawn at first use: a row number (``MARGIN``
    x ``CELL``, to stand beside its row) or column letters (``CELL`` x
    ``MARGIN``, above or below its column), the text in the middle."""
    g = _geometry(zoom)
    size = (g.margin, g.cell) if row else (g.cell, g.margin)
    image = Image.new("RGB", size, COLOURS["background"])
    ImageDraw.Draw(image).text((size[0] / 2, size[1] / 2), text, font=_font(g.font), fill=COLOURS["label"],
                               anchor="mm")
    return _to_palette(image, _LABEL_INKS)


# ----------------------------------------------------------------------
# layout


def frame_size(board: Board) -> tuple[int, int]:
    """(columns, rows) of cells drawn: the formation and its empty ring, or
    the single cell ``@0`` of an empty board."""
    if not board.tile_count:
        return 1, 1
    return board.width + 2, board.height + 2


def picture_size(board: Board, *, draw: int | None = None, zoom: int = 1) -> tuple[int, int]:
    """(width, height) of the picture in pixels (with ``draw``, the strip
    under it that shows the face drawn) at ``zoom``."""
    g = _geometry(zoom)
    columns, rows = frame_size(board)
    return 2 * g.margin + g.cell * columns, 2 * g.margin + g.cell * rows + (g.strip if draw is not None else 0)


def cell_box(board: Board, column: int, row: int, *, zoom: int = 1) -> tuple[int, int, int, int]:
    """The pixel box ``(x0, y0, x1, y1)`` of a cell, ``x1`` and ``y1``
    excluded (as :meth:`PIL.Image.Image.crop` takes it).  ``column`` and
    ``row`` are notation coordinates of the position (column 0 is ``@``,
    row 0 the empty row on top), as :meth:`~pbm.trax.Board.cells` gives
    them (the picture at ``zoom``).  Raises ``ValueError`` for a cell
    outside the picture."""
    g = _geometry(zoom)
    columns, rows = frame_size(board)
    if not (0 <= column < columns and 0 <= row < rows):
        raise ValueError(f"cell ({column}, {row}) is not in the picture ({columns} x {rows} cells)")
    x0 = g.margin + g.cell * column
    y0 = g.margin + g.cell * row
    return x0, y0, x0 + g.cell, y0 + g.cell


def draw_box(board: Board, *, zoom: int = 1) -> tuple[int, int, int, int]:
    """The pixel box of the tile in the strip that shows LuckyTrax's draw
    (a picture made with ``draw``): one cell under the bottom labels, below
    column ``@``; at ``zoom``)."""
    g = _geometry(zoom)
    _, rows = frame_size(board)
    y0 = 2 * g.margin + g.cell * rows
    return g.margin, y0, g.margin + g.cell, y0 + g.cell


# ----------------------------------------------------------------------
# the picture


def _outline(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], dashed: bool, g: _Geometry) -> None:
    x0, y0, x1, y1 = box
    if not dashed:
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), outline=INDEX["chosen"], width=g.chosen)
        return
    ink = INDEX["forced"]
    w = g.forced
    for start in range(0, g.cell, g.dash + g.dash_gap):
        stop = min(start + g.dash, g.cell) - 1
        draw.rectangle((x0 + start, y0, x0 + stop, y0 + w - 1), fill=ink)
        draw.rectangle((x0 + start, y1 - w, x0 + stop, y1 - 1), fill=ink)
        draw.rectangle((x0, y0 + start, x0 + w - 1, y0 + stop), fill=ink)
        draw.rectangle((x1 - w, y0 + start, x1 - 1, y0 + stop), fill=ink)


@lru_cache(maxsize=16)
def _frame(columns: int, rows: int, strip: bool, zoom: int) -> Image.Image:
    """A board's picture with every cell empty: the cells, the labels round
    them, the strip for LuckyTrax's draw (``strip``).  Kept for the last
    sizes drawn (a copy is drawn on), so a picture pastes only its tiles:
    the empty cells and labels were two thirds of a picture's pastes."""
    g = _geometry(zoom)
    empty = _sprites(zoom).empty
    CELL, MARGIN = g.cell, g.margin
    width = 2 * MARGIN + CELL * columns
    height = 2 * MARGIN + CELL * rows + (g.strip if strip else 0)
    canvas = Image.new("P", (width, height), INDEX["background"])
    canvas.putpalette(_PALETTE_BYTES)
    paste = canvas.paste
    for r in range(rows):
        for c in range(columns):
            paste(empty, (MARGIN + CELL * c, MARGIN + CELL * r))
    bottom = MARGIN + CELL * rows
    right = MARGIN + CELL * columns
    for c in range(columns):
        label = _label(column_letters(c), False, zoom)
        x = MARGIN + CELL * c
        paste(label, (x, 0))
        paste(label, (x, bottom))
    for r in range(rows):
        label = _label(str(r), True, zoom)
        y = MARGIN + CELL * r
        paste(label, (0, y))
        paste(label, (right, y))
    return canvas


def board_image(board: Board, *, last_turn: bool = True, win: bool = True,
                draw: int | None = None, zoom: int = 1) -> Image.Image:
    """The picture as a palette (mode ``"P"``) image; see :func:`board_png`."""
    g = _geometry(zoom)
    sprites = _sprites(zoom)
    CELL, MARGIN = g.cell, g.margin  # the look's lengths at this zoom
    if draw is not None and draw not in sprites.tiles:
        raise ValueError(f"{draw!r} is not a tile face; the faces are the white masks 5, 10, 9, 6, 3 and 12")
    columns, rows = frame_size(board)
    canvas = _frame(columns, rows, draw is not None, zoom).copy()
    paste = canvas.paste

    glow: dict[tuple[int, int], int] = {}
    if win:
        track = board.winning_track()
        if track is not None:
            colour = 0 if track.colour == "white" else 1
            glow = dict.fromkeys(track.cells, colour)

    for c, r, mask in board.cells():  # the frame has every cell empty: only the tiles are drawn
        sprite = sprites.glowing[(mask, glow[(c, r)])] if (c, r) in glow else sprites.tiles[mask]
        paste(sprite, (MARGIN + CELL * c, MARGIN + CELL * r))

    if last_turn:
        placed = board.last_placed()
        if placed:
            pen = ImageDraw.Draw(canvas)
            for n, (c, r) in enumerate(placed):
                _outline(pen, cell_box(board, c, r, zoom=zoom), dashed=n > 0, g=g)

    if draw is not None:
        paste(sprites.tiles[draw], draw_box(board, zoom=zoom)[:2])
        if not board.reset_due:  # after a PointTrax line the cells shown are not where it goes
            pen = ImageDraw.Draw(canvas)
            for move in board.placements(draw):
                x0, y0, x1, y1 = cell_box(board, move.column, move.row, zoom=zoom)
                cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
                pen.ellipse((cx - g.ring, cy - g.ring, cx + g.ring - 1, cy + g.ring - 1),
                            outline=INDEX["placement"], width=g.ring_width)
    return canvas


def board_png(board: Board, *, last_turn: bool = True, win: bool = True, draw: int | None = None,
              zoom: int = 1) -> bytes:
    """A PNG picture of the position (see the module docstring).

    ``last_turn`` outlines the tiles the last turn placed (the chosen one
    solid blue, the forced ones dashed orange); ``win`` makes the winning
    track glow gold once a loop or a line has decided the game.  ``draw``
    (LuckyTrax: the face drawn for the player to move, a white mask) shows
    that face in a strip under the board and rings each cell it can go in
    green.  ``zoom`` (one of :data:`ZOOMS`) draws every length that many
    times larger.  ``ValueError`` when ``draw`` is not a face.
    """
    buffer = io.BytesIO()
    image = board_image(board, last_turn=last_turn, win=win, draw=draw, zoom=zoom)
    image.save(buffer, format="PNG", compress_level=COMPRESS_LEVEL)
    return buffer.getvalue()
