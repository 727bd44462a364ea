"""Building the plain-text messages the server writes.

Replies (and the messages ``pbm exec`` makes for an operator's command) are
built header by header as ``compat32`` messages: ``EmailMessage`` with
``policy.default`` parses every header it is given, which profiles showed to
be most of the cost of a reply.  Every header value is checked for line
breaks, so nothing a player writes can add a header or a recipient.
"""

from __future__ import annotations

import re
from email import charset as _charset
from email.header import Header
from email.message import Message
from email.policy import compat32
from email.utils import formataddr

_UTF8 = _charset.Charset("utf-8")
_UTF8.body_encoding = _charset.QP
WIRE = compat32.clone(linesep="\r\n")
_LINE_ENDS = re.compile(r"\r\n|\r|\n")


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


def wire_bytes(msg: Message) -> bytes:
    """``msg.as_bytes(policy=WIRE)``, made directly for what :func:`outgoing`
    builds most of the time (ASCII headers short enough not to fold, a 7bit
    body); anything else goes through the email generator.  The generator
    was a third of the cost of handling a move command."""
    payload = msg.get_payload()
    if msg.is_multipart() or not isinstance(payload, str) or msg.get("Content-Transfer-Encoding") != "7bit":
        return msg.as_bytes(policy=WIRE)
    lines = []
    for name, value in msg.items():
        if not isinstance(value, str) or not value.isascii() or len(name) + len(value) > 76 \
                or value != value.strip() or "  " in value or not value:
            return msg.as_bytes(policy=WIRE)
        lines.append(f"{name}: {value}\r\n")
    if not payload.isascii():
        return msg.as_bytes(policy=WIRE)
    lines.append("\r\n")
    lines.append(_LINE_ENDS.sub("\r\n", payload))
    return "".join(lines).encode("ascii")
