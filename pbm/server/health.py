"""Is the daemon up, and is the mail flowing?  The daemon's lock file and
heartbeat, and the health report of ``pbm status`` and ``/healthz`` (on the
daemon's metrics listener).

**The lock file** ``DATABASE.lock``, beside the database: the daemon holds
an exclusive ``flock`` on it for as long as it runs (the kernel lets go when
the process ends, however it ends), with its pid and start time in it as
JSON.  A second daemon on the same database refuses to start, and ``pbm
restore`` refuses to replace a database a daemon holds (it takes the lock
itself while it works, so no daemon starts meanwhile).  Others only probe
it with a shared lock taken and let go at once.

**The heartbeat** is the lock file's modification time, touched by the
daemon's event loop every :data:`HEARTBEAT_SECONDS`: a daemon whose loop is
stuck stops beating, and after :data:`STALE_SECONDS` it is not healthy.
(Not a database row: a write every few seconds would take the write lock
from the mail and change the database's version, which the web view's page
cache is keyed on.)
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pbm.config import Config
from pbm.domain.store import Store
from pbm.domain.times import when

HEARTBEAT_SECONDS = 5.0
STALE_SECONDS = 30.0


class AlreadyRunning(Exception):
    """Another process holds the database's lock file."""

    def __init__(self, path: Path, holder: dict[str, Any] | None) -> None:
        self.path = path
        self.holder = holder or {}
        who = f" (pid {self.holder['pid']})" if "pid" in self.holder else ""
        what = self.holder.get("what", "pbm serve")
        super().__init__(f"{what}{who} is using the database (it holds {path})")


def lock_path(database: Path) -> Path:
    return Path(f"{database}.lock")


def _open(path: Path) -> int:
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except PermissionError:  # another user's file: a probe only needs to read it
        return os.open(path, os.O_RDONLY | os.O_CLOEXEC)


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "null")
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


class DatabaseLock:
    """The exclusive lock on ``DATABASE.lock`` (no-op for ``:memory:``);
    ``what`` names its holder for the others' messages."""

    def __init__(self, database: Path, what: str = "pbm serve") -> None:
        self.path = None if str(database) == ":memory:" else lock_path(database)
        self.what = what
        self.fd: int | None = None

    def acquire(self, wait: float = 2.0) -> None:
        """Take the lock, waiting up to ``wait`` seconds (a probe holds it for
        an instant); :class:`AlreadyRunning` when another holds it."""
        if self.path is None or self.fd is not None:
            return
        fd = _open(self.path)
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise AlreadyRunning(self.path, _read(self.path)) from None
                time.sleep(0.05)
        record = {"pid": os.getpid(), "what": self.what,
                  "started_at": datetime.now(UTC).replace(microsecond=0).isoformat()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(record).encode() + b"\n", 0)
        self.fd = fd

    def beat(self) -> None:
        """The heartbeat: the file's modification time is now."""
        if self.fd is not None:
            os.utime(self.fd)

    def release(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)  # closing lets go of the lock


def holder(database: Path) -> dict[str, Any] | None:
    """Who holds the database's lock (its record, with ``heartbeat_age``
    in seconds), or None when nobody does."""
    if str(database) == ":memory:":
        return None
    path = lock_path(database)
    if not path.exists():
        return None
    fd = _open(path)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            record = _read(path) or {}
            record["heartbeat_age"] = max(0.0, time.time() - os.fstat(fd).st_mtime)
            return record
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


@dataclass
class Health:
    """What ``pbm status`` says and ``/healthz`` answers.  Healthy: a daemon
    holds the database and its heartbeat is fresh; the rest is for the
    operator to read (a relay that is down makes replies wait, which a
    restart would not mend)."""

    database: str
    daemon: dict[str, Any] | None
    counts: dict[str, Any] = field(default_factory=dict)
    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    problem: str | None = None

    @property
    def running(self) -> bool:
        return self.daemon is not None and self.daemon.get("what", "pbm serve") == "pbm serve"

    @property
    def healthy(self) -> bool:
        return self.problem is None and self.running and \
            float((self.daemon or {}).get("heartbeat_age", 0.0)) <= STALE_SECONDS

    def _age(self, moment: str | None) -> float | None:
        return None if not moment else max(0.0, (self.now - when(moment)).total_seconds())

    def as_json(self) -> dict[str, Any]:
        c = self.counts
        return {
            "status": "ok" if self.healthy else "unhealthy",
            "daemon": None if self.daemon is None else {
                "pid": self.daemon.get("pid"), "what": self.daemon.get("what"),
                "started_at": self.daemon.get("started_at"),
                "heartbeat_age_seconds": round(float(self.daemon.get("heartbeat_age", 0.0)), 1)},
            "problem": self.problem,
            "last_mail_at": c.get("last_at"),
            "outbox_depth": c.get("queue"),
            "oldest_unsent_age_seconds": self._age(c.get("oldest_unsent_at")),
            "bounces": c.get("bounces"),
            "failed_mail": c.get("failed"),
        }

    def lines(self) -> list[str]:
        d, c = self.daemon, self.counts
        if d is None:
            daemon = "not running"
        elif not self.running:
            daemon = f"not running ({d.get('what')} pid {d.get('pid')} holds the database)"
        else:
            age = float(d.get("heartbeat_age", 0.0))
            beat = f"heartbeat {age:.0f} s ago" + ("" if age <= STALE_SECONDS else ": STALE, the daemon is stuck")
            daemon = f"running (pid {d.get('pid')}, since {d.get('started_at')}, {beat})"
        out = [f"daemon:         {daemon}", f"database:       {self.database}"]
        if self.problem:
            out.append(f"problem:        {self.problem}")
        if c:
            out[-1] += f" (schema {c['schema']})"
            last = f"{c['last_at']} ({c['last_key']})" if c["last_at"] else "none yet"
            out.append(f"last mail:      {last}")
            oldest = self._age(c["oldest_unsent_at"])
            waiting = "" if oldest is None else f", the oldest waiting {oldest:.0f} s (since {c['oldest_unsent_at']})"
            out.append(f"outbox:         {c['queue']} repl{'y' if c['queue'] == 1 else 'ies'} to send{waiting}")
            out.append(f"bounces:        {c['bounces']} report(s), {c['held']} clock(s) stopped for them")
            out.append(f"failed mail:    {c['failed']} waiting for the operator (pbm failed list)")
        out.append(f"healthy:        {'yes' if self.healthy else 'no'}")
        return out


def check(config: Config, store: Store | None = None) -> Health:
    """The health of the server configured: the daemon's lock and heartbeat,
    and the counts from ``store`` (or a connection opened for the purpose;
    a database that is not there is not made)."""
    database = config.server.database
    report = Health(str(database), holder(database))
    try:
        if store is not None:
            report.counts = store.health_counts()
        elif not database.is_file():
            report.problem = "there is no database yet"
        else:
            own = Store(database)
            try:
                report.counts = own.health_counts()
            finally:
                own.close()
    except Exception as exc:  # the report says it, in place of the counts
        report.problem = f"the database cannot be read: {type(exc).__name__}: {exc}"
    return report
