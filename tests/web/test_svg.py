"""The SVG board (pbm.trax.svg) is the mail picture (pbm.trax.picture) drawn
as vectors: the same constants, size, cells, marks and colours.  (The
browser test compares the two pixel by pixel.)"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from pbm.trax import Board, svg
from pbm.trax import picture as png

from .conftest import LOOP_GAME

NS = {"s": "http://www.w3.org/2000/svg"}
GAMES = {
    "empty": ([], "trax"),
    "first": (["@0/"], "trax"),
    "forced": (LOOP_GAME[:9], "trax"),
    "loop": (LOOP_GAME, "trax"),
}


def board(name: str) -> Board:
    moves, variant = GAMES[name]
    return Board.replay(moves, variant)


def parse(text: str) -> ET.Element:
    return ET.fromstring(text)


def test_the_geometry_and_colours_are_the_pictures():
    for name in ("CELL", "GAP", "FACE", "CORNER", "TRACK", "GLOW", "MARGIN", "FONT_SIZE", "CHOSEN_WIDTH",
                 "FORCED_WIDTH", "STRIP", "RING", "RING_WIDTH", "DASH", "DASH_GAP", "BRIDGE"):
        assert getattr(svg, name) == getattr(png, name), name
    assert svg.COLOURS == png.COLOURS


@pytest.mark.parametrize("name", GAMES)
def test_the_picture_has_the_pngs_size_and_a_cell_for_every_cell(name):
    b = board(name)
    root = parse(svg.board_svg(b))
    width, height = png.picture_size(b)
    assert (int(root.get("width")), int(root.get("height"))) == (width, height) == svg.svg_size(b)
    assert root.get("viewBox") == f"0 0 {width} {height}"
    columns, rows = png.frame_size(b)
    uses = [u for u in root.findall("s:use", NS)]
    assert len(uses) == columns * rows
    tiles = {(c, r): mask for c, r, mask in b.cells()}
    for use in uses:
        x, y = int(use.get("x")), int(use.get("y"))
        c, r = (x - png.MARGIN) // png.CELL, (y - png.MARGIN) // png.CELL
        assert png.cell_box(b, c, r)[:2] == (x, y)
        ref = use.get("href")
        assert ref == "#pbm-empty" if (c, r) not in tiles else ref.startswith(f"#pbm-t{tiles[(c, r)]}")
    labels = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert labels.count("@") == 2 and labels.count("0") == 2


def test_the_last_turn_is_outlined_where_the_picture_outlines_it():
    b = board("forced")
    root = parse(svg.board_svg(b))
    placed = b.last_placed()
    assert len(placed) > 1
    chosen = [r for r in root.findall("s:rect", NS) if r.get("stroke") == "#0068d6"]
    assert len(chosen) == 1
    x0, y0, _, _ = png.cell_box(b, *placed[0])
    assert (float(chosen[0].get("x")), float(chosen[0].get("y"))) == (x0 + 1.5, y0 + 1.5)
    dashed = [g for g in root.findall("s:g", NS) if g.get("stroke") == "#ec6800"]
    assert len(dashed) == len(placed) - 1
    assert all(g.get("stroke-dasharray") == "6 4" for g in dashed)
    assert "stroke=\"#0068d6\"" not in svg.board_svg(b, last_turn=False)


def test_the_winning_track_glows_gold_on_its_cells_only():
    b = board("loop")
    track = b.winning_track()
    assert track is not None
    root = parse(svg.board_svg(b))
    glowing = {(int(u.get("x")), int(u.get("y"))) for u in root.findall("s:use", NS) if "g" in u.get("href")[6:]}
    assert glowing == {png.cell_box(b, c, r)[:2] for c, r in track.cells}
    assert not any("g" in u.get("href")[6:] for u in parse(svg.board_svg(b, win=False)).findall("s:use", NS))


def test_luckytrax_draw_is_shown_under_the_board_with_a_ring_where_it_can_go():
    b = Board.replay(["@0+", "@1/"], "luckytrax")
    face = 9
    root = parse(svg.board_svg(b, draw=face))
    assert (int(root.get("width")), int(root.get("height"))) == png.picture_size(b, draw=face)
    rings = root.findall("s:circle", NS)
    assert len(rings) == len(b.placements(face)) > 0
    assert all(r.get("stroke") == "#16a34a" for r in rings)
    drawn = [u for u in root.findall("s:use", NS) if (int(u.get("x")), int(u.get("y"))) == png.draw_box(b)[:2]]
    assert [u.get("href") for u in drawn] == [f"#pbm-t{face}"]
    with pytest.raises(ValueError):
        svg.board_svg(b, draw=7)


def test_the_title_is_escaped_and_nothing_is_inline_style_or_script():
    text = svg.board_svg(board("loop"), title='<script>"x" & \'y\'</script>')
    root = parse(text)
    assert root.find("s:title", NS).text == '<script>"x" & \'y\'</script>'
    assert "<script" not in text and "style" not in text and "on" + "load" not in text
    assert root.get("role") == "img" and root.get("aria-label").startswith("<script>")
