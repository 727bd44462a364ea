"""The web view in German and Japanese: every page in the language asked
for (``?lang=`` first, then the browser's Accept-Language by its
q-values, then English), with ``<html lang>``, the switch to the other
languages, ``Content-Language`` and ``Vary: Accept-Language``; links that
keep a language chosen with ``?lang=``; a page cache that keeps each
language apart; feeds and calendars in the language too."""

from __future__ import annotations

import html as markup
import re

import feedparser
import icalendar
import pytest

from .conftest import Web, with_web

PAGES = ["/", "/boards/101", "/boards/101?move=3", "/boards/102", "/boards/103", "/players/alice",
         "/players/bob", "/standings/trax", "/standings/looptrax", "/tournaments/Spring"]
#: What each page says in each language (a sample of its words).
SAYS = {
    "de": {
        "/": ["Spielarten", "Letzte Partien", "Trax, Rundenturnier, im Gang", ": 7 laufende Partien"],
        "/boards/101": ["Trax, Brett 101", "bob ist am Zug", "Bedenkzeit", "Fristen", "Letzter Zug: alice hat",
                        "11. März 2026, 12:55 UTC</time>: bob wird erinnert", "Dateien"],
        "/boards/101?move=3": ["Trax, Brett 101 nach Zug 3", "Letzter Zug vor dieser Stellung"],
        "/boards/102": ["Wertungszahl 1600 &rarr; 1800 (+200)", "der Siegesweg golden"],
        "/boards/103": ["Partie Spring-1 des Turniers"],
        "/players/alice": ["Spielt hier seit dem 1. März 2026.", "Laufende Partien",
                           "gewonnen (alice hat gewonnen (Rundkurs))", "1800 (vorläufig)"],
        "/players/bob": ["Wertungszahlen", "Schwarz gegen"],
        "/standings/trax": ["Trax-Tabelle", "Vorläufige Wertungszahl", "laufend: 4", "Andere Spielarten:"],
        "/standings/looptrax": ["Hier hat noch niemand LoopTrax gespielt."],
        "/tournaments/Spring": ["Turnier Spring", "Spring (trax, Rundenturnier, 4 Spieler) – 0 von 6 Partien beendet",
                                "Runden und Paarungen", "Runde 3", "Turnierleitung"],
    },
    "ja": {
        "/": ["ゲームの種類", "最近の対局", "Trax、総当たり、進行中", "：進行中の対局 7 局"],
        "/boards/101": ["Trax 盤 101", "bob の手番です", "持ち時間", "直前の手番：alice が",
                        "2026年3月11日 12:55 UTC</time>：bob に催促", "ファイル"],
        "/boards/101?move=3": ["Trax 盤 101（3 手目の後）", "この局面の直前の手番"],
        "/boards/102": ["レーティング 1600 &rarr; 1800（+200）", "勝ちを決めた道は金色です。"],
        "/boards/103": ["大会 <a href=\"/tournaments/Spring?lang=ja\">Spring</a> の対局 Spring-1 です。"],
        "/players/alice": ["2026年3月1日からここで対局しています。", "進行中の対局", "勝ち（alice の勝ち（ループ））",
                           "1800（暫定）"],
        "/players/bob": ["レーティング", "黒で"],
        "/standings/trax": ["Trax 順位表", "暫定レーティング", "対局中 4", "ほかのゲームの種類："],
        "/standings/looptrax": ["ここではまだ誰も LoopTrax を対局していません。"],
        "/tournaments/Spring": ["大会 Spring", "Spring（trax、総当たり、4 人）：全 6 局のうち 0 局終了",
                                "ラウンドと組み合わせ", "第 3 ラウンド", "大会運営者"],
    },
}
#: English words that a page in another language must not show (its own
#: names, commands and notation aside).
ENGLISH = re.compile(r"\b(the|and|of|board|boards|move|moves|games?|players?|rating|ratings|standings|tournament|"
                     r"round|won|against|since|clocks?|files|recent|white|black|to move|last turn|none|"
                     r"finished|under way|picture|record|deadlines|started|played)\b", re.IGNORECASE)
#: What a Japanese page may write in Latin letters: names, commands, notation, formats.
LATIN = {"Trax", "PBM", "LoopTrax", "MiniTrax", "LuckyTrax", "PointTrax", "x8Trax", "alice", "bob", "carol",
         "dave", "Spring", "help", "pbm", "test", "UTC", "English", "Deutsch", "PNG", "Atom", "iCalendar", "SB",
         "trax", "h", "m", "o", "x"}
