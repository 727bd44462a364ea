"""A picture of a Trax position as SVG markup, for the web view.

The same picture as the PNG of board mails (:mod:`.picture`), drawn as
vectors: the same layout, geometry and colours (``tests/web/test_svg.py``
checks every constant against that module's, and a browser's rendering
against the PNG), so a board looks the same in mail and on the web.  It is
pure: a board in, text out (:func:`board_svg`), standard library only.

- The cells of the formation and its empty ring, :data:`CELL` pixels
  square, inside a :data:`MARGIN` band of column letters and row numbers.
- A tile: a black face with rounded corners, a white track and a red one
  (the text's "black"); on a straight the white track crosses over the red
  one with a thin black bridge, on a curve each colour is a quarter ring
  round a corner.  The six tiles (and each with either colour glowing) are
  drawn once in ``<defs>`` and placed with ``<use>``.
- The last turn: the chosen tile's cell outlined solid blue, each forced
  tile's cell dashed orange; at the end of a game the winning track glows
  gold; for LuckyTrax the face drawn under the board and a green ring in
  every cell it can go.

Only presentation attributes are used (no ``style`` attribute or element,
no script), so a page with the picture inline keeps a Content-Security-Policy
without ``'unsafe-inline'``.  Text (the title) is escaped here.
"""

from __future__ import annotations

from types import MappingProxyType

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
)
from .notation import column_letters
from .tiles import PATHS, E, N, S, W

__all__ = (
    "BRIDGE",
    "CELL",
    "CHOSEN_WIDTH",
    "COLOURS",
    "CORNER",
    "DASH",
    "DASH_GAP",
    "FACE",
    "FONT_SIZE",
    "FORCED_WIDTH",
    "GAP",
    "GLOW",
    "MARGIN",
    "RING",
    "RING_WIDTH",
    "STRIP",
    "TRACK",
    "board_svg",
    "svg_size",
)

def _hex(name: str) -> str:
    r, g, b = COLOURS[name]
    return f"#{r:02x}{g:02x}{b:02x}"


def _escape(text: str) -> str:
    """Text for an XML element or a quoted attribute."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


# ----------------------------------------------------------------------
# the tiles, drawn once in <defs>

_CORNER_OF = MappingProxyType({
    frozenset((N, W)): (0, 0),
    frozenset((N, E)): (FACE, 0),
    frozenset((S, E)): (FACE, FACE),
    frozenset((S, W)): (0, FACE),
})
_MID = FACE // 2
_HALF = TRACK // 2


def _band(side: int, ink: str, extra: int) -> str:
    """A straight track (``extra`` wider on each side) from ``side`` to the
    opposite side of the face."""
    w = _HALF + extra
    if side in (N, S):
        return f'<rect x="{_MID - w}" y="0" width="{2 * w}" height="{FACE}" fill="{ink}"/>'
    return f'<rect x="0" y="{_MID - w}" width="{FACE}" height="{2 * w}" fill="{ink}"/>'


def _arc(sides: tuple[int, ...], ink: str, width: int) -> str:
    """A quarter ring round the corner where ``sides`` meet, through the
    middles of those two sides."""
    cx, cy = _CORNER_OF[frozenset(sides)]
    points = []
    for side in sides:
        if side in (N, S):
            points.append((_MID, cy))
        else:
            points.append((cx, _MID))
    (x1, y1), (x2, y2) = points
    sweep = 1 if (x1 - cx) * (y2 - cy) - (y1 - cy) * (x2 - cx) > 0 else 0
    return (f'<path d="M{x1} {y1}A{_MID} {_MID} 0 0 {sweep} {x2} {y2}" fill="none" '
            f'stroke="{ink}" stroke-width="{width}"/>')


def _face(mask: int, glowing: int | None) -> str:
    """The inside of a tile's face (its tracks), in face coordinates; the
    ``glowing`` colour (0 white, 1 red) with the gold glow along it."""
    inks = (_hex("white"), _hex("red"))
    win, tile = _hex("win"), _hex("tile")
    paths = PATHS[mask]
    out = []
    if paths[0][1] == paths[0][0] + 2:  # a straight
        white_side, red_side = paths[0][0], paths[1][0]
        if glowing == 1:
            out.append(_band(red_side, win, GLOW))
        out.append(_band(red_side, inks[1], 0))
        w = _HALF + BRIDGE
        reach = _HALF + (GLOW if glowing == 1 else 0)
        if white_side in (N, S):
            out.append(f'<rect x="{_MID - w}" y="{_MID - reach}" width="{2 * w}" height="{2 * reach}" fill="{tile}"/>')
        else:
            out.append(f'<rect x="{_MID - reach}" y="{_MID - w}" width="{2 * reach}" height="{2 * w}" fill="{tile}"/>')
        if glowing == 0:
            out.append(_band(white_side, win, GLOW))
        out.append(_band(white_side, inks[0], 0))
    else:
        for colour in (0, 1):
            if glowing == colour:
                out.append(_arc(paths[colour], win, TRACK + 2 * GLOW))
            out.append(_arc(paths[colour], inks[colour], TRACK))
    return "".join(out)


def _tile_id(mask: int, glowing: int | None) -> str:
    return f"pbm-t{mask}" if glowing is None else f"pbm-t{mask}g{glowing}"


def _defs() -> str:
    face = (f'<rect x="{GAP}" y="{GAP}" width="{FACE}" height="{FACE}" rx="{CORNER}" '
            f'fill="{_hex("tile")}"/>')
    parts = []
    for mask in PATHS:
        for glowing in (None, 0, 1):
            parts.append(f'<g id="{_tile_id(mask, glowing)}">{face}'
                         f'<g transform="translate({GAP} {GAP})">{_face(mask, glowing)}</g></g>')
    parts.append(f'<rect id="pbm-empty" x="{GAP + 0.5}" y="{GAP + 0.5}" width="{FACE - 1}" height="{FACE - 1}" '
                 f'rx="{CORNER}" fill="none" stroke="{_hex("grid")}" stroke-width="1"/>')
    return "<defs>" + "".join(parts) + "</defs>"


_DEFS = _defs()


# ----------------------------------------------------------------------
# layout (as pbm.trax.picture lays it out)


def _frame(board: Board) -> tuple[int, int]:
    if not board.tile_count:
        return 1, 1
    return board.width + 2, board.height + 2


def svg_size(board: Board, *, draw: int | None = None) -> tuple[int, int]:
    """(width, height) of the picture in pixels: the PNG's size."""
    columns, rows = _frame(board)
    return 2 * MARGIN + CELL * columns, 2 * MARGIN + CELL * rows + (STRIP if draw is not None else 0)


