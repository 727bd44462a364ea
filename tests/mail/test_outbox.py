"""The outbox against the real aiosmtpd sink: a group of replies sent over
several connections at once and marked sent together, order per recipient
kept through relay failures, commands pipelined when the relay offers it."""

from __future__ import annotations

import errno
import os
import sqlite3
from datetime import UTC, datetime

import pytest

from pbm.app.pipeline import Pipeline
from pbm.config import load_config
from pbm.domain.store import Store
from pbm.server import outbox as outbox_module
from pbm.server.outbox import JOURNAL_ROOM, Outbox, journal_ids

from .daemon import command_mail, write_config
from .servers import Sink

pytestmark = pytest.mark.integration

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _setup(tmp_path, sink, connections: int):
    path = write_config(tmp_path, sink=sink)
    path.write_text(path.read_text() + f"connections = {connections}\n")
    config = load_config(path)
    store = Store(config.server.database)
    pipeline = Pipeline(store, config)
    for mail in (command_mail("alice@example.org", "signup alice apple"),
                 command_mail("bob@example.org", "signup bob banana"),
                 command_mail("alice@example.org", "trax challenge alice bob apple"),
                 command_mail("alice@example.org", "trax move 101 alice apple @0+"),
                 command_mail("bob@example.org", "trax move 101 bob banana B1\\")):
        assert pipeline.handle(mail, now=NOW).status == "handled"
    outbox = Outbox(Store(config.server.database), config, lambda: NOW)
    return store, outbox


def _commits(store: Store) -> list[str]:
    seen: list[str] = []
    store.db.conn.set_trace_callback(lambda sql: seen.append(sql) if sql in ("BEGIN IMMEDIATE", "COMMIT") else None)
    return seen


def test_a_group_of_replies_goes_out_over_two_connections_and_is_marked_together(tmp_path, sink):
    store, outbox = _setup(tmp_path, sink, connections=2)
    commits = _commits(outbox.store)
    try:
        sent, failed = outbox.flush()
        assert (sent, failed) == (8, False)  # 2 welcomes, the new board and 2 moves to both players
        # one transaction for the group (8 replies to 5 mails), not one per reply or per mail
        assert commits.count("BEGIN IMMEDIATE") == 1
        assert len(outbox._idle) == 2  # each player's mails went over a connection of their own
    finally:
        outbox.close()
        outbox.store.close()
    assert store.count_unsent() == 0 and store.stats()["sent"] == 8
    received = sink.wait_for(8)
    for player, first in (("alice@example.org", "Welcome"), ("bob@example.org", "Welcome")):
        subjects = [str(r.message()["Subject"]) for r in received if player in r.rcpt_tos]
        assert subjects[0].startswith(first)
        assert subjects[1:] == ["New Trax Board 101 alice", "Trax Board 101 bob", "Trax Board 101 alice"]
    store.close()


def test_one_connection_sends_one_reply_after_the_other(tmp_path, sink):
    store, outbox = _setup(tmp_path, sink, connections=1)
    try:
        assert outbox.flush() == (8, False)
        assert len(outbox._idle) == 1
    finally:
        outbox.close()
        outbox.store.close()
    assert len(sink.wait_for(8)) == 8
    store.close()


def test_a_relay_failure_in_a_group_keeps_what_went_out_and_the_order(tmp_path, sink):
    store, outbox = _setup(tmp_path, sink, connections=2)
    try:
        outbox.flush()  # everything so far out
        sink.clear()
        pipeline = Pipeline(store, outbox.config)
        mail = command_mail("alice@example.org", "trax move 101 alice apple B2/")
        assert pipeline.handle(mail, now=NOW).status == "handled"
        mail = command_mail("bob@example.org", "trax move 101 bob banana A2+")
        assert pipeline.handle(mail, now=NOW).status == "handled"
        sink.reject("451 4.3.0 Try again later", times=1)
        sent, failed = outbox.flush()
        # one player's first board mail was refused for now, and that
        # player's second waits behind it; the other player's two went out
        # and are marked sent
        assert (sent, failed) == (2, True)
        unsent = store.unsent_replies()
        assert len(unsent) == 2 and len({row.recipient for row in unsent}) == 1
        assert all(row.next_attempt_at > NOW.isoformat() for row in unsent)  # all wait for the retry
        # the retry time comes; everything goes out once
        outbox.clock = lambda: datetime(2026, 3, 1, 13, 0, tzinfo=UTC)
        assert outbox.flush() == (2, False)
    finally:
        outbox.close()
        outbox.store.close()
    received = sink.wait_for(4)
    assert len(received) == 4
    for player in ("alice@example.org", "bob@example.org"):
        subjects = [str(r.message()["Subject"]) for r in received if player in r.rcpt_tos]
        assert subjects == ["Trax Board 101 bob", "Trax Board 101 alice"], player
    store.close()