#: Moves and cells, written alike in every language.
NOTATION = re.compile(r"(?<![A-Za-z])[@A-Z]{1,2}\d+[+/\\]?(?![A-Za-z])")


def visible(page_html: str) -> str:
    """The words a reader sees: no markup, no drawing, entities read."""
    body = page_html.split("<body>", 1)[1]
    body = re.sub(r"<svg.*?</svg>", " ", body, flags=re.S)
    body = re.sub(r"<kbd>.*?</kbd>", " ", body)  # commands and moves stay as they are
    return NOTATION.sub(" ", markup.unescape(re.sub(r"<[^>]+>", " ", body)))


def with_lang(path: str, language: str) -> str:
    return f"{path}{'&' if '?' in path else '?'}lang={language}"


@pytest.mark.parametrize("language", ["de", "ja"])
@pytest.mark.parametrize("path", PAGES)
def test_every_page_in_german_and_japanese(web, path, language):
    page = web.get(with_lang(path, language))
    assert page.status == 200
    assert page.headers["Content-Language"] == language
    assert "Accept-Language" in page.headers["Vary"]
    html = page.text
    assert f'<html lang="{language}">' in html
    # the switch: each language, the page's own path, this one marked
    # (the page's one path: a tournament's name or a userid as the page keeps it, casefolded)
    switch = re.search(r'<nav class="languages" aria-label="[^"]+">(.*?)</nav>', html).group(1)
    names = {"en": "English", "de": "Deutsch", "ja": "日本語"}
    for code, name in names.items():
        if code == language:
            assert f'<strong lang="{code}" aria-current="true">{name}</strong>' in switch
        else:
            own = markup.escape(with_lang(path.casefold(), code))
            assert f'href="{own}" lang="{code}" hreflang="{code}">{name}</a>' in switch
    for words in SAYS[language][path]:
        assert words in html, words
    text = visible(html)
    assert not ENGLISH.findall(text), ENGLISH.findall(text)
    if language == "ja":
        assert set(re.findall(r"[A-Za-z]+", text)) <= LATIN, set(re.findall(r"[A-Za-z]+", text)) - LATIN
        assert "%(" not in text


def test_the_english_page_has_the_switch_and_its_own_headers(web):
    page = web.get("/boards/101?move=3")
    assert page.headers["Content-Language"] == "en" and "Accept-Language" in page.headers["Vary"]
    html = page.text
    assert '<html lang="en">' in html and '<strong lang="en" aria-current="true">English</strong>' in html
    assert 'href="/boards/101?move=3&amp;lang=de"' in html and 'href="/boards/101?move=3&amp;lang=ja"' in html
    assert 'href="/boards/101?move=2" rel="prev"' in html  # no language chosen: links without one


@pytest.mark.parametrize(("header", "language"), [
    ("de", "de"),
    ("ja-JP", "ja"),
    ("fr, de;q=0.5, ja;q=0.8", "ja"),  # by q-value, not by place
    ("en;q=0.1, de", "de"),
    ("de;q=0.5, ja;q=0.5", "de"),  # equal: the first written
    ("ja;q=0, de;q=0.2", "de"),  # q=0: not wanted
    ("ja;q=0", "en"),
    ("fr, es", "en"),
    ("*", "en"),
    ("", "en"),
    ("de;q=nonsense, ja;q=0.3", "ja"),
])
def test_the_browsers_accept_language_chooses_by_q_value(web, header, language):
    page = web.get("/boards/101", headers={"Accept-Language": header})
    assert page.status == 200 and page.headers["Content-Language"] == language
    assert f'<html lang="{language}">' in page.text
    assert 'href="/players/alice"' in page.text  # chosen by the browser: the links carry no lang


def test_lang_in_the_address_overrides_the_browser(web):
    page = web.get("/boards/101?lang=de", headers={"Accept-Language": "ja"})
    assert page.headers["Content-Language"] == "de" and "Trax, Brett 101" in page.text
    assert 'href="/players/alice?lang=de"' in page.text and 'href="/boards/101?move=1&amp;lang=de"' in page.text
    english = web.get("/boards/101?lang=en", headers={"Accept-Language": "ja, de;q=0.9"})
    assert english.headers["Content-Language"] == "en" and "<h1>Trax board 101</h1>" in english.text
    assert 'href="/players/alice?lang=en"' in english.text  # chosen: kept, over the browser's wish
    assert web.get("/?lang=JA").headers["Content-Language"] == "ja"


