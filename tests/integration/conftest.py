"""Fixtures for the tests of the real mail path (``tests/integration/rig.py``).

- ``rig``: the whole chain for the session (two Postfixes, OpenDKIM,
  OpenDMARC, the DNS server, Dovecot, ``pbm serve`` by LMTP), with a copy
  of every mail that reaches pbm in the mailbox ``spy`` (so that a test can
  read the headers pbm was given).  Tests keep apart by using players of
  their own (``player``).

Helpers: ``send`` (a player's mail through the provider, signed; or
straight to the server's port 25 from a stranger's address, unsigned),
``inbox`` and ``wait_inbox`` (a player's mail as Dovecot stored it),
``query`` (one value from pbm's database).
"""

from __future__ import annotations

import secrets
import smtplib
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

import pytest

from .rig import FORGER_OUT, HOST, PBM_ADDRESS, PLAYERS, Rig


@pytest.fixture(scope="session")
def rig() -> Iterator[Rig]:
    with Rig(spy=True) as chain:
        yield chain


@pytest.fixture
def players(rig: Rig) -> Callable[..., list[str]]:
    """Make players with mailboxes at the provider: ``players("alice",
    "bob")`` gives ``alice<random>@players.test`` and the like (Dovecot
    users ``alice<random>``), known to the provider once it returns."""

    def make(*names: str) -> list[str]:
        addresses = [rig.add_player(f"{name}{secrets.token_hex(2)}") for name in names]
        rig.reload_provider()
        return addresses

    return make


def command(sender: str, subject: str, body: str = "", **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = PBM_ADDRESS
    msg["Subject"] = subject
    msg["Message-ID"] = make_msgid(domain=PLAYERS)
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body or "\n")
    return msg


def send(rig: Rig, msg: EmailMessage | bytes, *, sender: str | None = None, forger: bool = False) -> None:
    """Through the players' provider (which signs it), or, ``forger``,
    straight to the server's Postfix from an address of the internet's,
    unsigned."""
    port = rig.server.port if forger else rig.provider.port
    source = (FORGER_OUT, 0) if forger else None
    raw = msg if isinstance(msg, bytes) else bytes(msg)
    from_ = sender if sender is not None else str(message_from_bytes(raw)["From"])
    with smtplib.SMTP(HOST, port, timeout=30, source_address=source) as smtp:
        smtp.sendmail(from_, [PBM_ADDRESS], raw)


def user_of(address: str) -> str:
    return address.partition("@")[0]


def inbox(rig: Rig, address: str) -> list[EmailMessage]:
    """The mail in a player's Dovecot mailbox, oldest first (by arrival)."""
    files = sorted(rig.mail_files(user_of(address)), key=lambda p: p.stat().st_mtime_ns)
    return [message_from_bytes(p.read_bytes(), policy=policy.default) for p in files]  # type: ignore[misc]


def wait_inbox(rig: Rig, address: str, count: int, timeout: float = 60.0,
               what: str = "mail") -> list[EmailMessage]:
    deadline = time.monotonic() + timeout
    while True:
        mail = inbox(rig, address)
        if len(mail) >= count:
            return mail
        if time.monotonic() > deadline:
            raise AssertionError(f"{address} has {len(mail)} of {count} {what} after {timeout} s\n"
                                 f"--- server maillog ---\n{rig.server.log()[-4000:]}\n"
                                 f"--- pbm ---\n{rig.pbm.log()[-3000:]}")
        time.sleep(0.1)


def spied(rig: Rig, message_id: str, timeout: float = 60.0) -> EmailMessage:
    """The copy of the mail ``message_id`` as pbm was given it."""
    deadline = time.monotonic() + timeout
    while True:
        for mail in inbox(rig, f"spy@{PLAYERS}"):
            if str(mail["Message-ID"]) == message_id:
                return mail
        if time.monotonic() > deadline:
            raise AssertionError(f"no copy of {message_id} reached pbm")
        time.sleep(0.1)


def query(rig: Rig, sql: str, params: tuple[Any, ...] = ()) -> Any:
    """One value from pbm's database (read beside the running daemon)."""
    with closing(sqlite3.connect(rig.pbm.database, timeout=30)) as db:
        row = db.execute(sql, params).fetchone()
    return row[0] if row else None


def wait_until(predicate: Callable[[], Any], timeout: float = 60.0, what: str = "condition",
               rig: Rig | None = None) -> Any:
    """``predicate()`` once it is true; an AssertionError after ``timeout``
    seconds (with the ends of the server's and pbm's logs, given ``rig``)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            logs = "" if rig is None else (f"\n--- server maillog ---\n{rig.server.log()[-5000:]}"
                                           f"\n--- provider maillog ---\n{rig.provider.log()[-3000:]}"
                                           f"\n--- pbm ---\n{rig.pbm.log()[-4000:]}")
            raise AssertionError(f"timed out after {timeout} s waiting for {what}{logs}")
        time.sleep(0.1)
