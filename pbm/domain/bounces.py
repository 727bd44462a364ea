"""Bounces: delivery reports for our mail, and the clock holds they start.

A report that one of our replies could not be delivered (RFC 3464; matched
to the reply by its Message-ID) is recorded against the address and its
player.  A report of failure starts a hold on the player's clock: on every
board where it is their turn the clock stops (see :mod:`.clocks`), so that
nobody loses on time because our mail did not reach them, and the opponent
is told why.  The hold ends when mail gets through again: a mail from the
player, or a report that a later mail to them was delivered.
"""

from __future__ import annotations

from dataclasses import dataclass

from .accounts import game_addresses
from .boards import mover_id
from .context import Context
from .store import Row

#: Report actions (RFC 3464) that say a mail did not get through, and that it did.
FAILED = "failed"
GOT_THROUGH = ("delivered", "relayed", "expanded")


@dataclass(frozen=True)
class HoldStarted:
    """A player's mail bounces: their clock stops on ``boards`` (numbers)."""

    user: Row
    address: str
    boards: tuple[int, ...]


def _owner(ctx: Context, address: str) -> Row | None:
    for user in ctx.store.users_with_address(address):
        if user["deleted_at"] is None:
            return user
    return None


def record(ctx: Context, message_id: str, recipient: str | None, action: str, status: str | None,
           ) -> HoldStarted | None:
    """A delivery report for our mail ``message_id``; a hold that it
    started, if any.  A report about mail we never sent is ignored."""
    sent = ctx.store.outbox_by_message_id(message_id)
    if sent is None:
        return None
    address = (recipient or sent["recipient"]).lower()
    user = _owner(ctx, address)
    ctx.store.record_bounce(address, user["id"] if user else None, message_id, action, status, ctx.now)
    if user is None:
        return None
    if action in GOT_THROUGH:
        ctx.store.end_holds(user["id"], ctx.now)
        return None
    if action != FAILED or ctx.store.open_hold(user["id"]) is not None:
        return None
    ctx.store.start_hold(user["id"], address, ctx.now)
    boards = tuple(int(r["number"]) for r in ctx.store.boards_of([user["id"]])
                   if r["status"] == "active" and mover_id(r) == user["id"])
    return HoldStarted(user, address, boards)


def mail_came(ctx: Context, sender: str) -> list[Row]:
    """Mail from ``sender`` arrived: the holds of its players end (their
    mail gets through, since they answer); the players whose hold ended."""
    ended = []
    for user_id in ctx.store.held_users_with_address(sender):
        ctx.store.end_holds(user_id, ctx.now)
        ended.append(ctx.store.user_by_id(user_id))
    return ended


def opponents_told(ctx: Context, hold: HoldStarted) -> list[tuple[Row, list[int]]]:
    """Who to tell of a hold: each opponent on the boards it stopped, with
    those boards."""
    told: dict[int, tuple[Row, list[int]]] = {}
    for number in hold.boards:
        row = ctx.store.board(number)
        if row is None:
            continue
        other = row["black_id"] if row["white_id"] == hold.user["id"] else row["white_id"]
        user = ctx.store.user_by_id(other)
        if game_addresses(ctx.store, user):
            told.setdefault(other, (user, []))[1].append(number)
    return list(told.values())
