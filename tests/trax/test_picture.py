"""The PNG picture of a position (pbm.trax.picture), checked pixel by pixel.

Each picture is decoded with Pillow.  Its palette indices say what a pixel
is: the outline colours and the glow colour are palette entries nothing
else uses, so where they appear is exactly where the marks are.
"""

from __future__ import annotations

import io
import random
from functools import cache

import pytest
from PIL import Image

from pbm.trax import Board
from pbm.trax.picture import (
    CELL,
    COLOURS,
    INDEX,
    MARGIN,
    PALETTE,
    board_png,
    cell_box,
    frame_size,
    picture_size,
)

from .test_last_turn import DRAWN, LINE_GAME
from .test_render import HIGHLIGHTED, POSITIONS, board_of

FORCED_TILES = HIGHLIGHTED["forced-tiles"]  # B3\ forces four tiles
BLACK_LINE = "@0+ B1+ C1+ D1+ E1+ F1+ G1+ H1+"
SMALL_LOOP = "@0/ B1\\ A2\\"  # black closes a loop of four curves
BOTH_CLOSE = POSITIONS["won-loop"]  # white's loop wins

#: How far an outline may reach past its cell's box.
SLACK = 3


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    image.load()
    return image


def picture(moves: str, variant: str = "trax", **options) -> tuple[Board, Image.Image]:
    board = board_of(moves) if variant == "trax" else Board.replay(moves.split(), variant)
    return board, decode(board_png(board, **options))


def mask_of(image: Image.Image, *indices: int) -> Image.Image:
    """An ``L`` image, 255 where the picture has one of the palette indices."""
    raw = Image.frombytes("L", image.size, image.tobytes())
    wanted = set(indices)
    return raw.point([255 if i in wanted else 0 for i in range(256)])


def grown(box: tuple[int, int, int, int], by: int) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    return x0 - by, y0 - by, x1 + by, y1 + by


def outside(mask: Image.Image, boxes: list[tuple[int, int, int, int]]) -> tuple[int, int, int, int] | None:
    """Where the mask is set outside all the boxes (None: nowhere)."""
    rest = mask.copy()
    for box in boxes:
        rest.paste(0, box)
    return rest.getbbox()


def on_every_side(mask: Image.Image, box: tuple[int, int, int, int]) -> bool:
    """The mask is set along each of the four sides of the box."""
    x0, y0, x1, y1 = box
    strips = [(x0, y0, x1, y0 + 4), (x0, y1 - 4, x1, y1), (x0, y0, x0 + 4, y1), (x1 - 4, y0, x1, y1)]
    return all(mask.crop(strip).getbbox() is not None for strip in strips)


def long_random_game(moves: int, seed: int = 7) -> Board:
    """A random looptrax game of ``moves`` moves that nobody has won yet:
    each turn a random legal move that does not close a loop (a fixed seed:
    the same game every run)."""
    rng = random.Random(seed)
    board = Board("looptrax")
    while board.ply < moves:
        options = board.legal_moves()
        rng.shuffle(options)
        for move in options:
            board.play(move)
            if board.outcome() is None:
                break
            board.pop()
        else:
            raise AssertionError("every move closes a loop")
    return board


# ----------------------------------------------------------------------
# the file and its layout


def test_the_picture_is_a_palette_png_with_our_palette():
    _, image = picture(FORCED_TILES)
    assert image.mode == "P"
    palette = image.getpalette()
    decoded = [tuple(palette[3 * i : 3 * i + 3]) for i in range(len(PALETTE))]
    assert decoded == list(PALETTE)
    for name, colour in COLOURS.items():
        assert PALETTE[INDEX[name]] == colour
    assert len(set(PALETTE)) == len(PALETTE) <= 256
    assert INDEX["background"] == 0


def test_the_size_is_the_frame_of_cells_and_the_margins():
    for moves in ("", "@0/", FORCED_TILES, POSITIONS["long-game"]):
        board, image = picture(moves)
        columns, rows = frame_size(board)
        assert image.size == picture_size(board) == (2 * MARGIN + CELL * columns, 2 * MARGIN + CELL * rows)


def test_more_columns_make_a_wider_picture_and_more_rows_a_taller_one():
    sizes = [picture(moves)[1].size for moves in ("@0/", "@0/ B1/", "@0/ B1/ C1/")]
    assert sizes[0][0] < sizes[1][0] < sizes[2][0]
    assert sizes[0][1] == sizes[1][1] == sizes[2][1]
    assert picture("@0/ A2+")[1].size[1] > sizes[0][1]


