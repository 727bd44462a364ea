"""The text diagrams players see in every mail (pbm.trax.render).

Golden files in ``golden/`` hold the exact diagrams of a few positions in
both styles; ``pytest --update-golden`` rewrites them (read the diff before
committing).  The other tests check what must hold for any position: the
diagram reads back as the position, the labels cover the empty ring, the
compact style fits in 78 columns.  Most draw with ``width=None`` (one band
however wide); the bands of columns a width brings are tested in
``test_render_bands.py``.
"""

from __future__ import annotations

import textwrap
from functools import partial
from pathlib import Path

import pytest

from pbm.app.compose import Renderer
from pbm.trax import Board, column_letters
from pbm.trax import render as render_module
from pbm.trax.render import COMPACT_BODY, FULL_INSIDE
from pbm.trax.render import render as render_plain

#: Diagrams as mail draws them: with the words of templates/partials/diagram-words.txt.
WORDS = Renderer().diagram_words
render = partial(render_plain, words=WORDS)

GAMES = Path(__file__).resolve().parent.parent / "data" / "human-games.tsv"


def human_games() -> list[tuple[str, list[str]]]:
    """(game number, moves) of every recorded game."""
    games = []
    for line in GAMES.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        games.append((fields[0], fields[4].split()))
    return games


def longest_game() -> list[str]:
    return max((moves for _, moves in human_games()), key=len)


def row_of_curves(width: int) -> Board:
    """A one-row formation ``width`` tiles wide: ``@0/`` then ``/`` tiles
    added at the right end.  (A row of straights would be a black line, which
    ends the game at 8 tiles.)"""
    board = Board.replay(["@0/"])
    for column in range(2, width + 1):
        board.play(f"{column_letters(column)}1/")
    assert board.width == width and board.outcome() is None
    return board


POSITIONS = {
    "empty": "",
    "after-at0-slash": "@0/",
    "after-at0-plus": "@0+",
    "small-position": "@0/ B1+ C1/ C2\\ @1+ A2/ A3/",
    "won-loop": "@0+ B1\\ B2/ A2+ A3/ A0\\ @3+ @3\\ B2+",
    "long-game": " ".join(longest_game()),
}

# positions whose last turn forced tiles, drawn with highlight_last=True
HIGHLIGHTED = {
    "forced-tiles": "@0/ B1+ C1/ C2\\ @1+ A2/ A3/ B3\\",
    "won-loop": POSITIONS["won-loop"],
}

STYLES = ("full", "compact")


def board_of(moves: str) -> Board:
    return Board.replay(moves.split(), "trax")


# ----------------------------------------------------------------------
# reading a diagram back


def gutter(board: Board) -> int:
    """Characters before the diagram proper: the widest row label and a blank."""
    return len(str(board.height + 1)) + 1


def read_full(board: Board, text: str) -> dict[tuple[int, int], tuple[int, str, tuple[str, ...]]]:
    """(column, row) -> (white mask read off the four sides, centre, inside
    lines) for every cell of a full diagram with a non-blank inside."""
    lines = text.splitlines()
    g = gutter(board)

    def at(y: int, x: int) -> str:
        line = lines[1 + y]
        return line[g + x] if g + x < len(line) else " "

    found = {}
    for row in range(board.height + 2):
        for column in range(board.width + 2):
            x, y = 6 * column, 4 * row
            inside = tuple("".join(at(y + k, x + i) for i in range(1, 6)) for k in (1, 2, 3))
            if not "".join(inside).strip():
                continue
            sides = (at(y, x + 3), at(y + 2, x + 6), at(y + 4, x + 3), at(y + 2, x))
            mask = sum(1 << d for d, mark in enumerate(sides) if mark == "o")
            assert set(sides) <= {"o", "#"}, (column, row, sides)
            for cx, cy in ((x, y), (x + 6, y), (x, y + 4), (x + 6, y + 4)):
                assert at(cy, cx) == "+", (column, row)
            found[(column, row)] = (mask, at(y + 2, x + 3), inside)
    return found


