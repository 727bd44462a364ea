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
caching, and which language a request asks for).

**Languages.** Every page is rendered in one of :data:`pbm.languages.LANGUAGES`
(:class:`Here` says which, and where the page is): the templates' words
through that language's gettext catalog (:func:`pbm.app.catalogs.translations`,
Jinja's i18n extension, as the mail's :class:`~.compose.Renderer` has them),
moments and numbers as the language writes them, and what the mail's
templates say (a board's state, the record, an error's reason) by the mail's
renderer of that language.  A page whose language was chosen with
``?lang=`` (``pinned``) keeps it in its links to the other pages; every page
links to itself in each language (the switch in ``web/base.html``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FunctionLoader, StrictUndefined

from pbm.config import Config
from pbm.domain.store import Store
from pbm.languages import DEFAULT, LANGUAGES
from pbm.trax import VARIANTS
from pbm.trax.picture import board_png
from pbm.trax.svg import board_svg

from .catalogs import moment, number, translations
from .compose import TEMPLATES, Refusal, Renderer, _join, wrap
from .web_data import Pages

#: Each language as the switch names it: in its own words.
LANGUAGE_NAMES = {"en": "English", "de": "Deutsch", "ja": "日本語"}
assert set(LANGUAGE_NAMES) == set(LANGUAGES)


def with_language(path: str, language: str | None) -> str:
    """A path (and its query) with ``lang=LANGUAGE`` added; as it is for
    None."""
    if language is None:
        return path
    return f"{path}{'&' if '?' in path else '?'}lang={language}"


@dataclass(frozen=True)
class Here:
    """Where a page is, and the language it is read in: ``path`` is the
    page's own address (with its ``?move=N``, without ``?lang``), the one
    the language switch links to; ``pinned``, the language was chosen with
    ``?lang=`` (not by the browser's Accept-Language), so the page's links
    keep it."""

    path: str = "/"
    language: str = DEFAULT
    pinned: bool = False

    def link(self, path: str) -> str:
        """A link to another page, in this page's language if it was chosen."""
        return with_language(path, self.language if self.pinned else None)


@dataclass(frozen=True)
class Rendered:
    """A page made: its bytes, their type, and (for a file to keep) a name."""

    body: bytes
    content_type: str
    filename: str | None = None
    #: The language of its words (None: it has none, a picture or a file).
    language: str | None = None


def _source(name: str) -> str | None:
    path = TEMPLATES.joinpath(*name.split("/"))
    return path.read_text(encoding="utf-8") if path.is_file() else None


def _environment(*, autoescape: bool, language: str = DEFAULT,
                 finalize: Callable[[Any], Any] | None = None) -> Environment:
    env = Environment(
        loader=FunctionLoader(_source),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=autoescape,
        auto_reload=False,
        finalize=finalize,
        extensions=["jinja2.ext.i18n"],
    )
    env.install_gettext_translations(translations(language), newstyle=True)  # type: ignore[attr-defined]
    env.filters["path"] = lambda value: quote(str(value), safe="")  # one segment of a path
    env.filters["url"] = lambda value: quote(str(value), safe="/?=&")  # a path and its query
    env.filters["when"] = partial(moment, language=language)  # a moment or a day as the language writes it
    env.filters["number"] = partial(number, language=language)  # 2.5, 2,5
    env.filters["with_language"] = with_language
    env.globals["language"] = language
    return env


class IcsText(str):
    """Text escaped as iCalendar TEXT already (what a macro of the calendar
    made: its own ``{{ }}`` were escaped), marked so with the ``escaped``
    filter: not escaped again."""


def ics_text(value: Any) -> Any:
    """A value as iCalendar TEXT (RFC 5545 3.3.11): backslash, semicolon,
    comma and line breaks escaped.  Every ``{{ }}`` of a calendar template
    goes through this (but for :class:`IcsText`)."""
    if value is None:
        return ""
    if isinstance(value, IcsText):
        return str(value)
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
        self._lock = threading.Lock()
        self._html: dict[tuple[str, bool], Environment] = {}
        self._calendars: dict[str, Environment] = {}
        self._texts: dict[str, Renderer] = {}
        self.html = self.environment(Here())
        self.text = self.renderer(DEFAULT)

    # -- the environments, one a language ----------------------------------

    def environment(self, here: Here) -> Environment:
        """The pages' environment for ``here``'s language (and its links:
        with ``?lang=`` when it was chosen so)."""
        key = (here.language, here.pinned)
        with self._lock:
            env = self._html.get(key)
            if env is None:
                env = _environment(autoescape=True, language=here.language)
                env.globals.update(
                    server={"name": self.config.server.name, "address": self.config.server.address},
                    nav_games=[{"name": n, "title": v.title} for n, v in VARIANTS.items()],
                    languages=list(LANGUAGE_NAMES.items()), href=Here(language=here.language,
                                                                      pinned=here.pinned).link)
                self._html[key] = env
            return env

    def calendar_env(self, language: str) -> Environment:
        """The calendars' environment (iCalendar text, no escaping as HTML)."""
        with self._lock:
            env = self._calendars.get(language)
            if env is None:
                env = self._calendars[language] = _environment(autoescape=False, language=language,
                                                               finalize=ics_text)
                env.filters["escaped"] = IcsText
            return env

    def renderer(self, language: str) -> Renderer:
        """The mail's templates in ``language``: the record, a board's state,
        the picture's alt text, the words of an error."""
        with self._lock:
            text = self._texts.get(language)
            if text is None:
                text = self._texts[language] = Renderer(language)
            return text

    # -- plain pieces --------------------------------------------------------

    def template(self, name: str, data: dict[str, Any], here: Here = Here()) -> bytes:
        """The page of ``templates/web/NAME`` with ``data`` as its context,
        in ``here``'s language."""
        return self.environment(here).get_template(f"web/{name}").render(**data, here=here).encode("utf-8")

    def error(self, status: int, refusal: Refusal, here: Here = Here()) -> bytes:
        """The site's own page for an error: what was wrong worded from
        its code and params (and escaped), in ``here``'s language."""
        context = {"status": status, "message": self.renderer(here.language).words(refusal), "here": here}
        return self.environment(here).get_template("web/error.html").render(**context).encode("utf-8")

    @staticmethod
    def file(name: str) -> bytes:
        """A file of ``templates/web/`` as it is (the style sheet, the icon)."""
        return TEMPLATES.joinpath("web", name).read_bytes()

    def _status(self, view: dict[str, Any], language: str = DEFAULT) -> str:
        """The board's state in one sentence, as its mail says it."""
        return _one_line(self.renderer(language).partial("partials/status.txt", view=view))

    def _alt(self, board: Any, language: str = DEFAULT) -> str:
        return _one_line(self.renderer(language).partial("html/picture-alt.txt", board=board))

    # -- the renderers of the URL table ------------------------------------------

    def board(self, page: dict[str, Any], here: Here = Here()) -> bytes:
        """A board's page: its template, with the board drawn as SVG and its
        state in the mail's words."""
        view, board = page["view"], page["board"]
        svg = board_svg(board, draw=view["draw"], title=self._alt(board, here.language))
        return self.template("board.html", {**page, "svg": svg, "status": self._status(view, here.language)}, here)

    def picture(self, data: dict[str, Any], here: Here = Here()) -> bytes:
        """The board's picture, as the mail has it (no words: the same in
        every language)."""
        draw = data["draw"]
        return board_png(data["board"]) if draw is None else board_png(data["board"], draw=draw)

    def record(self, view: dict[str, Any], here: Here = Here()) -> bytes:
        """The game record, as the last board mail of a game attaches it
        (to a player who reads ``here``'s language)."""
        text = self.renderer(here.language).render("replies/record.txt", server=self.config.server, view=view)
        return wrap(text.body).encode("utf-8")

    def feed(self, feed: dict[str, Any], here: Here = Here()) -> bytes:
        """An Atom feed (a player's games)."""
        template = self.environment(here).get_template("web/feed.xml")
        return template.render(feed=feed, base=self.base, here=here).encode("utf-8")

    def board_feed(self, feed: dict[str, Any], here: Here = Here()) -> bytes:
        """A board's Atom feed, its state in the mail's words."""
        return self.feed({**feed, "status": self._status(feed["view"], here.language)}, here)

    def calendar(self, data: dict[str, Any], here: Here = Here()) -> bytes:
        """A board's deadlines as an iCalendar file."""
        data = {**data, "status": self._status(data["view"], here.language), "base": self.base,
                "link": here.link(f"/boards/{data['number']}"),
                "deadlines": [{**d, "end": d["moment"] + timedelta(minutes=15)} for d in data["deadlines"]]}
        return ics_lines(self.calendar_env(here.language).get_template("web/calendar.ics").render(**data))



def _one_line(text: str) -> str:
    """Text on one line: its words joined with blanks (none where Japanese
    was broken across lines)."""
    return _join(text.split() or [""])
