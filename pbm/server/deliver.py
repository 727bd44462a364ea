"""``pbm deliver``: one mail on standard input, as a mail server hands it to a
command (Postfix's ``pipe(8)`` transport, or a ``.forward``/aliases pipe of
``local(8)``), through the same pipeline and exactly-once store as the
daemon's intakes.

The exit status is what the mail server acts on (``sysexits.h``):

- **0** (``EX_OK``): the mail was handled (answered, or a duplicate of a mail
  handled before, or dropped on purpose by screening: bounces, auto-replies,
  list mail, our own mail, a mail with no usable sender).  A mail over
  ``[limits] max_message_bytes`` is handled too: the pipeline answers it
  with a short "too large" reply, as it does for the daemon's intakes.
- **65** (``EX_DATAERR``): never a mail we can handle: empty input, or
  input whose first line is no header field.  Nothing is recorded; the
  mail server returns it to its sender.
- **75** (``EX_TEMPFAIL``): not now.  The database stayed locked by another
  connection for longer than ``--timeout`` seconds, or something went
  wrong inside (an unreadable configuration, a database that cannot be
  opened, a bug).  Nothing was committed (the pipeline's transaction rolls
  back); the mail server keeps the mail and tries again later.

The envelope: ``--sender`` (Postfix's ``${sender}``; empty for a bounce,
with ``null_sender=`` in ``master.cf``) becomes the first ``Return-Path``,
and each ``--recipient`` (``${recipient}``) a ``Delivered-To``, as the SMTP
listener adds them.  A leading mbox ``From `` line (``local(8)`` writes one,
as does ``pipe(8)`` with flag ``F``) is taken off.

Replies wait in the outbox for the daemon (``pbm serve``, which also does
the clock work).  With ``--send`` they are sent at once through the relay
(or into the Maildir), unless a daemon is running, which then sends them.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from pbm.app.pipeline import Pipeline, Result
from pbm.config import Config
from pbm.domain.store import Store, is_busy

from .health import holder
from .listener import with_return_path
from .logtext import line as log_line
from .outbox import Outbox

log = logging.getLogger("pbm.deliver")

EX_OK = 0
EX_DATAERR = 65
EX_TEMPFAIL = 75

#: How long a busy database is waited for, by default (Postfix's own limit
#: for a pipe command, ``command_time_limit``, is 1000 s).
TIMEOUT_SECONDS = 60.0
_HEADER_FIELD = re.compile(rb"[\x21-\x39\x3b-\x7e]+[ \t]*:")


def utcnow() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


class NotAMail(ValueError):
    """Input that can never be handled as a mail."""


@dataclass
class Delivery:
    """The exit status, the line that says why, and the pipeline's result
    (None when it was not reached)."""

    code: int
    message: str
    result: Result | None = None


def mail_bytes(raw: bytes) -> bytes:
    """The mail in ``raw`` without a leading mbox ``From `` line;
    :class:`NotAMail` when there is none."""
    if raw.startswith(b"From "):
        raw = raw.split(b"\n", 1)[1] if b"\n" in raw else b""
    if not raw.strip():
        raise NotAMail("the message is empty")
    if not _HEADER_FIELD.match(raw):
        raise NotAMail("this is not a mail: its first line is no header field")
    return raw


def with_envelope(raw: bytes, sender: str | None, recipients: list[str]) -> bytes:
    """Return-Path (when the sender was given, even empty) and Delivered-To
    first, as the SMTP listener adds them."""
    if sender is not None:
        return with_return_path(raw, sender, recipients)
    head = "".join(f"Delivered-To: {rcpt}\r\n" for rcpt in recipients)
    return head.encode("ascii", "replace") + raw


def _handle(pipeline: Pipeline, raw: bytes, deadline: float, clock: Callable[[], datetime]) -> Result:
    """The pipeline on the mail, tried again while the database is busy
    until ``deadline`` (nothing is committed by a try that fails)."""
    while True:
        try:
            return pipeline.handle(raw, now=clock())
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.2)


def deliver(raw: bytes, config: Config, *, sender: str | None = None, recipients: list[str] | None = None,
            timeout: float = TIMEOUT_SECONDS, send: bool = False,
            clock: Callable[[], datetime] = utcnow) -> Delivery:
    """Handle one mail as ``pbm deliver`` does (see the module's text)."""
    try:
        raw = with_envelope(mail_bytes(raw), sender, recipients or [])
    except NotAMail as exc:
        return Delivery(EX_DATAERR, str(exc))
    deadline = time.monotonic() + timeout
    store: Store | None = None
    try:
        store = Store(config.server.database, busy_timeout=min(timeout, 5.0))
        result = _handle(Pipeline(store, config), raw, deadline, clock)
    except Exception as exc:
        if store is not None:
            store.close()
        if is_busy(exc):
            return Delivery(EX_TEMPFAIL, f"the database stayed busy for {timeout:g} s; the mail server will "
                                         f"try again later")
        return Delivery(EX_TEMPFAIL, f"the mail could not be handled now ({type(exc).__name__}: {exc}); "
                                     f"the mail server will try again later")
    note = result.status if not result.reason else f"{result.status}: {result.reason}"
    count = len(result.sent)
    message = f"{result.key}: {note}; {count} repl{'y' if count == 1 else 'ies'} queued"
    try:
        if send:
            message += "; " + _send(store, config, clock)
    except Exception as exc:  # the mail is committed: its replies wait in the queue
        log.warning("%s", log_line("replies not sent now (%s: %s); they wait in the queue", type(exc).__name__, exc))
        message += "; replies not sent now: they wait in the queue"
    finally:
        store.close()
    return Delivery(EX_OK, message, result)


def _send(store: Store, config: Config, clock: Callable[[], datetime]) -> str:
    """``--send``: the queue sent now, unless a daemon is running (it sends them)."""
    running = holder(config.server.database)
    if running is not None:
        return f"a daemon is running (pid {running.get('pid')}): it sends them"
    outbox = Outbox(store, config, clock)
    try:
        sent, failed = outbox.flush()
    finally:
        outbox.close()
    where = "through the relay" if outbox.uses_relay else "to the Maildir"
    return f"{sent} sent {where}" + ("; the relay failed: the rest wait in the queue" if failed else "")
