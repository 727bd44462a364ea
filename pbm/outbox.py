"""The outbox: replies committed with their command, delivered afterwards.

Replies wait in the database's ``outbox`` table.  :class:`Outbox` sends them
in the order they were queued, through the configured SMTP relay, or, with
no relay configured, into a local Maildir (so the embedded default works on
a machine with no mail set-up).  Each reply is marked sent right after it
went out; when the relay fails, every unsent reply waits (keeping the order
per recipient) and the next attempt comes after a delay that doubles up to a
maximum.  A crash between sending and marking can send that one reply twice;
nothing is ever lost.
"""

from __future__ import annotations

import logging
import mailbox
import smtplib
import ssl
from datetime import datetime, timedelta
from email.utils import parseaddr
from pathlib import Path
from typing import Callable

from .config import Config
from .store import Store

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

    @property
    def uses_relay(self) -> bool:
        return self.config.smtp is not None

    def flush(self, limit: int = 200) -> int:
        """Send what is due (blocking; the daemon runs it in a thread).
        Returns how many replies went out; raises nothing on relay trouble."""
        due = self.store.unsent_replies(limit, due=self.clock())
        if not due:
            return 0
        if not self.uses_relay:
            return self._to_maildir(due)
        sent = 0
        try:
            with self._connect() as smtp:
                sender = parseaddr(self.config.server.address)[1]
                for row in due:
                    try:
                        smtp.sendmail(sender, [row["recipient"]], row["message"])
                    except (smtplib.SMTPRecipientsRefused, smtplib.SMTPDataError) as exc:
                        code = getattr(exc, "smtp_code", 0) or _first_code(exc)
                        if code < 500:
                            raise
                        # refused for good: keep it for the operator, go on with the rest
                        log.error("relay refused the reply %s to %s: %s", row["id"], row["recipient"], exc)
                        with self.store.atomic():
                            self.store.mark_refused(row["id"], f"{type(exc).__name__}: {exc}", self.clock())
                        continue
                    with self.store.atomic():
                        self.store.mark_sent(row["id"], self.clock())
                    sent += 1
        except (OSError, smtplib.SMTPException) as exc:
            retry = self.clock() + timedelta(seconds=self.delay)
            with self.store.atomic():
                self.store.postpone_unsent(f"{type(exc).__name__}: {exc}", retry)
            log.warning("relay failed (%s); %d sent, retrying in %.0f s", exc, sent, self.delay)
            self.delay = min(self.delay * 2, self.config.outbox.retry_max_seconds)
            return sent
        self.delay = self.config.outbox.retry_initial_seconds
        return sent

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

    def _to_maildir(self, due: list) -> int:
        if self._maildir is None:
            path = Path(self.config.outbox.maildir)
            path.parent.mkdir(parents=True, exist_ok=True)
            self._maildir = mailbox.Maildir(str(path), create=True)
        for row in due:
            self._maildir.add(bytes(row["message"]))
            with self.store.atomic():
                self.store.mark_sent(row["id"], self.clock())
        return len(due)
