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
from collections.abc import Iterator
from email.message import Message

#: The most text of a body that is read for commands and the comment.
MAX_BODY_CHARS = 120_000
#: An HTML part is cut to this many characters before it is made into text.
MAX_HTML_CHARS = 4 * MAX_BODY_CHARS
#: MIME parts nested deeper than this are not looked into.
MAX_DEPTH = 16

#: Elements that stand on lines of their own: their opening and closing tags end a line.
_BLOCKS = frozenset({"div", "p", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre",
                     "table", "ul", "ol", "section", "article", "header", "footer", "hr"})
_DROPPED = ("script", "style")  # elements whose content is no text
_QUOTE = "blockquote"  # its lines are a quote: each begins with "> " (once for each level)
_MAX_QUOTE_DEPTH = 16  # deeper quotes are marked no further


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


def _tag_name(tag: str) -> tuple[str, bool]:
    """The name of a tag (the text between ``<`` and ``>``, lower case),
    and whether it closes (``/div``): ``("div", True)``."""
    closing = tag.startswith("/")
    name = tag[1:] if closing else tag
    name = name.split(None, 1)[0] if name.strip() else ""
    return name.rstrip("/"), closing


def html_to_text(source: str) -> str:
    """The text of an HTML body, in one pass: tags removed, ``<br>`` made a
    line break, and the tags of block elements (``div``, ``p``, ``li``,
    ``blockquote`` ... opening or closing) the end of a line (one, however
    many stand together, so that ``<div>A0+</div><div>On Monday ...`` is
    two lines); the lines inside a ``blockquote`` begin with ``> `` as a
    quote in a plain-text mail does; the content of ``script`` and
    ``style`` dropped, character references replaced.  A ``<`` that no
    ``>`` follows is text.  Each character is looked at a bounded number of
    times, so the work grows with the length of the text, whatever the
    text is."""
    lower = source.lower()
    out: list[str] = []
    closing: dict[str, int] = {}  # where "</script" next stands (-1: nowhere after this)
    depth = 0  # blockquotes open around this point
    at_start = True  # nothing written since the last line break

    def text(chunk: str) -> None:
        nonlocal at_start
        if not chunk:
            return
        if depth:
            mark = ">" * min(depth, _MAX_QUOTE_DEPTH) + " "
            chunk = chunk.replace("\n", "\n" + mark)
            if at_start:
                chunk = mark + chunk
        out.append(chunk)
        at_start = chunk.endswith("\n")

    def line_break(always: bool) -> None:
        nonlocal at_start
        if always or not at_start:
            out.append("\n")
            at_start = True

    i, n = 0, len(source)
    while i < n:
        lt = source.find("<", i)
        if lt < 0:
            text(source[i:])
            break
        gt = source.find(">", lt + 1)
        if gt < 0:  # no tag can close from here on: the rest is text
            text(source[i:])
            break
        text(source[i:lt])
        name, closes = _tag_name(lower[lt + 1:gt])
        if name in _DROPPED and not closes:
            end = closing.get(name)
            if end is None or 0 <= end < gt:  # not looked for yet, or the one found is behind us
                end = lower.find("</" + name, gt)
                closing[name] = end  # -1 stays: there is none further on either
            end_gt = source.find(">", end) if end >= 0 else -1
            if end_gt >= 0:  # the element and its content go
                i = end_gt + 1
                continue
        if name == "br":
            line_break(always=True)
        elif name in _BLOCKS:
            line_break(always=False)
            if name == _QUOTE:
                depth = max(depth - 1, 0) if closes else depth + 1
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
