"""Account security: wrong passwords slow their sender down, and one-time codes.

Wrong passwords are counted per (sender address, userid).  After
``limits.failed_logins_before_lock`` in a row from one address, that
address may not log into that userid for ``limits.lock_minutes``; each
further wrong one from it doubles the block (at most a day).  Mail for the
same userid from any other address is not held up, so a stranger cannot
lock a player out.  An address with ``limits.failed_logins_per_sender_per_day``
wrong passwords in a day, for any userids, gets no password checked for the
rest of that day.  The owner is told at the registered addresses when an
address is first blocked (at most once a day).  A right password from that
address, or a reset code, ends its count.

Codes (password resets, address confirmations) are random, mailed once, and
kept only as a SHA-256 hash: they carry 50 random bits, so a fast hash is
enough, and guessing one counts as a wrong password like any other.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta

from .context import Context
from .refusals import BadAddressError
from .store import Row
from .times import when

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
RESET_VALID = timedelta(days=1)
CONFIRM_VALID = timedelta(days=7)
MAX_LOCK = timedelta(days=1)
MAX_LIVE_RESET_CODES = 3


@dataclass(frozen=True)
class LockStarted:
    """Wrong passwords from ``sender`` blocked it from the account ``user``
    until ``until`` (``failures`` in a row)."""

    user: Row
    sender: str
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


def _end_of_day(now: datetime) -> datetime:
    return datetime.combine(now.date() + timedelta(days=1), time(), tzinfo=UTC)


def blocked_until(ctx: Context, sender: str, failures: Row | None) -> datetime | None:
    """Until when no password from ``sender`` is checked for a user whose
    wrong passwords from it are ``failures`` (its row of login failures),
    if that is now: after too many wrong ones for this user, or for any."""
    limits = ctx.config.limits
    if ctx.store.sender_failures(sender, ctx.now.date().isoformat()) >= limits.failed_logins_per_sender_per_day:
        return _end_of_day(ctx.now)
    if failures is not None and failures["blocked_until"] and ctx.now < when(failures["blocked_until"]):
        return when(failures["blocked_until"])
    return None


def is_held_up(ctx: Context, user: Row) -> bool:
    """Is one of the user's own addresses blocked from logging in now?  (No
    board of theirs is forfeited on time meanwhile.)"""
    own = {a.lower() for a in ctx.store.confirmed_addresses(user["id"])}
    return any(row["sender"] in own and row["blocked_until"] and ctx.now < when(row["blocked_until"])
               for row in ctx.store.login_failures_of(user["id"]))


def count_failed_login(ctx: Context, sender: str, user_id: int | None) -> LockStarted | None:
    """Count a failed login from ``sender`` (after the command was rolled
    back): a wrong password for ``user_id``, or a userid that does not
    exist (None); a block that starts now, when the owner is to be told of
    it."""
    store = ctx.store
    limits = ctx.config.limits
    store.count_sender_failure(sender, ctx.now.date().isoformat())
    if user_id is None:
        return None
    before = store.login_failures(sender, user_id)
    failures = (before["failures"] if before else 0) + 1
    over = failures - limits.failed_logins_before_lock
    until = None
    if over >= 0:
        until = ctx.now + min(timedelta(minutes=limits.lock_minutes) * (2 ** min(over, 12)), MAX_LOCK)
    store.record_login_failure(sender, user_id, until)
    if until is None:
        return None
    told = store.last_block_told(user_id)
    if told is not None and ctx.now - when(told) < timedelta(days=1):
        return None  # the owner hears of blocks once a day at most
    store.note_block_told(sender, user_id, ctx.now)
    return LockStarted(store.user_by_id(user_id), sender, failures, until)


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
    back from it.  An address asked too often today is refused."""
    cap = ctx.config.limits.confirmations_per_address_per_day
    day = ctx.now.date().isoformat()
    others = [a for a in addresses if a.lower() != sender.lower()]
    for address in others:
        if ctx.store.daily_count("confirmation", address, day) >= cap:
            raise BadAddressError(f"{address} has been asked {cap} times today to confirm an account, the most a "
                                  f"day; add it again tomorrow")
    codes = []
    for address in others:
        ctx.store.add_daily_count("confirmation", address, day)
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
