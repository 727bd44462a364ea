"""The web view's pages rendered: HTML from the Jinja templates in
``templates/web/`` (autoescape on: every value a player chose, a userid or a
tournament's name, is escaped), Atom feeds, calendars (iCalendar), and the
board's picture and game record exactly as the mail makes them (the
picture by :func:`pbm.trax.picture.board_png`, the record from
``replies/record.txt``).  The board on a page is inline SVG drawn by
:func:`pbm.trax.svg.board_svg`, the same picture as the mail's.

:class:`Site` is the whole site: one call per page, the data read by
:class:`pbm.app.pages.Pages`, the bytes and their type out.  It knows
nothing of HTTP (``pbm.server.web`` does: routes, headers, caching).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FunctionLoader, StrictUndefined

from pbm.config import Config
from pbm.domain.store import Store
from pbm.trax import VARIANTS
from pbm.trax.picture import board_png
from pbm.trax.svg import board_svg

from .compose import TEMPLATES, Renderer, wrap
from .pages import Pages

#: The files under templates/web/ served as they are: name -> content type.
STATIC = {"site.css": "text/css; charset=utf-8", "favicon.svg": "image/svg+xml"}

HTML = "text/html; charset=utf-8"


@dataclass(frozen=True)
class Rendered:
    """A page made: its bytes, their type, and (for a file to keep) a name."""

    body: bytes
    content_type: str
    filename: str | None = None


def _source(name: str) -> str | None:
    path = TEMPLATES.joinpath(*name.split("/"))
    return path.read_text(encoding="utf-8") if path.is_file() else None


def _environment(*, autoescape: bool, finalize: Callable[[Any], Any] | None = None) -> Environment:
    env = Environment(
        loader=FunctionLoader(_source),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=autoescape,
        auto_reload=False,
        finalize=finalize,
    )
    env.filters["path"] = lambda value: quote(str(value), safe="")  # one segment of a path
    env.filters["url"] = lambda value: quote(str(value), safe="/?=&")  # a path and its query
    return env


def ics_text(value: Any) -> Any:
    """A value as iCalendar TEXT (RFC 5545 3.3.11): backslash, semicolon,
    comma and line breaks escaped.  Every ``{{ }}`` of a calendar template
    goes through this."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.strftime("%Y%m%dT%H%M%SZ")
    text = str(value)
    return (text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
            .replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n"))


def ics_lines(text: str) -> bytes:
    """Calendar text with CRLF line ends, each line folded at 75 octets
    (a continuation starts with a blank), blank lines left out."""
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        data = line.encode("utf-8")
        first = True
        while data:
            room = 75 if first else 74
            cut = min(room, len(data))
            while cut < len(data) and (data[cut] & 0xC0) == 0x80:  # never inside a UTF-8 character
                cut -= 1
            out.append((b"" if first else b" ") + data[:cut])
            data, first = data[cut:], False
    return b"\r\n".join(out) + b"\r\n"


class Site:
    """Every page of the web view, rendered from the store (a connection of
    the web view's own)."""

    def __init__(self, store: Store, config: Config) -> None:
        self.config = config
        self.pages = Pages(store, config)
        self.html = _environment(autoescape=True)
        self.html.globals.update(server={"name": config.server.name, "address": config.server.address},
                                 nav_games=[{"name": n, "title": v.title} for n, v in VARIANTS.items()])
        self.calendar_env = _environment(autoescape=False, finalize=ics_text)
        self.text = Renderer()  # the mail's templates: the record, a board's status, the picture's alt text

    # -- plain pieces --------------------------------------------------------

    def _page(self, name: str, **context: Any) -> Rendered:
        return Rendered(self.html.get_template(f"web/{name}").render(**context).encode("utf-8"), HTML)

    def error(self, status: int, message: str) -> bytes:
        """The site's own page for an error (``message`` is escaped)."""
        titles = {400: "Bad request", 404: "Not found", 405: "Method not allowed", 500: "Server error"}
        return self._page("error.html", status=status, title=titles.get(status, "Error"), message=message).body

    @staticmethod
    def static(name: str) -> Rendered:
        path = TEMPLATES.joinpath("web", name)
        return Rendered(path.read_bytes(), STATIC[name])

    def _status(self, view: dict[str, Any]) -> str:
        """The board's state in one sentence, as its mail says it."""
        return " ".join(self.text.partial("partials/status.txt", view=view).split())

    def _alt(self, board: Any) -> str:
        return " ".join(self.text.partial("html/picture-alt.txt", board=board).split())

    # -- pages -----------------------------------------------------------------

    def home(self, now: datetime) -> Rendered:
        return self._page("home.html", **self.pages.home(now))

    def board(self, number: int, now: datetime, *, after: int | None = None) -> Rendered:
        page = self.pages.board(number, now, after=after)
        view, board = page["view"], page["board"]
        svg = board_svg(board, draw=view["draw"], title=self._alt(board))
        return self._page("board.html", **page, svg=svg, status=self._status(view))

    def board_png(self, number: int, now: datetime, *, after: int | None = None) -> Rendered:
        board, draw = self.pages.picture(number, now, after=after)
        png = board_png(board) if draw is None else board_png(board, draw=draw)
        return Rendered(png, "image/png", f"{board.variant.name}-{number}.png")

    def record(self, number: int, now: datetime) -> Rendered:
        """The game record, as the last board mail of a game attaches it."""
        view = self.pages.record(number, now)
        text = self.text.render("replies/record.txt", server=self.config.server, view=view)
        return Rendered(wrap(text.body).encode("utf-8"), "text/plain; charset=utf-8",
                        f"{view['game']}-{number}.txt")

    def player(self, userid: str, now: datetime) -> Rendered:
        return self._page("player.html", **self.pages.player(userid, now))

    def standings(self, game: str, now: datetime) -> Rendered:
        return self._page("standings.html", **self.pages.standings(game, now))

    def tournament(self, name: str, now: datetime) -> Rendered:
        return self._page("tournament.html", **self.pages.tournament(name, now))

    def _atom(self, feed: dict[str, Any], base: str) -> Rendered:
        body = self.html.get_template("web/feed.xml").render(feed=feed, base=base)
        return Rendered(body.encode("utf-8"), "application/atom+xml; charset=utf-8")

    def board_feed(self, number: int, now: datetime, *, base: str) -> Rendered:
        feed = self.pages.board_feed(number, now)
        return self._atom({**feed, "status": self._status(feed["view"])}, base)

    def player_feed(self, userid: str, now: datetime, *, base: str) -> Rendered:
        return self._atom(self.pages.player_feed(userid, now), base)

    def board_calendar(self, number: int, now: datetime, *, base: str) -> Rendered:
        data = self.pages.board_calendar(number, now)
        data["status"] = self._status(data["view"])
        data["base"] = base
        for d in data["deadlines"]:
            d["end"] = d["moment"] + timedelta(minutes=15)
        text = self.calendar_env.get_template("web/calendar.ics").render(**data)
        return Rendered(ics_lines(text), "text/calendar; charset=utf-8", f"{data['game']}-{number}.ics")
