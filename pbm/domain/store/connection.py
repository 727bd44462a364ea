"""The connection under the store: opening, migrating, transactions, and the
few ways SQL is run.

- **Transactions**: :meth:`StoreBase.atomic`, BEGIN IMMEDIATE outermost and
  a savepoint when nested.  Connections of one process to one file take
  turns through a first-come-first-served lock before BEGIN.
- **Reads** go straight to the connection (:meth:`StoreBase._one`,
  :meth:`StoreBase._all`): sqlite-utils' ``query()`` wraps every statement
  in a savepoint of its own, which tripled the statements of a move command.
- **Writes off the hot path** (a new account, board, tournament, code ...)
  go through sqlite-utils' table API (:meth:`StoreBase._insert`,
  :meth:`StoreBase._upsert`).  **Writes on the hot path** (a move, a board's
  state, the record of a handled mail, a queued reply) are one prepared
  statement each: sqlite-utils' ``insert``/``update`` cost 30-50 µs a call
  against 2 µs (it asks the schema and opens a savepoint every time), and a
  move command makes a dozen writes.  Values are always bound parameters;
  column names come from the code, are checked against the schema and
  quoted (:meth:`StoreBase._update`).
- **Kept in memory between mails**: what every mail reads and hardly any
  writes (an account by id, its confirmed addresses, its leave, the
  languages of a reply's recipients, observers, login failures) is kept by
  :meth:`StoreBase._kept` inside transactions.  Every write to those tables,
  by any connection of any process, counts up the one-row table
  ``generation`` (triggers); the first kept read of a transaction, and the
  first after each write of this connection, reads that number and empties
  the store when it changed.  A rollback empties it too (what a rolled-back
  write left could come back under the same number).  Outside a transaction
  (the web view's reads) nothing is kept.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlite_utils import Database
from sqlite_utils.utils import dedupe_keys

from .migrations import MIGRATIONS
from .records import R, record

Row = dict[str, Any]
T = TypeVar("T")

BUSY_TIMEOUT_SECONDS = 5.0


def is_busy(exc: BaseException) -> bool:
    """Did SQLite give up waiting for another connection's lock?"""
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


# One lock per database file for the write transactions of this process.
# The daemon writes through two connections (pipeline and outbox).  SQLite's
# own busy handler makes a waiting writer sleep 1, 2, 5, 10 ... ms between
# tries, and a writer that commits and begins again at once (the pipeline
# going through a batch of mail) kept the outbox from marking what it sent
# until the batch was over.  This lock hands the write lock over in the order
# it was asked for, the moment it is free.  Other processes (an operator's
# `pbm` command) still meet SQLite's busy timeout.


