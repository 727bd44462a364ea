"""Fixtures and helpers for the operator's tests: ``pbm`` run as a mail
server, systemd or a shell runs it, configurations, and the real Dovecot
and sink of ``tests/mail`` (its fixtures, imported here)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mail import conftest as mail_fixtures
from tests.mail.daemon import AUTHSERV, SERVER, command_mail
from tests.mail.servers import Sink

__all__ = ["SERVER", "command_mail"]

# the real Dovecot and sink of tests/mail, as fixtures of these tests too
dovecot = mail_fixtures.dovecot
mail_user = mail_fixtures.mail_user
sink = mail_fixtures.sink


def pbm(*args: str, cwd: Path, stdin: bytes | None = None, env: dict[str, str] | None = None,
        timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """``pbm ARGS`` in a process of its own, as an operator or a script runs it."""
    return subprocess.run([sys.executable, "-m", "pbm", *args], cwd=cwd, input=stdin, env=env,
                          capture_output=True, timeout=timeout)


def write_config(folder: Path, *extra: str, sink: Sink | None = None, listen_port: int | None = None,
                 web_port: int | None = None, name: str = "pbm.toml") -> Path:
    """A configuration in ``folder``: the server pbm@mail.test, its database
    there, the computer off, the relay ``sink`` (or the Maildir), the SMTP
    listener on ``listen_port`` (or off), the web view on ``web_port`` (or
    off); ``extra`` lines go at the end (whole sections)."""
    lines = ["[server]", f'address = "{SERVER}"', 'database = "pbm.sqlite3"', "",
             "[security]", f'trusted_authserv_id = "{AUTHSERV}"', "",
             "[computer]", "enabled = false", "",
             "[outbox]", "retry_initial_seconds = 0.2", "retry_max_seconds = 1.0", ""]
    if sink is not None:
        lines += ["[smtp]", f'host = "{sink.host}"', f"port = {sink.port}", 'tls = "none"', ""]
    if not any(line.strip() == "[listen]" for line in extra):
        lines += ["[listen]", f"enabled = {'true' if listen_port else 'false'}"]
        lines += [f"port = {listen_port}", ""] if listen_port else [""]
    if web_port:
        lines += ["[web]", "enabled = true", f"port = {web_port}", ""]
    path = folder / name
    path.write_text("\n".join([*lines, *extra, ""]), encoding="utf-8")
    return path


def count(database: Path, sql: str, params: tuple = ()) -> int:
    """One number from the database, read through a connection of the test's own."""
    conn = sqlite3.connect(database)
    try:
        return int(conn.execute(sql, params).fetchone()[0])
    finally:
        conn.close()


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A folder for one server: its configuration, database and Maildir."""
    return tmp_path


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A folder with a short path, for unix sockets (108 bytes at most)."""
    path = Path(tempfile.mkdtemp(prefix="pbm", dir="/tmp"))
    try:
        yield path
    finally:
        for child in path.iterdir():
            child.unlink()
        os.rmdir(path)
