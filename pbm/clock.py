"""Clocks: time used per player, reminders, forfeits and vacations.

The player to move has had the turn since ``boards.turn_since``; time spent
on vacation does not count.  :func:`tick` does the clock work for every
active board as of one moment: a reminder (``Nag:``) once the wait reaches
the nag time and once a day after, a forfeit when it reaches the forfeit
time (or when the player's total thinking time runs out); a draw offer the
late player left unanswered is accepted instead.  The daemon calls it every
few minutes and ``pbm tick`` once; either way it is idempotent, so running it
twice at the same moment sends nothing twice.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from .errors import NotAvailableError, NothingPendingError, VacationRefusedError
from .mailpolicy import wire_bytes
from .replies import Reply, Request, handles
from .store import Row, Store, stamp

DAY = timedelta(days=1)
log = logging.getLogger("pbm.clock")

Leave = list[tuple[datetime, datetime]]


def when(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def paused(start: datetime, end: datetime, leave: Leave) -> timedelta:
    """How much of [start, end) falls in the periods of ``leave``."""
    total = timedelta()
    for a, b in leave:
        lo, hi = max(a, start), min(b, end)
        if hi > lo:
            total += hi - lo
    return total


def leave_of(store: Store, user_id: int) -> Leave:
    return [(when(v["starts_at"]), when(v["ends_at"])) for v in store.vacations_of(user_id)]


def away_until(leave: Leave, now: datetime) -> datetime | None:
    """The end of the vacation under way at ``now``, if any."""
    for a, b in leave:
        if a <= now < b:
            return b
    return None


def mover_id(row: Row) -> int:
    """Whose turn it is, from the number of turns played (white starts)."""
    ply = len(row["moves"].split())
    return row["white_id"] if ply % 2 == 0 else row["black_id"]


def waited(row: Row, leave: Leave, now: datetime) -> timedelta:
    """How long the player to move has had the turn, vacations left out."""
    since = when(row["turn_since"] or row["created_at"])
    return max(now - since - paused(since, now, leave), timedelta())


def shown(moment: datetime | str | None) -> str | None:
    """A time as mail shows it: ``2026-03-01 12:10 UTC``."""
    if moment is None:
        return None
    if isinstance(moment, str):
        moment = when(moment)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def span(delta: timedelta) -> str:
    """A duration in words a player reads at a glance: ``3d 4h``, ``5h 12m``."""
    minutes = int(delta.total_seconds() // 60)
    d, rest = divmod(minutes, 24 * 60)
    h, m = divmod(rest, 60)
    if d:
        return f"{d}d {h}h"
    return f"{h}h {m}m"


@dataclass
class BoardClock:
    """What a board mail shows about time."""

    used: dict[str, timedelta]  # per colour, the turn under way included
    waiting: timedelta | None  # the player to move, so far
    away: dict[str, datetime | None]  # per colour: on vacation until

    def context(self) -> dict[str, Any]:
        return {
            "used": {c: span(t) for c, t in self.used.items()},
            "waiting": span(self.waiting) if self.waiting is not None else None,
            "away": {c: shown(t) for c, t in self.away.items()},
        }


def board_clock(store: Store, row: Row, moves: list[Row], now: datetime) -> BoardClock:
    ids = {"white": row["white_id"], "black": row["black_id"]}
    leave = {c: leave_of(store, uid) for c, uid in ids.items()}
    used = {"white": timedelta(), "black": timedelta()}
    previous = when(row["created_at"])
    for m in moves:
        colour = "white" if m["ply"] % 2 == 1 else "black"
        played = when(m["played_at"])
        used[colour] += max(played - previous - paused(previous, played, leave[colour]), timedelta())
        previous = played
    waiting = None
    if row["status"] == "active":
        colour = "white" if mover_id(row) == row["white_id"] else "black"
        waiting = waited(row, leave[colour], now)
        used[colour] += waiting
    return BoardClock(used, waiting, {c: away_until(leave[c], now) for c in ids})


# ----------------------------------------------------------------------------
# the clock work


def tick(store: Store, config, now: datetime, positions=None) -> list[Reply]:
    """Reminders and forfeits due at ``now`` on every active board.  Runs in
    the caller's transaction; each board in its own savepoint, so one board
    that fails is logged and skipped, and the others go on."""
    replies: list[Reply] = []
    for row in store.active_boards():
        try:
            with store.atomic():
                replies.extend(_check(store, config, row, now, positions))
        except Exception:  # noqa: BLE001 - one broken board must not stop the clock
            log.exception("clock work failed on board %s", row["number"])
    from .tournaments.director import start_due

    try:
        with store.atomic():
            replies.extend(start_due(Request(store, config, now, config.server.address, None,  # type: ignore[arg-type]
                                             positions=positions)))
    except Exception:  # noqa: BLE001
        log.exception("clock work failed starting tournaments")
    return replies


def _check(store: Store, config, row: Row, now: datetime, positions) -> list[Reply]:
    from .games import board_mail, finish, load_game  # games imports this module

    mover = mover_id(row)
    leave = leave_of(store, mover)
    wait = waited(row, leave, now)
    forfeit = wait >= row["forfeit_days"] * DAY
    total_out = False
    if not forfeit and row["total_days"]:
        clock = board_clock(store, row, store.moves_of(row["number"]), now)
        colour = "white" if mover == row["white_id"] else "black"
        total_out = forfeit = clock.used[colour] >= row["total_days"] * DAY
    nag_due = 0
    if not forfeit and wait >= row["nag_days"] * DAY:
        nag_due = int((wait - row["nag_days"] * DAY) / DAY) + 1
        if nag_due <= row["nags"]:
            return []
    if not forfeit and not nag_due:
        return []

    req = Request(store, config, now, config.server.address, None, positions=positions)  # type: ignore[arg-type]
    game = load_game(req, row["number"])
    user = game.to_move
    if forfeit:
        if row["pending_kind"] == "draw" and row["pending_by"] != mover:
            finish(req, game, None, "agreed")
            event = {"kind": "draw-at-forfeit", "player": user["userid"],
                     "by": game.opponent(user)["userid"]}
        else:
            finish(req, game, "black" if game.colour_of(user) == "white" else "white", "forfeit")
            event = {"kind": "timeout", "player": user["userid"], "total": total_out,
                     "days": row["total_days"] if total_out else row["forfeit_days"]}
        _keep(positions, game)
        return [board_mail(req, game, events=[event]), *req.followups]
    store.update_board(row["number"], nags=nag_due)
    game.row["nags"] = nag_due
    left = row["forfeit_days"] * DAY - wait
    mail = board_mail(req, game, template="replies/nag.txt")
    context = {**mail.context, "userid": user["userid"], "waited": span(wait),
               "forfeit_at": shown(now + left), "left": span(left)}
    _keep(positions, game)
    return [Reply(mail.template, req.addresses(user), context)]


def _keep(positions, game) -> None:
    if positions is not None:
        positions.keep(game.number, game.board, game.row["moves"])


# ----------------------------------------------------------------------------
# vacation


def days_taken(leave_rows: list[Row], year: int) -> int:
    """Vacation days used in a calendar year: each leave that began in that
    year counts its length, a part of a day counting as a whole one."""
    total = 0
    for v in leave_rows:
        start, end = when(v["starts_at"]), when(v["ends_at"])
        if start.year == year:
            total += math.ceil((end - start) / DAY - 1e-9)
    return total


@handles("vacation")
def vacation(req: Request) -> list[Reply]:
    from .games import opponents_in_play

    a = req.args
    user = req.login(a.userid, a.password)
    cap = req.config.games.vacation_days_per_year
    if cap == 0:
        raise NotAvailableError("vacations are turned off on this server")
    store, now = req.store, req.now
    rows = store.vacations_of(user["id"])
    current = next((v for v in rows if when(v["starts_at"]) <= now < when(v["ends_at"])), None)
    if a.days is None:
        if current is None:
            raise NothingPendingError("you are not on vacation", what="vacation")
        store.end_vacation(current["id"], now)
        until = None
    else:
        if current is not None:  # a new booking replaces the rest of the current one
            store.end_vacation(current["id"], now)
            rows = store.vacations_of(user["id"])
        used = days_taken(rows, now.year)
        if used + a.days > cap:
            left = max(cap - used, 0)
            raise VacationRefusedError(
                f"{a.days} days is more than you have left: {left} of {cap} days this year",
                left=left, cap=cap,
            )
        until = now + a.days * DAY
        store.add_vacation(user["id"], now, until)
    used = days_taken(store.vacations_of(user["id"]), now.year)
    context = {"userid": user["userid"], "until": shown(until),
               "used": used, "cap": cap, "left": max(cap - used, 0)}
    replies = [Reply("replies/vacation.txt", req.account_mail(user), context)]
    for opponent, boards in opponents_in_play(req, user):
        replies.append(Reply("replies/vacation-notice.txt", req.addresses(opponent),
                             {**context, "opponent": opponent["userid"], "boards": boards}))
    return replies


# ----------------------------------------------------------------------------
# running the clock work with its mail


class _DryRun(Exception):
    pass


def run_tick(pipeline, now: datetime, *, dry_run: bool = False) -> list:
    """Do the clock work as of ``now`` in one transaction and queue its mail;
    returns the messages (with ``dry_run`` nothing is kept)."""
    store = pipeline.store
    messages: list = []
    try:
        with store.atomic():
            replies = tick(store, pipeline.config, now, pipeline.positions)
            messages = pipeline._compose(replies, "clock", now)
            for m in messages:
                store.queue_reply(None, str(m["To"]), wire_bytes(m), now)
            if dry_run:
                raise _DryRun
    except _DryRun:
        pass
    if messages:
        log.info("clock work at %s: %d mail(s)", stamp(now), len(messages))
    return messages
