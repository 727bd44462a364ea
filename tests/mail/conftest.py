"""Fixtures for tests against real mail servers on 127.0.0.1.

- ``dovecot``: one private Dovecot (IMAP and LMTP) for the whole session;
  stopping it takes about a second, so tests share it and keep apart by
  using their own user (``mail_user``) or folder.
- ``mail_user``: a fresh user on that Dovecot, with ``.name``,
  ``.password`` and ``.address`` (``name@mail.test``).
- ``sink``: an SMTP server that keeps every message it receives (see
  ``tests.mail.servers.Sink``), started for one test and closed after it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.mail.servers import DOMAIN, Dovecot, Sink


@dataclass(frozen=True)
class MailUser:
    name: str
    password: str

    @property
    def address(self) -> str:
        return f"{self.name}@{DOMAIN}"


@pytest.fixture(scope="session")
def dovecot() -> Iterator[Dovecot]:
    with Dovecot() as server:
        yield server


@pytest.fixture
def mail_user(dovecot: Dovecot) -> MailUser:
    user = MailUser(name="u" + secrets.token_hex(3), password=secrets.token_urlsafe(12))
    dovecot.add_user(user.name, user.password)
    return user


@pytest.fixture
def sink() -> Iterator[Sink]:
    server = Sink()
    try:
        server.start()
        yield server
    finally:
        server.close()