def read_compact(board: Board, text: str) -> dict[tuple[int, int], tuple[int, str]]:
    """(column, row) -> (white mask read off the marks around it, centre)
    for every cell of a compact diagram that is not an empty ``.``."""
    lines = text.splitlines()
    g = gutter(board)

    def at(y: int, x: int) -> str:
        if not 0 <= y < 2 * (board.height + 2) - 1:
            return " "
        line = lines[1 + y]
        return line[g + x] if g + x < len(line) else " "

    found = {}
    for row in range(board.height + 2):
        for column in range(board.width + 2):
            x, y = 3 * column, 2 * row
            centre = at(y, x + 1)
            if centre == ".":
                assert at(y, x) == at(y, x + 2) == " ", (column, row)
                continue
            sides = (at(y - 1, x + 1), at(y, x + 2), at(y + 1, x + 1), at(y, x))
            assert set(sides) <= {"o", "#"}, (column, row, sides)
            mask = sum(1 << d for d, mark in enumerate(sides) if mark == "o")
            found[(column, row)] = (mask, centre)
    return found


def final_positions() -> list[Board]:
    return [board_of(" ".join(moves)) for _, moves in human_games()]


@pytest.fixture(scope="module")
def recorded_positions() -> list[Board]:
    return final_positions()


# ----------------------------------------------------------------------
# golden files


@pytest.mark.parametrize("name", POSITIONS)
def test_full_diagram_matches_golden(golden, name):
    golden.check(f"{name}.full.txt", render(board_of(POSITIONS[name]), "full", width=None))


@pytest.mark.parametrize("name", POSITIONS)
def test_compact_diagram_matches_golden(golden, name):
    golden.check(f"{name}.compact.txt", render(board_of(POSITIONS[name]), "compact", width=None))


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("name", HIGHLIGHTED)
def test_diagram_with_the_last_turn_highlighted_matches_golden(golden, name, style):
    text = render(board_of(HIGHLIGHTED[name]), style, highlight_last=True, width=None)
    golden.check(f"{name}.{style}.highlighted.txt", text)


@pytest.mark.parametrize("name", POSITIONS)
def test_the_default_diagram_matches_golden(golden, name):
    """The default: auto style, lines of at most 78 characters."""
    golden.check(f"{name}.auto.txt", render(board_of(POSITIONS[name]), highlight_last=True))


def test_the_long_game_is_the_longest_recorded_one():
    board = board_of(POSITIONS["long-game"])
    assert board.ply == max(len(moves) for _, moves in human_games())
    assert board.width >= 10 and board.height >= 10


# ----------------------------------------------------------------------
# what every diagram shows


@pytest.mark.parametrize("style", STYLES)
def test_the_diagram_reads_back_as_the_position_for_every_recorded_game(recorded_positions, style):
    for board in recorded_positions:
        text = render(board, style, width=None)
        tiles = {(c, r): mask for c, r, mask in board.cells()}
        if style == "full":
            drawn = read_full(board, text)
            assert {cell: mask for cell, (mask, _, _) in drawn.items()} == tiles
            for mask, _, inside in drawn.values():
                assert inside == FULL_INSIDE[mask]
        else:
            drawn = read_compact(board, text)
            assert {cell: mask for cell, (mask, _) in drawn.items()} == tiles
            for mask, centre in drawn.values():
                assert centre == COMPACT_BODY[mask][1]


@pytest.mark.parametrize("style", STYLES)
def test_neighbouring_tiles_show_the_same_colour_on_their_shared_edge(style):
    # Reading back checks each tile's four sides against its own mask; a
    # shared edge is one character, so both tiles agree with it.
    board = board_of(POSITIONS["long-game"])
    tiles = {(c, r): mask for c, r, mask in board.cells()}
    text = render(board, style, width=None)
    drawn = read_full(board, text) if style == "full" else read_compact(board, text)
    shared = 0
    for c, r in tiles:
        right = tiles.get((c + 1, r))
        below = tiles.get((c, r + 1))
        if right is not None:
            assert (drawn[(c, r)][0] >> 1 & 1) == (drawn[(c + 1, r)][0] >> 3 & 1)
            shared += 1
        if below is not None:
            assert (drawn[(c, r)][0] >> 2 & 1) == (drawn[(c, r + 1)][0] & 1)
            shared += 1
    assert shared > 100


