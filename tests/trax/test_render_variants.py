"""Text diagrams of the newer game types: a single tile (``tile_diagram``,
LuckyTrax's drawn face), passes, a cleared PointTrax area, MiniTrax."""

from __future__ import annotations

import pytest

from pbm.trax import Board
from pbm.trax.render import FULL_INSIDE, tile_diagram

from .test_minitrax import LAST as MINI_LAST
from .test_pointtrax import LINE
from .test_render import board_of, render

# The six faces drawn alone, as the full style draws a tile.
TILES = {
    5: ["+--o--+",
        "|  o  |",
        "###o###",
        "|  o  |",
        "+--o--+"],
    10: ["+--#--+",
         "|  #  |",
         "ooooooo",
         "|  #  |",
         "+--#--+"],
    9: ["+--o--+",
        "| o   |",
        "oo   ##",
        "|   # |",
        "+--#--+"],
    6: ["+--#--+",
        "| #   |",
        "##   oo",
        "|   o |",
        "+--o--+"],
    3: ["+--o--+",
        "|   o |",
        "##   oo",
        "| #   |",
        "+--#--+"],
    12: ["+--#--+",
         "|   # |",
         "oo   ##",
         "| o   |",
         "+--o--+"],
}


@pytest.mark.parametrize("face", sorted(TILES))
def test_a_single_tile_is_drawn_as_in_the_full_style(face):
    assert tile_diagram(face) == "\n".join(TILES[face])


@pytest.mark.parametrize(("moves", "face"), [("@0+", 5), ("@0/", 9)])
def test_the_single_tile_is_the_tile_of_a_board_diagram(moves, face):
    lines = render(board_of(moves), "full", legend=False, hint=False).split("\n")
    top = next(n for n, line in enumerate(lines) if "+--" in line)
    left = lines[top].index("+--")
    assert [line[left:left + 7] for line in lines[top:top + 5]] == tile_diagram(face).split("\n")


def test_every_line_of_a_single_tile_is_seven_characters():
    for face in TILES:
        assert [len(line) for line in tile_diagram(face).split("\n")] == [7] * 5
        assert [line[1:-1] for line in tile_diagram(face).split("\n")[1:4:2]] == [FULL_INSIDE[face][0],
                                                                                 FULL_INSIDE[face][2]]


def test_the_single_tile_shows_its_side_colours():
    for face in TILES:
        lines = tile_diagram(face).split("\n")
        top, right, bottom, left = lines[0][3], lines[2][6], lines[4][3], lines[2][0]
        for side, mark in enumerate((top, right, bottom, left)):
            assert mark == ("o" if face >> side & 1 else "#"), (face, side)


@pytest.mark.parametrize("bad", [0, 1, 4, 15, 16, -5, True])
def test_a_non_face_is_refused(bad):
    with pytest.raises(ValueError, match="face"):
        tile_diagram(bad)


# ----------------------------------------------------------------------
# boards of the newer game types


def test_a_lucky_board_with_passes_draws_as_its_tiles():
    board = Board.replay(["@0/", "pass", "A2+", "pass"], "luckytrax")
    for style in ("full", "compact"):
        assert render(board, style) == render(board_of("@0/ A2+"), style)
    marked = render(board, "compact", highlight_last=True)
    assert "*" not in marked and marked.endswith("o = white, # = black, last move: pass")
    after_tile = render(board.after(3), "compact", highlight_last=True)
    assert "*" in after_tile and after_tile.endswith("* = last move (A2+)")


def test_a_point_trax_line_is_drawn_until_the_next_move_starts_the_fresh_area():
    board = Board.replay(LINE.split(), "pointtrax")
    assert render(board, highlight_last=True) == render(board_of(LINE), highlight_last=True)
    board.play("@0/")
    assert render(board) == render(board_of("@0/"))
    assert render(board, "compact", highlight_last=True).endswith("* = last move (@0/)")


def test_a_minitrax_board_draws_like_any_other():
    board = Board.replay(MINI_LAST.split(), "minitrax")
    assert board.outcome() is not None
    text = render(board, "full")
    assert len(text.split("\n")) == 1 + 4 * 5 + 1 + 1 + 1  # labels, 5 rows of cells, closing line, labels, legend
