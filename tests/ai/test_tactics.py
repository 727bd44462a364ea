"""The computer finds what a Trax player must find: a win in one, the
block of a threat, and the move that makes two threats at once (a win in
two that no block can stop)."""

from __future__ import annotations

import pytest

from pbm.ai import WIN, WON, ThinkRequest, fast, think
from pbm.trax import Board

from .helpers import safe, searched, wins_by_force

# Each black's move makes two loop threats that no single white tile
# blocks; black then closes whichever is left.  The first: C4\ threatens
# D2\ (or D3/) and B5\ (or C5/), two L shapes round the hole at C4's
# corners.  The second: D1/ makes two threats along the top edge.
DOUBLE_THREATS = [
    ("@0/ A2+ B1/ B0+ C1/ A4+ A0/", {"C4\\"}),
    ("@0+ A0\\ @1/ B3\\ C3\\ D2\\ C4\\", {"D1/"}),
    ("@0+ @1+ C1\\ D1+ A0+ @1+ C3/ B4+", {"E1+"}),
]

# The side to move faces a loop threat that only a few of its moves stop
# (the threats, then the moves that stop them all).
BLOCKS = [
    ("@0/ A0+ @1\\ B0\\ C2\\ B0+ A5+ @5+", {"A6+", "A6/", "B6+", "B6\\"}),
    ("@0+ A2\\ B2/ @2+ D2+ A3/ B4+ D3+", {"E2+", "E2/", "E3+", "E3\\"}),
    ("@0/ @1/ B0/ C2/ D2+ A0/ A4\\ @4\\ C1+ D1\\", {"D4\\", "E4\\"}),
    ("@0+ A0/ A0+ @3/ C1+ C0/ A5+ D1/ E2/ @4/ B3\\ D4+ D0\\", {"C1\\", "C2+"}),
]


def test_the_double_threat_positions_are_what_they_say():
    for moves, winning in DOUBLE_THREATS:
        board = Board.replay(moves.split())
        assert board.completions() == []  # nobody can win at once
        for move in winning:
            assert wins_by_force(board, move), (moves, move)


def test_the_block_positions_are_what_they_say():
    for moves, blocks in BLOCKS:
        board = Board.replay(moves.split())
        legal = {str(m) for m in board.legal_moves()}
        assert {m for m in legal if safe(board, m)} == blocks
        assert len(legal) > 8 * len(blocks)


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_every_level_takes_a_win_in_one(level):
    # black has just left white a loop to close
    for moves, _ in DOUBLE_THREATS[:2]:
        board = Board.replay(moves.split())
        winner = next(iter(DOUBLE_THREATS[0][1] if moves == DOUBLE_THREATS[0][0] else DOUBLE_THREATS[1][1]))
        board.play(winner)
        board.play(next(m for m in board.legal_moves() if safe(board, str(m)) is False))
        request = ThinkRequest("trax", tuple(str(m) for m in board.moves), level=level, budget=0.2, seed=1)
        choice = think(request)
        board.play(choice.move)
        outcome = board.outcome()
        assert outcome is not None and outcome.winner == "black", (moves, choice)
        assert choice.reason is not None and choice.reason.kind == "wins"


@pytest.mark.parametrize("level", [2, 3, 4])
def test_levels_two_and_up_block_a_threat(level):
    for moves, blocks in BLOCKS:
        request = ThinkRequest("trax", tuple(moves.split()), level=level, budget=0.3, seed=2)
        choice = think(request)
        assert choice.move in blocks, (moves, choice)
        assert choice.reason is not None and choice.reason.kind == "blocks"
        assert choice.reason.cells  # where the threat was


@pytest.mark.parametrize("level", [3, 4])
def test_the_search_makes_the_double_threat_and_knows_it_wins(level):
    for moves, winning in DOUBLE_THREATS:
        request = ThinkRequest("trax", tuple(moves.split()), level=level, budget=1.5, seed=3)
        choice = think(request)
        assert choice.move in winning, (moves, choice)
        assert choice.depth >= 1
        if level == 3 or not fast.compiled():
            assert choice.score == WIN - 3  # threats are searched beyond the depth
        else:  # the compact core: a win its threat-space search proves, scored as won
            assert choice.score >= WON
        assert choice.reason is not None and choice.reason.kind == "threatens"
        assert len(choice.reason.cells) >= 2


def test_the_search_proves_the_double_threat_within_a_few_hundred_nodes():
    for moves, winning in DOUBLE_THREATS:
        board = Board.replay(moves.split())
        _, result = searched(board, nodes=3000, max_depth=3)
        assert str(result.move) in winning and result.score == 1_000_000 - 3 and result.proven


def test_level_two_does_not_see_two_moves_ahead():
    # one move ahead only: it blocks and wins at once, but the double threat
    # is beyond it (it plays some safe move instead, not always the winner)
    misses = 0
    for moves, winning in DOUBLE_THREATS:
        choice = think(ThinkRequest("trax", tuple(moves.split()), level=2, seed=4))
        misses += choice.move not in winning
    assert misses >= 1


def test_the_side_facing_a_double_threat_knows_it_has_lost():
    moves, winning = DOUBLE_THREATS[0]
    board = Board.replay([*moves.split(), *winning])
    _, result = searched(board, nodes=2000, max_depth=2)
    assert result.score <= -WON and result.proven
