"""Playing by pressing Reply, the digest and a bounce, through the real
daemon: mail delivered into a real Dovecot, replies caught by a real SMTP
sink, the players' replies written as mail programs write them."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime, timedelta

import pytest

from pbm.app.pipeline import Pipeline
from pbm.config import load_config
from pbm.domain.store import Store
from tests.ticks import tick_mails

from ..app.replies import client_reply, delivery_report
from .daemon import SERVER, DaemonThread, command_mail, wait_until, write_config

pytestmark = pytest.mark.integration

A, B, M = "alice@example.org", "bob@example.org", "mallory@example.net"
LOOP_GAME = ["@0+", "B1\\", "B2/", "A2+", "A3/", "A0\\", "@3+", "@3\\", "B2+"]


def to(sink, address: str) -> list:
    return [r.message() for r in sink.messages if address in r.rcpt_tos]


def next_to(sink, address: str, after: int, what: str = "a reply"):
    """The message to ``address`` that comes after the first ``after`` of them."""
    wait_until(lambda: len(to(sink, address)) > after, timeout=60, what=f"{what} to {address}")
    return to(sink, address)[after]


def moves(tmp_path, number: int = 101) -> list[str]:
    db = sqlite3.connect(tmp_path / "pbm.sqlite3")
    try:
        row = db.execute("SELECT moves FROM boards WHERE number = ?", (number,)).fetchone()
        return row[0].split() if row else []
    finally:
        db.close()


def deliver(dovecot, user, raw: bytes) -> None:
    dovecot.deliver(user.name, raw)


def test_a_whole_game_by_reply_with_stolen_replayed_and_stale_tokens(tmp_path, dovecot, mail_user, sink):
    path = write_config(tmp_path, dovecot=dovecot, user=mail_user, sink=sink)
    with DaemonThread(path):
        for raw in (command_mail(A, "signup alice apple"), command_mail(B, "signup bob banana"),
                    command_mail(A, "trax challenge alice bob apple")):
            deliver(dovecot, mail_user, raw)
        wait_until(lambda: len(to(sink, A)) == 2 and len(to(sink, B)) == 2, timeout=60, what="the new board")
        now = datetime.now(UTC)
        first_to_alice = to(sink, A)[-1]
        for n, move in enumerate(LOOP_GAME, start=1):
            player = A if n % 2 else B
            counts = {A: len(to(sink, A)), B: len(to(sink, B))}
            original = to(sink, player)[-1]
            deliver(dovecot, mail_user, client_reply(original, player, move, when=now, to=SERVER))
            for address in (A, B):
                next_to(sink, address, counts[address], "the board mail")
            assert moves(tmp_path) == LOOP_GAME[:n]
            if n == 2:
                # a stolen token: alice's board mail answered from another address
                deliver(dovecot, mail_user, client_reply(to(sink, A)[-1], M, "C1/", when=now, to=SERVER))
                refused = next_to(sink, M, 0, "the refusal")
                assert "not one of alice's addresses" in " ".join(refused.get_body(("plain",)).get_content().split())
                # a replayed and a stale token: alice's first board mail, answered again
                for again in ("@0+", "C1/"):
                    count = len(to(sink, A))
                    deliver(dovecot, mail_user, client_reply(first_to_alice, A, again, when=now, to=SERVER))
                    stale = next_to(sink, A, count, "the stale reply's answer")
                    assert stale["Subject"] == "Trax Board 101 Error"
                    assert "has moved on" in stale.get_body(("plain",)).get_content()
                assert moves(tmp_path) == LOOP_GAME[:2]
        final = to(sink, B)[-1]
        assert "Game won by alice (white loop)." in final.get_body(("plain",)).get_content()
        record = next(p for p in final.walk() if p.get_content_disposition() == "attachment")
        assert record.get_filename() == "trax-101.txt"


def test_a_digest_day_and_a_bounce_through_the_daemon(tmp_path, dovecot, mail_user, sink):
    path = write_config(tmp_path, dovecot=dovecot, user=mail_user, sink=sink)
    with DaemonThread(path) as running:
        hour = datetime.now(UTC).hour
        for raw in (command_mail(A, "signup alice apple"), command_mail(B, "signup bob banana"),
                    command_mail("carol@example.org", "signup carol cherry"),
                    command_mail(B, f"set bob banana digest daily {hour}"),
                    command_mail(A, "trax challenge alice bob apple"),
                    command_mail("carol@example.org", "trax challenge carol bob cherry"),
                    command_mail(A, "trax move 101 alice apple @0/"),
                    command_mail("carol@example.org", "trax move 102 carol cherry @0+")):
            count = len(sink.messages)
            deliver(dovecot, mail_user, raw)
            wait_until(lambda c=count: len(sink.messages) > c, timeout=60, what="a reply")
        wait_until(lambda: moves(tmp_path) == ["@0/"], timeout=30, what="the move")
        time_was = len(to(sink, B))
        # the clock work at bob's hour: one digest with both boards
        daemon = running.daemon
        asyncio.run_coroutine_threadsafe(daemon.tick(), running.loop).result(60)
        wait_until(lambda: len(to(sink, B)) > time_was, timeout=60, what="the digest")
        digest = to(sink, B)[-1]
        assert digest["Subject"] == "Trax PBM: your digest, 2 boards to move"
        # bob answers it by pressing Reply: both boards move
        deliver(dovecot, mail_user, client_reply(digest, B, "101 B1+\n102 B1+", when=datetime.now(UTC), to=SERVER))
        wait_until(lambda: moves(tmp_path) == ["@0/", "B1+"] and moves(tmp_path, 102) == ["@0+", "B1+"],
                   timeout=60, what="both moves")
        wait_until(lambda: [m["Subject"] for m in to(sink, A)][-1:] == ["Trax Board 101 alice"], timeout=60,
                   what="alice's board mail")
        # alice's board mail bounces (the report comes back to that mail's own bounce address): a
        # probe goes to her; it bounces too: her clock stops, bob is told
        (to_alice,) = [r for r in sink.messages if A in r.rcpt_tos][-1:]
        count = len(to(sink, A))
        deliver(dovecot, mail_user, delivery_report(to_alice.message(), when=datetime.now(UTC),
                                                    to=to_alice.mail_from))
        probe = next_to(sink, A, count, "the probe")
        assert probe["Subject"] == "Trax PBM: checking that mail reaches alice"
        (probed,) = [r for r in sink.messages if A in r.rcpt_tos][-1:]
        count = len(to(sink, B))
        deliver(dovecot, mail_user, delivery_report(probed.message(), when=datetime.now(UTC), to=probed.mail_from))
        wait_until(lambda: "Trax PBM: mail to alice bounces" in [m["Subject"] for m in to(sink, B)[count:]],
                   timeout=60, what="the notice of the bounce")
        assert _holds(tmp_path, datetime.now(UTC)) == 1
        # six days later nothing would happen on board 101: alice's clock stands still (the clock work
        # tried as of then on a second connection, and rolled back)
        later = _tick_subjects(tmp_path, datetime.now(UTC) + timedelta(days=6))
        assert not [s for s in later if "Board 101" in s]
        # alice writes with her password: her clock runs again, and the forfeit comes in time
        count = len(to(sink, A))
        deliver(dovecot, mail_user, command_mail(A, "trax limit alice apple 9"))
        next_to(sink, A, count, "the answer")
        assert _holds(tmp_path, datetime.now(UTC)) == 0
        assert "Trax Board 101" in _tick_subjects(tmp_path, datetime.now(UTC) + timedelta(days=22))


def _holds(tmp_path, when: datetime) -> int:
    """Players whose clock is held at ``when``."""
    db = sqlite3.connect(tmp_path / "pbm.sqlite3")
    try:
        return int(db.execute("SELECT COUNT(*) FROM mail_holds WHERE starts_at <= ? AND ends_at > ?",
                              (when.isoformat(), when.isoformat())).fetchone()[0])
    finally:
        db.close()


def _tick_subjects(tmp_path, when: datetime) -> list[str]:
    """The subjects of the mail the clock work would send as of ``when``
    (a dry run on a connection of its own: nothing is kept)."""
    config = load_config(tmp_path / "pbm.toml")
    store = Store(config.server.database)
    try:
        return [str(m["Subject"]) for m in tick_mails(Pipeline(store, config), when, dry_run=True)]
    finally:
        store.close()
