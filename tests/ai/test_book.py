"""The opening book (pbm.ai.book): read from the package, every move legal
where it is offered, positions named the same whatever the move order,
notation or symmetry, chosen with variety, and used by levels 3 and 4."""

from __future__ import annotations

import random
from importlib.resources import files

import pytest

from pbm.ai import ThinkRequest, fast, think
from pbm.ai.book import (
    SECTIONS,
    SYMMETRIES,
    Entry,
    board_tiles,
    book_move,
    book_moves,
    load_book,
    parse_book,
    position_key,
    tiles_key,
    transform_cell,
    transform_tile,
)
from pbm.trax import Board, Move
from pbm.trax.tiles import OPPOSITE, TILES

from .helpers import random_position

GAME_TYPE = {"trax": "trax", "looptrax": "looptrax"}  # the game type each section is walked with


def transformed(tiles: list[tuple[int, int, int]], quarter: int, mirror: bool) -> list[tuple[int, int, int]]:
    out = []
    for x, y, tile in tiles:
        tx, ty = transform_cell(x, y, quarter, mirror)
        out.append((tx, ty, transform_tile(tile, quarter, mirror)))
    return out


def edges_match(tiles: list[tuple[int, int, int]]) -> bool:
    """Does every edge two tiles share carry one colour from both sides?"""
    at = {(x, y): t for x, y, t in tiles}
    steps = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}
    for (x, y), tile in at.items():
        for d, (dx, dy) in steps.items():
            other = at.get((x + dx, y + dy))
            if other is not None and (tile >> d & 1) != (other >> OPPOSITE[d] & 1):
                return False
    return True


# ----------------------------------------------------------------------
# the symmetries


def test_the_symmetries_form_the_group_of_the_square():
    assert len(set(SYMMETRIES)) == 8
    for tile in TILES:
        images = {transform_tile(tile, q, m) for q, m in SYMMETRIES}
        assert images <= set(TILES)  # a tile stays a tile: two white edges
        assert transform_tile(tile, 4, False) == tile
        assert transform_tile(transform_tile(tile, 0, True), 0, True) == tile
    # a straight has two images (white across or along), a curve four
    assert {transform_tile(5, q, m) for q, m in SYMMETRIES} == {5, 10}
    assert {transform_tile(9, q, m) for q, m in SYMMETRIES} == {9, 6, 3, 12}
    # a quarter turn clockwise takes north to east; a mirror takes east to west
    assert transform_cell(0, -1, 1, False) == (1, 0)
    assert transform_tile(1 << 0 | 1 << 3, 1, False) == (1 << 1 | 1 << 0)  # N+W -> E+N
    assert transform_cell(1, 0, 0, True) == (-1, 0)
    assert transform_tile(1 << 0 | 1 << 1, 0, True) == (1 << 0 | 1 << 3)  # N+E -> N+W


@pytest.mark.parametrize("seed", range(12))
def test_every_image_of_a_position_is_a_position_with_the_same_key(seed):
    board = random_position("trax", seed, 6 + seed)
    tiles = board_tiles(board)
    key = tiles_key(tiles)
    assert key
    for quarter, mirror in SYMMETRIES:
        image = transformed(tiles, quarter, mirror)
        assert edges_match(image)  # tiles and cells turned alike: the tracks still join
        shifted = [(x + 7, y - 3, t) for x, y, t in image]
        assert tiles_key(shifted) == key
    other = random_position("trax", seed + 100, 6 + seed)
    assert (tiles_key(board_tiles(other)) == key) == _same_up_to_symmetry(board_tiles(other), tiles)


def _same_up_to_symmetry(a: list[tuple[int, int, int]], b: list[tuple[int, int, int]]) -> bool:
    def placed(tiles: list[tuple[int, int, int]]) -> frozenset[tuple[int, int, int]]:
        left, top = min(x for x, _, _ in tiles), min(y for _, y, _ in tiles)
        return frozenset((x - left, y - top, t) for x, y, t in tiles)

    return any(placed(transformed(a, q, m)) == placed(b) for q, m in SYMMETRIES)


def _stabilisers(first: int) -> list[tuple[int, bool]]:
    """The symmetries that keep the first tile as it is (a game's first
    tile fixes the board's orientation, so only these can be replayed)."""
    return [(q, m) for q, m in SYMMETRIES if transform_tile(first, q, m) == first]


