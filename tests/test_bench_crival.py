"""bench/crival.py and its C engine (bench/crival/trax.c): it builds, it
answers legal moves, it finds what a Trax player must find (a win in one, a
block, a double threat), and its own rules agree with pbm.trax turn by turn:
the legal turns, the tiles each places, and the loops and lines each
completes, over many random positions."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from pbm.trax import Board

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import crival  # noqa: E402

from tests.ai.helpers import THREATS, WINS  # noqa: E402

# black makes two threats no block stops (tests/ai/test_tactics.py)
DOUBLE_THREATS = [
    ("@0/ A2+ B1/ B0+ C1/ A4+ A0/", {"C4\\"}),
    ("@0+ A0\\ @1/ B3\\ C3\\ D2\\ C4\\", {"D1/"}),
]


@pytest.fixture(scope="module")
def engine():
    started = crival.Engine()
    yield started
    started.close()


def winning(board: Board) -> set[str]:
    me = 1 << (board.ply & 1)
    return {str(move) for move, bits in board.completions() if bits & me}


def threatened(board: Board) -> bool:
    """Does the side that just moved leave the other a win in one?"""
    me = 1 << (board.ply & 1)
    return any(bits & me for _, bits in board.completions())


def test_builds_into_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PBM_CRIVAL_CACHE", str(tmp_path))
    binary = crival.build()
    assert binary.parent == tmp_path and binary.exists()
    assert crival.build() == binary  # built once
    assert [p.name for p in tmp_path.iterdir()] == [binary.name]


def test_answers_a_legal_move(engine):
    board = Board.replay(["@0/", "A2+", "B1/", "B0+"])
    move, answer = engine.think(board, 0.05, seed=3)
    assert move in board.legal_moves()
    assert answer.nodes > 0 and answer.seconds >= 0
    first, _ = engine.think(Board(), 0.05)
    assert first in Board().legal_moves()


def test_an_illegal_answer_raises():
    board = Board.replay(["@0/", "A2+"])
    with pytest.raises(crival.CrivalError):
        crival.to_move(board, 40, 40, 5)


@pytest.mark.parametrize("moves", WINS)
def test_wins_in_one(engine, moves):
    board = Board.replay(moves.split())
    wins = winning(board)
    assert len(wins) == 1
    move, answer = engine.think(board, 0.2)
    assert str(move) in wins and answer.score > 0


@pytest.mark.parametrize("moves", THREATS)
def test_blocks_a_threat(engine, moves):
    board = Board.replay(moves.split())
    assert not winning(board)
    move, _ = engine.think(board, 0.2)
    board.play(move)
    assert board.outcome() is None and not winning(board)


@pytest.mark.parametrize(("moves", "best"), DOUBLE_THREATS)
def test_makes_a_double_threat(engine, moves, best):
    board = Board.replay(moves.split())
    move, answer = engine.think(board, 0.5)
    assert str(move) in best and answer.score > 0


def stretching(board: Board, rng: random.Random, quiet: set[str]):
    """A random legal move that ends nothing, most often one that widens
    the formation, so that tracks run across it and lines are made."""
    moves = [m for m in board.legal_moves() if str(m) in quiet] or board.legal_moves()
    wider = [m for m in moves if m.column in (0, board.width + 1)]
    return rng.choice(wider if wider and rng.random() < 0.9 else moves)


def test_agrees_with_pbm_trax_on_every_turn(engine):
    """Legal turns, the tiles each places (forced ones too), who wins and by
    what, and the search's shortcut for a turn that forces nothing, over the
    positions of random games (some stretched to make lines)."""
    rng = random.Random(20240601)
    positions = wins = lines = quick = 0
    for game in range(12):
        board = Board()
        board.play("@0/" if game % 2 else "@0+")
        while board.outcome() is None and board.ply < 50:
            x0, y0 = board.frame()
            theirs = {}
            quiet = set()
            for move in board.legal_moves():
                board.play(move)
                outcome = board.outcome()
                winner = -1 if outcome is None else ("white", "black").index(outcome.winner)
                reason = 0 if outcome is None else 1 if outcome.reason == "loop" else 2
                theirs[(x0 + move.column, y0 + move.row, move.tile)] = (winner, reason, board.last_tiles())
                if outcome is None:
                    quiet.add(str(move))
                board.pop()
            mine = {}
            for turn in engine.legal(board):
                mine[turn.chosen] = (turn.winner, turn.reason, list(turn.tiles))
                assert turn.same_key
                if turn.quick != -2:
                    quick += 1
                    assert len(turn.tiles) == 1 and turn.quick == turn.winner
            assert mine == theirs, " ".join(str(m) for m in board.moves)
            positions += 1
            wins += sum(1 for winner, _, _ in theirs.values() if winner >= 0)
            lines += sum(1 for _, reason, _ in theirs.values() if reason == 2)
            move = stretching(board, rng, quiet) if game % 2 else rng.choice(board.legal_moves())
            board.play(move)
    assert positions > 300 and wins > 2000 and lines >= 10 and quick > 10000


def test_plays_a_game_to_its_end(engine):
    board = Board.replay(["@0/", "A2+"])
    while board.outcome() is None and board.ply < 80:
        move, _ = engine.think(board, 0.01, seed=board.ply)
        board.play(move)
    assert board.outcome() is not None or board.ply == 80