def test_cells_tile_the_picture_inside_the_margins():
    board = board_of(FORCED_TILES)
    width, height = picture_size(board)
    columns, rows = frame_size(board)
    assert cell_box(board, 0, 0) == (MARGIN, MARGIN, MARGIN + CELL, MARGIN + CELL)
    assert cell_box(board, columns - 1, rows - 1)[2:] == (width - MARGIN, height - MARGIN)
    assert cell_box(board, 2, 1) == (MARGIN + 2 * CELL, MARGIN + CELL, MARGIN + 3 * CELL, MARGIN + 2 * CELL)
    with pytest.raises(ValueError):
        cell_box(board, columns, 0)
    with pytest.raises(ValueError):
        cell_box(board, 0, -1)


def test_the_same_position_gives_the_same_bytes():
    assert board_png(board_of(FORCED_TILES)) == board_png(board_of(FORCED_TILES))


def test_a_picture_drawn_before_leaves_nothing_on_the_next_of_its_size():
    # pictures of one size draw on copies of one kept frame: the tiles of one
    # must not show in the empty cells of the next
    one, other = Board(), Board()
    for move in ("@0/", "A0+", "@1/"):  # an L, its corner top right
        one.play(move)
    for move in ("@0/", "A0+", "@2\\"):  # another L: a cell the first fills is empty here
        other.play(move)
    assert frame_size(one) == frame_size(other)
    assert {(c, r) for c, r, _ in one.cells()} != {(c, r) for c, r, _ in other.cells()}
    fresh = board_png(other)
    board_png(one)
    assert board_png(other) == fresh
    for board in (one, other):
        empty = {(c, r) for c in range(frame_size(board)[0]) for r in range(frame_size(board)[1])} - {
            (c, r) for c, r, _ in board.cells()}
        picture = Image.open(io.BytesIO(board_png(board)))
        for c, r in empty:
            x0, y0, x1, y1 = cell_box(board, c, r)
            colours = {picture.getpixel((x, y)) for x in range(x0 + 2, x1 - 2, 3) for y in range(y0 + 2, y1 - 2, 3)}
            assert not colours & {INDEX["red"], INDEX["white"]}  # an empty cell shows no track


def test_the_empty_board_is_one_small_cell_with_its_labels():
    board = Board()
    png = board_png(board)
    image = decode(png)
    assert image.size == (2 * MARGIN + CELL, 2 * MARGIN + CELL)
    assert len(png) < 2000
    assert frame_size(board) == (1, 1)
    with pytest.raises(ValueError):
        cell_box(board, 1, 0)
    # the cell's faint outline is there, and only there
    grid = mask_of(image, INDEX["grid"])
    assert on_every_side(grid, cell_box(board, 0, 0))
    assert outside(grid, [cell_box(board, 0, 0)]) is None
    # the labels @ and 0 stand in the margins
    ink = mask_of(image, INDEX["label"])
    x0, y0, x1, y1 = cell_box(board, 0, 0)
    assert ink.crop((x0, 0, x1, MARGIN)).getbbox() is not None
    assert ink.crop((0, y0, MARGIN, y1)).getbbox() is not None


def test_labels_stand_above_and_below_every_column_and_beside_every_row():
    board, image = picture(FORCED_TILES)
    ink = mask_of(image, INDEX["label"])
    width, height = image.size
    columns, rows = frame_size(board)
    for c in range(columns):
        x0, _, x1, _ = cell_box(board, c, 0)
        assert ink.crop((x0, 0, x1, MARGIN)).getbbox() is not None
        assert ink.crop((x0, height - MARGIN, x1, height)).getbbox() is not None
    for r in range(rows):
        _, y0, _, y1 = cell_box(board, 0, r)
        assert ink.crop((0, y0, MARGIN, y1)).getbbox() is not None
        assert ink.crop((width - MARGIN, y0, width, y1)).getbbox() is not None
    # and nowhere among the cells
    assert ink.crop((MARGIN, MARGIN, width - MARGIN, height - MARGIN)).getbbox() is None


# ----------------------------------------------------------------------
# the tiles


def side_point(box: tuple[int, int, int, int], side: int, inset: int = 4) -> tuple[int, int]:
    """A pixel in the middle of a cell's side, ``inset`` pixels in."""
    x0, y0, x1, y1 = box
    mx, my = (x0 + x1) // 2, (y0 + y1) // 2
    return {0: (mx, y0 + inset), 1: (x1 - 1 - inset, my), 2: (mx, y1 - 1 - inset), 3: (x0 + inset, my)}[side]


