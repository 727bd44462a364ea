"""Diagrams that never exceed a width (pbm.trax.render with ``width``).

Replies have no line longer than 78 characters.  The auto style (the
default) draws the full diagram when it fits, else the compact one; a
diagram wider than the width is drawn in bands of columns, each a complete
diagram of its columns under a ``Columns X to Y:`` line.  These tests read
every band back and check that each tile of the board is drawn exactly once,
that each band is labelled with its own columns and all the rows, and that no
line is too long, over random games and wide and tall formations.
"""

from __future__ import annotations

import itertools
import re
import textwrap
from functools import partial

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbm.app.compose import Renderer
from pbm.trax import Board, column_index, column_letters
from pbm.trax import render as render_module
from pbm.trax.render import COMPACT_BODY, FULL_INSIDE, WIDTH
from pbm.trax.render import render as render_plain

from .test_properties import FAST, games
from .test_render import HIGHLIGHTED, board_of, longest_game, row_of_curves

#: Diagrams as mail draws them: with the words of templates/partials/diagram-words.txt.
WORDS = Renderer().diagram_words
render = partial(render_plain, words=WORDS)

TITLE = re.compile(r"^Columns (@|[A-Z]+) to (@|[A-Z]+):$")


def frame_size(board: Board) -> tuple[int, int]:
    """(columns, rows) of the drawn area: the formation and its ring."""
    if not board.tile_count:
        return 1, 1
    return board.width + 2, board.height + 2


def canvas_height(board: Board, style: str) -> int:
    rows = frame_size(board)[1]
    return 4 * rows + 1 if style == "full" else 2 * rows - 1


def split_bands(board: Board, text: str, style: str) -> tuple[list[tuple[int, int, list[str]]], list[str]]:
    """The bands of a diagram, each (first column, last column, its lines
    from column labels to column labels), and the note lines after them."""
    lines = text.splitlines()
    size = canvas_height(board, style) + 2
    if not TITLE.match(lines[0]):
        return [(0, frame_size(board)[0] - 1, lines[:size])], lines[size:]
    bands = []
    at = 0
    while at < len(lines) and (found := TITLE.match(lines[at])):
        bands.append((column_index(found[1]), column_index(found[2]), lines[at + 1 : at + 1 + size]))
        at += 1 + size
        if at + 1 < len(lines) and lines[at] == "" and TITLE.match(lines[at + 1]):
            at += 1
    return bands, lines[at:]


def read_band(board: Board, style: str, first: int, last: int, lines: list[str]):
    """(column, row) -> (white mask read off its sides, centre) for every
    cell of the band drawn with a tile (not an empty ring cell)."""
    rows = frame_size(board)[1]
    g = len(str(rows - 1)) + 1
    cell = 6 if style == "full" else 3
    height = canvas_height(board, style)

    def at(y: int, x: int) -> str:
        if not 0 <= y < height:
            return " "
        line = lines[1 + y]
        return line[g + x] if 0 <= g + x < len(line) else " "

    found = {}
    for row in range(rows):
        for column in range(first, last + 1):
            x = cell * (column - first)
            if style == "full":
                y = 4 * row
                inside = ["".join(at(y + k, x + i) for i in range(1, 6)) for k in (1, 2, 3)]
                if not "".join(inside).strip():
                    continue
                sides = (at(y, x + 3), at(y + 2, x + 6), at(y + 4, x + 3), at(y + 2, x))
                centre = at(y + 2, x + 3)
            else:
                y = 2 * row
                centre = at(y, x + 1)
                if centre == ".":
                    continue
                sides = (at(y - 1, x + 1), at(y, x + 2), at(y + 1, x + 1), at(y, x))
            assert set(sides) <= {"o", "#"}, (column, row, sides)
            mask = sum(1 << d for d, mark in enumerate(sides) if mark == "o")
            assert (column, row) not in found
            found[(column, row)] = (mask, centre)
            if style == "full" and centre not in "*x":
                assert tuple(inside) == FULL_INSIDE[mask]
    return found


def style_drawn(board: Board, text: str) -> str:
    """Which style a diagram is in, told by the height of its first band."""
    lines = text.splitlines()
    first = 1 if TITLE.match(lines[0]) else 0
    head = lines[first]
    size = canvas_height(board, "compact") + 2
    return "compact" if len(lines) > first + size - 1 and lines[first + size - 1] == head else "full"


