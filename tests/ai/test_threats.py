"""The threat search (pbm.ai.threats): forced wins through threats only,
each win it claims checked by playing it out against every defence."""

from __future__ import annotations

import pytest

from pbm.ai.search import WIN, WON, Searcher
from pbm.ai.threats import ThreatSearch, cannot_block, loop_regions, refuted, threat_cells
from pbm.ai.zobrist import Position
from pbm.trax import Board, Move

from .helpers import Ticks, random_position, verify_forced_win

#: Positions (trax) where the side to move wins by threats in five plies or
#: more, and a plain search of that many nodes proves nothing.
FORCED = [
    ("@0+ @1+ A0\\ @2/ B0+ B0+ C1/ B5\\ C3/ B0/ D2+ E3/ E1+ A3+ @4+ B2+ D1/ @3/ H3+ A5+ F5+ B6+ H2/ C7\\ "
     "@3/ @4/", 400),
    ("@0/ @1+ B2+ C1/ @1+ D3+ @1+ F2/ G3+ A0\\ C3+ E5+ H4/ G2/ @1/ F6+ C1+ E1\\ A0+ C1\\ A0+ C5/ G3+ @1+ "
     "@1+ D6\\ C5/ K4+ A0\\ B6+ H10\\ J3+ D8+ I10/", 2000),
]


def propose(board: Board, plies: int) -> Move | None:
    """The threat search's move in the position (a fresh one each time)."""
    found = ThreatSearch(Position(board), lambda: None).win((plies + 1) // 2)
    return found[0] if found is not None else None


def test_every_win_it_claims_holds_against_every_defence():
    claimed = 0
    for seed in range(10):
        board = random_position("trax", 500 + seed, 14 + 2 * seed, calm=True)
        if board.outcome() is not None:
            continue
        ticks = Ticks()

        def tick(ticks: Ticks = ticks) -> None:
            if ticks() > 1500:
                raise TimeoutError

        try:
            found = ThreatSearch(Position(board), tick).win(3)
        except TimeoutError:
            continue
        if found is None:
            continue
        move, plies = found
        claimed += 1
        assert plies in (1, 3, 5)
        root = board.ply
        assert verify_forced_win(board, plies, lambda b, p, first=move, root=root: first if b.ply == root
                                 else propose(b, p)), (seed, move, plies)
    assert claimed >= 3


@pytest.mark.parametrize("moves,nodes", FORCED)
def test_the_threat_search_finds_what_a_small_plain_search_misses(moves, nodes):
    board = Board.replay(moves.split(), "trax")
    assert board.outcome() is None and not board.completions()
    plain = Searcher(board, float(nodes), seed=0, clock=Ticks(), threats=False).run(4.0 * nodes, 0.0)
    assert plain.score < WON  # the plain search proves nothing
    result = Searcher(board, float(nodes), seed=0, clock=Ticks(), threats=True).run(4.0 * nodes, 0.0)
    assert result.score >= WON and result.proven
    plies = WIN - result.score
    assert plies >= 5 and result.depth == plies
    root = board.ply
    assert verify_forced_win(board, plies, lambda b, p: result.move if b.ply == root else propose(b, p))


def test_a_double_threat_is_found_as_a_win_in_three():
    found = 0
    for seed in range(30):
        board = random_position("trax", 700 + seed, 16 + seed % 12, calm=True)
        if board.outcome() is not None:
            continue
        win = ThreatSearch(Position(board), lambda: None).win(2)
        if win is None:
            continue
        move, plies = win
        assert plies == 3
        board.play(move)
        # every answer leaves a completion of the mover's colour standing
        mover_bit = 2 >> (board.ply & 1)
        for reply in board.legal_moves():
            board.play(reply)
            outcome = board.outcome()
            assert (outcome is not None and outcome.winner == board.turn) or any(
                bits & mover_bit for _, bits in board.completions()), (seed, move, reply)
            board.pop()
        board.pop()
        found += 1
    assert found >= 3


def test_no_forced_wins_where_the_next_tile_or_points_decide():
    for variant in ("luckytrax", "pointtrax"):
        board = random_position(variant, 3, 16)
        assert ThreatSearch(Position(board), lambda: None).win(3) is None


def test_a_move_far_from_a_loop_threat_is_known_not_to_block_it():
    judged = 0
    for seed in range(12):
        board = random_position("trax", 800 + seed, 20 + seed, calm=False)
        if board.outcome() is not None:
            continue
        bit = 1 << (board.ply & 1)
        other = 3 ^ bit
        threats = [(m, b) for m, b in board.completions() if b & other and not b & bit]
        if not threats or any(b & bit for _, b in board.completions()):
            continue
        cells = threat_cells(board, threats)
        regions = loop_regions(board, threats, cells, other)
        for move in board.legal_moves():
            if cannot_block(board, move, regions):
                judged += 1
                board.play(move)
                outcome = board.outcome()
                assert (outcome is not None and outcome.winner != board.turn) or refuted(board, cells, other)
                board.pop()
    assert judged >= 50
