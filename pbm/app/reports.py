"""Delivery status notifications (RFC 3464) read: which of our mails they
are about, and what became of it.

A report is a ``multipart/report`` with a ``message/delivery-status`` part
(a block of fields about the message, then one block per recipient:
``Final-Recipient``, ``Action``, ``Status``) and, usually, the original
mail or its header.  Which mail of ours, to whom, is told by the address
the report came back to (:func:`bounce_tags`: our envelope sender carries
a keyed tag, see :mod:`pbm.domain.bounces`), never by what the report
says.  Reading never raises and looks only a bounded way into the mail.
"""

from __future__ import annotations

import re
from email.message import Message
from email.parser import HeaderParser
from email.utils import getaddresses

from .reading import leaf_parts

#: The most recipients of one report that are read.
MAX_RECIPIENTS = 20


def _parts(msg: Message) -> list[Message]:
    """Every part, multipart or not, a few levels deep, in order."""
    out: list[Message] = []
    stack: list[tuple[Message, int]] = [(msg, 0)]
    while stack and len(out) < 100:
        part, depth = stack.pop()
        out.append(part)
        if part.is_multipart() and depth < 4 and part.get_content_type() not in ("message/rfc822", "message/global"):
            children = part.get_payload()
            if isinstance(children, list):
                stack.extend((c, depth + 1) for c in reversed(children) if isinstance(c, Message))
    return out


def _status_blocks(msg: Message) -> list[Message]:
    """The per-recipient field blocks of the delivery-status part."""
    for part in _parts(msg):
        if part.get_content_type() in ("message/delivery-status", "message/global-delivery-status"):
            blocks = part.get_payload()
            if isinstance(blocks, list):
                return [b for b in blocks if isinstance(b, Message)][1:1 + MAX_RECIPIENTS]
            text = part.get_payload(decode=True)
            if isinstance(text, bytes):  # unparsed: blocks are separated by blank lines
                chunks = text.decode("utf-8", "replace").replace("\r\n", "\n").split("\n\n")
                return [HeaderParser().parsestr(c) for c in chunks[1:1 + MAX_RECIPIENTS] if c.strip()]
    return []


#: The headers that may name the address a report came back to: the
#: intake's record of the envelope recipient, and the report's own To.
_ENVELOPE_HEADERS = ("Delivered-To", "X-Original-To", "To")


def bounce_tags(msg: Message, envelope: str) -> list[str]:
    """The tags (``12-k3j...``) of our bounce address ``envelope``
    (``pbm-bounce@x``) that this mail was sent to, as its recipient
    headers name them; they are checked by the caller."""
    local, _, domain = envelope.lower().rpartition("@")
    pattern = re.compile(rf"^{re.escape(local)}\+([0-9]{{1,12}}-[a-z2-7]{{16}})@{re.escape(domain)}$")
    found: list[str] = []
    try:
        values = [str(v) for name in _ENVELOPE_HEADERS for v in (msg.get_all(name) or [])]
        for _, address in getaddresses(values[:20]):
            m = pattern.match(address.lower())
            if m:
                found.append(m.group(1))
    except Exception:  # headers too broken to read name nothing
        return []
    return list(dict.fromkeys(found))


def report_action(msg: Message) -> tuple[str, str | None]:
    """What a report says became of the mail: ``failed`` when any recipient
    failed, else the first action named (``delayed``, ``delivered`` ...),
    ``unknown`` when it names none; and that block's status (cut short)."""
    blocks = _status_blocks(msg)
    actions = [(str(b.get("Action", "")).strip().lower(), str(b.get("Status", "")).strip()[:16] or None)
               for b in blocks]
    actions = [(a, s) for a, s in actions if a]
    for action, status in actions:
        if action == "failed":
            return action, status
    return actions[0] if actions else ("unknown", None)


__all__ = ["bounce_tags", "leaf_parts", "report_action"]