def check_diagram(board: Board, text: str, style: str, width: int | None, highlight: bool = False) -> int:
    """Everything a diagram must be; returns its number of bands."""
    lines = text.splitlines()
    if width is not None:
        assert max(len(line) for line in lines) <= width, max(lines, key=len)
    assert all(line == line.rstrip() for line in lines)
    bands, notes = split_bands(board, text, style)
    columns, rows = frame_size(board)
    # the bands run through all the columns in order, each under its own title
    assert bands[0][0] == 0 and bands[-1][1] == columns - 1
    for one, two in itertools.pairwise(bands):
        assert two[0] == one[1] + 1
    if len(bands) > 1:
        sizes = [last - first + 1 for first, last, _ in bands]
        assert max(sizes) - min(sizes) <= 1
        assert text.count("Columns ") == len(bands)
        for first, last, _ in bands:
            assert WORDS.band(column_letters(first), column_letters(last)) in lines
    g = len(str(rows - 1))
    drawn: dict[tuple[int, int], tuple[int, str]] = {}
    for first, last, band in bands:
        letters = [column_letters(c) for c in range(first, last + 1)]
        assert band[0].split() == letters and band[-1].split() == letters
        labelled = [line.split() for line in band[1:-1] if line[:g].strip()]
        assert [words[0] for words in labelled] == [str(r) for r in range(rows)]
        assert [words[-1] for words in labelled] == [str(r) for r in range(rows)]
        found = read_band(board, style, first, last, band)
        assert not set(found) & set(drawn), "a tile is drawn in two bands"
        drawn.update(found)
    tiles = {(c, r): mask for c, r, mask in board.cells()}
    assert {cell: mask for cell, (mask, _) in drawn.items()} == tiles
    marked = {cell: centre for cell, (_, centre) in drawn.items() if centre in "*x"}
    placed = board.last_placed() if highlight else []
    assert marked == {cell: "*" if n == 0 else "x" for n, cell in enumerate(placed)}
    if style == "compact":
        for cell, (mask, centre) in drawn.items():
            assert centre == COMPACT_BODY[mask][1] or cell in marked
    # the notes: the legend, wrapped to the width
    if not board.tile_count:
        assert " ".join(notes).startswith("The board is empty: the first move is @0+ or @0/.")
    assert notes and "o = white" in " ".join(notes)
    return len(bands)


# ----------------------------------------------------------------------
# boards to draw


def straights(variant: str, across: int, down: int) -> Board:
    """A row of ``across`` straights (a black track along row 1) with a
    column of ``down`` more straights (white) hanging from its first tile;
    in looptrax neither is a win."""
    board = Board(variant)
    board.play("@0+")
    for column in range(2, across + 1):
        board.play(f"{column_letters(column)}1+")
    for row in range(2, down + 2):
        board.play(f"A{row}+")
    return board


@st.composite
def wide_boards(draw) -> Board:
    """A looptrax formation 1 to 70 columns wide and 1 to 120 rows tall
    (row numbers of three digits), with some random moves after."""
    board = straights("looptrax", draw(st.integers(1, 70)), draw(st.integers(0, 120)))
    for _ in range(draw(st.integers(0, 15))):
        moves = board.legal_moves()
        if not moves:
            break
        board.play(moves[draw(st.integers(0, len(moves) - 1))])
    return board


BOARDS = st.one_of(games(max_moves=60), wide_boards())


# ----------------------------------------------------------------------
# properties


@FAST
@given(BOARDS, st.booleans())
def test_the_default_diagram_fits_78_columns_and_shows_every_tile_once(board, highlight):
    text = render(board, highlight_last=highlight)
    style = style_drawn(board, text)
    check_diagram(board, text, style, WIDTH, highlight)
    full = render(board, "full", width=None, highlight_last=highlight)
    if max(len(line) for line in full.splitlines()) <= WIDTH:
        assert text == full
    else:
        assert style == "compact"
        compact = render(board, "compact", width=None, highlight_last=highlight)
        if max(len(line) for line in compact.splitlines()) <= WIDTH:
            assert text == compact


