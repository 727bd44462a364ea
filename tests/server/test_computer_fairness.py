"""The computer's searcher is fair and never stuck (issue 28): jobs taken in
turns by player, at most two of a player's in hand; a job that kept failing
answered at once by a cheap player instead of given up; a locked database
logged once.  A real SQLite file, boards made by the domain (the triggers
queue the jobs), the searcher's own reads."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from datetime import UTC, datetime

import pytest

from pbm.config import Config, load_config
from pbm.domain import computer
from pbm.domain.boards import load_game, new_board
from pbm.domain.context import Context
from pbm.domain.store import Store
from pbm.domain.store.records import ComputerJob, User
from pbm.domain.turns import Turn, propose
from pbm.server import searcher as searching
from pbm.server.searcher import MAX_ATTEMPTS, PER_PLAYER, Searcher, Taken, fallback
from pbm.terms import BoardTerms
from pbm.trax import Board

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def make_config(folder, computer_lines: str = "") -> Config:
    path = folder / "pbm.toml"
    path.write_text('[server]\naddress = "pbm@pbm.test"\ndatabase = "pbm.sqlite3"\n'
                    f"[computer]\nmax_searches = 2\n{computer_lines}\n")
    return load_config(path)


class World:
    """A database with the computer and people, and boards against it."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.store = Store(config.server.database)
        machine = computer.ensure_account(self.store, config, NOW)
        assert machine is not None
        self.machine = machine
        self.people: dict[str, User] = {}

    def ctx(self) -> Context:
        return Context(self.store, self.config, NOW)

    def person(self, name: str) -> User:
        if name not in self.people:
            self.people[name] = self.store.create_user(name, name, "!", [f"{name}@example.org"], NOW)
        return self.people[name]

    def boards(self, name: str, count: int, *, level: int = 1, game: str = "trax") -> list[int]:
        """``count`` boards where the computer moves first against ``name``:
        a job each, queued by the trigger."""
        with self.store.atomic():
            return [new_board(self.ctx(), game, self.machine, self.person(name), BoardTerms(), level=level)
                    for _ in range(count)]

    def job_of(self, board: int) -> ComputerJob:
        (row,) = [r for r in self.store.computer_jobs_of(board) if r.done_at is None]
        return row

    def close(self) -> None:
        self.store.close()


@pytest.fixture
def world(tmp_path):
    w = World(make_config(tmp_path))
    yield w
    w.close()


@pytest.fixture
def searcher(world):
    s = Searcher(world.config, apply=None, stop=asyncio.Event(), clock=lambda: NOW)
    yield s
    s.close()


def boards_of(jobs) -> list[int]:
    return [job.board for job in jobs]


# -- taken in turns by player ------------------------------------------------------


def test_the_store_gives_every_players_oldest_job_before_anyones_second(world):
    many = world.boards("alice", 10)
    (one,) = world.boards("bob", 1)
    rows = world.store.open_computer_jobs(20)
    assert [r.board for r in rows[:3]] == [many[0], one, many[1]]  # not oldest first: bob's is second
    assert {r.player for r in rows} == {world.people["alice"].id, world.people["bob"].id}
    capped = world.store.open_computer_jobs(20, per_player=2)
    assert [r.board for r in capped] == [many[0], one, many[1]]
    skipped = world.store.open_computer_jobs(20, besides=(rows[0].id,), per_player=2)
    assert [r.board for r in skipped] == [many[1], one, many[2]]


def test_one_players_many_jobs_do_not_hold_back_anothers_one(world, searcher):
    many = world.boards("alice", 10)
    (one,) = world.boards("bob", 1)
    first = searcher._next_jobs(2, {})
    assert boards_of(first.searches) == [many[0], one]  # oldest first would have taken two of alice's
    assert all(world.job_of(b).attempts == 1 for b in boards_of(first.searches))  # marked started


def test_a_player_has_at_most_two_jobs_in_hand(world, searcher):
    many = world.boards("alice", 10)
    alice = world.people["alice"].id
    first = searcher._next_jobs(5, {})
    assert boards_of(first.searches) == many[:PER_PLAYER]  # room for five, but two of hers at once
    holding = {job.id: job.player for job in first.searches}
    assert set(holding.values()) == {alice}
    assert searcher._next_jobs(5, holding).searches == []
    done = first.searches[0].id  # one of hers done: the next of hers may go
    world.store.finish_computer_job(done, "played @0+", NOW)
    del holding[done]
    assert boards_of(searcher._next_jobs(5, holding).searches) == [many[2]]


def test_a_job_that_comes_while_another_player_fills_the_searches_is_next(world, searcher):
    many = world.boards("alice", 10)
    first = searcher._next_jobs(2, {})
    assert boards_of(first.searches) == many[:2]
    (one,) = world.boards("bob", 1)  # queued while both searches are alice's
    world.store.finish_computer_job(first.searches[0].id, "played @0+", NOW)  # one done: room for one
    holding = {job.id: job.player for job in first.searches[1:]}
    assert boards_of(searcher._next_jobs(1, holding).searches) == [one]  # not alice's third


