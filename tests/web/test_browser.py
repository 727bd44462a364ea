"""A real browser on a real daemon: ``pbm``'s daemon runs with its SMTP
listener and the web view (``[web] enabled``) on 127.0.0.1, the games are
made by mail over SMTP, and headless Chromium loads the board and tournament
pages at phone and desktop widths.  The screenshots are checked by pixel
facts (not blank, the tiles' colours, the marks, nothing cut off at 360
pixels), the DOM Chromium built by what it holds, and Chromium's log for
console errors (a Content-Security-Policy refusal among them).

Set ``PBM_WEB_SHOTS`` to a folder to keep the screenshots there."""

from __future__ import annotations

import io
import logging
import os
import re
import shutil
import smtplib
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from pbm.trax import Board
from pbm.trax.picture import COLOURS, board_png
from pbm.trax.svg import board_svg, svg_size
from tests.mail.daemon import DaemonThread, command_mail, wait_until
from tests.mail.servers import free_port

from .conftest import LOOP_GAME, PLAYERS

pytestmark = pytest.mark.integration

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PAPER = (244, 241, 233)
#: What Chromium writes to its log for a page's console errors and refusals.
CONSOLE_TROUBLE = ("CONSOLE", "Refused to", "Uncaught", "Failed to load resource", "Content Security Policy")


def chromium(tmp: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--no-first-run", "--disable-extensions", f"--user-data-dir={profile}",
                           "--enable-logging=stderr", "--v=0", *args],
                          capture_output=True, text=True, timeout=timeout)


def console_trouble(log: str) -> list[str]:
    return [line for line in log.splitlines() if any(word in line for word in CONSOLE_TROUBLE)]


