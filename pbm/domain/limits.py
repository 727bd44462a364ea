"""Daily caps, in one place: how much of a day's share is left, and
spending it.

Every cap a day (accounts opened from one address, invitations to a
player, confirmations of an address, mail to others ...) is a count per
kind, key and UTC day in the table ``daily_counts``, checked and counted
here, in the caller's transaction (a command that fails counts nothing).
The caller words the refusal.
"""

from __future__ import annotations

from collections.abc import Iterable

from .context import Context


def _day(ctx: Context) -> str:
    return ctx.now.date().isoformat()


def used(ctx: Context, kind: str, key: str) -> int:
    """How much of ``kind`` ``key`` has had today."""
    return ctx.store.daily_count(kind, key, _day(ctx))


def left(ctx: Context, kind: str, key: str, cap: int) -> int:
    """How much of a day's share of ``cap`` is left."""
    return max(cap - used(ctx, kind, key), 0)


def spend(ctx: Context, kind: str, key: str, cap: int, n: int = 1) -> bool:
    """Spend ``n`` of today's share of ``kind`` for ``key`` when that many
    are left (True); otherwise spend nothing (False)."""
    if used(ctx, kind, key) + n > cap:
        return False
    ctx.store.add_daily_count(kind, key, _day(ctx), n)
    return True


def spend_each(ctx: Context, kind: str, keys: Iterable[str], cap: int) -> bool:
    """Spend one of today's share for every key, when every one has one
    left (True); otherwise spend nothing (False)."""
    wanted = list(keys)
    if any(used(ctx, kind, key) >= cap for key in wanted):
        return False
    for key in wanted:
        ctx.store.add_daily_count(kind, key, _day(ctx))
    return True