def test_groups_are_cut_between_mails_and_each_is_marked_once(tmp_path, sink, monkeypatch):
    monkeypatch.setattr("pbm.server.outbox.GROUP", 3)
    store, outbox = _setup(tmp_path, sink, connections=2)
    commits = _commits(outbox.store)
    try:
        assert outbox.flush() == (8, False)
        # 1+1 welcomes, then the new board's 2 mails, then 2, then 2: a group
        # reaches 3 only by finishing a mail, so groups are [1,1,2] [2,2]
        assert commits.count("BEGIN IMMEDIATE") == 2
    finally:
        outbox.close()
        outbox.store.close()
    assert len(sink.wait_for(8)) == 8
    store.close()


@pytest.mark.parametrize("pipelining", [True, False])
def test_a_relay_that_offers_pipelining_gets_commands_pipelined(tmp_path, pipelining):
    relay = Sink(pipelining=pipelining)
    relay.start()
    try:
        store, outbox = _setup(tmp_path, relay, connections=1)
        try:
            seen: list[bytes] = []
            smtp = outbox._connect()
            real_send = smtp.send
            smtp.send = lambda data: (seen.append(data if isinstance(data, bytes) else data.encode()),
                                      real_send(data))[1]
            outbox._give_back(smtp)
            assert outbox.flush() == (8, False)
            assert smtp.has_extn("pipelining") is pipelining
            envelopes = [data for data in seen if data.startswith(b"MAIL FROM")]
            if pipelining:  # MAIL, RCPT and DATA in one write for each reply
                assert len(envelopes) == 8
                assert all(data.count(b"\r\n") == 3 and data.endswith(b"DATA\r\n") for data in envelopes)
            else:
                assert all(data.count(b"\r\n") == 1 for data in envelopes)
        finally:
            outbox.close()
            outbox.store.close()
        received = relay.wait_for(8)
        board = [r for r in received if "Board 101" in str(r.message()["Subject"])]
        assert len(board) == 6
        # each reply with its own bounce address, tagged for it and its recipient
        assert len({r.mail_from for r in received}) == 8
        assert all(outbox.keys.check_bounce_tag(r.mail_from.partition("+")[2].partition("@")[0], r.rcpt_tos[0])
                   for r in received)
        assert all(r.message().get_content_type() == "text/plain" or r.message().is_multipart() for r in received)
        store.close()
    finally:
        relay.close()


def test_a_pipelined_refusal_is_told_apart_from_trouble(tmp_path):
    relay = Sink(pipelining=True)
    relay.start()
    try:
        store, outbox = _setup(tmp_path, relay, connections=1)
        try:
            relay.reject("554 5.7.1 No thanks", times=1)
            row = store.unsent_replies()[0]
            assert outbox.send(row)[0] == "refused"  # for good: the connection is fine and goes on
            relay.reject("451 4.3.0 Try again later", times=1)
            assert outbox.send(row)[0] == "failed"
            assert outbox.send(row) == ("sent", "")
        finally:
            outbox.close()
            outbox.store.close()
        assert len(relay.wait_for(1)) == 1
        store.close()
    finally:
        relay.close()


def test_replies_the_relay_took_before_a_crash_are_marked_not_sent_again(tmp_path, sink):
    """A crash (here: marking fails for good) after the relay took a group
    but before it was marked: the sent journal names them, and the next
    outbox (the daemon restarted) marks them sent instead of sending them
    again."""
    store, outbox = _setup(tmp_path, sink, connections=2)
    try:
        def crash(results):
            raise SystemExit("killed")

        outbox.settle = crash  # type: ignore[method-assign]
        with pytest.raises(SystemExit):
            outbox.flush()
        assert len(sink.wait_for(8)) == 8 and store.count_unsent() == 8
        journals = list(tmp_path.glob("pbm.sqlite3.sent-*"))
        assert len(journals) == 1 and len(journal_ids(journals[0].read_bytes())) == 8
    finally:
        outbox.close()
        outbox.store.close()
    again = Outbox(Store(tmp_path / "pbm.sqlite3"), outbox.config, lambda: NOW)
    try:
        assert again.flush() == (0, False)
    finally:
        again.close()
        again.store.close()
    assert store.count_unsent() == 0 and store.stats()["sent"] == 8
    assert len(sink.messages) == 8  # nothing twice
    store.close()


