"""One small mail may not make the server mail others at length: the cases
that once did (a hundred ``multiple`` lines of challenges, of signups and
address changes naming a stranger's address, of broadcasts from fresh
accounts), each now bounded by a cap."""

from __future__ import annotations

from collections import Counter

from .conftest import Mailbox, flat, to_of


def recipients(mail: Mailbox) -> Counter[str]:
    return Counter(to_of(m) for m in mail.sent)


def combined(replies: list) -> object:
    """The reply that gathers what a mail of several commands told its sender."""
    (reply,) = [m for m in replies if m["Subject"] == "Trax PBM: replies to your commands"]
    return reply


def test_a_hundred_signups_naming_a_strangers_address_send_it_three_mails(mail: Mailbox):
    body = "\n".join(f"signup user{i} pw{i} victim@example.net" for i in range(100))
    replies = mail.send("mallory@evil.test", "multiple", body)
    assert recipients(mail)["victim@example.net"] == 3
    assert len(mail.pipeline.store.all_users()) == 3  # and three accounts from one address a day
    assert "3 accounts have been opened from your address today" in flat(combined(replies))


def test_address_changes_ask_one_address_to_confirm_three_times_a_day(players: Mailbox):
    body = "\n".join(f"{'add' if i % 2 else 'change address'} alice apple victim@example.net" for i in range(100))
    replies = players.send("alice@example.org", "multiple", body)
    assert recipients(players)["victim@example.net"] == 3
    assert "has been asked 3 times today to confirm an account" in flat(combined(replies))
    players.clock.advance(days=1)
    players.send("alice@example.org", "add alice apple victim@example.net")
    assert recipients(players)["victim@example.net"] == 4


def test_broadcasts_are_counted_per_sender_not_per_fresh_account(players: Mailbox):
    for i in range(3):
        players.send("mallory@evil.test", f"signup mal{i} pw{i}")
    body = "\n".join(f"broadcast mal{i % 3} pw{i % 3}" for i in range(30))
    replies = players.send("mallory@evil.test", "multiple", body)
    # two broadcasts (the day's cap for the sender), each to every other address once
    assert Counter(to_of(r) for r in replies if r["Subject"] != "Trax PBM: replies to your commands") == {
        "alice@example.org": 2, "bob@example.org": 2}
    assert "you have sent 2 broadcasts" in flat(combined(replies))


def test_a_multiple_sends_mail_to_others_for_twenty_commands_at_most(players: Mailbox):
    body = "\n".join(["message alice apple bob"] * 30)
    replies = players.send("alice@example.org", "multiple", body)
    assert flat(combined(replies)).count("this mail has already sent mail to others for 20 commands") == 10
    assert Counter(to_of(r) for r in replies)["bob@example.org"] == 20
