"""A reply to a board mail (or a digest), read as the player's command for
that board: no password, the token in the mail it answers and the player's
own address stand for it (see :mod:`pbm.domain.tokens`)."""

from __future__ import annotations

from pbm.domain.boards import Game, load_game
from pbm.domain.context import Context
from pbm.domain.refusals import PbmError, ReplyRefusedError, StaleMoveError
from pbm.domain.reply_tokens import ReplyTarget
from pbm.domain.turns import require_active
from pbm.grammar import ReplyLine

from ..request import Reply
from ..views import board_view
from .game import play_written


def board_of(ctx: Context, target: ReplyTarget, line: ReplyLine) -> Game:
    """The board a reply line is about, as the mail it answers showed it;
    a board that moved on since is refused like a stale #N (with the board
    as it now stands)."""
    if target.digest:
        number = line.board
        game = load_game(ctx, number) if number is not None else None
        if game is None or game.number not in target.boards:
            raise ReplyRefusedError("not-in-digest", {"board": number, "boards": tuple(sorted(target.boards))})
    else:
        game = load_game(ctx, next(iter(target.boards)))
    shown = target.boards[game.number]
    if game.board.ply != shown and line.move is not None:
        raise StaleMoveError(
            "reply-moved-on", {"board": game.number, "shown": shown, "ply": game.board.ply},
            view_game=game)
    return game


def act(ctx: Context, sender: str, target: ReplyTarget, line: ReplyLine, comment: str) -> list[Reply]:
    """One line of a reply: its move (or word) played for the player, or the board shown."""
    game = board_of(ctx, target, line)
    check_used(target, line)
    if line.move is None:  # show
        return [Reply("replies/show.txt", (sender,), {
            "views": [board_view(ctx, game, observers=True)], "title": game.board.variant.title,
            "userids": [], "left_out": 0})]
    require_active(game)
    replies = play_written(ctx, sender, game, target.user, line.move, comment)
    if game.board.ply != target.boards[game.number]:
        ctx.store.use_reply_token(target.token.id, line.text, ctx.now)
        if target.digest:
            ctx.store.use_digest_board(target.token.id, game.number, line.text)
    return replies


def check_used(target: ReplyTarget, line: ReplyLine) -> None:
    """A token that played a move cannot play another."""
    used = target.token.used_for
    if used is not None and not target.digest and used != line.text:
        raise ReplyRefusedError("reply-used", {"used": used})


__all__ = ["PbmError", "act", "board_of", "check_used"]
