"""A mail that failed for the machine's sake (full disk, read-only or busy
database) is not set aside as failed: its sender keeps it and tries again."""

from __future__ import annotations

import errno
import sqlite3

import pytest

from pbm.server.daemon import machine_trouble


@pytest.mark.parametrize("exc", [
    sqlite3.OperationalError("database or disk is full"),
    sqlite3.OperationalError("attempt to write a readonly database"),
    sqlite3.OperationalError("database is locked"),
    sqlite3.OperationalError("disk I/O error"),
    sqlite3.OperationalError("unable to open database file"),
    OSError(errno.ENOSPC, "No space left on device"),
    OSError(errno.EROFS, "Read-only file system"),
])
def test_the_machine_s_trouble_is_told_from_a_bad_mail(exc):
    assert machine_trouble(exc)


@pytest.mark.parametrize("exc", [
    sqlite3.OperationalError("no such column: x"),
    sqlite3.IntegrityError("UNIQUE constraint failed: handled.message_key"),
    ValueError("a header value may not contain a line break"),
    RecursionError("maximum recursion depth exceeded"),
    OSError(errno.ENOENT, "No such file or directory"),
])
def test_a_bug_or_a_broken_mail_is_not_the_machine_s_trouble(exc):
    assert not machine_trouble(exc)
