"""Building the plain-text messages the server writes.

Replies (and the messages ``pbm exec`` makes for an operator's command) are
built header by header as ``compat32`` messages: ``EmailMessage`` with
``policy.default`` parses every header it is given, which profiles showed to
be most of the cost of a reply.  Every header value is checked for line
breaks, so nothing a player writes can add a header or a recipient.
"""

from __future__ import annotations

from email import charset as _charset
from email.header import Header
from email.message import Message
from email.policy import compat32
from email.utils import formataddr

_UTF8 = _charset.Charset("utf-8")
_UTF8.body_encoding = _charset.QP
WIRE = compat32.clone(linesep="\r\n")


def _header(value: str) -> str:
    if "\r" in value or "\n" in value:
        raise ValueError("a header value may not contain a line break")
    return value if value.isascii() else Header(value, "utf-8").encode()


def outgoing(
    *,
    sender: tuple[str, str],
    recipient: str,
    subject: str,
    body: str,
    date: str,
    message_id: str,
    in_reply_to: str | None = None,
    auto_reply: bool = True,
) -> Message:
    """A plain-text message from values we made or checked.  Replies carry
    ``Auto-Submitted: auto-replied`` (``auto_reply``).  The body goes as 7bit
    when it is plain ASCII with short lines, else as UTF-8 quoted-printable."""
    msg = Message()
    msg["From"] = _header(formataddr(sender, charset="utf-8"))
    msg["To"] = _header(recipient)
    msg["Subject"] = _header(subject)
    msg["Date"] = _header(date)
    msg["Message-ID"] = _header(message_id)
    if in_reply_to:
        msg["In-Reply-To"] = _header(in_reply_to)
        msg["References"] = _header(in_reply_to)
    if auto_reply:
        msg["Auto-Submitted"] = "auto-replied"
    if body.isascii() and all(len(line) <= 998 for line in body.splitlines()):
        msg["MIME-Version"] = "1.0"
        msg["Content-Type"] = 'text/plain; charset="us-ascii"'
        msg["Content-Transfer-Encoding"] = "7bit"
        msg.set_payload(body)
    else:
        msg.set_payload(body, charset=_UTF8)
    return msg