@FAST
@given(BOARDS, st.sampled_from(["full", "compact"]), st.integers(20, 160), st.booleans())
def test_any_style_fits_any_width_in_bands(board, style, width, highlight):
    text = render(board, style, width=width, highlight_last=highlight)
    bands = check_diagram(board, text, style, width, highlight)
    unlimited = render(board, style, width=None, highlight_last=highlight, legend=False, hint=False)
    if max(len(line) for line in unlimited.splitlines()) <= width:
        assert bands == 1 and text.startswith(unlimited + "\n")
    else:
        assert bands > 1


@FAST
@given(BOARDS)
def test_without_a_limit_there_is_one_band(board):
    for style in ("full", "compact"):
        text = render(board, style, width=None)
        assert check_diagram(board, text, style, None) == 1
    assert render(board, width=None) == render(board, "full", width=None)


# ----------------------------------------------------------------------
# examples


def test_a_formation_30_columns_wide_is_drawn_compact_in_two_even_bands():
    board = straights("looptrax", 30, 3)
    text = render(board, highlight_last=True)
    lines = text.splitlines()
    # 32 columns with the ring; rows 0 to 5 leave 24 columns a band
    assert lines[0] == "Columns @ to O:"
    assert "Columns P to AE:" in lines
    assert lines[lines.index("Columns P to AE:") - 1] == ""
    assert check_diagram(board, text, "compact", 78, True) == 2
    assert max(map(len, lines)) <= 78


def test_a_formation_11_columns_wide_is_drawn_compact_as_the_full_diagram_is_too_wide():
    board = row_of_curves(11)
    assert max(len(line) for line in render(board, "full", width=None).splitlines()) > 78
    text = render(board)
    assert text == render(board, "compact")
    assert "Columns" not in text


def test_the_longest_recorded_game_fits():
    board = board_of(" ".join(longest_game()))
    text = render(board, highlight_last=True)
    assert max(map(len, text.splitlines())) <= 78
    check_diagram(board, text, style_drawn(board, text), 78, True)


def test_full_style_bands_share_the_border_between_them():
    board = row_of_curves(12)
    text = render(board, "full", width=50)  # 14 columns, at most 7 a band
    bands, _ = split_bands(board, text, "full")
    assert [(first, last) for first, last, _ in bands] == [(0, 6), (7, 13)]
    # the last column of a band ends with the border the next band starts with
    for (_, _, one), (_, _, two) in itertools.pairwise(bands):
        row_1 = next(line for line in one if line.startswith("1 "))
        row_1_next = next(line for line in two if line.startswith("1 "))
        assert row_1.split()[-2][-1] == row_1_next.split()[1][0]


def test_an_unknown_style_is_still_refused():
    with pytest.raises(ValueError, match="'auto', 'full', 'compact'"):
        render(Board(), "wide")


# ----------------------------------------------------------------------
# the notes


@pytest.mark.parametrize("width", [20, 30, 40, 78])
def test_the_legend_is_wrapped_to_the_width(width):
    board = board_of(HIGHLIGHTED["forced-tiles"])
    text = render(board, "compact", width=width, highlight_last=True)
    _, notes = split_bands(board, text, "compact")
    assert all(len(line) <= width for line in text.splitlines())
    assert " ".join(notes) == "o = white, # = black, * = last move (B3\\), x = tiles it forced"
    assert (len(notes) == 1) == (width >= 64)


def test_the_empty_board_hint_fits_and_can_be_left_out():
    for width in (20, 30, 78):
        text = render(Board(), width=width)
        assert all(len(line) <= width for line in text.splitlines())
        assert "The board is empty: the first move is @0+ or @0/." in " ".join(text.splitlines())
    assert render(Board(), hint=False) == render(Board(), hint=False, legend=True)
    assert "empty" not in render(Board(), hint=False)
    assert render(Board(), hint=False, legend=False).splitlines()[-1].split() == ["@"]


def test_the_band_example_in_the_module_docstring_is_what_render_draws():
    board = board_of("@0/ B1/ C1/ D1/ E1/ F1/")
    example = textwrap.indent(render(board, "compact", width=24, highlight_last=True), " " * 8)
    assert example in render_module.__doc__
