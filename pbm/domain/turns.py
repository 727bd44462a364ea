"""What players do on a board: moves (and the queued answers they set off),
submitted moves, resignations, draw offers and take-backs.

Each action records what happened in a :class:`Turn`: the events the board
mail tells, private notices for a player whose queue was cancelled or
failed, and what a tournament did when the game ended.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbm.grammar import WrittenMove
from pbm.trax import Board, TraxError, get_variant

from . import consent, luck
from .boards import Game, other_colour
from .context import Context
from .events import (
    BoardEvent,
    Cancelled,
    Cleared,
    DrawAccepted,
    Ended,
    Moved,
    Passed,
    Proposed,
    Rejected,
    Resigned,
    Scored,
    UndoAccepted,
)
from .refusals import (
    GameOverError,
    IllegalMoveReplyError,
    NothingPendingError,
    NotYourTurnError,
    PbmError,
    StaleMoveError,
)
from .results import conclude
from .store.records import User
from .times import stamp
from .tournaments import Progress

#: A queue goes on answering moves at most this deep in one command.
MAX_QUEUE_DEPTH = 200


@dataclass(frozen=True)
class QueueNotice:
    """A player's queued line was ``cancelled`` (the opponent played another
    move than expected) or ``failed`` (its move is illegal now)."""

    kind: str
    user: User
    number: int
    context: dict[str, Any]


@dataclass
class Turn:
    """What one command did to a board."""

    events: list[BoardEvent] = field(default_factory=list)
    notices: list[QueueNotice] = field(default_factory=list)
    progress: list[Progress] = field(default_factory=list)


# ----------------------------------------------------------------------------
# what must hold before a move


def require_active(game: Game) -> None:
    if not game.active:
        raise GameOverError("board-finished", {"board": game.number}, view_game=game)


def require_turn(game: Game, user: User) -> None:
    if game.to_move.id != user.id:
        raise NotYourTurnError(
            "not-your-turn", {"board": game.number, "to_move": game.to_move.userid},
            view_game=game,
        )


def check_number(game: Game, written: WrittenMove) -> None:
    """The ``#N`` guard of a move: N must be the next move's number."""
    if written.number is not None and written.number != game.board.ply + 1:
        raise StaleMoveError(
            "stale-number", {"number": written.number, "board": game.number, "next": game.board.ply + 1},
            view_game=game,
        )


# ----------------------------------------------------------------------------
# moves


def try_move(ctx: Context, game: Game, user: User, text: str, turn: Turn) -> None:
    """Play ``text`` for ``user``; an illegal move is refused with the board."""
    try:
        play(ctx, game, user, text, turn)
    except TraxError as exc:
        raise IllegalMoveReplyError(exc.code, exc.params, view_game=game) from None


def _notice(game: Game, kind: str, user: User, **context: Any) -> QueueNotice:
    return QueueNotice(kind, user, game.number, {
        "number": game.number, "title": get_variant(game.row.game).title, **context, "userid": user.userid,
    })


def play(ctx: Context, game: Game, user: User, text: str, turn: Turn, *, auto: bool = False, depth: int = 0) -> None:
    """Play ``text`` for ``user`` (whose turn it is), then any queued answer."""
    store = ctx.store
    board = game.board
    other = game.opponent(user)
    line = store.queued(game.number, other.id)
    move = board.parse_move(text)  # TraxError propagates
    follow: list[str] | None = None
    if line:
        words = line.split()
        if words[0] == "?":
            try:
                met = board.parse_move(words[1]) == move
            except TraxError:
                met = False
            if met:
                follow = words[2:]
            else:
                store.set_queued(game.number, other.id, None)
                turn.notices.append(_notice(game, "cancelled", other, expected=words[1], played=str(move)))
        else:
            follow = words
    board.play(move)
    consent.consent(ctx, game, user, turn.events, moving=True)  # a first move agrees to the game
    _record(ctx, game, user, str(move), auto)
    turn.events.append(Moved(user.userid, str(move), auto, board.ply))
    _scored(game, turn)
    outcome = board.outcome()
    if outcome is not None:
        turn.progress += conclude(ctx, game, outcome.winner, outcome.reason)
        turn.events.append(Ended(outcome.winner, outcome.reason))
        return
    if board.variant.drawn:
        draw_next(ctx, game, turn)
        return
    if follow:
        rest = follow[1:]
        store.set_queued(game.number, other.id, ("? " + " ".join(rest)) if rest else None)
        if depth > MAX_QUEUE_DEPTH:
            return
        if follow[0] == "resign":
            resign(ctx, game, other, turn)
            return
        try:
            play(ctx, game, other, follow[0], turn, auto=True, depth=depth + 1)
        except TraxError as exc:
            store.set_queued(game.number, other.id, None)
            turn.notices.append(_notice(game, "failed", other, move=follow[0], refusal=exc))


