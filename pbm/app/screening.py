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


#: Subjects that automatic replies and bounces begin with, when their
#: sender marked them no other way (any case).
AUTOMATIC_SUBJECTS = (
    "out of office", "automatic reply", "auto-reply", "autoreply", "auto reply", "auto:", "abwesenheitsnotiz",
    "undeliverable", "undelivered mail", "delivery status notification", "returned mail", "mail delivery failed",
    "delivery failure", "failure notice",
)
#: Why a delivery report gets no reply (the pipeline reads it for bounces).
REPORT = "delivery status notification"
#: Display names bounces come under.
BOUNCE_NAMES = ("mail delivery subsystem", "mail delivery system", "mailer-daemon", "mail administrator")
_DSN_PARTS = ("message/delivery-status", "message/global-delivery-status")


def _base(address: str) -> str:
    """An address without its +tag: ``pbm+101@x`` -> ``pbm@x``."""
    local, _, domain = address.lower().rpartition("@")
    return f"{local.split('+', 1)[0]}@{domain}"


def is_report(msg: Message) -> bool:
    """A delivery report, or one forwarded inside other mail (a part of a
    delivery-status type, MIME followed a few levels deep)."""
    if msg.get_content_type() == "multipart/report":
        return True
    stack: list[tuple[Message, int]] = [(msg, 0)]
    while stack:
        part, depth = stack.pop()
        if part.get_content_type() in _DSN_PARTS:
            return True
        children = part.get_payload() if part.is_multipart() and depth < 4 else []
        if isinstance(children, list):
            stack.extend((c, depth + 1) for c in children if isinstance(c, Message))
    return False


def screen(msg: Message, sender: str | None, config: Config) -> str | None:
    """Why this mail (from ``sender``, see :func:`sender_address`) must get
    no reply (automatic mail, a bounce, a loop, our own), or None."""
    if not sender:
        return "no usable From address"
    ours = _base(config.server.address)
    if _base(sender) in (ours, _base(config.server.envelope_address)):
        return "mail from our own address"
    return_path = msg.get("Return-Path")  # the first one: the delivering server's, from the envelope
    if return_path is not None and parseaddr(str(return_path))[1] == "" and "<>" in str(return_path).replace(" ", ""):
        return "bounce (empty return path)"
    auto = str(msg.get("Auto-Submitted", "no")).strip().lower()
    if auto and not auto.startswith("no"):
        return f"automatic mail (Auto-Submitted: {auto})"
    for name in ("X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress"):  # vacation programs, Exchange
        if msg.get(name) is not None:
            return f"automatic mail ({name})"
    if any(ours in _base(parseaddr(str(v))[1] or str(v)) for v in msg.get_all("X-Loop") or []):
        return "a loop (X-Loop names this server)"
    precedence = str(msg.get("Precedence", "")).strip().lower()
    if precedence in ("bulk", "junk", "list"):
        return "bulk or list mail (Precedence)"
    if precedence == "auto_reply":
        return "automatic mail (Precedence: auto_reply)"
    if any(name.lower().startswith("list-") for name in msg):
        return "mailing-list mail"
    name = parseaddr(str(msg.get("From", "")))[0].strip().lower()
    if is_report(msg) or sender.lower().startswith(("mailer-daemon@", "postmaster@")) or name in BOUNCE_NAMES:
        return REPORT
    subject = " ".join(str(msg.get("Subject", "")).split()).lower()
    if subject.startswith(AUTOMATIC_SUBJECTS):
        return "automatic reply (by its subject)"
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
