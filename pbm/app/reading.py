"""Reading a mail: the text its sender wrote (the first text part, or the
first HTML part made into text).

Every step is linear in the size of the mail, and bounded: MIME parts are
followed :data:`MAX_DEPTH` deep at most, an HTML part is cut to
:data:`MAX_HTML_CHARS` before it is made into text in one pass, and at most
:data:`MAX_BODY_CHARS` of text are handed on to be read for commands and a
comment (far more than the most commands a mail may hold, at most
``[limits] max_command_lines`` lines of at most 1,000 characters).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from email.message import Message

#: The most text of a body that is read for commands and the comment.
MAX_BODY_CHARS = 120_000
#: An HTML part is cut to this many characters before it is made into text.
MAX_HTML_CHARS = 4 * MAX_BODY_CHARS
#: MIME parts nested deeper than this are not looked into.
MAX_DEPTH = 16

_LINE_BREAK_TAG = re.compile(r"<br\s*/?>|</p>", re.I)
_DROPPED = ("script", "style")  # elements whose content is no text


def header_text(msg: Message, name: str) -> str:
    """The first header ``name`` as it came, raw 8-bit bytes (mail sent with
    SMTPUTF8) kept as such for the reader to take as UTF-8 (the parser's own
    view of them is replacement characters); "" when there is none."""
    for key, value in msg.raw_items():
        if key.lower() == name.lower():
            return value if isinstance(value, str) else str(value)
    return ""


def leaf_parts(msg: Message) -> Iterator[Message]:
    """The parts of a message that are not multipart, in order, without
    recursion, and no deeper than :data:`MAX_DEPTH`."""
    stack: list[tuple[Message, int]] = [(msg, 0)]
    while stack:
        part, depth = stack.pop()
        if not part.is_multipart():
            yield part
            continue
        if depth >= MAX_DEPTH:
            continue
        children = part.get_payload()
        if isinstance(children, list):
            stack.extend((child, depth + 1) for child in reversed(children) if isinstance(child, Message))


def html_to_text(source: str) -> str:
    """The text of an HTML body, in one pass: tags removed, ``<br>`` and
    ``</p>`` made line breaks, the content of ``script`` and ``style``
    dropped, character references replaced.  A ``<`` that no ``>`` follows
    is text.  Each character is looked at a bounded number of times, so the
    work grows with the length of the text, whatever the text is."""
    lower = source.lower()
    out: list[str] = []
    closing: dict[str, int] = {}  # where "</script" next stands (-1: nowhere after this)
    i, n = 0, len(source)
    while i < n:
        lt = source.find("<", i)
        if lt < 0:
            out.append(source[i:])
            break
        gt = source.find(">", lt + 1)
        if gt < 0:  # no tag can close from here on: the rest is text
            out.append(source[i:])
            break
        out.append(source[i:lt])
        tag = lower[lt + 1:gt]
        name = tag.split(None, 1)[0].rstrip("/") if tag.strip() else ""
        if name in _DROPPED:
            end = closing.get(name)
            if end is None or 0 <= end < gt:  # not looked for yet, or the one found is behind us
                end = lower.find("</" + name, gt)
                closing[name] = end  # -1 stays: there is none further on either
            end_gt = source.find(">", end) if end >= 0 else -1
            if end_gt >= 0:  # the element and its content go
                i = end_gt + 1
                continue
        if _LINE_BREAK_TAG.fullmatch(source, lt, gt + 1):
            out.append("\n")
        i = gt + 1
    return html.unescape("".join(out))


def _decoded(part: Message) -> str | None:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return None
    try:
        return payload.decode(part.get_content_charset() or "utf-8", errors="replace")
    except (LookupError, UnicodeError, ValueError):  # a charset nobody knows, or one that cannot decode at all
        return payload.decode("utf-8", errors="replace")


def body_text(msg: Message) -> str:
    """The text a player wrote: the first text/plain part that is not an
    attachment, else the first text/html part made into text; at most
    :data:`MAX_BODY_CHARS` of it."""
    plain: Message | None = None
    html_part: Message | None = None
    for part in leaf_parts(msg):
        disposition = str(part.get("Content-Disposition", "")).split(";")[0].strip().lower()
        if disposition == "attachment":
            continue
        kind = part.get_content_type()
        if kind == "text/plain" and plain is None:
            plain = part
            break  # a plain part is what is read: no need to look further
        if kind == "text/html" and html_part is None:
            html_part = part
    chosen = plain or html_part
    if chosen is None:
        return ""
    text = _decoded(chosen)
    if text is None:
        return ""
    if chosen is html_part:
        text = html_to_text(text[:MAX_HTML_CHARS])
    return text[:MAX_BODY_CHARS]
