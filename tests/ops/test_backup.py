"""``pbm backup`` and ``pbm restore`` with the real daemon taking mail over
SMTP and sending its replies to the sink meanwhile."""

from __future__ import annotations

import os
import smtplib
import sqlite3
import stat
import threading
import time
from pathlib import Path

import pytest

from pbm.domain.store import Store
from pbm.domain.store import backup as backup_module
from pbm.domain.store.backup import BackupError, backup, check_backup, known_schema, restore
from pbm.domain.store.migrations import MIGRATIONS
from tests.mail.daemon import DaemonThread, wait_until
from tests.mail.servers import free_port

from .conftest import SERVER, command_mail, count, pbm, write_config

pytestmark = pytest.mark.integration


class Mailer(threading.Thread):
    """Sends help mails to the daemon's listener, one after the other, until stopped."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.sent = 0
        self.stopped = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with smtplib.SMTP("127.0.0.1", self.port, timeout=30) as smtp:
                while not self.stopped.is_set():
                    sender = f"p{self.sent % 50}@example.org"
                    smtp.sendmail(sender, [SERVER], command_mail(sender, "help"))
                    self.sent += 1
        except BaseException as exc:
            self.error = exc

    def stop(self) -> int:
        self.stopped.set()
        self.join(30)
        assert self.error is None, self.error
        return self.sent


def seed(database: Path, megabytes: int) -> None:
    """Some bulk, so that a copy takes many steps: mail the operator keeps."""
    store = Store(database)
    try:
        with store.atomic():
            for i in range(megabytes):
                store._insert("failed_mail", {"source": "smtp", "raw": bytes([i % 251]) * 1024 * 1024,
                                              "error": "seed", "failed_at": "2026-01-01T00:00:00+00:00"})
    finally:
        store.close()


def consistent(copy: Path) -> tuple[int, int]:
    """Every mail recorded handled in the copy has its reply in the copy's
    outbox, and no reply is there without its mail: each transaction is
    wholly in or wholly out.  (handled mails, their replies)."""
    conn = sqlite3.connect(copy)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        handled = conn.execute("SELECT COUNT(*) FROM handled WHERE outcome = 'handled'").fetchone()[0]
        orphans = conn.execute("SELECT COUNT(*) FROM outbox o WHERE o.message_key NOT IN "
                               "(SELECT message_key FROM handled)").fetchone()[0]
        answered = conn.execute("SELECT COUNT(DISTINCT message_key) FROM outbox").fetchone()[0]
        replies = conn.execute("SELECT COUNT(*) FROM outbox").fetchone()[0]
    finally:
        conn.close()
    assert orphans == 0 and answered == handled
    return handled, replies


def handled_count(database: Path) -> int:
    return count(database, "SELECT COUNT(*) FROM handled")


def test_a_backup_taken_while_the_daemon_handles_mail_is_whole_and_consistent(site, sink):
    port = free_port()
    config = write_config(site, sink=sink, listen_port=port)
    database = site / "pbm.sqlite3"
    seed(database, 8)
    with DaemonThread(config):
        mailer = Mailer(port)
        mailer.start()
        wait_until(lambda: handled_count(database) >= 5, what="mail flowing")
        before = handled_count(database)
        # small steps with pauses: the copy takes a while, and the daemon commits all along
        started = time.monotonic()
        copy = backup(database, site / "copy.sqlite3", pages=16, sleep=0.004)
        took = time.monotonic() - started
        during = handled_count(database) - before
        # and the command, as cron runs it
        done = pbm("backup", "--config", str(config), str(site / "nightly.sqlite3"), cwd=site)
        sent = mailer.stop()
        wait_until(lambda: handled_count(database) == sent, what="every mail handled")
    assert took > 0.3 and during > 0, (took, during)  # the daemon went on handling mail during the copy
    assert copy.schema == known_schema() and copy.bytes > 8 * 1024 * 1024
    handled, replies = consistent(copy.path)
    assert before <= handled <= sent and replies == handled
    assert done.returncode == 0, done.stderr
    assert b"integrity checked" in done.stdout
    assert consistent(site / "nightly.sqlite3")[0] >= handled
    assert [p.name for p in site.iterdir() if ".partial" in p.name] == []  # nothing half-written left
    assert check_backup(site / "nightly.sqlite3").schema == known_schema()
    assert count(site / "nightly.sqlite3", "SELECT COUNT(*) FROM failed_mail") == 8


def test_restore_is_refused_while_the_daemon_runs_and_done_after(site, sink):
    port = free_port()
    config = write_config(site, sink=sink, listen_port=port)
    database = site / "pbm.sqlite3"
    with DaemonThread(config) as running:
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
            for i in range(3):
                smtp.sendmail(f"a{i}@example.org", [SERVER], command_mail(f"a{i}@example.org", "help"))
        assert pbm("backup", "--config", str(config), str(site / "three.sqlite3"), cwd=site).returncode == 0
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
            for i in range(2):
                smtp.sendmail(f"b{i}@example.org", [SERVER], command_mail(f"b{i}@example.org", "help"))
        refused = pbm("restore", "--config", str(config), str(site / "three.sqlite3"), cwd=site)
        assert running.daemon is not None and running.daemon.handled == 5
    assert refused.returncode == 1
    assert b"not restored: pbm serve (pid " in refused.stderr and b"stop it first" in refused.stderr
    assert handled_count(database) == 5  # untouched
    done = pbm("restore", "--config", str(config), str(site / "three.sqlite3"), cwd=site)
    assert done.returncode == 0, done.stderr
    assert handled_count(database) == 3
    (kept,) = site.glob("pbm.sqlite3.replaced-*")
    assert handled_count(kept) == 5  # what it replaced, to undo the restore
    # the daemon starts again on the restored database, and a mail handled before is not handled again
    with DaemonThread(config), smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.sendmail("a0@example.org", [SERVER], command_mail("b0@example.org", "help"))
        wait_until(lambda: handled_count(database) == 4, what="the mail after the restore")


def test_restore_refuses_what_is_no_pbm_database_of_this_version(site):
    database = site / "pbm.sqlite3"
    Store(database).close()
    (site / "junk.sqlite3").write_bytes(b"not a database at all" * 100)
    other = sqlite3.connect(site / "other.sqlite3")
    other.execute("CREATE TABLE notes (text)")
    other.commit()
    other.close()
    newer = backup(database, site / "newer.sqlite3").path
    conn = sqlite3.connect(newer)
    conn.execute("INSERT INTO schema_migrations (version, description) VALUES (999, 'from the future')")
    conn.commit()
    conn.close()
    for name, why in [("junk.sqlite3", "is not an SQLite database"), ("other.sqlite3", "is not a pbm database"),
                      ("newer.sqlite3", "was made by a newer pbm"), ("missing.sqlite3", "there is no file")]:
        with pytest.raises(BackupError, match=why):
            restore(site / name, database)
    assert list(site.glob("pbm.sqlite3.replaced-*")) == []  # nothing was touched


def test_a_backup_of_an_older_schema_is_migrated_when_restored(site):
    database = site / "pbm.sqlite3"
    Store(database).close()
    old = site / "old.sqlite3"  # a database of the release before this one, migrated as that release did
    conn = sqlite3.connect(old, isolation_level=None)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL)")
    for number, description, script in MIGRATIONS[:-1]:
        conn.executescript("BEGIN;\n" + script)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?)", (number, description))
        conn.execute("COMMIT")
    conn.close()
    assert check_backup(old).schema == known_schema() - 1
    config = write_config(site)
    done = pbm("restore", "--config", str(config), str(old), cwd=site)
    assert done.returncode == 0, done.stderr
    assert count(database, "SELECT MAX(version) FROM schema_migrations") == known_schema()


# --- issue 28: a backup is its owner's alone ------------------------------------------------------


@pytest.fixture
def open_umask():
    """The common umask (0o022: files readable by everyone), whatever the test runner's."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_backup_is_mode_0600_from_the_moment_it_is_created(site, open_umask, monkeypatch):
    database = site / "pbm.sqlite3"
    seed(database, 2)
    target = site / "copy.sqlite3"
    target.write_bytes(b"an older copy")
    target.chmod(0o644)
    seen: dict[str, int] = {}

    def look(seconds: float) -> None:  # called between the copy's steps: the file is half written
        for path in site.iterdir():
            if ".partial" in path.name:
                seen[path.name] = mode(path)

    monkeypatch.setattr(backup_module.time, "sleep", look)
    copy = backup(database, target, pages=16)
    assert seen and set(seen.values()) == {0o600}, seen  # the partial file and its journal
    assert any(name.endswith(f".partial-{os.getpid()}") for name in seen)
    assert copy.path == target and mode(target) == 0o600  # the older copy's mode is not kept
    assert check_backup(target).schema == known_schema()


