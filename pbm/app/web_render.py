"""The web view's pages rendered: HTML from the Jinja templates in
``templates/web/`` (autoescape on: every value a player chose, a userid or a
tournament's name, is escaped), Atom feeds, calendars (iCalendar), and the
board's picture and game record exactly as the mail makes them (the
picture by :func:`pbm.trax.picture.board_png`, the record from
``replies/record.txt``).  The board on a page is inline SVG drawn by
:func:`pbm.trax.svg.board_svg`, the same picture as the mail's.

:class:`Site` renders: a template with a page's data (:meth:`Site.template`),
or one of its renderers for the pages that need more than a template (a
board's page, its picture, record, feed and calendar).  Which page is made
from which data, template or renderer is the URL table's to say
(:mod:`.web_urls`); the data is read by :class:`pbm.app.web_data.Pages`.
It knows nothing of HTTP (``pbm.server.web`` does: routes, headers,
caching).
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

from .compose import TEMPLATES, Refusal, Renderer, wrap
from .web_data import Pages


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
    """The renderers of the web view's pages, and the data they are made
    from (``pages``, read from a store that is a connection of the web
    view's own)."""

    def __init__(self, store: Store, config: Config) -> None:
        self.config = config
        self.pages = Pages(store, config)
        #: Where feeds and calendars link to: ``[web] base_url``, or relative
        #: links ("") and no calendar URL without it (never a request's Host).
        self.base = config.web.base_url or ""
        self.html = _environment(autoescape=True)
        self.html.globals.update(server={"name": config.server.name, "address": config.server.address},
                                 nav_games=[{"name": n, "title": v.title} for n, v in VARIANTS.items()])
        self.calendar_env = _environment(autoescape=False, finalize=ics_text)
        self.text = Renderer()  # the mail's templates: the record, a board's status, the picture's alt text

    # -- plain pieces --------------------------------------------------------

    def template(self, name: str, data: dict[str, Any]) -> bytes:
        """The page of ``templates/web/NAME`` with ``data`` as its context."""
        return self.html.get_template(f"web/{name}").render(**data).encode("utf-8")

    def error(self, status: int, refusal: Refusal) -> bytes:
        """The site's own page for an error: what was wrong worded from
        its code and params (and escaped)."""
        context = {"status": status, "message": self.text.words(refusal)}
        return self.html.get_template("web/error.html").render(**context).encode("utf-8")

    @staticmethod
    def file(name: str) -> bytes:
        """A file of ``templates/web/`` as it is (the style sheet, the icon)."""
        return TEMPLATES.joinpath("web", name).read_bytes()

    def _status(self, view: dict[str, Any]) -> str:
        """The board's state in one sentence, as its mail says it."""
        return " ".join(self.text.partial("partials/status.txt", view=view).split())

    def _alt(self, board: Any) -> str:
        return " ".join(self.text.partial("html/picture-alt.txt", board=board).split())

    # -- the renderers of the URL table ------------------------------------------

    def board(self, page: dict[str, Any]) -> bytes:
        """A board's page: its template, with the board drawn as SVG and its
        state in the mail's words."""
        view, board = page["view"], page["board"]
        svg = board_svg(board, draw=view["draw"], title=self._alt(board))
        return self.template("board.html", {**page, "svg": svg, "status": self._status(view)})

    def picture(self, data: dict[str, Any]) -> bytes:
        """The board's picture, as the mail has it."""
        draw = data["draw"]
        return board_png(data["board"]) if draw is None else board_png(data["board"], draw=draw)

    def record(self, view: dict[str, Any]) -> bytes:
        """The game record, as the last board mail of a game attaches it."""
        text = self.text.render("replies/record.txt", server=self.config.server, view=view)
        return wrap(text.body).encode("utf-8")

    def feed(self, feed: dict[str, Any]) -> bytes:
        """An Atom feed (a player's games)."""
        return self.html.get_template("web/feed.xml").render(feed=feed, base=self.base).encode("utf-8")

    def board_feed(self, feed: dict[str, Any]) -> bytes:
        """A board's Atom feed, its state in the mail's words."""
        return self.feed({**feed, "status": self._status(feed["view"])})

    def calendar(self, data: dict[str, Any]) -> bytes:
        """A board's deadlines as an iCalendar file."""
        data = {**data, "status": self._status(data["view"]), "base": self.base,
                "deadlines": [{**d, "end": d["moment"] + timedelta(minutes=15)} for d in data["deadlines"]]}
        return ics_lines(self.calendar_env.get_template("web/calendar.ics").render(**data))
