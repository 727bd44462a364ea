"""Ratings by mail: results update the table; standings and history replies."""

from __future__ import annotations

from datetime import timedelta

import pytest

from .conftest import flat, text_of
from .test_conversations import LOOP_GAME, play_moves

PASSWORDS = {"alice": "apple", "bob": "banana", "carol": "cherry", "dave": "date"}


def send(mail, who: str, command: str):
    replies = mail.send(f"{who}@example.org", command.replace("PW", PASSWORDS[who]))
    assert "rror" not in str(replies[0]["Subject"]), text_of(replies[0])
    return replies


@pytest.fixture
def season(players):
    """Four players and five boards: three rated results, an unrated game and
    a cancelled one; dave seeks games, erin is established, frank long gone."""
    mail = players
    send(mail, "carol", "signup carol cherry")
    send(mail, "dave", "signup dave date")
    send(mail, "alice", "trax challenge alice bob apple")              # 101: alice wins by a loop
    play_moves(mail, 101, LOOP_GAME)
    send(mail, "alice", "trax challenge carol alice cherry")            # 102: carol resigns
    send(mail, "carol", "trax move 102 carol PW @0+#1")
    send(mail, "alice", "trax move 102 alice PW B1\\#2")
    send(mail, "carol", "trax move 102 carol PW resign")
    send(mail, "bob", "trax challenge bob carol banana")                # 103: a draw by agreement
    send(mail, "bob", "trax move 103 bob PW @0+#1")
    send(mail, "carol", "trax move 103 carol PW B1\\#2")
    send(mail, "bob", "trax move 103 bob PW propose")
    send(mail, "carol", "trax move 103 carol PW accept")
    send(mail, "dave", "trax challenge dave alice date -unrated")     # 104: unrated
    send(mail, "dave", "trax move 104 dave PW @0+#1")
    send(mail, "alice", "trax move 104 alice PW B1\\#2")
    send(mail, "dave", "trax move 104 dave PW resign")
    send(mail, "dave", "trax challenge dave bob date")                # 105: cancelled, unrated
    send(mail, "dave", "trax move 105 dave PW resign")
    send(mail, "dave", "trax challenge dave carol date")              # 106: in play
    send(mail, "dave", "trax seek dave PW 2")
    send(mail, "dave", "trax limit dave PW 5")
    store = mail.pipeline.store
    long_ago = (mail.clock.now - timedelta(days=400)).isoformat()
    for name, rating, games, last in (("erin", 1712.4, 24, mail.clock.now.isoformat()), ("frank", 1650, 21, long_ago)):
        send(mail, "alice", f"signup {name} secret {name}@example.org")
        uid = store.find_user(name).id
        store.db.table("ratings").insert({"user_id": uid, "game": "trax", "rating": rating, "games": games,
                                          "wins": games - 10, "losses": 10, "draws": 0, "last_game_at": last})
    return mail


def test_results_move_the_ratings_as_worked_by_hand(season):
    store = season.pipeline.store

    def rating(name):
        return store.rating(store.find_user(name).id, "trax")

    # 101: alice 1800, bob 1400.  102: alice (1800 x 2 + 2000) / 3, carol (1600 + 1400) / 2.
    # 103: bob (1400 x 2 + 1500) / 3, carol (1500 x 2 + 1400) / 3.
    assert rating("alice").rating == pytest.approx(5600 / 3)
    assert rating("carol").rating == pytest.approx(4400 / 3)
    assert rating("bob").rating == pytest.approx(4300 / 3)
    assert (rating("alice").games, rating("alice").wins) == (2, 2)
    assert (rating("carol").losses, rating("carol").draws) == (1, 1)
    assert rating("dave") is None  # unrated and cancelled games do not count


def test_the_final_board_mail_shows_both_rating_changes(season):
    shown = season.send("x@example.org", "trax show 102")
    assert "Rating changes: carol 1600 -> 1500 (-100), alice 1800 -> 1867 (+67)." in flat(shown[0])
    assert "Rating changes" not in flat(season.send("x@example.org", "trax show 104")[0])


def test_standings(season, golden):
    replies = season.send("x@example.org", "trax standings")
    assert replies[0]["Subject"] == "Trax Standings"
    golden.check("standings.txt", text_of(replies[0]))
    # "ratings" is the same command; another game type has its own (empty) table
    same = text_of(season.send("x@example.org", "trax ratings")[0])
    assert same.split("\n", 1)[1] == text_of(replies[0]).split("\n", 1)[1]
    other = flat(season.send("x@example.org", "8x8trax standings")[0])
    assert "alice" not in other and other.count(") none") == 3


def test_history(season, golden):
    replies = season.send("x@example.org", "trax history")
    assert replies[0]["Subject"] == "Trax history"
    body = text_of(replies[0])
    assert [line.split()[0] for line in body.splitlines() if line[:5].strip().isdigit()] == ["101", "102", "103"]
    golden.check("history.txt", body)
    assert "No rated 8x8Trax game has finished yet." in flat(season.send("x@example.org", "8x8trax history")[0])