def test_a_backup_is_private_whatever_the_umask(site):
    database = site / "pbm.sqlite3"
    Store(database).close()
    old = os.umask(0o277)  # would leave a new file unwritable: the copy could not be made
    try:
        copy = backup(database, site / "copy.sqlite3")
    finally:
        os.umask(old)
    assert mode(copy.path) == 0o600


def test_a_backup_is_never_written_through_a_link_left_in_its_place(site, open_umask, monkeypatch):
    database = site / "pbm.sqlite3"
    Store(database).close()
    elsewhere = site / "elsewhere"
    monkeypatch.setattr(backup_module.os, "getpid", lambda: 4242)
    (site / ".copy.sqlite3.partial-4242").symlink_to(elsewhere)  # unlinked first, then made anew
    copy = backup(database, site / "copy.sqlite3")
    assert mode(copy.path) == 0o600 and not elsewhere.exists()


def test_the_copy_a_restore_keeps_is_mode_0600(site, open_umask):
    database = site / "pbm.sqlite3"
    Store(database).close()
    source = backup(database, site / "source.sqlite3").path
    _, kept = restore(source, database)
    assert kept is not None and kept.name.startswith("pbm.sqlite3.replaced-")
    assert mode(kept) == 0o600 and mode(source) == 0o600


def test_pbm_backup_writes_a_file_only_its_owner_reads(site, open_umask):
    config = write_config(site)
    Store(site / "pbm.sqlite3").close()
    done = pbm("backup", "--config", str(config), str(site / "nightly.sqlite3"), cwd=site)
    assert done.returncode == 0, done.stderr
    assert mode(site / "nightly.sqlite3") == 0o600
    done = pbm("restore", "--config", str(config), str(site / "nightly.sqlite3"), cwd=site)
    assert done.returncode == 0, done.stderr
    (kept,) = site.glob("pbm.sqlite3.replaced-*")
    assert mode(kept) == 0o600
