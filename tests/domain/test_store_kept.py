"""What the store keeps in memory between mails is never stale: a write by
any connection, a rollback, a write earlier in the same transaction."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pbm.domain.store import Store
from pbm.domain.store.migrations import KEPT_TABLES

NOW = datetime(2026, 11, 27, 8, 0, tzinfo=UTC)


@pytest.fixture
def two(tmp_path):
    """Two connections to one database file (a daemon and an operator's command)."""
    path = tmp_path / "pbm.sqlite3"
    one = Store(path)
    with one.atomic():
        one.create_user("alice", "alice", "scrypt$x", ["alice@example.org"], NOW, confirmed=["alice@example.org"])
    other = Store(path)
    yield one, other
    one.close()
    other.close()


def statements(store: Store, block) -> tuple[object, list[str]]:
    seen: list[str] = []
    store.db.conn.set_trace_callback(seen.append)
    try:
        found = block()
    finally:
        store.db.conn.set_trace_callback(None)
    return found, [s for s in seen if s.startswith("SELECT")]


def read_alice(store: Store) -> tuple[str | None, list[str]]:
    with store.atomic():
        user = store.find_user("alice")
        assert user is not None
        return user.language, store.confirmed_addresses(user.id)


def test_a_second_read_in_a_later_transaction_asks_only_the_generation(two):
    one, _ = two
    read_alice(one)
    found, selects = statements(one, lambda: read_alice(one))
    assert found == (None, ["alice@example.org"])
    assert selects == ["SELECT n FROM generation"]


def test_a_write_by_another_connection_is_seen_by_the_next_transaction(two):
    one, other = two
    assert read_alice(one) == (None, ["alice@example.org"])
    with other.atomic():
        user = other.find_user("alice")
        other.set_language(user.id, "de")
        other.replace_addresses(user.id, ["a2@example.org", "alice@example.org"], confirmed=["a2@example.org"])
    assert read_alice(one) == ("de", ["a2@example.org", "alice@example.org"])


def test_a_rolled_back_write_leaves_nothing_kept(two):
    one, _ = two
    read_alice(one)
    with pytest.raises(RuntimeError), one.atomic():
        user = one.find_user("alice")
        one.set_language(user.id, "ja")
        assert one.find_user("alice").language == "ja"  # seen at once in its own transaction
        raise RuntimeError("the command failed")
    assert read_alice(one) == (None, ["alice@example.org"])


def test_a_rolled_back_savepoint_leaves_nothing_kept_even_under_the_same_generation(two):
    one, other = two
    with one.atomic():
        user = one.find_user("alice")
        with pytest.raises(RuntimeError), one.atomic():
            one.set_language(user.id, "ja")
            assert one.find_user("alice").language == "ja"
            raise RuntimeError("the command failed")
        assert one.find_user("alice").language is None
    with other.atomic():  # the generation goes up by one again, as it did for the rolled-back write
        other.set_pictures(other.find_user("alice").id, False)
    with one.atomic():
        assert one.find_user("alice").language is None
        assert one.find_user("alice").pictures == 0


def test_outside_a_transaction_nothing_is_kept(two):
    one, other = two
    assert one.find_user("alice").language is None
    with other.atomic():
        other.set_language(other.find_user("alice").id, "de")
    assert one.find_user("alice").language == "de"


@pytest.mark.parametrize("table", KEPT_TABLES)
def test_every_write_to_a_kept_table_counts_the_generation_up(two, table):
    one, _ = two
    conn = one.db.conn
    columns = {row[1]: row for row in conn.execute(f"PRAGMA table_info({table})")}
    before = conn.execute("SELECT n FROM generation").fetchone()[0]
    with one.atomic():
        conn.execute(f"DELETE FROM {table} WHERE 0")  # no row: no trigger
        conn.execute(f"UPDATE {table} SET {next(iter(columns))} = {next(iter(columns))}")
    changed = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    assert conn.execute("SELECT n FROM generation").fetchone()[0] == before + changed