def _outline(x0: int, y0: int, dashed: bool) -> str:
    if not dashed:
        inset = CHOSEN_WIDTH / 2
        return (f'<rect x="{x0 + inset:g}" y="{y0 + inset:g}" width="{CELL - CHOSEN_WIDTH}" '
                f'height="{CELL - CHOSEN_WIDTH}" fill="none" stroke="{_hex("chosen")}" '
                f'stroke-width="{CHOSEN_WIDTH}"/>')
    half = FORCED_WIDTH / 2
    x1, y1 = x0 + CELL, y0 + CELL
    sides = ((x0, y0 + half, x1, y0 + half), (x0, y1 - half, x1, y1 - half),
             (x0 + half, y0, x0 + half, y1), (x1 - half, y0, x1 - half, y1))
    lines = "".join(f'<line x1="{a:g}" y1="{b:g}" x2="{c:g}" y2="{d:g}"/>' for a, b, c, d in sides)
    return (f'<g stroke="{_hex("forced")}" stroke-width="{FORCED_WIDTH}" '
            f'stroke-dasharray="{DASH} {DASH_GAP}">{lines}</g>')


def board_svg(board: Board, *, last_turn: bool = True, win: bool = True, draw: int | None = None,
              title: str | None = None, css_class: str = "board") -> str:
    """The position as an ``<svg>`` element (see the module docstring).

    ``last_turn``, ``win`` and ``draw`` as for
    :func:`pbm.trax.picture.board_png`; ``title`` is the picture's text
    for those who cannot see it (escaped here).  ``ValueError`` when
    ``draw`` is not a face.
    """
    if draw is not None and draw not in PATHS:
        raise ValueError(f"{draw!r} is not a tile face; the faces are the white masks 5, 10, 9, 6, 3 and 12")
    columns, rows = _frame(board)
    width, height = svg_size(board, draw=draw)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="{_escape(css_class)}" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" role="img"'
           + (f' aria-label="{_escape(title)}"' if title else "") + ">"]
    if title:
        out.append(f"<title>{_escape(title)}</title>")
    out.append(_DEFS)
    out.append(f'<rect width="{width}" height="{height}" fill="{_hex("background")}"/>')

    glow: dict[tuple[int, int], int] = {}
    if win:
        track = board.winning_track()
        if track is not None:
            glow = dict.fromkeys(track.cells, 0 if track.colour == "white" else 1)
    tiles = {(c, r): mask for c, r, mask in board.cells()}
    for r in range(rows):
        y = MARGIN + CELL * r
        for c in range(columns):
            mask = tiles.get((c, r))
            ref = "pbm-empty" if mask is None else _tile_id(mask, glow.get((c, r)))
            out.append(f'<use href="#{ref}" x="{MARGIN + CELL * c}" y="{y}"/>')

    labels = [f'<g font-family="sans-serif" font-size="{FONT_SIZE}" fill="{_hex("label")}" '
              f'text-anchor="middle" dominant-baseline="central">']
    bottom = MARGIN + CELL * rows
    right = MARGIN + CELL * columns
    for c in range(columns):
        x = MARGIN + CELL * c + CELL // 2
        letters = column_letters(c)
        labels.append(f'<text x="{x}" y="{MARGIN // 2}">{letters}</text>'
                      f'<text x="{x}" y="{bottom + MARGIN // 2}">{letters}</text>')
    for r in range(rows):
        y = MARGIN + CELL * r + CELL // 2
        labels.append(f'<text x="{MARGIN // 2}" y="{y}">{r}</text><text x="{right + MARGIN // 2}" y="{y}">{r}</text>')
    labels.append("</g>")
    out.extend(labels)

    if last_turn:
        for n, (c, r) in enumerate(board.last_placed()):
            out.append(_outline(MARGIN + CELL * c, MARGIN + CELL * r, dashed=n > 0))

    if draw is not None:
        out.append(f'<use href="#{_tile_id(draw, None)}" x="{MARGIN}" y="{2 * MARGIN + CELL * rows}"/>')
        if not board.reset_due:
            radius = RING - RING_WIDTH / 2
            for move in board.placements(draw):
                cx = MARGIN + CELL * move.column + CELL // 2
                cy = MARGIN + CELL * move.row + CELL // 2
                out.append(f'<circle cx="{cx}" cy="{cy}" r="{radius:g}" fill="none" '
                           f'stroke="{_hex("placement")}" stroke-width="{RING_WIDTH}"/>')
    out.append("</svg>")
    return "".join(out)
