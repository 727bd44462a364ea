"""Atom feeds read by a feed parser, calendars by a calendar library, and
the deadlines they are made from."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import feedparser
import icalendar
import pytest

from pbm.app.web_data import run_out
from pbm.app.web_render import ics_lines, ics_text
from pbm.domain.clocks import OPEN_END
from pbm.domain.times import DAY

from .conftest import PLAYERS, Web, play, with_web

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def parsed(page):
    assert page.status == 200 and page.headers["Content-Type"] == "application/atom+xml; charset=utf-8"
    feed = feedparser.parse(page.text)
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    return feed


def test_the_board_feed_is_atom_with_its_start_each_move_and_its_end(web):
    feed = parsed(web.get("/boards/102.atom"))
    assert feed.feed.title == "Trax board 102: alice against bob"
    won = "Game won by alice (white loop). Rating changes: alice 1600 -> 1800 (+200), bob 1600 -> 1400 (-200)."
    assert feed.feed.subtitle == won
    assert feed.feed.id.startswith("tag:pbm.test,2026-03-01:/boards/102")
    assert feed.feed.author == "Trax PBM"
    links = {link.rel: link.href for link in feed.feed.links}
    assert links["self"].endswith("/boards/102.atom") and links["alternate"].endswith("/boards/102")
    titles = [e.title for e in feed.entries]
    assert len(titles) == 1 + 11 + 1
    assert titles[0] == won
    assert titles[1] == "Move 11: alice played A2+" and titles[-2] == "Move 1: alice played @0+"
    assert titles[-1] == "Board 102 started: alice (white) against bob (black)"
    assert feed.entries[1].link.endswith("/boards/102?move=11")
    assert len({e.id for e in feed.entries}) == len(feed.entries)
    times = [e.updated_parsed for e in feed.entries]
    assert times == sorted(times, reverse=True)


def test_the_player_feed_has_games_started_and_finished(web):
    feed = parsed(web.get("/players/alice.atom"))
    assert feed.feed.title == "alice's games on Trax PBM"
    titles = [e.title for e in feed.entries]
    assert "Trax board 102: alice won against bob after 11 moves" in titles
    assert "Trax board 101 started: alice (white) against bob (black)" in titles
    # boards 101 and 102 and the tournament's three (one against bob as white), started; 102 ended
    assert sum(t.endswith("started: alice (white) against bob (black)") for t in titles) == 3
    assert len(titles) == 5 + 1
    # without [web] base_url, links relative to the feed's own address
    assert all(e.link.startswith("/boards/") for e in feed.entries)


def test_a_feed_changes_when_the_board_does(web, club):
    before = parsed(web.get("/boards/101.atom"))
    play(club.mail, 101, "alice", "bob", ["D4+"], first=8)
    after = parsed(web.get("/boards/101.atom"))
    assert after.entries[0].title == "Move 8: bob played D4+"
    assert after.feed.updated_parsed > before.feed.updated_parsed


def calendar(page) -> icalendar.Calendar:
    assert page.status == 200 and page.headers["Content-Type"] == "text/calendar; charset=utf-8"
    assert b"\r\n" in page.body and not any(len(line) > 75 for line in page.body.split(b"\r\n"))
    return icalendar.Calendar.from_ical(page.body)


def test_the_calendar_has_the_reminder_and_the_forfeit_of_the_player_to_move(web):
    cal = calendar(web.get("/boards/101.ics"))
    assert str(cal["VERSION"]) == "2.0" and cal["PRODID"]
    events = list(cal.walk("VEVENT"))
    assert [str(e["SUMMARY"]) for e in events] == [
        "Trax board 101: bob is reminded to move", "Trax board 101: bob loses by forfeit unless they move"]
    # bob had the turn at 12:55 and took a three-day vacation: 7 + 3 and 21 + 3 days on
    turn = datetime(2026, 3, 1, 12, 55, tzinfo=UTC)
    assert events[0].decoded("DTSTART") == turn + 10 * DAY
    assert events[1].decoded("DTSTART") == turn + 24 * DAY
    assert events[1].decoded("DTEND") - events[1].decoded("DTSTART") == timedelta(minutes=15)
    assert "URL" not in events[1]  # without [web] base_url: an iCalendar URL must be absolute
    assert "It is bob's turn (black)." in str(events[1]["DESCRIPTION"])
    assert len({str(e["UID"]) for e in events}) == 2


def test_the_calendar_of_a_finished_board_says_it_is_over(web):
    events = list(calendar(web.get("/boards/102.ics")).walk("VEVENT"))
    assert [str(e["SUMMARY"]) for e in events] == ["Trax board 102: the game is over"]


def test_the_calendar_follows_the_game(web, club):
    play(club.mail, 101, "alice", "bob", ["D4+"], first=8)
    events = list(calendar(web.get("/boards/101.ics")).walk("VEVENT"))
    assert str(events[0]["SUMMARY"]) == "Trax board 101: alice is reminded to move"


def test_a_board_with_a_total_time_has_its_forfeit_when_the_time_runs_out(web, club):
    club.send("carol", f"trax challenge carol dave {PLAYERS['carol']} --totaltime=2 --forfeittime=10 --nagtime=5")
    club.clock.advance(hours=20)
    play(club.mail, 109, "carol", "dave", ["@0+"])
    cal = calendar(web.get("/boards/109.ics"))
    events = list(cal.walk("VEVENT"))
    assert str(events[-1]["SUMMARY"]) == "Trax board 109: dave loses by forfeit unless they move (total time)"
    start = events[-1].decoded("DTSTART")
    assert start == club.clock.now - timedelta(minutes=5) + 2 * DAY  # dave has used nothing yet
    html = web.get("/boards/109").text
    assert "dave loses (total time used up) unless they move before" in html


# ---------------------------------------------------------------------------
# the pieces


def test_run_out_counts_the_budget_past_the_times_a_clock_stands_still():
    budget = 7 * DAY
    assert run_out(T0, budget, []) == T0 + budget
    vacation = [(T0 + DAY, T0 + 4 * DAY)]
    assert run_out(T0, budget, vacation) == T0 + 10 * DAY
    assert run_out(T0, DAY / 2, vacation) == T0 + DAY / 2  # before the vacation begins
    assert run_out(T0, budget, [(T0 - 2 * DAY, T0 + DAY)]) == T0 + 8 * DAY  # under way at the start
    assert run_out(T0, budget, [(T0 - 9 * DAY, T0 - 8 * DAY)]) == T0 + budget  # long over
    assert run_out(T0, budget, [(T0 + DAY, T0 + 3 * DAY), (T0 + 2 * DAY, T0 + 5 * DAY)]) == T0 + 11 * DAY
    assert run_out(T0, budget, [(T0 + DAY, OPEN_END)]) is None  # mail bounces: no end in sight
    assert run_out(T0, budget, [(T0 + 8 * DAY, OPEN_END)]) == T0 + budget


@pytest.mark.parametrize(("value", "text"), [
    ("a,b;c\\d", "a\\,b\\;c\\\\d"), ("two\nlines", "two\\nlines"), (None, ""),
    (datetime(2026, 3, 1, 12, 5, 9, tzinfo=UTC), "20260301T120509Z"),
])
def test_calendar_text_is_escaped(value, text):
    assert ics_text(value) == text


def test_calendar_lines_are_folded_at_75_octets_never_inside_a_character():
    long = "SUMMARY:" + "é" * 100
    folded = ics_lines(long + "\n\nEND:VEVENT\n")
    lines = folded.split(b"\r\n")
    assert all(len(line) <= 75 for line in lines) and lines[-1] == b""
    assert b"".join([lines[0], *(line[1:] for line in lines[1:-2])]).decode("utf-8") == long
    assert lines[-2] == b"END:VEVENT"


def test_with_a_base_url_the_calendar_links_to_the_board(club):
    web = Web(with_web(club.config, base_url="https://trax.example.org"), club.clock)
    try:
        events = list(calendar(web.get("/boards/101.ics")).walk("VEVENT"))
        feed = parsed(web.get("/players/alice.atom"))
    finally:
        web.close()
    assert {str(e["URL"]) for e in events} == {"https://trax.example.org/boards/101"}
    assert str(events[0]["DESCRIPTION"]).endswith(" https://trax.example.org/boards/101")
    assert all(e.link.startswith("https://trax.example.org/boards/") for e in feed.entries)
