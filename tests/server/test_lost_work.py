"""A worker that dies (say, a crash in the compiled search core) takes its
task with it: the pool starts a new worker but never answers that task.
The searcher's future for it fails after its time (LostWork), so the job
is tried again like any failed search instead of holding a slot for ever."""

from __future__ import annotations

import asyncio
import os

import pytest

from pbm.ai import DEFAULT_WALL_FACTOR, MAX_BUDGET
from pbm.server import searcher as searching
from pbm.server.searcher import LostWork, Searcher

from .test_computer_fairness import NOW, World, make_config

pytestmark = pytest.mark.slow


def _die() -> None:
    os._exit(1)


def _double(n: int) -> int:
    return 2 * n


@pytest.fixture
def world(tmp_path):
    w = World(make_config(tmp_path))
    yield w
    w.close()


def test_a_task_whose_worker_died_fails_instead_of_waiting_for_ever(world):
    async def scenario() -> tuple[BaseException | None, int]:
        s = Searcher(world.config, apply=None, stop=asyncio.Event(), clock=lambda: NOW)
        try:
            lost = s._in_pool(_die, lost_after=3.0)
            try:
                await asyncio.wait_for(lost, 60)
                error = None
            except LostWork as exc:
                error = exc
            answered = await asyncio.wait_for(s._in_pool(_double, 21, lost_after=60.0), 60)
            return error, answered
        finally:
            s.close()

    error, answered = asyncio.run(scenario())
    assert isinstance(error, LostWork) and "3 s" in str(error)
    assert answered == 42  # the pool started another worker: the computer goes on


def test_the_time_a_task_is_given_grows_with_its_budget():
    assert searching.lost_after(8.0) == searching.LOST_FACTOR * 8.0 + searching.LOST_MARGIN
    # beyond the wall deadline of any search (DEFAULT_WALL_FACTOR x its budget + 1 s)
    assert searching.lost_after(None) > DEFAULT_WALL_FACTOR * 1.0 + 1.0
    assert searching.lost_after(MAX_BUDGET) > DEFAULT_WALL_FACTOR * MAX_BUDGET + 1.0
