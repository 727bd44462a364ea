"""Bounces: reports that our mail did not arrive, and the clock holds they
start.

Every mail the server sends has an envelope sender of its own (VERP):
``[server] bounce_address`` with a tag after a ``+`` that names the queued
reply and carries a keyed hash of its number and recipient
(:meth:`pbm.domain.seals.Keyring.bounce_tag`).  A delivery report counts
only when it comes back to such an address and the hash checks: it then
names one reply of ours and one recipient, whatever the report's own
fields claim.  Anything else (a report about a Message-ID someone read in a
mail of ours, a recipient of the sender's choice) does nothing.

A failure is not believed at once: the server first mails a short probe to
the address.  Only when the probe bounces too does the player's clock stand
still (on every board, as a vacation does) for at most ``[games]
bounce_hold_days``, one hold a month at most, so that a player cannot stop
his own clock for good by forging reports of his own mail.  The hold ends
early when the player proves he reads his mail (a command with his
password, a reply token, a confirmation code).  Opponents are told that
the player's mail bounces, in our words only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from .accounts import game_addresses
from .boards import mover_id
from .context import Context
from .store.records import SentReply, User
from .times import DAY, stamp, when

#: Report actions (RFC 3464) that say a mail did not get through.
FAILED = "failed"
#: The message key of a probe in the outbox: ``probe:ADDRESS``.
PROBE = "probe:"
#: At most one probe to an address in this long.
PROBE_EVERY = timedelta(days=2)
#: At most one hold for a player in this long.
HOLD_EVERY = timedelta(days=30)


@dataclass(frozen=True)
class HoldStarted:
    """A player's mail bounces (a probe bounced too): their clock stands
    still until ``until``; ``boards``: those where it was their turn."""

    user: User
    address: str
    boards: tuple[int, ...]
    until: str


@dataclass(frozen=True)
class ProbeWanted:
    """A failure was reported for mail to ``address`` (of ``user``): a probe
    is to be mailed before anything is believed."""

    user: User
    address: str


def owner(ctx: Context, address: str) -> User | None:
    """The live account that gets game mail at ``address``, if any."""
    for user in ctx.store.users_with_address(address):
        if user.deleted_at is None and address.lower() in (a.lower() for a in game_addresses(ctx.store, user)):
            return user
    return None


def record(ctx: Context, reply: SentReply, action: str, status: str | None) -> HoldStarted | ProbeWanted | None:
    """A checked report about our queued ``reply`` (its outbox row): kept,
    and a failure asks for a probe, or (a probe's failure) starts a hold."""
    address = str(reply.recipient).lower()
    user = owner(ctx, address)
    ctx.store.record_bounce(address, user.id if user else None, None, action, status, ctx.now)
    if user is None or action != FAILED:
        return None
    if ctx.store.hold_of(user.id, ctx.now) is not None:
        return None  # held already
    if not str(reply.message_key or "").startswith(PROBE):
        if ctx.store.probes_since(address, ctx.now - PROBE_EVERY):
            return None  # a probe is on its way
        return ProbeWanted(user, address)
    last = ctx.store.last_hold_start(user.id)
    if last is not None and ctx.now - when(last) < HOLD_EVERY:
        return None
    until = ctx.now + ctx.config.games.bounce_hold_days * DAY
    ctx.store.start_hold(user.id, address, ctx.now, until)
    boards = tuple(int(r.number) for r in ctx.store.boards_of([user.id])
                   if r.status == "active" and mover_id(r) == user.id)
    return HoldStarted(user, address, boards, stamp(until))


def probe_key(address: str) -> str:
    return PROBE + address.lower()


def authenticated(ctx: Context, user_ids: Iterable[int]) -> None:
    """These players proved they read their mail (a password, a token, a
    code): a hold on their clock ends now."""
    ids = list(user_ids)
    if ids and ctx.store.any_hold(ctx.now):
        for user_id in ids:
            ctx.store.end_holds(user_id, ctx.now)


def opponents_told(ctx: Context, hold: HoldStarted) -> list[tuple[User, list[int]]]:
    """Who to tell of a hold: each opponent on the boards it stopped, with
    those boards."""
    told: dict[int, tuple[User, list[int]]] = {}
    for number in hold.boards:
        row = ctx.store.board(number)
        if row is None:
            continue
        other = row.black_id if row.white_id == hold.user.id else row.white_id
        user = ctx.store.user_by_id(other)
        if game_addresses(ctx.store, user):
            told.setdefault(other, (user, []))[1].append(number)
    return list(told.values())
