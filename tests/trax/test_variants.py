"""8x8 Trax: the size limit and the draw."""

import random

import pytest

from pbm.trax import Board, IllegalMoveError

from .reference import Referee


def test_8x8_refuses_a_ninth_column():
    board = Board.replay(["@0+", "B1+", "C1+", "D1+", "E1+", "F1+", "G1+", "H1\\"], "8x8trax")
    assert board.width == 8 and board.outcome() is None
    with pytest.raises(IllegalMoveError, match=r"^too-large .*limit=8 "):
        board.play("I1+")
    with pytest.raises(IllegalMoveError, match=r"^too-large .*limit=8 "):
        board.play("@1+")
    assert board.legal_moves()
    assert all(0 < m.column < 9 for m in board.legal_moves())


def test_the_same_row_in_unlimited_trax_may_grow():
    board = Board.replay(["@0+", "B1+", "C1+", "D1+", "E1+", "F1+", "G1+", "H1\\"], "trax")
    assert any(m.column == 9 for m in board.legal_moves())
    assert any(m.column == 0 for m in board.legal_moves())


def find_drawn_8x8_game(seed: int) -> Board | None:
    rng = random.Random(seed)
    board = Board("8x8trax")
    while board.outcome() is None:
        board.play(rng.choice(board.legal_moves()))
    return board if board.outcome().winner is None else None


def test_8x8_is_a_draw_when_the_side_to_move_has_no_legal_turn():
    board = None
    for seed in range(400):
        board = find_drawn_8x8_game(seed)
        if board is not None:
            break
    assert board is not None, "random 8x8 games should sometimes end in a draw"
    assert board.outcome().reason == "draw"
    assert board.legal_moves() == []
    # the naive referee agrees: no placement anywhere is a legal turn, and no one won
    ref = Referee(max_size=8)
    for move in board.moves:
        ref.play(str(move))
    assert ref.result == (None, "draw")
    assert ref.legal_moves() == set()
    # and one move earlier the game was still open
    before = board.after(board.ply - 1)
    assert before.outcome() is None and before.legal_moves()


def test_8x8_full_board_is_a_draw_only_if_nobody_won():
    # 8x8trax never grows past 64 tiles
    rng = random.Random(7)
    for _ in range(20):
        board = Board("8x8trax")
        while board.outcome() is None:
            board.play(rng.choice(board.legal_moves()))
        assert board.tile_count <= 64
        assert board.width <= 8 and board.height <= 8
