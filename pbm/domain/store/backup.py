"""Online backups and restores, with SQLite's backup API.

:func:`backup` copies the live database while the daemon keeps writing: the
copy is read from one snapshot (a read transaction held for the whole copy,
which in WAL mode never blocks a writer, so the copy does not start over
each time the daemon commits), a few hundred pages at a time with a short
sleep between steps, into a file beside the target that takes the target's
name only once it is complete and checked.  A copy holds everything the
database does (addresses, hashes, mail kept for the operator), so it is
made readable by its owner alone (mode 0600) from the moment the file is
created, before any page is written; SQLite gives its journal the same
mode.  :func:`check_backup` says
whether a file is a pbm database this version can use (SQLite's integrity
check, the tables, a known migration); :func:`restore` puts one in place of
the live database in one write transaction, keeping what it replaced.
Whether a daemon holds the database is the caller's to check (the server
layer keeps the daemon's lock file).
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from .connection import BUSY_TIMEOUT_SECONDS
from .migrations import MIGRATIONS

#: Pages copied per step (4 KiB each: 1 MiB), and the sleep after each step.
STEP_PAGES = 256
STEP_SLEEP_SECONDS = 0.005
#: Tables every pbm database has had since its first migration.
CORE_TABLES = ("schema_migrations", "users", "boards", "handled", "outbox")


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why in plain words."""


@dataclass(frozen=True)
class Copy:
    """A database file made or checked: its path, size and schema version."""

    path: Path
    bytes: int
    schema: int


def known_schema() -> int:
    """The newest migration this version of pbm knows."""
    return MIGRATIONS[-1][0]


def _verify(conn: sqlite3.Connection, name: str) -> int:
    """The schema version of a pbm database, or :class:`BackupError`."""
    try:
        problems = [row[0] for row in conn.execute("PRAGMA integrity_check(5)")]
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{name} is not an SQLite database ({exc})") from None
    if problems != ["ok"]:
        raise BackupError(f"{name} fails SQLite's integrity check: {'; '.join(problems)}")
    missing = [t for t in CORE_TABLES if t not in tables]
    if missing:
        raise BackupError(f"{name} is not a pbm database (it has no table {', '.join(missing)})")
    row = conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
    version = int(row[0] or 0)
    if version < 1:
        raise BackupError(f"{name} is not a pbm database (no migration recorded)")
    if version > known_schema():
        raise BackupError(f"{name} was made by a newer pbm (schema {version}; this one knows up to "
                          f"{known_schema()}): upgrade pbm first")
    return version


def _read_only(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True,
                           timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)


def _sync(path: Path) -> None:
    """Flush a file, or a folder's entries, to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


#: The mode of a backup, of the file it is written to first, and of the copy a restore keeps.
PRIVATE_MODE = 0o600


def _create_private(path: Path) -> None:
    """Create ``path`` as an empty file that only its owner may read and
    write, whatever the umask (a file already there, or a link, is an
    error: nothing is written through them); SQLite then writes the copy
    into it, and gives its journal the file's mode."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), PRIVATE_MODE)
    try:
        os.fchmod(fd, PRIVATE_MODE)  # a umask that takes more away (0o277) would leave it unwritable
    finally:
        os.close(fd)


def check_backup(path: Path) -> Copy:
    """Check that ``path`` is a whole pbm database of a schema this pbm
    knows (it may be older: the store migrates it when opened)."""
    if not path.is_file():
        raise BackupError(f"there is no file {path}")
    try:
        conn = _read_only(path)
    except sqlite3.Error as exc:
        raise BackupError(f"{path} cannot be opened: {exc}") from None
    try:
        schema = _verify(conn, str(path))
    finally:
        conn.close()
    return Copy(path, path.stat().st_size, schema)


def backup(database: Path, target: Path, *, pages: int = STEP_PAGES,
           sleep: float = STEP_SLEEP_SECONDS) -> Copy:
    """Copy the live ``database`` to ``target`` (replacing it once the copy
    is whole and checked), ``pages`` pages a step with ``sleep`` seconds
    between steps, from one snapshot of the database."""
    if not database.is_file():
        raise BackupError(f"there is no database at {database}")
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    partial.unlink(missing_ok=True)
    source = sqlite3.connect(str(database), timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
    try:
        source.execute("PRAGMA query_only = ON")
        source.execute("BEGIN")  # one snapshot for the whole copy: the daemon's commits never restart it
        source.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        _create_private(partial)  # 0600 before the first page is in it
        copy = sqlite3.connect(str(partial), isolation_level=None)
        try:
            source.backup(copy, pages=pages, progress=lambda status, remaining, total: time.sleep(sleep))
            copy.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
            schema = _verify(copy, f"the copy of {database}")
        finally:
            copy.close()
        source.execute("COMMIT")
        _sync(partial)
        os.replace(partial, target)
        _sync(target.parent)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        source.close()
    return Copy(target, target.stat().st_size, schema)


def restore(source: Path, database: Path, *, now: datetime | None = None) -> tuple[Copy, Path | None]:
    """Put the backup ``source`` in place of ``database`` (whose content,
    when it has any, is first copied to ``DATABASE.replaced-TIME``, mode
    0600 as every backup, returned second).  The caller makes sure no
    daemon holds ``database``."""
    checked = check_backup(source)
    kept: Copy | None = None
    if database.is_file() and database.stat().st_size > 0:
        moment = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
        kept = backup(database, database.with_name(f"{database.name}.replaced-{moment}"))
    reader = _read_only(source)
    try:
        live = sqlite3.connect(str(database), timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
        try:
            reader.backup(live)  # one step: every page replaced in one write transaction
            live.execute("PRAGMA journal_mode = WAL")
            _verify(live, str(database))
        finally:
            live.close()
    finally:
        reader.close()
    return checked, (kept.path if kept else None)
