"""Clocks: time used per player, reminders, forfeits and vacations.

The player to move has had the turn since ``boards.turn_since``; time spent
on vacation does not count.  :func:`due` says what the clock work owes a
board as of one moment: a reminder (``Nag:``) once the wait reaches the nag
time and once a day after, a forfeit when it reaches the forfeit time (or
when the player's total thinking time runs out); a draw offer the late
player left unanswered is accepted instead.  :func:`act` does it.  Both are
idempotent as of one moment: running the clock work twice sends nothing
twice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from . import consent
from .boards import Game, colour_of_turn, colour_to_move, load_game, mover_id
from .context import Context
from .events import BoardEvent, ChallengeLapsed, DrawAtForfeit, TimedOut
from .refusals import NotAvailableError, NothingPendingError, VacationRefusedError
from .results import conclude, forfeit
from .security import is_held_up
from .store import Store
from .store.records import BoardRecord, MoveRecord, User
from .store.records import Vacation as VacationRecord
from .times import DAY, when
from .tournaments import Progress

Leave = list[tuple[datetime, datetime]]


def paused(start: datetime, end: datetime, leave: Leave) -> timedelta:
    """How much of [start, end) falls in the periods of ``leave``."""
    total = timedelta()
    for a, b in leave:
        lo, hi = max(a, start), min(b, end)
        if hi > lo:
            total += hi - lo
    return total


#: A period with no end (none is stored since holds end by themselves).
OPEN_END = datetime(9999, 12, 31, tzinfo=UTC)


def leave_of(store: Store, user_id: int, kind: str | None = None) -> Leave:
    """The times a player's clock stands still: their vacations, and the
    holds while mail to them bounced (:mod:`.bounces`); with ``kind``
    (``vacation``, ``hold``) only those."""
    return [(when(r.starts_at), when(r.ends_at) if r.ends_at else OPEN_END)
            for r in store.leave_of(user_id) if kind is None or r.kind == kind]


def away_until(leave: Leave, now: datetime) -> datetime | None:
    """The end of the vacation under way at ``now``, if any."""
    for a, b in leave:
        if a <= now < b:
            return b
    return None


def waited(row: BoardRecord, leave: Leave, now: datetime) -> timedelta:
    """How long the player to move has had the turn, vacations left out."""
    since = when(row.turn_since or row.created_at)
    return max(now - since - paused(since, now, leave), timedelta())


@dataclass(frozen=True)
class BoardClock:
    """A board's time: per colour the time used (the turn under way
    included), how long the player to move has waited so far, and until
    when each player is on vacation."""

    used: dict[str, timedelta]
    waiting: timedelta | None
    away: dict[str, datetime | None]
    held: dict[str, datetime | None]  # mail to the player bounces: their clock stands still until then


def board_clock(store: Store, row: BoardRecord, moves: list[MoveRecord], now: datetime) -> BoardClock:
    ids = {"white": row.white_id, "black": row.black_id}
    rows = {c: store.leave_of(uid) for c, uid in ids.items()}
    periods = {c: [(when(r.starts_at), when(r.ends_at) if r.ends_at else OPEN_END, r.kind)
                   for r in rows[c]] for c in ids}
    leave = {c: [(a, b) for a, b, _ in periods[c]] for c in ids}
    used = {"white": timedelta(), "black": timedelta()}
    previous = when(row.created_at)
    for m in moves:
        colour = colour_of_turn(m.ply)
        played = when(m.played_at)
        used[colour] += max(played - previous - paused(previous, played, leave[colour]), timedelta())
        previous = played
    waiting = None
    if row.status == "active":
        colour = colour_to_move(len(row.moves.split()))
        waiting = waited(row, leave[colour], now)
        used[colour] += waiting
    away = {c: away_until([(a, b) for a, b, kind in periods[c] if kind == "vacation"], now) for c in ids}
    held = {c: away_until([(a, b) for a, b, kind in periods[c] if kind == "hold"], now) for c in ids}
    return BoardClock(used, waiting, away, held)


# ----------------------------------------------------------------------------
# the clock work


@dataclass(frozen=True)
class Due:
    """What the clock work owes a board: a reminder (``nag`` is the how
    manyth, ``waited`` and ``left`` the time so far and to the forfeit) or
    a forfeit (``forfeit``; ``total`` when the total thinking time ran out;
    ``lapse``: the game was never agreed to, and ends unrated instead)."""

    forfeit: bool
    total: bool = False
    lapse: bool = False
    nag: int = 0
    waited: timedelta = timedelta()
    left: timedelta = timedelta()


#: How long at most a forfeit waits for a player whose own address is
#: blocked from logging in (someone may be sending wrong passwords from it).
BLOCK_GRACE = DAY


def due(ctx: Context, row: BoardRecord) -> Due | None:
    """What is due on an active board as of ``ctx.now``, if anything.  A
    forfeit waits while the player to move is blocked from logging in from
    one of their own addresses (after wrong passwords from it), a day at
    most.  A board whose challenged player has not agreed to the game
    lapses instead of forfeiting, and he gets no reminders."""
    mover = mover_id(row)
    wait = waited(row, leave_of(ctx.store, mover), ctx.now)
    forfeit = wait >= row.forfeit_days * DAY
    total_out = False
    if not forfeit and row.total_days:
        clock = board_clock(ctx.store, row, ctx.store.moves_of(row.number), ctx.now)
        colour = colour_to_move(len(row.moves.split()))
        total_out = forfeit = clock.used[colour] >= row.total_days * DAY
    waiting_for_consent = consent.awaited(row)
    if forfeit:
        if waiting_for_consent:
            return Due(forfeit=True, lapse=True)
        if wait < row.forfeit_days * DAY + BLOCK_GRACE and is_held_up(ctx, ctx.store.user_by_id(mover)):
            return None
        return Due(forfeit=True, total=total_out)
    if wait < row.nag_days * DAY or (waiting_for_consent and mover == row.challenged_id):
        return None
    nag = int((wait - row.nag_days * DAY) / DAY) + 1
    if nag <= row.nags:
        return None
    return Due(forfeit=False, nag=nag, waited=wait, left=row.forfeit_days * DAY - wait)


@dataclass(frozen=True)
class Acted:
    """What the clock work did to a board: the event the board mail tells
    (a forfeit, or a draw accepted at the forfeit), or None for a reminder
    to the player to move; and what a tournament did because of it."""

    game: Game
    event: BoardEvent | None
    progress: list[Progress]


def act(ctx: Context, row: BoardRecord, what: Due) -> Acted:
    """Do what is due on the board."""
    game = load_game(ctx, row.number)
    user = game.to_move
    if not what.forfeit:
        game.change(ctx, nags=what.nag)
        return Acted(game, None, [])
    if what.lapse:
        challenged = game.white if game.white.id == row.challenged_id else game.black
        return Acted(game, ChallengeLapsed(challenged.userid), consent.lapse(ctx, game))
    if row.pending_kind == "draw" and row.pending_by != user.id:
        progress = conclude(ctx, game, None, "agreed")
        event: BoardEvent = DrawAtForfeit(user.userid, game.opponent(user).userid)
    else:
        progress = forfeit(ctx, game, user)
        days = row.total_days if what.total else row.forfeit_days
        assert days is not None
        event = TimedOut(user.userid, what.total, days)
    return Acted(game, event, progress)


# ----------------------------------------------------------------------------
# vacation


def days_taken(leave_rows: list[VacationRecord], year: int) -> int:
    """Vacation days used in a calendar year: each leave that began in that
    year counts its length, a part of a day counting as a whole one."""
    total = 0
    for v in leave_rows:
        start, end = when(v.starts_at), when(v.ends_at)
        if start.year == year:
            total += math.ceil((end - start) / DAY - 1e-9)
    return total


@dataclass(frozen=True)
class Vacation:
    """A player's vacation as booked: ``until`` (None: ended now) and the
    days ``used`` of the yearly ``cap``."""

    until: datetime | None
    used: int
    cap: int


def book_vacation(ctx: Context, user: User, days: int | None) -> Vacation:
    """Start a vacation of ``days`` (replacing the rest of one under way), or
    end the one under way (``days`` None)."""
    cap = ctx.config.games.vacation_days_per_year
    if cap == 0:
        raise NotAvailableError("vacations-off")
    store, now = ctx.store, ctx.now
    rows = store.vacations_of(user.id)
    current = next((v for v in rows if when(v.starts_at) <= now < when(v.ends_at)), None)
    if days is None:
        if current is None:
            raise NothingPendingError("not-on-vacation")
        store.end_vacation(current.id, now)
        until = None
    else:
        if current is not None:  # a new booking replaces the rest of the current one
            store.end_vacation(current.id, now)
            rows = store.vacations_of(user.id)
        used = days_taken(rows, now.year)
        if used + days > cap:
            left = max(cap - used, 0)
            raise VacationRefusedError("vacation-too-long", {"days": days, "left": left, "cap": cap})
        until = now + days * DAY
        store.add_vacation(user.id, now, until)
    return Vacation(until, days_taken(store.vacations_of(user.id), now.year), cap)
