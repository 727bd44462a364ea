"""Challenges: a board only with the password of one of its players; from
anyone else an invitation; floors on the clock; daily caps."""

from __future__ import annotations

from datetime import timedelta

from tests.ticks import tick_mails

from .conftest import Mailbox, flat, is_error, text_of, to_of


def boards(mail: Mailbox) -> list[dict]:
    return mail.pipeline.store.boards_of_game("trax")


def test_a_stranger_makes_no_board_only_an_invitation_to_both_players(players):
    replies = players.send("stranger@nowhere.test", "trax challenge alice bob --nagtime=1 --forfeittime=3")
    assert boards(players) == []
    assert sorted(to_of(r) for r in replies) == ["alice@example.org", "bob@example.org", "stranger@nowhere.test"]
    invitation = replies[0]
    assert invitation["Subject"] == "Trax challenge alice bob"
    body = flat(invitation)
    assert "stranger@nowhere.test suggests a game of Trax" in body
    assert "alice (white, moves first) against bob (black), --nagtime=1 --forfeittime=3" in body
    assert "No board has been made" in body
    assert "trax challenge alice bob PASSWORD --nagtime=1 --forfeittime=3" in body
    assert all(len(line) <= 78 for line in text_of(invitation).splitlines())


def test_either_players_password_makes_the_board(players):
    replies = players.send("carol@example.org", "trax challenge alice bob banana")
    assert replies[0]["Subject"] == "New Trax Board 101 alice"
    assert sorted(to_of(r) for r in replies) == ["alice@example.org", "bob@example.org", "carol@example.org"]
    players.send("alice@example.org", "trax challenge alice bob apple")
    assert [b.number for b in boards(players)] == [101, 102]


def test_a_wrong_password_makes_nothing_and_quotes_nothing(players):
    replies = players.send("mallory@evil.test", "trax challenge alice bob guess")
    assert [to_of(r) for r in replies] == ["mallory@evil.test"]
    assert "wrong userid or password" in flat(replies[0])
    assert "trax challenge ******** ******** ********" in flat(replies[0])
    assert boards(players) == []


def test_clock_options_have_a_floor(players):
    for options, problem in (("--forfeittime=0.01", "the forfeit time is at least 1 day on this server, not 0.01"),
                             ("--totaltime=0.5", "the total time is at least 1 day on this server, not 0.5")):
        replies = players.send("alice@example.org", f"trax challenge alice bob apple {options}")
        assert is_error(replies[0]) and problem in flat(replies[0]), flat(replies[0])
        refused = players.send("stranger@nowhere.test", f"trax challenge alice bob {options}")
        assert [to_of(r) for r in refused] == ["stranger@nowhere.test"] and problem in flat(refused[0])
    assert boards(players) == []


def test_one_mail_of_a_hundred_challenges_from_a_stranger_changes_no_rating(players):
    """A stranger once made 100 rated boards with a forfeit time of 0.01 days,
    and a tick later one player had lost 300 rating points."""
    body = "\n".join(["trax challenge alice bob --forfeittime=0.01"] * 50 + ["trax challenge alice bob"] * 50)
    players.send("stranger@nowhere.test", "multiple", body)
    tick_mails(players.pipeline, players.clock.now + timedelta(days=2))
    assert boards(players) == []
    assert players.pipeline.store.rating(players.pipeline.store.find_user("alice").id, "trax") is None


def test_invitations_to_a_player_are_capped_per_day(players):
    for _ in range(5):
        replies = players.send("stranger@nowhere.test", "trax challenge alice bob")
        assert len(replies) == 3
    replies = players.send("stranger@nowhere.test", "trax challenge alice bob")
    assert [to_of(r) for r in replies] == ["stranger@nowhere.test"]
    assert "alice has had 5 invitations today, the most a day" in flat(replies[0])
    players.clock.advance(days=1)
    assert len(players.send("stranger@nowhere.test", "trax challenge alice bob")) == 3


def test_new_boards_for_a_player_are_capped_per_day(players):
    players.send("bob@example.org", "set bob banana challenges open")  # every challenge a game at once
    for _ in range(20):
        assert not is_error(players.send("alice@example.org", "trax challenge alice bob apple")[0])
    replies = players.send("alice@example.org", "trax challenge alice bob apple")
    assert "alice has been given 20 new boards today, the most a day" in flat(replies[0])
    assert len(boards(players)) == 20
