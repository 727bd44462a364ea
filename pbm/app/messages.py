"""Building the plain-text messages the server writes.

Replies (and the messages ``pbm exec`` makes for an operator's command) are
built header by header as ``compat32`` messages: ``EmailMessage`` with
``policy.default`` parses every header it is given, which profiles showed to
be most of the cost of a reply.  Every header value is checked for line
breaks, so nothing a player writes can add a header or a recipient.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from email import charset as _charset
from email.header import Header
from email.message import Message
from email.policy import compat32
from email.utils import formataddr

_UTF8 = _charset.Charset("utf-8")
_UTF8.body_encoding = _charset.QP
#: UTF-8 in base64, for a text mostly of other scripts (Japanese): a third
#: the size of quoted-printable, which writes each of its bytes as =XX.
_UTF8_BASE64 = _charset.Charset("utf-8")
_UTF8_BASE64.body_encoding = _charset.BASE64
WIRE = compat32.clone(linesep="\r\n")
_LINE_ENDS = re.compile(r"\r\n|\r|\n")


def _header(value: str) -> str:
    if "\r" in value or "\n" in value:
        raise ValueError("a header value may not contain a line break")
    return value if value.isascii() else Header(value, "utf-8").encode()


@dataclass(frozen=True)
class Attachment:
    """A part shown inside the HTML part: its type, its content already in
    base64 lines, and the Content-ID the HTML names it by."""

    content_type: str
    base64: str
    cid: str
    filename: str


def _utf8(body: str) -> _charset.Charset:
    """How a text that is not plain ASCII goes: quoted-printable, which
    keeps its ASCII (commands, the board, most of a German text) readable
    as it is, unless base64 is shorter (a Japanese text, whose every byte
    quoted-printable writes in three).  Every mail client reads both."""
    data = body.encode("utf-8")
    other = len(data) - len(body.encode("ascii", "ignore"))
    return _UTF8_BASE64 if len(data) - other + 3 * other > len(data) * 4 // 3 else _UTF8


def _text_part(msg: Message, body: str, subtype: str = "plain") -> None:
    """``body`` as the payload of ``msg``: 7bit when it is plain ASCII with
    short lines, else UTF-8 (:func:`_utf8`)."""
    if body.isascii() and all(len(line) <= 998 for line in body.splitlines()):
        msg["Content-Type"] = f'text/{subtype}; charset="us-ascii"'
        msg["Content-Transfer-Encoding"] = "7bit"
        msg.set_payload(body)
    else:
        msg.set_payload(body, charset=_utf8(body))
        if subtype != "plain":
            msg.set_type(f"text/{subtype}")


def _html_part(html: str) -> Message:
    """The HTML always goes encoded (:func:`_utf8`): its lines can be long."""
    part = Message()
    part.set_payload(html, charset=_utf8(html))
    part.set_type("text/html")
    return part


def _related(html: str, related: Sequence[Attachment]) -> Message:
    """``multipart/related``: the HTML part, then what it shows."""
    group = Message()
    group["Content-Type"] = 'multipart/related; type="text/html"'
    group.attach(_html_part(html))
    for item in related:
        part = Message()
        part["Content-Type"] = f'{item.content_type}; name="{_header(item.filename)}"'
        part["Content-Transfer-Encoding"] = "base64"
        part["Content-ID"] = f"<{_header(item.cid)}>"
        part["Content-Disposition"] = f'inline; filename="{_header(item.filename)}"'
        part.set_payload(item.base64)
        group.attach(part)
    return group


@dataclass(frozen=True)
class Head:
    """Who a message is from and to, and the headers that place it:
    ``sender`` (name, address), ``in_reply_to`` the mail it answers,
    ``reply_to`` where a reply should go instead of ``sender``.  Replies
    carry ``Auto-Submitted: auto-replied`` (``auto_reply``)."""

    sender: tuple[str, str]
    recipient: str
    subject: str
    date: str
    message_id: str
    in_reply_to: str | None = None
    reply_to: str | None = None
    auto_reply: bool = True


@dataclass(frozen=True)
class Content:
    """What a message says: the text ``body``; ``html``, its HTML
    alternative, with ``related`` (the pictures it shows); ``files`` (name,
    text), attached as text files."""

    body: str
    html: str | None = None
    related: Sequence[Attachment] = ()
    files: Sequence[tuple[str, str]] = ()


def outgoing(head: Head, content: Content) -> Message:
    """A message from values we made or checked.  The text body goes as
    7bit when it is plain ASCII with short lines, else as UTF-8
    quoted-printable.  With ``html``, the message is ``multipart/alternative``:
    the text part first, then the HTML part with ``related`` in a
    ``multipart/related``.  With ``files``, the message is
    ``multipart/mixed``, the body first."""
    msg = Message()
    msg["From"] = _header(formataddr(head.sender, charset="utf-8"))
    msg["To"] = _header(head.recipient)
    msg["Subject"] = _header(head.subject)
    msg["Date"] = _header(head.date)
    msg["Message-ID"] = _header(head.message_id)
    if head.in_reply_to:
        msg["In-Reply-To"] = _header(head.in_reply_to)
        msg["References"] = _header(head.in_reply_to)
    if head.reply_to:
        msg["Reply-To"] = _header(head.reply_to)
    if head.auto_reply:
        msg["Auto-Submitted"] = "auto-replied"
    msg["MIME-Version"] = "1.0"
    body, html, related, files = content.body, content.html, content.related, content.files
    if files:
        msg["Content-Type"] = "multipart/mixed"
        main = Message()
        _body(main, body, html, related)
        msg.attach(main)
        for name, text in files:
            part = Message()
            _text_part(part, text)
            part["Content-Disposition"] = f'attachment; filename="{_header(name)}"'
            msg.attach(part)
        return msg
    _body(msg, body, html, related)
    return msg


def _body(msg: Message, body: str, html: str | None, related: Sequence[Attachment]) -> None:
    """The text, or the text and its HTML alternative, as ``msg``'s content."""
    if html is None:
        _text_part(msg, body)
        return
    msg["Content-Type"] = "multipart/alternative"
    text = Message()
    _text_part(text, body)
    msg.attach(text)
    msg.attach(_related(html, related) if related else _html_part(html))


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
