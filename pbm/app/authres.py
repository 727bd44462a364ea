"""The receiving mail server's verdict on a mail's sender:
``Authentication-Results`` (RFC 8601) as OpenDKIM and OpenDMARC write it.

A From address is a claim anyone can write.  A mail server that checked
DKIM and DMARC for it says so in an ``Authentication-Results`` header that
begins with its own *authserv-id*::

    Authentication-Results: mx.club.example; dmarc=pass (p=none dis=none) header.from=example.org
    Authentication-Results: mx.club.example; dkim=pass (2048-bit key) header.d=example.org header.s=sel

Only the topmost header with the id the operator configured (``[security]
trusted_authserv_id``) is read, and only ``dmarc=pass`` for the From
domain, or ``dkim=pass`` whose signing domain is aligned with it (the same
domain, or one of its parents), counts.  A header the sender wrote himself
stands below the receiving server's (it adds its own on top) or carries
another id, and is never read; the operator's mail server must remove any
header with its own id that arrives from outside (README: "Operating a
server").  Reading never raises.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from email.message import Message

#: The most headers looked at, and the longest one read.
MAX_HEADERS = 20
MAX_LENGTH = 4000


@dataclass(frozen=True)
class Result:
    """One method's result in a header: ``dkim=pass header.d=example.org``."""

    method: str
    result: str
    properties: dict[str, str] = field(default_factory=dict)


def _without_comments(text: str) -> str:
    """``text`` with its (nested) parenthesised comments and quotes' marks
    left out, in one pass."""
    out: list[str] = []
    depth = 0
    quoted = False
    escaped = False
    for ch in text:
        if escaped:
            escaped = False
            if depth == 0:
                out.append(ch)
            continue
        if ch == "\\":
            escaped = True
            continue
        if quoted:
            if ch == '"':
                quoted = False
            else:
                out.append(ch)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif depth == 0:
            if ch == '"':
                quoted = True
            else:
                out.append(ch)
    return "".join(out)


def parse(value: str) -> tuple[str, list[Result]]:
    """The authserv-id of one header value (lower case) and its results."""
    text = _without_comments(" ".join(value[:MAX_LENGTH].split()))
    first, *rest = text.split(";")
    words = first.split()
    authserv = words[0].lower() if words else ""
    results: list[Result] = []
    for item in rest:
        words = item.split()
        if not words or "=" not in words[0]:
            continue  # "none", or nothing
        method, _, result = words[0].partition("=")
        properties: dict[str, str] = {}
        for word in words[1:]:
            key, sep, val = word.partition("=")
            if sep and "." in key:
                properties.setdefault(key.lower(), val.strip().lower())
        results.append(Result(method.split("/")[0].lower(), result.lower(), properties))
    return authserv, results


def _aligned(signer: str, domain: str) -> bool:
    """Relaxed alignment, simplified: the same domain, or a parent of the
    From domain that is not a top-level one (``example.org`` for
    ``mail.example.org``)."""
    signer = signer.lstrip("@").rpartition("@")[2].strip(".")
    return bool(signer) and "." in signer and (domain == signer or domain.endswith("." + signer))


def verified(msg: Message, sender: str | None, authserv_id: str | None) -> bool:
    """Did the mail server named ``authserv_id`` authenticate the domain of
    ``sender`` (the From address) for this mail?"""
    if not authserv_id or not sender or "@" not in sender:
        return False
    domain = sender.rpartition("@")[2].lower().strip(".")
    try:
        values = msg.get_all("Authentication-Results") or []
    except Exception:  # a header too broken to read is no verdict
        return False
    for value in values[:MAX_HEADERS]:
        authserv, results = parse(str(value))
        if authserv != authserv_id.lower():
            continue
        for r in results:  # the topmost header with our id decides, alone
            if r.result != "pass":
                continue
            if r.method == "dmarc" and r.properties.get("header.from", "").strip(".") == domain:
                return True
            if r.method == "dkim":
                signer = r.properties.get("header.d") or r.properties.get("header.i", "")
                if _aligned(signer, domain):
                    return True
        return False
    return False
