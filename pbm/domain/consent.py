"""No game without both players: a board from a challenge waits for the
consent of the player challenged.

A challenge with a password makes its board at once (so that the
challenger can play his first move), but the player challenged has agreed
to nothing: until he plays his first move, or answers ``accept`` on the
board (a move word, or a reply), the game is not rated, he gets no
reminders, and his clock does not forfeit him.  When his forfeit time
passes without an answer (or he answers ``reject``) the game lapses,
unrated, as an online server aborts a game nobody started.  Boards against
the computer, tournament boards, and challenges to a player who takes
every challenge at once (``set USERID PASSWORD challenges open``) need no
consent.
"""

from __future__ import annotations

from typing import Any

from .boards import Game
from .context import Context
from .events import BoardEvent, ChallengeAccepted, ChallengeDeclined
from .refusals import ChallengeRefusedError
from .results import conclude
from .store.records import BoardRecord, User
from .times import stamp
from .tournaments import Progress


def waits_for(ctx: Context, challenged: User, level: int | None) -> User | None:
    """The player a new board from a challenge must wait for: the one
    challenged, unless it is the computer (``level``) or a player who takes
    every challenge at once; then None.  A player who has as many
    challenges waiting for his answer as ``[limits]
    open_challenges_per_player`` allows is refused more."""
    if level is not None or challenged.computer or challenged.open_challenges:
        return None
    cap = ctx.config.limits.open_challenges_per_player
    if ctx.store.count_open_challenges(challenged.id) >= cap:
        raise ChallengeRefusedError("challenges-waiting", {"userid": challenged.userid, "cap": cap})
    return challenged


def awaited(row: BoardRecord) -> bool:
    """Does the board still wait for the consent of the player challenged?"""
    return row.accepted_at is None and row.challenged_id is not None


def consent(ctx: Context, game: Game, user: User, events: list[BoardEvent], *, moving: bool) -> bool:
    """``user`` agrees to the game, if it waits for him (by a move, or by
    an ``accept``: then his clock starts now, when it is his turn).  True
    when it did."""
    if not awaited(game.row) or game.row.challenged_id != user.id:
        return False
    changed: dict[str, Any] = {"accepted_at": stamp(ctx.now)}
    if not moving and game.to_move.id == user.id:
        changed["turn_since"] = stamp(ctx.now)
    game.change(ctx, **changed)
    if not moving:
        events.append(ChallengeAccepted(user.userid, bool(game.row.rated)))
    return True


def decline(ctx: Context, game: Game, user: User, events: list[BoardEvent]) -> list[Progress]:
    """The player challenged says no: the game ends, unrated."""
    events.append(ChallengeDeclined(user.userid))
    return conclude(ctx, game, None, "declined")


def lapse(ctx: Context, game: Game) -> list[Progress]:
    """Nobody answered the challenge in time: the game ends, unrated."""
    return conclude(ctx, game, None, "lapsed")