@pytest.mark.parametrize("seed", range(8))
def test_a_game_played_turned_or_mirrored_has_the_same_key_at_every_ply(seed):
    board = random_position("trax", seed, 14)
    moves = list(board.moves)
    first = Board.replay(moves[:1]).last_tiles()[0][2]
    for quarter, mirror in _stabilisers(first):
        original = Board()
        image = Board()
        for move in moves:
            original.play(move)
            x, y, tile = original.last_tiles()[0]
            tx, ty = transform_cell(x, y, quarter, mirror)
            wanted = (tx, ty, transform_tile(tile, quarter, mirror))
            for candidate in image.legal_moves():
                image.play(candidate)
                if image.last_tiles()[0] == wanted:
                    break
                image.pop()
            else:
                raise AssertionError(f"no move places {wanted} after {image.moves}")
            assert position_key(image) == position_key(original)
            assert sorted(transformed(original.last_tiles(), quarter, mirror)) == sorted(image.last_tiles())


def test_the_same_position_by_another_move_order_or_mirrored_has_one_key():
    # B1+ then A2+ forces B2; A2+ then B1+ forces it too: the same tiles
    one = Board.replay(["@0/", "B1+", "A2+"])
    two = Board.replay(["@0/", "A2+", "B1+"])
    assert frozenset(one.cells()) == frozenset(two.cells())
    assert position_key(one) == position_key(two)
    # the first curve is its own mirror image across its diagonal: B1+ and A2+ are images
    right, below = Board.replay(["@0/", "B1+"]), Board.replay(["@0/", "A2+"])
    assert frozenset(right.cells()) != frozenset(below.cells())
    assert position_key(right) == position_key(below)
    # a formation grown left and up (notation shifted) keeps its key when turned
    left = Board.replay(["@0/", "@1+"])
    assert position_key(left) != position_key(right) or _same_up_to_symmetry(board_tiles(left), board_tiles(right))
    # the side to move is part of the key
    assert position_key(Board())[0] == "w" and position_key(one)[0] == "b"


def test_book_moves_of_positions_that_are_one_are_the_same_positions():
    one, two = Board.replay(["@0/", "B1+"]), Board.replay(["@0/", "A2+"])

    def children(board: Board) -> set[str | None]:
        out = set()
        for move, _ in book_moves(board):
            board.play(move)
            out.add(position_key(board))
            board.pop()
        return out

    assert children(one) == children(two)
    assert children(one)  # the human games played on from here


# ----------------------------------------------------------------------
# the book


def test_the_book_is_package_data_and_loads():
    assert files("pbm.ai").joinpath("book.txt").is_file()
    book = load_book()
    assert load_book() is book  # read once
    assert "trax" in book and set(book) <= set(SECTIONS.values())
    root = position_key(Board())
    assert root in book["trax"]
    assert sum(len(moves) for moves in book["trax"].values()) >= 100


@pytest.mark.parametrize("section", sorted(GAME_TYPE))
def test_every_book_move_is_legal_where_the_book_offers_it(section):
    positions = load_book().get(section)
    if positions is None:
        pytest.skip(f"no {section} section")
    seen: dict[str, Board] = {}
    todo = [Board(GAME_TYPE[section])]
    while todo:
        board = todo.pop()
        key = position_key(board)
        assert key is not None
        if key in seen or key not in positions:
            continue
        seen[key] = board
        found = book_moves(board)
        assert len(found) == len(positions[key]), (board.moves, key)  # each one a legal move's position
        assert {entry.child for _, entry in found} == {entry.child for entry in positions[key]}
        for move, _ in found:
            assert move in board.legal_moves()
            todo.append(Board.replay([*board.moves, move], GAME_TYPE[section]))
    assert set(seen) == set(positions)  # every position is reached from the empty board


def test_several_seeds_give_different_openings():
    board = Board()
    firsts = {str(book_move(board, random.Random(seed))) for seed in range(20)}
    assert firsts == {"@0/", "@0+"}
    games = set()
    for seed in range(10):
        rng = random.Random(seed)
        board = Board()
        while (move := book_move(board, rng)) is not None:
            board.play(move)
        games.add(tuple(str(m) for m in board.moves))
    assert len(games) >= 3


