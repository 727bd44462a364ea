"""The outbox: replies committed with their command, delivered afterwards.

Replies wait in the database's ``outbox`` table.  :class:`Outbox` sends them
in the order they were queued, through the configured SMTP relay, or, with
no relay configured, into a local Maildir (so the embedded default works on
a machine with no mail set-up).  The replies to one mail go out together:
those to different addresses at the same time, over up to ``[outbox]
connections`` relay connections, those to one address one after the other;
then they are marked sent in one transaction.  When the relay fails, every
unsent reply waits (keeping the order per recipient) and the next attempt
comes after a delay that doubles up to a maximum.  Nothing is ever lost.

A crash sends a reply twice at most once per relay connection: the one
the relay had just accepted when the process died.  Marking each reply
sent in the database as it goes would cost the write lock once per reply
(the pipeline's, measured: a third of the outbox's time went waiting for
it), so the replies of a group are still marked in one transaction, and
each reply the relay accepted is also written at once to a *sent journal*
of this process (``DATABASE.sent-PID-N``: its number on a line, one
``pwrite``, no lock, no fsync).  A SIGKILL leaves the file as it was (it
is in the kernel's cache; a power cut may lose it, as it may lose the
last commits with ``synchronous = NORMAL``).  The journal's room is taken
when the outbox starts (:data:`JOURNAL_ROOM`, filled with zero bytes), so
that a full disk, which also keeps the group from being marked, cannot
keep a number out of it either; an outbox that finds the disk full when it
starts sends nothing until it has the room.  The journal is emptied by
writing zeros over what it holds once its group is marked, and a line
counts only when it is whole (digits and its newline, no zero byte).  The
replies this process saw accepted are also kept in memory until they are
marked, so the outbox never sends one again while the database refuses
the mark.  An outbox that starts first marks sent every reply named in any
journal of the database (their relay accepted them) and removes the
journals of processes that are gone.

Each reply goes out with an envelope sender of its own (VERP: ``[server]
bounce_address`` tagged with the reply's number and a keyed hash of it
and its recipient), so that a bounce names the reply it is about; a Maildir
copy records it as ``Return-Path``.  The secrets a reply carries (its
reply token, a one-time code) are written into it here, as it leaves: the
database holds it sealed (:mod:`pbm.domain.seals`).  Sent replies are kept
``[outbox] keep_sent_days`` (to match bounces to them), then deleted.

In the daemon the outbox runs in a thread of its own (:meth:`Outbox.start`)
with a database connection of its own, so sending never waits for the
pipeline's lock and the pipeline never waits for the relay: the store's
write lock (first come, first served within the process, then SQLite's
BEGIN IMMEDIATE) orders the few writes the outbox makes.  The pipeline
wakes it (:meth:`Outbox.wake`) when it queued replies.
"""

from __future__ import annotations

import errno
import itertools
import logging
import mailbox
import os
import smtplib
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path

from pbm.config import Config, tls_context
from pbm.domain.seals import Keyring
from pbm.domain.store import Store, is_busy
from pbm.domain.store.records import QueuedReply

from . import metrics
from .relay import send_message

log = logging.getLogger("pbm.outbox")

#: Replies sent between two marks in the database (those to one mail are
#: never split); the sent journal keeps a crash from sending them again.
GROUP = 16

#: The sent journals of one process are told apart by a number.
_journals = itertools.count(1)

#: Bytes a sent journal takes at start (about 8,000 numbers; a group
#: larger than that goes on growing the file, which a full disk may refuse).
JOURNAL_ROOM = 64 * 1024

#: A journal that cannot take its room for these reasons makes the replies
#: wait (the disk is full, or read-only: the database cannot mark them
#: either); any other (a file system without ``fallocate``) only warns.
_NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS})


def journal_ids(data: bytes) -> set[int]:
    """The reply numbers a sent journal holds: whole lines only (a line cut
    by a crash, or partly overwritten with zeros, is no number)."""
    lines = data.split(b"\n")[:-1]  # what follows the last newline is not a whole line
    return {int(line) for line in lines if line.isdigit()}


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def _first_code(exc: smtplib.SMTPException) -> int:
    codes = [code for code, _ in getattr(exc, "recipients", {}).values()]
    return min(codes) if codes else 0


