"""When the computer accepts (or offers) a draw, level by level, as
pbm.ai.players documents it."""

from __future__ import annotations

import pytest

from pbm.ai import CLEARLY_AHEAD, CORE_CLEARLY_AHEAD, LEVELS, WIN, ThinkRequest, clearly_ahead, fast, wants_draw
from pbm.ai import players as players_module
from pbm.ai.evaluate import evaluate
from pbm.ai.search import Result
from pbm.trax import Board

from .helpers import random_position
from .test_tactics import DOUBLE_THREATS


def request(moves: tuple[str, ...] | list[str], level: int, variant: str = "trax", budget: float = 0.3) -> ThinkRequest:
    return ThinkRequest(variant, tuple(str(m) for m in moves), level=level, budget=budget, seed=1)


@pytest.mark.parametrize("level", LEVELS)
def test_never_once_the_game_is_over(level):
    finished = ["@0+", "B1\\", "B2/", "A2+", "A3/", "A0\\", "@3+", "@3\\", "B2+"]
    assert Board.replay(finished).outcome() is not None
    assert wants_draw(request(finished, level)) is False


@pytest.mark.parametrize("level", LEVELS)
def test_never_with_a_win_in_one(level):
    moves, winning = DOUBLE_THREATS[0]
    board = Board.replay([*moves.split(), *winning])
    board.play(board.legal_moves()[0])  # white does not block both: black wins at once
    assert any(bits & 2 for _, bits in board.completions())
    assert wants_draw(request(board.moves, level)) is False


@pytest.mark.parametrize("level", [3, 4])
def test_the_searching_levels_refuse_when_they_see_a_win(level):
    for moves, _ in DOUBLE_THREATS:
        assert wants_draw(request(moves.split(), level, budget=1.0)) is False


@pytest.mark.parametrize("level", [3, 4])
def test_the_searching_levels_accept_a_lost_position(level):
    moves, winning = DOUBLE_THREATS[0]
    assert wants_draw(request([*moves.split(), *winning], level)) is True


def test_level_four_accepts_an_even_opening():
    assert wants_draw(request(["@0/"], 4, budget=0.5)) is True


@pytest.mark.parametrize("level", [1, 2])
def test_the_light_levels_follow_the_evaluation(level):
    seen = set()
    for seed in range(30):
        board = random_position("trax", seed, 6 + seed % 10, calm=True)
        if board.outcome() is not None:
            continue
        expected = evaluate(board) <= 0
        assert wants_draw(request(board.moves, level)) is expected
        seen.add(expected)
    assert seen == {True, False}


# level 4 in plain Trax: the compact core's measure when it is compiled
AHEAD = CORE_CLEARLY_AHEAD if fast.compiled() else CLEARLY_AHEAD


@pytest.mark.parametrize("score,level,accepts", [
    (0, 3, True), (-40, 3, True), (1, 3, False),
    (0, 4, True), (AHEAD, 4, True), (AHEAD + 1, 4, False), (WIN - 5, 4, False),
    (-(WIN - 4), 4, True),
])
def test_the_rule_on_the_search_score(monkeypatch, score, level, accepts):
    class Fixed:
        def __init__(self, board: Board, *args: object, **kwargs: object) -> None:
            self.board = board

        def run(self, *args: object, **kwargs: object) -> Result:
            return Result(self.board.legal_moves()[0], score, 3, 100, False)

    def fixed_core(board: Board, *args: object) -> fast.CoreAnswer:
        return fast.CoreAnswer(board.legal_moves()[0], 3, 100, score, 0.0)

    monkeypatch.setattr(players_module, "Searcher", Fixed)
    monkeypatch.setattr(fast, "choose", fixed_core)  # level 4 in plain Trax: the compact core
    assert wants_draw(request(["@0/", "A0+"], level)) is accepts


def test_level_four_is_clearly_ahead_by_its_searchs_own_measure():
    # plain Trax is searched on the compact core, the other game types on the Board's search
    expected = CORE_CLEARLY_AHEAD if fast.compiled() else CLEARLY_AHEAD
    assert clearly_ahead(Board.replay(["@0/"], "trax"), 4) == expected
    assert clearly_ahead(Board.replay(["@0/"], "8x8trax"), 4) == CLEARLY_AHEAD
    assert clearly_ahead(Board.replay(["@0/"], "trax"), 3) == CLEARLY_AHEAD
