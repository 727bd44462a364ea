"""IMAP intake (aioimaplib): fetch each new mail, hand it over, file it away.

Every message in the watched mailbox is unhandled by definition: once the
pipeline has committed it, it is moved to the processed folder; a mail that
crashed the pipeline is moved to the failed folder.  If the daemon dies
between the commit and the move, the mail is fetched again after a restart
and the pipeline recognises it by its Message-ID (handled once).

With IDLE (when the server offers it and the config allows it) new mail is
pushed; otherwise the mailbox is polled: NOOP first (Dovecot answers a
search from its view as of the previous command), then UID SEARCH of the
first 500 messages, handled before the next search, so no command is about
more than 500 messages however long the queue (aioimaplib cannot parse much
longer responses).
Every call has a timeout; a lost connection is retried with back-off.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import aioimaplib

from pbm.config import ImapConfig, tls_context

from . import metrics
from .logtext import line as log_line

T = TypeVar("T")

log = logging.getLogger("pbm.inbox")
_UID = re.compile(rb"UID (\d+)")

SEARCH_CHUNK = 500  # messages per UID SEARCH (then handled before the next search)
FETCH_BATCH = 25  # messages per UID FETCH (aioimaplib copes with up to about 500)
MOVE_BATCH = 50
CALL_TIMEOUT = 60.0

# Called with a batch of (raw bytes, source); returns, for each mail in order,
# True when it was handled (move it to processed) and False when it crashed
# the pipeline (move it to failed).  A shorter list means the daemon is
# stopping: the mails left out were not touched.
Handler = Callable[[list[tuple[bytes, str]]], Awaitable[list[bool]]]


class ImapTrouble(Exception):
    pass


def _ok(response: Any, what: str) -> Any:
    if response.result != "OK":
        raise ImapTrouble(f"{what}: {response.result} {response.lines!r}")
    return response


class Inbox:
    def __init__(self, config: ImapConfig, handle: Handler, stop: asyncio.Event) -> None:
        self.config = config
        self.handle = handle
        self.stop = stop
        self.imap: aioimaplib.IMAP4 | None = None
        self._missing: dict[int, int] = {}  # UID -> times FETCH did not return it

    async def run(self) -> None:
        """Until ``stop`` is set: connect, drain, wait for more; reconnect with
        back-off (1 s doubling to 60 s) when anything goes wrong."""
        delay = 1.0
        while not self.stop.is_set():
            try:
                await self._session()
                delay = 1.0
            except (TimeoutError, OSError, ImapTrouble, aioimaplib.Abort, aioimaplib.CommandTimeout) as exc:
                metrics.IMAP_RECONNECTS.inc()
                log.warning("%s", log_line("IMAP connection trouble (%s: %s); reconnecting in %.0f s",
                                       type(exc).__name__, exc, delay))
            except Exception:  # a server answer aioimaplib chokes on, a bug: intake must go on
                metrics.IMAP_RECONNECTS.inc()
                log.exception("IMAP intake failed unexpectedly; reconnecting in %.0f s", delay)
            finally:
                await self._close()
            if self.stop.is_set():
                break
            try:
                await asyncio.wait_for(self.stop.wait(), timeout=delay)
            except TimeoutError:
                pass
            delay = min(delay * 2, 60.0)

    async def _call(self, coro: Awaitable[T]) -> T:
        return await asyncio.wait_for(coro, timeout=CALL_TIMEOUT)

    async def _session(self) -> None:
        cfg = self.config
        if cfg.tls == "ssl":
            imap = aioimaplib.IMAP4_SSL(cfg.host, cfg.port, timeout=CALL_TIMEOUT, ssl_context=tls_context(cfg.ca_file))
        else:
            imap = aioimaplib.IMAP4(cfg.host, cfg.port, timeout=CALL_TIMEOUT)
        self.imap = imap
        await self._call(imap.wait_hello_from_server())
        if cfg.tls == "starttls":
            await self._starttls(imap)
        _ok(await self._call(imap.login(cfg.username, cfg.password.reveal())), "LOGIN")
        for folder in (cfg.processed_mailbox, cfg.failed_mailbox):
            await self._call(imap.create(folder))  # NO when it exists: fine
        _ok(await self._call(imap.select(cfg.mailbox)), "SELECT")
        use_idle = cfg.idle and imap.has_capability("IDLE")
        log.info("IMAP connected to %s:%s (%s)", cfg.host, cfg.port, "IDLE" if use_idle else "polling")
        while not self.stop.is_set():
            # drain until a search finds nothing: mail that came in meanwhile
            # is taken at once instead of after the next IDLE push (which
            # Dovecot sends about half a second late)
            while await self.drain() and not self.stop.is_set():
                pass
            if self.stop.is_set():
                break
            if use_idle:
                await self._idle()
            else:
                try:
                    await asyncio.wait_for(self.stop.wait(), timeout=cfg.poll_interval_seconds)
                except TimeoutError:
                    pass

    async def _starttls(self, imap: aioimaplib.IMAP4) -> None:
        """aioimaplib has no STARTTLS of its own: send the command, then
        upgrade the connection under the same protocol object."""
        protocol = imap.protocol
        command = aioimaplib.Command("STARTTLS", protocol.new_tag(), loop=asyncio.get_running_loop())
        _ok(await self._call(protocol.execute(command)), "STARTTLS")
        loop = asyncio.get_running_loop()
        transport = await loop.start_tls(
            protocol.transport, protocol, tls_context(self.config.ca_file), server_hostname=self.config.host
        )
        protocol.transport = transport
        await self._call(protocol.capability())

    async def drain(self) -> int:
        """Handle every message now in the mailbox; return how many (or 1
        when it stopped short to keep the order, and must be called again)."""
        imap = self.imap
        assert imap is not None
        _ok(await self._call(imap.noop()), "NOOP")
        # the first SEARCH_CHUNK messages (by sequence number, so the oldest),
        # however many wait: the rest come in the next round, once these are
        # moved out.  A server that refuses a range past its last message
        # (RFC 3501 allows BAD) holds fewer than that: then ALL is as short.
        response = await self._call(imap.uid_search(f"1:{SEARCH_CHUNK}"))
        if response.result != "OK":
            response = _ok(await self._call(imap.uid_search("ALL")), "UID SEARCH")
        uids = [int(w) for line in response.lines[:-1] for w in bytes(line).split() if w.isdigit()]
        done = 0
        # handled mail is moved in batches: a mail handled but not yet moved
        # when the daemon dies is fetched again later and recognised as a
        # duplicate, so batching costs nothing in safety
        moves: dict[str, list[int]] = {self.config.processed_mailbox: [], self.config.failed_mailbox: []}
        batches = [uids[start:start + FETCH_BATCH] for start in range(0, len(uids), FETCH_BATCH)]
        # the next batch is fetched while the pipeline works on this one (in
        # its thread), so that the two overlap; no two IMAP commands are ever
        # in flight at once: moves wait until that fetch is in
        ahead: asyncio.Future[list[tuple[int, bytes]]] | None = None
        try:
            for number, batch in enumerate(batches):
                fetched = await (ahead if ahead is not None else self._fetch(batch))
                ahead = None
                cut = self._keep_order(batch, fetched)
                if cut is not None:
                    fetched = fetched[:cut]
                if self.stop.is_set():
                    return done
                if cut is None and number + 1 < len(batches):
                    ahead = asyncio.ensure_future(self._fetch(batches[number + 1]))
                results = await self.handle([(raw, f"imap uid {uid}") for uid, raw in fetched]) if fetched else []
                if ahead is not None:
                    await asyncio.wait({ahead})  # the connection is free again
                for (uid, _), handled in zip(fetched, results):
                    target = self.config.processed_mailbox if handled else self.config.failed_mailbox
                    moves[target].append(uid)
                    done += 1
                    if len(moves[target]) >= MOVE_BATCH:
                        await self._move(moves[target], target)
                        moves[target] = []
                if len(results) < len(fetched):
                    return done  # stopping
                if cut is not None:
                    return max(done, 1)  # search again: the message missing comes first
        finally:
            if ahead is not None:  # stopping: what it fetched stays in the mailbox for next time
                await asyncio.gather(ahead, return_exceptions=True)
            for target, batch in moves.items():
                if batch and self.imap is not None:
                    await self._move(batch, target)
        return done

    def _keep_order(self, batch: list[int], fetched: list[tuple[int, bytes]]) -> int | None:
        """When a message of the batch did not come back (its answer was not
        read, or it is gone), only the messages before it are handled now,
        so that mail is never handled out of order (a move overtaking the one
        before it would be refused); the next search takes it again.  A
        message missing three times running is left behind, with a warning.
        Returns how many of ``fetched`` to handle now, or None for all."""
        got = {uid for uid, _ in fetched}
        for uid in got & self._missing.keys():
            del self._missing[uid]
        missing = [uid for uid in batch if uid not in got]
        if not missing:
            return None
        first = missing[0]
        tries = self._missing.get(first, 0) + 1
        self._missing[first] = tries
        if tries >= 3:
            log.warning("IMAP UID %s could not be fetched %d times; going on without it", first, tries)
            return None
        log.warning("IMAP UID %s did not come back from FETCH; taking it again before what follows", first)
        return sum(1 for uid, _ in fetched if uid < first)

    async def _fetch(self, uids: list[int]) -> list[tuple[int, bytes]]:
        """The raw messages of these UIDs, in UID order (one FETCH command;
        a message gone meanwhile is simply missing)."""
        assert self.imap is not None
        response = _ok(
            await self._call(self.imap.uid("fetch", ",".join(map(str, uids)), "(UID BODY.PEEK[])")), "UID FETCH"
        )
        found: dict[int, bytes] = {}
        uid = None
        for line in response.lines:
            if isinstance(line, bytearray):
                if uid is not None:
                    found[uid] = bytes(line)
                uid = None
            else:
                match = _UID.search(bytes(line))
                uid = int(match.group(1)) if match else None
        return [(u, found[u]) for u in uids if u in found]

    async def _move(self, uids: list[int], folder: str) -> None:
        imap = self.imap
        assert imap is not None
        uid_set = ",".join(str(u) for u in uids)
        if imap.has_capability("MOVE"):
            _ok(await self._call(imap.uid("move", uid_set, folder)), "UID MOVE")
            return
        _ok(await self._call(imap.uid("copy", uid_set, folder)), "UID COPY")
        _ok(await self._call(imap.uid("store", uid_set, "+FLAGS.SILENT", r"(\Deleted)")), "UID STORE")
        if imap.has_capability("UIDPLUS"):
            # only these: a message someone else marked deleted stays
            _ok(await self._call(imap.uid("expunge", uid_set)), "UID EXPUNGE")
        else:
            # every message marked deleted in the mailbox goes (the
            # mailbox should be the server's own)
            _ok(await self._call(imap.expunge()), "EXPUNGE")

    async def _idle(self) -> None:
        imap = self.imap
        assert imap is not None
        idle = await self._call(imap.idle_start(timeout=max(self.config.poll_interval_seconds, 30)))
        push = asyncio.ensure_future(imap.wait_server_push(timeout=self.config.poll_interval_seconds))
        stopping = asyncio.ensure_future(self.stop.wait())
        try:
            await asyncio.wait({push, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (push, stopping):
                if not task.done():
                    task.cancel()
            await asyncio.gather(push, stopping, return_exceptions=True)
            if imap.has_pending_idle():
                imap.idle_done()
            await asyncio.wait_for(idle, timeout=CALL_TIMEOUT)

    async def _close(self) -> None:
        imap, self.imap = self.imap, None
        if imap is None:
            return
        try:
            await asyncio.wait_for(imap.logout(), timeout=5)
        except Exception:  # the connection is already gone: nothing to tidy
            pass
        finally:
            # aioimaplib leaves the socket to the server's hang-up after
            # LOGOUT, which a loop about to close may never read
            transport = getattr(imap.protocol, "transport", None)
            if transport is not None:
                transport.close()
