"""Reading a mail: the text its sender wrote (the first text part, or the
first HTML part made into text)."""

from __future__ import annotations

import html
import re
from email.message import Message


class _TextOfHtml:
    TAGS = re.compile(r"<(script|style)\b.*?</\1>|<br\s*/?>|</p>|<[^>]+>", re.S | re.I)

    @classmethod
    def convert(cls, text: str) -> str:
        def sub(m: re.Match) -> str:
            tag = m.group(0).lower()
            return "\n" if tag.startswith(("<br", "</p")) else ""

        return html.unescape(cls.TAGS.sub(sub, text))


def body_text(msg: Message) -> str:
    """The text a player wrote: the first text/plain part that is not an
    attachment, else the first text/html part made into text."""
    plain: Message | None = None
    html: Message | None = None
    for part in msg.walk():
        if part.is_multipart():
            continue
        disposition = str(part.get("Content-Disposition", "")).split(";")[0].strip().lower()
        if disposition == "attachment":
            continue
        kind = part.get_content_type()
        if kind == "text/plain" and plain is None:
            plain = part
        elif kind == "text/html" and html is None:
            html = part
    chosen = plain or html
    if chosen is None:
        return ""
    payload = chosen.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    try:
        text = payload.decode(chosen.get_content_charset() or "utf-8", errors="replace")
    except LookupError:  # a charset nobody knows
        text = payload.decode("utf-8", errors="replace")
    return _TextOfHtml.convert(text) if chosen is html else text
