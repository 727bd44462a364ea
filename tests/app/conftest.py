"""Fixtures for server tests: a migrated SQLite file, a clock the test moves,
and a mail client that pushes mail through the real pipeline."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest

from pbm.app.pipeline import Pipeline, Result
from pbm.config import Config, load_config
from pbm.domain.store import Store


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

    def advance(self, **delta) -> None:
        self.now += timedelta(**delta)


#: The authserv-id of the mail server in front of the test server (its
#: Authentication-Results are trusted: ``[security] trusted_authserv_id``).
AUTHSERV = "mx.pbm.test"


def vouched(sender: str) -> str:
    """The Authentication-Results header the server's mail server writes for
    a mail whose From domain passed DMARC (as OpenDMARC writes it)."""
    domain = sender.rpartition("@")[2].rstrip(">")
    return f"{AUTHSERV}; dmarc=pass (p=none dis=none) header.from={domain}"


@dataclass
class Mailbox:
    """Sends mail as a player and keeps every reply the server queued.

    Mail is sent as it arrives through the server's mail server, which
    checked the sender's DKIM and DMARC and vouches for the From address
    (``verified``); ``verified=False`` sends it as a forger's would
    arrive, with nothing to vouch for it."""

    pipeline: Pipeline
    clock: Clock
    sent: list[EmailMessage] = field(default_factory=list)

    def send(self, sender: str, subject: str, body: str = "", *, verified: bool = True,
             **headers: str) -> list[EmailMessage]:
        msg = EmailMessage()
        if verified:
            msg["Authentication-Results"] = vouched(sender)
        msg["From"] = sender
        msg["To"] = "pbm@pbm.test"
        msg["Subject"] = subject
        msg["Date"] = format_datetime(self.clock.now)
        msg["Message-ID"] = make_msgid(domain="player.test")
        msg.set_content(body)
        for name, value in headers.items():  # after the content, which would drop a Content-* header
            msg[name.replace("_", "-")] = value
        return self.deliver(bytes(msg))

    def deliver(self, raw: bytes) -> list[EmailMessage]:
        result = self.result = self.pipeline.handle(raw, now=self.clock.now)
        self.clock.advance(minutes=5)
        replies = [self.received(m) for m in result.replies]
        self.sent.extend(replies)
        return replies

    def received(self, message: Message) -> EmailMessage:
        """A queued reply as its recipient gets it: its secrets written in,
        and the envelope sender it went out with as ``Return-Path``, as the
        outbox and the recipient's mail server do."""
        recipient = str(message["To"])
        raw = self.pipeline.keys.unseal(bytes(message), recipient)
        row = self.pipeline.store.db.execute("SELECT id FROM outbox WHERE message_id = ? AND recipient = ?",
                                             (str(message["Message-ID"]), recipient)).fetchone()
        if row is not None:
            envelope = self.pipeline.config.server.envelope_address
            raw = f"Return-Path: <{self.pipeline.keys.bounce_address(envelope, row[0], recipient)}>\r\n".encode() + raw
        return BytesParser(policy=policy.default).parsebytes(raw)

    result: Result | None = None


#: The subjects of error replies, as the old server wrote them: a board's
#: errors name the board, any other is "Trax error"; the daily-limit notice.
ERROR_SUBJECT = re.compile(r"Trax error|.+ Board \d+ Error|.+: no more replies today")


def is_error(msg: Message) -> bool:
    """Is this reply an error reply (by its subject)?"""
    return ERROR_SUBJECT.fullmatch(str(msg["Subject"])) is not None


def text_of(msg: EmailMessage) -> str:
    """The text a player reads: the body, or the text part of a mail with a
    picture (multipart/alternative)."""
    part = msg.get_body(("plain",))
    assert part is not None, msg.get_content_type()
    return part.get_content()


def flat(msg: EmailMessage) -> str:
    """The body with every run of blanks and line breaks made one blank."""
    return " ".join(text_of(msg).split())


def to_of(msg: EmailMessage) -> str:
    return str(msg["To"])


def server_config(folder: Path, limits: str = "") -> Config:
    """The test server's configuration in ``folder``, with ``limits`` lines
    in its [limits] section."""
    path = folder / "pbm.toml"
    path.write_text('[server]\naddress = "pbm@pbm.test"\nname = "Trax PBM"\ndatabase = "pbm.sqlite3"\n'
                    f'[security]\ntrusted_authserv_id = "{AUTHSERV}"\n'
                    + (f"[limits]\n{limits}\n" if limits else ""))
    return load_config(path)


@pytest.fixture
def config(tmp_path):
    return server_config(tmp_path)


@pytest.fixture
def store(config):
    s = Store(config.server.database)
    yield s
    s.close()


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def mail(store, config, clock):
    return Mailbox(Pipeline(store, config), clock)


@pytest.fixture
def players(mail):
    """alice and bob, signed up."""
    mail.send("alice@example.org", "signup alice apple")
    mail.send("bob@example.org", "signup bob banana")
    return mail
