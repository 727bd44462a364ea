"""The read-only web view over HTTP, with aiohttp.web; and the daemon's
metrics listener.

``pbm serve`` starts the web view inside the daemon's own event loop when
``[web] enabled`` (:meth:`WebView.start`, :meth:`WebView.stop`), so it
starts and stops with the mail; ``pbm web`` serves it alone
(:func:`serve_web`).  ``/metrics`` and ``/healthz`` are not the public web
view's: :class:`MetricsView` answers them on a listener of their own
(``[metrics] host`` and ``port``, the loopback address by default), which
the daemon starts when ``[metrics] enabled``, with or without the web view.

**Routes** are the entries of the URL table, :data:`pbm.app.web_urls.URLS`,
registered with aiohttp in its order: GET and HEAD; anything else is 405,
an unknown path 404, a bad parameter 400, each in the site's own page.  A
path's variable part is read on the event loop (a board's number or name, a
player); a part that does not read as that entry's (``/players/bob.atom``
when there is no bob) leaves the path to the next entry that matches it, as
Django's converters do; a tournament board's name (``/boards/ETC26-A3``) is
redirected to the board's number.

**No Host header is trusted.**  Feeds and calendars link to ``[web]
base_url``; without it an Atom feed's links are relative (resolved against
the feed's own address by its reader) and a calendar carries no URL (the
format wants an absolute one, and only the operator knows it).  So nothing
a request says about where it was sent ends up in a page, and the page
cache is keyed by what was asked alone.

**Caching.** A rendered page is kept with what its entry says it depends
on (:class:`pbm.app.web_urls.DependsOn`): a board's pages with the board's
state (:meth:`pbm.app.web_data.Pages.board_state`: its row and its players'
leave), every other page with the database's version
(:meth:`pbm.domain.store.Store.data_version`, which changes whenever
anything is committed), re-rendered at most once every ``stale_seconds``
while the mail keeps changing the database.  Asking again costs one
``PRAGMA data_version`` when nothing changed, and a board's state (three
small reads) when something did.  A page's ETag is a hash of its bytes, so
``If-None-Match`` gets 304 whenever the page is the same; a gzip copy is
kept for clients that take it.  Pages are rendered in one worker thread
with a database connection of its own (read only), so the event loop, which
also runs the mail's intake, never waits for a rendering; many requests for
a page not yet rendered wait for one rendering.

**Mail first.** The pages share the machine with the mail (and inside the
daemon, the interpreter).  While the mail is at work (the daemon's pipeline
lock is held, or the database changed, within the last quarter of a
second), the web view answers at most ``busy_rate`` requests a second
(400), the others waiting their turn, so that a crowd of readers slows the
pages, not the mail.

**Languages.** A page with words is made in the language a request asks
for (:func:`language_of`): ``?lang=de`` (or ``ja``, ``en``: the switch every
page has), else the one the browser's ``Accept-Language`` prefers by its
q-values (:func:`pbm.languages.from_accept_language`), else English; a
``lang`` that names none of them is ignored.  A page whose language came
from ``?lang=`` keeps it in its links.  The page cache keeps each
language's page apart (the language is part of :class:`Target`), so each has
its own bytes and ETag; the response says ``Content-Language`` and ``Vary:
Accept-Language`` (a cache in between keeps one copy a language).

**Headers.** Every response carries a Content-Security-Policy that allows
nothing but the site's own style sheet and images (no script at all, no
inline style: the board is inline SVG drawn with presentation attributes),
``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``,
``X-Frame-Options: DENY``; pages say ``Cache-Control: no-cache`` (keep,
but ask again: the ETag makes that cheap).
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import logging
import math
import re
import signal
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlencode

from aiohttp import web

from pbm.app.web_data import NUMBER_DIGITS, BadRequest, NotFound, NotHere, PageError, Pages
from pbm.app.web_render import Here, Rendered, Site
from pbm.app.web_urls import URLS, DependsOn, Route
from pbm.config import Config
from pbm.domain.store import Store
from pbm.languages import DEFAULT, LANGUAGES, from_accept_language

from . import health, metrics

log = logging.getLogger("pbm.web")

#: What a page may load: its own style sheet and images; nothing else.
CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; "
       "frame-ancestors 'none'")
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}
#: Rendered pages kept, in bytes (their gzip copies counted too).
CACHE_BYTES = 64 * 1024 * 1024
#: Mail first: while the mail is at work, at most this many requests a second
#: are answered (the others wait their turn).
BUSY_RATE = 400.0
#: ... and for this many seconds after it was last seen at work (a backlog
#: is handled in batches, with IMAP calls between them; replies go out after).
BUSY_LINGER = 0.25
#: Waiting requests are let through together at the ticks of this clock
#: (seconds): one wake-up of the event loop, and one turn of the
#: interpreter's lock taken from the mail, for each group, not each request.
BUSY_TICK = 0.05
#: Types worth compressing.
_COMPRESSIBLE = ("text/", "application/atom+xml", "image/svg+xml")
_ETAGS = re.compile(r'(?:W/)?("[^"]*")')
#: The metrics listener's headers: nothing of it is to be kept.
_METRICS_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}


def utcnow() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


@dataclass
class Entry:
    """A rendered page kept: what it showed (``state``), the database
    version it was last found current at, when it was made (monotonic), and
    its bytes (and a gzip copy), ETags and type."""

    state: object
    version: int
    made: float
    body: bytes
    gzipped: bytes | None
    etag: str
    gzip_etag: str
    content_type: str
    filename: str | None
    language: str | None = None

    @property
    def size(self) -> int:
        return len(self.body) + len(self.gzipped or b"")

    @classmethod
    def of(cls, rendered: Rendered, state: object, version: int) -> Entry:
        body = rendered.body
        digest = hashlib.blake2b(body, digest_size=12).hexdigest()
        gzipped = None
        if rendered.content_type.startswith(_COMPRESSIBLE) and len(body) > 1024:
            gzipped = gzip.compress(body, compresslevel=6, mtime=0)
        return cls(state, version, time.monotonic(), body, gzipped, f'"{digest}"', f'"{digest}-gz"',
                   rendered.content_type, rendered.filename, rendered.language)


class PageCache:
    """Rendered pages by what was asked (least recently used out first,
    past ``limit`` bytes)."""

    def __init__(self, limit: int = CACHE_BYTES) -> None:
        self.limit = limit
        self.entries: OrderedDict[Target, Entry] = OrderedDict()
        self.size = 0
        self.hits = 0
        self.renders = 0

    def get(self, key: Target) -> Entry | None:
        entry = self.entries.get(key)
        if entry is not None:
            self.entries.move_to_end(key)
        return entry

    def put(self, key: Target, entry: Entry) -> None:
        old = self.entries.pop(key, None)
        if old is not None:
            self.size -= old.size
        self.entries[key] = entry
        self.size += entry.size
        while self.size > self.limit and len(self.entries) > 1:
            _, dropped = self.entries.popitem(last=False)
            self.size -= dropped.size


@dataclass(frozen=True)
class Target:
    """What a request asks for: the page (its entry of the URL table), its
    argument (read from the path), the position (``after``), and for a page
    with words its language (``pinned``: chosen with ``?lang=``, so its
    links keep it).  Nothing else of the request: this is the page cache's
    key."""

    route: Route
    arg: Any = None
    after: int | None = None
    language: str = DEFAULT
    pinned: bool = False

    @property
    def of_board(self) -> bool:
        return self.route.depends is DependsOn.BOARD


def _accepts_gzip(header: str) -> bool:
    for part in header.split(","):
        name, _, params = part.strip().partition(";")
        if name.strip().lower() in ("gzip", "*"):
            q = params.strip().lower().replace(" ", "")
            return q not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


def _matches(header: str, etags: tuple[str, ...]) -> bool:
    """Does ``If-None-Match`` name one of ``etags`` (weak comparison)?"""
    if header.strip() == "*":
        return True
    return any(tag in etags for tag in _ETAGS.findall(header))


def language_of(request: web.Request) -> tuple[str, bool]:
    """The language a request asks for, and whether it was chosen with
    ``?lang=`` (True) rather than by the browser: ``?lang=`` when it is
    given once and names one of the languages (any other is ignored), else
    the one ``Accept-Language`` prefers, else English."""
    values = request.query.getall("lang", [])
    if len(values) == 1 and values[0].strip().lower() in LANGUAGES:
        return values[0].strip().lower(), True
    header = request.headers.get("Accept-Language", "")
    return from_accept_language(header) or DEFAULT, False


def _here(request: web.Request) -> Here:
    """Where an error page is (the address asked for, without ``lang``),
    and its language."""
    language, pinned = language_of(request)
    query = [(key, value) for key, value in request.query.items() if key != "lang"]
    path = quote(request.path, safe="/") + (f"?{urlencode(query)}" if query else "")
    return Here(path, language, pinned)


def _move_number(request: web.Request) -> int | None:
    values = request.query.getall("move", [])
    if not values:
        return None
    if len(values) > 1:
        raise BadRequest("move-number-twice")
    value = values[0]
    if not (value.isascii() and value.isdigit()) or len(value) > NUMBER_DIGITS:
        raise BadRequest("move-number-form", {"value": value})
    return int(value)


class WebView:
    """The web view: its aiohttp application, the page cache and the
    rendering thread.  ``stale_seconds``: how long a page that is not a
    board's may be served after the database changed, before it is
    rendered again."""

    def __init__(self, config: Config, *, clock: Callable[[], datetime] = utcnow,
                 stale_seconds: float = 1.0, cache_bytes: int = CACHE_BYTES,
                 busy: Callable[[], bool] | None = None, busy_rate: float = BUSY_RATE) -> None:
        self.config = config
        self.clock = clock
        self.stale_seconds = stale_seconds
        self.busy = busy
        self.busy_rate = busy_rate
        self._next_slot = 0.0
        self._busy_until = 0.0
        self._seen_version: int | None = None
        # two connections, both read only: one for the event loop's quick
        # checks, one for the rendering thread
        self.store = Store(config.server.database)
        self.store.read_only()
        self.pages = Pages(self.store, config)
        render_store = Store(config.server.database)
        render_store.read_only()
        self.site = Site(render_store, config)
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pbm-web")
        self.cache = PageCache(cache_bytes)
        self.inflight: dict[tuple[Target, object], asyncio.Future[Entry]] = {}
        self.errors: OrderedDict[tuple[int, str, Here], bytes] = OrderedDict()
        self.runner: web.AppRunner | None = None
        self.app = self._application()

    # -- the application ---------------------------------------------------

    def _application(self) -> web.Application:
        app = web.Application(middlewares=[self._errors])
        app.on_response_prepare.append(self._secure)
        #: The URL table's entries, each with its aiohttp resource.
        self.routes: list[tuple[Route, web.AbstractResource]] = []
        for index, route in enumerate(URLS):
            if route.depends is DependsOn.NOTHING:
                handler = self._file(route)
            else:
                handler = self._page(index)
            resource = app.router.add_get(route.pattern, handler).resource
            assert resource is not None
            self.routes.append((route, resource))
        return app

    @staticmethod
    async def _secure(request: web.Request, response: web.StreamResponse) -> None:
        response.headers.update(SECURITY_HEADERS)

    async def _pace(self) -> None:
        """Mail first: while the mail is being handled (``busy``, or the
        database changed lately: mail handled, replies sent, the clock
        work), requests are answered one every ``1 / busy_rate`` seconds,
        so that the pages take little of the CPU and of the interpreter's
        lock the mail needs."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        version = self.pages.version()
        if version != self._seen_version or (self.busy is not None and self.busy()):
            if self._seen_version is not None:
                self._busy_until = now + BUSY_LINGER
            self._seen_version = version
        if now >= self._busy_until:
            return
        slot = max(self._next_slot, now)
        self._next_slot = slot + 1.0 / self.busy_rate
        if slot > now:
            await asyncio.sleep(math.ceil(slot / BUSY_TICK) * BUSY_TICK - now)

    @web.middleware
    async def _errors(self, request: web.Request,
                      handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        try:
            await self._pace()
            return await handler(request)
        except PageError as exc:
            return self._error(request, exc.status, exc)
        except web.HTTPException as exc:  # the router's 404 and 405
            if exc.status < 400:
                raise
            code = {404: "no-page", 405: "only-pages"}.get(exc.status)
            response = self._error(request, exc.status, PageError(code) if code else PageError("http-error", {
                "reason": exc.reason}))
            if "Allow" in exc.headers:
                response.headers["Allow"] = exc.headers["Allow"]
            return response
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the web view failed on %s", request.path_qs[:200])
            return self._error(request, 500, PageError("page-failed"))

    def _error(self, request: web.Request, status: int, refusal: PageError) -> web.Response:
        here = _here(request)
        key = (status, str(refusal), here)
        body = self.errors.get(key)
        if body is None:
            body = self.site.error(status, refusal, here)
            self.errors[key] = body
            if len(self.errors) > 256:
                self.errors.popitem(last=False)
        return web.Response(status=status, body=body, headers={
            "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store",
            "Content-Language": here.language, "Vary": "Accept-Language"})

    def _file(self, route: Route) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        entry = Entry.of(route.page(self.site, self.clock()), None, 0)

        async def handler(request: web.Request) -> web.StreamResponse:
            return self._respond(request, entry, cache="public, max-age=3600")
        return handler

    def _page(self, index: int) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def handler(request: web.Request) -> web.StreamResponse:
            return await self._route(request, index)
        return handler

    # -- routes ------------------------------------------------------------

    async def _route(self, request: web.Request, first: int) -> web.StreamResponse:
        """Answer with the first entry of the URL table, from the one aiohttp
        matched on, whose pattern matches the path and whose variable part
        reads; a part that does not (``NotHere``) leaves the path to the
        next entry, and is the 404 when none is left."""
        declined: NotHere | None = None
        for route, resource in self.routes[first:]:
            match, _ = await resource.resolve(request)
            if match is None:
                continue
            value = None
            if route.part is not None:
                text = match[route.part]
                try:
                    value = route.read(self.pages, text)
                except NotHere as exc:
                    declined = exc
                    continue
                location = route.moved(text, value)
                if location is not None:  # one address per page
                    query = f"?{request.query_string}" if request.query_string else ""
                    return web.Response(status=301, headers={"Location": location + query,
                                                             "Cache-Control": "no-cache"})
            after = _move_number(request) if route.move else None
            language, pinned = language_of(request) if route.worded else (DEFAULT, False)
            return await self._serve(request, Target(route, value, after, language, pinned))
        raise declined or NotFound("no-page")

    # -- pages, kept -------------------------------------------------------

    async def _serve(self, request: web.Request, target: Target) -> web.StreamResponse:
        version = self.pages.version()
        entry = self.cache.get(target)
        if entry is not None and (entry.version == version or (
                not target.of_board and time.monotonic() - entry.made < self.stale_seconds)):
            self.cache.hits += 1
            return self._respond(request, entry)
        if target.of_board:
            state: object = self.pages.board_state(target.arg)
            if state is None:
                raise NotFound("no-board", {"board": target.arg})
        else:
            state = (version, self.clock().date())
        if entry is not None and entry.state == state:
            entry.version = version
            self.cache.hits += 1
            return self._respond(request, entry)
        entry = await self._rendered(target, state, version)
        return self._respond(request, entry)

    async def _rendered(self, target: Target, state: object, version: int) -> Entry:
        """The page rendered in the rendering thread, once for all who ask
        for it meanwhile."""
        waiting = self.inflight.get((target, state))
        if waiting is not None:
            return await asyncio.shield(waiting)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Entry] = loop.create_future()
        self.inflight[(target, state)] = future
        try:
            rendered = await loop.run_in_executor(self.executor, self._render, target, self.clock())
            entry = Entry.of(rendered, state, version)
            self.cache.renders += 1
            self.cache.put(target, entry)
            future.set_result(entry)
            return entry
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no warning when nobody else waited
            raise
        finally:
            del self.inflight[(target, state)]

    def _render(self, target: Target, now: datetime) -> Rendered:
        """The page made, in the rendering thread."""
        return target.route.page(self.site, now, target.arg, target.after, language=target.language,
                                 pinned=target.pinned)

    def _respond(self, request: web.Request, entry: Entry, *, cache: str = "no-cache") -> web.StreamResponse:
        gzipped = entry.gzipped is not None and _accepts_gzip(request.headers.get("Accept-Encoding", ""))
        headers = {"ETag": entry.gzip_etag if gzipped else entry.etag, "Cache-Control": cache}
        vary = ["Accept-Encoding"] if entry.gzipped is not None else []
        if entry.language is not None:  # a page with words: one a language
            headers["Content-Language"] = entry.language
            vary.append("Accept-Language")
        if vary:
            headers["Vary"] = ", ".join(vary)
        condition = request.headers.get("If-None-Match")
        if condition is not None and _matches(condition, (entry.etag, entry.gzip_etag)):
            return web.Response(status=304, headers=headers)
        headers["Content-Type"] = entry.content_type
        if entry.filename:
            headers["Content-Disposition"] = f'inline; filename="{entry.filename}"'
        if gzipped:
            headers["Content-Encoding"] = "gzip"
        return web.Response(body=entry.gzipped if gzipped else entry.body, headers=headers)

    # -- running -------------------------------------------------------------

    async def start(self) -> None:
        """Listen on ``[web] host`` and ``port`` (returns once it listens)."""
        self.runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await self.runner.setup()
        await web.TCPSite(self.runner, self.config.web.host, self.config.web.port).start()
        log.info("web view on http://%s:%d/", self.config.web.host, self.port)

    @property
    def port(self) -> int:
        """The port it listens on (the one the system chose for port 0)."""
        assert self.runner is not None
        address = self.runner.addresses[0]
        return int(address[1])

    async def stop(self) -> None:
        """Stop listening, finish the requests under way, close the store."""
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None
        await asyncio.get_running_loop().run_in_executor(self.executor, self.site.pages.store.close)
        self.executor.shutdown(wait=True)
        self.store.close()


