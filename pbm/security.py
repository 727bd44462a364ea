"""Account security: locks after wrong passwords, and one-time codes.

Wrong passwords are counted per userid.  After
``limits.failed_logins_before_lock`` in a row the userid is locked for
``limits.lock_minutes``; each further wrong password after a lock doubles
the next lock (at most a day), and the owner is told at the registered
addresses whenever a lock starts.  A right password, or a reset code,
ends the count.

Codes (password resets, address confirmations) are random, mailed once, and
kept only as a SHA-256 hash: they carry 50 random bits, so a fast hash is
enough, and guessing one counts as a wrong password like any other.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from .store import Row

if TYPE_CHECKING:
    from .replies import Reply, Request

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
RESET_VALID = timedelta(days=1)
CONFIRM_VALID = timedelta(days=7)
MAX_LOCK = timedelta(days=1)
MAX_LIVE_RESET_CODES = 3


def new_code() -> str:
    """A code to type: ten characters in two groups (``K7QMX-2D9PA``)."""
    text = "".join(secrets.choice(ALPHABET) for _ in range(10))
    return f"{text[:5]}-{text[5:]}"


def code_hash(code: str) -> str:
    return hashlib.sha256(code.replace("-", "").upper().encode()).hexdigest()


def code_matches(code: str, stored_hash: str) -> bool:
    return hmac.compare_digest(code_hash(code), stored_hash)


def _when(text: str) -> datetime:
    from .clock import when

    return when(text)


def locked_until(user: Row, now: datetime) -> str | None:
    """When the lock on this userid ends, as mail shows it, if it is locked now."""
    from .clock import shown

    if user["locked_until"] and now < _when(user["locked_until"]):
        return shown(user["locked_until"])
    return None


def failed_login(req: "Request", user_id: int) -> list["Reply"]:
    """Count a wrong password (run after the command was rolled back); a
    lock that starts now is told to the owner."""
    from .clock import shown
    from .replies import Reply

    store = req.store
    user = store.user_by_id(user_id)
    failures = user["failed_logins"] + 1
    limits = req.config.limits
    over = failures - limits.failed_logins_before_lock
    if over < 0:
        store.set_login_state(user_id, failures, None)
        return []
    lock = min(timedelta(minutes=limits.lock_minutes) * (2 ** min(over, 12)), MAX_LOCK)
    until = req.now + lock
    store.set_login_state(user_id, failures, until)
    return [Reply("replies/account-locked.txt", tuple(store.confirmed_addresses(user_id)), {
        "userid": user["userid"], "failures": failures, "until": shown(until), "sender": req.sender,
    })]


def take_reset_code(req: "Request", user: Row, text: str) -> bool:
    """Is ``text`` a live reset code of this user?  If so it is used up."""
    clean = text.replace("-", "").upper()
    if not (clean.isalnum() and len(clean) == 10):
        return False
    for code in req.store.live_codes("reset", req.now, user["id"]):
        if code_matches(clean, code["code_hash"]):
            req.store.use_code(code["id"], req.now)
            return True
    return False


def issue_code(req: "Request", user: Row, kind: str, address: str | None = None) -> str:
    code = new_code()
    valid = RESET_VALID if kind == "reset" else CONFIRM_VALID
    req.store.add_code(user["id"], kind, address, code_hash(code), req.now, req.now + valid)
    return code


def confirmation_mails(req: "Request", user: Row, addresses: list[str]) -> list["Reply"]:
    """Addresses other than the sender's (and not confirmed before) wait for
    a confirmation: each gets one mail with a code, and no game mail until
    the code comes back from it."""
    from .clock import shown
    from .replies import Reply

    mails = []
    for address in addresses:
        if address.lower() == req.sender.lower():
            continue
        req.store.set_unconfirmed(user["id"], [address])
        code = issue_code(req, user, "confirm", address)
        mails.append(Reply("replies/confirm-address.txt", (address,), {
            "userid": user["userid"], "code": code, "sender": req.sender,
            "expires": shown(req.now + CONFIRM_VALID),
        }))
    return mails
