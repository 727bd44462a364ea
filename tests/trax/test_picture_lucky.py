"""The board picture with LuckyTrax's draw (``board_png(board, draw=face)``):
the drawn face in a strip under the board, and a green ring in every cell
it can go.  Also pictures of boards with passes and of a cleared PointTrax
area.  Checked pixel by pixel, as in test_picture.py."""

from __future__ import annotations

import pytest

from pbm.trax import Board
from pbm.trax.picture import (
    CELL,
    COLOURS,
    INDEX,
    MARGIN,
    PALETTE,
    RING,
    STRIP,
    board_png,
    cell_box,
    draw_box,
    picture_size,
)

from .test_luckytrax import AFTER_ONE
from .test_picture import decode, mask_of, outside, side_point
from .test_pointtrax import LINE

FACES = (5, 10, 9, 6, 3, 12)


def lucky(moves: str = "") -> Board:
    return Board.replay(moves.split(), "luckytrax")


def rings(board: Board, face: int):
    image = decode(board_png(board, draw=face))
    return image, mask_of(image, INDEX["placement"])


def test_the_ring_colour_is_a_palette_entry_of_its_own():
    assert "placement" in INDEX and PALETTE[INDEX["placement"]] == COLOURS["placement"]
    assert PALETTE.count(COLOURS["placement"]) == 1
    # no picture without a draw uses it
    image = decode(board_png(lucky("@0/ B1+ C1/")))
    assert mask_of(image, INDEX["placement"]).getbbox() is None


def test_the_picture_grows_a_strip_and_the_cells_keep_their_boxes():
    board = lucky("@0/ B1+")
    plain = decode(board_png(board))
    drawn = decode(board_png(board, draw=6))
    width, height = plain.size
    assert drawn.size == picture_size(board, draw=6) == (width, height + STRIP)
    assert picture_size(board) == plain.size
    # everything above the strip is the picture without the draw, but the rings
    top = drawn.crop((0, 0, width, height))
    changed = [(x, y) for y in range(height) for x in range(width)
               if top.getpixel((x, y)) != plain.getpixel((x, y))]
    assert changed and all(top.getpixel(p) == INDEX["placement"] for p in changed)
    assert cell_box(board, 1, 1) == (MARGIN + CELL, MARGIN + CELL, MARGIN + 2 * CELL, MARGIN + 2 * CELL)


def test_without_a_draw_the_picture_is_unchanged():
    board = lucky("@0/ B1+ C1/")
    assert board_png(board, draw=None) == board_png(board)


@pytest.mark.parametrize("face", FACES)
def test_the_strip_shows_the_drawn_face_with_its_side_colours(face):
    board = lucky("@0/")
    image = decode(board_png(board, draw=face))
    pixels = image.load()
    box = draw_box(board)
    assert box[1] == picture_size(board)[1]  # right under the picture without the strip
    assert box[3] <= image.size[1]
    for side in range(4):
        expected = INDEX["white"] if face >> side & 1 else INDEX["red"]
        assert pixels[side_point(box, side)] == expected, (face, side)


@pytest.mark.parametrize("face", FACES)
def test_a_ring_marks_each_cell_the_face_can_go_and_no_other(face):
    # the placements after @0/ were worked out by hand in test_luckytrax.py
    board = lucky("@0/")
    _, ring = rings(board, face)
    expected = [board.parse_move(name) for name in AFTER_ONE[face]]
    assert [(m.column, m.row) for m in board.placements(face)] == [(m.column, m.row) for m in expected]
    boxes = [cell_box(board, m.column, m.row) for m in expected]
    for box in boxes:
        assert ring.crop(box).getbbox() is not None
        # a small ring in the middle of the cell, its centre open
        x0, y0, x1, y1 = box
        cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
        assert ring.getpixel((cx, cy)) == 0
        assert ring.crop((cx - RING, cy - RING, cx + RING, cy + RING)).getbbox() == (0, 0, 2 * RING, 2 * RING)
    assert outside(ring, boxes) is None


def test_a_face_that_fits_nowhere_has_no_ring_but_is_shown():
    board = lucky("@0/")
    assert board.placements(9) == []
    image, ring = rings(board, 9)
    assert ring.getbbox() is None
    tile = image.crop(draw_box(board))
    assert INDEX["white"] in {i for _, i in tile.getcolors()}


def test_the_empty_board_rings_the_first_cell():
    board = lucky()
    image, ring = rings(board, 10)
    assert image.size == (2 * MARGIN + CELL, 2 * MARGIN + CELL + STRIP)
    assert outside(ring, [cell_box(board, 0, 0)]) is None
    assert ring.crop(cell_box(board, 0, 0)).getbbox() is not None


def test_an_unknown_face_is_refused():
    with pytest.raises(ValueError, match="face"):
        board_png(lucky("@0/"), draw=7)


def test_pictures_after_passes_have_no_outlines():
    for moves in ("@0/ pass", "pass", "pass pass"):
        board = lucky(moves)
        image = decode(board_png(board))
        assert image.size == picture_size(board)
        assert mask_of(image, INDEX["chosen"], INDEX["forced"]).getbbox() is None
    # a pass on a board with tiles: the same picture as the board without it
    assert board_png(lucky("@0/ pass")) == board_png(lucky("@0/"), last_turn=False)


def test_a_point_trax_board_after_a_line_and_after_the_fresh_start():
    board = Board.replay(LINE.split(), "pointtrax")
    image = decode(board_png(board))
    assert image.size == picture_size(board) and board.tile_count == 8
    assert mask_of(image, INDEX["win"]).getbbox() is None  # scoring is not winning: no glow
    board.play("@0/")
    image = decode(board_png(board))
    assert image.size == (2 * MARGIN + 3 * CELL, 2 * MARGIN + 3 * CELL)
    chosen = mask_of(image, INDEX["chosen"])
    assert outside(chosen, [cell_box(board, 1, 1)]) is None and chosen.getbbox() is not None
