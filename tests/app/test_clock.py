"""Clocks by mail: reminders, forfeits, total time, draw offers at forfeit
time, vacations. Time is a clock the tests move by days; nothing sleeps."""

from __future__ import annotations

from datetime import timedelta
from email import policy
from email.parser import BytesParser

import pytest

from pbm.domain.boards import load_game, new_board
from pbm.terms import BoardTerms
from tests.ticks import tick_mails

from .conftest import flat, text_of, to_of
from .test_conversations import play_moves


def tick(mail, **advance):
    """Move the clock (if asked), do the clock work, return its mail."""
    if advance:
        mail.clock.advance(**advance)
    messages = tick_mails(mail.pipeline, mail.clock.now)
    return [BytesParser(policy=policy.default).parsebytes(bytes(m)) for m in messages]


def at(mail, start, **delta):
    mail.clock.now = start + timedelta(**delta)
    return tick(mail)


def board_row(mail, number=101):
    return mail.pipeline.store.board(number)


def accepted(mail, number=101, who="bob", password="banana"):
    """The player challenged takes up the challenge (the game is rated and
    timed from here; see test_consent.py for the games nobody agreed to)."""
    mail.send(f"{who}@example.org", f"trax move {number} {who} {password} accept")


@pytest.fixture
def game(players):
    """Board 101, alice (white) to move, created at players.clock.now and
    accepted by bob at once."""
    players.send("carol@example.org", "trax challenge alice bob apple")
    players.start = players.clock.now - timedelta(minutes=5)
    accepted(players)
    return players


def test_a_reminder_at_seven_days_then_daily_and_only_to_the_player_to_move(game):
    start = game.start
    assert at(game, start, days=6, hours=23) == []
    nags = at(game, start, days=7)
    assert [to_of(m) for m in nags] == ["alice@example.org"]
    assert nags[0]["Subject"] == "Nag: Trax Board 101 alice"
    body = flat(nags[0])
    assert "it is your move on Trax board 101" in body
    assert "you lose this game by forfeit at 2026-03-22 12:10 UTC, in 14d 0h" in body
    assert body.rstrip().endswith("trax move 101 alice PASSWORD <move>#1")
    # the same moment again, or later the same day: nothing more
    assert at(game, start, days=7) == []
    assert at(game, start, days=7, hours=23, minutes=59) == []
    assert [m["Subject"] for m in at(game, start, days=8)] == ["Nag: Trax Board 101 alice"]
    assert [m["Subject"] for m in at(game, start, days=9, hours=3)] == ["Nag: Trax Board 101 alice"]
    assert at(game, start, days=9, hours=20) == []
    # a move gives the turn, and a fresh week, to bob
    game.clock.now = start + timedelta(days=9, hours=21)
    play_moves(game, 101, ["@0+"])
    moved = game.clock.now
    assert at(game, moved, days=6, hours=23) == []
    assert [(to_of(m), m["Subject"]) for m in at(game, moved, days=7)] == [
        ("bob@example.org", "Nag: Trax Board 101 bob")]


def test_a_forfeit_at_twenty_one_days_is_a_rated_loss_told_to_everyone(game):
    game.send("carol@example.org", "signup carol cherry")
    game.send("carol@example.org", "trax notify carol cherry 101")
    play_moves(game, 101, ["@0+"])  # bob to move
    moved = game.clock.now - timedelta(minutes=5)
    assert len(at(game, moved, days=20, hours=23)) == 1  # a reminder, no forfeit yet
    mails = at(game, moved, days=21)
    assert sorted(to_of(m) for m in mails) == ["alice@example.org", "bob@example.org", "carol@example.org"]
    final = mails[0]
    assert final["Subject"] == "Trax Board 101"
    body = flat(final)
    assert "bob made no move for 21 days and loses by forfeit." in body
    assert "Game won by alice (by forfeit)." in body
    assert "Rating changes: alice 1600 -> 1800 (+200), bob 1600 -> 1400 (-200)." in body
    row = board_row(game)
    assert (row.status, row.winner, row.reason) == ("finished", "white", "forfeit")
    store = game.pipeline.store
    alice, bob = store.find_user("alice"), store.find_user("bob")
    assert store.rating(alice.id, "trax").rating == 1800
    assert store.rating(bob.id, "trax").losses == 1
    # finished boards have no clock
    assert at(game, moved, days=40) == []


