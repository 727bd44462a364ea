"""What boards learn is kept in a Knowledge they hold, shared on purpose (issue 29)."""

from __future__ import annotations

import copy
import pickle

import pytest

from pbm.trax import Board, Knowledge

MOVES = ["@0/", "B1+", "A2+", "B0\\", "C2/"]


def test_a_board_made_alone_has_a_knowledge_of_its_own():
    one, two = Board(), Board.replay(MOVES)
    assert isinstance(one.knowledge, Knowledge)
    assert one.knowledge is not two.knowledge


def test_boards_made_from_a_board_share_its_knowledge():
    board = Board.replay(MOVES)
    assert board.copy().knowledge is board.knowledge
    assert board.after(2).knowledge is board.knowledge
    assert copy.deepcopy(board).knowledge is board.knowledge
    assert copy.copy(board.knowledge) is board.knowledge


def test_a_knowledge_passed_in_is_the_one_boards_learn_into():
    shared = Knowledge()
    board = Board.replay(MOVES, knowledge=shared)
    other = Board("looptrax", knowledge=shared)
    assert board.knowledge is other.knowledge is shared
    assert not shared.answers
    moves = board.legal_moves()
    assert shared.answers and shared.moves
    # the Move objects are shared too: the same object from either board
    again = Board.replay(MOVES, knowledge=shared).legal_moves()
    assert all(a is b for a, b in zip(moves, again))


def test_a_pickled_board_comes_back_with_an_empty_knowledge_and_the_same_position():
    board = Board.replay(MOVES)
    board.legal_moves()
    again = pickle.loads(pickle.dumps(board))
    assert again.knowledge is not board.knowledge and not again.knowledge.answers
    assert again.fingerprint() == board.fingerprint()
    assert again.legal_moves() == board.legal_moves()


def test_forgetting_empties_what_was_learnt_and_boards_learn_it_again():
    shared = Knowledge()
    board = Board.replay(MOVES, knowledge=shared)
    moves = board.legal_moves()
    shared.forget()
    assert not shared.answers and shared.learnt == 0
    assert Board.replay(MOVES, knowledge=shared).legal_moves() == moves


@pytest.mark.parametrize("limit", [0, -1, 1.5, True, "9"])
def test_a_knowledge_needs_a_positive_whole_limit(limit):
    with pytest.raises(ValueError, match="limit"):
        Knowledge(limit=limit)


def test_a_board_refuses_something_else_for_a_knowledge():
    with pytest.raises(ValueError, match="knowledge must be a Knowledge"):
        Board(knowledge={})
