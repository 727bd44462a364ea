"""The store's write lock within one process (first come, first served) and
its reads straight from the connection."""

from __future__ import annotations

import sqlite3
import threading
import time
from datetime import UTC, datetime

import pytest

import pbm.domain.store.connection as store_module
from pbm.domain.store import FairLock, Store


def test_the_lock_is_handed_over_in_the_order_it_was_asked_for():
    lock = FairLock()
    assert lock.acquire(timeout=1)
    order: list[int] = []
    threads = []
    for n in range(5):
        def take(n=n):
            assert lock.acquire(timeout=10)
            order.append(n)
            lock.release()
        t = threading.Thread(target=take)
        t.start()
        threads.append(t)
        # wait until this one is in line before the next asks
        deadline = time.monotonic() + 5
        while len(lock._waiters) < n + 1 and time.monotonic() < deadline:
            time.sleep(0.001)
    lock.release()
    for t in threads:
        t.join(10)
    assert order == [0, 1, 2, 3, 4]


def test_a_waiter_that_times_out_leaves_the_line():
    lock = FairLock()
    assert lock.acquire(timeout=1)
    assert lock.acquire(timeout=0.05) is False
    assert not lock._waiters
    lock.release()
    assert lock.acquire(timeout=0.05)  # free again
    lock.release()


def test_two_connections_of_one_process_wait_for_each_other_not_for_sqlite(tmp_path, monkeypatch):
    path = tmp_path / "pbm.sqlite3"
    first, second = Store(path), Store(path)
    try:
        assert first._writer is second._writer  # one lock per database file
        monkeypatch.setattr(store_module, "BUSY_TIMEOUT_SECONDS", 0.1)
        with first.atomic(), pytest.raises(sqlite3.OperationalError, match="locked"), second.atomic():
            pass
        with second.atomic():  # free once the first committed
            second.record_handled("k", "s", "", "handled", datetime(2026, 1, 1, tzinfo=UTC))
        assert first.was_handled("k")
    finally:
        first.close()
        second.close()


def test_reads_name_a_repeated_column_as_sqlite_utils_does(tmp_path):
    store = Store(tmp_path / "pbm.sqlite3")
    try:
        row = store._one("SELECT 1 AS id, 2 AS id, 3 AS other")
        assert row == {"id": 1, "id_2": 2, "other": 3}
        assert store._all("SELECT 1 AS a UNION SELECT 2 ORDER BY a") == [{"a": 1}, {"a": 2}]
        assert store._one("SELECT 1 AS a WHERE 0") is None
    finally:
        store.close()