def test_out_of_book_is_none():
    rng = random.Random(0)
    far = random_position("trax", 3, 14)
    assert position_key(far) not in load_book()["trax"]
    assert book_move(far, rng) is None
    for game_type in ("pointtrax", "luckytrax", "minitrax"):
        assert book_move(Board(game_type), rng) is None


def test_a_move_that_lets_the_other_side_win_is_never_chosen():
    # a position where some legal move leaves the other side a win in one
    for seed in range(200):
        board = random_position("trax", seed, 8, calm=True)
        bad = good = None
        for move in board.legal_moves():
            board.play(move)
            other = 1 << (board.ply & 1)
            found = board.completions(stop=other)
            loses = bool(found) and bool(found[-1][1] & other)
            key = position_key(board)
            board.pop()
            if loses and bad is None:
                bad = key
            elif not loses and good is None:
                good = key
        if bad and good:
            break
    else:
        raise AssertionError("no position with a losing move")
    key = position_key(board)
    book = {"trax": {key: (Entry(bad, 90, 0, 0),)}}
    assert book_move(board, random.Random(1), book) is None
    book = {"trax": {key: (Entry(bad, 90, 0, 0), Entry(good, 3, 0, 2))}}
    for seed in range(10):
        move = book_move(board, random.Random(seed), book)
        assert move is not None
        board.play(move)
        assert position_key(board) == good
        board.pop()


def test_moves_with_few_games_or_a_poor_score_are_left_out():
    board = Board()
    key = position_key(board)
    straight = position_key(Board.replay(["@0+"]))
    curve = position_key(Board.replay(["@0/"]))
    assert book_move(board, random.Random(0), {"trax": {key: (Entry(straight, 2, 0, 0),)}}) is None
    assert book_move(board, random.Random(0), {"trax": {key: (Entry(straight, 1, 0, 9),)}}) is None
    book = {"trax": {key: (Entry(straight, 1, 0, 9), Entry(curve, 5, 0, 5))}}
    assert {str(book_move(board, random.Random(s), book)) for s in range(10)} == {"@0/"}


def test_the_text_format():
    book = parse_book("# a comment\n\n[trax]\nw b005:3/1/2 b003:0/0/1\n")
    assert book == {"trax": {"w": (Entry("b005", 3, 1, 2), Entry("b003", 0, 0, 1))}}
    assert book["trax"]["w"][0].games == 6
    assert book["trax"]["w"][0].score == pytest.approx((3 + 0.5 + 1) / 8)
    for bad in ("w b005:3/1/2\n", "[trax]\nw\n", "[trax]\nw b005:3/1\n", "[trax]\nw b005\n"):
        with pytest.raises(ValueError):
            parse_book(bad)


# ----------------------------------------------------------------------
# think


# level 4 in plain Trax searches on the compact core from the first move (fast.plays)
@pytest.mark.parametrize("level,game", [(3, "trax"), (4, "8x8trax")])
def test_think_plays_a_book_move_at_once_in_the_opening(level, game):
    choice = think(ThinkRequest(game, ("@0/",), level=level, seed=5))
    board = Board.replay(["@0/"], game)
    assert choice.depth == 0 and choice.nodes == 0
    assert choice.reason is not None
    assert choice.move in {str(move) for move, _ in book_moves(board)}
    assert choice.seconds < 0.5
    again = think(ThinkRequest(game, ("@0/",), level=level, seed=5))
    assert again.move == choice.move  # the seed decides


def test_level_four_on_the_core_searches_the_opening():
    choice = think(ThinkRequest("trax", ("@0/",), level=4, budget=0.2, seed=5))
    assert (choice.depth >= 1) is fast.plays(Board.replay(["@0/"]))


def test_think_varies_its_opening_by_the_seed():
    moves = {think(ThinkRequest("trax", (), level=4, seed=seed)).move for seed in range(12)}
    assert moves == {"@0/", "@0+"}


def test_think_without_the_book_searches():
    choice = think(ThinkRequest("trax", ("@0/",), level=3, budget=0.1, seed=5, book=False))
    assert choice.depth >= 1


def test_a_book_move_is_a_legal_move_of_8x8_trax():
    board = Board("8x8trax")
    move = book_move(board, random.Random(2))
    assert isinstance(move, Move) and move in board.legal_moves()
