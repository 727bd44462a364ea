"""Talking to the SMTP relay: smtplib, with command pipelining (RFC 2920).

A relay that offers PIPELINING gets MAIL FROM, RCPT TO and DATA in one
write, and their three answers are read together; then the message.  That
is two round trips per reply instead of four, and half the system calls and
thread wake-ups of the outbox's sending threads.  A relay that does not
offer it gets plain :meth:`smtplib.SMTP.sendmail`.  Errors are raised as
smtplib raises them (:class:`smtplib.SMTPSenderRefused`,
:class:`smtplib.SMTPRecipientsRefused`, :class:`smtplib.SMTPDataError`), so
the caller tells a refusal from a relay in trouble the same way either way.
"""

from __future__ import annotations

import re
import smtplib

_LEADING_DOT = re.compile(rb"(?m)^\.")
_CRLF = b"\r\n"


def _data_block(message: bytes) -> bytes:
    """The message as DATA sends it: leading dots doubled, CRLF at the end,
    then the lone dot."""
    block = _LEADING_DOT.sub(b"..", message)
    if not block.endswith(_CRLF):
        block += _CRLF
    return block + b"." + _CRLF


def send_message(smtp: smtplib.SMTP, sender: str, recipient: str, message: bytes) -> None:
    """Send one message to one recipient over an open connection, pipelined
    when the relay offers it."""
    smtp.ehlo_or_helo_if_needed()
    if not (smtp.does_esmtp and smtp.has_extn("pipelining")):
        smtp.sendmail(sender, [recipient], message)
        return
    options = f" SIZE={len(message)}" if smtp.has_extn("size") else ""  # as sendmail() says it
    smtp.send(f"MAIL FROM:{smtplib.quoteaddr(sender)}{options}\r\nRCPT TO:{smtplib.quoteaddr(recipient)}\r\nDATA\r\n")
    mail_code, mail_reply = smtp.getreply()
    rcpt_code, rcpt_reply = smtp.getreply()
    data_code, data_reply = smtp.getreply()
    if data_code == 354 and (mail_code != 250 or rcpt_code not in (250, 251)):
        # a relay that let DATA through after a refusal: end it empty
        smtp.send(b"." + _CRLF)
        smtp.getreply()
    if mail_code != 250:
        _reset(smtp)
        raise smtplib.SMTPSenderRefused(mail_code, mail_reply, sender)
    if rcpt_code not in (250, 251):
        _reset(smtp)
        raise smtplib.SMTPRecipientsRefused({recipient: (rcpt_code, rcpt_reply)})
    if data_code != 354:
        _reset(smtp)
        raise smtplib.SMTPDataError(data_code, data_reply)
    smtp.send(_data_block(message))
    code, reply = smtp.getreply()
    if code != 250:
        _reset(smtp)
        raise smtplib.SMTPDataError(code, reply)


def _reset(smtp: smtplib.SMTP) -> None:
    """RSET after a refusal, as smtplib does; a connection that cannot take
    it is closed (the caller then makes a new one)."""
    try:
        smtp.rset()
    except smtplib.SMTPServerDisconnected:
        pass
