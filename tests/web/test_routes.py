"""Every route of the web view through aiohttp's test client: statuses,
types, headers, HEAD, conditional GET, errors in the site's own page,
escaping, nothing private, and the page cache."""

from __future__ import annotations

import gzip
import re

import pytest

from .conftest import PLAYERS, Web, play, with_web

PAGES = ["/", "/boards/101", "/boards/101?move=3", "/boards/102", "/boards/103", "/players/alice",
         "/players/bob", "/standings/trax", "/standings/looptrax", "/tournaments/Spring"]
FILES = {
    "/boards/101.png": "image/png",
    "/boards/101.png?move=2": "image/png",
    "/boards/101.txt": "text/plain; charset=utf-8",
    "/boards/101.atom": "application/atom+xml; charset=utf-8",
    "/boards/101.ics": "text/calendar; charset=utf-8",
    "/players/alice.atom": "application/atom+xml; charset=utf-8",
    "/site.css": "text/css; charset=utf-8",
    "/favicon.svg": "image/svg+xml",
}
ALL = [*PAGES, *FILES]


def links(html: str) -> set[str]:
    return set(re.findall(r'href="(/[^"]*)"', html))


@pytest.mark.parametrize("path", PAGES)
def test_every_page_is_html_with_the_strict_headers(web, path):
    page = web.get(path)
    assert page.status == 200, page.text
    assert page.headers["Content-Type"] == "text/html; charset=utf-8"
    csp = page.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src" not in csp and "unsafe-inline" not in csp
    assert "style-src 'self'" in csp
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert page.headers["X-Frame-Options"] == "DENY"
    assert page.headers["Cache-Control"] == "no-cache"
    html = page.text
    assert html.startswith("<!DOCTYPE html>")
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert "<script" not in html and " style=" not in html and "<style" not in html
    assert 'href="/site.css"' in html and 'href="/"' in html


@pytest.mark.parametrize(("path", "kind"), FILES.items())
def test_every_file_has_its_type_and_the_headers(web, path, kind):
    page = web.get(path)
    assert page.status == 200
    assert page.headers["Content-Type"] == kind
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    assert page.headers["Content-Security-Policy"].startswith("default-src 'none'")
    assert page.headers["ETag"].startswith('"')


def test_every_entry_of_the_url_table_is_asked_for_here():
    """Adding a page is one entry of the URL table, and a path in this file."""
    from pbm.app.web_urls import URLS

    def entry(path: str) -> object:
        for route in URLS:
            if re.fullmatch(re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(route.pattern)), path.partition("?")[0]):
                return route
        return None

    assert {entry(path) for path in ALL} == set(URLS)


def test_the_pages_link_to_each_other_and_every_link_works(web):
    seen, todo = set(), ["/"]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        page = web.get(path)
        assert page.status == 200, path
        if page.headers["Content-Type"].startswith("text/html"):
            todo.extend(links(page.text.replace("&amp;", "&")) - seen)
    # the front page reaches boards, players, standings, tournaments, feeds and calendars
    for wanted in ("/boards/101", "/boards/101?move=7", "/players/alice", "/standings/trax",
                   "/tournaments/Spring", "/boards/101.atom", "/boards/101.ics", "/boards/101.png",
                   "/boards/101.txt", "/players/alice.atom", "/boards/108"):
        assert wanted in seen, wanted


