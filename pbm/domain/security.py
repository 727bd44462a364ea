"""Account security: wrong passwords slow their sender down, one-time
codes, and addresses bound only when they answer.

Wrong passwords are counted per (lane, userid), the lane being the sender
address (marked unverified, when the server trusts a mail server's
verdict and the mail had none: :attr:`Context.login_lane`).  After
``limits.failed_logins_before_lock`` in a row from one lane, that lane may
not log into that userid for ``limits.lock_minutes``; each further wrong one
from it doubles the block (at most a day).  Mail for the same userid from
any other lane is not held up.  A lane with
``limits.failed_logins_per_sender_per_day`` wrong passwords in a day for
accounts that are not its own gets no password checked for them for the
rest of that day; a userid that does not exist costs nothing and is not
counted, so nobody can spend a player's share by guessing names from his
address.  The owner is told at the registered addresses when a lane is
first blocked (at most once a day).  A right password from that lane, or a
reset code, ends its count.

Codes (password resets, address confirmations) are derived from the
server's key for the address they are mailed to (:mod:`.seals`) and kept
only as a SHA-256 hash: they carry 50 bits, so a fast hash is enough, and
guessing one counts as a wrong password like any other.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta

from . import limits
from .context import Context
from .refusals import DailyLimitError
from .seals import code_hash, new_nonce
from .store.records import LoginFailures, User
from .times import when

RESET_VALID = timedelta(days=1)
CONFIRM_VALID = timedelta(days=7)
MAX_LOCK = timedelta(days=1)
MAX_LIVE_RESET_CODES = 3


@dataclass(frozen=True)
class LockStarted:
    """Wrong passwords from ``sender`` (a lane) blocked it from the account
    ``user`` until ``until`` (``failures`` in a row)."""

    user: User
    sender: str
    failures: int
    until: datetime


@dataclass(frozen=True)
class IssuedCode:
    """A one-time code made for ``user`` and mailed once to ``address``:
    ``seal`` stands where the code goes in that mail (the outbox writes
    the code in as it sends it); ``code_id`` is its row."""

    user: User
    code_id: int
    seal: str
    expires: datetime
    address: str


def _end_of_day(now: datetime) -> datetime:
    return datetime.combine(now.date() + timedelta(days=1), time(), tzinfo=UTC)


def owns(ctx: Context, user: User, address: str) -> bool:
    """Is ``address`` one of the user's confirmed addresses?"""
    return address.lower() in (a.lower() for a in ctx.store.confirmed_addresses(user.id))


def blocked_until(ctx: Context, user: User, failures: LoginFailures | None) -> datetime | None:
    """Until when no password from this mail's lane is checked for ``user``
    (whose wrong passwords from the lane are ``failures``), if that is now:
    after too many wrong ones for this user, or, from an address that is
    not the user's own, for others' accounts today."""
    caps = ctx.config.limits
    lane = ctx.login_lane
    if not owns(ctx, user, ctx.sender or "") and \
            ctx.store.sender_failures(lane, ctx.now.date().isoformat()) >= caps.failed_logins_per_sender_per_day:
        return _end_of_day(ctx.now)
    if failures is not None and failures.blocked_until and ctx.now < when(failures.blocked_until):
        return when(failures.blocked_until)
    return None


def is_held_up(ctx: Context, user: User) -> bool:
    """Is one of the user's own addresses blocked from logging in now?  (A
    forfeit waits meanwhile, a day at most.)"""
    own = {a.lower() for a in ctx.store.confirmed_addresses(user.id)}
    return any(row.sender in own and row.blocked_until and ctx.now < when(row.blocked_until)
               for row in ctx.store.login_failures_of(user.id))


def count_failed_login(ctx: Context, user_id: int | None) -> LockStarted | None:
    """Count a failed login from this mail's lane (after the command was
    rolled back): a wrong password for ``user_id``; a userid that does not
    exist (None) costs nothing and is not counted.  A block that starts
    now, when the owner is to be told of it."""
    if user_id is None:
        return None
    store = ctx.store
    caps = ctx.config.limits
    lane = ctx.login_lane
    user = store.user_by_id(user_id)
    if not owns(ctx, user, ctx.sender or ""):
        store.count_sender_failure(lane, ctx.now.date().isoformat())
    before = store.login_failures(lane, user_id)
    failures = (before.failures if before else 0) + 1
    over = failures - caps.failed_logins_before_lock
    until = None
    if over >= 0:
        until = ctx.now + min(timedelta(minutes=caps.lock_minutes) * (2 ** min(over, 12)), MAX_LOCK)
    store.record_login_failure(lane, user_id, until)
    if until is None:
        return None
    told = store.last_block_told(user_id)
    if told is not None and ctx.now - when(told) < timedelta(days=1):
        return None  # the owner hears of blocks once a day at most
    store.note_block_told(lane, user_id, ctx.now)
    return LockStarted(user, lane, failures, until)