def test_the_player_served_least_recently_goes_first(world, searcher):
    a = world.boards("alice", 3)
    b = world.boards("bob", 3)

    def taken(room: int) -> list[int]:  # searched and played at once
        jobs = searcher._next_jobs(room, {}).searches
        for job in jobs:
            world.store.finish_computer_job(job.id, "played @0+", NOW)
        return boards_of(jobs)

    assert taken(2) == [a[0], b[0]]
    (c,) = world.boards("carol", 1)  # never served: before both
    assert taken(3) == [c, a[1], b[1]]
    assert taken(1) == [a[2]]  # served before bob
    (d,) = world.boards("carol", 1)
    assert taken(2) == [d, b[2]]  # carol last served before bob was


def test_a_restart_serves_the_open_jobs_again_fairly(world, tmp_path):
    many = world.boards("alice", 6)
    (one,) = world.boards("bob", 1)
    before = Searcher(world.config, None, asyncio.Event(), lambda: NOW)
    try:
        assert boards_of(before._next_jobs(2, {}).searches) == [many[0], one]
    finally:
        before.close()  # stopped mid-search: the jobs stay open
    after = Searcher(world.config, None, asyncio.Event(), lambda: NOW)
    try:
        assert boards_of(after._next_jobs(2, {}).searches) == [many[0], one]
    finally:
        after.close()


def test_a_stale_job_makes_way_for_the_next(world, searcher):
    a = world.boards("alice", 3)
    world.store.update_board(a[0], moves="@0+")  # the board moved on: its job no longer fits
    taken = searcher._next_jobs(2, {})
    assert boards_of(taken.searches) == a[1:]
    assert [r.outcome for r in world.store.computer_jobs_of(a[0])] == ["stale"]


def test_the_searcher_as_the_daemon_runs_it_serves_the_one_job_among_the_first(world):
    """The real loop and worker process: alice's ten boards were queued
    first, bob's one is among the first two answered (oldest first, it was
    the eleventh)."""
    many = world.boards("alice", 10)
    (one,) = world.boards("bob", 1)
    answered: list[int] = []

    async def main() -> None:
        stop = asyncio.Event()
        searcher: Searcher

        async def apply(job_id: int, answer: computer.Answer) -> None:
            row = world.store.computer_job(job_id)
            assert row is not None and answer.move
            answered.append(row.board)
            world.store.finish_computer_job(job_id, f"played {answer.move}", NOW)
            if len(answered) >= 4:
                stop.set()
            searcher.wake()

        searcher = Searcher(world.config, apply, stop, lambda: NOW)
        await asyncio.wait_for(searcher.run(), timeout=120)

    asyncio.run(main())
    assert one in answered[:2], answered
    assert answered[0] == many[0]


# -- never stuck: the fallback -----------------------------------------------------


def fail_often(world: World, board: int, attempts: int = MAX_ATTEMPTS) -> ComputerJob:
    world.store._run("UPDATE computer_jobs SET attempts = ? WHERE board = ? AND done_at IS NULL", (attempts, board))
    return world.job_of(board)


def play_through_pipeline(world: World, caplog, *, failing: bool = False) -> list[tuple[int, computer.Answer]]:
    """Run the searcher's loop until the open jobs are read once; the
    answers it played (through the real pipeline unless ``failing``)."""
    from pbm.app.pipeline import Pipeline

    pipeline = Pipeline(world.store, world.config)
    played: list[tuple[int, computer.Answer]] = []

    async def main() -> None:
        stop = asyncio.Event()

        async def apply(job_id: int, answer: computer.Answer) -> None:
            played.append((job_id, answer))
            stop.set()
            if failing:
                raise RuntimeError("the pipeline is broken")
            pipeline.computer_turn(job_id, answer, now=NOW)

        searcher = Searcher(world.config, apply, stop, lambda: NOW)
        task = asyncio.ensure_future(searcher.run())
        await asyncio.wait_for(stop.wait(), timeout=30)
        searcher.wake()
        await asyncio.wait_for(task, timeout=30)

    with caplog.at_level(logging.INFO, logger="pbm.computer"):
        asyncio.run(main())
    return played


def test_a_job_that_failed_too_often_gets_a_move_at_once(world, caplog):
    (number,) = world.boards("alice", 1, level=4)
    row = fail_often(world, number)
    played = play_through_pipeline(world, caplog)
    assert [job_id for job_id, _ in played] == [row.id]  # no search: the fallback, played
    board_row = world.store.board(number)
    board = Board.replay(board_row.moves.split(), "trax")
    assert board.ply == 1 and str(board.moves[0]) == played[0][1].move
    (done,) = world.store.computer_jobs_of(number)
    assert done.outcome == f"played {played[0][1].move}"
    errors = [r for r in caplog.records if r.levelno == logging.ERROR and r.name == "pbm.computer"]
    assert len(errors) == 1 and f"failed {MAX_ATTEMPTS} times" in errors[0].getMessage()
    assert "computer: searching" not in caplog.text


