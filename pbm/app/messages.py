"""The bytes of the messages the server writes.

A reply to several people is the same content under different headers
(each copy has its own recipient, Message-ID and Reply-To), so the content
is written once (:func:`content_bytes`: the text, the HTML part and its
pictures, the files, with boundaries of its own) and each copy is its
header lines followed by it (:func:`copy_bytes`).  Both are written here
directly, line by line: the standard library's email generator, run again
for every copy of a multipart mail with a picture, was a quarter of the
cost of a move command, and building ``email.message.Message`` trees and
their charsets most of the rest of it.  What the parser reads back is the
same (the tests read every reply they make).

Every header value is checked for line breaks, so nothing a player writes
can add a header or a recipient; a value that is not ASCII goes as an RFC
2047 encoded word, and a header line too long for the wire is folded by
the email package (rare: a long subject or address).
"""

from __future__ import annotations

import base64
import binascii
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from email.header import Header
from email.message import Message
from email.parser import BytesParser
from email.policy import compat32
from email.utils import formataddr
from functools import cached_property

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


# ----------------------------------------------------------------------
# the headers of a copy


def _headers(head: Head) -> list[tuple[str, str]]:
    """A copy's own headers, From to MIME-Version, as (name, value)."""
    found = [("From", formataddr(head.sender, charset="utf-8")), ("To", head.recipient),
             ("Subject", head.subject), ("Date", head.date), ("Message-ID", head.message_id)]
    if head.in_reply_to:
        found += [("In-Reply-To", head.in_reply_to), ("References", head.in_reply_to)]
    if head.reply_to:
        found.append(("Reply-To", head.reply_to))
    if head.auto_reply:
        found.append(("Auto-Submitted", "auto-replied"))
    found.append(("MIME-Version", "1.0"))
    for _, value in found:
        _header(value)  # no line breaks
    return found


def _header_lines(headers: list[tuple[str, str]]) -> bytes:
    """Header lines on the wire (CRLF each): written directly when they are
    short ASCII lines that need no folding, else by the email generator
    (which folds a long line and writes a value that is not ASCII as
    encoded words)."""
    lines = []
    for name, value in headers:
        if not value.isascii() or len(name) + len(value) > 76 or value != value.strip() or "  " in value \
                or not value:
            msg = Message()
            for key, text in headers:
                if text.isascii():
                    msg[key] = text
                else:  # encoded words, folded between them
                    msg[key] = Header(text, "utf-8", header_name=key)  # type: ignore[assignment]
            msg.set_payload("")
            data = msg.as_bytes(policy=WIRE)
            return data[: data.index(b"\r\n\r\n") + 2]
        lines.append(f"{name}: {value}\r\n")
    return "".join(lines).encode("ascii")


def copy_bytes(head: Head, content: bytes) -> bytes:
    """One copy of a reply on the wire: its own headers (:class:`Head`),
    then its content as :func:`content_bytes` wrote it."""
    return _header_lines(_headers(head)) + content


# ----------------------------------------------------------------------
# the content


def _crlf(text: str) -> bytes:
    return _LINE_ENDS.sub("\r\n", text).encode("ascii")


def _is_7bit(text: str) -> bool:
    return text.isascii() and all(len(line) <= 998 for line in text.splitlines())


def _utf8(text: str) -> tuple[str, bytes]:
    """A text that is not plain ASCII, encoded: quoted-printable, which
    keeps its ASCII (commands, the board, most of a German text) readable
    as it is, unless base64 is shorter (a Japanese text, whose every byte
    quoted-printable writes in three).  Every mail client reads both.
    (The encoding's name, the lines.)"""
    data = text.encode("utf-8", "surrogateescape")
    other = len(data) - len(text.encode("ascii", "ignore"))
    if len(data) - other + 3 * other > len(data) * 4 // 3:
        return "base64", base64.encodebytes(data).replace(b"\n", b"\r\n")
    lines = binascii.b2a_qp(data, istext=True).replace(b"\n", b"\r\n")
    return "quoted-printable", lines


def _text(text: str, subtype: str = "plain", *, encoded: bool = False) -> bytes:
    """A text part: 7bit when it is plain ASCII with short lines (unless
    ``encoded``), else UTF-8 (:func:`_utf8`)."""
    if not encoded and _is_7bit(text):
        return (f'Content-Type: text/{subtype}; charset="us-ascii"\r\n'
                f"Content-Transfer-Encoding: 7bit\r\n\r\n").encode("ascii") + _crlf(text)
    name, lines = _utf8(text)
    return (f'Content-Type: text/{subtype}; charset="utf-8"\r\n'
            f"Content-Transfer-Encoding: {name}\r\n\r\n").encode("ascii") + lines


def _multipart(kind: str, boundary: str, parts: list[bytes]) -> bytes:
    """``multipart/kind`` (its Content-Type's other parameters in
    ``kind``): the parts between the boundary lines."""
    head = f'Content-Type: multipart/{kind}; boundary="{boundary}"\r\n\r\n'.encode("ascii")
    line = b"--" + boundary.encode("ascii")
    return head + line + b"\r\n" + (b"\r\n" + line + b"\r\n").join(parts) + b"\r\n" + line + b"--\r\n"


def _picture(item: Attachment) -> bytes:
    return (f'Content-Type: {item.content_type}; name="{_header(item.filename)}"\r\n'
            "Content-Transfer-Encoding: base64\r\n"
            f"Content-ID: <{_header(item.cid)}>\r\n"
            f'Content-Disposition: inline; filename="{_header(item.filename)}"\r\n\r\n').encode("ascii") \
        + _crlf(item.base64)


def _file(name: str, text: str) -> bytes:
    part = _text(text)
    cut = part.index(b"\r\n\r\n") + 2
    return part[:cut] + f'Content-Disposition: attachment; filename="{_header(name)}"\r\n'.encode("ascii") \
        + part[cut:]


def content_bytes(content: Content) -> bytes:
    """``content`` on the wire, written once for every copy of a reply: its
    MIME headers (Content-Type ...), a blank line, its body.  The text
    alone is a single part; with ``html``, ``multipart/alternative`` (the
    text first, then the HTML part, which always goes encoded since its
    lines can be long, with ``related`` in a ``multipart/related``); with
    ``files``, ``multipart/mixed``, the body first.  The boundaries are a
    random stem that no part holds (base64 and quoted-printable never
    write ``=_``; the texts are checked), with a letter for each level."""
    stem = "=_" + secrets.token_hex(10)
    while any(stem in text for text in (content.body, content.html or "", *(t for _, t in content.files))):
        stem = "=_" + secrets.token_hex(10)  # pragma: no cover - a player wrote these 20 random digits
    body = _text(content.body)
    if content.html is not None:
        html = _text(content.html, "html", encoded=True)
        if content.related:
            html = _multipart('related; type="text/html"', stem + "r", [html, *map(_picture, content.related)])
        body = _multipart("alternative", stem + "a", [body, html])
    if content.files:
        body = _multipart("mixed", stem + "m", [body, *(_file(name, text) for name, text in content.files)])
    return body
