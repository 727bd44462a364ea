"""The long-running server: intake (IMAP, SMTP), the pipeline, the outbox,
and the clock work every ``[games] clock_interval_seconds``.

One message is handled at a time (a lock around the pipeline), in a worker
thread so that the event loop keeps serving IMAP and SMTP; a batch fetched
over IMAP goes to the worker thread in one call.  The outbox sends from a
thread of its own with its own database connection (see :mod:`.outbox`).
Signal handlers only set the stop event; the serve loop then stops taking
mail, lets the message in hand finish, flushes what can be sent and returns.
While it runs, the daemon holds the database's lock file and touches it as a
heartbeat (:mod:`.health`), counts what it does (:mod:`.metrics`, served
with ``/healthz`` on the metrics listener, :class:`.web.MetricsView`), and
tells systemd when it is ready and when it stops (:mod:`.systemd`).
Tests stop it by setting :attr:`Daemon.stop` themselves.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import re
import signal
import sqlite3
import time
from collections.abc import Callable
from contextlib import nullcontext
from datetime import UTC, datetime

from pbm.ai.review import Review
from pbm.app.pipeline import Pipeline, Result
from pbm.app.ticker import run_tick
from pbm.config import Config
from pbm.domain import computer, limits
from pbm.domain.computer import Answer
from pbm.domain.context import Context
from pbm.domain.store import Store, is_busy

from . import metrics
from .health import HEARTBEAT_SECONDS, DatabaseLock
from .inbox import Inbox
from .listener import start_listener
from .logtext import line as log_line
from .outbox import Outbox
from .searcher import Searcher
from .systemd import notify
from .web import MetricsView, WebView

log = logging.getLogger("pbm.daemon")

#: Mails that crashed the pipeline kept a day, at most, and from one sender.
FAILED_PER_DAY = 100
FAILED_PER_SENDER_PER_DAY = 10
_FROM_LINE = re.compile(rb"^From:([^\r\n]{0,300})", re.MULTILINE | re.IGNORECASE)


def utcnow() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def machine_trouble(exc: BaseException) -> bool:
    """Did handling a mail fail for the machine's sake (a full disk, a
    read-only or busy database), so that the same mail will go through
    later?  Such a mail is not set aside as failed: the mail server (or the
    IMAP inbox) keeps it and hands it over again."""
    if isinstance(exc, sqlite3.OperationalError):
        text = str(exc).lower()
        return is_busy(exc) or any(word in text for word in ("full", "readonly", "disk i/o", "unable to open"))
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EIO)


class Daemon:
    def __init__(self, config: Config, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.config = config
        self.clock = clock
        self.store = Store(config.server.database)
        self.pipeline = Pipeline(self.store, config)
        # the outbox has a connection of its own (it sends from its own thread)
        self.outbox = Outbox(Store(config.server.database), config, clock)
        self.stop = asyncio.Event()
        self.lock = asyncio.Lock()
        self.inbox: Inbox | None = None
        self.listener: asyncio.AbstractServer | None = None
        self.web: WebView | None = None  # the read-only web view ([web] enabled)
        self.metrics_view: MetricsView | None = None  # /metrics and /healthz ([metrics] enabled)
        self._metrics_tried = False
        # held while the daemon runs: one daemon per database, no restore under it; touched as a heartbeat
        self.database_lock = DatabaseLock(config.server.database)
        self.handled = 0
        self.failed = 0
        self.searcher = (Searcher(config, self.apply_computer, self.stop, clock, self.apply_analysis)
                         if config.computer.enabled else None)

    async def handle(self, raw: bytes, source: str) -> bool:
        """Run one mail through the pipeline.  True: handled (answered,
        duplicate or dropped on purpose); False: it crashed the pipeline and
        was set aside (nothing of it was committed)."""
        return (await self.handle_many([(raw, source)]))[0]

    async def handle_many(self, mails: list[tuple[bytes, str]]) -> list[bool]:
        """Run mails through the pipeline, one after the other, in one call to
        the worker thread; what :meth:`handle` says for each.  When the
        daemon is stopping the list ends early: the mails left out were not
        touched."""
        async with self.lock:
            out = await asyncio.to_thread(self._handle_many, mails)
        if self.searcher is not None:  # a move may have given the computer its turn
            self.searcher.wake()
        return out

    async def apply_computer(self, job_id: int, answer: Answer) -> None:
        """The computer's answer for a job, played through the pipeline
        under the same lock as the mail."""
        async with self.lock:
            result = await asyncio.to_thread(self.pipeline.computer_turn, job_id, answer, now=self.clock())
        log.info("%s", log_line("%s: %s, %d replies", result.key, result.summary or result.reason, len(result.sent)))
        if result.sent:
            self.outbox.wake()

    async def apply_analysis(self, analysis_id: int, found: Review) -> None:
        """A finished analysis, mailed through the pipeline under the same
        lock as the mail."""
        async with self.lock:
            result = await asyncio.to_thread(self.pipeline.analysis_done, analysis_id, found, now=self.clock())
        log.info("%s", log_line("%s: %s, %d replies", result.key, result.summary or result.reason, len(result.sent)))
        if result.sent:
            self.outbox.wake()

    def _handle_many(self, mails: list[tuple[bytes, str]]) -> list[bool]:
        """The mails one after the other.  Several (an IMAP batch) are
        committed together: each mail's transaction is then a savepoint of
        one transaction for the batch (group commit: BEGIN and COMMIT once,
        and the batch's pages written to the log once).  Exactly once still
        holds: the inbox moves the mails out only after this returns, so a
        crash before the COMMIT leaves every mail of the batch in the inbox
        and nothing of them in the database; a mail that broke the pipeline
        rolls back its own savepoint only; machine trouble (a full disk)
        rolls back the batch and leaves it in the inbox."""
        out: list[bool] = []
        replied = False
        try:
            with self.store.atomic() if len(mails) > 1 else nullcontext():
                for raw, source in mails:
                    if out and self.stop.is_set():
                        break
                    handled, replies = self._handle_one(raw, source)
                    out.append(handled)
                    replied = replied or replies > 0
        finally:
            if replied:  # once a batch, committed: the outbox then sends the batch's replies together
                self.outbox.wake()
        return out

    def _handle_one(self, raw: bytes, source: str) -> tuple[bool, int]:
        """Whether the mail was handled (see :meth:`handle`), and how many
        replies it queued."""
        started = time.perf_counter()
        try:
            result = self._handle_waiting(raw)
        except Exception as exc:  # a bug or broken mail: set it aside, reply nothing
            if machine_trouble(exc):
                raise  # the disk or the database, not the mail: its sender keeps it and tries again
            self.failed += 1
            metrics.mail(source, "failed")
            log.exception("%s", log_line("mail from %s crashed the pipeline: %s", source, exc))
            if source in ("smtp", "lmtp"):
                self._record_failed(raw, repr(exc))
            return False, 0
        ms = (time.perf_counter() - started) * 1000
        self.handled += 1
        metrics.mail(source, result.status)
        metrics.commands(result.commands)
        outcome = result.status + (f" ({result.reason})" if result.reason else "")
        log.info("%s", log_line(
            "%s from=%s via=%s cmd=%r -> %s, %d replies, %.0f ms",
            result.key, result.sender, source, result.summary, outcome, len(result.sent), ms,
        ))
        return True, len(result.sent)

    async def tick(self) -> int:
        """The clock work once (reminders, forfeits, tournament starts), under
        the pipeline's lock; how many mails it queued."""
        async with self.lock:
            try:
                messages = await asyncio.to_thread(run_tick, self.pipeline, self.clock())
            except Exception:
                log.exception("the clock work failed")
                return 0
        if messages:
            self.outbox.wake()
        return len(messages)

    async def _clock_loop(self) -> None:
        """The clock work at start and every ``clock_interval_seconds``."""
        interval = self.config.games.clock_interval_seconds
        while not self.stop.is_set():
            await self.tick()
            try:
                await asyncio.wait_for(self.stop.wait(), timeout=interval)
            except TimeoutError:
                pass

    def _handle_waiting(self, raw: bytes) -> Result:
        """The pipeline on one mail; a database kept busy by the outbox's
        connection for longer than the busy timeout is waited out (nothing
        was committed), not taken for a mail that crashed the pipeline."""
        for attempt in range(20):
            try:
                return self.pipeline.handle(raw, now=self.clock())
            except sqlite3.OperationalError as exc:
                if not is_busy(exc) or self.stop.is_set():
                    raise
                log.warning("database busy; handling the mail again (attempt %d)", attempt + 2)
                time.sleep(0.2)
        return self.pipeline.handle(raw, now=self.clock())

    async def _with_lock(self, work: Callable[[], bool]) -> bool:
        """``work`` on the pipeline's connection, in a worker thread, under
        the pipeline's lock (mail may already be coming in)."""
        async with self.lock:
            return await asyncio.to_thread(work)

    def _computer_account(self) -> bool:
        """Make the computer's account when missing (under the pipeline's
        connection, before any mail); False when its userid is a person's."""
        account = computer.ensure_account(self.store, self.config, self.clock())
        if account is None:
            log.error("the userid %r belongs to a person: the computer player is off "
                      "(choose another [computer] userid)", self.config.computer.userid)
        return account is not None

    def _record_failed(self, raw: bytes, error: str) -> None:
        """Keep a mail that crashed the pipeline for the operator: its first
        ``[limits] max_message_bytes`` at most, and no more than
        :data:`FAILED_PER_DAY` a day, :data:`FAILED_PER_SENDER_PER_DAY` of
        them from one From line (the rest are only logged)."""
        now = self.clock()
        ctx = Context(self.store, self.config, now)
        found = _FROM_LINE.search(raw[:65536])
        sender = found.group(1).strip().decode("ascii", "replace") if found else "(no From)"
        with self.store.atomic():
            if not (limits.spend(ctx, "failed mail", "smtp", FAILED_PER_DAY)
                    and limits.spend(ctx, "failed mail from", sender, FAILED_PER_SENDER_PER_DAY)):
                log.error("failed mail not kept: the day's share of failed mail is used up")
                return
            limit = self.config.limits.max_message_bytes
            if len(raw) > limit:
                error += f" (only the first {limit:,} of {len(raw):,} bytes kept)"
            self.store.record_failed_mail("smtp", raw[:limit], error, now)

    async def start(self) -> None:
        """Take the database's lock (:class:`.health.AlreadyRunning` when
        another daemon holds it), open the intakes (returns once they listen)."""
        await asyncio.to_thread(self.database_lock.acquire)
        try:
            await self._open_intakes()
        except BaseException:  # a port in use ...: the lock goes with the failed start
            self.database_lock.release()
            raise

    async def _open_intakes(self) -> None:
        if self.config.listen.enabled:
            self.listener = await start_listener(self.config.listen, self.config.server, self.handle)
        if self.config.imap is not None:
            self.inbox = Inbox(self.config.imap, self.handle_many, self.stop)
        if self.config.web.enabled and self.web is None:
            self.web = WebView(self.config, busy=self.lock.locked)  # mail first: pages paced while it works
            await self.web.start()
        if self.config.metrics.enabled and not self._metrics_tried:
            self._metrics_tried = True
            await self._start_metrics()

    async def _start_metrics(self) -> None:
        """The metrics listener, with or without the web view.  A port it
        cannot have (another program's) is logged, not fatal: the mail
        matters more than its counters (``pbm check-config`` says it first)."""
        view = MetricsView(self.config, clock=self.clock)
        try:
            await view.start()
        except OSError as exc:
            await view.stop()
            log.error("no metrics and health: cannot listen on %s:%d (%s); the daemon runs without them "
                      "(choose another [metrics] port, or enabled = false)",
                      self.config.metrics.host, self.config.metrics.port, exc.strerror or exc)
            return
        self.metrics_view = view

    def install_signal_handlers(self) -> None:
        """SIGTERM and SIGINT set the stop event (before systemd hears that
        the daemon is ready, so that a stop right after never kills it)."""
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stop.set)

    async def run(self, *, install_signals: bool = False) -> None:
        if install_signals:
            self.install_signal_handlers()
        if self.listener is None and self.inbox is None:
            await self.start()
        self.outbox.start()
        tasks = [asyncio.ensure_future(self._clock_loop()), asyncio.ensure_future(self._heartbeat())]
        if self.searcher is not None and await self._with_lock(self._computer_account):
            tasks.append(asyncio.ensure_future(self.searcher.run()))
        if self.inbox is not None:
            tasks.append(asyncio.ensure_future(self.inbox.run()))
        log.info("serving; replies go %s", "through the relay" if self.outbox.uses_relay else
                 f"to the Maildir {self.config.outbox.maildir}")
        try:
            await self.stop.wait()
        finally:
            notify("STOPPING=1")
            self.stop.set()
            if self.listener is not None:
                self.listener.close()
            await asyncio.gather(*tasks, return_exceptions=True)
            if self.listener is not None:
                await self.listener.wait_closed()
            if self.web is not None:
                await self.web.stop()
            if self.metrics_view is not None:
                await self.metrics_view.stop()
            await asyncio.to_thread(self.outbox.stop)  # a last try for what is queued
            self.outbox.store.close()
            self.store.close()
            self.database_lock.release()
            log.info("stopped: %d mails handled, %d failed", self.handled, self.failed)

    async def _heartbeat(self) -> None:
        """Touch the lock file every :data:`.health.HEARTBEAT_SECONDS`
        while the event loop runs (``pbm status`` reads its age)."""
        while not self.stop.is_set():
            try:
                self.database_lock.beat()
            except OSError as exc:
                log.warning("heartbeat not written: %s", exc)
            try:
                await asyncio.wait_for(self.stop.wait(), timeout=HEARTBEAT_SECONDS)
            except TimeoutError:
                pass


async def serve(config: Config) -> None:
    daemon = Daemon(config)
    await daemon.start()
    if not config.listen.enabled and config.imap is None:
        log.warning("no intake of its own ([listen] off, no [imap]): mail must come by pbm deliver; "
                    "this daemon sends the replies and does the clock work")
    daemon.install_signal_handlers()
    notify("READY=1")  # systemd (Type=notify): the intakes listen
    await daemon.run()
