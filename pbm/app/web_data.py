"""The web view's pages as data: what each page shows, read through the
domain layer (the words are in ``templates/web/``, the markup is made by
:mod:`.web_render`, and :mod:`.web_urls` says which page is which).

Only what the server already tells anyone who asks by mail is read for a
page: userids, boards, moves, clocks, ratings, standings and tournament
tables.  Never an address, a password hash, a reply token, a queued or
submitted move, a chat, or a player's setting.  The store keeps no comment
(a move's comment is relayed by mail and not stored), so no page shows one.

Pages that show a board show moments, not durations that grow with the
clock (the time each player had used when the turn began, when the turn
began, the moments of the next reminder and of the forfeit), so a board's
page is the same for as long as the board is (:meth:`Pages.board_state`
names what it shows), and the web view can keep it.

:class:`NotFound` and :class:`BadRequest` say what is wrong with a request
(a code and params, worded on the error page from
``templates/errors/reasons/web.txt``); :class:`NotHere`, that a path is not
the page asked of it, and may be another's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pbm.config import Config
from pbm.domain.boards import Game, colour_of_turn, load_game, mover_id
from pbm.domain.clocks import OPEN_END, Leave, board_clock, leave_of
from pbm.domain.context import Context
from pbm.domain.luck import draws_of
from pbm.domain.ratings import ESTABLISHED_AFTER
from pbm.domain.refusals import UnknownBoardError
from pbm.domain.store import Store
from pbm.domain.store.records import BoardListing, BoardRecord, MoveRecord, TournamentRecord, User
from pbm.domain.times import DAY, shown, span, when
from pbm.domain.tournaments import reload
from pbm.grammar import parse_command
from pbm.grammar.account_commands import NoArgs
from pbm.grammar.words import fold
from pbm.trax import VARIANTS, Board, get_variant

from .handlers.rating import standings as standings_reply
from .request import Request
from .views import board_view, event_context

#: Games the front page lists.
RECENT = 20
#: Finished games a player's page lists.
PLAYER_RECENT = 20
#: Entries in a feed, newest first.
FEED_ENTRIES = 50
#: The longest board number a page takes (as the commands do).
NUMBER_DIGITS = 9


class PageError(Exception):
    """A request the web view cannot answer with a page: ``code`` (one of
    :data:`pbm.app.refusals.CODES`) and ``params`` say why, and the error
    page words them."""

    status = 500

    def __init__(self, code: str, params: dict[str, Any] | None = None) -> None:
        self.code = code
        self.params: dict[str, Any] = dict(params) if params else {}
        super().__init__(code, self.params)

    def __str__(self) -> str:
        return " ".join([self.code, *(f"{key}={value!r}" for key, value in self.params.items())])


class NotFound(PageError):
    status = 404


class BadRequest(PageError):
    status = 400


class NotHere(NotFound):
    """Not this page's: the path may be another's (the next entry of the
    URL table that matches it is asked); a 404 when none takes it."""


# ----------------------------------------------------------------------------
# deadlines


def run_out(since: datetime, budget: timedelta, leave: Leave) -> datetime | None:
    """The moment a clock started at ``since`` has counted ``budget``,
    standing still through the periods of ``leave`` (vacations, and holds
    while mail bounces); None when it stops for good before then (a hold
    with no end yet)."""
    t = since
    for start, end in sorted(leave):
        if end <= t:
            continue
        if start > t:
            if start - t >= budget:
                return t + budget
            budget -= start - t
        if end == OPEN_END:
            return None
        t = max(t, end)
    return t + budget


@dataclass(frozen=True)
class Deadline:
    """A moment the clock work will act on a board: ``kind`` is
    ``"reminder"`` or ``"forfeit"`` (``total``: the player's total time
    runs out then), for ``userid`` (the player to move, ``colour``)."""

    kind: str
    at: datetime
    userid: str
    colour: str
    total: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "at": shown(self.at), "iso": self.at.isoformat(), "moment": self.at,
                "userid": self.userid, "colour": self.colour, "total": self.total}


def deadlines(store: Store, game: Game, moves: list[MoveRecord]) -> tuple[list[Deadline], bool]:
    """The next reminder and the forfeit of the player to move on an
    active board, as the clock work will find them (``[games]
    clock_interval_seconds`` later at most), and whether that player's
    clock stands still for now without an end (mail to them bounces)."""
    row = game.row
    if row.status != "active":
        return [], False
    colour = game.board.turn
    user = game.player(colour)
    leave = leave_of(store, user.id)
    since = when(row.turn_since or row.created_at)
    forfeit_at = run_out(since, row.forfeit_days * DAY, leave)
    total = False
    if row.total_days:
        used = board_clock(store, row, moves, since).used[colour]
        spent = run_out(since, max(row.total_days * DAY - used, timedelta()), leave)
        if spent is not None and (forfeit_at is None or spent < forfeit_at):
            forfeit_at, total = spent, True
    if forfeit_at is None:
        return [], True
    out = []
    nag_at = run_out(since, (row.nag_days + row.nags) * DAY, leave)
    if nag_at is not None and nag_at < forfeit_at:
        out.append(Deadline("reminder", nag_at, user.userid, colour))
    out.append(Deadline("forfeit", forfeit_at, user.userid, colour, total))
    return out, False


# ----------------------------------------------------------------------------
# the pages


def _result_for(row: BoardRecord, user_id: int) -> str:
    """A finished board's result for one of its players: won, lost, drawn
    or cancelled."""
    if row.reason == "cancelled":
        return "cancelled"
    if row.winner is None:
        return "drawn"
    mine = "white" if row.white_id == user_id else "black"
    return "won" if row.winner == mine else "lost"


def board_line(row: BoardListing) -> dict[str, Any]:
    """One board in a list: a row with ``white_userid`` and
    ``black_userid`` (as :meth:`Store.recent_boards` gives it)."""
    names = {"white": row.white_userid, "black": row.black_userid}
    active = row.status == "active"
    return {
        "number": row.number, "game": row.game, "title": get_variant(row.game).title,
        "label": row.label, "tournament": row.tournament,
        "white": names["white"], "black": names["black"], "active": active,
        "moves": len(row.moves.split()),
        "to_move": names["white"] if active and mover_id(row) == row.white_id else
        names["black"] if active else None,
        "winner": names[row.winner] if row.winner else None, "reason": row.reason,
        "started": shown(row.created_at), "finished": shown(row.finished_at) if not active else None,
        "updated": shown(row.updated_at),
    }


def _tournament_line(t: TournamentRecord) -> dict[str, Any]:
    return {"name": t.name, "game": t.game, "title": get_variant(t.game).title,
            "format": t.format, "status": t.status, "round": t.round,
            "started": t.started_at[:10] if t.started_at else None, "start_date": t.start_date}


def _tag(config: Config, created: str, path: str) -> str:
    """An Atom id that stays the same wherever the pages are served from
    (RFC 4151): ``tag:DOMAIN,DAY:PATH``."""
    domain = config.server.address.rpartition("@")[2] or "localhost"
    return f"tag:{domain},{created[:10]}:{path}"


class Pages:
    """The data of every page, read from ``store`` (a connection of the web
    view's own; it never writes)."""

    def __init__(self, store: Store, config: Config) -> None:
        self.store = store
        self.config = config

    def context(self, now: datetime) -> Context:
        return Context(self.store, self.config, now)

    # -- what a page shows, cheaply --------------------------------------

    def version(self) -> int:
        """Changes whenever anything was committed since it was last asked."""
        return self.store.data_version()

    def board_state(self, number: int) -> tuple[Any, ...] | None:
        """Everything a board's pages show depends on: its row and both
        players' leave (vacations and holds); None when there is no such
        board."""
        row = self.store.board(number)
        if row is None:
            return None
        return (row, tuple(self.store.leave_of(row.white_id)), tuple(self.store.leave_of(row.black_id)))

    def board_number(self, ref: str) -> int:
        """The number of the board ``ref`` names: its number, or a
        tournament board's name."""
        if ref.isascii() and ref.isdigit():
            if len(ref) > NUMBER_DIGITS or self.store.board(int(ref)) is None:
                raise NotFound("no-board", {"board": ref})
            return int(ref)
        row = self.store.board_by_label(ref) if len(ref) <= 40 else None
        if row is None:
            raise NotFound("no-board", {"board": ref})
        return int(row.number)

    # -- pages -------------------------------------------------------------

    def home(self, now: datetime) -> dict[str, Any]:
        counts = self.store.active_counts()
        return {
            "games": [{"name": name, "title": v.title, "active": counts.get(name, 0)} for name, v in VARIANTS.items()],
            "recent": [board_line(r) for r in self.store.recent_boards(RECENT)],
            "tournaments": [_tournament_line(t) for t in self.store.current_tournaments()],
        }

    def _game(self, ctx: Context, number: int) -> Game:
        try:
            game = load_game(ctx, number)
        except UnknownBoardError:
            raise NotFound("no-board", {"board": number}) from None
        ctx.positions.keep_lent()
        return game

    def _moves(self, game: Game, moves: list[MoveRecord]) -> list[dict[str, Any]]:
        names = {game.white.id: game.white.userid, game.black.id: game.black.userid}
        draws = draws_of(game.row)
        return [{"number": m.ply, "move": m.move, "auto": m.auto,
                 "player": names.get(m.user_id, "?"), "colour": colour_of_turn(m.ply),
                 "drawn": draws[m.ply - 1] if m.ply <= len(draws) else None,
                 "played": shown(m.played_at), "played_at": when(m.played_at)} for m in moves]

    def board(self, number: int, now: datetime, *, after: int | None = None) -> dict[str, Any]:
        """A board's page: as it stands, or (``after``) the position after
        that many moves."""
        ctx = self.context(now)
        game = self._game(ctx, number)
        ply = game.board.ply
        if after is not None and not 0 <= after <= ply:
            raise BadRequest("no-position", {"board": number, "moves": ply, "after": after})
        position = game.board.after(after) if after is not None and after < ply else None
        view = board_view(ctx, game, position=position)
        moves = ctx.store.moves_of(game.number)
        row = game.row
        turn_start = when(row.turn_since or row.created_at) if game.active else now
        clock = board_clock(ctx.store, row, moves, turn_start)
        due, stopped = deadlines(ctx.store, game, moves)
        pauses = []
        if game.active:  # the times a clock stands still from this turn on (not one that never ends)
            for colour in ("white", "black"):
                user = game.player(colour)
                for start, end in leave_of(ctx.store, user.id):
                    if end > turn_start and end != OPEN_END:
                        pauses.append({"userid": user.userid, "colour": colour, "from": shown(start),
                                       "until": shown(end)})
        return {
            "view": view,
            "board": view["board"],
            "moves": self._moves(game, moves),
            "shown_ply": view["board"].ply,
            "current": position is None,
            "tournament": row.tournament,
            "clock": {
                "used": {c: span(t) for c, t in clock.used.items()},
                "since": shown(turn_start) if game.active else None,
                "pauses": pauses,
                "stopped": stopped,
            },
            "deadlines": [d.as_dict() for d in due],
        }

    def record(self, number: int, now: datetime) -> dict[str, Any]:
        """What the game record (``replies/record.txt``) is made from."""
        ctx = self.context(now)
        return board_view(ctx, self._game(ctx, number))

    def picture(self, number: int, now: datetime, *, after: int | None = None) -> dict[str, Any]:
        """The position to draw (``board``), and the LuckyTrax tile drawn for
        the player to move (``draw``, on the current position only)."""
        page = self.board(number, now, after=after)
        board: Board = page["board"]
        return {"board": board, "draw": page["view"]["draw"], "number": number, "game": board.variant.name}

    def player(self, userid: str, now: datetime) -> dict[str, Any]:
        user = self._user(userid)
        uid = user.id
        ratings = []
        for name, variant in VARIANTS.items():
            r = self.store.rating(uid, name)
            if r is not None:
                ratings.append({"game": name, "title": variant.title, "rating": round(r.rating),
                                "games": r.games, "wins": r.wins, "losses": r.losses, "draws": r.draws,
                                "provisional": r.games < ESTABLISHED_AFTER})
        versus = [{"game": c.game, "title": VARIANTS[c.game].title, "rating": round(c.rating), "games": c.games,
                   "wld": f"{c.wins}-{c.losses}-{c.draws}"}
                  for c in self.store.computer_ratings_of(uid) if c.game in VARIANTS]
        rows = self.store.player_boards(uid)
        active, finished = [], []
        for row in rows:
            line = board_line(row)
            line["colour"] = "white" if row.white_id == uid else "black"
            line["opponent"] = line["black" if line["colour"] == "white" else "white"]
            if line["active"]:
                line["their_turn"] = mover_id(row) == uid
                active.append(line)
            else:
                line["result"] = _result_for(row, uid)
                finished.append((row.finished_at or row.updated_at, line))
        finished.sort(key=lambda f: (f[0], f[1]["number"]), reverse=True)
        tournaments = []
        for t in self.store.tournaments_of_user(uid):
            line = _tournament_line(t)
            line["director"] = t.director_id == uid
            tournaments.append(line)
        return {"userid": user.userid, "closed": bool(user.deleted_at), "since": user.created_at[:10],
                "ratings": ratings, "versus_computer": versus, "active": sorted(active, key=lambda b: b["number"]),
                "finished": [line for _, line in finished[:PLAYER_RECENT]], "finished_count": len(finished),
                "tournaments": tournaments}

    def has_user(self, userid: str) -> bool:
        """Is there a player of that userid (a closed account too)?"""
        return len(userid) <= 64 and self.store.find_user(fold(userid)) is not None

    def player_key(self, userid: str) -> str:
        """What a player's pages are kept by: the userid casefolded.  NotHere
        when there is no such player: a userid may end in ``.atom``, so
        ``/players/bob.atom`` is bob's feed or the page of ``bob.atom``."""
        if not self.has_user(userid):
            raise NotHere("no-player", {"userid": userid})
        return userid.casefold()

    def _user(self, userid: str) -> User:
        user = self.store.find_user(fold(userid)) if len(userid) <= 64 else None
        if user is None:
            raise NotFound("no-player", {"userid": userid})
        return user

    def standings(self, game: str, now: datetime) -> dict[str, Any]:
        """The ratings table of a game type, as the ``standings`` command
        makes it."""
        if game not in VARIANTS:
            raise NotFound("no-game-type", {"game": game})
        request: Request[NoArgs] = Request(self.context(now), "", parse_command(f"{game} standings"))
        (reply,) = standings_reply(request)
        return {**reply.context, "games": [{"name": n, "title": v.title} for n, v in VARIANTS.items()]}

    def tournament(self, tournament: str, now: datetime) -> dict[str, Any]:
        row = self.store.tournament(fold(tournament)) if len(tournament) <= 64 else None
        if row is None:
            raise NotFound("no-tournament", {"tournament": tournament})
        event = reload(self.context(now), row.id)
        return {**event_context(self.store, event), "created": row.created_at[:10]}

    # -- feeds and calendars -------------------------------------------------

    def board_feed(self, number: int, now: datetime) -> dict[str, Any]:
        """A board's news, newest first: its start, each move, its end."""
        ctx = self.context(now)
        game = self._game(ctx, number)
        row = game.row
        view = board_view(ctx, game)
        path = f"/boards/{number}"
        entries = [{"kind": "start", "id": _tag(self.config, row.created_at, f"{path}/start"),
                    "updated": when(row.created_at), "path": path}]
        for m in self._moves(game, ctx.store.moves_of(number)):
            # a move taken back and played again is another entry
            played = m["played_at"].strftime("%Y%m%dT%H%M%S")
            entries.append({"kind": "move", "move": m, "path": f"{path}?move={m['number']}",
                            "id": _tag(self.config, row.created_at, f"{path}/moves/{m['number']}/{played}"),
                            "updated": m["played_at"]})
        if not game.active:
            entries.append({"kind": "end", "id": _tag(self.config, row.created_at, f"{path}/end"),
                            "updated": when(row.finished_at or row.updated_at), "path": path})
        return self._feed(entries, view=view, id=_tag(self.config, row.created_at, path), path=path,
                          since=when(row.created_at))

    def player_feed(self, userid: str, now: datetime) -> dict[str, Any]:
        """A player's games started and finished, newest first."""
        user = self._user(userid)
        entries = []
        for row in self.store.player_boards(user.id):
            line = board_line(row)
            path = f"/boards/{row.number}"
            entries.append({"kind": "start", "board": line, "path": path, "updated": when(row.created_at),
                            "id": _tag(self.config, row.created_at, f"{path}/start")})
            if not line["active"]:
                line["result"] = _result_for(row, user.id)
                entries.append({"kind": "end", "board": line, "path": path,
                                "updated": when(row.finished_at or row.updated_at),
                                "id": _tag(self.config, row.created_at, f"{path}/end")})
        path = f"/players/{user.key}"
        return self._feed(entries, userid=user.userid, id=_tag(self.config, user.created_at, path), path=path,
                          since=when(user.created_at))

    @staticmethod
    def _feed(entries: list[dict[str, Any]], *, since: datetime, **about: Any) -> dict[str, Any]:
        # newest first; of two at one moment, the later made (a game's end after its last move)
        order = sorted(range(len(entries)), key=lambda i: (entries[i]["updated"], i), reverse=True)
        entries = [entries[i] for i in order[:FEED_ENTRIES]]
        for e in entries:
            e["updated"] = e["updated"].isoformat()
        return {**about, "entries": entries, "updated": entries[0]["updated"] if entries else since.isoformat()}

    def board_calendar(self, number: int, now: datetime) -> dict[str, Any]:
        """The deadlines of the player to move on a board, for calendars."""
        ctx = self.context(now)
        game = self._game(ctx, number)
        row = game.row
        due, stopped = deadlines(ctx.store, game, ctx.store.moves_of(number))
        return {"number": number, "title": get_variant(row.game).title, "game": row.game,
                "label": row.label, "white": game.white.userid, "black": game.black.userid,
                "active": game.active, "stopped": stopped, "deadlines": [d.as_dict() for d in due],
                "stamp": when(row.turn_since or row.updated_at),
                "ended": when(row.finished_at or row.updated_at) if not game.active else None,
                "domain": self.config.server.address.rpartition("@")[2] or "localhost",
                "view": board_view(ctx, game)}
