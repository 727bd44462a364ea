"""Bounces are ours or nothing: a report counts only when it comes back to
the bounce address of one of our mails (VERP, its tag checked), a failure
is confirmed by a probe before a player's clock is held, a hold ends by
itself, and no notice quotes what a report says."""

from __future__ import annotations

from datetime import timedelta

from tests.ticks import tick_mails

from .conftest import Mailbox, flat, to_of
from .replies import delivery_report

A, B, C = "alice@example.org", "bob@example.org", "carol@example.org"


def mine(replies, address: str):
    (msg,) = [m for m in replies if to_of(m) == address]
    return msg


def started(mail: Mailbox):
    """Board 101, bob accepted, alice moved: bob to move; bob's board mail."""
    mail.send(A, "trax challenge alice bob apple --nagtime=1 --forfeittime=3")
    mail.send(B, "trax move 101 bob banana accept")
    return mine(mail.send(A, "trax move 101 alice apple @0/"), B)


def held(mail: Mailbox, user: str = "bob"):
    store = mail.pipeline.store
    return store.hold_of(store.find_user(user).id, mail.clock.now)


def test_our_mail_goes_out_with_a_bounce_address_of_its_own(players):
    to_bob = started(players)
    path = str(to_bob["Return-Path"]).strip("<>")
    local, _, domain = path.partition("@")
    assert domain == "pbm.test" and local.startswith("pbm-bounce+")
    assert players.pipeline.keys.check_bounce_tag(local.partition("+")[2], B)
    assert not players.pipeline.keys.check_bounce_tag(local.partition("+")[2], A)  # bound to its recipient


def test_a_bounce_is_probed_then_holds_the_clock_for_a_while(players):
    mail = players
    to_bob = started(mail)
    mail.clock.advance(hours=1)
    (probe,) = mail.deliver(delivery_report(to_bob, when=mail.clock.now))
    assert mail.result.status == "dropped"  # no reply to a bounce ...
    assert to_of(probe) == B and probe["Subject"] == "Trax PBM: checking that mail reaches bob"  # ... a probe
    assert held(mail) is None  # nothing believed yet
    assert mail.deliver(delivery_report(to_bob, when=mail.clock.now)) == []  # one probe at a time
    told = mail.deliver(delivery_report(probe, when=mail.clock.now))  # the probe bounces too
    assert [to_of(m) for m in told] == [A]
    assert told[0]["Subject"] == "Trax PBM: mail to bob bounces"
    assert "bob's clock is stopped on board 101" in flat(told[0])
    assert "5.1.1" not in flat(told[0]) and "Recipient address rejected" not in flat(told[0])  # our words only
    hold = held(mail)
    assert hold is not None and hold.ends_at == "2026-03-08T13:35:00+00:00"  # seven days at most
    # days go by: no reminder, no forfeit, while bob's mail bounces
    assert not tick_mails(mail.pipeline, mail.clock.now + timedelta(days=5))
    assert mail.pipeline.store.board(101).status == "active"
    (shown,) = mail.send(C, "trax show 101")
    assert "Mail to bob bounces, so their clock is stopped until 2026-03-08 13:35 UTC at the latest" in flat(shown)
    # the hold ends by itself: then reminders, then the forfeit
    mail.clock.now += timedelta(days=7, minutes=5)
    assert held(mail) is None
    mail.clock.now += timedelta(days=1)  # a day of bob's own time (the hold left out): his reminder
    assert [str(m["Subject"]) for m in tick_mails(mail.pipeline, mail.clock.now)] == ["Nag: Trax Board 101 bob"]
    mail.clock.now += timedelta(days=2)
    tick_mails(mail.pipeline, mail.clock.now)
    assert mail.pipeline.store.board(101).reason == "forfeit"


def test_a_hold_ends_when_the_player_proves_he_reads_his_mail(players):
    mail = players
    to_bob = started(mail)
    (probe,) = mail.deliver(delivery_report(to_bob, when=mail.clock.now))
    mail.deliver(delivery_report(probe, when=mail.clock.now))
    assert held(mail) is not None
    mail.send(B, "trax show 101", verified=False)  # a From anyone can write: proves nothing
    assert held(mail) is not None
    mail.send(B, "trax limit bob banana 5", verified=False)  # bob's password does
    assert held(mail) is None


def test_a_player_gets_one_hold_a_month(players):
    mail = players
    to_bob = started(mail)
    (probe,) = mail.deliver(delivery_report(to_bob, when=mail.clock.now))
    mail.deliver(delivery_report(probe, when=mail.clock.now))
    assert held(mail) is not None
    mail.send(B, "trax limit bob banana 5")  # ends it
    mail.clock.advance(days=3)
    to_bob = mine(mail.send(A, "trax chat 101 alice apple", "still there?"), B)
    (probe,) = mail.deliver(delivery_report(to_bob, when=mail.clock.now))
    assert mail.deliver(delivery_report(probe, when=mail.clock.now)) == []  # a second hold within 30 days: no
    assert held(mail) is None
    mail.clock.advance(days=28)
    to_bob = mine(mail.send(A, "trax chat 101 alice apple", "and now?"), B)
    (probe,) = mail.deliver(delivery_report(to_bob, when=mail.clock.now))
    mail.deliver(delivery_report(probe, when=mail.clock.now))
    assert held(mail) is not None  # a month on, a hold again


def test_reports_that_are_not_ours_do_nothing(players):
    mail = players
    to_bob = started(mail)
    store = mail.pipeline.store
    before = store.bounce_summary()
    # to the server's own address, naming a Message-ID of ours (anyone can read one in a help reply)
    assert mail.deliver(delivery_report(to_bob, when=mail.clock.now, to="pbm@pbm.test")) == []
    # to a bounce address whose tag does not check
    tag = str(to_bob["Return-Path"]).strip("<>").partition("+")[2].partition("@")[0]
    number, _, mac = tag.partition("-")
    forged = f"pbm-bounce+{number}-{'a' * len(mac)}@pbm.test"
    assert mail.deliver(delivery_report(to_bob, when=mail.clock.now, to=forged)) == []
    # another reply's tag: it is about that reply's recipient, whatever the report names
    to_alice = mine(mail.send(B, "trax move 101 bob banana B1+"), A)
    (probe,) = mail.deliver(delivery_report(to_alice, when=mail.clock.now))
    assert to_of(probe) == A
    assert store.bounce_summary() != before
    assert held(mail) is None and held(mail, "alice") is None


def test_one_big_report_stops_at_most_one_clock(players):
    """A report with twenty recipient blocks once stopped twenty clocks."""
    mail = players
    to_bob = started(mail)
    raw = delivery_report(to_bob, when=mail.clock.now)
    blocks = "".join(f"Final-Recipient: rfc822; p{i}@example.com\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n"
                     for i in range(20))
    raw = raw.replace(b"Reporting-MTA: dns; mx.example.org\r\n\r\n",
                      b"Reporting-MTA: dns; mx.example.org\r\n\r\n" + blocks.encode())
    replies = mail.deliver(raw + b"x" * 500_000)
    assert [to_of(m) for m in replies] == [B]  # one probe, to the reply's own recipient
