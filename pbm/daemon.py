"""The long-running server: intake (IMAP, SMTP), the pipeline, the outbox.

One message is handled at a time (a lock around everything that touches
SQLite), in a worker thread so that the event loop keeps serving IMAP and
SMTP.  Signal handlers only set the stop event; the serve loop then stops
taking mail, lets the message in hand finish, flushes what can be sent and
returns.  Tests stop it by setting :attr:`Daemon.stop` themselves.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from datetime import datetime, timezone
from typing import Callable

from .config import Config
from .inbox import Inbox
from .listener import start_listener
from .outbox import Outbox
from .pipeline import Pipeline
from .store import Store

log = logging.getLogger("pbm.daemon")


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


class Daemon:
    def __init__(self, config: Config, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.config = config
        self.clock = clock
        self.store = Store(config.server.database)
        self.pipeline = Pipeline(self.store, config)
        self.outbox = Outbox(self.store, config, clock)
        self.stop = asyncio.Event()
        self.lock = asyncio.Lock()
        self.wake_outbox = asyncio.Event()
        self.inbox: Inbox | None = None
        self.listener: asyncio.AbstractServer | None = None
        self.handled = 0
        self.failed = 0

    async def handle(self, raw: bytes, source: str) -> bool:
        """Run one mail through the pipeline.  True: handled (answered,
        duplicate or dropped on purpose); False: it crashed the pipeline and
        was set aside (nothing of it was committed)."""
        async with self.lock:
            started = time.perf_counter()
            try:
                result = await asyncio.to_thread(self.pipeline.handle, raw, now=self.clock())
            except Exception as exc:  # a bug or broken mail: set it aside, reply nothing
                self.failed += 1
                log.exception("mail from %s crashed the pipeline: %s", source, exc)
                if source == "smtp":
                    await asyncio.to_thread(self._record_failed, raw, repr(exc))
                return False
            ms = (time.perf_counter() - started) * 1000
        self.handled += 1
        outcome = result.status + (f" ({result.reason})" if result.reason else "")
        log.info(
            "%s from=%s via=%s cmd=%r -> %s, %d replies, %.0f ms",
            result.key, result.sender, source, result.summary, outcome, len(result.replies), ms,
        )
        if result.replies:
            self.wake_outbox.set()
        return True

    def _record_failed(self, raw: bytes, error: str) -> None:
        with self.store.atomic():
            self.store.record_failed_mail("smtp", raw, error, self.clock())

    async def flush_outbox(self) -> int:
        """Send what is due: the reply goes on the wire without the database
        lock, so intake is not held up by a slow relay."""
        async with self.lock:
            rows = await asyncio.to_thread(self.outbox.due)
        sent = 0
        for row in rows:
            outcome, why = await asyncio.to_thread(self.outbox.send, row)
            async with self.lock:
                await asyncio.to_thread(self.outbox.settle, row, outcome, why)
            if outcome == "failed":
                break
            sent += outcome == "sent"
        return sent

    async def _outbox_loop(self) -> None:
        while not self.stop.is_set():
            self.wake_outbox.clear()
            sent = await self.flush_outbox()
            if sent:
                continue  # there may be more
            wait = min(self.outbox.delay, 5.0)
            waker = asyncio.ensure_future(self.wake_outbox.wait())
            stopper = asyncio.ensure_future(self.stop.wait())
            await asyncio.wait({waker, stopper}, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
            for task in (waker, stopper):
                task.cancel()
            await asyncio.gather(waker, stopper, return_exceptions=True)

    async def start(self) -> None:
        """Open the intakes (returns once they listen)."""
        if self.config.listen.enabled:
            self.listener = await start_listener(self.config.listen, self.config.server.address, self.handle)
        if self.config.imap is not None:
            self.inbox = Inbox(self.config.imap, self.handle, self.stop)

    async def run(self, *, install_signals: bool = False) -> None:
        if install_signals:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self.stop.set)
        if self.listener is None and self.inbox is None:
            await self.start()
        tasks = [asyncio.ensure_future(self._outbox_loop())]
        if self.inbox is not None:
            tasks.append(asyncio.ensure_future(self.inbox.run()))
        log.info("serving; replies go %s", "through the relay" if self.outbox.uses_relay else
                 f"to the Maildir {self.config.outbox.maildir}")
        try:
            await self.stop.wait()
        finally:
            self.stop.set()
            if self.listener is not None:
                self.listener.close()
            await asyncio.gather(*tasks, return_exceptions=True)
            if self.listener is not None:
                await self.listener.wait_closed()
            await self.flush_outbox()  # a last try for what is queued
            await asyncio.to_thread(self.outbox.close)
            self.store.close()
            log.info("stopped: %d mails handled, %d failed", self.handled, self.failed)


async def serve(config: Config) -> None:
    daemon = Daemon(config)
    await daemon.start()
    await daemon.run(install_signals=True)
