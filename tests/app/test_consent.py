"""No game without both players: a challenge with a password makes a board
at once, but it is rated and timed only once the player challenged moves
or answers accept; unanswered it lapses, unrated.  Once, any account
could start twenty rated games a day against anyone, with a one-day
forfeit, and a day later the victim had lost all twenty."""

from __future__ import annotations

from pbm.domain import computer
from tests.ticks import tick_mails

from .conftest import Mailbox, flat, is_error, to_of

A, B, C = "alice@example.org", "bob@example.org", "carol@example.org"


def rating(mail: Mailbox, userid: str) -> object:
    store = mail.pipeline.store
    row = store.db.execute("SELECT rating FROM ratings WHERE user_id = ? AND game = 'trax'",
                           (store.find_user(userid).id,)).fetchone()
    return row[0] if row else None


def test_twenty_challenges_with_a_short_forfeit_cost_the_victim_nothing(players: Mailbox):
    mail = players
    replies = [mail.send(A, "trax challenge alice bob apple --nagtime=0.5 --forfeittime=1")[0] for _ in range(20)]
    made = [r for r in replies if not is_error(r)]
    assert len(made) == 5  # [limits] open_challenges_per_player: the rest refused
    assert "bob has 5 challenges waiting for an answer already" in flat(replies[5])
    text = flat(next(m for m in mail.sent if to_of(m) == B and "New Trax Board 101" in str(m["Subject"])))
    assert "This game waits for bob to take up the challenge" in text
    for n in range(101, 106):  # alice moves on each: bob's turn, his clock would run
        mail.send(A, f"trax move {n} alice apple @0+")
    # bob is never reminded, and two days later every game has lapsed, unrated
    mail.clock.advance(hours=13)
    assert not [m for m in tick_mails(mail.pipeline, mail.clock.now) if to_of(m) == B and "Nag" in str(m["Subject"])]
    mail.clock.advance(days=2)
    tick_mails(mail.pipeline, mail.clock.now)
    store = mail.pipeline.store
    for n in range(101, 106):
        row = store.board(n)
        assert (row.status, row.reason, row.rated, row.winner) == ("finished", "lapsed", 0, None)
    assert rating(mail, "bob") is None and rating(mail, "alice") is None
    (shown,) = mail.send(C, "trax show 101")
    assert "Game lapsed: the challenge was not taken up in time (it is not rated)." in flat(shown)


def test_a_first_move_or_accept_takes_up_the_challenge(players: Mailbox):
    mail = players
    mail.send(A, "trax challenge bob alice apple")  # bob moves first
    replies = mail.send(B, "trax move 101 bob banana @0+")
    assert not is_error(replies[0])
    assert mail.pipeline.store.board(101).accepted_at is not None
    mail.send(A, "trax challenge alice bob apple")  # alice moves first: bob accepts before his turn
    (told, *_) = mail.send(B, "trax move 102 bob banana accept")
    assert "bob accepted the challenge: the game is rated and timed from now." in flat(told)
    row = mail.pipeline.store.board(102)
    assert row.accepted_at is not None and row.rated == 1


def test_reject_declines_the_game_unrated(players: Mailbox):
    mail = players
    mail.send(A, "trax challenge alice bob apple")
    mail.send(A, "trax move 101 alice apple @0/")
    (told, *_) = mail.send(B, "trax move 101 bob banana reject")
    assert "bob declined the challenge: the game ends, unrated." in flat(told)
    row = mail.pipeline.store.board(101)
    assert (row.status, row.reason, row.rated) == ("finished", "declined", 0)


def test_a_resignation_before_consent_rates_nothing(players: Mailbox):
    mail = players
    mail.send(A, "trax challenge alice bob apple")
    mail.send(A, "trax move 101 alice apple @0/")
    mail.send(A, "trax move 101 alice apple resign")  # queued out of turn? no: before both moved, cancelled
    row = mail.pipeline.store.board(101)
    assert row.rated == 0 and rating(mail, "bob") is None


def test_a_player_may_take_every_challenge_at_once(players: Mailbox):
    mail = players
    (settings,) = mail.send(B, "set bob banana challenges open")
    assert "challenges open" in flat(settings)
    (new, *_) = mail.send(A, "trax challenge alice bob apple")
    assert "waits for bob" not in flat(new)
    assert mail.pipeline.store.board(101).accepted_at is not None


def test_the_computer_and_tournaments_need_no_consent(players: Mailbox):
    mail = players
    computer.ensure_account(mail.pipeline.store, mail.pipeline.config, mail.clock.now)
    mail.send(A, "trax challenge alice computer apple -level=1")
    assert mail.pipeline.store.board(101).challenged_id is None
    mail.send(C, "signup carol cherry")
    mail.send(C, "trax tournament create Spring carol cherry")
    for who, password, address in (("alice", "apple", A), ("bob", "banana", B), ("carol", "cherry", C)):
        mail.send(address, f"trax tournament join Spring {who} {password}")
    mail.send(C, "trax tournament start Spring carol cherry")
    rows = [mail.pipeline.store.board(n) for n in range(102, 105)]
    assert all(r is not None and r.challenged_id is None and r.accepted_at for r in rows)


def test_an_accepted_game_lost_on_time_is_rated(players: Mailbox):
    mail = players
    mail.send(A, "trax challenge alice bob apple --nagtime=1 --forfeittime=2")
    mail.send(A, "trax move 101 alice apple @0+")
    mail.send(B, "trax move 101 bob banana accept")
    mail.clock.advance(days=2, hours=1)
    tick_mails(mail.pipeline, mail.clock.now)
    row = mail.pipeline.store.board(101)
    assert (row.reason, row.winner, row.rated) == ("forfeit", "white", 1)
    assert rating(mail, "bob") is not None
