"""The wall-clock deadline: a search starved of CPU time by other work on the
machine still answers by the request's ``wall`` time.  The clocks are
injected: a CPU clock that barely moves and a wall clock that counts."""

from __future__ import annotations

import pytest

from pbm.ai import DEFAULT_WALL_FACTOR, ThinkRequest, think, wants_draw
from pbm.ai.search import WON, Searcher
from pbm.trax import Board

from .helpers import Ticks, random_position


class Frozen:
    """A CPU clock that barely moves (the process gets no CPU time)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1e-9
        return self.now


def request_for(board: Board, level: int, **options: object) -> ThinkRequest:
    return ThinkRequest(board.variant.name, tuple(str(m) for m in board.moves), level=level, **options)


def test_the_wall_time_defaults_to_a_multiple_of_the_budget():
    assert DEFAULT_WALL_FACTOR == 3
    assert ThinkRequest("trax", level=4, budget=2.0).wall_seconds() == 7.0
    assert ThinkRequest("trax", level=3).wall_seconds() == DEFAULT_WALL_FACTOR * 1.0 + 1.0
    assert ThinkRequest("trax", level=4, budget=2.0, wall=0.5).wall_seconds() == 0.5
    with pytest.raises(ValueError, match="wall"):
        ThinkRequest("trax", wall=0)


# level 4 in plain Trax searches on the compact core, on the real clocks (tests/ai/test_core.py)
@pytest.mark.parametrize("level,game", ((3, "trax"), (4, "8x8trax")))
@pytest.mark.parametrize("seed", (1, 2, 3))
def test_a_starved_search_stops_by_the_wall_deadline(level, game, seed):
    board = random_position(game, seed, 14, calm=True)
    assert not board.completions()  # nothing found at once: the search runs
    wall_clock = Ticks()
    wall = 3000.0  # wall-clock readings, one per node
    choice = think(request_for(board, level, budget=8.0, wall=wall, seed=seed), clock=Frozen(), wall_clock=wall_clock)
    # the CPU budget never ran out; the wall deadline stopped the search
    assert wall_clock.now <= 1 + wall + 2
    if abs(choice.score) < WON:  # nothing proven early: it used the time it had
        assert wall_clock.now > wall * 0.5
    assert choice.move in {str(m) for m in board.legal_moves()}
    assert choice.depth >= 1  # a whole first iteration fits in 3000 nodes
    assert 0 < choice.nodes <= wall


def test_the_wall_deadline_cuts_an_iteration_short():
    board = random_position("trax", 4, 20, calm=True)
    for wall in (200.0, 600.0, 1500.0):
        ticks = Ticks()
        searcher = Searcher(board, 1e9, seed=1, clock=Frozen(), wall_deadline=wall, wall_clock=ticks)
        result = searcher.run(1e9, 0.0, wall=wall, wall_start=0.0)
        assert ticks.now <= wall + 2  # the threat search and the iterations each read it once past the deadline
        assert result.nodes <= wall
        assert result.move in board.legal_moves()
        unlimited = Searcher(board, 1e9, seed=1, clock=Frozen(), wall_clock=Ticks())
        assert unlimited.run(1e9, 0.0, max_depth=result.depth + 1).nodes > result.nodes


def test_no_new_iteration_once_half_the_wall_time_is_spent():
    board = random_position("trax", 7, 16, calm=True)  # no forced win by threats: the iterations run
    ticks = Ticks()
    searcher = Searcher(board, 1e9, seed=1, clock=Frozen(), wall_deadline=1e9, wall_clock=ticks)
    result = searcher.run(1e9, 0.0, wall=100.0, wall_start=0.0)
    # the first iteration took more than half of 100 readings: none followed
    assert result.depth == 1
    assert ticks.now < 1e9


@pytest.mark.parametrize("level", (3, 4))
def test_wants_draw_keeps_the_wall_deadline(level):
    board = random_position("trax", 6, 14, calm=True)
    wall_clock = Ticks()
    request = request_for(board, level, budget=8.0, wall=500.0, seed=1)
    answer = wants_draw(request, clock=Frozen(), wall_clock=wall_clock)
    assert isinstance(answer, bool)
    assert wall_clock.now <= 1 + 500 + 2


def test_level_two_stops_looking_at_the_wall_deadline():
    board = random_position("trax", 7, 12, calm=True)
    seen = 0
    for seed in range(6):
        wall_clock = Ticks()
        choice = think(request_for(board, 2, wall=2.0, seed=seed), wall_clock=wall_clock)
        assert choice.move in {str(m) for m in board.legal_moves()}
        # one reading to start, then one per move looked at once a safe one
        # was found: the second such reading is past the deadline
        assert wall_clock.now <= 4
        seen += wall_clock.now > 1
    assert seen  # the loop did read the wall clock
