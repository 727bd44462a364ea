"""Boards: loading them with their position and players, creating them, and
finding a player's boards.

A board's state is its move list; the engine replays it when a command
needs the position (the recorded games replay at tens of thousands of moves
per second), unless :mod:`.positions` still holds it from an earlier command.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from pbm.grammar import BoardRef, Password, UserId
from pbm.terms import BoardTerms
from pbm.trax import Board

from . import luck
from .accounts import login
from .context import Context
from .refusals import ChallengeRefusedError, NotAllowedError, UnknownBoardError, WrongGameError
from .store.records import BoardRecord, User
from .times import stamp

COLOURS = ("white", "black")


def colour_to_move(ply: int) -> str:
    """Whose turn it is after ``ply`` turns: white begins."""
    return COLOURS[ply % 2]


def colour_of_turn(number: int) -> str:
    """The colour that played turn ``number`` (counted from 1)."""
    return COLOURS[(number - 1) % 2]


def other_colour(colour: str) -> str:
    return COLOURS[1 - COLOURS.index(colour)]


def mover_id(row: BoardRecord) -> int:
    """The user to move on a stored board, without replaying it."""
    return row.white_id if colour_to_move(row.ply) == "white" else row.black_id


def times_problem(ctx: Context, terms: BoardTerms) -> tuple[str, dict[str, Any]] | None:
    """What is wrong with a board's times, if anything (a refusal's code and
    params): neither the forfeit nor the total time may be shorter than
    ``[games] minimum_forfeit_days``, and the reminder must come before the
    forfeit."""
    short = terms.too_short(ctx.config.games.minimum_forfeit_days)
    if short is not None:
        return "time-too-short", {"name": short.name, "floor": short.floor, "days": short.days}
    if not terms.nag_comes_first():
        return "nag-not-first", {"nag_days": terms.nag_days, "forfeit_days": terms.forfeit_days}
    return None


def default_times(ctx: Context, terms: BoardTerms, *, tournament: bool = False) -> BoardTerms:
    """The terms with the times not given taken from ``[games]`` (its
    tournament ones for a tournament's boards)."""
    cfg = ctx.config.games
    if tournament:
        return terms.with_times(cfg.tournament_nag_days, cfg.tournament_forfeit_days)
    return terms.with_times(cfg.nag_days, cfg.forfeit_days)


@dataclass
class Game:
    """A board row with its position and players loaded."""

    row: BoardRecord
    board: Board
    white: User
    black: User

    @property
    def number(self) -> int:
        return self.row.number

    def change(self, ctx: Context, **fields: Any) -> None:
        """Store a change of this board (its columns ``fields``) and keep its
        record in step: the one way a loaded board is changed."""
        ctx.store.update_board(self.number, **fields)
        self.row = replace(self.row, **fields)

    @property
    def active(self) -> bool:
        return bool(self.row.status == "active")

    def player(self, colour: str) -> User:
        return self.white if colour == "white" else self.black

    def colour_of(self, user: User) -> str | None:
        if user.id == self.white.id:
            return "white"
        if user.id == self.black.id:
            return "black"
        return None

    def opponent(self, user: User) -> User:
        return self.black if user.id == self.white.id else self.white

    @property
    def to_move(self) -> User:
        return self.player(self.board.turn)


def load_game(ctx: Context, number: int | str, *, game: str | None = None) -> Game:
    """A board by number, or a tournament board by its name; with ``game``,
    it must be of that game type."""
    row = ctx.store.board(number) if isinstance(number, int) else ctx.store.board_by_label(number)
    if row is None:
        raise UnknownBoardError("unknown-board", {"board": number})
    number = int(row.number)
    if game is not None and row.game != game:
        raise WrongGameError("wrong-game", {"board": number, "game": row.game})
    if not ctx.positions.holds(number, row.moves):
        ctx.spend_replay(len(row.moves.split()))
    board = ctx.positions.take(number, row.moves, row.game, ending=row.ending, points=row.points)
    store = ctx.store
    loaded = Game(row, board, store.user_by_id(row.white_id), store.user_by_id(row.black_id))
    ctx.positions.lend(number, loaded)
    return loaded


def player_game(ctx: Context, number: int | str, userid: UserId, password: Password, game: str) -> tuple[Game, User]:
    """The board and the logged-in user, who must be one of its players."""
    user = login(ctx, userid, password)
    loaded = load_game(ctx, number, game=game)
    if loaded.colour_of(user) is None:
        raise NotAllowedError("not-a-player", {"userid": user.userid, "board": loaded.number})
    return loaded, user


def member_game(ctx: Context, number: int | str, userid: UserId, password: Password, game: str) -> tuple[Game, User]:
    """The board and the logged-in user, who must be one of its players or
    observers (subscribed to it, or to every board of its game type)."""
    user = login(ctx, userid, password)
    loaded = load_game(ctx, number, game=game)
    if loaded.colour_of(user) is None and not any(
            w.user_id == user.id and w.kind == "subscribe"
            for w in ctx.store.watchers_of(loaded.number, loaded.row.game)):
        raise NotAllowedError("not-a-member", {"userid": user.userid, "board": loaded.number})
    return loaded, user


def position_of(ctx: Context, ref: BoardRef, game_name: str) -> tuple[Game, Board | None]:
    """The board a reference names and, for ``101#N``, its position after move N."""
    loaded = load_game(ctx, ref.number, game=game_name)
    if ref.after is None:
        return loaded, None
    if ref.after > loaded.board.ply:
        raise UnknownBoardError(
            "no-such-position", {"board": ref.number, "moves": loaded.board.ply, "after": ref.after}
        )
    key = (loaded.number, loaded.row.moves, ref.after)
    past = ctx.past.get(key)
    if past is None:  # replayed once per mail, however often it is asked for
        ctx.spend_replay(ref.after)
        past = ctx.past[key] = loaded.board.after(ref.after)
    return loaded, past


def checked_terms(ctx: Context, terms: BoardTerms, *, tournament: bool = False) -> BoardTerms:
    """A board's terms, its times not given from the config (see
    :func:`default_times`); ChallengeRefusedError when they break the rules
    of :func:`times_problem`."""
    settled = default_times(ctx, terms, tournament=tournament)
    problem = times_problem(ctx, settled)
    if problem:
        raise ChallengeRefusedError(*problem)
    return settled


def new_board(ctx: Context, game_name: str, white: User, black: User, terms: BoardTerms, *,
              tournament: str | None = None, label: str | None = None, level: int | None = None,
              challenged: User | None = None) -> int:
    """Create a board on ``terms``: clock limits not given come from the
    config (the tournament ones for a tournament board), its rules
    (``ending``, ``points``) from the game type when not given.  In
    LuckyTrax the first tile is drawn.  Observers of every board of the
    game type observe it too.  ``level``: the computer's, on a board
    against it.  ``challenged``: the player whose consent the board waits
    for (see :mod:`.consent`); None: agreed to already."""
    terms = checked_terms(ctx, terms, tournament=tournament is not None)
    try:
        rules = Board(game_name, ending=terms.ending, points=terms.points)
    except ValueError:
        raise ChallengeRefusedError("rules-not-offered", {"game": game_name}) from None
    now = stamp(ctx.now)
    number = ctx.store.create_board(
        game=game_name, white_id=white.id, black_id=black.id, tournament=tournament, label=label,
        nag_days=terms.nag_days, forfeit_days=terms.forfeit_days,
        total_days=terms.total_days, rated=int(terms.rated), created_at=now, updated_at=now, turn_since=now,
        ending=rules.ending, points=rules.points, draws=str(luck.draw_face()) if rules.variant.drawn else "",
        level=level, challenged_id=challenged.id if challenged is not None else None,
        accepted_at=None if challenged is not None else now,
    )
    for w in ctx.store.auto_subscriptions(game_name):
        ctx.store.add_watch(w.user_id, game_name, number, w.kind)
    return number


def opponents_in_play(ctx: Context, user: User) -> list[tuple[User, list[int]]]:
    """The opponents of a user's active boards (every game type), each with
    the numbers of the boards they share."""
    shared: dict[int, list[int]] = {}
    for row in ctx.store.boards_of([user.id]):
        if row.status == "active":
            other = row.black_id if row.white_id == user.id else row.white_id
            shared.setdefault(other, []).append(row.number)
    return [(ctx.store.user_by_id(uid), numbers) for uid, numbers in shared.items()]


def selected(ctx: Context, game_name: str | None, users: list[User], selection: str | None,
             default: str) -> list[BoardRecord]:
    """The stored boards of these users (every board of the game type when
    there are none) that match all, active, inactive or next (whose turn it
    is: one of the users', or anyone's when there are none), oldest first.
    Nothing is replayed: :func:`load_games` loads the ones wanted."""
    if users:
        rows = ctx.store.boards_of([u.id for u in users], game_name)
    elif game_name is not None:
        rows = ctx.store.boards_of_game(game_name)
    else:
        rows = []
    ids = {u.id for u in users}
    which = selection or default
    out = []
    for row in rows:
        if which in ("active", "next") and row.status != "active":
            continue
        if which == "inactive" and row.status == "active":
            continue
        if which == "next" and ids and mover_id(row) not in ids:
            continue
        out.append(row)
    return out


def load_games(ctx: Context, rows: list[BoardRecord]) -> list[Game]:
    return [load_game(ctx, row.number) for row in rows]
