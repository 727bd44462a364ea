"""Game commands: boards, moves, proposals, queues, observers, listings.

A board's state is its move list; the engine replays it when a command needs
the position (the recorded games replay at tens of thousands of moves per
second, so even a long game costs a few milliseconds).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from . import clock  # noqa: F401  (registers the vacation command)
from .clock import board_clock, shown
from .grammar import BoardRef, UserId, WrittenMove
from .errors import (
    ChallengeRefusedError,
    GameOverError,
    IllegalMoveReplyError,
    NotAllowedError,
    NothingPendingError,
    NotYourTurnError,
    PbmError,
    StaleMoveError,
    UnknownBoardError,
    WrongGameError,
)
from .replies import Reply, Request, handles
from .standings import rating_changes, record_result
from .store import Row, stamp
from .tournaments import director  # also registers the tournament commands
from .trax import Board, TraxError, get_variant

COLOURS = ("white", "black")


# ----------------------------------------------------------------------------
# loading and describing boards


@dataclass
class Game:
    """A board row with its position and players loaded."""

    row: Row
    board: Board
    white: Row
    black: Row

    @property
    def number(self) -> int:
        return self.row["number"]

    @property
    def active(self) -> bool:
        return self.row["status"] == "active"

    def player(self, colour: str) -> Row:
        return self.white if colour == "white" else self.black

    def colour_of(self, user: Row) -> str | None:
        if user["id"] == self.white["id"]:
            return "white"
        if user["id"] == self.black["id"]:
            return "black"
        return None

    def opponent(self, user: Row) -> Row:
        return self.black if user["id"] == self.white["id"] else self.white

    @property
    def to_move(self) -> Row:
        return self.player(self.board.turn)


class Positions:
    """Positions kept in memory between commands, so that a long game is not
    replayed for every move.  A position is handed out (and forgotten) when
    its board's stored move list is exactly the one it was kept with, and kept
    again only after the command that used it succeeded; anything else is a
    miss, and the engine replays the stored moves."""

    def __init__(self, size: int = 1000) -> None:
        self.size = size
        self.kept: OrderedDict[int, tuple[str, Board]] = OrderedDict()

    def take(self, number: int, moves: str, variant: str) -> Board:
        entry = self.kept.pop(number, None)
        if entry is not None and entry[0] == moves and entry[1].variant.name == variant:
            return entry[1]
        return Board.replay(moves.split(), variant)

    def keep(self, number: int, board: Board, moves: str | None = None) -> None:
        """Keep ``board``; ``moves`` is its stored move list when the caller
        has it (writing every move as text again costs most on long games)."""
        if moves is None:
            moves = " ".join(str(m) for m in board.moves)
        self.kept[number] = (moves, board)
        self.kept.move_to_end(number)
        while len(self.kept) > self.size:
            self.kept.popitem(last=False)


def load_game(req: Request, number: int | str, *, game: str | None = None) -> Game:
    """A board by number, or a tournament board by its name."""
    row = req.store.board(number) if isinstance(number, int) else req.store.board_by_label(number)
    if row is None:
        raise UnknownBoardError(f"there is no board {number}", board=number)
    number = row["number"]
    if game is not None and row["game"] != game:
        raise WrongGameError(
            f"board {number} is a {row['game']} board", board=number, board_game=row["game"]
        )
    if req.positions is not None:
        board = req.positions.take(number, row["moves"], row["game"])
    else:
        board = Board.replay(row["moves"].split(), row["game"])
    store = req.store
    loaded = Game(row, board, store.user_by_id(row["white_id"]), store.user_by_id(row["black_id"]))
    req.loaded.append(loaded)
    return loaded


def player_game(req: Request, number: int, userid: UserId, password) -> tuple[Game, Row]:
    """The board and the logged-in user, who must be one of its players."""
    user = req.login(userid, password)
    game = load_game(req, number, game=req.game)
    if game.colour_of(user) is None:
        raise NotAllowedError("wrong userid or password")
    return game, user


def board_view(req: Request, game: Game, *, position: Board | None = None, viewer: Row | None = None) -> dict[str, Any]:
    """Everything a template shows about a board."""
    row = game.row
    variant = get_variant(row["game"])
    board = position or game.board
    moves = req.store.moves_of(game.number)
    names = {game.white["id"]: game.white["userid"], game.black["id"]: game.black["userid"]}
    listed = [
        {"number": m["ply"], "move": m["move"], "auto": bool(m["auto"]), "player": names.get(m["user_id"], "?"),
         "colour": COLOURS[(m["ply"] - 1) % 2]}
        for m in moves
    ][: board.ply]
    pending = None
    if row["pending_kind"] and game.active:
        pending = {"kind": row["pending_kind"], "by": names.get(row["pending_by"], "?")}
    queued = None
    if viewer is not None:
        queued = req.store.queued(game.number, viewer["id"])
        queued = queued.replace("? ", "expecting ") if queued else None
    outcome_winner = row["winner"]
    return {
        "number": game.number,
        "game": row["game"],
        "title": variant.title,
        "white": game.white["userid"],
        "black": game.black["userid"],
        "active": game.active and position is None,
        "finished": not game.active,
        "to_move": game.player(board.turn)["userid"] if game.active else None,
        "to_move_colour": board.turn,
        "winner": game.player(outcome_winner)["userid"] if outcome_winner else None,
        "winner_colour": outcome_winner,
        "reason": row["reason"],
        "rated": bool(row["rated"]),
        "moves": listed,
        "ply": board.ply,
        "after": position.ply if position is not None else None,
        "pending": pending,
        "queued": queued,
        "board": board,
        "created_at": shown(row["created_at"]),
        "updated_at": shown(row["updated_at"]),
        "last_move_at": shown(moves[-1]["played_at"]) if moves else None,
        "now": shown(req.now),
        "limits": {"nag_days": row["nag_days"], "forfeit_days": row["forfeit_days"], "total_days": row["total_days"]},
        "clock": board_clock(req.store, row, moves, req.now).context(),
        "tournament": row["tournament"],
        "label": row["label"],
        "ratings": rating_changes(row),
    }


def watchers(req: Request, game: Game, *, results_only: bool) -> tuple[str, ...]:
    """Addresses of a board's players and observers (notify-watchers get
    results only)."""
    out: list[str] = []
    for user in (game.white, game.black):
        out.extend(req.addresses(user))
    for w in req.store.watchers_of(game.number, game.row["game"]):
        if w["kind"] == "notify" and not results_only:
            continue
        user = req.store.user_by_id(w["user_id"])
        if user["id"] in (game.white["id"], game.black["id"]) or user["deleted_at"]:
            continue
        out.extend(req.addresses(user))
    return tuple(dict.fromkeys(out))


def board_mail(req: Request, game: Game, *, events: list[dict] | None = None, comment: str = "", template: str = "replies/board.txt") -> Reply:
    view = board_view(req, game)
    return Reply(
        template,
        watchers(req, game, results_only=not game.active),
        {"view": view, "events": events or [], "comment": comment},
    )


# ----------------------------------------------------------------------------
# finishing, moving, queues


def finish(req: Request, game: Game, winner: str | None, reason: str) -> None:
    """End the game; a rated one (not cancelled) updates both ratings."""
    ended = {"status": "finished", "winner": winner, "reason": reason, "pending_kind": None, "pending_by": None,
             "updated_at": stamp(req.now), "finished_at": stamp(req.now)}
    game.row.update(ended)
    req.store.update_board(game.number, **ended)
    req.store.clear_pending_moves(game.number)
    if game.row["rated"] and reason != "cancelled":
        game.row.update(record_result(req.store, game.row, req.now))
    if game.row["tournament"]:
        director.board_finished(req, game)


def new_board(req: Request, game_name: str, white: Row, black: Row, *, tournament: str | None = None,
              label: str | None = None, nag_days: float | None = None, forfeit_days: float | None = None,
              total_days: float | None = None, rated: bool = True) -> int:
    """Create a board; clock limits not given come from the config (the
    tournament ones for a tournament board)."""
    cfg = req.config.games
    prefix = "tournament_" if tournament else ""
    nag_days = nag_days if nag_days is not None else getattr(cfg, prefix + "nag_days")
    forfeit_days = forfeit_days if forfeit_days is not None else getattr(cfg, prefix + "forfeit_days")
    if nag_days >= forfeit_days:
        raise ChallengeRefusedError(
            f"the nag time ({nag_days:g} days) must be shorter than the forfeit time ({forfeit_days:g} days)"
        )
    now = stamp(req.now)
    number = req.store.create_board(
        game=game_name, white_id=white["id"], black_id=black["id"], tournament=tournament, label=label,
        nag_days=nag_days, forfeit_days=forfeit_days,
        total_days=total_days, rated=int(rated), created_at=now, updated_at=now, turn_since=now,
    )
    for w in req.store.auto_subscriptions(game_name):
        req.store.add_watch(w["user_id"], game_name, number, w["kind"])
    return number


def opponents_in_play(req: Request, user: Row) -> list[tuple[Row, list[int]]]:
    """The opponents of a user's active boards (every game type), each with
    the numbers of the boards they share."""
    shared: dict[int, list[int]] = {}
    for row in req.store.boards_of([user["id"]]):
        if row["status"] == "active":
            other = row["black_id"] if row["white_id"] == user["id"] else row["white_id"]
            shared.setdefault(other, []).append(row["number"])
    return [(req.store.user_by_id(uid), numbers) for uid, numbers in shared.items()]


@dataclass
class Turn:
    """What one command did to a board, for the board mail."""

    events: list[dict] = field(default_factory=list)
    private: list[Reply] = field(default_factory=list)


def play(req: Request, game: Game, user: Row, text: str, turn: Turn, *, auto: bool = False, depth: int = 0) -> None:
    """Play ``text`` for ``user`` (whose turn it is), then any queued answer."""
    board = game.board
    other = game.opponent(user)
    line = req.store.queued(game.number, other["id"])
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
                req.store.set_queued(game.number, other["id"], None)
                turn.private.append(Reply(
                    "replies/queue-cancelled.txt", req.addresses(other),
                    {"number": game.number, "title": get_variant(game.row["game"]).title,
                     "expected": words[1], "played": str(move), "userid": other["userid"]},
                ))
        else:
            follow = words
    board.play(move)
    req.store.record_move(game.number, board.ply, str(move), user["id"], auto, req.now)
    game.row["moves"] = f"{game.row['moves']} {move}" if game.row["moves"] else str(move)
    turned = {"pending_kind": None, "pending_by": None, "turn_since": stamp(req.now), "nags": 0}
    req.store.update_board(game.number, moves=game.row["moves"], updated_at=stamp(req.now), **turned)
    game.row.update(turned)
    req.store.set_submitted(game.number, user["id"], None)
    turn.events.append({"kind": "move", "player": user["userid"], "move": str(move), "auto": auto, "number": board.ply})
    outcome = board.outcome()
    if outcome is not None:
        finish(req, game, outcome.winner, outcome.reason)
        turn.events.append({"kind": "result", "winner": outcome.winner, "reason": outcome.reason})
        return
    if follow:
        rest = follow[1:]
        req.store.set_queued(game.number, other["id"], ("? " + " ".join(rest)) if rest else None)
        if depth > 200:
            return
        if follow[0] == "resign":
            resign(req, game, other, turn)
            return
        try:
            play(req, game, other, follow[0], turn, auto=True, depth=depth + 1)
        except TraxError as exc:
            req.store.set_queued(game.number, other["id"], None)
            turn.private.append(Reply(
                "replies/queue-failed.txt", req.addresses(other),
                {"number": game.number, "title": get_variant(game.row["game"]).title,
                 "move": follow[0], "reason": str(exc), "userid": other["userid"]},
            ))


def resign(req: Request, game: Game, user: Row, turn: Turn) -> None:
    if game.board.ply < 2 and not game.row["tournament"]:  # a tournament game is never cancelled
        finish(req, game, None, "cancelled")
        req.store.update_board(game.number, rated=0)
        turn.events.append({"kind": "cancelled", "player": user["userid"]})
        return
    finish(req, game, COLOURS[1 - COLOURS.index(game.colour_of(user))], "resign")
    turn.events.append({"kind": "resign", "player": user["userid"]})


def check_number(game: Game, written: WrittenMove) -> None:
    if written.number is not None and written.number != game.board.ply + 1:
        raise StaleMoveError(
            f"#{written.number} does not match: the next move of board {game.number} is number {game.board.ply + 1}",
            view_game=game,
        )


def require_active(game: Game) -> None:
    if not game.active:
        raise GameOverError(f"board {game.number} is finished", view_game=game)


def require_turn(game: Game, user: Row) -> None:
    if game.to_move["id"] != user["id"]:
        raise NotYourTurnError(
            f"it is not your turn on board {game.number}: {game.to_move['userid']} is to move",
            view_game=game,
        )


def try_move(req: Request, game: Game, user: Row, text: str, turn: Turn) -> None:
    try:
        play(req, game, user, text, turn)
    except TraxError as exc:
        raise IllegalMoveReplyError(str(exc), view_game=game) from None


# ----------------------------------------------------------------------------
# handlers


@handles("challenge")
def challenge(req: Request) -> list[Reply]:
    a = req.args
    game_name = req.game
    white, black = req.user(a.white), req.user(a.black)
    if white["id"] == black["id"]:
        raise ChallengeRefusedError("a game needs two different players")
    for user in (white, black):
        pref = req.store.preference(user["id"], game_name)
        if user["signed_off"]:
            raise ChallengeRefusedError(f"{user['userid']} has signed off and takes no new games")
        if not pref["accepting"]:
            raise ChallengeRefusedError(f"{user['userid']} does not accept {game_name} challenges")
        limit = pref["game_limit"] if pref["game_limit"] is not None else req.config.games.default_limit
        if limit and req.store.count_active(user["id"], game_name) >= limit:
            raise ChallengeRefusedError(
                f"{user['userid']} already plays {limit} active {game_name} games, their limit"
            )
    number = new_board(req, game_name, white, black, nag_days=a.nag_days, forfeit_days=a.forfeit_days,
                       total_days=a.total_days, rated=a.rated)
    game = load_game(req, number)
    mail = board_mail(req, game, template="replies/new-board.txt", comment=req.comment)
    # whoever sent the challenge hears that it worked, player or not
    return [Reply(mail.template, tuple(dict.fromkeys([*mail.to, req.sender])), mail.context)]


@handles("move", "submit")
def move(req: Request) -> list[Reply]:
    a = req.args
    game, user = player_game(req, a.board, a.userid, a.password)
    require_active(game)
    written: WrittenMove = a.move
    turn = Turn()
    if not written.is_tile:
        if req.command.name == "submit":
            raise IllegalMoveReplyError(f"submit takes a tile, not {written.word}", view_game=game)
        return word_move(req, game, user, written, turn)
    check_number(game, written)
    require_turn(game, user)
    if req.command.name == "submit":
        return submit(req, game, user, written)
    try_move(req, game, user, str(written.notation), turn)
    return [board_mail(req, game, events=turn.events, comment=req.comment), *turn.private]


def submit(req: Request, game: Game, user: Row, written: WrittenMove) -> list[Reply]:
    trial = game.board.copy()
    try:
        played = trial.play(str(written.notation))
    except TraxError as exc:
        raise IllegalMoveReplyError(str(exc), view_game=game) from None
    req.store.set_submitted(game.number, user["id"], str(played), game.board.ply + 1)
    view = board_view(req, game, position=trial, viewer=user)
    return [req.to_sender("replies/submitted.txt", view=view, move=str(played), userid=user["userid"])]


@handles("confirm")
def confirm(req: Request) -> list[Reply]:
    a = req.args
    game, user = player_game(req, a.board, a.userid, a.password)
    require_active(game)
    pending = req.store.submitted(game.number, user["id"])
    if pending is None:
        raise NothingPendingError(f"you have no submitted move on board {game.number}", what="submitted move")
    if pending["ply"] != game.board.ply + 1:
        raise StaleMoveError(
            f"your submitted move {pending['move']} was for move {pending['ply']}, "
            f"but the board has moved on", view_game=game,
        )
    require_turn(game, user)
    turn = Turn()
    try_move(req, game, user, pending["move"], turn)
    return [board_mail(req, game, events=turn.events, comment=req.comment), *turn.private]


def word_move(req: Request, game: Game, user: Row, written: WrittenMove, turn: Turn) -> list[Reply]:
    word = written.word
    store = req.store
    pending_kind, pending_by = game.row["pending_kind"], game.row["pending_by"]
    if word == "resign":
        return resign_command(req, game, user, turn)
    if word in ("propose", "undo"):
        kind = "draw" if word == "propose" else "undo"
        if kind == "undo" and game.row["tournament"]:
            raise PbmError(f"moves cannot be taken back on a tournament board ({game.row['label']})",
                           view_game=game)
        if kind == "undo" and game.board.ply == 0:
            raise NothingPendingError("there is no move to take back yet", what="move")
        if pending_kind == kind and pending_by != user["id"]:
            return answer(req, game, user, accept=True, turn=turn)
        store.update_board(game.number, pending_kind=kind, pending_by=user["id"], updated_at=stamp(req.now))
        game.row.update(pending_kind=kind, pending_by=user["id"])
        turn.events.append({"kind": "propose-" + kind, "player": user["userid"]})
        return [board_mail(req, game, events=turn.events, comment=req.comment)]
    return answer(req, game, user, accept=(word == "accept"), turn=turn)


def answer(req: Request, game: Game, user: Row, *, accept: bool, turn: Turn) -> list[Reply]:
    kind, by = game.row["pending_kind"], game.row["pending_by"]
    if not kind or by == user["id"]:
        raise NothingPendingError(
            f"there is no proposal from your opponent to answer on board {game.number}", what="proposal"
        )
    store = req.store
    store.update_board(game.number, pending_kind=None, pending_by=None, updated_at=stamp(req.now))
    game.row.update(pending_kind=None, pending_by=None)
    if not accept:
        turn.events.append({"kind": "reject-" + kind, "player": user["userid"]})
    elif kind == "draw":
        finish(req, game, None, "agreed")
        turn.events.append({"kind": "accept-draw", "player": user["userid"]})
    else:
        taken = game.board.pop()
        store.delete_moves_from(game.number, game.board.ply + 1)
        game.row["moves"] = " ".join(str(m) for m in game.board.moves)
        turned = {"moves": game.row["moves"], "turn_since": stamp(req.now), "nags": 0}
        store.update_board(game.number, **turned)
        game.row.update(turned)
        store.clear_pending_moves(game.number)
        turn.events.append({"kind": "accept-undo", "player": user["userid"], "move": str(taken)})
    return [board_mail(req, game, events=turn.events, comment=req.comment)]


def resign_command(req: Request, game: Game, user: Row, turn: Turn) -> list[Reply]:
    if game.to_move["id"] != user["id"] and game.board.ply >= 2:
        req.store.set_queued(game.number, user["id"], "resign")
        view = board_view(req, game, viewer=user)
        return [req.to_sender("replies/queued.txt", view=view, line="resign", userid=user["userid"])]
    resign(req, game, user, turn)
    return [board_mail(req, game, events=turn.events, comment=req.comment)]


@handles("resign")
def resign_handler(req: Request) -> list[Reply]:
    a = req.args
    game, user = player_game(req, a.board, a.userid, a.password)
    require_active(game)
    return resign_command(req, game, user, Turn())


@handles("queue")
def queue(req: Request) -> list[Reply]:
    a = req.args
    game, user = player_game(req, a.board, a.userid, a.password)
    require_active(game)
    words = [str(m.notation) if m.is_tile else m.word for m in a.moves]
    if game.to_move["id"] == user["id"]:
        turn = Turn()
        try_move(req, game, user, words[0], turn)
        if game.active and len(words) > 1:
            req.store.set_queued(game.number, user["id"], "? " + " ".join(words[1:]))
        return [board_mail(req, game, events=turn.events, comment=req.comment), *turn.private]
    # the moves can only be checked against the board when their turn comes
    req.store.set_queued(game.number, user["id"], " ".join(words))
    view = board_view(req, game, viewer=user)
    return [req.to_sender("replies/queued.txt", view=view, line=" ".join(words), userid=user["userid"])]


@handles("chat")
def chat(req: Request) -> list[Reply]:
    a = req.args
    game, user = player_game(req, a.board, a.userid, a.password)
    view = board_view(req, game)
    return [Reply("replies/chat.txt", watchers(req, game, results_only=False),
                  {"view": view, "from": user["userid"], "comment": req.comment})]


def selected(req: Request, game_name: str | None, users: list[Row], selection: str | None, default: str) -> list[Game]:
    """The boards of these users (every board of the game type when there
    are none) that match all, active, inactive or next (whose turn it is:
    one of the users', or anyone's when there are none)."""
    if users:
        rows = req.store.boards_of([u["id"] for u in users], game_name)
    else:
        rows = req.store.boards_of_game(game_name)
    ids = {u["id"] for u in users}
    which = selection or default
    out = []
    for row in rows:
        if which in ("active", "next") and row["status"] != "active":
            continue
        if which == "inactive" and row["status"] == "active":
            continue
        game = load_game(req, row["number"])
        if which == "next" and ids and game.to_move["id"] not in ids:
            continue
        out.append(game)
    return out


def position_of(req: Request, ref: BoardRef, game_name: str) -> tuple[Game, Board | None]:
    game = load_game(req, ref.number, game=game_name)
    if ref.after is None:
        return game, None
    if ref.after > game.board.ply:
        raise UnknownBoardError(
            f"board {ref.number} has only {game.board.ply} moves, so there is no position after move {ref.after}",
            board=ref.number,
        )
    return game, game.board.after(ref.after)


@handles("show")
def show(req: Request) -> list[Reply]:
    a = req.args
    views = []
    for ref in a.boards:
        game, position = position_of(req, ref, req.game)
        views.append(board_view(req, game, position=position))
    users = [req.user(u) for u in a.userids]
    if users:
        views.extend(board_view(req, g) for g in selected(req, req.game, users, a.selection, "active"))
    return [req.to_sender("replies/show.txt", views=views, title=get_variant(req.game).title,
                          userids=[u["userid"] for u in users])]


@handles("showas")
def showas(req: Request) -> list[Reply]:
    a = req.args
    user = req.login(a.userid, a.password)
    views = []
    for ref in a.boards:
        game, position = position_of(req, ref, req.game)
        views.append(board_view(req, game, position=position, viewer=user if game.colour_of(user) else None))
    if not a.boards:
        for game in selected(req, req.game, [user], a.selection, "active"):
            views.append(board_view(req, game, viewer=user))
    return [req.to_sender("replies/show.txt", views=views, title=get_variant(req.game).title,
                          userids=[user["userid"]])]


@handles("all show")
def all_show(req: Request) -> list[Reply]:
    a = req.args
    user = req.user(a.userid)
    views = [board_view(req, g) for g in selected(req, None, [user], a.selection, "active")]
    return [req.to_sender("replies/show.txt", views=views, title="All", userids=[user["userid"]])]


@handles("games")
def games_table(req: Request) -> list[Reply]:
    a = req.args
    users = [req.user(u) for u in a.userids]
    games = selected(req, req.game, users, a.selection, "all")
    rows = [board_view(req, g) for g in games]
    return [req.to_sender("replies/games.txt", rows=rows, title=get_variant(req.game).title,
                          selection=a.selection or "all")]


@handles("preview")
def preview(req: Request) -> list[Reply]:
    a = req.args
    if a.board is None:
        board = Board(req.game)
        base = None
    else:
        game, position = position_of(req, a.board, req.game)
        board = (position or game.board).copy()
        base = str(a.board)
    played = []
    for written in a.moves:
        text = str(written.notation) if written.is_tile else written.word
        try:
            played.append(str(board.play(text)))
        except TraxError as exc:
            raise IllegalMoveReplyError(f"{text} (preview move {len(played) + 1}): {exc}", position=board) from None
    return [req.to_sender("replies/preview.txt", board=board, moves=played, base=base,
                          title=get_variant(req.game).title, outcome=board.outcome())]


@handles("record")
def record(req: Request) -> list[Reply]:
    game = load_game(req, req.args.board, game=req.game)
    return [req.to_sender("replies/record.txt", view=board_view(req, game))]


@handles("subscribe", "unsubscribe")
def subscribe(req: Request) -> list[Reply]:
    a = req.args
    user = req.login(a.userid, a.password)
    board = None if a.board == "all" else a.board
    if board is not None:
        board = load_game(req, board, game=req.game).number
    if req.command.name == "subscribe":
        req.store.add_watch(user["id"], req.game, board, "subscribe")
        if board is None:
            for row in req.store.boards_of_game(req.game):
                if row["status"] == "active":
                    req.store.add_watch(user["id"], req.game, row["number"], "subscribe")
    else:
        req.store.remove_watch(user["id"], req.game, board)
    return [req.to_sender("replies/subscribed.txt", userid=user["userid"], board=board,
                          on=req.command.name == "subscribe", title=get_variant(req.game).title)]


@handles("notify")
def notify(req: Request) -> list[Reply]:
    a = req.args
    user = req.login(a.userid, a.password)
    boards = [load_game(req, b, game=req.game).number for b in a.boards]
    for number in boards:
        req.store.add_watch(user["id"], req.game, number, "notify")
    if not boards:
        req.store.add_watch(user["id"], req.game, None, "notify")
    return [req.to_sender("replies/notify.txt", userid=user["userid"], boards=boards,
                          title=get_variant(req.game).title)]


@handles("accept", "reject")
def accept_challenges(req: Request) -> list[Reply]:
    a = req.args
    user = req.login(a.userid, a.password)
    accepting = req.command.name == "accept"
    req.store.set_preference(user["id"], req.game, accepting=int(accepting))
    return [req.to_sender("replies/preference.txt", userid=user["userid"], title=get_variant(req.game).title,
                          setting="accepting", value=accepting)]


@handles("limit", "seek")
def limit_or_seek(req: Request) -> list[Reply]:
    a = req.args
    user = req.login(a.userid, a.password)
    name = req.command.name
    value = a.limit if name == "limit" else a.opponents
    column = "game_limit" if name == "limit" else "seeking"
    if value is not None:
        req.store.set_preference(user["id"], req.game, **{column: value})
    pref = req.store.preference(user["id"], req.game)
    return [req.to_sender("replies/preference.txt", userid=user["userid"], title=get_variant(req.game).title,
                          setting=name, value=pref[column],
                          active=req.store.count_active(user["id"], req.game))]
