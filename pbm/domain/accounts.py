"""Accounts: finding users, logging in, passwords, and where their mail goes."""

from __future__ import annotations

from pbm.grammar import Password, UserId

from . import limits, security
from .context import Context
from .passwords import hash_password
from .refusals import (
    AccountLockedError,
    BadAddressError,
    DailyLimitError,
    NotAllowedError,
    UnknownUserError,
    UseridTakenError,
)
from .store import Store
from .store.records import User
from .times import shown


def live_user(ctx: Context, userid: UserId) -> User:
    """The live account with that userid, or UnknownUserError."""
    row = ctx.store.find_user(userid.key)
    if row is None or row.deleted_at is not None:
        raise UnknownUserError("unknown-user", {"userid": str(userid)})
    return row


def login(ctx: Context, userid: UserId, password: Password, *, reset_code: bool = False) -> User:
    """The account, if the password is right; one answer for every failure.

    Wrong passwords are counted by the address they come from (after the
    command's own changes are rolled back: see ``failed_login`` of
    :class:`~.refusals.PbmError`), and too many block that address, and no
    other, for a while (:mod:`.security`); with ``reset_code`` a live code
    from "password reset" is taken as well, even from a blocked address."""
    row = ctx.store.find_user(userid.key)
    if row is None or row.deleted_at is not None:
        raise NotAllowedError("wrong-login", wrong_login=True)
    lane = ctx.login_lane
    if reset_code and security.take_reset_code(ctx, row, password.reveal()):
        ctx.store.clear_login_failures(row.id)
        ctx.logged_in.add(row.id)
        return row
    if row.operator_locked:
        raise AccountLockedError("operator-locked", {"userid": row.userid})
    failures = ctx.store.login_failures(lane, row.id)
    until = security.blocked_until(ctx, row, failures)
    if until is not None:
        raise AccountLockedError(
            "login-blocked", {"userid": row.userid, "until": shown(until)},
            refused_for=row.id if security.owns(ctx, row, ctx.sender or "") else None,
        )
    if not ctx.passwords.is_known(password.reveal(), row.password_hash):
        ctx.spend_password_check()
    if not ctx.passwords.check(password.reveal(), row.password_hash):
        raise NotAllowedError("wrong-login", failed_login=row.id)
    if failures is not None:
        ctx.store.clear_login_failures(row.id, lane)
    ctx.logged_in.add(row.id)
    return row


def open_account(ctx: Context, userid: UserId, password: Password, addresses: list[str],
                 bound: list[str], language: str | None = None) -> User:
    """A new account, logged in, within the day's share of accounts opened
    from one sender (``[limits] signups_per_sender_per_day``), under a
    userid no one has; ``bound``: those of ``addresses`` bound at once
    (the others wait for their confirmation); ``language``: the one it is
    answered in (None: not chosen, English)."""
    cap = ctx.config.limits.signups_per_sender_per_day
    if not limits.left(ctx, "signup", ctx.sender or "", cap):
        raise DailyLimitError("signups-today", {"cap": cap})
    if ctx.store.find_user(userid.key) is not None:
        raise UseridTakenError("userid-taken", {"userid": str(userid)})
    limits.spend(ctx, "signup", ctx.sender or "", cap)
    user = ctx.store.create_user(userid.typed, userid.key, new_password_hash(ctx, password), addresses,
                                 ctx.now, confirmed=bound, language=language)
    ctx.logged_in.add(user.id)
    return user


def new_password_hash(ctx: Context, password: Password) -> str:
    """Hash a new password (and remember it as checked)."""
    ctx.spend_password_check()
    stored = hash_password(password.reveal())
    ctx.passwords.remember(password.reveal(), stored)
    return stored


#: The most addresses one account may have.
MAX_ADDRESSES = 5


def checked_addresses(addresses: tuple[str, ...], sender: str) -> list[str]:
    """The addresses an account is to have (the sender's when none are
    given); BadAddressError for one that is no mail address, or for more
    than :data:`MAX_ADDRESSES`."""
    out = list(dict.fromkeys(addresses)) or [sender]
    if len({a.lower() for a in out}) > MAX_ADDRESSES:
        raise BadAddressError("addresses-too-many", {"most": MAX_ADDRESSES, "given": len(out)})
    for address in out:
        if "@" not in address or any(c in address for c in "\r\n<>,;\"' "):
            raise BadAddressError("not-an-address", {"address": address})
    return out


def game_addresses(store: Store, user: User) -> tuple[str, ...]:
    """Where game mail for the user goes: the confirmed addresses (nothing
    once signed off)."""
    if user.signed_off:
        return ()
    return tuple(store.confirmed_addresses(user.id))


def account_addresses(store: Store, user: User, sender: str) -> tuple[str, ...]:
    """Where news about an account goes: its confirmed addresses (even when
    signed off) and whoever sent the command."""
    return tuple(dict.fromkeys([*store.confirmed_addresses(user.id), sender]))
