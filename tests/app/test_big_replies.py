"""Replies a mail may cost: boards drawn per show, the size of one reply,
and the slow password checks of one mail are bounded."""

from __future__ import annotations

import pytest

import pbm.domain.passwords as passwords
from pbm.app.pipeline import Pipeline
from pbm.domain.store import Store

from .conftest import Clock, Mailbox, flat, server_config, text_of, to_of


@pytest.fixture
def loose(tmp_path):
    """alice and bob on a server with a small reply cap and no blocks before 50 wrong passwords."""
    config = server_config(tmp_path, "max_reply_bytes = 50000\nfailed_logins_before_lock = 50\nboards_per_show = 100")
    store = Store(config.server.database)
    mail = Mailbox(Pipeline(store, config), Clock())
    mail.send("alice@example.org", "signup alice apple")
    mail.send("bob@example.org", "signup bob banana")
    yield mail
    store.close()


def many_boards(mail: Mailbox, count: int) -> None:
    store = mail.pipeline.store
    alice, bob = store.find_user("alice").id, store.find_user("bob").id
    with store.atomic():  # boards made directly: only their number matters here
        for _ in range(count):
            store.create_board(game="trax", white_id=alice, black_id=bob, nag_days=7, forfeit_days=21,
                               created_at="2026-02-01T00:00:00", updated_at="2026-02-01T00:00:00")


def test_a_show_draws_twenty_boards_and_says_how_many_more_match(players: Mailbox):
    many_boards(players, 1000)
    (reply,) = players.send("x@example.org", "trax show alice")
    text = text_of(reply)
    assert text.count("Trax board ") == 20
    assert "980 more boards match, left out of this mail" in flat(reply)
    (listing,) = players.send("x@example.org", "trax games alice")
    assert "800 more boards left out of this list" in flat(listing)


def test_a_reply_is_cut_at_its_cap_with_a_note(loose: Mailbox):
    many_boards(loose, 100)
    replies = loose.send("x@example.org", "multiple", "\n".join(["trax show alice"] * 20))
    (reply,) = replies
    assert to_of(reply) == "x@example.org"
    body = reply.get_body(("plain",)).get_payload(decode=True)
    assert 45_000 < len(body) <= 50_000
    assert len(bytes(reply)) < 2 * 50_000 + 10_000  # text, its HTML copy and the pictures that fit
    assert body.endswith(b"Ask for less at a time.]\n")
    assert "The rest of this reply is left out" in flat(reply) and "most this server mails is 50,000" in flat(reply)


def test_one_mail_checks_ten_passwords_at_most(loose: Mailbox, monkeypatch):
    checked = []
    real = passwords.check_password
    monkeypatch.setattr(passwords, "check_password", lambda pw, stored: checked.append(pw) or real(pw, stored))
    replies = loose.send("mallory@evil.test", "multiple", "\n".join(f"signoff bob guess{i}" for i in range(100)))
    assert len(checked) == 10
    text = flat(next(r for r in replies if to_of(r) == "mallory@evil.test"))
    assert text.count("wrong userid or password") == 10
    assert text.count("this mail has already had 10 passwords checked") == 90
    # a password checked lately costs nothing, so a player's own long list of moves is not held up
    checked.clear()
    loose.send("alice@example.org", "multiple", "\n".join(["trax limit alice apple 5"] * 30))
    assert checked == []  # known since her signup: no scrypt at all
