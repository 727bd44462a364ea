"""Moments and durations, as stored and as mail shows them.

Times are stored as ISO 8601 text in UTC (:func:`stamp`, read back by
:func:`when`); mail shows them as ``2026-03-01 12:10 UTC`` (:func:`shown`)
and durations as ``3d 4h`` (:func:`span`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

DAY = timedelta(days=1)


def stamp(now: datetime) -> str:
    """A moment as stored: ISO 8601 text, whole seconds unless the time has
    a fraction (retry times do)."""
    return now.isoformat(timespec="seconds" if not now.microsecond else "microseconds")


def when(text: str) -> datetime:
    """A stored moment; one without a zone is taken as UTC."""
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def shown(moment: datetime | str | None) -> str | None:
    """A time as mail shows it: ``2026-03-01 12:10 UTC``."""
    if moment is None:
        return None
    if isinstance(moment, str):
        moment = when(moment)
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def span(delta: timedelta) -> str:
    """A duration in words a player reads at a glance: ``3d 4h``, ``5h 12m``."""
    minutes = int(delta.total_seconds() // 60)
    d, rest = divmod(minutes, 24 * 60)
    h, m = divmod(rest, 60)
    if d:
        return f"{d}d {h}h"
    return f"{h}h {m}m"