def screenshot(tmp: Path, url: str, name: str, width: int, height: int = 2200) -> Image.Image:
    path = tmp / f"{name}.png"
    done = chromium(tmp, f"--window-size={width},{height}", f"--screenshot={path}", url)
    assert path.exists(), done.stderr[-2000:]
    assert console_trouble(done.stderr) == [], done.stderr[-3000:]
    keep = os.environ.get("PBM_WEB_SHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / path.name)
    image = Image.open(path).convert("RGB")
    assert image.size == (width, height)
    return image


def within(image: Image.Image, limit: int) -> Image.Image:
    """A mask: 255 where every channel of ``image`` is at most ``limit``."""
    masks = [band.point(lambda v: 255 if v <= limit else 0) for band in image.split()]
    return ImageChops.multiply(ImageChops.multiply(masks[0], masks[1]), masks[2])


def count_near(image: Image.Image, colour: tuple[int, int, int], limit: int = 8) -> int:
    """Pixels no further than ``limit`` from ``colour`` in every channel."""
    return within(ImageChops.difference(image, Image.new("RGB", image.size, colour)), limit).histogram()[255]


def send(port: int, who: str, subject: str) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.sendmail(f"{who}@example.org", ["pbm@mail.test"], command_mail(f"{who}@example.org", subject))


@pytest.fixture(scope="module")
def daemon(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """The daemon with its listener and web view; the club's games made by
    mail: board 101 in play, 102 won by a loop, a tournament Spring."""
    folder = tmp_path_factory.mktemp("daemon")
    listen, web = free_port(), free_port()
    path = folder / "pbm.toml"
    path.write_text(f'[server]\naddress = "pbm@mail.test"\ndatabase = "pbm.sqlite3"\n\n'
                    f"[listen]\nport = {listen}\n\n[web]\nenabled = true\nport = {web}\n")
    serving = Serving()
    logger = logging.getLogger("pbm.daemon")
    level = logger.level
    logger.addHandler(serving)
    logger.setLevel(logging.INFO)
    try:
        with DaemonThread(path) as running:
            wait_until(lambda: port_open(web), timeout=30, what="the web view")
            wait_until(lambda: serving.said, timeout=30, what="the daemon to say it is serving")
            yield from club_by_mail(running, listen, web, folder)
    finally:
        logger.removeHandler(serving)
        logger.setLevel(level)
    assert not port_open(web), "the web view stops with the daemon"


class Serving(logging.Handler):
    """Notes the daemon's "serving" line: its start-up work is done."""

    said = False

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("serving"):
            self.said = True


def club_by_mail(running: DaemonThread, listen: int, web: int, folder: Path) -> Iterator[tuple[str, Path]]:
    """The club's games, made by mail to the daemon's listener (each mail is
    committed before the listener answers); the web view's address."""
    for who, password in PLAYERS.items():
        send(listen, who, f"signup {who} {password}")
    for number, moves in ((101, LOOP_GAME[:7]), (102, LOOP_GAME)):
        send(listen, "alice", f"trax challenge alice bob {PLAYERS['alice']}")
        for n, move in enumerate(moves, start=1):
            who = "alice" if n % 2 else "bob"
            send(listen, who, f"trax move {number} {who} {PLAYERS[who]} {move}#{n}")
    send(listen, "carol", f"trax tournament create Spring carol {PLAYERS['carol']}")
    for who, password in PLAYERS.items():
        send(listen, who, f"trax tournament join Spring {who} {password}")
    send(listen, "carol", f"trax tournament start Spring carol {PLAYERS['carol']}")
    assert running.daemon is not None and running.daemon.failed == 0
    yield f"http://127.0.0.1:{web}", folder


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def assert_fits(image: Image.Image) -> None:
    """Nothing runs past the right edge: the last columns are paper, but
    for the full-width rules of the header and footer."""
    width, height = image.size
    edge = image.crop((width - 4, 0, width, height))
    rows = {y for y in range(height) for x in range(4) if max(abs(a - b) for a, b in
                                                              zip(edge.getpixel((x, y)), PAPER)) > 12}
    assert len(rows) <= 6, f"{len(rows)} rows reach the right edge"


@pytest.mark.parametrize("width", [360, 1280])
def test_the_board_page_in_a_browser(daemon, tmp_path, width):
    base, _ = daemon
    image = screenshot(tmp_path, f"{base}/boards/101", f"board-{width}", width)
    assert len(image.getcolors(1 << 16) or range(1 << 17)) > 50  # not blank
    assert count_near(image, PAPER) > width * 500
    for name, least in (("tile", 2000), ("red", 300), ("white", 300), ("chosen", 100)):
        assert count_near(image, COLOURS[name], 10) >= least, name
    assert count_near(image, COLOURS["win"], 10) == 0  # no winner yet
    if width == 360:
        assert_fits(image)


def test_the_finished_board_glows_gold(daemon, tmp_path):
    base, _ = daemon
    image = screenshot(tmp_path, f"{base}/boards/102", "board-102-360", 360)
    assert count_near(image, COLOURS["win"], 10) >= 200
    assert_fits(image)


@pytest.mark.parametrize("width", [360, 1280])
def test_the_tournament_page_in_a_browser(daemon, tmp_path, width):
    base, _ = daemon
    image = screenshot(tmp_path, f"{base}/tournaments/Spring", f"tournament-{width}", width)
    assert len(image.getcolors(1 << 16) or range(1 << 17)) > 20
    assert count_near(image, (0, 104, 214), 40) > 500  # the links to boards and players
    assert count_near(image, (214, 208, 196), 6) > 50  # the crosstable's own cells and the rules
    if width == 360:
        assert_fits(image)


def test_the_dom_chromium_builds_holds_the_board_and_the_move_list(daemon, tmp_path):
    base, _ = daemon
    done = chromium(tmp_path, "--dump-dom", f"{base}/boards/102")
    dom = done.stdout
    assert dom.count("<svg") == 1 and 'class="board"' in dom
    assert dom.count('<use href="#pbm-t') >= 11 and "Game won by alice (white loop)." in dom
    assert dom.count("<li") >= 11 and "/boards/102?move=11" in dom
    assert console_trouble(done.stderr) == []


def test_the_console_check_sees_a_refusal(tmp_path):
    """The check above can fail: a page whose policy forbids its own inline
    script and style makes Chromium log the refusals."""
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" '
                    "content=\"default-src 'none'\"></head><body><p style=\"color:red\">x</p>"
                    "<script>console.error('boom')</script></body></html>")
    done = chromium(tmp_path, "--dump-dom", page.as_uri())
    assert console_trouble(done.stderr), done.stderr[-2000:]


def test_the_svg_board_looks_like_the_mail_picture(tmp_path):
    board = Board.replay(LOOP_GAME)
    width, height = svg_size(board)
    page = tmp_path / "svg.html"
    page.write_text(f'<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">'
                    f"{board_svg(board)}</body></html>")
    shot = screenshot(tmp_path, page.as_uri(), "svg-vs-png", width, height)
    picture = Image.open(io.BytesIO(board_png(board))).convert("RGB")
    same = within(ImageChops.difference(shot, picture), 48).histogram()[255]
    assert same / (width * height) >= 0.97


@pytest.mark.parametrize("path", ["/standings/trax", "/players/alice"])
def test_the_ratings_tables_fit_a_phone(daemon, tmp_path, path):
    """The standings and a player's ratings are tables of many columns: on
    a 400 px screen they fit (they scroll inside the page, not past it)."""
    base, _ = daemon
    image = screenshot(tmp_path, f"{base}{path}", "ratings-" + path.strip("/").replace("/", "-") + "-400", 400)
    assert len(image.getcolors(1 << 16) or range(1 << 17)) > 20
    assert_fits(image)
    # a table wider than the page is cut at the content's right edge (the
    # main column's padding is 0.75rem): no ink may stand in its last
    # columns, but for the rules that run the whole width of the page
    def ink(x: int, y: int) -> bool:
        return max(abs(v - 40) for v in image.getpixel((x, y))) <= 60
    cut = [y for y in range(image.height) if (ink(386, y) or ink(387, y)) and not ink(4, y)]
    assert cut == [], f"text is cut at the right edge at y = {cut[:5]}"


# ---------------------------------------------------------------------------
# the pages in Japanese: wide glyphs, drawn with a Japanese font, within the window


def fonts_drawn(tmp: Path, url: str) -> set[str]:
    """The fonts Chromium drew a page with: the page printed to PDF, the
    names of the fonts it embeds (``NotoSansCJKjp-Regular``), without the
    subset prefix."""
    path = tmp / f"print-{len(list(tmp.glob('print-*')))}.pdf"
    done = chromium(tmp, f"--print-to-pdf={path}", "--no-pdf-header-footer", url)
    assert path.exists(), done.stderr[-2000:]
    return {name.decode() for name in re.findall(rb"/FontName\s*/(?:[A-Z]{6}\+)?([^\s/<>\[\]()]+)", path.read_bytes())}


@pytest.mark.parametrize("path", ["/boards/101", "/standings/trax"])
@pytest.mark.parametrize("width", [360, 1280])
def test_the_japanese_pages_fit_the_window_and_draw_their_glyphs(daemon, tmp_path, path, width):
    """The board and the standings in Japanese, at a phone's width and a
    desktop's: nothing runs past the right edge (Japanese breaks between
    characters, the tables scroll inside the page), the page is the
    Japanese one, and its glyphs are drawn with a Japanese font (Noto CJK),
    not as empty boxes."""
    base, _ = daemon
    name = "web-" + ("board" if path.startswith("/boards") else "standings") + f"-ja-{width}"
    image = screenshot(tmp_path, f"{base}{path}?lang=ja", name, width)
    assert len(image.getcolors(1 << 16) or range(1 << 17)) > 20  # not blank
    assert_fits(image)
    dom = chromium(tmp_path, f"--window-size={width},2200", "--dump-dom", f"{base}{path}?lang=ja").stdout
    assert '<html lang="ja">' in dom and 'aria-current="true">日本語</strong>' in dom
    assert ("持ち時間" in dom and "棋譜" in dom) if path.startswith("/boards") else "順位表" in dom
    fonts = fonts_drawn(tmp_path, f"{base}{path}?lang=ja")
    assert any(font.startswith("NotoSansCJKjp") for font in fonts), fonts
    if path.startswith("/boards"):
        for colour, least in (("tile", 1000), ("red", 300)):  # the board is drawn too
            assert count_near(image, COLOURS[colour], 10) >= least, colour


def test_the_font_check_sees_a_page_without_japanese(tmp_path):
    """The check above can fail: a page of Latin letters alone is drawn
    without the Japanese font."""
    page = tmp_path / "latin.html"
    page.write_text('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"></head>'
                    "<body><h1>Trax board 101</h1><p>Players, clocks and moves.</p></body></html>")
    fonts = fonts_drawn(tmp_path, page.as_uri())
    assert fonts and not any("CJK" in font for font in fonts), fonts