def test_every_tile_shows_each_sides_track_colour_in_the_middle_of_that_side():
    board, image = picture(POSITIONS["long-game"], last_turn=False, win=False)
    pixels = image.load()
    white, red = INDEX["white"], INDEX["red"]
    checked = 0
    for column, row, mask in board.cells():
        box = cell_box(board, column, row)
        for side in range(4):
            expected = white if mask >> side & 1 else red
            assert pixels[side_point(box, side)] == expected, (column, row, mask, side)
            checked += 1
    assert checked == 4 * board.tile_count


def test_a_straight_with_white_vertical_has_white_top_and_bottom_and_red_left_and_right():
    board, image = picture("@0+", last_turn=False)
    pixels = image.load()
    box = cell_box(board, 1, 1)
    assert board.tile_at(1, 1) == 5
    x0, y0, x1, y1 = box
    mx, my = (x0 + x1) // 2, (y0 + y1) // 2
    for y in (y0 + 2, y0 + 8, my, y1 - 9, y1 - 3):  # white all the way down the middle
        assert pixels[mx, y] == INDEX["white"]
    for x in (x0 + 2, x0 + 6, x1 - 7, x1 - 3):  # red across, broken where white crosses it
        assert pixels[x, my] == INDEX["red"]
    # the bridge: black beside the white track across the red one
    assert pixels[mx - 5, my] == INDEX["tile"] and pixels[mx + 5, my] == INDEX["tile"]
    # corners of the face are black, the gap round it background
    assert pixels[x0 + 5, y0 + 5] == INDEX["tile"]
    assert pixels[x0, y0 + CELL // 4] == INDEX["background"]


def test_a_curve_has_its_white_quarter_ring_round_one_corner_and_red_round_the_opposite_one():
    board, image = picture("@0/", last_turn=False)  # white joins top and left
    pixels = image.load()
    x0, y0, x1, y1 = cell_box(board, 1, 1)
    # along the diagonal from the top-left corner: the white ring, black, the red ring
    assert pixels[x0 + 13, y0 + 13] == INDEX["white"]
    assert pixels[(x0 + x1) // 2, (y0 + y1) // 2] == INDEX["tile"]
    assert pixels[x1 - 14, y1 - 14] == INDEX["red"]
    assert pixels[x0 + 4, y0 + 4] == INDEX["tile"]  # inside the white ring
    assert pixels[x1 - 5, y1 - 5] == INDEX["tile"]  # inside the red one


def test_curves_are_anti_aliased():
    board, image = picture("@0/", last_turn=False)
    inside = image.crop(cell_box(board, 1, 1))
    shades = {index for _, index in inside.getcolors()}
    assert len(shades) > 12
    # and the shades are those between the face and the tracks
    assert INDEX["white"] in shades and INDEX["red"] in shades and INDEX["tile"] in shades


def test_empty_cells_are_a_faint_outline_and_tiles_show_no_grid():
    board, image = picture(FORCED_TILES, last_turn=False)
    grid = mask_of(image, INDEX["grid"])
    tiles = {(c, r) for c, r, _ in board.cells()}
    columns, rows = frame_size(board)
    for c in range(columns):
        for r in range(rows):
            inside = grid.crop(cell_box(board, c, r)).getbbox() is not None
            assert inside == ((c, r) not in tiles), (c, r)


# ----------------------------------------------------------------------
# the last turn


def test_the_chosen_tile_is_outlined_and_nothing_else_has_its_colour():
    board, image = picture(FORCED_TILES)
    chosen, *forced = board.last_placed()
    assert len(forced) == 4
    mask = mask_of(image, INDEX["chosen"])
    box = cell_box(board, *chosen)
    assert on_every_side(mask, box)
    assert outside(mask, [grown(box, SLACK)]) is None


def test_each_forced_tile_is_outlined_in_its_own_colour_and_nothing_else_has_it():
    board, image = picture(FORCED_TILES)
    _, *forced = board.last_placed()
    mask = mask_of(image, INDEX["forced"])
    boxes = [cell_box(board, *cell) for cell in forced]
    for box in boxes:
        assert on_every_side(mask, box)
    assert outside(mask, [grown(box, SLACK) for box in boxes]) is None


def test_the_forced_outline_is_dashed_and_the_chosen_one_solid_and_wider():
    board, image = picture(FORCED_TILES)
    chosen, first_forced, *_ = board.last_placed()
    pixels = image.load()
    x0, y0, x1, _ = cell_box(board, *chosen)
    top = [pixels[x, y0] for x in range(x0, x1)]
    assert set(top) == {INDEX["chosen"]}
    assert all(pixels[x0 + CELL // 2, y0 + k] == INDEX["chosen"] for k in range(3))
    x0, y0, x1, _ = cell_box(board, *first_forced)
    top = [pixels[x, y0] == INDEX["forced"] for x in range(x0, x1)]
    assert 0.5 < sum(top) / len(top) < 0.9  # dashes and gaps
    # a dash along the top, two pixels deep (the chosen outline is three)
    assert [pixels[x0 + 12, y0 + k] == INDEX["forced"] for k in range(3)] == [True, True, False]


def test_a_move_that_forces_nothing_outlines_one_cell():
    board, image = picture("@0/ A2+")
    assert mask_of(image, INDEX["forced"]).getbbox() is None
    assert outside(mask_of(image, INDEX["chosen"]), [grown(cell_box(board, 1, 2), SLACK)]) is None


def test_without_the_last_turn_there_are_no_outlines():
    for moves in (FORCED_TILES, "@0/", BLACK_LINE):
        _, image = picture(moves, last_turn=False)
        assert mask_of(image, INDEX["chosen"], INDEX["forced"]).getbbox() is None
    _, image = picture("")
    assert mask_of(image, INDEX["chosen"], INDEX["forced"]).getbbox() is None


# ----------------------------------------------------------------------
# the winning track


@pytest.mark.parametrize("moves", [BLACK_LINE, SMALL_LOOP, BOTH_CLOSE, LINE_GAME])
def test_the_winning_track_glows_in_each_of_its_cells_and_in_no_other(moves):
    board, image = picture(moves)
    track = board.winning_track()
    assert track is not None
    mask = mask_of(image, INDEX["win"])
    boxes = [cell_box(board, *cell) for cell in track.cells]
    for box in boxes:
        assert mask.crop(box).getbbox() is not None
    assert outside(mask, boxes) is None
    # nor do the shades of the glow stray
    shades = [i for i, colour in enumerate(PALETTE) if i != INDEX["win"] and colour in glow_shades()]
    assert outside(mask_of(image, *shades), boxes) is None


@cache
def glow_shades() -> set[tuple[int, int, int]]:
    """Colours of the palette made with the glow: those a won position shows
    only when its track glows."""
    glowing = decode(board_png(board_of(BOTH_CLOSE)))
    plain = decode(board_png(board_of(BOTH_CLOSE), win=False))
    return {PALETTE[i] for _, i in glowing.getcolors()} - {PALETTE[i] for _, i in plain.getcolors()}


@pytest.mark.parametrize("moves", [BLACK_LINE, SMALL_LOOP, BOTH_CLOSE, LINE_GAME])
def test_the_glow_runs_along_both_edges_of_the_winning_colours_track(moves):
    board, image = picture(moves, last_turn=False)
    track = board.winning_track()
    pixels = image.load()
    ink = INDEX["white"] if track.colour == "white" else INDEX["red"]
    tiles = {(c, r): mask for c, r, mask in board.cells()}
    for cell in track.cells:
        mask = tiles[cell]
        box = cell_box(board, *cell)
        for side in range(4):
            if (mask >> side & 1) != (track.colour == "white"):
                continue
            x, y = side_point(box, side)
            assert pixels[x, y] == ink
            # the track is 8 pixels wide round the middle; the glow 3 more each side
            if side in (0, 2):
                assert pixels[x - 6, y] == pixels[x + 5, y] == INDEX["win"], (cell, side)
            else:
                assert pixels[x, y - 6] == pixels[x, y + 5] == INDEX["win"], (cell, side)


def test_no_glow_when_asked_for_none_during_a_game_or_at_a_draw():
    _, image = picture(BLACK_LINE, win=False)
    assert mask_of(image, INDEX["win"]).getbbox() is None
    for moves, variant in ((FORCED_TILES, "trax"), (BLACK_LINE, "looptrax"), (DRAWN, "8x8trax")):
        _, image = picture(moves, variant)
        assert mask_of(image, INDEX["win"]).getbbox() is None


# ----------------------------------------------------------------------
# big boards


def test_a_250_move_game_draws_within_bounds():
    board = long_random_game(250)
    png = board_png(board)
    image = decode(png)
    assert image.size == picture_size(board)
    assert len(png) < 120_000
    chosen = mask_of(image, INDEX["chosen"])
    assert outside(chosen, [grown(cell_box(board, *board.last_placed()[0]), SLACK)]) is None
