"""The one place a game ends.

:func:`conclude` is called for every way a game can end: a move that makes a
loop or a line (or leaves no legal move in 8x8 Trax), a resignation, an
accepted draw, a forfeit on time, a player who leaves, and a director's
decision.  It writes the result, clears what was pending on the board,
rates a rated game, and moves a tournament on.
"""

from __future__ import annotations

from dataclasses import replace

from . import computer
from .boards import Game, other_colour
from .context import Context
from .ratings import record_result
from .store.records import User
from .times import stamp
from .tournaments import Progress, board_finished

#: Why a game ended: the engine's reasons (loop, line, draw; lasttile: the
#: 2017 limited-tiles ending; points: PointTrax) and the server's.
REASONS = ("loop", "line", "draw", "lasttile", "points", "agreed", "resign", "cancelled", "forfeit", "adjudicated",
           "lapsed", "declined")
#: Ends that leave a game unrated: before both players had moved, or a
#: challenge the player challenged never took up (:mod:`.consent`).
UNRATED = ("cancelled", "lapsed", "declined")


def conclude(ctx: Context, game: Game, winner: str | None, reason: str) -> list[Progress]:
    """End the game: ``winner`` is a colour (None for a draw or a
    cancellation).  A rated game (unless cancelled) updates both ratings; a
    cancelled one is no longer rated.  What its tournament did because of it
    is returned.  A game its challenged player never agreed to is not
    rated, however it ends."""
    assert reason in REASONS, reason
    now = stamp(ctx.now)
    ended = {"status": "finished", "winner": winner, "reason": reason, "pending_kind": None, "pending_by": None,
             "updated_at": now, "finished_at": now}
    agreed = game.row.accepted_at is not None or game.row.challenged_id is None
    rated = game.row.rated
    if reason in UNRATED or not agreed:
        # the board mail of the cancellation still shows the game as it was
        # offered; the stored board, and every later view, is unrated
        game.change(ctx, **ended, rated=False)
        game.row = replace(game.row, rated=rated)
    else:
        game.change(ctx, **ended)
    ctx.store.clear_pending_moves(game.number)
    if game.row.rated and reason not in UNRATED and agreed:
        if computer.computer_in(game) is not None:  # against the computer: rated apart
            apart = computer.record_result(ctx.store, game.row, ctx.now)
            game.row = replace(game.row, apart_before=apart["apart_before"], apart_after=apart["apart_after"])
        else:
            changes = record_result(ctx.store, game.row, ctx.now)
            game.row = replace(game.row, white_before=changes["white_before"], white_after=changes["white_after"],
                               black_before=changes["black_before"], black_after=changes["black_after"])
    if game.row.tournament:
        return board_finished(ctx, game)
    return []


def forfeit(ctx: Context, game: Game, user: User) -> list[Progress]:
    """``user`` loses the game by forfeit (out of time, gone, withdrawn)."""
    colour = game.colour_of(user)
    assert colour is not None, "a forfeit is by one of the players"
    return conclude(ctx, game, other_colour(colour), "forfeit")