# ----------------------------------------------------------------------------
# one-time codes


def take_reset_code(ctx: Context, user: User, text: str) -> bool:
    """Is ``text`` a live reset code of this user?  If so it is used up."""
    clean = text.replace("-", "").upper()
    if not (clean.isalnum() and len(clean) == 10):
        return False
    wanted = code_hash(clean)
    for code in ctx.store.live_codes("reset", ctx.now, user.id):
        if hmac.compare_digest(wanted, code.code_hash):
            ctx.store.use_code(code.id, ctx.now)
            return True
    return False


def issue_code(ctx: Context, user: User, kind: str, address: str) -> IssuedCode:
    """A new code of ``kind`` (``reset`` or ``confirm``) for ``user``, to
    be mailed to ``address``."""
    nonce = new_nonce()
    expires = ctx.now + (RESET_VALID if kind == "reset" else CONFIRM_VALID)
    code_id = ctx.store.add_code(user.id, kind, address, code_hash(ctx.keys.code(nonce, address)), ctx.now,
                                 expires)
    return IssuedCode(user, code_id, ctx.keys.seal("c", nonce), expires, address)


def issue_reset_codes(ctx: Context, user: User) -> list[IssuedCode]:
    """Password-reset codes for a live account, one for each confirmed
    address (each works alone), unless it already had as many resets as
    allowed that are still live."""
    addresses = ctx.store.confirmed_addresses(user.id)
    if user.deleted_at is not None or not addresses:
        return []
    live = {row.created_at for row in ctx.store.live_codes("reset", ctx.now, user.id)}
    if len(live) >= MAX_LIVE_RESET_CODES:
        return []
    return [issue_code(ctx, user, "reset", address) for address in addresses]


# ----------------------------------------------------------------------------
# addresses bound only when they answer


@dataclass(frozen=True)
class Confirmations:
    """What became of the addresses of an account that wait for
    confirmation: the code the reply to the sender carries for the
    sender's own address, the codes mailed to other addresses, and the
    addresses asked today already (they get nothing more today)."""

    sender_code: IssuedCode | None
    mailed: tuple[IssuedCode, ...]
    asked_today: tuple[str, ...]


def await_confirmation(ctx: Context, user: User, addresses: list[str], sender: str) -> Confirmations:
    """The addresses wait for confirmation: each gets one code a day at
    most (the sender's own in the reply to the sender; each other one in a
    short mail of its own), and no other mail until the code comes back
    from it.  The mails one sender, and one account, cause are capped per
    day: past that the command is refused (DailyLimitError)."""
    per_address = ctx.config.limits.confirmations_per_address_per_day
    fresh = [a for a in addresses if limits.left(ctx, "confirmation", a, per_address)]
    others = [a for a in fresh if a.lower() != sender.lower()]
    cap = ctx.config.limits.confirmations_per_sender_per_day
    shares = (("confirmations-by", sender), ("confirmations-for", str(user.id)))
    if others and any(limits.left(ctx, kind, key, cap) < len(others) for kind, key in shares):
        raise DailyLimitError("confirmations-today", {"cap": cap})
    codes: dict[str, IssuedCode] = {}
    for address in fresh:
        limits.spend(ctx, "confirmation", address, per_address)
        codes[address] = issue_code(ctx, user, "confirm", address)
    for kind, key in shares:
        limits.spend(ctx, kind, key, cap, len(others))
    mine = next((c for a, c in codes.items() if a.lower() == sender.lower()), None)
    return Confirmations(mine, tuple(codes[a] for a in others),
                         tuple(a for a in addresses if a not in codes))


def confirm_address(ctx: Context, sender: str, code: str, code_id: int | None = None) -> User | None:
    """The code came back from ``sender``: the account whose address it
    confirms (the address may now get game mail), or None when it is no
    code waiting for that address.  ``code_id``: the code's row, when a
    reply to the mail that carried it names it."""
    wanted = code_hash(code)
    for row in ctx.store.live_codes("confirm", ctx.now):
        if code_id is not None and row.id != code_id:
            continue
        if row.address is not None and row.address.lower() == sender.lower() \
                and hmac.compare_digest(wanted, row.code_hash):
            ctx.store.use_code(row.id, ctx.now)
            if ctx.store.set_confirmed(row.user_id, row.address):
                return ctx.store.user_by_id(row.user_id)
    return None