def test_an_offer_that_failed_too_often_is_declined(world, caplog):
    (number,) = world.boards("alice", 1, level=4)
    with world.store.atomic():  # the computer moves, then alice offers a draw on her turn
        world.store._run("UPDATE computer_jobs SET done_at = ?, outcome = 'played @0+' WHERE board = ?",
                         ("2026-03-01T12:00:00Z", number))
        world.store.update_board(number, moves="@0+", updated_at="2026-03-01T12:00:00Z")
        ctx = world.ctx()
        propose(ctx, load_game(ctx, number), world.people["alice"], "draw", Turn())
    row = fail_often(world, number)
    assert row.pending == "draw"
    played = play_through_pipeline(world, caplog)
    assert played == [(row.id, computer.Answer(accept=False))]
    assert world.store.computer_job(row.id).outcome == "declined draw"
    assert world.store.board(number).pending_kind is None and world.store.board(number).status == "active"


def test_a_fallback_that_cannot_be_played_is_given_up(world, caplog):
    (number,) = world.boards("alice", 1)
    row = fail_often(world, number)
    played = play_through_pipeline(world, caplog, failing=True)
    assert [job_id for job_id, _ in played] == [row.id]
    assert world.store.computer_job(row.id).outcome == "given up"
    assert "its fallback could not be played; given up" in caplog.text


def test_a_job_whose_fallback_failed_before_is_given_up_when_read(world, searcher, caplog):
    (number,) = world.boards("alice", 1)
    row = fail_often(world, number, MAX_ATTEMPTS + 1)  # e.g. the daemon stopped while playing it
    with caplog.at_level(logging.ERROR, logger="pbm.computer"):
        assert searcher._next_jobs(2, {}) == Taken()
    assert world.store.computer_job(row.id).outcome == "given up"
    assert "given up" in caplog.text


def test_the_fallback_is_the_cheap_player(world):
    (number,) = world.boards("alice", 1, level=4, game="minitrax")
    job = computer.job_for(world.ctx(), world.job_of(number))
    assert job is not None and job.level == 4
    started = time.process_time()
    answer = fallback(job)
    assert time.process_time() - started < 1.0  # level 4 would take its 8 s
    assert answer.move in {str(m) for m in Board("minitrax").legal_moves()}


# -- a locked database, logged once ---------------------------------------------------


class LockedStore(Store):
    """Reads of the jobs fail as if another connection held the database,
    ``times`` times, then work."""

    def __init__(self, path, times: int) -> None:
        super().__init__(path)
        self.times = times
        self.reads = 0

    def open_computer_jobs(self, limit: int, **kwargs) -> list[ComputerJob]:
        self.reads += 1
        if self.reads <= self.times:
            raise sqlite3.OperationalError("database is locked")
        return super().open_computer_jobs(limit, **kwargs)


def run_reads(world: World, store: Store, reads: int, monkeypatch) -> None:
    """The searcher's loop until its store has been read ``reads`` times."""
    monkeypatch.setattr(searching, "POLL_SECONDS", 0.01)

    async def main() -> None:
        stop = asyncio.Event()
        searcher = Searcher(world.config, None, stop, lambda: NOW)
        searcher._store = store
        task = asyncio.ensure_future(searcher.run())
        deadline = time.monotonic() + 30
        while store.reads < reads and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        stop.set()
        await asyncio.wait_for(task, timeout=30)

    asyncio.run(main())


def test_a_locked_database_is_logged_once_in_one_line_until_it_recovers(world, caplog, monkeypatch):
    store = LockedStore(world.config.server.database, times=20)
    with caplog.at_level(logging.INFO, logger="pbm.computer"):
        run_reads(world, store, 25, monkeypatch)
    records = [r for r in caplog.records if r.name == "pbm.computer"]
    warnings = [r for r in records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in records]
    assert "database is locked" in warnings[0].getMessage() and warnings[0].exc_info is None
    assert not [r for r in records if r.levelno >= logging.ERROR]
    recovered = [r for r in records if r.levelno == logging.INFO and "works again" in r.getMessage()]
    assert len(recovered) == 1
    assert records.index(recovered[0]) > records.index(warnings[0])


def test_other_failures_to_read_keep_their_traceback(world, caplog, monkeypatch):
    class BrokenStore(LockedStore):
        def open_computer_jobs(self, limit: int, **kwargs) -> list[ComputerJob]:
            self.reads += 1
            raise sqlite3.OperationalError("no such table: computer_jobs")

    store = BrokenStore(world.config.server.database, times=0)
    with caplog.at_level(logging.INFO, logger="pbm.computer"):
        run_reads(world, store, 3, monkeypatch)
    failures = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(failures) >= 3 and all(r.exc_info for r in failures)