def test_the_journal_takes_its_room_at_start_and_is_emptied_with_zeros(tmp_path, sink):
    """A full disk also refuses the mark; the journal must not need the disk
    then: its room is taken when the outbox starts and kept."""
    store, outbox = _setup(tmp_path, sink, connections=2)
    try:
        assert outbox.flush() == (8, False)
        (journal,) = tmp_path.glob("pbm.sqlite3.sent-*")
        facts = os.stat(journal)
        assert facts.st_size == JOURNAL_ROOM and facts.st_blocks * 512 >= JOURNAL_ROOM  # allocated, not sparse
        assert journal.read_bytes() == bytes(JOURNAL_ROOM)  # the group is marked: nothing named
    finally:
        outbox.close()
        outbox.store.close()
    assert not list(tmp_path.glob("pbm.sqlite3.sent-*"))  # a clean stop leaves no journal
    store.close()


def test_a_journal_line_counts_only_when_whole():
    assert journal_ids(b"12\n345\n") == {12, 345}
    assert journal_ids(b"12\n34") == {12}  # cut by a crash
    assert journal_ids(b"12\n34" + bytes(20)) == {12}  # cut, in the journal's room
    assert journal_ids(bytes(3) + b"45\n67\n") == {67}  # partly overwritten with zeros
    assert journal_ids(b"") == set() and journal_ids(bytes(100)) == set()


def test_a_full_disk_never_makes_the_outbox_send_a_reply_again(tmp_path, sink, monkeypatch):
    """The relay took a group, then the disk was full: the journal could not
    be written and the database refused the mark.  The outbox tries the mark
    again later, but never sends those replies again (the chaos test met
    this: 96 duplicates in one run)."""
    store, outbox = _setup(tmp_path, sink, connections=2)
    real_settle = outbox.settle

    def full(*args):
        raise OSError(errno.ENOSPC, "No space left on device")

    def refused(results):
        raise sqlite3.OperationalError("database or disk is full")

    try:
        outbox.recover()  # the daemon's start: the journal's room is taken
        monkeypatch.setattr(outbox_module.os, "pwrite", full)
        outbox.settle = refused  # type: ignore[method-assign]
        with pytest.raises(sqlite3.OperationalError):
            outbox.flush()
        assert len(sink.wait_for(8)) == 8 and store.count_unsent() == 8
        with pytest.raises(sqlite3.OperationalError):
            outbox.flush()  # still full: the mark is tried again, nothing is sent
        monkeypatch.undo()
        outbox.settle = real_settle  # type: ignore[method-assign]
        assert outbox.flush() == (0, False)  # room again: marked, not sent
    finally:
        outbox.close()
        outbox.store.close()
    assert store.count_unsent() == 0 and store.stats()["sent"] == 8
    assert len(sink.messages) == 8  # nothing twice
    store.close()


@pytest.mark.parametrize(("error", "waits"), [(errno.ENOSPC, True), (errno.EOPNOTSUPP, False)])
def test_an_outbox_without_room_for_its_journal_sends_nothing(tmp_path, sink, monkeypatch, error, waits):
    """Started on a full disk, the outbox would have no journal to keep a
    crash from sending its replies again: they wait until there is room.  A
    file system that cannot allocate ahead only costs the guarantee."""
    store, outbox = _setup(tmp_path, sink, connections=2)

    def no_room(*args):
        raise OSError(error, os.strerror(error))

    try:
        monkeypatch.setattr(outbox_module.os, "posix_fallocate", no_room)
        if waits:
            assert outbox.flush() == (0, True) and outbox.flush() == (0, True)
            assert store.count_unsent() == 8 and not sink.messages
            monkeypatch.undo()  # room again
        assert outbox.flush() == (8, False)
    finally:
        outbox.close()
        outbox.store.close()
    assert len(sink.wait_for(8)) == 8 and store.count_unsent() == 0
    store.close()
