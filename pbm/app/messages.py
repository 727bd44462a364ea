"""Building the messages the server writes.

Replies (and the messages ``pbm exec`` makes for an operator's command) are
built header by header as ``compat32`` messages: ``EmailMessage`` with
``policy.default`` parses every header it is given, which profiles showed to
be most of the cost of a reply.  Every header value is checked for line
breaks, so nothing a player writes can add a header or a recipient.

A reply to several people is the same content under different headers
(each copy has its own recipient, Message-ID and Reply-To): its content is
made into bytes once (:func:`content_bytes`: the text, the HTML part and
its pictures in base64, with boundaries of its own) and each copy is its
header lines followed by those bytes (:func:`copy_bytes`).  Serialising the
whole multipart message again for every copy was a quarter of the cost of a
move command with pictures.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email import charset as _charset
from email.header import Header
from email.message import Message
from email.parser import BytesParser
from email.policy import compat32
from email.utils import formataddr
from functools import cached_property

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


def _related(html: str, related: Sequence[Attachment], boundary: str | None = None) -> Message:
    """``multipart/related``: the HTML part, then what it shows."""
    group = Message()
    group["Content-Type"] = 'multipart/related; type="text/html"' + _boundary(boundary)
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


def _boundary(boundary: str | None) -> str:
    """The boundary parameter of a multipart's Content-Type (none: the
    generator makes one, checking the parts for it)."""
    return "" if boundary is None else f'; boundary="{boundary}"'


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


def _head(msg: Message, head: Head) -> None:
    """A message's own headers, from From to MIME-Version."""
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


def outgoing(head: Head, content: Content) -> Message:
    """A message from values we made or checked.  The text body goes as
    7bit when it is plain ASCII with short lines, else as UTF-8
    quoted-printable.  With ``html``, the message is ``multipart/alternative``:
    the text part first, then the HTML part with ``related`` in a
    ``multipart/related``.  With ``files``, the message is
    ``multipart/mixed``, the body first."""
    msg = Message()
    _head(msg, head)
    _content(msg, content)
    return msg


def _content(msg: Message, content: Content, boundary: str | None = None) -> None:
    """``content`` as what ``msg`` says (``boundary``: the stem of its
    multiparts' boundaries, each of which adds a letter)."""
    body, html, related, files = content.body, content.html, content.related, content.files
    mark = (lambda letter: None) if boundary is None else (lambda letter: boundary + letter)
    if files:
        msg["Content-Type"] = "multipart/mixed" + _boundary(mark("m"))
        main = Message()
        _body(main, body, html, related, mark)
        msg.attach(main)
        for name, text in files:
            part = Message()
            _text_part(part, text)
            part["Content-Disposition"] = f'attachment; filename="{_header(name)}"'
            msg.attach(part)
        return
    _body(msg, body, html, related, mark)


def _body(msg: Message, body: str, html: str | None, related: Sequence[Attachment],
          mark: Callable[[str], str | None]) -> None:
    """The text, or the text and its HTML alternative, as ``msg``'s content."""
    if html is None:
        _text_part(msg, body)
        return
    msg["Content-Type"] = "multipart/alternative" + _boundary(mark("a"))
    text = Message()
    _text_part(text, body)
    msg.attach(text)
    msg.attach(_related(html, related, mark("r")) if related else _html_part(html))


def content_bytes(content: Content) -> bytes:
    """``content`` on the wire, once for every copy of a reply: its MIME
    headers (Content-Type ...), a blank line, its body.  The boundaries are
    a random stem the content does not hold (base64 and quoted-printable
    never write ``=_``; the texts are checked), so the generator need not
    search the parts for one of its own."""
    stem = "=_" + secrets.token_hex(10)
    while any(stem in text for text in (content.body, content.html or "", *(t for _, t in content.files))):
        stem = "=_" + secrets.token_hex(10)  # pragma: no cover - a player wrote 20 random hex digits
    msg = Message()
    _content(msg, content, stem)
    return wire_bytes(msg)


def copy_bytes(head: Head, content: bytes) -> bytes:
    """One copy of a reply on the wire: its own headers (:class:`Head`),
    then its content as :func:`content_bytes` made it."""
    msg = Message()
    _head(msg, head)
    quick = _quick_headers(msg)
    if quick is None:
        msg.set_payload("")
        data = msg.as_bytes(policy=WIRE)
        quick = data[: data.index(b"\r\n\r\n") + 2]
    return quick + content


def _quick_headers(msg: Message) -> bytes | None:
    """The header lines of ``msg`` on the wire (CRLF each), written
    directly when they are short ASCII lines that need no folding (None:
    they need the email generator)."""
    lines = []
    for name, value in msg.items():
        if not isinstance(value, str) or not value.isascii() or len(name) + len(value) > 76 \
                or value != value.strip() or "  " in value or not value:
            return None
        lines.append(f"{name}: {value}\r\n")
    return "".join(lines).encode("ascii")


@dataclass(frozen=True)
class Outgoing:
    """One copy of a reply as it is queued: its ``recipient``, its
    ``message_id`` and its bytes (``data``, with its secrets sealed);
    ``message`` reads it back (for tests and the operator's commands: the
    daemon never needs it)."""

    recipient: str
    message_id: str
    data: bytes

    @cached_property
    def message(self) -> Message:
        return BytesParser(policy=compat32).parsebytes(self.data)


def wire_bytes(msg: Message) -> bytes:
    """``msg.as_bytes(policy=WIRE)``, made directly for what :func:`outgoing`
    builds most of the time (ASCII headers short enough not to fold, a 7bit
    body); anything else goes through the email generator.  The generator
    was a third of the cost of handling a move command."""
    payload = msg.get_payload()
    if msg.is_multipart() or not isinstance(payload, str) or msg.get("Content-Transfer-Encoding") != "7bit" \
            or not payload.isascii():
        return msg.as_bytes(policy=WIRE)
    head = _quick_headers(msg)
    if head is None:
        return msg.as_bytes(policy=WIRE)
    return head + b"\r\n" + _LINE_ENDS.sub("\r\n", payload).encode("ascii")