def test_the_board_page_shows_the_board_its_players_clocks_and_moves(web, club):
    html = web.get("/boards/101").text
    assert "<h1>Trax board 101</h1>" in html
    assert "It is bob&#39;s turn (black)." in html
    assert html.count("<svg") == 1 and 'class="board"' in html and "<title>Trax position after 7 moves" in html
    assert '<a href="/players/alice">alice</a>' in html and '<a href="/players/bob">bob</a>' in html
    for n, move in enumerate(["@0+", "@1+", "B0/", "C1/", "B0/", "B0/", "B0+"], start=1):
        assert f'<a href="/boards/101?move={n}"' in html
        assert f">{move}</a>" in html
    assert 'aria-current="page">B0+</a>' in html  # the position shown
    assert "Forfeit</dt>" in html and "Reminder</dt>" in html
    assert "bob's clock stands still from 2026-03-01 14:30 UTC until 2026-03-04 14:30 UTC" in html  # a vacation
    # the reminder (7 days) and the forfeit (21) come 3 days later for the vacation
    assert '<time datetime="2026-03-11T12:55:00+00:00">2026-03-11 12:55 UTC</time>: bob is reminded' in html
    assert '<time datetime="2026-03-25T12:55:00+00:00">' in html
    assert "Last turn: alice played <kbd>B0+</kbd>" in html


def test_a_past_position_is_the_board_after_that_many_moves(web):
    html = web.get("/boards/101?move=3").text
    assert "Board 101 as it stood after move 3, B0/ by alice; the game now has 7 moves." in html
    assert "<title>Trax position after 3 moves: @0+ @1+ B0/" in html
    assert 'href="/boards/101?move=2" rel="prev"' in html and 'href="/boards/101?move=4" rel="next"' in html
    assert 'aria-current="page">B0/</a>' in html
    assert web.get("/boards/101?move=0").status == 200
    assert "before the first move" in web.get("/boards/101?move=0").text


def test_a_finished_board_shows_the_result_and_the_winning_track(web):
    html = web.get("/boards/102").text
    assert "Game won by alice (white loop)." in html
    assert "the winning track in gold" in html
    assert "#ffc914" in html  # the gold of the glow, in the drawing
    assert "Rating changes" in html or "rating 1600 &rarr;" in html


def test_the_picture_is_the_mail_picture_and_the_record_is_the_mail_attachment(web, club):
    from email import policy
    from email.parser import BytesParser

    from pbm.trax import Board
    from pbm.trax.picture import board_png

    assert web.get("/boards/101.png").body == board_png(Board.replay(["@0+", "@1+", "B0/", "C1/", "B0/", "B0/",
                                                                       "B0+"]))
    assert web.get("/boards/101.png?move=2").body == board_png(Board.replay(["@0+", "@1+"]))
    # the record: as the last board mail of a game attaches it
    club.send("carol", f"trax challenge carol dave {PLAYERS['carol']}")
    club.send("carol", f"trax move 109 carol {PLAYERS['carol']} resign")
    mails = [BytesParser(policy=policy.default).parsebytes(bytes(m)) for m in club.mail.result.replies]
    attached = [p for m in mails for p in m.iter_attachments() if p.get_filename() == "trax-109.txt"]
    assert attached
    record = web.get("/boards/109.txt")
    assert record.body.decode("utf-8") == attached[0].get_content()
    assert record.headers["Content-Disposition"] == 'inline; filename="trax-109.txt"'


def test_head_gives_the_headers_without_a_body(web):
    for path in ("/", "/boards/101", "/boards/101.png", "/standings/trax"):
        got, head = web.get(path, headers={"Accept-Encoding": "identity"}), web.request("HEAD", path, headers={
            "Accept-Encoding": "identity"})
        assert head.status == 200 and head.body == b""
        assert head.headers["ETag"] == got.headers["ETag"]
        assert head.headers["Content-Length"] == str(len(got.body))
        assert head.headers["Content-Security-Policy"] == got.headers["Content-Security-Policy"]


@pytest.mark.parametrize("path", ["/", "/boards/101", "/boards/101.png", "/boards/101.atom", "/players/alice",
                                  "/tournaments/Spring", "/site.css"])
def test_a_conditional_get_with_the_etag_is_answered_304(web, path):
    first = web.get(path)
    etag = first.headers["ETag"]
    again = web.get(path, headers={"If-None-Match": etag})
    assert again.status == 304 and again.body == b""
    assert again.headers["ETag"] == etag
    assert again.headers["X-Content-Type-Options"] == "nosniff"
    assert web.get(path, headers={"If-None-Match": f'"other", W/{etag}'}).status == 304
    assert web.get(path, headers={"If-None-Match": '"something-else"'}).status == 200


