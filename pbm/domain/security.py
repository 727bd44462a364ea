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
from dataclasses import dataclass
from datetime import datetime, timedelta

from .context import Context
from .store import Row
from .times import when

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
RESET_VALID = timedelta(days=1)
CONFIRM_VALID = timedelta(days=7)
MAX_LOCK = timedelta(days=1)
MAX_LIVE_RESET_CODES = 3


@dataclass(frozen=True)
class LockStarted:
    """A wrong password locked the account ``user`` until ``until``."""

    user: Row
    failures: int
    until: datetime


@dataclass(frozen=True)
class IssuedCode:
    """A one-time code made for ``user``: mailed once, then only its hash is kept."""

    user: Row
    code: str
    expires: datetime
    address: str | None = None  # an address confirmation: the address it confirms


def new_code() -> str:
    """A code to type: ten characters in two groups (``K7QMX-2D9PA``)."""
    text = "".join(secrets.choice(ALPHABET) for _ in range(10))
    return f"{text[:5]}-{text[5:]}"


def code_hash(code: str) -> str:
    return hashlib.sha256(code.replace("-", "").upper().encode()).hexdigest()


def code_matches(code: str, stored_hash: str) -> bool:
    return hmac.compare_digest(code_hash(code), stored_hash)


def locked_until(user: Row, now: datetime) -> datetime | None:
    """When the lock on this userid ends, if it is locked now."""
    if user["locked_until"]:
        until = when(user["locked_until"])
        if now < until:
            return until
    return None


def count_failed_login(ctx: Context, user_id: int) -> LockStarted | None:
    """Count a wrong password (after the command was rolled back); the lock
    that starts now, if one does."""
    store = ctx.store
    user = store.user_by_id(user_id)
    failures = user["failed_logins"] + 1
    limits = ctx.config.limits
    over = failures - limits.failed_logins_before_lock
    if over < 0:
        store.set_login_state(user_id, failures, None)
        return None
    lock = min(timedelta(minutes=limits.lock_minutes) * (2 ** min(over, 12)), MAX_LOCK)
    until = ctx.now + lock
    store.set_login_state(user_id, failures, until)
    return LockStarted(user, failures, until)


def take_reset_code(ctx: Context, user: Row, text: str) -> bool:
    """Is ``text`` a live reset code of this user?  If so it is used up."""
    clean = text.replace("-", "").upper()
    if not (clean.isalnum() and len(clean) == 10):
        return False
    for code in ctx.store.live_codes("reset", ctx.now, user["id"]):
        if code_matches(clean, code["code_hash"]):
            ctx.store.use_code(code["id"], ctx.now)
            return True
    return False


def issue_code(ctx: Context, user: Row, kind: str, address: str | None = None) -> IssuedCode:
    """A new code of ``kind`` (``reset`` or ``confirm``) for ``user``."""
    code = new_code()
    expires = ctx.now + (RESET_VALID if kind == "reset" else CONFIRM_VALID)
    ctx.store.add_code(user["id"], kind, address, code_hash(code), ctx.now, expires)
    return IssuedCode(user, code, expires, address)


def issue_reset_code(ctx: Context, user: Row) -> IssuedCode | None:
    """A password-reset code for a live account that has a confirmed address
    to mail it to, unless it already has as many live codes as allowed."""
    if user["deleted_at"] is not None or not ctx.store.confirmed_addresses(user["id"]):
        return None
    if len(ctx.store.live_codes("reset", ctx.now, user["id"])) >= MAX_LIVE_RESET_CODES:
        return None
    return issue_code(ctx, user, "reset")


def await_confirmation(ctx: Context, user: Row, addresses: list[str], sender: str) -> list[IssuedCode]:
    """Addresses other than the sender's (and not confirmed before) wait for
    a confirmation: each gets a code, and no game mail until the code comes
    back from it."""
    codes = []
    for address in addresses:
        if address.lower() == sender.lower():
            continue
        ctx.store.set_unconfirmed(user["id"], [address])
        codes.append(issue_code(ctx, user, "confirm", address))
    return codes


def confirm_address(ctx: Context, sender: str, code: str) -> Row | None:
    """The code came back from ``sender``: the account whose address it
    confirms (the address may now get game mail), or None when it is no
    code waiting for that address."""
    for row in ctx.store.live_codes("confirm", ctx.now):
        if row["address"].lower() == sender.lower() and code_matches(code, row["code_hash"]):
            ctx.store.use_code(row["id"], ctx.now)
            if ctx.store.set_confirmed(row["user_id"], row["address"]):
                return ctx.store.user_by_id(row["user_id"])
    return None