@pytest.mark.parametrize("style", STYLES)
def test_the_column_labels_run_from_the_at_column_to_the_one_past_the_right_edge(style):
    board = board_of(POSITIONS["small-position"])
    lines = render(board, style, legend=False).splitlines()
    expected = [column_letters(c) for c in range(board.width + 2)]
    assert expected[0] == "@" and expected[-1] == "E"
    assert lines[0].split() == expected
    assert lines[-1].split() == expected


@pytest.mark.parametrize("style", STYLES)
def test_the_row_labels_run_from_row_0_to_the_one_below_the_formation(style):
    board = board_of(POSITIONS["small-position"])
    lines = render(board, style, legend=False).splitlines()[1:-1]
    labelled = [line.split() for line in lines if line[:1].strip()]
    expected = [str(r) for r in range(board.height + 2)]
    assert expected[0] == "0" and expected[-1] == "4"
    assert [words[0] for words in labelled] == expected
    assert [words[-1] for words in labelled] == expected


def test_the_column_labels_stay_over_their_columns_past_z():
    board = row_of_curves(27)
    lines = render(board, "compact", legend=False, width=None).splitlines()
    labels = lines[0].split()
    assert labels[26:] == ["Z", "AA", "AB"]
    body = lines[3]  # row 1: the tiles
    g = gutter(board)
    assert lines[0][g + 3 * 27 + 1 : g + 3 * 27 + 3] == "AA"
    assert body[g + 3 * 27 : g + 3 * 27 + 3] in COMPACT_BODY.values()


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("name", POSITIONS)
def test_no_line_ends_in_a_blank(name, style):
    text = render(board_of(POSITIONS[name]), style, highlight_last=True)
    assert all(line == line.rstrip() for line in text.splitlines())
    assert not text.endswith("\n")


# ----------------------------------------------------------------------
# the compact style


@pytest.mark.parametrize("width", [20, 22])
def test_the_compact_diagram_of_a_board_22_tiles_wide_fits_in_78_columns(width):
    board = row_of_curves(width)
    text = render(board, "compact", highlight_last=True)
    assert "Columns" not in text
    assert max(len(line) for line in text.splitlines()) <= 78
    assert text.splitlines()[0].split()[-1] == column_letters(width + 1)


def test_the_compact_diagram_of_the_long_game_is_shorter_and_narrower_than_the_full_one():
    board = board_of(POSITIONS["long-game"])
    full = render(board, "full", width=None).splitlines()
    compact = render(board, "compact", width=None).splitlines()
    assert len(compact) < len(full) / 1.5
    assert max(map(len, compact)) <= 78 < max(map(len, full))


# ----------------------------------------------------------------------
# legend, highlight, the empty board, errors


@pytest.mark.parametrize("style", STYLES)
def test_the_legend_names_both_colours(style):
    text = render(board_of("@0/"), style)
    assert text.splitlines()[-1] == "o = white, # = black"


@pytest.mark.parametrize("style", STYLES)
def test_without_a_legend_the_diagram_ends_with_the_column_labels(style):
    lines = render(board_of("@0/"), style, legend=False).splitlines()
    assert lines[-1].split() == ["@", "A", "B"]
    assert "white" not in "\n".join(lines)


@pytest.mark.parametrize("style", STYLES)
def test_highlight_marks_the_chosen_tile_with_a_star_and_the_forced_ones_with_an_x(style):
    board = board_of(HIGHLIGHTED["forced-tiles"])
    placed = board.last_placed()
    assert len(placed) == 5
    text = render(board, style, highlight_last=True)
    drawn = read_full(board, text) if style == "full" else read_compact(board, text)
    centres = {cell: found[1] for cell, found in drawn.items()}
    assert centres[placed[0]] == "*"
    assert all(centres[cell] == "x" for cell in placed[1:])
    marked = {cell for cell, centre in centres.items() if centre in "*x"}
    assert marked == set(placed)
    assert text.splitlines()[-1] == (
        "o = white, # = black, * = last move (B3\\), x = tiles it forced"
    )