def test_pages_come_compressed_to_those_who_take_gzip(web):
    plain = web.get("/boards/101", headers={"Accept-Encoding": "identity"})
    packed = web.get("/boards/101", headers={"Accept-Encoding": "gzip, deflate"})
    assert "Content-Encoding" not in plain.headers
    assert packed.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.body) == plain.body
    assert len(packed.body) < len(plain.body) / 3
    assert packed.headers["ETag"] != plain.headers["ETag"]
    assert packed.headers["Vary"] == plain.headers["Vary"] == "Accept-Encoding, Accept-Language"
    assert web.get("/boards/101", headers={"Accept-Encoding": "gzip;q=0"}).headers.get("Content-Encoding") is None


@pytest.mark.parametrize(("path", "status", "says"), [
    ("/nothing-here", 404, "there is no such page here"),
    ("/metrics", 404, "there is no such page here"),  # the daemon's metrics listener has them, not the web
    ("/healthz", 404, "there is no such page here"),
    ("/boards/999", 404, "there is no board 999"),
    ("/boards/1234567890123", 404, "there is no board 1234567890123"),
    ("/boards/101.exe", 404, "there is no board 101.exe"),
    ("/players/nobody", 404, "there is no player nobody"),
    ("/players/nobody.atom", 404, "there is no player nobody.atom"),
    ("/standings/chess", 404, "there is no game type chess"),
    ("/tournaments/Autumn", 404, "there is no tournament autumn"),
    ("/boards/101?move=x", 400, "the move is a number of moves (0 for the empty board), not &#39;x&#39;"),
    ("/boards/101?move=-1", 400, "not &#39;-1&#39;"),
    ("/boards/101?move=8", 400, "board 101 has 7 moves, so there is no position after move 8"),
    ("/boards/101?move=99999999999", 400, "not &#39;99999999999&#39;"),
    ("/boards/101?move=1&move=2", 400, "give the move number once"),
    ("/boards/101.png?move=9", 400, "board 101 has 7 moves"),
])
def test_errors_are_the_sites_own_page_with_the_right_status(web, path, status, says):
    page = web.get(path)
    assert page.status == status
    assert page.headers["Content-Type"] == "text/html; charset=utf-8"
    assert page.headers["Content-Security-Policy"].startswith("default-src 'none'")
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    html = page.text
    assert says in html, html
    assert 'href="/site.css"' in html and "Traceback" not in html


def test_other_methods_are_405_in_the_sites_page(web):
    for method in ("POST", "PUT", "DELETE"):
        page = web.request(method, "/boards/101")
        assert page.status == 405
        assert set(page.headers["Allow"].split(",")) == {"GET", "HEAD"}
        assert "Method not allowed" in page.text and 'href="/site.css"' in page.text


def test_whatever_a_visitor_writes_in_the_address_is_escaped(web):
    hostile = "<img src=x onerror=alert(1)>"
    for path in (f"/players/{hostile}", f"/tournaments/{hostile}", "/boards/101?move=<script>alert(1)</script>",
                 "/boards/%3Cimg%20src=x%20onerror=alert(1)%3E", '/players/"><svg onload=alert(1)>',
                 f"/standings/{hostile}", f"/players/{hostile}.atom"):
        page = web.get(path)
        assert page.status in (400, 404), path
        assert "<script>alert" not in page.text and "<img src" not in page.text and "<svg onload" not in page.text
    assert "there is no player &lt;img src=x onerror=alert(1)&gt;" in web.get(f"/players/{hostile}").text
    assert "not &#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39;" in web.get(
        "/boards/101?move=<script>alert(1)</script>").text


