"""Screening: which mail gets no reply, and who a mail is from.

Mail from no usable address, from our own address, bounces, auto-replies,
bulk and list mail and delivery reports are recorded as handled and answered
with nothing, so that no reply can start a mail loop.
"""

from __future__ import annotations

import hashlib
from email.message import Message
from email.utils import getaddresses, parseaddr

from pbm.config import Config


def message_key(msg: Message, raw: bytes) -> str:
    mid = " ".join(str(msg.get("Message-ID") or "").split())
    if mid:
        return mid
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def screen(msg: Message, sender: str | None, config: Config) -> str | None:
    """Why this mail (from ``sender``, see :func:`sender_address`) must get
    no reply (automatic mail, our own), or None."""
    if not sender:
        return "no usable From address"
    if sender.lower() == config.server.address.lower():
        return "mail from our own address"
    return_path = msg.get("Return-Path")
    if return_path is not None and parseaddr(str(return_path))[1] == "" and "<>" in str(return_path).replace(" ", ""):
        return "bounce (empty return path)"
    auto = str(msg.get("Auto-Submitted", "no")).strip().lower()
    if auto and not auto.startswith("no"):
        return f"automatic mail (Auto-Submitted: {auto})"
    for name in ("X-Autoreply", "X-Autorespond"):  # old vacation programs mark their mail only so
        if msg.get(name) is not None:
            return f"automatic mail ({name})"
    if str(msg.get("Precedence", "")).strip().lower() in ("bulk", "junk", "list"):
        return "bulk or list mail (Precedence)"
    if any(name.lower().startswith("list-") for name in msg):
        return "mailing-list mail"
    if msg.get_content_type() == "multipart/report" or sender.lower().startswith(("mailer-daemon@", "postmaster@")):
        return "delivery status notification"
    return None


def sender_address(msg: Message) -> str | None:
    """The one address in From that a reply may go to, or None."""
    try:
        values = msg.get_all("From") or []
        pairs = getaddresses([str(v) for v in values])
    except Exception:  # a header too broken to read is no sender
        return None
    addresses = [a for _, a in pairs if a and "@" in a]
    if len(addresses) != 1:
        return None
    # getaddresses is lenient: "@x", "a b@x" or control characters are no address to answer;
    # nor is one that is not ASCII (replies go out without SMTPUTF8, which not every relay takes)
    local, _, domain = addresses[0].rpartition("@")
    if not local or not domain or "@" in local or not addresses[0].isprintable() \
            or any(ch.isspace() for ch in addresses[0]) or not addresses[0].isascii():
        return None
    return addresses[0]
