"""Challenges: who may be challenged, and by whom a board is made at once.

A challenge that carries the password of one of its two players makes the
board at once (that player is the challenger).  One without it, from anyone,
makes nothing: it invites the two players, either of whom can then send the
challenge with their password.  Both kinds are refused when a player has
signed off, refuses challenges of the game type, plays as many games as
their limit allows, or has had their day's share of new boards (or of
invitations).  The computer itself has no such limits, but a person's
games against it count in theirs like any other, and a person plays at
most ``[computer] games_per_player`` games against it at once.
"""

from __future__ import annotations

from datetime import UTC, datetime, time

from pbm.grammar import Password, UserId

from . import limits
from .accounts import login
from .context import Context
from .refusals import AccountLockedError, ChallengeRefusedError, NotAllowedError
from .store.records import User


def _day_start(now: datetime) -> datetime:
    return datetime.combine(now.date(), time(), tzinfo=UTC)


def check_players(ctx: Context, game: str, white: User, black: User) -> None:
    """May these two be given a new board of ``game`` now?"""
    if white.id == black.id:
        raise ChallengeRefusedError("same-player")
    store = ctx.store
    caps = ctx.config.limits
    for user in (white, black):
        if user.computer:  # no limits of its own: its opponents' count its games, and the cap below
            continue
        pref = store.preference(user.id, game)
        if user.signed_off:
            raise ChallengeRefusedError("signed-off", {"userid": user.userid})
        if not pref.accepting:
            raise ChallengeRefusedError("not-accepting", {"userid": user.userid, "game": game})
        limit = pref.game_limit if pref.game_limit is not None else ctx.config.games.default_limit
        if limit and store.count_active(user.id, game) >= limit:
            raise ChallengeRefusedError("game-limit", {"userid": user.userid, "limit": limit, "game": game})
        if store.boards_created_since(user.id, _day_start(ctx.now)) >= caps.new_boards_per_player_per_day:
            raise ChallengeRefusedError(
                "boards-today", {"userid": user.userid, "cap": caps.new_boards_per_player_per_day}
            )
    cap = ctx.config.computer.games_per_player
    machine, people = [u for u in (white, black) if u.computer], [u for u in (white, black) if not u.computer]
    if cap and machine and people and store.computer_games_of(people[0].id) >= cap:
        userid, name = people[0].userid, machine[0].userid
        raise ChallengeRefusedError(
            "computer-games", {"userid": userid, "cap": cap, "computer": name}
        )


def challenger(ctx: Context, userids: tuple[UserId, UserId], password: Password) -> User:
    """The one of the two players whose password this is (logged in); the
    player who mails from one of their own addresses is tried first."""
    def mine(userid: UserId) -> bool:
        row = ctx.store.find_user(userid.key)
        own = ctx.store.confirmed_addresses(row.id) if row else []
        return (ctx.sender or "").lower() in (a.lower() for a in own)

    refusals: list[NotAllowedError | AccountLockedError] = []
    for userid in sorted(dict.fromkeys(userids), key=lambda u: not mine(u)):
        try:
            return login(ctx, userid, password)
        except (NotAllowedError, AccountLockedError) as exc:
            refusals.append(exc)
    raise refusals[0]


def invite(ctx: Context, white: User, black: User) -> None:
    """Count an invitation to each of the two, within the day's share."""
    cap = ctx.config.limits.invitations_per_player_per_day
    for user in (white, black):
        if not limits.left(ctx, "invitation", str(user.id), cap):
            raise ChallengeRefusedError(
                "invitations-today", {"userid": user.userid, "cap": cap}
            )
    limits.spend_each(ctx, "invitation", (str(user.id) for user in (white, black)), cap)