class Outbox:
    def __init__(self, store: Store, config: Config, clock: Callable[[], datetime],
                 keys: Keyring | None = None) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        self.keys = keys or Keyring.of(config)
        self.delay = config.outbox.retry_initial_seconds
        self._maildir: mailbox.Maildir | None = None
        # open relay connections not in use (at most ``connections`` exist)
        self._idle: list[smtplib.SMTP] = []
        self._idle_lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        # every reply with a smaller id is sent or refused: the next query
        # starts there instead of scanning the whole history of the outbox
        self._from_id = 0
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        # the sent journal (see the module's docstring): none for a database in memory
        database = Path(config.server.database)
        self._journal_dir = None if str(database) == ":memory:" else database.parent
        self._journal_prefix = f"{database.name}.sent-"
        self._journal_path = None if self._journal_dir is None else self._journal_dir / (
            f"{self._journal_prefix}{os.getpid()}-{next(_journals)}")
        self._journal_fd: int | None = None
        self._journal_end = 0  # where the next number goes
        self._journal_room = False  # its room is taken on the disk
        self._journal_warned = False
        self._recovered = False
        # replies in this outbox's journal not yet marked in the database
        # (marking failed: the database read-only, full, gone): never sent again
        self._pending: set[int] = set()

    def envelope(self, row: QueuedReply) -> tuple[str, bytes]:
        """A queued reply as it leaves: its envelope sender (the bounce
        address tagged for it) and its bytes with its secrets written in."""
        recipient = str(row.recipient)
        sender = self.keys.bounce_address(self.config.server.envelope_address, int(row.id), recipient)
        return sender, self.keys.unseal(bytes(row.message), recipient)

    @property
    def uses_relay(self) -> bool:
        return self.config.smtp is not None

    # ------------------------------------------------------------------
    # the sending thread

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="pbm-outbox", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """New replies are queued (cheap; callable from any thread)."""
        self._wake.set()

    def stop(self, timeout: float = 60.0) -> None:
        """Make a last try for what is queued, then end the thread (call once
        the intake has stopped, so that the last replies are in)."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self.close()

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.clear()
            try:
                sent, failed = self.flush()
            except Exception:  # the database busy for long, a bug: log, wait, go on
                log.exception("outbox trouble")
                sent, failed = 0, True
            if sent and not failed:
                continue  # there may be more
            self._wake.wait(min(self.delay, 5.0))
        try:
            self.flush()  # a last try for what is queued
        except Exception:
            log.exception("outbox trouble at stop")

    # ------------------------------------------------------------------
    # the sent journal

    def _open_journal(self) -> bool:
        """Open this outbox's journal and take its room on the disk, if not
        done yet (called with ``_idle_lock`` held).  False when there is no
        room (a full disk): then nothing may be sent, since a crash would
        send it again."""
        if self._journal_path is None or self._journal_room:
            return True
        try:
            if self._journal_fd is None:
                self._journal_fd = os.open(self._journal_path, os.O_RDWR | os.O_CREAT, 0o600)
                self._journal_end = 0
            os.posix_fallocate(self._journal_fd, 0, JOURNAL_ROOM)
        except OSError as exc:
            waits = exc.errno in _NO_ROOM
            if not self._journal_warned:  # once a spell
                log.warning("no room for the sent journal %s (%s): %s", self._journal_path, exc,  # for the operator
                            "replies wait" if waits else "a crash may send a group of replies again")
                self._journal_warned = True
            if waits:
                return False
        self._journal_room, self._journal_warned = True, False
        return True

    def _journal(self, row_id: int) -> None:
        """The relay accepted this reply: say so before anything else can
        happen (one small write; safe from several threads at once)."""
        with self._idle_lock:
            self._pending.add(row_id)  # this process will not send it again, whatever happens below
            if self._journal_path is None:
                return
            line = f"{row_id}\n".encode("ascii")
            try:
                if self._journal_fd is None:  # sent without flush (a test): opened here
                    self._open_journal()
                if self._journal_fd is not None:
                    os.pwrite(self._journal_fd, line, self._journal_end)
                    self._journal_end += len(line)
            except OSError as exc:  # it went out all the same; only a crash now sends it again
                log.warning("could not write the sent journal %s: %s", self._journal_path, exc)  # for the operator

    def _journal_done(self, marked: set[int]) -> None:
        """The replies ``marked`` are marked in the database: forget them,
        and empty the journal once it names nothing else."""
        with self._idle_lock:
            self._pending -= marked
            if self._pending or self._journal_fd is None or not self._journal_end:
                return
            try:  # zeros over what it holds: the room stays taken
                os.pwrite(self._journal_fd, bytes(self._journal_end), 0)
                self._journal_end = 0
            except OSError as exc:
                log.warning("could not empty the sent journal %s: %s", self._journal_path, exc)  # for the operator

    def recover(self) -> int:
        """Mark sent the replies that some outbox's journal (or this one's
        memory) says the relay accepted but that a crash or a database that
        refused the mark kept from being marked; remove the journals of
        processes that are gone.  Returns how many it marked."""
        self._recovered = True
        with self._idle_lock:
            named = set(self._pending)
        stale: list[Path] = []
        if self._journal_dir is not None:
            for path in self._journal_dir.glob(self._journal_prefix + "*"):
                pid = path.name[len(self._journal_prefix):].partition("-")[0]
                try:
                    named |= journal_ids(path.read_bytes())
                except OSError:
                    continue
                if pid.isdigit() and not _pid_alive(int(pid)):
                    stale.append(path)
        marked = 0
        if named:
            rows = self.store.unsent_of(named)
            if rows:
                self.settle([(row, "sent", "") for row in rows])
                marked = len(rows)
                log.warning("%d replies the relay had accepted were marked sent late, "  # for the operator
                            "not sent again", marked)
        self._journal_done(named)
        for path in stale:
            path.unlink(missing_ok=True)
        return marked

    def flush(self) -> tuple[int, bool]:
        """Send what is due, in order, up to :data:`GROUP` replies at a time
        (never splitting the replies to one mail); stop at the first relay
        failure (every unsent reply then waits for the retry time).
        Returns (sent, failed).

        The replies of a group are marked sent together, in one transaction
        once they went out, so the outbox takes the write lock once per
        group instead of once per reply or per mail; the sent journal keeps
        a crash in between from sending them again."""
        if not self._recovered or self._pending:
            self.recover()
        with self._idle_lock:
            if not self._open_journal():
                return 0, True  # retried after the relay's delay, as for a relay in trouble
        sent = 0
        rows = self.due()
        start = 0
        while start < len(rows):
            end = min(start + GROUP, len(rows))
            while end < len(rows) and rows[end].message_key == rows[end - 1].message_key:
                end += 1
            results = self._send_group(rows[start:end])
            start = end
            self.settle(results)
            self._journal_done({int(row.id) for row, outcome, _ in results if outcome == "sent"})
            sent += sum(1 for _, outcome, _ in results if outcome == "sent")
            if any(outcome == "failed" for _, outcome, _ in results):
                return sent, True
        return sent, False

    def _send_group(self, rows: list[QueuedReply]) -> list[tuple[QueuedReply, str, str]]:
        """Send a group of replies over up to ``[outbox] connections`` relay
        connections at once: the replies to one address on one connection,
        one after the other, in order; the addresses shared out so that each
        connection gets one list.  (row, outcome, why) for each reply tried;
        after a relay failure a connection tries nothing more of its list."""
        lanes: dict[str, list[QueuedReply]] = {}
        for row in rows:
            lanes.setdefault(row.recipient.lower(), []).append(row)
        connections = min(self.config.outbox.connections, len(lanes))
        if connections <= 1 or not self.uses_relay:
            return self._send_lane(rows)
        shares: list[list[QueuedReply]] = [[] for _ in range(connections)]
        for lane in sorted(lanes.values(), key=len, reverse=True):  # the longest lists first, each to the lightest
            min(shares, key=len).extend(lane)
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.config.outbox.connections, thread_name_prefix="pbm-smtp")
        futures = [self._pool.submit(self._send_lane, share) for share in shares[1:]]
        first = self._send_lane(shares[0])  # this thread takes a share too, instead of waiting idle
        return first + [result for future in futures for result in future.result()]

    def _send_lane(self, rows: list[QueuedReply]) -> list[tuple[QueuedReply, str, str]]:
        out = []
        for row in rows:
            outcome, why = self.send(row)
            out.append((row, outcome, why))
            if outcome == "failed":
                break
        return out

    def due(self, limit: int = 200) -> list[QueuedReply]:
        rows = self.store.unsent_replies(limit, due=self.clock(), from_id=self._from_id)
        if rows:
            self._from_id = rows[0].id
        return rows

    def send(self, row: QueuedReply) -> tuple[str, str]:
        """Deliver one reply: ("sent", ""), ("refused", why) for a permanent
        refusal of this reply, or ("failed", why) when the relay is in trouble.
        Safe to call from several threads at once (each takes a connection
        of its own)."""
        sender, message = self.envelope(row)
        if not self.uses_relay:
            self._write_maildir(f"Return-Path: <{sender}>\r\n".encode("ascii") + message)
            self._journal(int(row.id))
            return "sent", ""
        smtp = None
        try:
            smtp = self._lease()
            try:
                send_message(smtp, sender, row.recipient, message)
            except smtplib.SMTPServerDisconnected:
                # the relay closed an idle connection: one fresh try
                self._discard(smtp)
                smtp = None
                smtp = self._connect()
                send_message(smtp, sender, row.recipient, message)
            self._journal(int(row.id))  # first: a crash from here on does not send it again
            self._give_back(smtp)
            return "sent", ""
        except (smtplib.SMTPRecipientsRefused, smtplib.SMTPDataError) as exc:
            code = getattr(exc, "smtp_code", 0) or _first_code(exc)
            if code >= 500:
                self._give_back(smtp)  # the session is fine: smtplib reset it
                return "refused", f"{type(exc).__name__}: {exc}"
            self._discard(smtp)
            return "failed", f"{type(exc).__name__}: {exc}"
        except (OSError, smtplib.SMTPException) as exc:
            self._discard(smtp)
            return "failed", f"{type(exc).__name__}: {exc}"

    def settle(self, results: list[tuple[QueuedReply, str, str]]) -> None:
        """Record what became of replies, (row, outcome, why) each, in one
        transaction.  A reply sent must be marked sent, or it would go out
        again: while the pipeline keeps the database busy, this waits and
        tries again."""
        for _ in range(600):
            try:
                self._settle(results)
                return
            except sqlite3.OperationalError as exc:
                if not is_busy(exc):
                    raise
                log.warning("database busy while marking reply %s; trying again", results[0][0].id)
                time.sleep(0.05)
        self._settle(results)

    def _settle(self, results: list[tuple[QueuedReply, str, str]]) -> None:
        failures = [why for _, outcome, why in results if outcome == "failed"]
        with self.store.atomic():
            now = self.clock()
            for row, outcome, why in results:
                if outcome == "sent":
                    self.store.mark_sent(row.id, now)
                elif outcome == "refused":
                    log.error("relay refused the reply %s to %s for good: %s", row.id, row.recipient, why)
                    self.store.mark_refused(row.id, why, now)
            if failures:
                retry = now + timedelta(seconds=self.delay)
                self.store.postpone_unsent(failures[0], retry)
                log.warning("relay failed (%s); retrying in %.1f s", failures[0], self.delay)
        for row, outcome, _ in results:  # counted once committed
            metrics.reply_settled(outcome, row.created_at, now)
        if failures:
            self.delay = min(self.delay * 2, self.config.outbox.retry_max_seconds)
        else:
            self.delay = self.config.outbox.retry_initial_seconds

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        with self._idle_lock:
            idle, self._idle = self._idle, []
        for smtp in idle:
            self._discard(smtp)
        if self._journal_fd is not None:
            os.close(self._journal_fd)
            self._journal_fd = None
            if self._journal_path is not None and not self._pending:
                self._journal_path.unlink(missing_ok=True)  # nothing in it left to mark

    def _lease(self) -> smtplib.SMTP:
        """An open relay connection not in use, made when there is none."""
        with self._idle_lock:
            if self._idle:
                return self._idle.pop()
        return self._connect()

    def _give_back(self, smtp: smtplib.SMTP | None) -> None:
        if smtp is not None:
            with self._idle_lock:
                self._idle.append(smtp)

    @staticmethod
    def _discard(smtp: smtplib.SMTP | None) -> None:
        if smtp is not None:
            try:
                smtp.quit()
            except (OSError, smtplib.SMTPException):
                smtp.close()

    def _connect(self) -> smtplib.SMTP:
        cfg = self.config.smtp
        assert cfg is not None
        timeout = 30
        if cfg.tls == "ssl":
            smtp: smtplib.SMTP = smtplib.SMTP_SSL(cfg.host, cfg.port, timeout=timeout, context=tls_context(cfg.ca_file))
        else:
            smtp = smtplib.SMTP(cfg.host, cfg.port, timeout=timeout)
        try:
            if cfg.tls == "starttls":
                # refused (SMTPNotSupportedError) when the relay does not
                # offer it: nothing goes out in plain text then
                smtp.starttls(context=tls_context(cfg.ca_file))
            if cfg.username:
                smtp.login(cfg.username, cfg.password.reveal() if cfg.password else "")
        except BaseException:
            smtp.close()
            raise
        return smtp

    def _write_maildir(self, message: bytes) -> None:
        if self._maildir is None:
            path = Path(self.config.outbox.maildir)
            path.parent.mkdir(parents=True, exist_ok=True)
            self._maildir = mailbox.Maildir(str(path), create=True)
        self._maildir.add(message)
