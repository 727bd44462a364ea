"""The outbox: replies committed with their command, delivered afterwards.

Replies wait in the database's ``outbox`` table.  :class:`Outbox` sends them
in the order they were queued, through the configured SMTP relay, or, with
no relay configured, into a local Maildir (so the embedded default works on
a machine with no mail set-up).  Each reply is marked sent right after it
went out; when the relay fails, every unsent reply waits (keeping the order
per recipient) and the next attempt comes after a delay that doubles up to a
maximum.  A crash between sending and marking can send that one reply twice;
nothing is ever lost.

In the daemon the outbox runs in a thread of its own (:meth:`Outbox.start`)
with a database connection of its own, so sending never waits for the
pipeline's lock and the pipeline never waits for the relay: SQLite's own
write lock (BEGIN IMMEDIATE, busy timeout) orders the few writes the outbox
makes.  The pipeline wakes it (:meth:`Outbox.wake`) when it queued replies.
"""

from __future__ import annotations

import logging
import mailbox
import smtplib
import sqlite3
import ssl
import threading
import time
from datetime import datetime, timedelta
from email.utils import parseaddr
from pathlib import Path
from typing import Callable

from .config import Config
from .store import Store, is_busy

log = logging.getLogger("pbm.outbox")


def _first_code(exc: smtplib.SMTPRecipientsRefused) -> int:
    codes = [code for code, _ in getattr(exc, "recipients", {}).values()]
    return min(codes) if codes else 0


class Outbox:
    def __init__(self, store: Store, config: Config, clock: Callable[[], datetime]) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        self.delay = config.outbox.retry_initial_seconds
        self._maildir: mailbox.Maildir | None = None
        self._smtp: smtplib.SMTP | None = None
        # every reply with a smaller id is sent or refused: the next query
        # starts there instead of scanning the whole history of the outbox
        self._from_id = 0
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

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

    def flush(self) -> tuple[int, bool]:
        """Send what is due, in order; stop at the first relay failure (every
        unsent reply then waits for the retry time).  Returns (sent, failed)."""
        sent = 0
        for row in self.due():
            outcome, why = self.send(row)
            self.settle(row, outcome, why)
            if outcome == "failed":
                return sent, True
            sent += outcome == "sent"
        return sent, False

    def due(self, limit: int = 200) -> list:
        rows = self.store.unsent_replies(limit, due=self.clock(), from_id=self._from_id)
        if rows:
            self._from_id = rows[0]["id"]
        return rows

    def send(self, row) -> tuple[str, str]:
        """Deliver one reply: ("sent", ""), ("refused", why) for a permanent
        refusal of this reply, or ("failed", why) when the relay is in trouble."""
        if not self.uses_relay:
            self._write_maildir(bytes(row["message"]))
            return "sent", ""
        sender = parseaddr(self.config.server.address)[1]
        try:
            try:
                self._session().sendmail(sender, [row["recipient"]], row["message"])
            except smtplib.SMTPServerDisconnected:
                # the relay closed an idle connection: one fresh try
                self._drop_session()
                self._session().sendmail(sender, [row["recipient"]], row["message"])
            return "sent", ""
        except (smtplib.SMTPRecipientsRefused, smtplib.SMTPDataError) as exc:
            code = getattr(exc, "smtp_code", 0) or _first_code(exc)
            if code >= 500:
                return "refused", f"{type(exc).__name__}: {exc}"
            self._drop_session()
            return "failed", f"{type(exc).__name__}: {exc}"
        except (OSError, smtplib.SMTPException) as exc:
            self._drop_session()
            return "failed", f"{type(exc).__name__}: {exc}"

    def settle(self, row, outcome: str, why: str) -> None:
        """Record what became of a reply (in the store, one transaction).
        A reply sent must be marked sent, or it would go out again: while
        the pipeline keeps the database busy, this waits and tries again."""
        for attempt in range(600):
            try:
                self._settle(row, outcome, why)
                return
            except sqlite3.OperationalError as exc:
                if not is_busy(exc):
                    raise
                log.warning("database busy while marking reply %s; trying again", row["id"])
                time.sleep(0.05)
        self._settle(row, outcome, why)

    def _settle(self, row, outcome: str, why: str) -> None:
        with self.store.atomic():
            if outcome == "sent":
                self.store.mark_sent(row["id"], self.clock())
            elif outcome == "refused":
                log.error("relay refused the reply %s to %s for good: %s", row["id"], row["recipient"], why)
                self.store.mark_refused(row["id"], why, self.clock())
            else:
                retry = self.clock() + timedelta(seconds=self.delay)
                self.store.postpone_unsent(why, retry)
                log.warning("relay failed (%s); retrying in %.1f s", why, self.delay)
        if outcome == "failed":
            self.delay = min(self.delay * 2, self.config.outbox.retry_max_seconds)
        else:
            self.delay = self.config.outbox.retry_initial_seconds

    def close(self) -> None:
        self._drop_session()

    def _session(self) -> smtplib.SMTP:
        """The open relay connection, made when there is none."""
        if self._smtp is None:
            self._smtp = self._connect()
        return self._smtp

    def _drop_session(self) -> None:
        smtp, self._smtp = self._smtp, None
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
            smtp: smtplib.SMTP = smtplib.SMTP_SSL(cfg.host, cfg.port, timeout=timeout, context=ssl.create_default_context())
        else:
            smtp = smtplib.SMTP(cfg.host, cfg.port, timeout=timeout)
            if cfg.tls == "starttls":
                smtp.starttls(context=ssl.create_default_context())
        if cfg.username:
            smtp.login(cfg.username, cfg.password.reveal() if cfg.password else "")
        return smtp

    def _write_maildir(self, message: bytes) -> None:
        if self._maildir is None:
            path = Path(self.config.outbox.maildir)
            path.parent.mkdir(parents=True, exist_ok=True)
            self._maildir = mailbox.Maildir(str(path), create=True)
        self._maildir.add(message)
