"""The outbox against the real aiosmtpd sink: replies to one mail sent over
several connections at once and marked sent together, order per recipient
kept through relay failures."""

from __future__ import annotations

from datetime import UTC, datetime

from pbm.app.pipeline import Pipeline
from pbm.config import load_config
from pbm.domain.store import Store
from pbm.server.outbox import Outbox

from .daemon import command_mail, write_config

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


def test_replies_to_one_mail_go_out_over_two_connections_and_are_marked_together(tmp_path, sink):
    store, outbox = _setup(tmp_path, sink, connections=2)
    commits = _commits(outbox.store)
    try:
        sent, failed = outbox.flush()
        assert (sent, failed) == (8, False)  # 2 welcomes, the new board and 2 moves to both players
        # one transaction per mail answered (5 mails), not one per reply (8)
        assert commits.count("BEGIN IMMEDIATE") == 5
        assert len(outbox._idle) == 2  # the board mails went to both players at once
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
        # one of the two board mails of the first move was refused for now: the
        # other went out and is marked sent; the second move's mails wait
        assert (sent, failed) == (1, True)
        unsent = store.unsent_replies()
        assert len(unsent) == 3
        assert all(row["next_attempt_at"] > NOW.isoformat() for row in unsent)  # all wait for the retry
        # the retry time comes; everything goes out once
        outbox.clock = lambda: datetime(2026, 3, 1, 13, 0, tzinfo=UTC)
        assert outbox.flush() == (3, False)
    finally:
        outbox.close()
        outbox.store.close()
    received = sink.wait_for(4)
    assert len(received) == 4
    for player in ("alice@example.org", "bob@example.org"):
        subjects = [str(r.message()["Subject"]) for r in received if player in r.rcpt_tos]
        assert subjects == ["Trax Board 101 bob", "Trax Board 101 alice"], player
    store.close()