def test_a_server_error_is_the_sites_page_without_a_traceback(web, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")
    monkeypatch.setattr(web.view.site, "template", broken)
    page = web.get("/")
    assert page.status == 500
    assert "something went wrong on our side" in page.text
    assert "secret internals" not in page.text and "Traceback" not in page.text
    assert "secret internals" in caplog.text  # logged for the operator


def test_nothing_private_is_on_any_page(web, club):
    from pbm.domain.store import Store

    store = Store(club.config.server.database)
    secrets_ = [user.password_hash for user in store.all_users()]
    tokens = [r[0] for r in store.db.conn.execute("SELECT token_hash FROM reply_tokens")]
    store.close()
    assert secrets_ and tokens
    plain = {"Accept-Encoding": "identity"}
    everything = "".join(web.get(path, headers=plain).body.decode("utf-8", "replace") for path in ALL)
    everything += web.get("/boards/102.txt").text + web.get("/boards/102.atom").text
    for private in [*PLAYERS.values(), *secrets_, *tokens, "example.org", "private <b>mail</b>", "a comment"]:
        assert private not in everything, private
    assert not re.search(r"r-[a-z2-7]{16,}", everything)  # no reply token either
    assert "pbm@pbm.test" in everything  # the server's own address is how to play


def test_a_userid_that_ends_in_atom_has_its_page_after_the_feeds(web, club):
    club.send("eve", "signup eve.atom elder-berry")
    club.send("alf", "signup alice.atom alfalfa-tea")
    page = web.get("/players/eve.atom")  # no player eve: the page of eve.atom
    assert page.status == 200 and "<h1>eve.atom</h1>" in page.text
    assert web.get("/players/eve.atom.atom").headers["Content-Type"].startswith("application/atom+xml")
    feed = web.get("/players/alice.atom")  # alice's feed comes first
    assert feed.headers["Content-Type"].startswith("application/atom+xml") and "<title>alice's games" in feed.text


def test_a_tournament_board_by_its_name_is_redirected_to_its_number(web):
    page = web.get("/boards/Spring-1")
    assert page.status == 301 and page.headers["Location"] == "/boards/103"
    page = web.get("/boards/spring-2.png?move=0")
    assert page.status == 301 and page.headers["Location"] == "/boards/104.png?move=0"
    assert web.get("/boards/0101").headers["Location"] == "/boards/101"


def test_the_tournament_page_has_the_table_crosstable_rounds_and_pairings(web):
    html = web.get("/tournaments/spring").text
    assert "<h1>Tournament Spring</h1>" in html
    assert "Spring (trax, round robin, 4 players)" in html
    assert html.count("<h3>Round ") == 3
    for number in range(103, 109):
        assert f'<a href="/boards/{number}">{number}</a>' in html
    assert 'class="crosstable"' in html and html.count('class="num self"') == 4
    assert '<a href="/players/carol">carol</a></dd>' in html  # the director


def test_the_player_page_has_ratings_games_and_tournaments(web):
    html = web.get("/players/ALICE").text  # any case
    assert "<h1>alice</h1>" in html
    assert '<a href="/standings/trax">Trax</a></td><td class="num">1800 (provisional)' in html
    assert "Trax board <a href=\"/boards/101\">101</a>: white against <a href=\"/players/bob\">bob</a>" in html
    assert "won (alice won (loop))" in html
    assert '<a href="/tournaments/Spring">Spring</a>' in html
    assert 'type="application/atom+xml"' in html


def test_the_standings_are_the_standings_mails_table(web, club):
    from tests.app.conftest import text_of

    html = web.get("/standings/trax").text
    text = text_of(club.send("carol", "trax standings")[0])
    in_mail = [word for word in text.split() if word in PLAYERS]
    rows = re.findall(r'<tr><td class="num">\d+</td><td><a href="/players/(\w+)">', html)
    assert rows == in_mail == ["alice", "carol", "dave", "bob"]
    played = r'(<br><small>\d+ in play</small>)?</td><td class="num">'
    assert re.search(r'<a href="/players/alice">alice</a>' + played + "1800</td>", html)
    assert re.search(r'<a href="/players/bob">bob</a>' + played + "1400</td>", html)
    assert "<small>4 in play</small>" in html  # alice: board 101 and three of the tournament


def test_the_front_page_lists_game_types_recent_games_and_tournaments(web):
    html = web.get("/").text
    assert "<h1>Trax PBM</h1>" in html
    for title in ("Trax", "8x8Trax", "LoopTrax", "MiniTrax", "LuckyTrax", "PointTrax"):
        assert f">{title}</a>: " in html
    assert '>Trax</a>: 7 games in play' in html
    assert html.index('href="/boards/108"') < html.index('href="/boards/101"')  # newest first
    assert '<a href="/tournaments/Spring">Spring</a>: Trax, round robin, under way' in html


def test_a_page_served_again_is_not_rendered_again_until_what_it_shows_changes(web, club):
    first = web.get("/boards/101")
    renders = web.view.cache.renders
    for _ in range(5):
        assert web.get("/boards/101").body == first.body
    assert web.view.cache.renders == renders
    # mail about another board changes the database, not this page: no new rendering
    play(club.mail, 103, "alice", "dave", ["@0+"])
    assert web.get("/boards/101").headers["ETag"] == first.headers["ETag"]
    assert web.view.cache.renders == renders
    # a move on it does
    play(club.mail, 101, "alice", "bob", ["D4+"], first=8)
    after = web.get("/boards/101")
    assert after.headers["ETag"] != first.headers["ETag"]
    assert "D4+</a>" in after.text and web.view.cache.renders == renders + 1
    assert web.get("/boards/101", headers={"If-None-Match": first.headers["ETag"]}).status == 200


def test_pages_other_than_boards_are_rendered_again_at_most_once_a_while(club):
    web = Web(club.config, club.clock, stale_seconds=3600)
    try:
        first = web.get("/players/alice").text
        play(club.mail, 101, "alice", "bob", ["D4+"], first=8)
        assert web.get("/players/alice").text == first  # kept, however the database changed
    finally:
        web.close()
    fresh = Web(club.config, club.clock, stale_seconds=0)
    try:
        assert "8 moves" in fresh.get("/players/alice").text
    finally:
        fresh.close()


def test_the_web_view_never_writes_to_the_database(web):
    import sqlite3

    with pytest.raises(sqlite3.OperationalError, match=r"readonly|read-only|query_only"):
        web.view.store.db.conn.execute("DELETE FROM boards")


def test_feeds_and_calendars_link_to_the_base_url_when_it_is_set(club):
    web = Web(with_web(club.config, base_url="https://trax.example.net"), club.clock)
    try:
        feed = web.get("/boards/101.atom", headers={"Host": "elsewhere.example"}).text
        assert 'href="https://trax.example.net/boards/101"' in feed and "elsewhere" not in feed
        calendar = web.get("/boards/101.ics", headers={"Host": "elsewhere.example"}).text
        assert "URL:https://trax.example.net/boards/101" in calendar and "elsewhere" not in calendar
    finally:
        web.close()


def test_without_a_base_url_feeds_link_relatively_and_calendars_carry_no_url(web):
    feed = web.get("/boards/101.atom", headers={"Host": "example.com:8000"}).text
    assert 'href="/boards/101"' in feed and 'href="/boards/101.atom"' in feed
    assert "example.com" not in feed and "http://" not in feed.replace("http://www.w3.org/2005/Atom", "")
    calendar = web.get("/boards/101.ics", headers={"Host": "example.com:8000"}).text
    assert "\r\nURL:" not in calendar and "example.com" not in calendar and "/boards/101\r\n" not in calendar


#: 50 Host headers, each different: names, ports, addresses, and markup.
HOSTS = [f"visitor{i}.example" for i in range(20)] + [f"trax.example:{8000 + i}" for i in range(20)] + [
    "127.0.0.1", "[::1]:8080", "evil.example", 'evil"><x', "evil'x", "a.b.c.evil", "localhost:1",
    "EVIL.EXAMPLE", "x--evil", "evil.example."]


@pytest.mark.parametrize("path", ["/boards/101.atom", "/boards/101.ics", "/players/alice.atom", "/boards/101",
                                  "/"])
def test_the_host_header_is_never_in_a_page_and_never_makes_one_render_again(web, path):
    assert len(set(HOSTS)) == 50
    renders = web.view.cache.renders
    bodies = set()
    for host in HOSTS:
        page = web.get(path, headers={"Host": host})
        assert page.status == 200
        assert host.lower().encode() not in page.body.lower() and b"evil" not in page.body.lower()
        assert not any(host.encode() in value.encode() for value in page.headers.values())
        bodies.add(page.body)
    assert web.view.cache.renders == renders + 1  # one rendering, for all fifty
    assert len(bodies) == 1 and len(web.view.cache.entries) == 1


def test_while_the_mail_is_busy_pages_are_paced_and_still_answered(club):
    import time

    busy = [True]
    web = Web(club.config, club.clock, busy=lambda: busy[0], busy_rate=50)
    try:
        async def many(n: int) -> list[int]:
            import asyncio

            async def one() -> int:
                async with web.client.get("/boards/101") as response:
                    await response.read()
                    return response.status
            return await asyncio.gather(*(one() for _ in range(n)))

        start = time.perf_counter()
        assert web.loop.run_until_complete(many(20)) == [200] * 20
        assert time.perf_counter() - start >= 19 / 50 * 0.9  # one every 1/50 s
        busy[0] = False
        time.sleep(0.3)  # the mail has been idle for more than a quarter of a second
        start = time.perf_counter()
        assert web.loop.run_until_complete(many(20)) == [200] * 20
        assert time.perf_counter() - start < 19 / 50 * 0.9  # mail idle: no waiting
    finally:
        web.close()


def test_pages_are_paced_for_a_while_after_the_database_changed(club):
    import asyncio
    import time

    web = Web(club.config, club.clock, busy_rate=50)
    try:
        async def many(n: int) -> list[int]:
            async def one() -> int:
                async with web.client.get("/boards/101") as response:
                    await response.read()
                    return response.status
            return await asyncio.gather(*(one() for _ in range(n)))

        assert web.get("/boards/101").status == 200
        start = time.perf_counter()
        assert web.loop.run_until_complete(many(20)) == [200] * 20
        assert time.perf_counter() - start < 19 / 50 * 0.9  # nothing changed: no waiting
        play(club.mail, 101, "alice", "bob", ["D4+"], first=8)  # the mail at work
        start = time.perf_counter()
        assert web.loop.run_until_complete(many(20)) == [200] * 20
        assert time.perf_counter() - start >= 19 / 50 * 0.9
    finally:
        web.close()


def test_ratings_against_the_computer_are_on_the_standings_and_the_player_page(web, club):
    """The standings mail has them; the web's standings and player page too."""
    store = club.mail.pipeline.store
    alice = store.find_user("alice")
    assert "Against the computer" not in web.get("/players/alice").text
    store.save_computer_rating(alice.id, "trax", 1642.4, "win", club.clock.now)
    html = web.get("/standings/trax").text
    assert "<h2>Against the computer</h2>" in html
    assert ('<a href="/players/alice">alice</a></td><td class="num">1642</td><td class="num">1</td>'
            '<td class="num">1-0-0</td>') in html
    page = web.get("/players/alice").text
    assert "<h2>Against the computer</h2>" in page
    assert '<tr><td>Trax</td><td class="num">1642</td><td class="num">1</td><td class="num">1-0-0</td></tr>' in page
    from tests.app.conftest import text_of

    text = text_of(club.send("carol", "trax standings")[0])
    assert "Against the computer" in text and "1-0-0" in text
