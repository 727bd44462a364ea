r"""Text diagrams of a Trax position, for mails and terminals.

Pure: :func:`render` takes a board and returns text; standard library only.

Every style draws the formation with a ring of empty cells around it: the
``@`` column on the left, row ``0`` on top, and the empty column and row past
the right and bottom edges.  Column letters run above and below the
diagram and row numbers left and right of it, so the coordinates of the next
move (new notation, read before the move) can be read straight off the
picture.  White track is drawn ``o``, black track ``#``.  Lines carry no
trailing blanks.

``"full"`` style (the diagram style of the classic Trax FAQ)
    Every cell is 6 characters wide and 4 lines tall and shares its border
    with its neighbours.  A tile has ``+`` corners, and the colour of the
    track crossing each of its sides in the middle of that side; inside, the
    tracks run from side to side.  On a straight the white track is drawn
    over the black one (the centre is always ``o``).  The six tiles (white
    masks 5, 10, 9, 6, 3 and 12, see :mod:`.tiles`) and their symbols::

        +--o--+  +--#--+  +--o--+  +--#--+  +--o--+  +--#--+
        |  o  |  |  #  |  | o   |  | #   |  |   o |  |   # |
        ###o###  ooooooo  oo   ##  ##   oo  ##   oo  oo   ##
        |  o  |  |  #  |  |   # |  |   o |  | #   |  | o   |
        +--o--+  +--#--+  +--#--+  +--o--+  +--#--+  +--o--+
          +        +        /        /        \        \

    An empty cell has a blank inside; its sides are drawn only where it
    touches a tile, and a corner that touches no tile is a ``.``, so the
    empty ring is a lattice of dots.  The position after ``@0/ A2+``::

             @     A     B
          .     .     .     .

        0                     0

          .     +--o--+     .
                | o   |
        1       oo   ##       1
                |   # |
          .     +--#--+     .
                |  #  |
        2       ooooooo       2
                |  #  |
          .     +--#--+     .

        3                     3

          .     .     .     .
             @     A     B
        o = white, # = black

``"compact"`` style (fits 78 columns up to 22 tiles wide)
    Every cell is 3 characters wide; each cell row is one *body* line, and
    the lines between bodies hold the colours of the horizontal edges, shared
    by the cells above and below.  A tile is drawn as its notation symbol in
    the middle of the body, flanked by the colours of its left and right
    sides, with the colours of its top and bottom sides above and below the
    symbol.  The same six tiles::

         o    #    o    #    o    #
        #+#  o+o  o/#  #/o  #\o  o\#
         o    #    #    o    #    o

    An empty cell is a ``.`` in the middle of its body.  The same position
    as above::

           @  A  B
        0  .  .  .  0
              o
        1  . o/# .  1
              #
        2  . o+o .  2
              #
        3  .  .  .  3
           @  A  B
        o = white, # = black

``"auto"`` style (the default)
    The full style when its lines fit the width, else the compact one.

No line is longer than ``width`` characters (78 by default: a mail's line).
A diagram wider than that is drawn in *bands* of columns: each band is a
complete diagram of some of the columns, all rows, with its own column
letters and row numbers, under a line naming its columns; bands are as even
in width as they can be and a blank line parts them.  The notes under the
diagram are wrapped to the width too.  The compact diagram of a row of
curves, ``render(board, "compact", width=24, highlight_last=True)``::

        Columns @ to C:
           @  A  B  C
        0  .  .  .  .  0
              o  #  o
        1  . o/##/oo/# 1
              #  o  #
        2  .  .  .  .  2
           @  A  B  C

        Columns D to G:
           D  E  F  G
        0  .  .  .  .  0
           #  o  #
        1 #/oo/##*o .  1
           o  #  o
        2  .  .  .  .  2
           D  E  F  G
        o = white, # = black,
        * = last move (F1/)

``width=None`` sets no limit: one band, however wide.

With ``highlight_last=True`` the tiles placed by the last turn are marked in
their centre: ``*`` on the tile the player chose and ``x`` on each tile it
forced, and the legend says so.  The edge colours around a marked tile still
say exactly which tile it is.

An empty board is drawn as the single cell ``@0`` with a line saying that
the first move is ``@0+`` or ``@0/`` (unless ``hint=False``).  A LuckyTrax
pass places nothing: with ``highlight_last=True`` after a pass, no tile is
marked and the legend says ``last move: pass``.

The words a diagram says (the line above a band, the hint, the legend) are
the caller's, a :class:`DiagramWords`: the application words them from
``templates/partials/diagram-words.txt`` (the examples here show those
words).  Without them a diagram is drawn with no words at all: no legend,
no hint, and its bands parted by a blank line alone.

:func:`tile_diagram` draws one tile on its own, as the full style draws it
(a LuckyTrax mail shows the face drawn for the player to move)::

    +--o--+
    | o   |
    oo   ##
    |   # |
    +--#--+
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Protocol

from .notation import PASS_WORD, column_letters
from .tiles import SYMBOL, E, N, S, W

WHITE_MARK = "o"
BLACK_MARK = "#"
CHOSEN_MARK = "*"
FORCED_MARK = "x"
EMPTY_MARK = "."

STYLES = ("auto", "full", "compact")

#: The longest line a diagram has by default: a mail's line.
WIDTH = 78



@dataclass(frozen=True)
class DiagramWords:
    """What a diagram says in words, given by its caller (the engine holds
    no sentence): ``band`` the line above a band (its first and last
    column), ``empty`` the hint under an empty board, and the parts of the
    legend: ``white`` and ``black`` (a mark), ``chosen`` (the mark and the
    last move), ``forced`` (the mark), ``passed`` (how a pass is written)."""

    band: Callable[[str, str], str]
    empty: Callable[[], str]
    white: Callable[[str], str]
    black: Callable[[str], str]
    chosen: Callable[[str, str], str]
    forced: Callable[[str], str]
    passed: Callable[[str], str]


class Drawable(Protocol):
    """What :func:`render` reads of a board: a :class:`~pbm.trax.Board`, or
    anything else that answers these (the tests draw single tiles)."""

    @property
    def width(self) -> int: ...

    @property
    def height(self) -> int: ...

    @property
    def tile_count(self) -> int: ...

    @property
    def moves(self) -> Sequence[object]: ...

    def cells(self) -> Iterable[tuple[int, int, int]]:
        """``(column, row, white mask)`` of every tile, columns and rows from 1."""
        ...

    def last_placed(self) -> Iterable[tuple[int, int]]:
        """(column, row) of the tiles the last turn placed, the chosen one first."""
        ...


def _colour(mask: int, side: int) -> str:
    """The mark of the track crossing ``side`` of the tile ``mask``."""
    return WHITE_MARK if mask >> side & 1 else BLACK_MARK


# ----------------------------------------------------------------------
# per-tile pictures

# The inside of a full-style cell (3 lines of 5 characters), by symbol; the
# letters N, E, S and W stand for the colour of the track crossing that side.
_FULL_TEMPLATES: Mapping[str, tuple[str, str, str]] = MappingProxyType({
    "+": ("  N  ", "WWoEE", "  S  "),
    "/": (" N   ", "W   E", "   S "),
    "\\": ("   N ", "W   E", " S   "),
})


def _fill(template: str, mask: int) -> str:
    for letter, side in (("N", N), ("E", E), ("S", S), ("W", W)):
        template = template.replace(letter, _colour(mask, side))
    return template


def _inside(mask: int) -> tuple[str, str, str]:
    top, middle, bottom = (_fill(line, mask) for line in _FULL_TEMPLATES[SYMBOL[mask]])
    return top, middle, bottom


def _sides(mask: int) -> tuple[str, str, str, str]:
    """The marks on the (top, right, bottom, left) sides of a tile."""
    return (_colour(mask, N), _colour(mask, E), _colour(mask, S), _colour(mask, W))


# mask -> the three inside lines of a full-style cell
FULL_INSIDE: Mapping[int, tuple[str, str, str]] = MappingProxyType({mask: _inside(mask) for mask in SYMBOL})

# mask -> the compact body: left side, symbol, right side
COMPACT_BODY: Mapping[int, str] = MappingProxyType({
    mask: _colour(mask, W) + symbol + _colour(mask, E) for mask, symbol in SYMBOL.items()
})

# mask -> (top, right, bottom, left) side marks
SIDES: Mapping[int, tuple[str, str, str, str]] = MappingProxyType({mask: _sides(mask) for mask in SYMBOL})


# ----------------------------------------------------------------------
# what is drawn: the formation and its empty ring


class _Picture:
    """The cells to draw: tiles by (column, row) and the drawn area.

    Columns run 0 .. ``columns - 1`` and rows 0 .. ``rows - 1`` (notation
    coordinates: column 0 is ``@``).
    """

    def __init__(self, board: Drawable, marks: dict[tuple[int, int], str]) -> None:
        self.tiles = {(c, r): mask for c, r, mask in board.cells()}
        if self.tiles:
            self.columns = board.width + 2
            self.rows = board.height + 2
        else:
            self.columns = self.rows = 1
        self.marks = marks

    def tile(self, column: int, row: int) -> int | None:
        return self.tiles.get((column, row))

    def edge_mark(self, first: tuple[int, int], second: tuple[int, int], side: int) -> str | None:
        """The colour on the edge between two cells, ``side`` being where the
        edge lies seen from ``first``; None when neither holds a tile."""
        mask = self.tiles.get(first)
        if mask is not None:
            return SIDES[mask][side]
        mask = self.tiles.get(second)
        if mask is not None:
            return SIDES[mask][(side + 2) % 4]
        return None

    def column_labels(self) -> list[str]:
        return [column_letters(c) for c in range(self.columns)]

    def row_labels(self) -> list[str]:
        return [str(r) for r in range(self.rows)]


def _last_turn_marks(board: Drawable) -> dict[tuple[int, int], str]:
    placed = board.last_placed()
    marks: dict[tuple[int, int], str] = {}
    for n, cell in enumerate(placed):
        marks[cell] = CHOSEN_MARK if n == 0 else FORCED_MARK
    return marks


def _label_line(labels: list[str], centres: list[int], width: int, indent: int) -> str:
    """Labels centred on the given canvas columns, behind ``indent`` blanks."""
    line = [" "] * width
    for label, centre in zip(labels, centres):
        start = max(0, centre - (len(label) - 1) // 2)
        for k, ch in enumerate(label):
            if start + k < width:
                line[start + k] = ch
    return (" " * indent + "".join(line)).rstrip()


@dataclass(frozen=True, slots=True)
class _Style:
    """How a style lays out its canvas: ``cell`` characters per column and
    ``extra`` after the last one (the full style's closing border), a
    column's centre ``centre`` characters from its start, and row ``r``'s
    body on canvas line ``row_step * r + row_offset``."""

    canvas: Callable[[_Picture], list[str]]
    cell: int
    extra: int
    centre: int
    row_step: int
    row_offset: int

    def gutter(self, picture: _Picture) -> int:
        """The width of the row labels (the widest is the last row's)."""
        return len(str(picture.rows - 1))

    def line_width(self, picture: _Picture, columns: int) -> int:
        """The longest line of a diagram of ``columns`` columns: a row label,
        a blank, the canvas, a blank and the row label again."""
        return 2 * self.gutter(picture) + 2 + self.cell * columns + self.extra


def _frame(canvas: list[str], picture: _Picture, style: _Style, first: int, last: int) -> list[str]:
    """Columns ``first`` to ``last`` of the canvas (its lines) with their
    column labels above and below and row labels on both sides of each row's
    body line."""
    total = style.cell * picture.columns + style.extra
    start, stop = style.cell * first, style.cell * (last + 1) + style.extra
    width = stop - start
    rows = picture.row_labels()
    gutter = style.gutter(picture)
    by_line = {style.row_step * r + style.row_offset: label for r, label in enumerate(rows)}
    labels = picture.column_labels()[first:last + 1]
    centres = [style.cell * (c - first) + style.centre for c in range(first, last + 1)]
    head = _label_line(labels, centres, width, gutter + 1)
    out = [head]
    for y, line in enumerate(canvas):
        label = by_line.get(y)
        text = line.ljust(total)[start:stop]
        if label is None:
            out.append((" " * (gutter + 1) + text).rstrip())
        else:
            out.append(f"{label:>{gutter}} {text} {label}".rstrip())
    out.append(head)
    return out


# ----------------------------------------------------------------------
# full style

_CELL_W, _CELL_H = 6, 4
_BLANK = " " * (_CELL_W - 1)

# The 6-character pieces lines are joined from.  Along the top of a cell:
# mask -> a corner and the tile's top side ("+--o--"), or the bottom side
# of the tile above an empty cell.
_TOP_PIECE = MappingProxyType({mask: "+--" + sides[0] + "--" for mask, sides in SIDES.items()})
_BOTTOM_PIECE = MappingProxyType({mask: "+--" + sides[2] + "--" for mask, sides in SIDES.items()})
# Through a cell, its three lines: mask -> the tile's left side and inside;
# and for an empty cell, the right side of the tile on its left.
_TILE_PIECES = MappingProxyType({mask: ("|" + inside[0], SIDES[mask][3] + inside[1], "|" + inside[2])
                                 for mask, inside in FULL_INSIDE.items()})
_AFTER_PIECES = MappingProxyType({mask: ("|" + _BLANK, SIDES[mask][1] + _BLANK, "|" + _BLANK) for mask in SIDES})
_EMPTY_PIECE = " " + _BLANK


def _full(picture: _Picture) -> list[str]:
    # Line by line, joining prepared pieces, one per cell: a long game's
    # board is large, and that is what Python does fast.  A tile draws its
    # top and left sides; its bottom and right ones are drawn by the empty
    # cell beyond them (the line along that cell's top, the piece on its
    # left), or by the line or column after the last.
    cols, rows = picture.columns, picture.rows
    grid: list[list[int | None]] = [[None] * cols for _ in range(rows + 1)]  # a last row of nothing
    for (c, r), mask in picture.tiles.items():
        grid[r][c] = mask
    marks = picture.marks
    lines = []
    above = grid[rows]
    for r in range(rows + 1):
        here_row = grid[r]
        # along the top of row r: per column a lattice point ("+" where it
        # touches a tile, else ".") and the side between the two cells
        pieces = []
        before = False  # a tile left of the lattice point, in row r - 1 or r
        for here, up in zip(here_row, above):
            if here is not None:
                pieces.append(_TOP_PIECE[here])
                before = True
            elif up is not None:
                pieces.append(_BOTTOM_PIECE[up])
                before = True
            else:
                pieces.append(("+" if before else EMPTY_MARK) + _BLANK)
                before = False
        pieces.append("+" if before else EMPTY_MARK)
        lines.append("".join(pieces))
        if r == rows:
            break
        # the three lines through row r
        top, middle, bottom = [], [], []
        left = None
        for here in here_row:
            if here is not None:
                one, two, three = _TILE_PIECES[here]
            elif left is not None:
                one, two, three = _AFTER_PIECES[left]
            else:
                one = two = three = _EMPTY_PIECE
            top.append(one)
            middle.append(two)
            bottom.append(three)
            left = here
        if left is not None:
            top.append("|")
            middle.append(SIDES[left][1])
            bottom.append("|")
        for (c, row), mark in marks.items():  # the last turn's tiles, in their centre
            if row == r:
                middle[c] = middle[c][:3] + mark + middle[c][4:]
        lines += ["".join(top), "".join(middle), "".join(bottom)]
        above = here_row
    return lines


# ----------------------------------------------------------------------
# compact style


def _compact(picture: _Picture) -> list[str]:
    cols, rows = picture.columns, picture.rows
    canvas = [[" "] * (3 * cols) for _ in range(2 * rows + 1)]
    # edge lines: the colour of each horizontal edge under the cell's middle
    for r in range(rows + 1):
        for c in range(cols):
            mark = picture.edge_mark((c, r), (c, r - 1), N)
            if mark is not None:
                canvas[2 * r][3 * c + 1] = mark
    # bodies
    for r in range(rows):
        line = canvas[2 * r + 1]
        for c in range(cols):
            mask = picture.tile(c, r)
            if mask is None:
                line[3 * c + 1] = EMPTY_MARK
                continue
            line[3 * c:3 * c + 3] = list(COMPACT_BODY[mask])
            mark = picture.marks.get((c, r))
            if mark:
                line[3 * c + 1] = mark
    # The first and last edge lines touch no tile: they are always blank.
    # Dropping them keeps the diagram short; the ring cells keep their dots.
    canvas = canvas[1:-1]
    return ["".join(line) for line in canvas]


_STYLES = MappingProxyType({
    "full": _Style(_full, _CELL_W, 1, 3, _CELL_H, 2),
    "compact": _Style(_compact, 3, 0, 1, 2, 0),
})


# ----------------------------------------------------------------------
# bands of columns


def _bands(picture: _Picture, style: _Style, width: int | None) -> list[tuple[int, int]]:
    """(first, last) column of each band: one band when the diagram fits
    ``width`` (or there is no limit), else as few bands as fit, as even in
    size as they can be, each at least one column."""
    columns = picture.columns
    if width is None or style.line_width(picture, columns) <= width:
        return [(0, columns - 1)]
    most = max(1, (width - style.line_width(picture, 0)) // style.cell)
    count = -(-columns // most)
    size, bigger = divmod(columns, count)
    bands = []
    first = 0
    for n in range(count):
        last = first + size + (n < bigger) - 1
        bands.append((first, last))
        first = last + 1
    return bands


# ----------------------------------------------------------------------
# notes under the diagram


def _wrap(parts: list[str], width: int | None, joint: str) -> list[str]:
    """``parts`` joined with ``joint`` into lines of at most ``width``
    characters; a line broken after a part keeps the joint's mark (the comma
    of ``", "``).  A part too long for a line is broken between its words."""
    if width is None:
        return [joint.join(parts)]
    mark = joint.rstrip()
    lines: list[str] = []
    line = ""
    for n, part in enumerate(parts):
        end = "" if n == len(parts) - 1 else mark
        if line and len(line) + len(joint) + len(part) + len(end) <= width:
            line += joint + part
            continue
        if line:
            lines.append(line + mark)
        if len(part) + len(end) > width and " " in part:
            *whole, line = _wrap(part.split(" "), width - len(end), " ")
            lines += whole
        else:
            line = part
    if line:
        lines.append(line)
    return lines


def _notes(board: Drawable, legend: bool, marks: dict[tuple[int, int], str], hint: bool,
           width: int | None, highlight_last: bool, words: DiagramWords | None) -> list[str]:
    out: list[str] = []
    if words is None:
        return out
    if hint and not board.tile_count:
        out += _wrap(words.empty().split(" "), width, " ")
    if legend:
        parts = [words.white(WHITE_MARK), words.black(BLACK_MARK)]
        if marks:
            parts.append(words.chosen(CHOSEN_MARK, str(board.moves[-1])))
            if FORCED_MARK in marks.values():
                parts.append(words.forced(FORCED_MARK))
        elif highlight_last and board.moves and str(board.moves[-1]) == PASS_WORD:
            parts.append(words.passed(PASS_WORD))
        out += _wrap(parts, width, ", ")
    return out


def tile_diagram(face: int) -> str:
    """One tile (a white mask: 5, 10, 9, 6, 3 or 12; see :mod:`.tiles`)
    drawn as the full style draws it: 5 lines of 7 characters, with its
    corners, the colour of the track crossing each side, and the tracks
    inside; no labels and no legend.  ``ValueError`` for anything else."""
    if isinstance(face, bool) or face not in SIDES:
        raise ValueError(f"{face!r} is not a tile face; the faces are the white masks 5, 10, 9, 6, 3 and 12")
    top, right, bottom, left = SIDES[face]
    one, two, three = FULL_INSIDE[face]
    return "\n".join((f"+--{top}--+", f"|{one}|", f"{left}{two}{right}", f"|{three}|", f"+--{bottom}--+"))


def render(board: Drawable, style: str = "auto", *, width: int | None = WIDTH, legend: bool = True,
           highlight_last: bool = False, hint: bool = True, words: DiagramWords | None = None) -> str:
    """The position drawn as text (see the module docstring for the styles).

    ``style`` is ``"full"`` (large, one tile a 6x4 cell), ``"compact"`` (3
    characters a tile) or ``"auto"``: full when it fits ``width``, else
    compact.  No line is longer than ``width`` characters (78 by default, a
    mail's line): a diagram too wide for it is drawn in bands of columns,
    each a complete diagram of some columns under a ``Columns @ to T:``
    line, and the notes are wrapped.  (A width too small for even one
    column and its row labels, under about 12, draws one column a band.)
    ``width=None`` sets no limit (auto is then always full).

    ``legend`` adds a line naming the colour of each mark (``o`` white,
    ``#`` black).  ``highlight_last`` marks the tiles the last turn placed:
    ``*`` in the centre of the tile the player chose, ``x`` in the centre of
    each tile it forced; the legend then names the last move.  ``hint``
    says, under an empty board, what the first move is (a caller leaves it
    out where no move is to come, e.g. a game decided before its first move).
    ``words`` says all of these, and the line above each band; without it
    (None) the diagram has no words: no legend, no hint, no band's line.

    Lines are joined with newlines, with no newline after the last one and
    no trailing blanks.  Raises ``ValueError`` for an unknown style.
    """
    if style not in STYLES:
        known = ", ".join(repr(s) for s in STYLES)
        raise ValueError(f"unknown diagram style {style!r}; the styles are {known}")
    marks = _last_turn_marks(board) if highlight_last else {}
    picture = _Picture(board, marks)
    if style == "auto":
        full = _STYLES["full"]
        style = "full" if width is None or full.line_width(picture, picture.columns) <= width else "compact"
    chosen = _STYLES[style]
    canvas = chosen.canvas(picture)
    bands = _bands(picture, chosen, width)
    if len(bands) == 1:
        lines = _frame(canvas, picture, chosen, *bands[0])
    else:
        lines = []
        for first, last in bands:
            if lines:
                lines.append("")
            if words is not None:
                lines.append(words.band(column_letters(first), column_letters(last)))
            lines += _frame(canvas, picture, chosen, first, last)
    lines += _notes(board, legend, marks, hint, width, highlight_last, words)
    return "\n".join(lines)
