"""A reply to a board mail (or a digest), read as the player's command for
that board: no password, the token in the mail it answers and the player's
own address stand for it (see :mod:`pbm.domain.tokens`)."""

from __future__ import annotations

from pbm.domain.boards import Game, load_game
from pbm.domain.context import Context
from pbm.domain.refusals import PbmError, ReplyRefusedError, StaleMoveError
from pbm.domain.reply_tokens import ReplyTarget
from pbm.domain.turns import require_active
from pbm.grammar import LooseLine, ReplyLine, WrittenMove
from pbm.trax import TraxError

from ..notices import answerable, move_by_reply
from ..request import Reply
from ..views import board_view
from .game import play_written, tile_text


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


def chosen(ctx: Context, target: ReplyTarget, line: LooseLine) -> ReplyLine:
    """The move a first line means that names tiles among other words
    ("Nice one! I will play B0/ now"): the one it names, or of several the
    one legal on the board (when it is not the player's turn, the first:
    his turn is refused as any move would be).  None of several legal, or
    more than one: refused, with the board."""
    game = board_of(ctx, target, ReplyLine(line.text, line.board, line.moves[0]))
    move = line.moves[0]
    if len(line.moves) > 1 and game.active and game.to_move.id == target.user.id:
        legal = [m for m in line.moves if legal_on(game, m)]
        if len(legal) > 1:
            raise ReplyRefusedError("reply-moves-several", view_game=game)
        if not legal:
            raise ReplyRefusedError("reply-no-legal-move", view_game=game)
        move = legal[0]
    return ReplyLine(str(move), line.board, move)


def legal_on(game: Game, written: WrittenMove) -> bool:
    """Could the player to move play ``written`` on the board as it stands?"""
    try:
        game.board.copy().play(tile_text(game, written))
    except (TraxError, PbmError):
        return False
    return True


def act(ctx: Context, sender: str, target: ReplyTarget, line: ReplyLine | LooseLine, comment: str) -> list[Reply]:
    """One line of a reply: its move (or word) played for the player, or the board shown."""
    if isinstance(line, LooseLine):
        line = chosen(ctx, target, line)
    game = board_of(ctx, target, line)
    check_used(target, line)
    if line.move is None:  # show
        tokens = move_by_reply(ctx, game, (sender,))
        return [Reply("replies/show.txt", (sender,), {
            "views": [answerable(board_view(ctx, game, observers=True), tokens)], "title": game.board.variant.title,
            "userids": [], "left_out": 0}, tokens=tokens)]
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


__all__ = ["PbmError", "act", "board_of", "check_used", "chosen"]
