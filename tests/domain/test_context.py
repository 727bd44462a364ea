"""``Context.savepoint``: one command's work, all or nothing, and the
positions it loaded kept only when it succeeded."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from pbm.config import load_config
from pbm.domain import limits
from pbm.domain.context import Context
from pbm.domain.store import Store
from pbm.domain.store.records import BoardRecord
from pbm.trax import Board

NOON = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


@dataclass
class Loaded:
    board: Board
    row: BoardRecord


@pytest.fixture
def ctx(tmp_path):
    store = Store(tmp_path / "pbm.sqlite3")
    yield Context(store, load_config(None), NOON)
    store.close()


def _lend(ctx: Context, number: int) -> Board:
    board = Board.replay(["@0/"], "trax")
    row = BoardRecord.__new__(BoardRecord)
    object.__setattr__(row, "moves", "@0/")
    ctx.positions.lend(number, Loaded(board, row))
    return board


def test_a_block_that_succeeds_keeps_its_writes_and_its_positions(ctx):
    with ctx.savepoint():
        limits.spend(ctx, "signup", "a@example.org", 5)
        _lend(ctx, 101)
    assert limits.used(ctx, "signup", "a@example.org") == 1
    assert ctx.positions.holds(101, "@0/") and not ctx.positions.lent


def test_a_block_that_raises_leaves_nothing_behind(ctx):
    with pytest.raises(LookupError), ctx.savepoint():
        limits.spend(ctx, "signup", "a@example.org", 5)
        _lend(ctx, 101)
        raise LookupError
    assert limits.used(ctx, "signup", "a@example.org") == 0
    assert not ctx.positions.holds(101, "@0/") and not ctx.positions.lent


def test_an_inner_block_rolls_back_alone(ctx):
    with ctx.savepoint():
        limits.spend(ctx, "signup", "a@example.org", 5)
        with pytest.raises(ZeroDivisionError), ctx.savepoint():
            limits.spend(ctx, "signup", "b@example.org", 5)
            raise ZeroDivisionError
    assert limits.used(ctx, "signup", "a@example.org") == 1
    assert limits.used(ctx, "signup", "b@example.org") == 0
