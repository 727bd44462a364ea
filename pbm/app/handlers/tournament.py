"""Tournament commands: creating, entering, starting, showing, and the
director's withdrawals, decisions, pairings and announcements."""

from __future__ import annotations

from typing import Any

from pbm.domain import tournaments
from pbm.domain.accounts import account_addresses, game_addresses, live_user, login
from pbm.domain.boards import load_game
from pbm.domain.events import Adjudicated, Withdrawn
from pbm.domain.refusals import TournamentError
from pbm.domain.results import conclude, forfeit
from pbm.domain.store.records import User
from pbm.domain.tournaments import Progress, as_director, load_event, reload
from pbm.grammar.account_commands import NoArgs
from pbm.grammar.tournament_commands import (
    TournamentArgs,
    TournamentCreateArgs,
    TournamentLoginArgs,
    TournamentResultArgs,
    TournamentWithdrawArgs,
)
from pbm.trax import get_variant

from ..notices import board_mail, event_addresses, tournament_news
from ..request import Reply, Request
from ..views import event_context, heading


def _director(req: Request[Any]) -> tuple[tournaments.Event, User]:
    a = req.args
    return as_director(req.ctx, a.userid, a.password, a.name, req.game)


def create(req: Request[TournamentCreateArgs]) -> list[Reply]:
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    event = tournaments.create(req.ctx, user, req.game, a)
    return [Reply("replies/tournament-created.txt", account_addresses(req.store, user, req.sender),
                  event_context(req.store, event))]


def join_or_leave(req: Request[TournamentLoginArgs]) -> list[Reply]:
    a = req.args
    user = login(req.ctx, a.userid, a.password)
    joining = req.command.name == "tournament join"
    event = tournaments.enter(req.ctx, load_event(req.ctx, a.name, req.game), user, joining=joining)
    context = {**event_context(req.store, event), "userid": user.userid, "joined": joining}
    mails = [Reply("replies/tournament-entry.txt", account_addresses(req.store, user, req.sender),
                   {**context, "to_director": False})]
    director = req.store.user_by_id(event.row.director_id)
    if director.id != user.id:  # the director hears of every entry and every leaving
        mails.append(Reply("replies/tournament-entry.txt", game_addresses(req.store, director),
                           {**context, "to_director": True}))
    return mails


def start(req: Request[TournamentLoginArgs]) -> list[Reply]:
    event, _ = _director(req)
    return tournament_news(req.ctx, tournaments.start_now(req.ctx, event))


def show(req: Request[TournamentArgs]) -> list[Reply]:
    event = load_event(req.ctx, req.args.name, req.game)
    return [req.to_sender("replies/tournament-show.txt", **event_context(req.store, event))]


def list_tournaments(req: Request[NoArgs]) -> list[Reply]:
    groups: dict[str, list[dict[str, Any]]] = {"open": [], "running": [], "finished": []}
    for row in req.store.tournaments_of_game(req.game):
        groups[row.status].append(heading(reload(req.ctx, row.id)))
    return [req.to_sender("replies/tournament-list.txt", title=get_variant(req.game).title, game=req.game,
                          groups=groups)]


def add(req: Request[TournamentWithdrawArgs]) -> list[Reply]:
    """The director enters the computer (nobody else: people join with
    their own password)."""
    ctx = req.ctx
    event, director = _director(req)
    player = live_user(ctx, req.args.player)
    if not player.computer:
        raise TournamentError("computer-entry-only", {"userid": player.userid})
    event = tournaments.enter(ctx, event, player, joining=True)
    context = {**event_context(req.store, event), "userid": player.userid, "joined": True}
    return [Reply("replies/tournament-entry.txt", account_addresses(req.store, director, req.sender),
                  {**context, "to_director": True})]


def withdraw(req: Request[TournamentWithdrawArgs]) -> list[Reply]:
    """The director takes a player out; the player's games in play are forfeited."""
    ctx = req.ctx
    event, _ = _director(req)
    player = live_user(ctx, req.args.player)
    mails = []
    progress: list[Progress] = []
    for number in tournaments.withdraw(ctx, event, player):
        game = load_game(ctx, number)
        if game.active:
            progress += forfeit(ctx, game, player)
            mails.append(board_mail(ctx, game, events=[Withdrawn(player.userid, event.name)]))
    news = tournament_news(ctx, progress)
    event = reload(ctx, event.id)
    context = {**event_context(req.store, event), "player": player.userid}
    forfeited = len(mails)
    mails.insert(0, req.to_sender("replies/tournament-withdrawn.txt", **context, forfeited=forfeited))
    if player.id != event.row.director_id:
        mails.append(Reply("replies/tournament-withdrawn.txt", game_addresses(req.store, player),
                           {**context, "forfeited": forfeited}))
    return [*mails, *news]


def result(req: Request[TournamentResultArgs]) -> list[Reply]:
    """The director decides a board."""
    event, user = _director(req)
    a = req.args
    game = load_game(req.ctx, a.board)
    tournaments.check_adjudication(req.ctx, event, game, a.board)
    progress = conclude(req.ctx, game, None if a.result == "draw" else a.result, "adjudicated")
    return [board_mail(req.ctx, game, events=[Adjudicated(user.userid)]),
            *tournament_news(req.ctx, progress)]


def pair(req: Request[TournamentLoginArgs]) -> list[Reply]:
    event, _ = _director(req)
    return tournament_news(req.ctx, tournaments.pair_now(req.ctx, event))


def announce(req: Request[TournamentLoginArgs]) -> list[Reply]:
    event, user = _director(req)
    if not req.comment.strip():
        raise TournamentError("announcement-empty")
    return [Reply("replies/tournament-announce.txt", event_addresses(req.ctx, event),
                  {"event": event.name, "from": user.userid, "comment": req.comment})]
