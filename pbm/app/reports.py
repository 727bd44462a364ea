"""Delivery status notifications (RFC 3464) read: which of our mails they
are about, for which recipient, and what became of it.

A report is a ``multipart/report`` with a ``message/delivery-status`` part
(a block of fields about the message, then one block per recipient:
``Final-Recipient``, ``Action``, ``Status``) and, usually, the original
mail or its header (``message/rfc822`` or ``text/rfc822-headers``), whose
Message-ID names the mail of ours it is about.  Reading never raises and
looks only a bounded way into the mail.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.message import Message
from email.parser import HeaderParser
from email.utils import parseaddr

from .reading import leaf_parts

#: The most recipients of one report that are read.
MAX_RECIPIENTS = 20


@dataclass(frozen=True)
class Report:
    """What a report says of one recipient of one of our mails."""

    message_id: str
    recipient: str | None
    action: str  # failed | delayed | delivered | relayed | expanded
    status: str | None


def _original_id(msg: Message) -> str | None:
    """The Message-ID of the mail a report returns (its header, or all of it)."""
    for part in _parts(msg):
        kind = part.get_content_type()
        if kind in ("message/rfc822", "message/global"):
            inner = part.get_payload()
            if isinstance(inner, list) and inner and isinstance(inner[0], Message):
                mid = inner[0].get("Message-ID")
                if mid:
                    return " ".join(str(mid).split())
        elif kind in ("text/rfc822-headers", "message/global-headers"):
            text = part.get_payload(decode=True)
            if isinstance(text, bytes):
                mid = HeaderParser().parsestr(text.decode("utf-8", "replace")).get("Message-ID")
                if mid:
                    return " ".join(str(mid).split())
    return None


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


def delivery_reports(msg: Message) -> list[Report]:
    """What a delivery report says, per recipient, of the mail of ours it
    returns; [] when it names no Message-ID or has no status part."""
    message_id = _original_id(msg)
    if not message_id:
        return []
    out = []
    for block in _status_blocks(msg):
        action = str(block.get("Action", "")).strip().lower()
        if not action:
            continue
        final = str(block.get("Final-Recipient") or block.get("Original-Recipient") or "")
        named = final.split(";", 1)[-1].strip() if final else ""
        address = parseaddr(named)[1] or named or None
        status = str(block.get("Status", "")).strip() or None
        out.append(Report(message_id, address, action, status))
    return out


__all__ = ["Report", "delivery_reports", "leaf_parts"]