def test_an_unrated_game_lost_on_time_leaves_the_ratings_alone(players):
    players.send("alice@example.org", "trax challenge alice bob apple -unrated")
    accepted(players)
    start = players.clock.now
    mails = at(players, start, days=22)
    assert "Game won by bob (by forfeit)." in flat(mails[0])
    assert "Rating changes" not in flat(mails[0])
    assert players.pipeline.store.rating(players.pipeline.store.find_user("bob").id, "trax") is None


def test_the_board_mail_shows_the_clock_block(game):
    game.clock.now = game.start + timedelta(days=2, hours=3)
    reply = play_moves(game, 101, ["@0+"])[0]
    body = text_of(reply)
    assert "Started:   2026-03-01 12:10 UTC" in body
    assert "Last move: 2026-03-03 15:10 UTC" in body
    assert "Time used: alice 2d 3h, bob 0h 0m" in body
    assert "Limits:    a reminder after 7 days without a move, a loss by forfeit\n           after 21 days." in body


def test_challenge_options_set_the_clock_of_one_board(players):
    replies = players.send("alice@example.org", "trax challenge alice bob apple --nagtime=2 --forfeittime=4")
    assert "a reminder after 2 days without a move, a loss by forfeit after 4 days" in flat(replies[0])
    start = players.clock.now - timedelta(minutes=5)
    accepted(players)
    assert at(players, start, days=1, hours=23) == []
    assert at(players, start, days=2)[0]["Subject"] == "Nag: Trax Board 101 alice"
    assert "alice made no move for 4 days" in flat(at(players, start, days=4)[0])


def test_a_forfeit_time_below_the_default_nag_time_is_refused_with_the_reason(players):
    replies = players.send("alice@example.org", "trax challenge alice bob apple --forfeittime=5")
    assert replies[0]["Subject"] == "Trax error"
    assert "the nag time (7 days) must be shorter than the forfeit time (5 days)" in flat(replies[0])
    assert players.pipeline.store.board(101) is None


def test_total_thinking_time_runs_out_before_the_forfeit_time(players):
    replies = players.send("alice@example.org", "trax challenge alice bob apple --totaltime=3")
    assert "Time used: alice 0h 0m, bob 0h 0m (at most 3 days each)" in text_of(replies[0])
    start = players.clock.now - timedelta(minutes=5)
    players.clock.now = start + timedelta(days=1)
    players.send("alice@example.org", "trax move 101 alice apple @0+#1")
    players.clock.now = start + timedelta(days=2)
    players.send("bob@example.org", "trax move 101 bob banana B1\\#2")  # bob answers after a day
    # alice has used 1 day; 2 more and her 3 are gone
    assert at(players, start, days=3, hours=23) == []
    mails = at(players, start, days=4)
    body = flat(mails[0])
    assert "alice used up the 3 days of thinking time allowed and loses by forfeit." in body
    assert "Game won by bob (by forfeit)." in body


def test_a_draw_offer_left_unanswered_is_accepted_at_forfeit_time(game):
    play_moves(game, 101, ["@0+"])
    game.send("alice@example.org", "trax move 101 alice apple propose")
    offered = game.clock.now - timedelta(minutes=5)
    # the reminder tells bob that the offer stands
    nag = at(game, offered, days=7)[0]
    assert "at the forfeit time the draw offer counts as accepted" in flat(nag)
    mails = at(game, offered, days=21)
    body = flat(mails[0])
    assert "bob made no move until the forfeit time, and left alice's draw offer unanswered" in body
    assert "Game drawn by agreement." in body
    assert "Rating changes: alice 1600 -> 1600 (+0), bob 1600 -> 1600 (+0)." in body
    row = board_row(game)
    assert (row.winner, row.reason) == (None, "agreed")


def test_the_late_players_own_draw_offer_does_not_save_them(game):
    play_moves(game, 101, ["@0+"])
    game.send("bob@example.org", "trax move 101 bob banana propose")
    mails = at(game, game.clock.now, days=21)
    assert "Game won by alice (by forfeit)." in flat(mails[0])


def test_tournament_boards_default_to_one_day_and_seven_days(game):
    store = game.pipeline.store
    ctx = game.pipeline.context(game.clock.now)
    alice, bob = store.find_user("alice"), store.find_user("bob")
    number = new_board(ctx, "trax", bob, alice, BoardTerms(), tournament="ETC26")
    row = store.board(number)
    assert (row.nag_days, row.forfeit_days, row.tournament) == (1, 7, "ETC26")
    assert (board_row(game).nag_days, board_row(game).forfeit_days) == (7, 21)
    start = game.clock.now
    assert [m["Subject"] for m in at(game, start, days=1)] == [f"Nag: Trax Board {number} bob"]
    assert [m["Subject"] for m in at(game, start, days=2)] == [f"Nag: Trax Board {number} bob"]
    mails = at(game, start, days=7)
    assert {m["Subject"] for m in mails} == {f"Trax Board {number}", "Nag: Trax Board 101 alice"}
    assert load_game(ctx, number).row.reason == "forfeit"


