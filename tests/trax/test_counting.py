"""Counting check: the number of distinct move sequences from the empty board."""

import pytest

from pbm.trax import Board

EXPECTED = {1: 2, 2: 24, 3: 432, 4: 9568, 5: 246888}


def test_counting_zero_turns_counts_the_position_itself():
    assert Board().count_sequences(0) == 1


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_move_sequences_from_the_empty_board(depth):
    assert Board().count_sequences(depth) == EXPECTED[depth]


@pytest.mark.slow
def test_move_sequences_to_depth_five():
    board = Board()
    assert board.count_sequences(5) == EXPECTED[5]
    assert board.ply == 0 and board.tile_count == 0
