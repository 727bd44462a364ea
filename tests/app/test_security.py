"""Account security and abuse limits by mail: password guessing locks,
password reset, address confirmation, daily caps, oversized mail.  Time is
a clock the tests move; nothing sleeps."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from pbm.app.pipeline import Pipeline
from pbm.config import load_config
from pbm.domain.store import Store
from pbm.domain.times import when
from tests.ticks import tick_mails

from .conftest import AUTHSERV, Clock, Mailbox, flat, is_error, text_of, to_of


def code_in(msg) -> str:
    match = re.search(r"\b([A-Z2-9]{5}-[A-Z2-9]{5})\b", text_of(msg))
    assert match, text_of(msg)
    return match.group(1)


@pytest.fixture
def strict(tmp_path):
    """A server with low caps: 3 mails a day per sender, 1 broadcast, 3000 bytes."""
    path = tmp_path / "pbm.toml"
    path.write_text(
        '[server]\naddress = "pbm@pbm.test"\nname = "Trax PBM"\ndatabase = "pbm.sqlite3"\n'
        "[limits]\nreplies_per_sender_per_day = 3\nbroadcasts_per_day = 1\nmax_message_bytes = 3000\n"
        f'[security]\ntrusted_authserv_id = "{AUTHSERV}"\n'
    )
    config = load_config(path)
    store = Store(config.server.database)
    yield Mailbox(Pipeline(store, config), Clock())
    store.close()


# ----------------------------------------------------------------------------
# password guessing


def test_wrong_passwords_block_their_sender_not_the_owner_and_the_owner_is_told(players):
    for _ in range(4):
        replies = players.send("mallory@evil.test", "signoff alice guess")
        assert [to_of(r) for r in replies] == ["mallory@evil.test"]
        assert "wrong userid or password" in flat(replies[0])
    replies = players.send("mallory@evil.test", "signoff alice guess5")
    assert sorted(to_of(r) for r in replies) == ["alice@example.org", "mallory@evil.test"]
    told = next(r for r in replies if to_of(r) == "alice@example.org")
    assert told["Subject"] == "Trax PBM: wrong passwords for alice from mallory@evil.test"
    body = flat(told)
    assert "5 wrong passwords in a row" in body and "in mail from mallory@evil.test" in body
    assert "until 2026-03-01 12:45 UTC" in body and "Mail from your own addresses is not held up" in body
    assert "guess5" not in told.as_string()
    # while blocked, even the right password from that address is not checked, nothing more is told
    replies = players.send("mallory@evil.test", "signoff alice apple")
    assert [to_of(r) for r in replies] == ["mallory@evil.test"]
    assert "no password for alice is checked from it until 2026-03-01 12:45 UTC" in flat(replies[0])
    assert "password reset" in flat(replies[0])
    assert not players.pipeline.store.find_user("alice").signed_off
    # the owner, from her own address, is not held up at all
    assert not is_error(players.send("alice@example.org", "trax limit alice apple 5")[0])
    # after the block, the right password from that address works and ends its count
    players.clock.now = players.clock.now.replace(hour=12, minute=45)
    assert not is_error(players.send("mallory@evil.test", "trax limit alice apple 6")[0])
    assert players.pipeline.store.login_failures_of(players.pipeline.store.find_user("alice").id) == []


def test_every_wrong_password_after_a_block_doubles_the_next_and_the_owner_is_told_once_a_day(players):
    for i in range(5):
        players.send("mallory@evil.test", f"signoff alice guess{i}")
    store = players.pipeline.store
    alice = store.find_user("alice").id
    first = store.login_failures("mallory@evil.test", alice).blocked_until
    players.clock.now = players.clock.now + timedelta(minutes=16)
    sixth = players.clock.now
    replies = players.send("mallory@evil.test", "signoff alice guess6")
    assert [to_of(r) for r in replies] == ["mallory@evil.test"]  # told once a day at most
    second = store.login_failures("mallory@evil.test", alice).blocked_until
    assert when(second) - sixth == timedelta(minutes=30)
    assert when(first) < when(second)


def test_a_stranger_guessing_for_days_neither_locks_out_nor_forfeits_the_owner(players):
    """Six wrong passwords an hour for three weeks once kept a player out
    for 22 days and lost her game on time; now only the guesser waits."""
    players.send("alice@example.org", "trax challenge alice bob apple")
    players.send("alice@example.org", "trax move 101 alice apple @0+")
    for day in range(3):
        for hour in range(24):
            for i in range(6):
                players.send("mallory@evil.test", f"trax move 101 bob guess{day}{hour}{i} A1+")
            players.clock.advance(hours=1)
        reply = players.send("bob@example.org", "trax show 101")  # bob is not held up
        assert not is_error(reply[0])
    replies = players.send("bob@example.org", "trax move 101 bob banana B1+")
    assert replies[0]["Subject"] == "Trax Board 101 alice"
    assert players.pipeline.store.board(101).status == "active"


def test_too_many_wrong_passwords_from_one_sender_for_anyone_stop_its_checks_for_the_day(players):
    store = players.pipeline.store
    for name in ("carol", "dave", "erin"):
        players.send(f"{name}@example.org", f"signup {name} {name}-pw")
    for i in range(20):  # wrong passwords for four other players, five each
        players.send("mallory@evil.test", f"trax limit {['bob', 'carol', 'dave', 'erin'][i % 4]} guess{i} 5")
    replies = players.send("mallory@evil.test", "signoff alice apple")
    assert "checked from it until 2026-03-02 00:00 UTC" in flat(replies[0])
    assert not store.find_user("alice").signed_off
    assert not is_error(players.send("alice@example.org", "trax limit alice apple 5")[0])


def test_guessed_userids_from_a_players_address_cost_nothing_and_block_nothing(players):
    """Twenty wrong logins for made-up userids, forged from alice's address,
    once blocked every password command of alice's until midnight."""
    for i in range(40):
        replies = players.send("alice@example.org", f"trax limit nobody{i} guess{i} 5", verified=False)
        assert "wrong userid or password" in flat(replies[0])
    assert players.pipeline.store.sender_failures("alice@example.org", "2026-03-01") == 0
    assert not is_error(players.send("alice@example.org", "trax limit alice apple 5")[0])
    assert not is_error(players.send("alice@example.org", "trax limit alice apple 6", verified=False)[0])


