"""A finished game's turning points (pbm.ai.review): only what the search
proves, every move named legal where it is said to be played, every
forced line a real game continuation that ends as claimed.  A counting
clock makes every search the same everywhere."""

from __future__ import annotations

import random

import pytest

from pbm.ai.review import KINDS, LONGEST_LINE, MOST_POINTS, _Seen, review
from pbm.trax import Board


class Ticks:
    """A clock that moves half a millisecond each time it is read (a search
    reads it at every node: some 2,000 nodes a second, on every machine)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 5e-4
        return self.now

#: Recorded games (white closes a loop on the last move).
GAMES = [
    ["@0+", "@1+", "B0/", "C1/", "B0/", "B0/", "B0+", "D4+", "C1\\", "D6\\", "A2+"],
    ["@0/", "A2+", "A3/", "@2/", "@2/", "A1/", "D2+", "B0+", "@3+", "D0/", "E1/", "F1/", "D0\\", "C1\\",
     "B1+", "E0+", "@5/"],
]


def random_game(seed: int) -> list[str]:
    rng = random.Random(seed)
    board = Board()
    while board.outcome() is None:
        board.play(rng.choice(board.legal_moves()))
    return [str(m) for m in board.moves]


def check(moves: list[str], found) -> None:
    game = Board.replay(moves)
    assert found.first >= 1
    assert len(found.points) <= MOST_POINTS
    assert [p.number for p in found.points] == sorted(p.number for p in found.points)
    for point in found.points:
        assert point.kind in KINDS
        before = game.after(point.number - 1)
        assert point.side == before.turn
        assert point.played == str(game.moves[point.number - 1])
        start = before.copy()
        if point.kind == "missed-win":
            assert point.better and point.better != point.played and point.line[0] == point.better
        else:
            start.play(point.played)
        assert len(point.line) <= LONGEST_LINE
        for move in point.line:
            start.play(move)  # legal, in the notation of the position it is played in
        if point.kind != "missed-win" and len(point.line) >= point.plies and start.outcome() is not None:
            other = "black" if point.side == "white" else "white"
            assert start.outcome().winner == (point.side if point.kind == "forced-win" else other)


@pytest.mark.parametrize("moves", GAMES, ids=["11 moves", "17 moves"])
def test_a_recorded_game_has_its_decisive_move(moves):
    found = review("trax", moves, budget=1.5, clock=Ticks())
    check(moves, found)
    assert found.first == 1  # the budget reached the first move
    assert found.points, "the loser was lost before the loop closed, and the search proves it"
    decisive = found.points[-1]
    assert decisive.kind in ("forced-win", "into-loss")


@pytest.mark.parametrize("seed", range(6))
def test_random_games_get_only_claims_that_hold(seed):
    moves = random_game(seed)
    check(moves, review("trax", moves, budget=0.5, clock=Ticks()))


def test_a_small_budget_looks_at_the_end_first():
    moves = GAMES[1]
    found = review("trax", moves, budget=0.1, clock=Ticks())
    assert 1 < found.first <= len(moves)
    check(moves, found)


def test_a_game_with_no_moves_has_no_turning_points():
    found = review("trax", [], budget=0.1, clock=Ticks())
    assert found.points == () and found.first == 1


def test_a_forced_move_passes_the_result_on_turned_round():
    assert _Seen(None, wins=3).before_forced(None).loses == 4  # type: ignore[arg-type]
    assert _Seen(None, loses=0).before_forced(None).wins == 1  # type: ignore[arg-type]
    assert _Seen(None).before_forced(None) == _Seen(None)  # type: ignore[arg-type]


def test_moves_that_are_no_game_are_refused():
    with pytest.raises(ValueError):
        review("trax", ["@0+", "Z9/"], budget=0.1, clock=Ticks())
