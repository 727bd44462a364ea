"""The web view's URL table, in the manner of Django's ``urls.py``: every
page of the site is one :class:`Route` in :data:`URLS`, naming its path
pattern, the data it shows (a method of :class:`~.web_data.Pages`), the
template or renderer that makes it (of :class:`~.web_render.Site`), its
content type, and what it depends on (:class:`DependsOn`), which tells the
web view's page cache when a kept copy is no longer the page.  Adding a page
is adding an entry (and its data, and its template).

A pattern has at most one variable part, ``{NAME}``; :data:`PARTS` says how
each name is read from the path (as Django's path converters do), and the
part is given to the data function as the keyword ``NAME``.  A route with
``move`` takes ``?move=N`` too, given as ``after``.

``pbm.server.web`` registers the entries with aiohttp in this order (which
matters: a board's files come before its page, ``/boards/{number}.png``
before ``/boards/{number}``), answers GET and HEAD, keeps the pages, and
adds the headers.  Nothing here knows HTTP beyond the paths.

A page with words (:attr:`Route.worded`: HTML, Atom, iCalendar, text) is
made in the language asked for (:meth:`Route.page`, ``language`` and
``pinned``, see :class:`~.web_render.Here`); a picture or a file is the
same in every language.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any
from urllib.parse import quote

from pbm.languages import DEFAULT

from .web_data import Pages
from .web_render import Here, Rendered, Site

HTML = "text/html; charset=utf-8"
ATOM = "application/atom+xml; charset=utf-8"
CALENDAR = "text/calendar; charset=utf-8"
TEXT = "text/plain; charset=utf-8"
PNG = "image/png"
CSS = "text/css; charset=utf-8"
SVG = "image/svg+xml"


class DependsOn(Enum):
    """What a page depends on: what the page cache keeps a rendered copy
    with, and asks again before serving it."""

    #: The board's state (its row and its players' leave): the copy is
    #: served until it changes.
    BOARD = "the board's state"
    #: The database's version: the copy is served until anything is
    #: committed, then for ``stale_seconds`` more at most.
    DATABASE = "the database's version"
    #: Nothing: a file of ``templates/web/`` served as it is, read once.
    NOTHING = "nothing"


@dataclass(frozen=True)
class Part:
    """How a path's variable part is read: ``read`` makes the data
    function's argument of the text (raising ``NotFound`` when there is no
    such thing, ``NotHere`` when the path may be another entry's), cheaply
    (the web view reads it on its event loop).  With ``one_address``, a page
    has one address: another spelling of the part (``/boards/0101``, a
    tournament board's name) is redirected to ``str(value)``."""

    read: Callable[[Pages, str], Any]
    one_address: bool = False


def _game_type(pages: Pages, text: str) -> str:
    return text.lower()


def _tournament(pages: Pages, text: str) -> str:
    return text.casefold()


#: The variable parts of the patterns, by name.
PARTS = {
    "number": Part(Pages.board_number, one_address=True),  # a board's number, or a tournament board's name
    "userid": Part(Pages.player_key),  # a player, in any case
    "game": Part(_game_type),  # a game type, in any case (an unknown one is the page's 404)
    "tournament": Part(_tournament),  # a tournament's name, in any case (likewise)
}

#: The data function's type: ``data(pages, now=..., NAME=value[, after=N])``.
Data = Callable[..., dict[str, Any]]
#: A renderer's type: the site, the data and where the page is (its
#: language) to the page's bytes.
Renderer = Callable[[Site, dict[str, Any], Here], bytes]
#: The types of the pages that have words (the others are pictures and files).
WORDED = (HTML, ATOM, CALENDAR, TEXT)


@dataclass(frozen=True, eq=False)
class Route:
    """One entry of the URL table: ``pattern`` (aiohttp's syntax, which is
    also ``str.format``'s), ``data`` (what the page shows; None for a file
    served as it is), ``render`` (a template of ``templates/web/`` rendered
    with the data as its context, or a renderer of :class:`Site`; for a
    file, its name), ``content_type``, ``depends`` (what it is kept with),
    ``move`` (it takes ``?move=N``) and ``filename`` (for a file to keep:
    formatted with the data).  Compared by identity: a route is its entry."""

    pattern: str
    data: Data | None
    render: str | Renderer
    content_type: str
    depends: DependsOn
    move: bool = False
    filename: str | None = None
    #: The name of the pattern's variable part (None for a fixed path).
    part: str | None = field(init=False)

    def __post_init__(self) -> None:
        names = re.findall(r"\{(\w+)\}", self.pattern)
        if len(names) > 1 or any(name not in PARTS for name in names):
            raise ValueError(f"{self.pattern}: one variable part at most, of {sorted(PARTS)}")
        object.__setattr__(self, "part", names[0] if names else None)
        if (self.data is None) != (self.depends is DependsOn.NOTHING) or (
                self.data is None and not isinstance(self.render, str)):
            raise ValueError(f"{self.pattern}: a file (no data) depends on nothing and is named by render")
        if self.depends is DependsOn.BOARD and self.part != "number":
            raise ValueError(f"{self.pattern}: a page that depends on a board names it ({{number}})")

    @property
    def worded(self) -> bool:
        """Has the page words (is it made in the language asked for)?"""
        return self.content_type in WORDED

    def path(self, value: Any = None, after: int | None = None) -> str:
        """The page's own address, for its argument and position."""
        path = self.pattern if self.part is None else self.pattern.format(
            **{self.part: quote(str(value), safe="")})
        return path if after is None else f"{path}?move={after}"

    def read(self, pages: Pages, text: str) -> Any:
        """The page's argument, read from the path's variable part."""
        assert self.part is not None
        return PARTS[self.part].read(pages, text)

    def moved(self, text: str, value: Any) -> str | None:
        """The page's one address, when the path spelled its part otherwise."""
        if self.part is None or not PARTS[self.part].one_address or text == str(value):
            return None
        return self.pattern.format(**{self.part: value})

    def page(self, site: Site, now: datetime, value: Any = None, after: int | None = None, *,
             language: str = DEFAULT, pinned: bool = False) -> Rendered:
        """The page made: its data read, then rendered by its template or
        renderer, in ``language`` (``pinned``: chosen with ``?lang=``, which
        its links keep) when it has words."""
        if self.data is None:
            assert isinstance(self.render, str)
            return Rendered(site.file(self.render), self.content_type)
        values: dict[str, Any] = {} if self.part is None else {self.part: value}
        if self.move:
            values["after"] = after
        data = self.data(site.pages, now=now, **values)
        here = Here(self.path(value, after if self.move else None), language, pinned) if self.worded else Here()
        body = site.template(self.render, data, here) if isinstance(self.render, str) else self.render(
            site, data, here)
        return Rendered(body, self.content_type, self.filename.format_map(data) if self.filename else None,
                        here.language if self.worded else None)


#: Every page of the web view, in the order aiohttp tries them.
URLS: tuple[Route, ...] = (
    # pattern, data, template or renderer, content type, what it depends on (and takes ?move=N; file name)
    Route("/", Pages.home, "home.html", HTML, DependsOn.DATABASE),
    # a board's picture as the mail has it; its game record as the last board mail attaches it; its news;
    # the deadlines of its player to move
    Route("/boards/{number}.png", Pages.picture, Site.picture, PNG, DependsOn.BOARD, move=True,
          filename="{game}-{number}.png"),
    Route("/boards/{number}.txt", Pages.record, Site.record, TEXT, DependsOn.BOARD, filename="{game}-{number}.txt"),
    Route("/boards/{number}.atom", Pages.board_feed, Site.board_feed, ATOM, DependsOn.BOARD),
    Route("/boards/{number}.ics", Pages.board_calendar, Site.calendar, CALENDAR, DependsOn.BOARD,
          filename="{game}-{number}.ics"),
    Route("/boards/{number}", Pages.board, Site.board, HTML, DependsOn.BOARD, move=True),
    # a player's games started and finished (Atom), before the page of a userid that ends in .atom
    Route("/players/{userid}.atom", Pages.player_feed, Site.feed, ATOM, DependsOn.DATABASE),
    Route("/players/{userid}", Pages.player, "player.html", HTML, DependsOn.DATABASE),
    Route("/standings/{game}", Pages.standings, "standings.html", HTML, DependsOn.DATABASE),
    Route("/tournaments/{tournament}", Pages.tournament, "tournament.html", HTML, DependsOn.DATABASE),
    Route("/site.css", None, "site.css", CSS, DependsOn.NOTHING),
    Route("/favicon.svg", None, "favicon.svg", SVG, DependsOn.NOTHING),
)
