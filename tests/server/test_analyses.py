"""Analyses of finished games wait in the computer's queue (issue 32): in
turns with its moves, by player; run by the real worker processes within
their budget; mailed through the pipeline once; given up after failing
too often.  A real SQLite file, boards made by the domain."""

from __future__ import annotations

import asyncio
import logging

import pytest

from pbm.ai.review import Review
from pbm.app.pipeline import Pipeline
from pbm.domain.boards import load_game
from pbm.domain.turns import Turn, try_move
from pbm.server import searcher as searching
from pbm.server.searcher import MAX_ATTEMPTS, Searcher

from .test_computer_fairness import NOW, World, make_config

LOOP_GAME = ["@0/", "A2+", "A3/", "@2/", "@2/", "A1/", "D2+", "B0+", "@3+", "D0/", "E1/", "F1/", "D0\\",
             "C1\\", "B1+", "E0+", "@5/"]


@pytest.fixture
def world(tmp_path):
    w = World(make_config(tmp_path, "analysis_seconds = 0.5"))
    yield w
    w.close()


def finished(world: World, white: str = "carol", black: str = "dave") -> int:
    """A game between two people played to its end (white closes a loop)."""
    from pbm.domain.boards import new_board
    from pbm.terms import BoardTerms

    with world.store.atomic():
        number = new_board(world.ctx(), "trax", world.person(white), world.person(black), BoardTerms())
        for move in LOOP_GAME:
            game = load_game(world.ctx(), number)
            try_move(world.ctx(), game, game.to_move, move, Turn())
    assert world.store.board(number).status == "finished"
    return number


def ask(world: World, board: int, who: str) -> int:
    user = world.person(who)
    with world.store.atomic():
        return world.store.queue_analysis(board, f"{who}@example.org", f"u{user.id}", None, NOW)


def test_an_analysis_takes_its_turn_among_another_players_moves(world):
    number = finished(world)
    world.boards("alice", 10)
    analysis = ask(world, number, "bob")
    s = Searcher(world.config, apply=None, stop=asyncio.Event(), clock=lambda: NOW)
    try:
        taken = s._next_jobs(2, {})
        assert [a.id for a in taken.analyses] == [analysis]  # not after alice's ten
        assert len(taken.searches) == 1
        assert world.store.analysis(analysis).attempts == 1  # marked started
        held = {job.id: job.player for job in taken.searches}
        assert s._next_jobs(2, held, {analysis: taken.analyses[0].requester}).analyses == []  # in hand
    finally:
        s.close()


def test_a_players_analyses_count_among_his_jobs_in_hand(world):
    first, second, third = (finished(world) for _ in range(3))
    for number in (first, second, third):
        ask(world, number, "bob")
    s = Searcher(world.config, apply=None, stop=asyncio.Event(), clock=lambda: NOW)
    try:
        taken = s._next_jobs(5, {})
        assert [a.board for a in taken.analyses] == [first, second]  # two of his at once, as with moves
    finally:
        s.close()


def test_the_real_loop_analyses_and_mails_once(world):
    number = finished(world)
    analysis = ask(world, number, "bob")
    pipeline = Pipeline(world.store, world.config)
    mailed: list[Review] = []

    async def main() -> None:
        stop = asyncio.Event()

        async def apply_analysis(analysis_id: int, found: Review) -> None:
            result = pipeline.analysis_done(analysis_id, found, now=NOW)
            assert [str(m["To"]) for m in result.replies] == ["bob@example.org"]
            mailed.append(found)
            stop.set()

        s = Searcher(world.config, None, stop, lambda: NOW, apply_analysis)
        await asyncio.wait_for(s.run(), timeout=120)

    asyncio.run(main())
    (found,) = mailed
    assert found.seconds <= 0.5 * 1.5 + 0.2  # its budget (CPU), with the last search's overrun
    assert world.store.analysis(analysis).done_at is not None
    assert pipeline.analysis_done(analysis, found, now=NOW).status.name == "DUPLICATE"  # mailed once


def test_an_analysis_that_keeps_failing_is_given_up(world, caplog):
    number = finished(world)
    analysis = ask(world, number, "bob")
    world.store._run("UPDATE analyses SET attempts = ? WHERE id = ?", (MAX_ATTEMPTS, analysis))
    s = Searcher(world.config, apply=None, stop=asyncio.Event(), clock=lambda: NOW)
    try:
        with caplog.at_level(logging.ERROR, logger="pbm.computer"):
            taken = s._next_jobs(2, {})
        assert taken.analyses == []
        assert world.store.analysis(analysis).outcome == "given up"
        assert "given up" in caplog.text
    finally:
        s.close()


def test_the_workers_run_at_nice_19_never_idle_class(monkeypatch):
    calls: list[tuple] = []
    monkeypatch.setattr(searching.os, "sched_setscheduler", lambda pid, policy, param: calls.append(("sched", policy)))
    monkeypatch.setattr(searching.os, "nice", lambda n: calls.append(("nice", n)) or 0)
    searching._lowest_priority()
    assert ("sched", searching.os.SCHED_BATCH) in calls
    assert ("nice", 19) in calls
    assert all(c != ("sched", getattr(searching.os, "SCHED_IDLE", -1)) for c in calls)


def test_an_analysis_after_a_closed_one_still_counts_as_its_players(world):
    first, second, third, fourth = (finished(world) for _ in range(4))
    given_up = ask(world, first, "bob")
    world.store._run("UPDATE analyses SET attempts = ? WHERE id = ?", (MAX_ATTEMPTS, given_up))
    for number in (second, third, fourth):
        ask(world, number, "bob")
    s = Searcher(world.config, apply=None, stop=asyncio.Event(), clock=lambda: NOW)
    try:
        taken = s._next_jobs(5, {})
        assert [a.board for a in taken.analyses] == [second, third]  # two of his in hand, not three
        held = {a.id: a.requester for a in taken.analyses}
        assert s._next_jobs(5, {}, held).analyses == []
    finally:
        s.close()
