"""One small mail may not make the server mail others at length: the cases
that once did (a hundred ``multiple`` lines of signups and address changes
naming a stranger's address, broadcasts from fresh accounts, one
``message`` line naming a hundred and fifty players), each now bounded by
a cap that counts recipients."""

from __future__ import annotations

from collections import Counter

import pytest

from pbm.app.pipeline import Pipeline
from pbm.domain.store import Store

from .conftest import Clock, Mailbox, flat, is_error, server_config, to_of


def recipients(mail: Mailbox) -> Counter[str]:
    return Counter(to_of(m) for m in mail.sent)


def combined(replies: list) -> object:
    """The reply that gathers what a mail of several commands told its sender."""
    (reply,) = [m for m in replies if m["Subject"] == "Trax PBM: replies to your commands"]
    return reply


def test_a_hundred_signups_naming_a_strangers_address_send_it_one_mail(mail: Mailbox):
    body = "\n".join(f"signup user{i} pw{i} victim@example.net" for i in range(100))
    replies = mail.send("mallory@evil.test", "multiple", body)
    assert recipients(mail)["victim@example.net"] == 1  # one confirmation a day, and nothing else
    assert len(mail.pipeline.store.all_users()) == 3  # and three accounts from one address a day
    assert "3 accounts have been opened from your address today" in flat(combined(replies))
    mail.clock.advance(days=1)
    mail.send("mallory@evil.test", "signup more1 pw victim@example.net")
    assert recipients(mail)["victim@example.net"] == 2


def test_address_changes_ask_one_address_to_confirm_once_a_day(players: Mailbox):
    body = "\n".join(f"{'add' if i % 2 else 'change address'} alice apple victim{i % 3}@example.net"
                     for i in range(100))
    replies = players.send("alice@example.org", "multiple", body)
    assert {a: n for a, n in recipients(players).items() if "victim" in a} == {
        "victim0@example.net": 1, "victim1@example.net": 1, "victim2@example.net": 1}
    assert "Asked to confirm an account today already" in flat(combined(replies))
    players.clock.advance(days=1)
    players.send("alice@example.org", "add alice apple victim0@example.net")
    assert recipients(players)["victim0@example.net"] == 2


def test_confirmations_one_sender_causes_are_capped_per_day(players: Mailbox):
    """Five addresses at a time, four times: the sender's share of
    confirmation mails (5 a day) is spent by the first command."""
    replies = []
    for n in range(4):
        addresses = " ".join(f"stranger{n}.{i}@example.net" for i in range(5))
        replies += players.send("alice@example.org", f"change address alice apple {addresses}")
    strangers = [m for m in players.sent if "stranger" in to_of(m)]
    assert len(strangers) == 5
    assert any("confirmations have been mailed to 5 addresses" in flat(r) for r in replies if is_error(r))


def test_broadcasts_from_fresh_accounts_reach_each_player_a_few_times_a_day(tmp_path):
    config = server_config(tmp_path, "mail_from_others_per_day = 4")
    store = Store(config.server.database)
    mail = Mailbox(Pipeline(store, config), Clock())
    mail.send("alice@example.org", "signup alice apple")
    for i in range(3):
        mail.send("mallory@evil.test", f"signup mal{i} pw{i}")
    body = "\n".join(f"broadcast mal{i % 3} pw{i % 3}" for i in range(30))
    replies = mail.send("mallory@evil.test", "multiple", body)
    # two broadcasts a day per account (six), but alice takes four mails from others a day
    assert Counter(to_of(r) for r in replies if r["Subject"] != "Trax PBM: replies to your commands") == {
        "alice@example.org": 4}
    assert "you have sent 2 broadcasts" in flat(combined(replies))
    store.close()


def test_messages_reach_one_player_as_often_as_the_day_allows(players: Mailbox):
    body = "\n".join(["message alice apple bob"] * 30)
    replies = players.send("alice@example.org", "multiple", body)
    assert Counter(to_of(r) for r in replies)["bob@example.org"] == 10  # [limits] mail_from_others_per_day
    assert flat(combined(replies)).count("It did not go to bob") == 20  # and the sender is told


@pytest.mark.parametrize("verified", [True, False])
def test_one_message_line_naming_many_players_is_refused_whole(players: Mailbox, verified):
    store = players.pipeline.store
    for i in range(30):
        store.create_user(f"p{i}", f"p{i}", "x", [f"p{i}@example.com"], players.clock.now,
                          confirmed=[f"p{i}@example.com"])
    names = " ".join(f"p{i}" for i in range(30))
    (reply,) = players.send("alice@example.org", f"message alice apple {names}", "Buy now", verified=verified)
    assert is_error(reply)
    assert "would send mail to 30 addresses other than yours, more than one mail may (20)" in flat(reply)
    assert [m for m in players.sent if to_of(m).startswith("p")] == []


def test_a_forged_signup_that_subscribes_to_everything_mails_its_address_once(players: Mailbox):
    """``signup`` forged from a stranger's address, then ``subscribe all``:
    once every board mail of the server went there, for ever. An address
    that never answered gets its one confirmation, and nothing else."""
    players.send("victim@example.net", "signup eve evepw", verified=False)
    players.send("victim@example.net", "trax subscribe all eve evepw", verified=False)
    before = recipients(players)["victim@example.net"]
    players.send("alice@example.org", "trax challenge alice bob apple")
    players.send("alice@example.org", "trax move 101 alice apple @0+")
    players.send("bob@example.org", "trax move 101 bob banana B1\\")
    assert recipients(players)["victim@example.net"] == before  # no board mail at all
    welcome = next(m for m in players.sent if to_of(m) == "victim@example.net")
    assert "If" in flat(welcome) or "confirm" in flat(welcome)
