"""Command handlers, by topic, and the table that names the handler of
every command of the language (``HANDLERS[command.name]``).

A handler takes a :class:`~pbm.app.request.Request` and returns the
:class:`~pbm.app.request.Reply` objects to send; it raises a
:class:`~pbm.domain.refusals.PbmError` for anything the sender is to be told
instead.  A test checks that every command of the grammar has a handler
here and that every handler answers a command.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from ..request import Reply, Request
from . import account, coaching, game, rating, tournament

Handler = Callable[[Request[Any]], list[Reply]]

HANDLERS: Mapping[str, Handler] = MappingProxyType({
    # accounts
    "signup": account.signup,
    "add": account.addresses,
    "change address": account.addresses,
    "change password": account.change_password,
    "password reset": account.password_reset,
    "confirm address": account.confirm_address,
    "signoff": account.signoff,
    "delete": account.delete,
    "vacation": account.vacation,
    "set": account.settings,
    "list": account.list_games,
    "message": account.message,
    "broadcast": account.broadcast,
    "help": account.help_command,
    # games
    "challenge": game.challenge,
    "move": game.move,
    "submit": game.move,
    "confirm": game.confirm_move,
    "resign": game.resign,
    "queue": game.queue_moves,
    "chat": game.chat,
    "show": game.show,
    "showas": game.showas,
    "all show": game.all_show,
    "games": game.games_table,
    "preview": game.preview,
    "record": game.record,
    "subscribe": game.subscribe,
    "unsubscribe": game.subscribe,
    "notify": game.notify,
    "accept": game.accept_challenges,
    "reject": game.accept_challenges,
    "limit": game.limit_or_seek,
    "seek": game.limit_or_seek,
    # the computer's help
    "hint": coaching.hint,
    "analyze": coaching.analyze,
    # ratings
    "standings": rating.standings,
    "history": rating.history,
    # tournaments
    "tournament create": tournament.create,
    "tournament join": tournament.join_or_leave,
    "tournament leave": tournament.join_or_leave,
    "tournament start": tournament.start,
    "tournament show": tournament.show,
    "tournament list": tournament.list_tournaments,
    "tournament add": tournament.add,
    "tournament withdraw": tournament.withdraw,
    "tournament result": tournament.result,
    "tournament pair": tournament.pair,
    "tournament announce": tournament.announce,
})

__all__ = ["HANDLERS", "Handler"]