def _record(ctx: Context, game: Game, user: User, move: str, auto: bool) -> None:
    """Store a turn just played on the board (a tile, or a LuckyTrax pass)."""
    store = ctx.store
    store.record_move(game.number, game.board.ply, move, user.id, auto, ctx.now)
    game.change(ctx, moves=f"{game.row.moves} {move}" if game.row.moves else move, updated_at=stamp(ctx.now),
                pending_kind=None, pending_by=None, turn_since=stamp(ctx.now), nags=0)
    store.set_submitted(game.number, user.id, None)


def _scored(game: Game, turn: Turn) -> None:
    """PointTrax: who scored what in the turn just played, and a cleared area."""
    board = game.board
    if not board.variant.scores:
        return
    for s in board.last_scored():
        turn.events.append(Scored(game.player(s.colour).userid, s.colour, s.kind, s.tiles))
    if board.reset_due:
        turn.events.append(Cleared(game.to_move.userid))


#: More passes in a row than this (each a tile that fits nowhere) is a bug, not luck.
MAX_PASSES = 100


def draw_next(ctx: Context, game: Game, turn: Turn) -> None:
    """LuckyTrax: draw the tile of the turn that begins; a tile that fits
    nowhere is passed for its player at once (the pass is recorded and
    told), and the other player gets a fresh draw."""
    board = game.board
    draws = luck.draws_of(game.row)[: board.ply]
    for _ in range(MAX_PASSES):
        face = luck.draw_face()
        draws.append(face)
        if board.placements(face):
            break
        player = game.to_move
        board.play("pass")
        _record(ctx, game, player, "pass", True)
        turn.events.append(Passed(player.userid, face, board.ply))
    else:
        raise AssertionError(f"{MAX_PASSES} passes in a row on board {game.number}")
    game.change(ctx, draws=" ".join(map(str, draws)))


def trial(game: Game, text: str) -> tuple[Board, str]:
    """The position after the move ``text`` on a copy of the board (for
    submit and confirm), and the move as the engine writes it."""
    board = game.board.copy()
    try:
        played = board.play(text)
    except TraxError as exc:
        raise IllegalMoveReplyError(exc.code, exc.params, view_game=game) from None
    return board, str(played)


def submit(ctx: Context, game: Game, user: User, move: str) -> None:
    """Keep ``move`` (already tried) to be confirmed."""
    ctx.store.set_submitted(game.number, user.id, move, game.board.ply + 1)


def confirm(ctx: Context, game: Game, user: User, turn: Turn) -> None:
    """Play the user's submitted move."""
    pending = ctx.store.submitted(game.number, user.id)
    if pending is None:
        raise NothingPendingError("no-submitted-move", {"board": game.number})
    if pending.ply != game.board.ply + 1:
        raise StaleMoveError(
            "stale-submitted-move", {"move": pending.move, "ply": pending.ply}, view_game=game,
        )
    require_turn(game, user)
    try_move(ctx, game, user, pending.move, turn)