class MetricsView:
    """The daemon's ``/metrics`` (Prometheus' text format, :mod:`.metrics`)
    and ``/healthz`` (200 or 503 and a short JSON: is the daemon up,
    :mod:`.health`) on a listener of their own, ``[metrics] host`` and
    ``port``: not the public web view's port, so that what the daemon counts
    is not the world's to read, and a scrape is never paced behind pages.
    Every other path is a 404.  It reads the database through a connection
    of its own that cannot write."""

    def __init__(self, config: Config, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.config = config
        self.clock = clock
        self.store = Store(config.server.database)
        self.store.read_only()
        self.runner: web.AppRunner | None = None
        self.app = web.Application()
        self.app.router.add_get("/metrics", self._metrics)
        self.app.router.add_get("/healthz", self._healthz)

    async def _metrics(self, request: web.Request) -> web.StreamResponse:
        body, kind = metrics.exposition(self.store, self.clock())
        return web.Response(body=body, headers={**_METRICS_HEADERS, "Content-Type": kind})

    async def _healthz(self, request: web.Request) -> web.StreamResponse:
        report = health.check(self.config, self.store)
        return web.json_response(report.as_json(), status=200 if report.healthy else 503,
                                 headers=_METRICS_HEADERS)

    async def start(self) -> None:
        """Listen on ``[metrics] host`` and ``port`` (returns once it
        listens; an OSError, such as the port in use, when it cannot)."""
        runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.config.metrics.host, self.config.metrics.port).start()
        except BaseException:
            await runner.cleanup()
            raise
        self.runner = runner
        log.info("metrics and health on http://%s:%d/metrics", self.config.metrics.host, self.port)

    @property
    def port(self) -> int:
        """The port it listens on (the one the system chose for port 0)."""
        assert self.runner is not None
        return int(self.runner.addresses[0][1])

    async def stop(self) -> None:
        """Stop listening and close the store (also after a failed start)."""
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None
        self.store.close()


async def serve_web(config: Config) -> None:
    """``pbm web``: the web view alone, until SIGTERM or SIGINT."""
    view = WebView(config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await view.start()
    try:
        await stop.wait()
    finally:
        await view.stop()
        log.info("web view stopped")
