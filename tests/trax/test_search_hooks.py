"""The engine's hooks for a search (pbm.ai): area coordinates, the tiles of
the last turn, the open tracks, and the moves that complete a loop or a line
(all of them, the first one, and those the last turn made possible), each
checked against the slow way of finding out."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbm.trax import PASS, Board

FACES = (5, 10, 9, 6, 3, 12)
VARIANTS = ("trax", "8x8trax", "looptrax", "minitrax", "luckytrax")


def random_game(variant: str, seed: int, plies: int) -> Board:
    """A random game of up to ``plies`` plies in which nobody wins (it
    stops early when every move would end it)."""
    rng = random.Random(seed)
    board = Board(variant)
    while board.outcome() is None and board.ply < plies:
        if board.variant.drawn:
            options = board.placements(rng.choice(FACES))
            if not options:
                board.play("pass")
                continue
        else:
            options = board.legal_moves()
        rng.shuffle(options)
        for move in options:
            board.play(move)
            if board.outcome() is None:
                break
            board.pop()
        else:
            break
    return board


def scored_colours(board: Board) -> dict[str, int] | None:
    """Ground truth for completions: each legal move played on a PointTrax
    board with the same moves (where completing a track scores it, and the
    score says whose colour it was): move -> colour bits.  None when the
    moves scored on the way there (a LoopTrax game may hold a line), so
    that the PointTrax position is another one."""
    points = Board("pointtrax", points=1000)
    for move in board.moves:
        points.play(str(move))
        if points.last_scored():
            return None
    out = {}
    for move in board.legal_moves():
        points.play(str(move))
        bits = 0
        for track in points.last_scored():
            if board.variant.lines_win or track.kind == "loop":
                bits |= 1 if track.colour == "white" else 2
        points.pop()
        if bits:
            out[str(move)] = bits
    return out


def undecided(variant: str, seed: int, plies: int) -> Board | None:
    board = random_game(variant, seed, plies)
    return board if board.outcome() is None and board.tile_count else None


@settings(max_examples=150)
@given(seed=st.integers(0, 10**9), variant=st.sampled_from(("trax", "8x8trax", "looptrax", "minitrax")),
       plies=st.integers(2, 60))
def test_completions_are_the_moves_that_complete_a_track(seed, variant, plies):
    board = undecided(variant, seed, plies)
    if board is None:
        return
    truth = scored_colours(board)
    if truth is None:
        return
    found = {str(move): bits for move, bits in board.completions()}
    assert found == truth


@settings(max_examples=150)
@given(seed=st.integers(0, 10**9), variant=st.sampled_from(VARIANTS), plies=st.integers(2, 60))
def test_stop_ends_with_the_first_move_completing_those_colours(seed, variant, plies):
    board = undecided(variant, seed, plies)
    if board is None:
        return
    every = board.completions()
    for stop in (1, 2):
        found = board.completions(stop=stop)
        if any(bits & stop for _, bits in every):
            assert found and found[-1][1] & stop
            assert not any(bits & stop for _, bits in found[:-1])
        else:
            assert sorted(map(str, (m for m, _ in found))) == sorted(map(str, (m for m, _ in every)))
        assert set(found) <= set(every)


@settings(max_examples=100)
@given(seed=st.integers(0, 10**9), variant=st.sampled_from(VARIANTS), plies=st.integers(3, 60))
def test_new_only_finds_every_completion_the_last_turn_made(seed, variant, plies):
    board = undecided(variant, seed, plies)
    if board is None:
        return

    def area(found):
        x0, y0 = board.frame()
        return {(x0 + m.column, y0 + m.row, m.tile): bits for m, bits in found}

    now = area(board.completions())
    last = board.pop()
    before = area(board.completions())
    board.play(last)
    new = area(board.completions(new_only=True))
    made = {cell: bits for cell, bits in now.items() if bits & ~before.get(cell, 0)}
    assert made.items() <= new.items() <= now.items()


def test_completes_answers_for_one_turn_as_completions_does():
    board = random_game("trax", 3, 40)
    assert board.outcome() is None and board.completions()
    x0, y0 = board.frame()
    found = {(x0 + m.column, y0 + m.row, m.tile): bits for m, bits in board.completions()}
    for move in board.legal_moves():
        cell = (x0 + move.column, y0 + move.row, move.tile)
        assert board.completes(*cell) == found.get(cell, 0)
    assert board.completes(x0, y0, 5) is None  # the corner beyond the formation touches no tile
    some_tile = next(iter(board.cells()))
    assert board.completes(x0 + some_tile[0], y0 + some_tile[1], some_tile[2]) is None  # taken


def test_a_sample_position_completions_by_hand():
    # black's C4\ made two loop threats (the double threat of
    # tests/ai/test_tactics.py): D2\ and D3/ close one, B5\ and C5/ the
    # other; white, to move, has none of its own
    board = Board.replay(["@0/", "A2+", "B1/", "B0+", "C1/", "A4+", "A0/", "C4\\"])
    assert board.turn == "white"
    found = {str(m): bits for m, bits in board.completions()}
    assert found == {"D2\\": 2, "D3/": 2, "B5\\": 2, "C5/": 2}
    assert board.completions(stop=1) == board.completions()
    assert [str(m) for m, _ in board.completions(stop=2)] == ["D2\\"]


def test_frame_last_tiles_and_track_ends():
    board = Board()
    assert board.frame() == (0, 0)
    board.play("@0/")
    assert board.last_tiles() == [(0, 0, 9)]
    assert board.frame() == (-1, -1)
    board.play("@1+")  # left of the first tile: the formation grows left
    assert board.frame() == (-2, -1)
    assert [(x, y) for x, y, _ in board.last_tiles()] == [(-1, 0)]
    for column, row in board.last_placed():
        assert (board.frame()[0] + column, board.frame()[1] + row) == (-1, 0)
    ends = board.track_ends()
    assert len(ends) == 3  # two tiles side by side: the colour of their shared edge joined
    occupied = {(board.frame()[0] + c, board.frame()[1] + r) for c, r, _ in board.cells()}
    for colour, x1, y1, x2, y2 in ends:
        assert colour in (0, 1)
        for x, y in ((x1, y1), (x2, y2)):
            assert (x, y) not in occupied
            assert any(abs(x - ox) + abs(y - oy) == 1 for ox, oy in occupied)


@pytest.mark.parametrize("variant", VARIANTS)
def test_area_coordinates_stay_put_as_the_formation_grows(variant):
    board = random_game(variant, 11, 30)
    seen: dict[tuple[int, int], int] = {}
    replay = Board(variant)
    for move in board.moves:
        replay.play(move)
        for x, y, tile in replay.last_tiles():
            assert (x, y) not in seen
            seen[(x, y)] = tile
    x0, y0 = replay.frame()
    assert {(x0 + c, y0 + r): t for c, r, t in replay.cells()} == seen


def test_hooks_before_the_first_move_and_after_a_pass():
    board = Board("luckytrax")
    assert board.completions() == [] and board.track_ends() == [] and board.last_tiles() == []
    board.play("@0/")
    board.play("pass")
    assert board.last_tiles() == []
    assert board.completions(new_only=True) == []


@pytest.mark.parametrize("variant", ("trax", "8x8trax", "looptrax"))
def test_a_turns_reach_bounds_where_its_tiles_go(variant):
    for seed in range(6):
        board = random_game(variant, 100 + seed, 12 + 5 * seed)
        if board.outcome() is not None:
            continue
        for move in board.legal_moves():
            reach = board.turn_reach(move)
            x0, y0 = board.frame()
            cx, cy = x0 + move.column, y0 + move.row
            board.play(move)
            placed = board.last_tiles()
            board.pop()
            assert placed[0][:2] == (cx, cy)
            assert max(abs(x - cx) + abs(y - cy) for x, y, _ in placed) <= reach


def test_no_reach_for_a_pass():
    board = random_game("luckytrax", 3, 10)
    assert board.turn_reach(PASS) == 0
    assert any(board.turn_reach(move) == 0 for move in board.legal_moves())  # a tile that forces nothing


@pytest.mark.parametrize("variant", ("trax", "looptrax"))
def test_a_loop_is_left_standing_by_every_turn_far_from_its_tiles(variant):
    found = far_turns = 0
    for seed in range(14):
        board = random_game(variant, 200 + seed, 20 + 2 * seed)
        if board.outcome() is not None:
            continue
        x0, y0 = board.frame()
        for threat, bits in board.completions():
            tx, ty, tile = x0 + threat.column, y0 + threat.row, threat.tile
            loop = board.loop_cells(tx, ty, tile)
            board.play(threat)
            placed = [(x, y) for x, y, _ in board.last_tiles()]
            track = board.winning_track()
            kind = track.kind if track is not None else None
            board.pop()
            if loop is None:
                assert kind != "loop" and (variant != "looptrax" or not bits)
                continue
            found += 1
            loop_bits, cells = loop
            assert kind == "loop" or bits & ~loop_bits  # a loop, or both a loop and a line
            assert loop_bits & bits == loop_bits
            assert cells[0] == (tx, ty) and sorted(cells) == sorted(placed)
            for move in board.legal_moves():
                board.play(move)
                tiles = [(x, y) for x, y, _ in board.last_tiles()]
                if all(abs(x - cx) + abs(y - cy) > 2 for x, y in tiles for cx, cy in cells):
                    far_turns += 1
                    if board.outcome() is None:
                        after = board.completes(tx, ty, tile)
                        assert after is not None and after & loop_bits == loop_bits, (str(board), move, threat)
                        assert board.loop_cells(tx, ty, tile) == loop
                board.pop()
    assert found >= 10 and far_turns >= 100


def test_no_loop_cells_where_an_area_is_limited_or_points_count():
    for variant in ("8x8trax", "minitrax", "pointtrax", "luckytrax"):
        for seed in range(10):
            board = random_game(variant, 300 + seed, 16) if variant != "pointtrax" else Board.replay(
                random_game("trax", 300 + seed, 16).moves, "pointtrax", points=1000)
            x0, y0 = board.frame()
            for move in board.legal_moves():
                assert board.loop_cells(x0 + move.column, y0 + move.row, move.tile) is None