@pytest.mark.parametrize("value", ["fr", "", "de-DE", "<script>alert(1)</script>", "jap", "de&lang=ja"])
def test_a_lang_that_names_no_language_is_ignored(web, value):
    from urllib.parse import quote

    page = web.get(f"/boards/101?lang={quote(value)}", headers={"Accept-Language": "ja"})
    assert page.status == 200
    assert page.headers["Content-Language"] == "ja"  # the browser's choice, as without lang
    assert "<script>alert" not in page.text and 'href="/players/alice"' in page.text
    assert web.get(f"/boards/101?lang={quote(value)}").headers["Content-Language"] == "en"


def test_lang_given_twice_is_ignored(web):
    page = web.get("/?lang=de&lang=ja")
    assert page.status == 200 and page.headers["Content-Language"] == "en"


def test_the_links_of_a_page_in_a_chosen_language_keep_it(web):
    """From the German front page, every page reached by its links is German
    and links on in German (but for the picture, which has no words)."""
    seen, todo = set(), ["/?lang=de"]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        page = web.get(path)
        assert page.status == 200, path
        kind = page.headers["Content-Type"]
        if kind.startswith("image/png") or path.endswith((".css", ".svg")):
            assert "Content-Language" not in page.headers
            continue
        assert page.headers["Content-Language"] == "de", path
        if kind.startswith("text/html"):
            for link in set(re.findall(r'href="(/[^"]*)"', page.text.replace("&amp;", "&"))):
                if link in ("/site.css", "/favicon.svg") or ".png" in link or re.search(r"lang=(en|ja)$", link):
                    continue
                assert link.endswith("lang=de"), (path, link)
                todo.append(link)
    for wanted in ("/boards/101?lang=de", "/players/alice?lang=de", "/tournaments/Spring?lang=de",
                   "/standings/trax?lang=de", "/boards/101.atom?lang=de", "/boards/101.ics?lang=de",
                   "/boards/101.txt?lang=de", "/boards/101?move=3&lang=de"):
        assert wanted in seen, wanted


def test_each_language_is_kept_apart_with_its_own_etag(web):
    renders = web.view.cache.renders
    pages = {language: web.get("/boards/101", headers={"Accept-Language": language}) for language in ("en", "de", "ja")}
    assert web.view.cache.renders == renders + 3
    assert len({page.headers["ETag"] for page in pages.values()}) == 3
    assert len({page.body for page in pages.values()}) == 3
    # asked again: kept, each in its language
    again = web.get("/boards/101", headers={"Accept-Language": "de-AT, en;q=0.5"})
    assert again.body == pages["de"].body and web.view.cache.renders == renders + 3
    # a German copy's ETag does not stand for the Japanese page
    etag = pages["de"].headers["ETag"]
    assert web.get("/boards/101", headers={"Accept-Language": "ja", "If-None-Match": etag}).status == 200
    not_modified = web.get("/boards/101", headers={"Accept-Language": "de", "If-None-Match": etag})
    assert not_modified.status == 304
    assert not_modified.headers["Content-Language"] == "de" and "Accept-Language" in not_modified.headers["Vary"]
    # chosen with ?lang: its links differ, so it is another copy
    pinned = web.get("/boards/101?lang=de")
    assert pinned.headers["ETag"] != etag and web.view.cache.renders == renders + 4


def test_a_picture_is_the_same_in_every_language(web):
    plain = web.get("/boards/101.png")
    for asked in ({"headers": {"Accept-Language": "ja"}}, {}):
        page = web.get("/boards/101.png?lang=de", **asked)
        assert page.body == plain.body and page.headers["ETag"] == plain.headers["ETag"]
        assert "Content-Language" not in page.headers and "Accept-Language" not in page.headers.get("Vary", "")
    assert len([t for t in web.view.cache.entries if t.route.pattern == "/boards/{number}.png"]) == 1