def test_a_wrong_password_in_a_multiple_mail_is_counted_though_its_command_is_rolled_back(players):
    players.send("mallory@evil.test", "multiple", "signoff alice a\nsignoff alice b\nsignoff alice c\n")
    store = players.pipeline.store
    assert store.login_failures("mallory@evil.test", store.find_user("alice").id).failures == 3


def test_no_board_is_forfeited_while_its_players_own_address_is_blocked(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    players.send("alice@example.org", "trax move 101 alice apple @0+")
    players.send("bob@example.org", "trax move 101 bob banana accept")  # bob to move: 21 days to a forfeit
    due = when(players.pipeline.store.board(101).turn_since) + timedelta(days=21)
    players.clock.now = due - timedelta(minutes=20)
    for i in range(5):  # each mail moves the clock 5 minutes: the fifth, at the forfeit time, blocks bob
        players.send("bob@example.org", f"trax move 101 bob typo{i} B1+")
    mails = tick_mails(players.pipeline, players.clock.now)
    assert players.clock.now > due and players.pipeline.store.board(101).status == "active"
    assert not any("forfeit" in flat(m) for m in mails)
    later = tick_mails(players.pipeline, players.clock.now + timedelta(days=2))  # the block is long over
    assert players.pipeline.store.board(101).reason == "forfeit", [flat(m) for m in later]


# ----------------------------------------------------------------------------
# password reset


def test_a_reset_code_goes_only_to_the_registered_address_and_works_once(players):
    replies = players.send("mallory@evil.test", "password reset alice")
    assert sorted(to_of(r) for r in replies) == ["alice@example.org", "mallory@evil.test"]
    asked = next(r for r in replies if to_of(r) == "mallory@evil.test")
    mailed = next(r for r in replies if to_of(r) == "alice@example.org")
    code = code_in(mailed)
    assert code not in asked.as_string()
    assert "If alice is an account here" in flat(asked)
    assert f"change password alice {code} NEWPASSWORD" in flat(mailed)
    # unknown users get the same answer, and nobody else gets mail
    unknown = players.send("mallory@evil.test", "password reset nobody")
    assert len(unknown) == 1 and "If nobody is an account here" in flat(unknown[0])
    # the owner sets a new password with the code (lower case and no dash are fine)
    done = players.send("alice@example.org", f"change password alice {code.replace('-', '').lower()} pear")
    assert done[0]["Subject"] != "Trax error", text_of(done[0])
    assert "pear" not in done[0].as_string() and code not in done[0].as_string()
    assert players.send("alice@example.org", "trax limit alice pear 4")[0]["Subject"] != "Trax error"
    again = players.send("alice@example.org", f"change password alice {code} plum")
    assert "wrong userid or password" in flat(again[0])


def test_a_reset_code_opens_a_locked_account(players):
    for i in range(5):
        players.send("mallory@evil.test", f"signoff alice guess{i}")
    code = code_in(next(r for r in players.send("alice@example.org", "password reset alice")
                        if "code for alice" in str(r["Subject"])))
    done = players.send("mallory@evil.test", f"change password alice {code} pear")  # from the blocked address
    assert done[0]["Subject"] == "Trax PBM: password of alice changed", text_of(done[0])
    store = players.pipeline.store
    assert store.login_failures_of(store.find_user("alice").id) == []


def test_reset_codes_expire_after_a_day(players):
    code = code_in(next(r for r in players.send("alice@example.org", "password reset alice")
                        if "code for alice" in str(r["Subject"])))
    players.clock.advance(days=1)
    late = players.send("alice@example.org", f"change password alice {code} pear")
    assert "wrong userid or password" in flat(late[0])


# ----------------------------------------------------------------------------
# confirming new addresses


def test_an_address_other_than_the_senders_gets_no_game_mail_until_it_confirms(players):
    replies = players.send("mallory@evil.test", "signup mal secret victim@example.net")
    assert sorted(to_of(r) for r in replies) == ["mallory@evil.test", "victim@example.net"]
    welcome = next(r for r in replies if to_of(r) == "mallory@evil.test")
    assert "Waiting for confirmation: victim@example.net" in flat(welcome)
    ask = next(r for r in replies if to_of(r) == "victim@example.net")
    assert str(ask["Subject"]).startswith("confirm address ")
    assert "Someone writing from mallory@evil.test" in flat(ask)
    assert "secret" not in ask.as_string()
    # game mail does not go to the unconfirmed address
    board = players.send("mallory@evil.test", "trax challenge mal bob secret")
    assert sorted(to_of(r) for r in board) == ["bob@example.org", "mallory@evil.test"]
    # a code from another address, or a wrong code, confirms nothing
    stolen = players.send("mallory@evil.test", str(ask["Subject"]))
    assert "not one waiting for this address" in flat(stolen[0])
    wrong = players.send("victim@example.net", "confirm address AAAAA-BBBBB")
    assert "not one waiting for this address" in flat(wrong[0])
    # the owner of the address agrees by replying
    done = players.send("victim@example.net", "Re: " + str(ask["Subject"]))
    assert done[0]["Subject"] == "Trax PBM: address confirmed for mal"
    assert "now goes to: victim@example.net" in flat(done[0])
    move = players.send("mallory@evil.test", "trax move 101 mal secret @0+")
    assert sorted(to_of(r) for r in move) == ["bob@example.org", "victim@example.net"]


def test_change_address_keeps_confirmed_addresses_and_asks_new_ones(players):
    replies = players.send("alice@example.org", "change address alice apple alice@example.org home@example.net")
    assert sorted(to_of(r) for r in replies) == ["alice@example.org", "home@example.net"]
    told = next(r for r in replies if to_of(r) == "alice@example.org")
    assert "Game mail for alice now goes to: alice@example.org." in flat(told)
    assert "Waiting for confirmation: home@example.net" in flat(told)


# ----------------------------------------------------------------------------
# limits


def test_the_daily_cap_gives_one_notice_then_silence_until_the_next_day(strict):
    for _ in range(3):
        assert len(strict.send("loop@example.org", "help")) == 1
    notice = strict.send("loop@example.org", "signup looper pw")
    assert [m["Subject"] for m in notice] == ["Trax PBM: no more replies today"]
    assert "at most 3 mails a day" in flat(notice[0])
    assert strict.pipeline.store.find_user("looper") is None  # nothing in it was run
    assert strict.send("loop@example.org", "help") == []
    assert strict.result.status == "dropped"
    assert len(strict.send("other@example.org", "help")) == 1  # others are not affected
    strict.clock.now = strict.clock.now.replace(day=2, hour=0, minute=1)
    assert len(strict.send("loop@example.org", "help")) == 1


def test_broadcasts_are_capped_per_day(strict):
    strict.send("alice@example.org", "signup alice apple")
    strict.send("bob@example.org", "signup bob banana")
    first = strict.send("alice@example.org", "broadcast alice apple", "Tournament next week!")
    assert sorted(to_of(m) for m in first) == ["alice@example.org", "bob@example.org"]
    second = strict.send("alice@example.org", "broadcast alice apple", "Again!")
    assert [to_of(m) for m in second] == ["alice@example.org"]
    assert "you have sent 1 broadcasts in the last 24 hours" in flat(second[0])


def test_an_oversized_mail_gets_one_clear_reply_and_nothing_is_run(strict):
    replies = strict.send("alice@example.org", "signup alice apple", "x" * 5000)
    assert [m["Subject"] for m in replies] == ["Trax error"]
    body = flat(replies[0])
    assert "the most this server reads is 3,000 bytes" in body
    assert "Nothing in it was read" in body
    assert strict.pipeline.store.find_user("alice") is None


def test_past_the_daily_share_a_password_cannot_aim_replies_at_a_forged_address(strict):
    """Over the cap, a command that proves itself is run; but it is
    answered only when it comes from its account's own address, so eve's
    password cannot turn a forged From into a target."""
    strict.send("eve@evil.test", "signup eve evepw")
    strict.send("alice@example.org", "signup alice apple")
    for _ in range(3):
        strict.send("alice@example.org", "help", verified=False)  # alice's share, spent by someone
    assert strict.send("alice@example.org", "trax limit eve evepw 4", verified=False) == []  # forged: unanswered
    assert strict.pipeline.store.preference(strict.pipeline.store.find_user("eve").id, "trax").game_limit == 4
    (answer,) = strict.send("alice@example.org", "trax limit alice apple 3", verified=False)
    assert not is_error(answer) and to_of(answer) == "alice@example.org"  # her own, answered