def test_highlight_without_forced_tiles_mentions_only_the_last_move():
    text = render(board_of("@0/ A2+"), highlight_last=True)
    assert text.splitlines()[-1] == "o = white, # = black, * = last move (A2+)"
    diagram = "\n".join(text.splitlines()[:-1])
    assert diagram.count("*") == 1 and "x" not in diagram


def test_highlight_on_the_empty_board_marks_nothing():
    assert render(Board(), highlight_last=True) == render(Board())


@pytest.mark.parametrize("style", STYLES)
def test_the_empty_board_shows_cell_at0_and_says_what_the_first_move_is(style):
    lines = render(Board(), style).splitlines()
    assert lines[0].split() == ["@"]
    assert [line.split()[0] for line in lines[1:-3] if line[:1].strip()] == ["0"]
    assert lines[-2] == "The board is empty: the first move is @0+ or @0/."
    assert "empty" not in render(Board(), style, hint=False)
    for move in ("@0+", "@0/"):
        Board().play(move)  # the hint names real first moves


def test_an_unknown_style_raises_value_error():
    with pytest.raises(ValueError, match="unknown diagram style 'huge'"):
        render(board_of("@0/"), "huge")


def test_str_of_a_board_is_its_full_diagram():
    board = board_of(POSITIONS["small-position"])
    assert str(board) == render_plain(board, "full", legend=True)  # str() has no words


# ----------------------------------------------------------------------
# the module docstring is the players' documentation: keep it true


@pytest.mark.parametrize("style", STYLES)
def test_the_module_docstring_example_is_what_render_draws(style):
    example = textwrap.indent(render(board_of("@0/ A2+"), style), " " * 8)
    assert example in render_module.__doc__


class OneTile:
    """Just enough of a board to draw a single tile of any colouring."""

    width = height = tile_count = 1
    moves = ()

    def __init__(self, mask: int) -> None:
        self.mask = mask

    def cells(self):
        yield 1, 1, self.mask

    def last_placed(self):
        return []


def docstring_block(first_line: str, height: int) -> list[str]:
    doc = render_module.__doc__.splitlines()
    start = next(i for i, line in enumerate(doc) if line.startswith(first_line))
    return doc[start : start + height]


MASK_ORDER = (5, 10, 9, 6, 3, 12)


def test_the_six_full_tiles_in_the_module_docstring_are_what_render_draws():
    block = docstring_block("        +--o--+  +--#--+  +--o--+", 6)
    for k, mask in enumerate(MASK_ORDER):
        lines = [line.ljust(40) for line in render(OneTile(mask), "full", legend=False).splitlines()]
        drawn = [line[8:15] for line in lines[5:10]]
        shown = [line[8 + 9 * k : 15 + 9 * k] for line in block[:5]]
        assert drawn == shown, mask
        assert block[5][8 + 9 * k : 15 + 9 * k].strip() == {5: "+", 10: "+", 9: "/", 6: "/"}.get(
            mask, "\\"
        )


def test_the_six_compact_tiles_in_the_module_docstring_are_what_render_draws():
    block = docstring_block("         o    #    o    #    o    #", 3)
    for k, mask in enumerate(MASK_ORDER):
        lines = [line.ljust(40) for line in render(OneTile(mask), "compact", legend=False).splitlines()]
        drawn = [lines[2][5:8], lines[3][5:8], lines[4][5:8]]
        shown = [line.ljust(40)[8 + 5 * k : 11 + 5 * k] for line in block]
        assert drawn == shown, mask


def test_without_words_a_diagram_says_nothing():
    """The engine holds no sentence: the words are its caller's."""
    board = board_of("@0/ A2+")
    plain = render_plain(board, "full", highlight_last=True)
    worded = render(board, "full", highlight_last=True)
    assert worded.startswith(plain + "\n") and "white" in worded.split(plain)[1]
    assert render_plain(Board(), "full") == "\n".join(render(Board(), "full").splitlines()[:-2])
    wide = Board.replay(longest_game())
    assert any(line.startswith("Columns") for line in render(wide, "full").splitlines())
    assert not any(line.startswith("Columns") for line in render_plain(wide, "full").splitlines())