class FairLock:
    """A lock taken in the order it was asked for (first come, first
    served), with a timeout."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._held = False
        self._waiters: deque[threading.Lock] = deque()

    def acquire(self, timeout: float) -> bool:
        with self._mutex:
            if not self._held:
                self._held = True
                return True
            gate = threading.Lock()
            gate.acquire()
            self._waiters.append(gate)
        if gate.acquire(timeout=timeout):
            return True  # handed over by release()
        with self._mutex:
            try:
                self._waiters.remove(gate)
                return False
            except ValueError:
                pass  # handed over while timing out
        gate.acquire()
        return True

    def release(self) -> None:
        with self._mutex:
            if self._waiters:
                self._waiters.popleft().release()  # still held: by the next in line
            else:
                self._held = False


_writers: dict[str, FairLock] = {}
_writers_guard = threading.Lock()


def _writer_lock(path: str) -> FairLock:
    key = str(Path(path).resolve())
    with _writers_guard:
        return _writers.setdefault(key, FairLock())


def _keys(cursor: sqlite3.Cursor) -> list[str]:
    """Column names of a result, a repeated name made unique as sqlite-utils
    does (``id``, ``id_2``)."""
    keys = [d[0] for d in cursor.description]
    return keys if len(set(keys)) == len(keys) else list(dedupe_keys(keys))


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class StoreBase:
    """The connection and the ways SQL is run; the tables' own methods are
    in the classes :class:`pbm.domain.store.Store` is made of."""

    def __init__(self, path: str | Path, *, busy_timeout: float = BUSY_TIMEOUT_SECONDS) -> None:
        """``busy_timeout``: how long a statement waits for another
        connection's lock before SQLite gives up (``pbm deliver`` sets its own)."""
        conn = sqlite3.connect(str(path), timeout=busy_timeout, isolation_level=None, check_same_thread=False)
        self.db = Database(conn)
        conn.execute("PRAGMA foreign_keys = ON")
        if str(path) != ":memory:":
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(f"PRAGMA busy_timeout = {int(float(busy_timeout) * 1000)}")  # a number: PRAGMA binds nothing
        # an in-memory database is private to its connection: no lock to share
        self._writer = FairLock() if str(path) == ":memory:" else _writer_lock(str(path))
        self._columns: dict[str, frozenset[str]] = {}
        self._updates: dict[tuple[str, str, tuple[str, ...]], str] = {}
        # between mails (see the module's docstring): the values, the
        # generation they belong to, and the connection's count of changed
        # rows when that generation was last read (None: not in this
        # transaction yet)
        self._keep: dict[tuple[object, ...], object] = {}
        self._keep_generation: int | None = None
        self._keep_checked: int | None = None
        self.migrate()

    def close(self) -> None:
        self.db.close()

    def read_only(self) -> None:
        """From now on this connection only reads (the web view's): a write
        through it is an error."""
        self.db.conn.execute("PRAGMA query_only = ON")

    def data_version(self) -> int:
        """A number that changes whenever another connection (of this
        process or another) has committed since this one last asked: a
        cheap "has anything changed?" for the web view's page cache."""
        return int(self.db.conn.execute("PRAGMA data_version").fetchone()[0])

    # ------------------------------------------------------------------
    # schema

    def schema_version(self) -> int:
        if not self.db.table("schema_migrations").exists():
            return 0
        row = self.db.conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
        return int(row[0] or 0)

    def migrate(self) -> list[int]:
        """Apply pending migrations, each in a transaction of its own; return
        the numbers applied."""
        self.db.table("schema_migrations").create(
            {"version": int, "description": str}, pk="version", not_null={"description"}, if_not_exists=True,
        )
        done = self.schema_version()
        applied = []
        conn = self.db.conn
        for number, description, script in MIGRATIONS:
            if number <= done:
                continue
            conn.executescript("BEGIN;\n" + script)  # leaves the transaction open
            try:
                conn.execute("INSERT INTO schema_migrations (version, description) VALUES (?, ?)",
                             (number, description))
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            applied.append(number)
        self._columns = {name: frozenset(self.db.table(name).columns_dict) for name in self.db.table_names()}
        return applied

    # ------------------------------------------------------------------
    # transactions

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One transaction (a savepoint when nested).  The outermost one is
        BEGIN IMMEDIATE: the daemon's outbox writes through a connection of
        its own, and a deferred transaction that read first could not take
        the write lock after the other connection committed (SQLITE_BUSY
        without waiting); IMMEDIATE waits for the lock (busy_timeout).
        Connections of this process to the same file first take a thread
        lock (see ``_writers``), so they do not poll for each other."""
        conn = self.db.conn
        if conn.in_transaction:
            try:
                with self.db.atomic():
                    yield
            except BaseException:
                self._forget()  # rolled back to the savepoint
                raise
            return
        self._keep_checked = None
        if not self._writer.acquire(timeout=BUSY_TIMEOUT_SECONDS):
            raise sqlite3.OperationalError("database is locked (by another connection of this process)")
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._forget()
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            else:
                try:
                    conn.execute("COMMIT")
                except BaseException:
                    self._forget()
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
        finally:
            self._keep_checked = None
            self._writer.release()

    #: The most values kept between mails (then they are all let go).
    KEEP_LIMIT = 50_000

    def _forget(self) -> None:
        """A rollback: nothing kept, and the generation read again (a write
        rolled back leaves the number where it was, and the next write
        takes it again: a value kept under it would pass for fresh)."""
        self._keep.clear()
        self._keep_generation = self._keep_checked = None

    def _kept(self, key: tuple[object, ...], read: Callable[[], T]) -> T:
        """``read()``, kept in memory between mails under ``key`` (see the
        module's docstring); in a transaction only.  Values kept must not
        be changed by callers (records are frozen; lists are copied)."""
        conn = self.db.conn
        if not conn.in_transaction:
            return read()
        changes = conn.total_changes
        if self._keep_checked != changes:
            generation = int(conn.execute("SELECT n FROM generation").fetchone()[0])
            if generation != self._keep_generation:
                self._keep.clear()
                self._keep_generation = generation
            self._keep_checked = changes
        if key in self._keep:
            return self._keep[key]  # type: ignore[return-value]
        if len(self._keep) >= self.KEEP_LIMIT:
            self._keep.clear()
        found = self._keep[key] = read()
        return found

    # ------------------------------------------------------------------
    # the ways SQL is run

    def _one(self, sql: str, params: tuple[Any, ...] | Mapping[str, Any] = ()) -> Row | None:
        cur = self.db.conn.execute(sql, params)
        row = cur.fetchone()
        return None if row is None else dict(zip(_keys(cur), row))

    def _all(self, sql: str, params: tuple[Any, ...] | Mapping[str, Any] = ()) -> list[Row]:
        cur = self.db.conn.execute(sql, params)
        keys = _keys(cur)
        return [dict(zip(keys, row)) for row in cur]

    def _one_as(self, cls: type[R], sql: str, params: tuple[Any, ...] | Mapping[str, Any] = ()) -> R | None:
        """One row as a record of ``cls`` (:mod:`.records`), or None."""
        row = self._one(sql, params)
        return None if row is None else record(cls, row)

    def _all_as(self, cls: type[R], sql: str, params: tuple[Any, ...] | Mapping[str, Any] = ()) -> list[R]:
        """The rows as records of ``cls``."""
        return [record(cls, row) for row in self._all(sql, params)]

    def _count(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        return int(self.db.conn.execute(sql, params).fetchone()[0])

    def _run(self, sql: str, params: tuple[Any, ...] | Mapping[str, Any] = ()) -> sqlite3.Cursor:
        """One prepared write (values bound)."""
        return self.db.conn.execute(sql, params)

    def _insert(self, table: str, fields: Mapping[str, Any]) -> int:
        """Insert one row through sqlite-utils; its rowid."""
        rowid = self.db.table(table).insert(dict(fields)).last_rowid
        assert rowid is not None
        return rowid

    def _upsert(self, table: str, fields: Mapping[str, Any], pk: str | tuple[str, ...]) -> None:
        """Insert a row, or update the one with the same primary key, through sqlite-utils."""
        self.db.table(table).upsert(dict(fields), pk=pk)

    def _update(self, table: str, key: str, value: Any, fields: Mapping[str, Any]) -> int:
        """``UPDATE table SET <fields> WHERE key = value``: one prepared
        statement, made once per set of columns (each checked against the
        schema and quoted); the number of rows changed."""
        names = tuple(fields)
        sql = self._updates.get((table, key, names))
        if sql is None:
            known = self._columns.get(table, frozenset())
            unknown = [n for n in (key, *names) if n not in known]
            if unknown or not names:
                raise ValueError(f"no column {', '.join(unknown) or '(none given)'} in the table {table}")
            sets = ", ".join(f"{_quoted(n)} = ?" for n in names)
            sql = f"UPDATE {_quoted(table)} SET {sets} WHERE {_quoted(key)} = ?"
            self._updates[(table, key, names)] = sql
        return self.db.conn.execute(sql, (*fields.values(), value)).rowcount
