"""The daily digest: one mail a day, at the hour a player chose, listing
every board where it is their turn, most urgent first.  While a player takes
a digest, the board mails of their opponents' moves are not sent to them
(they are in the next digest); new boards, the ends of games, reminders and
everything else still go at once."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from .boards import mover_id
from .clocks import leave_of, waited
from .context import Context
from .store.records import BoardRecord, User
from .times import DAY


@dataclass(frozen=True)
class Urgency:
    """How long the player to move has before the next reminder and before
    the forfeit (never below nothing)."""

    to_nag: timedelta
    to_forfeit: timedelta


def urgency(ctx: Context, row: BoardRecord) -> Urgency:
    wait = waited(row, leave_of(ctx.store, mover_id(row)), ctx.now)
    return Urgency(max(row.nag_days * DAY - wait, timedelta()),
                   max(row.forfeit_days * DAY - wait, timedelta()))


def by_urgency(ctx: Context, rows: list[BoardRecord]) -> list[BoardRecord]:
    """Active boards, the ones nearest their forfeit first (then the
    nearest their reminder; finished boards after them, oldest first)."""
    def key(row: BoardRecord) -> tuple[int, timedelta, timedelta, int]:
        if row.status != "active":
            return (1, timedelta(), timedelta(), int(row.number))
        u = urgency(ctx, row)
        return (0, u.to_forfeit, u.to_nag, int(row.number))
    return sorted(rows, key=key)


def to_move(ctx: Context, user: User) -> list[BoardRecord]:
    """The user's active boards where it is their turn, most urgent first."""
    rows = [r for r in ctx.store.boards_of([user.id]) if r.status == "active" and mover_id(r) == user.id]
    return by_urgency(ctx, rows)


def takes_digest(user: User) -> bool:
    return user.digest_hour is not None


def due(ctx: Context) -> list[User]:
    """The players whose digest is due at ``ctx.now``: their hour has come
    today and today's has not gone yet."""
    today = ctx.now.date().isoformat()
    return [u for u in ctx.store.digest_users()
            if u.digest_hour is not None and ctx.now.hour >= u.digest_hour and u.digest_sent != today]


def sent(ctx: Context, user: User) -> None:
    ctx.store.mark_digest_sent(user.id, ctx.now.date().isoformat())
