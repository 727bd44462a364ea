"""The computer's help by mail: ``hint`` (a move suggested, in games
against its two lower levels) and ``analyze`` (a finished game's turning
points, queued for its workers and mailed when ready)."""

from __future__ import annotations

from pbm.ai.review import Review
from pbm.domain.boards import load_game, player_game
from pbm.domain.coaching import ask_analysis, give_hint
from pbm.domain.context import Context
from pbm.domain.store.records import Analysis
from pbm.grammar.game_commands import BoardArgs, BoardLoginArgs
from pbm.trax import get_variant

from ..request import Reply, Request
from ..views import board_view


def hint(req: Request[BoardLoginArgs]) -> list[Reply]:
    a = req.args
    game, user = player_game(req.ctx, a.board, a.userid, a.password, req.game)
    given = give_hint(req.ctx, game, user)
    return [req.to_sender("replies/hint.txt", hint=given, userid=user.userid, view=board_view(req.ctx, game),
                          title=get_variant(req.game).title, computer=req.config.computer.userid)]


def analyze(req: Request[BoardArgs]) -> list[Reply]:
    game = load_game(req.ctx, req.args.board, game=req.game)
    asked = ask_analysis(req.ctx, req.sender, game, req.mail_language)
    return [req.to_sender("replies/analysis-queued.txt", asked=asked, title=get_variant(req.game).title,
                          cap=req.config.computer.analyses_per_sender_per_day)]


def analysis_mail(ctx: Context, row: Analysis, found: Review) -> list[Reply]:
    """The mail of an analysis the workers finished: each turning point
    with the position its moves are written for (before the move, where
    the better move is played; after it for a winning move, where its line
    starts)."""
    game = load_game(ctx, row.board)
    board = game.board
    points = []
    for point in found.points:
        before = board.after(point.number - 1)
        shown = board.after(point.number) if point.kind == "forced-win" else before
        mover = game.player(point.side).userid
        other = game.player("black" if point.side == "white" else "white").userid
        points.append({"number": point.number, "side": point.side, "player": mover, "other": other,
                       "kind": point.kind, "played": point.played, "better": point.better,
                       "line": point.line, "plies": point.plies, "board": shown,
                       "after": point.kind == "forced-win"})
    return [Reply("replies/analysis.txt", (row.address,),
                  {"view": board_view(ctx, game), "points": points, "first": found.first,
                   "title": get_variant(game.row.game).title, "computer": ctx.config.computer.userid})]