def queue(ctx: Context, game: Game, user: User, words: list[str], turn: Turn) -> bool:
    """A line of moves: on the user's turn the first is played at once and
    the rest wait for the answers they expect; otherwise the whole line
    waits (it can only be checked when its turn comes).  True when a move
    was played."""
    if game.to_move.id == user.id:
        try_move(ctx, game, user, words[0], turn)
        if game.active and len(words) > 1:
            ctx.store.set_queued(game.number, user.id, "? " + " ".join(words[1:]))
        return True
    ctx.store.set_queued(game.number, user.id, " ".join(words))
    return False


# ----------------------------------------------------------------------------
# resigning, offers and take-backs


def resign(ctx: Context, game: Game, user: User, turn: Turn) -> None:
    """The user gives up; before both players have moved a game is cancelled
    instead (a tournament game never is)."""
    if game.board.ply < 2 and not game.row.tournament:
        turn.progress += conclude(ctx, game, None, "cancelled")
        turn.events.append(Cancelled(user.userid))
        return
    colour = game.colour_of(user)
    assert colour is not None
    turn.progress += conclude(ctx, game, other_colour(colour), "resign")
    turn.events.append(Resigned(user.userid))


def resign_or_queue(ctx: Context, game: Game, user: User, turn: Turn) -> bool:
    """Resign now, or, out of turn once both have moved, when the turn
    comes (queued).  True when it was queued."""
    if game.to_move.id != user.id and game.board.ply >= 2:
        ctx.store.set_queued(game.number, user.id, "resign")
        return True
    resign(ctx, game, user, turn)
    return False


def propose(ctx: Context, game: Game, user: User, kind: str, turn: Turn) -> None:
    """Offer a draw or ask to take the last move back (``kind`` ``draw`` or
    ``undo``); proposing what the opponent proposed accepts it."""
    if kind == "undo" and game.row.tournament:
        raise PbmError("no-undo-in-tournament", {"label": game.row.label}, view_game=game)
    if kind == "undo" and game.board.ply == 0:
        raise NothingPendingError("no-undo-yet")
    if game.row.pending_kind == kind and game.row.pending_by != user.id:
        answer(ctx, game, user, accept=True, turn=turn)
        return
    game.change(ctx, pending_kind=kind, pending_by=user.id, updated_at=stamp(ctx.now))
    turn.events.append(Proposed(user.userid, kind))


def answer(ctx: Context, game: Game, user: User, *, accept: bool, turn: Turn) -> None:
    """Accept or reject the opponent's pending offer or take-back; with
    nothing pending, the player challenged accepts or declines the game."""
    kind, by = game.row.pending_kind, game.row.pending_by
    if (not kind or by == user.id) and consent.awaited(game.row) and game.row.challenged_id == user.id:
        if accept:
            consent.consent(ctx, game, user, turn.events, moving=False)
        else:
            turn.progress += consent.decline(ctx, game, user, turn.events)
        return
    if not kind or by == user.id:
        raise NothingPendingError("no-proposal", {"board": game.number})
    store = ctx.store
    game.change(ctx, pending_kind=None, pending_by=None, updated_at=stamp(ctx.now))
    if not accept:
        turn.events.append(Rejected(user.userid, kind))
    elif kind == "draw":
        turn.progress += conclude(ctx, game, None, "agreed")
        turn.events.append(DrawAccepted(user.userid))
    else:
        board = game.board
        while board.ply and str(board.moves[-1]) == "pass":  # LuckyTrax: the passes since go too
            board.pop()
        taken = board.pop()
        store.delete_moves_from(game.number, board.ply + 1)
        turned: dict[str, Any] = {"moves": " ".join(str(m) for m in board.moves), "turn_since": stamp(ctx.now),
                                  "nags": 0}
        if board.variant.drawn:  # the turn taken back is played again with the tile drawn for it
            turned["draws"] = " ".join(map(str, luck.draws_of(game.row)[: board.ply + 1]))
        game.change(ctx, **turned)
        store.clear_pending_moves(game.number)
        turn.events.append(UndoAccepted(user.userid, str(taken)))