@pytest.mark.parametrize(("language", "title", "entry", "player"), [
    ("de", "Trax, Brett 102: alice gegen bob", "Zug 11: alice hat A2+ gespielt", "Partien von alice auf Trax PBM"),
    ("ja", "Trax 盤 102：alice 対 bob", "11 手目：alice が A2+", "Trax PBM での alice の対局"),
])
def test_feeds_in_the_language(web, language, title, entry, player):
    page = web.get(f"/boards/102.atom?lang={language}")
    assert page.headers["Content-Language"] == language
    feed = feedparser.parse(page.text)
    assert not feed.bozo and feed.feed.title == title and feed.feed.language == language
    assert feed.entries[1].title == entry
    assert feed.entries[1].link == f"/boards/102?move=11&lang={language}"
    assert {link.rel: link.href for link in feed.feed.links}["self"] == f"/boards/102.atom?lang={language}"
    assert "alice" in feed.feed.subtitle and "Game won" not in feed.feed.subtitle  # the state, in the language
    mine = feedparser.parse(web.get("/players/alice.atom", headers={"Accept-Language": language}).text)
    assert mine.feed.title == player
    assert all(e.link.startswith("/boards/") and "lang=" not in e.link for e in mine.entries)  # not chosen by ?lang


@pytest.mark.parametrize(("language", "summaries", "over"), [
    ("de", ["Trax, Brett 101: bob wird an den Zug erinnert",
            "Trax, Brett 101: bob verliert kampflos, wenn bis dahin kein Zug kommt"],
     "Trax, Brett 102: die Partie ist beendet"),
    ("ja", ["Trax 盤 101：bob に手番の催促", "Trax 盤 101：それまでに指さなければ bob の不戦敗"],
     "Trax 盤 102：対局は終わりました"),
])
def test_calendars_in_the_language(club, language, summaries, over):
    web = Web(with_web(club.config, base_url="https://trax.example.net"), club.clock)
    try:
        page = web.get(f"/boards/101.ics?lang={language}")
        finished = web.get("/boards/102.ics", headers={"Accept-Language": language})
    finally:
        web.close()
    assert page.headers["Content-Language"] == language and "Accept-Language" in page.headers["Vary"]
    assert not any(len(line) > 75 for line in page.body.split(b"\r\n"))
    cal = icalendar.Calendar.from_ical(page.body)
    assert str(cal["X-WR-CALNAME"]).replace("\\,", ",") == summaries[0].split("：" if language == "ja" else ": ")[0] + (
        "：alice 対 bob" if language == "ja" else ": alice gegen bob")
    events = list(cal.walk("VEVENT"))
    assert [str(e["SUMMARY"]) for e in events] == summaries
    assert {str(e["URL"]) for e in events} == {f"https://trax.example.net/boards/101?lang={language}"}
    ended = list(icalendar.Calendar.from_ical(finished.body).walk("VEVENT"))
    assert [str(e["SUMMARY"]) for e in ended] == [over]
    assert str(ended[0]["URL"]) == "https://trax.example.net/boards/102"  # by the browser: no lang


@pytest.mark.parametrize(("path", "status", "language", "says"), [
    ("/nothing-here?lang=de", 404, "de", "<h1>Nicht gefunden</h1>"),
    ("/nothing-here?lang=ja", 404, "ja", "<h1>見つかりません</h1>"),
    ("/boards/101?move=x&lang=de", 400, "de", "<h1>Fehlerhafte Anfrage</h1>"),
    ("/boards/999", 404, "ja", "<h1>見つかりません</h1>"),
])
def test_error_pages_in_the_language(web, path, status, language, says):
    headers = {} if "lang=" in path else {"Accept-Language": language}
    page = web.get(path, headers=headers)
    assert page.status == status and page.headers["Content-Language"] == language
    assert "Accept-Language" in page.headers["Vary"] and page.headers["Cache-Control"] == "no-store"
    assert says in page.text and f'<html lang="{language}">' in page.text
    assert '<nav class="languages"' in page.text


def test_other_methods_are_refused_in_the_language(web):
    page = web.request("POST", "/boards/101?lang=ja")
    assert page.status == 405 and "許可されていないメソッド" in page.text


def test_the_host_header_and_the_language_make_one_copy_each(web):
    renders = web.view.cache.renders
    for host in ("a.example", "b.example", "c.example"):
        for language in ("de", "ja"):
            web.get("/boards/101.atom", headers={"Host": host, "Accept-Language": language})
    assert web.view.cache.renders == renders + 2
