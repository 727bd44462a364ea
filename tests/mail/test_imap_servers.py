"""IMAP servers other than a stock Dovecot: without MOVE (handled mail is
copied, marked deleted and expunged, with UIDPLUS only the daemon's own),
and intake that survives an error nobody planned for."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import aioimaplib
import pytest

import pbm.server.inbox
from pbm.config import load_config
from pbm.server.inbox import Inbox

from .daemon import DaemonThread, command_mail, wait_until, write_config
from .servers import Dovecot

pytestmark = pytest.mark.integration

# Dovecot's list after login, less MOVE (and, for the second, less UIDPLUS)
BASE = ("IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE SORT THREAD=REFERENCES MULTIAPPEND "
        "UNSELECT CHILDREN NAMESPACE LIST-EXTENDED ESEARCH SEARCHRES LIST-STATUS LITERAL+")
WITHOUT_MOVE = BASE + " UIDPLUS"
WITHOUT_MOVE_OR_UIDPLUS = BASE


@pytest.fixture(scope="module", params=[WITHOUT_MOVE, WITHOUT_MOVE_OR_UIDPLUS], ids=["UIDPLUS", "no-UIDPLUS"])
def plain_dovecot(request) -> Iterator[Dovecot]:
    with Dovecot(imap_capability=request.param) as server:
        yield server


def test_without_move_handled_mail_is_copied_and_expunged(tmp_path, plain_dovecot):
    dovecot = plain_dovecot
    dovecot.add_user("keeper", "pw")
    path = write_config(tmp_path, dovecot=dovecot, user=type("U", (), {"name": "keeper", "password": "pw"}))
    with DaemonThread(path) as running:
        wait_until(lambda: running.daemon.inbox.imap is not None
                   and running.daemon.inbox.imap.has_capability("IMAP4rev1"), what="a connection")
        assert not running.daemon.inbox.imap.has_capability("MOVE")
        for i in range(3):
            dovecot.deliver("keeper", command_mail(f"p{i}@example.org", "help"))
        wait_until(lambda: dovecot.count("keeper", "pw", "pbm/processed") == 3, what="the mail processed")
    assert dovecot.count("keeper", "pw", "INBOX") == 0
    assert dovecot.count("keeper", "pw", "pbm/failed") == 0


def test_the_copy_and_expunge_fallback_spares_other_deleted_mail_when_it_can(plain_dovecot):
    """With UIDPLUS only the moved messages are expunged (UID EXPUNGE); a
    message another client marked deleted stays.  Without it, EXPUNGE takes
    every message marked deleted in the mailbox (the README says so: the
    mailbox should be the server's own)."""
    dovecot = plain_dovecot
    dovecot.add_user("sharer", "pw")
    ours, theirs = dovecot.append_many("sharer", "pw", "INBOX", [
        command_mail("p@example.org", "help"), command_mail("x@example.org", "old")])
    with dovecot.imap("sharer", "pw") as conn:
        conn.create("pbm/processed")
        conn.select("INBOX")
        conn.uid("STORE", str(theirs), "+FLAGS.SILENT", r"(\Deleted)")
    config = load_config(write_config(Path(tempfile.mkdtemp()), dovecot=dovecot,
                                      user=type("U", (), {"name": "sharer", "password": "pw"})))

    async def move_ours() -> bool:
        inbox = Inbox(config.imap, None, asyncio.Event())
        inbox.imap = imap = aioimaplib.IMAP4(dovecot.host, dovecot.imap_port, timeout=10)
        await imap.wait_hello_from_server()
        await imap.login("sharer", "pw")
        await imap.select("INBOX")
        assert not imap.has_capability("MOVE")
        await inbox._move([ours], "pbm/processed")
        await inbox._close()  # logs out and closes the socket
        return imap.has_capability("UIDPLUS")

    uidplus = asyncio.run(move_ours())
    assert uidplus == ("UIDPLUS" in dovecot.imap_capability.split())
    assert dovecot.count("sharer", "pw", "pbm/processed") == 1
    assert dovecot.count("sharer", "pw", "INBOX") == (1 if uidplus else 0)


def test_an_unexpected_error_in_the_imap_session_does_not_end_intake(tmp_path, caplog, dovecot, mail_user,
                                                                     monkeypatch):
    """Any exception in a session (say, an answer aioimaplib cannot parse)
    is logged with its traceback and the daemon connects again."""
    caplog.set_level(logging.INFO, logger="pbm")
    original = Inbox._session
    calls = []

    async def flaky(self):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("an answer nobody expected")
        return await original(self)

    monkeypatch.setattr(Inbox, "_session", flaky)
    path = write_config(tmp_path, dovecot=dovecot, user=mail_user)
    dovecot.deliver(mail_user.name, command_mail("p@example.org", "help"))
    with DaemonThread(path):
        wait_until(lambda: dovecot.count(mail_user.name, mail_user.password, "pbm/processed") == 1,
                   timeout=30, what="the mail processed after the reconnect")
    failures = [r for r in caplog.records if "IMAP intake failed unexpectedly" in r.getMessage()]
    assert len(failures) == 1 and failures[0].exc_info is not None
    assert len(calls) == 2


def test_a_long_queue_is_searched_in_chunks_and_handled_in_order(tmp_path, monkeypatch, dovecot, mail_user, sink):
    """``SEARCH_CHUNK`` (500) made 7 here, with 30 mails waiting before the
    daemon starts: no search returns more than 7, and the replies come in
    the order the mails arrived (the outbox queued them in the order the
    mails were handled; the relay may take replies to different people over
    different connections, so only each person's replies keep their order
    there)."""

    monkeypatch.setattr(pbm.server.inbox, "SEARCH_CHUNK", 7)
    found: list[int] = []
    search = aioimaplib.IMAP4.uid_search

    async def counting(self, *criteria, **kw):
        response = await search(self, *criteria, **kw)
        found.append(sum(w.isdigit() for line in response.lines[:-1] for w in bytes(line).split()))
        return response

    monkeypatch.setattr(aioimaplib.IMAP4, "uid_search", counting)
    mails = [command_mail(f"p{i}@example.org", "help") for i in range(30)]
    dovecot.append_many(mail_user.name, mail_user.password, "INBOX", mails)
    path = write_config(tmp_path, dovecot=dovecot, user=mail_user, sink=sink, idle=False, poll_seconds=0.3)
    with DaemonThread(path):
        sink.wait_for(30, timeout=60)
    with closing(sqlite3.connect(tmp_path / "pbm.sqlite3")) as db:
        queued = [recipient for (recipient,) in db.execute("SELECT recipient FROM outbox ORDER BY id")]
    assert queued == [f"p{i}@example.org" for i in range(30)]
    assert sorted(r.rcpt_tos[0] for r in sink.messages) == sorted(queued)
    assert max(found) == 7 and sum(found) >= 30, found


def test_a_server_that_refuses_a_range_past_its_last_message_is_searched_whole(
        tmp_path, monkeypatch, dovecot, mail_user, sink):
    """RFC 3501 lets a server answer BAD to 1:500 when it holds fewer
    messages (Dovecot does not): the daemon then searches ALL."""
    search = aioimaplib.IMAP4.uid_search
    asked: list[str] = []

    async def strict(self, *criteria, **kw):
        asked.append(criteria[0])
        if criteria[0].startswith("1:"):
            return aioimaplib.Response("BAD", [b"Error in IMAP command UID SEARCH: Invalid messageset"])
        return await search(self, *criteria, **kw)

    monkeypatch.setattr(aioimaplib.IMAP4, "uid_search", strict)
    dovecot.append_many(mail_user.name, mail_user.password, "INBOX",
                        [command_mail(f"p{i}@example.org", "help") for i in range(3)])
    path = write_config(tmp_path, dovecot=dovecot, user=mail_user, sink=sink, idle=False, poll_seconds=0.3)
    with DaemonThread(path):
        sink.wait_for(3, timeout=60)
    assert sorted(r.rcpt_tos[0] for r in sink.messages) == [f"p{i}@example.org" for i in range(3)]
    assert asked[:2] == ["1:500", "ALL"]
