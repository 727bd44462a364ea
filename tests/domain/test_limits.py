"""Daily caps in one place: ``limits.spend`` counts within a day's share,
per kind and key, and a new UTC day starts a new share."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pbm.config import load_config
from pbm.domain import limits
from pbm.domain.context import Context
from pbm.domain.store import Store

NOON = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


@pytest.fixture
def ctx(tmp_path):
    store = Store(tmp_path / "pbm.sqlite3")
    yield Context(store, load_config(None), NOON)
    store.close()


def test_spend_counts_up_to_the_cap_and_no_further(ctx):
    assert [limits.spend(ctx, "signup", "a@example.org", 3) for _ in range(5)] == [True, True, True, False, False]
    assert limits.used(ctx, "signup", "a@example.org") == 3  # a refused spend counts nothing
    assert limits.left(ctx, "signup", "a@example.org", 3) == 0
    assert limits.left(ctx, "signup", "a@example.org", 5) == 2


def test_each_kind_and_key_has_its_own_share(ctx):
    assert limits.spend(ctx, "signup", "a@example.org", 1)
    assert limits.spend(ctx, "signup", "b@example.org", 1)
    assert limits.spend(ctx, "invitation", "a@example.org", 1)
    assert not limits.spend(ctx, "signup", "a@example.org", 1)


def test_spending_several_at_once_is_all_or_nothing(ctx):
    assert limits.spend(ctx, "to-others", "7", 10, 8)
    assert not limits.spend(ctx, "to-others", "7", 10, 3)
    assert limits.used(ctx, "to-others", "7") == 8
    assert limits.spend(ctx, "to-others", "7", 10, 2)


def test_spend_each_spends_for_every_key_or_for_none(ctx):
    assert limits.spend(ctx, "invitation", "1", 1)
    assert not limits.spend_each(ctx, "invitation", ["1", "2"], 1)
    assert limits.used(ctx, "invitation", "2") == 0
    assert limits.spend_each(ctx, "invitation", ["2", "3"], 1)
    assert [limits.used(ctx, "invitation", k) for k in "123"] == [1, 1, 1]


def test_a_new_utc_day_gives_a_new_share(ctx):
    assert limits.spend(ctx, "signup", "a@example.org", 1)
    tomorrow = Context(ctx.store, ctx.config, NOON + timedelta(hours=12))
    assert limits.used(tomorrow, "signup", "a@example.org") == 0
    assert limits.spend(tomorrow, "signup", "a@example.org", 1)
