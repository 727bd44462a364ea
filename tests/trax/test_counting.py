"""Counting check: the number of distinct move sequences from the empty board."""

import pytest

from pbm.trax import Board

EXPECTED = {1: 2, 2: 24, 3: 432, 4: 9568, 5: 246888}


def count(board: Board, depth: int) -> int:
    moves = board.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.play(move)
        total += count(board, depth - 1)
        board.pop()
    return total


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_move_sequences_from_the_empty_board(depth):
    assert count(Board(), depth) == EXPECTED[depth]


@pytest.mark.slow
def test_move_sequences_to_depth_five():
    board = Board()
    assert count(board, 5) == EXPECTED[5]
    assert board.ply == 0 and board.tile_count == 0