def test_a_vacation_pauses_the_clock_and_the_opponents_are_told(game):
    play_moves(game, 101, ["@0+"])  # bob to move from here
    moved = game.clock.now - timedelta(minutes=5)
    game.clock.now = moved + timedelta(days=2)
    replies = game.send("bob@example.org", "vacation bob banana 10")
    assert [to_of(r) for r in replies] == ["bob@example.org", "alice@example.org"]
    assert replies[0]["Subject"] == "Trax PBM: vacation until 2026-03-13 12:20 UTC"
    assert "Vacation days this calendar year: 10 of 30 used, 20 left" in flat(replies[0])
    assert "banana" not in replies[0].as_string()
    notice = flat(replies[1])
    assert "your opponent bob is on vacation until 2026-03-13 12:20 UTC" in notice
    assert "Their clock is stopped on board 101" in notice
    # the board mail shows it
    shown = game.send("alice@example.org", "trax show 101")
    assert "bob is on vacation until 2026-03-13 12:20 UTC; their clock is stopped." in text_of(shown[0])
    # 2 days before, 10 away: the 7th day of waiting is 5 days after the vacation
    assert at(game, moved, days=16, hours=23) == []
    assert at(game, moved, days=17)[0]["Subject"] == "Nag: Trax Board 101 bob"
    assert [m["Subject"] for m in at(game, moved, days=30, hours=23)] == ["Nag: Trax Board 101 bob"]
    assert "bob made no move for 21 days" in flat(at(game, moved, days=31)[0])


def test_back_early_from_vacation_the_clock_runs_again(game):
    play_moves(game, 101, ["@0+"])
    moved = game.clock.now - timedelta(minutes=5)
    game.clock.now = moved + timedelta(days=1)
    game.send("bob@example.org", "vacation bob banana 20")
    game.clock.now = moved + timedelta(days=4, minutes=5)
    replies = game.send("bob@example.org", "vacation bob banana off")
    assert replies[0]["Subject"] == "Trax PBM: vacation over"
    assert "4 of 30 used, 26 left" in flat(replies[0])  # 3 days and 5 minutes count as 4
    assert "bob is back from vacation" in flat(replies[1])
    # away from day 1 to day 4 and 5 minutes: the 7-day reminder comes that much later
    assert at(game, moved, days=10, minutes=4) == []
    assert len(at(game, moved, days=10, minutes=5)) == 1


def test_vacation_off_when_not_away_says_so(players):
    replies = players.send("bob@example.org", "vacation bob banana off")
    assert "you are not on vacation" in flat(replies[0])


def test_the_vacation_cap_is_per_calendar_year(players):
    assert "20 left" in flat(players.send("bob@example.org", "vacation bob banana 10")[0])
    players.clock.advance(days=11)
    replies = players.send("bob@example.org", "vacation bob banana 21")
    assert replies[0]["Subject"] == "Trax error"
    body = flat(replies[0])
    assert "21 days is more than you have left: 20 of 30 days this year" in body
    assert "vacation USERID PASSWORD DAYS" in body or "vacation USERID PASSWORD" in body
    assert "0 left" in flat(players.send("bob@example.org", "vacation bob banana 20")[0])
    players.clock.advance(days=21)
    assert "more than you have left: 0 of 30" in flat(players.send("bob@example.org", "vacation bob banana 1")[0])
    players.clock.now = players.clock.now.replace(year=2027, month=1, day=2)
    assert "29 left" in flat(players.send("bob@example.org", "vacation bob banana 1")[0])


def test_the_clock_work_is_idempotent_and_survives_a_broken_board(game):
    game.send("alice@example.org", "trax challenge bob alice banana")
    store = game.pipeline.store
    store.update_board(101, moves="Z99+")  # a board the engine cannot replay
    start = game.start
    mails = at(game, start, days=7, minutes=10)
    assert [m["Subject"] for m in mails] == ["Nag: Trax Board 102 bob"]
    assert at(game, start, days=7, minutes=10) == []
