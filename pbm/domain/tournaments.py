"""Tournaments: entries, seeding, rounds and their boards, results, tables.

The director creates the event and keeps the final word (withdrawals,
adjudications, pairing by hand); the server does the rest.  Round robins and
pools create all their boards at the start; Swiss and knockout events pair a
round as soon as the last game of the one before ends (a finished game
calls :func:`board_finished` from :func:`pbm.domain.results.conclude`, in the
same transaction).  What an event did is returned as :class:`Progress`, which
the application turns into mail.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pbm.grammar import Password, TournamentName, UserId
from pbm.grammar.tournament_commands import TournamentCreateArgs
from pbm.trax import Board

from . import pairing, scoring
from .accounts import login
from .boards import Game, default_times, new_board, times_problem
from .context import Context
from .ratings import stored_rating, white_score
from .refusals import NotAllowedError, TournamentError, UnknownBoardError
from .store.records import BoardRecord, EntrantListing, Pairing, TournamentRecord, User
from .times import DAY, stamp, when

DEFAULT_POOL_SIZE = 7
DEFAULT_ADVANCE = 3
# a knockout round still unfinished this many forfeit times after it was
# paired is reported to the director (once)
DEADLINE_IN_FORFEIT_TIMES = 4


@dataclass(frozen=True)
class Progress:
    """What an event did: ``why`` is ``started``, ``round``, ``final`` or
    ``replay`` (with the ``boards`` made), or ``finished``."""

    tournament_id: int
    why: str
    boards: tuple[int, ...] = ()


@dataclass(frozen=True)
class NotStarted:
    """An event whose start date came without enough players (``refusal``
    says why)."""

    tournament_id: int
    refusal: TournamentError


@dataclass(frozen=True)
class LateRound:
    """A knockout round past its ``deadline`` with ``boards`` still in play."""

    tournament_id: int
    round: int
    deadline: datetime.datetime
    boards: tuple[BoardRecord, ...]


# ----------------------------------------------------------------------------
# loading


@dataclass
class Event:
    """A tournament with its entrants and pairings loaded."""

    row: TournamentRecord
    entrants: list[EntrantListing]
    pairings: list[Pairing]

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def name(self) -> str:
        return self.row.name

    def playing(self) -> list[EntrantListing]:
        """Entrants not withdrawn, by seed (join order before the start)."""
        rows = [e for e in self.entrants if e.withdrawn_at is None]
        return sorted(rows, key=lambda e: (e.seed or 0, e.joined_at))

    def userid(self, user_id: int | None) -> str:
        for e in self.entrants:
            if e.user_id == user_id:
                return e.userid
        return "?"


def load_event(ctx: Context, name: TournamentName, game: str) -> Event:
    """The event of that name and game type."""
    row = ctx.store.tournament(name.key)
    if row is None or row.game != game:
        raise TournamentError(
            "unknown-tournament", {"game": game, "name": str(name)}
        )
    return reload(ctx, row.id)


def reload(ctx: Context, tournament_id: int) -> Event:
    store = ctx.store
    return Event(store.tournament_by_id(tournament_id), store.entrants(tournament_id), store.pairings(tournament_id))


def as_director(ctx: Context, userid: UserId, password: Password, name: TournamentName,
                game: str) -> tuple[Event, User]:
    """The event and its director, logged in."""
    user = login(ctx, userid, password)
    event = load_event(ctx, name, game)
    if event.row.director_id != user.id:
        raise NotAllowedError("not-director", {"name": event.name})
    return event, user


def rating_of(ctx: Context, user_id: int, game: str) -> float:
    return stored_rating(ctx.store, user_id, game).value



# ----------------------------------------------------------------------------
# boards and pairings


def _create_game(ctx: Context, event: Event, stage: str, round_: int, white: int, black: int, label: str) -> int:
    store = ctx.store
    t = event.row
    number = new_board(ctx, t.game, store.user_by_id(white), store.user_by_id(black), t.terms,
                       tournament=t.name, label=label)
    store.add_pairing(tournament_id=event.id, stage=stage, round=round_, white_id=white, black_id=black,
                      board=number)
    return number


def _add_bye(ctx: Context, event: Event, stage: str, round_: int, player: int) -> None:
    ctx.store.add_pairing(tournament_id=event.id, stage=stage, round=round_, white_id=player, black_id=None,
                          result=1.0, decided_by="bye")


def _next_label(event: Event, round_: int) -> str:
    """The next board name of a Swiss or knockout round: ``ETC26-R2.3``."""
    used = sum(1 for p in event.pairings if p.round == round_ and p.board is not None)
    return f"{event.name}-R{round_}.{used + 1}"


def _round_robin_boards(ctx: Context, event: Event, stage: str, players: list[int], *, double: bool,
                        prefix: str) -> list[int]:
    numbers = []
    count = 0
    for r, games in enumerate(pairing.round_robin(players, double=double), start=1):
        for white, black in games:
            count += 1
            numbers.append(_create_game(ctx, event, stage, r, white, black, f"{event.name}-{prefix}{count}"))
    return numbers


def _pair_swiss(ctx: Context, event: Event, round_: int) -> list[int]:
    players = [e.user_id for e in event.playing()]
    finished = [p for p in event.pairings if p.result is not None]
    scores = {pid: 0.0 for pid in players}
    met: set[frozenset[int]] = set()
    whites = {pid: 0 for pid in players}
    blacks = {pid: 0 for pid in players}
    last: dict[int, str] = {}
    byes: set[int] = set()
    for p in sorted(event.pairings, key=lambda p: (p.round, p.id)):
        w, b = p.white_id, p.black_id
        if b is None:
            byes.add(w)
            scores[w] = scores.get(w, 0.0) + 1.0
            continue
        met.add(frozenset((w, b)))
        whites[w] = whites.get(w, 0) + 1
        blacks[b] = blacks.get(b, 0) + 1
        last[w], last[b] = "white", "black"
    for p in finished:
        if p.black_id is not None and p.result is not None:
            scores[p.white_id] = scores.get(p.white_id, 0.0) + p.result
            scores[p.black_id] = scores.get(p.black_id, 0.0) + 1.0 - p.result
    rating = {pid: rating_of(ctx, pid, event.row.game) for pid in players}
    pairs, bye = pairing.swiss_round(players, scores, met, whites, blacks, last, byes, rating)
    numbers = []
    for k, (white, black) in enumerate(pairs, start=1):
        numbers.append(_create_game(ctx, event, "main", round_, white, black, f"{event.name}-R{round_}.{k}"))
    if bye is not None:
        _add_bye(ctx, event, "main", round_, bye)
    return numbers


def _pair_knockout(ctx: Context, event: Event, round_: int, pairs: Sequence[tuple[int, int | None]]) -> list[int]:
    numbers = []
    withdrawn = {e.user_id for e in event.entrants if e.withdrawn_at is not None}
    for white, black in pairs:
        if black is not None and black in withdrawn:
            black = None
        if white in withdrawn and black is not None:
            white, black = black, None
        if black is None:
            _add_bye(ctx, event, "main", round_, white)
            continue
        numbers.append(_create_game(ctx, event, "main", round_, white, black, _next_label(event, round_)))
        event = reload(ctx, event.id)
    return numbers


# ----------------------------------------------------------------------------
# starting and moving on


def start(ctx: Context, event: Event) -> list[Progress]:
    """Seed the entrants by rating and make the first boards."""
    t = event.row
    entrants = event.playing()
    need = 4 if t.format == "pools" else 2
    if len(entrants) < need:
        raise TournamentError(
            "too-few-entrants", {"name": event.name, "entrants": len(entrants), "format": t.format, "need": need}
        )
    store = ctx.store
    seeded = sorted(entrants, key=lambda e: (-rating_of(ctx, e.user_id, t.game), e.joined_at, e.key))
    for seed, e in enumerate(seeded, start=1):
        store.update_entrant(event.id, e.user_id, seed=seed)
    ids = [e.user_id for e in seeded]
    fields: dict[str, Any] = {"status": "running", "started_at": stamp(ctx.now), "round": 1,
                              "round_started_at": stamp(ctx.now)}
    if t.format == "swiss" and not t.rounds:
        fields["rounds"] = max(1, math.ceil(math.log2(len(ids))))
    if t.format == "pools":
        size = t.pool_size or DEFAULT_POOL_SIZE
        advance = t.advance or min(DEFAULT_ADVANCE, size - 1)
        fields.update(stage="pools", pool_size=size, advance=advance)
    store.update_tournament(event.id, **fields)
    event = reload(ctx, event.id)
    fmt = t.format
    if fmt in ("roundrobin", "double"):
        numbers = _round_robin_boards(ctx, event, "main", ids, double=fmt == "double", prefix="")
    elif fmt == "pools":
        numbers = []
        assert event.row.pool_size is not None  # set just above
        for i, pool in enumerate(pairing.pools(ids, event.row.pool_size)):
            letter = chr(ord("A") + i)
            for pid in pool:
                store.update_entrant(event.id, pid, pool=letter)
            numbers += _round_robin_boards(ctx, event, letter, pool, double=False, prefix=letter)
    elif fmt == "swiss":
        numbers = _pair_swiss(ctx, event, 1)
    else:
        numbers = _pair_knockout(ctx, event, 1, pairing.knockout_bracket(ids))
    return [Progress(event.id, "started", tuple(numbers))]


def board_finished(ctx: Context, game: Game) -> list[Progress]:
    """A tournament board ended: record its result and move the event on."""
    p = ctx.store.pairing_of_board(game.number)
    if p is None:
        return []
    ctx.store.update_pairing(p.id, result=white_score(game.row.winner),
                             decided_by="director" if game.row.reason == "adjudicated" else "play")
    return advance(ctx, reload(ctx, p.tournament_id))


def _open(pairings: list[Pairing]) -> list[Pairing]:
    return [p for p in pairings if p.result is None]


def advance(ctx: Context, event: Event) -> list[Progress]:
    """Pair what can be paired now; finish the event when nothing is left."""
    t = event.row
    if t.status != "running" or _open(event.pairings):
        return []
    fmt = t.format
    store = ctx.store
    if fmt == "pools" and t.stage == "pools":
        finalists = []
        for pool in sorted({p.stage for p in event.pairings}):
            table = group_standings(event, pool)
            withdrawn = {e.user_id for e in event.entrants if e.withdrawn_at is not None}
            finalists += [s.player for s in table if s.player not in withdrawn][: t.advance]
        finalists.sort(key=lambda pid: next(e.seed or 0 for e in event.entrants if e.user_id == pid))
        store.update_tournament(event.id, stage="final", round=2)
        event = reload(ctx, event.id)
        numbers = _round_robin_boards(ctx, event, "final", finalists, double=False, prefix="F")
        return [Progress(event.id, "final", tuple(numbers))]
    if fmt == "swiss" and t.round < (t.rounds or 0) and len(event.playing()) >= 2:
        store.update_tournament(event.id, round=t.round + 1, round_started_at=stamp(ctx.now))
        event = reload(ctx, event.id)
        numbers = _pair_swiss(ctx, event, t.round + 1)
        return [Progress(event.id, "round", tuple(numbers))]
    if fmt == "knockout":
        winners, replays = knockout_winners(event, t.round)
        if replays:
            numbers = []
            for white, black in replays:
                label = _next_label(event, t.round)
                numbers.append(_create_game(ctx, event, "main", t.round, white, black, label))
                event = reload(ctx, event.id)
            return [Progress(event.id, "replay", tuple(numbers))]
        if len(winners) > 1:
            store.update_tournament(event.id, round=t.round + 1, round_started_at=stamp(ctx.now))
            event = reload(ctx, event.id)
            numbers = _pair_knockout(ctx, event, t.round + 1, pairing.knockout_next(winners))
            event = reload(ctx, event.id)
            if not numbers:  # only byes (withdrawals): on to the next round at once
                return advance(ctx, event)
            return [Progress(event.id, "round", tuple(numbers))]
    store.update_tournament(event.id, status="finished", finished_at=stamp(ctx.now))
    return [Progress(event.id, "finished")]


def knockout_winners(event: Event, round_: int) -> tuple[list[int], list[tuple[int, int]]]:
    """The winners of a knockout round in bracket order, and the drawn
    pairs still to replay (colours swapped)."""
    slots: dict[frozenset[int | None], Pairing] = {}
    for p in event.pairings:
        if p.round == round_:
            key = frozenset((p.white_id, p.black_id))
            slots[key] = p  # the latest game of a pair decides
    winners, replays = [], []
    for p in slots.values():
        if p.black_id is None:
            winners.append(p.white_id)
        elif p.result == 0.5:
            replays.append((p.black_id, p.white_id))
        else:
            winners.append(p.white_id if p.result == 1.0 else p.black_id)
    return winners, replays


# ----------------------------------------------------------------------------
# tables


def games_and_byes(pairings: list[Pairing]) -> tuple[list[scoring.Game], dict[int, int]]:
    """The games of these pairings, and the byes per player."""
    games: list[scoring.Game] = []
    byes: dict[int, int] = {}
    for p in pairings:
        if p.black_id is None:
            byes[p.white_id] = byes.get(p.white_id, 0) + 1
        else:
            games.append(scoring.Game(p.white_id, p.black_id, p.result, p.round))
    return games, byes


def group_standings(event: Event, stage: str | None) -> list[scoring.Standing]:
    pairings = [p for p in event.pairings if stage is None or p.stage == stage]
    if event.row.format == "pools" and stage is not None and stage != "final":
        players = [e.user_id for e in sorted(event.entrants, key=lambda e: e.seed or 0) if e.pool == stage]
    elif stage == "final":
        players = list(dict.fromkeys(pid for p in pairings for pid in (p.white_id, p.black_id) if pid is not None))
        players.sort(key=lambda pid: next((e.seed or 0) for e in event.entrants if e.user_id == pid))
    else:
        players = [e.user_id for e in sorted(event.entrants, key=lambda e: (e.seed or 0, e.joined_at))]
    games, byes = games_and_byes(pairings)
    return scoring.standings(players, games, byes=byes, swiss=event.row.format == "swiss")




# ----------------------------------------------------------------------------
# what players and directors do


def create(ctx: Context, director: User, game: str, plan: TournamentCreateArgs) -> Event:
    """A new event of ``game``, as its director wrote it (``plan``), open
    for entry; times not given come from the config, the boards' rules
    (``ending``, ``points``) from the game type."""
    name, start_date = plan.name, plan.start
    if ctx.store.tournament(name.key) is not None:
        raise TournamentError("tournament-exists", {"name": str(name)})
    if start_date is not None and start_date < ctx.now.date():
        raise TournamentError("start-date-past", {"date": start_date.isoformat()})
    terms = default_times(ctx, plan.terms, tournament=True)
    problem = times_problem(ctx, terms)
    if problem:
        raise TournamentError(*problem)
    try:
        Board(game, ending=terms.ending, points=terms.points)
    except ValueError:
        raise TournamentError("rules-not-offered", {"game": game}) from None
    tid = ctx.store.create_tournament(
        name=str(name), key=name.key, game=game, director_id=director.id, format=plan.format or "roundrobin",
        rounds=plan.rounds, pool_size=plan.pool_size, advance=plan.advance, nag_days=terms.nag_days,
        forfeit_days=terms.forfeit_days, rated=int(terms.rated), max_players=plan.max_players,
        start_date=start_date.isoformat() if start_date else None, created_at=stamp(ctx.now),
        ending=terms.ending, points=terms.points,
    )
    return reload(ctx, tid)


def enter(ctx: Context, event: Event, user: User, *, joining: bool) -> Event:
    """The user joins the event (``joining``) or leaves it, before it starts."""
    if event.row.status != "open":
        raise TournamentError(
            "entries-closed", {"name": event.name, "director": None if joining else event.userid(event.row.director_id)}
        )
    entered = any(e.user_id == user.id for e in event.entrants)
    if joining:
        if entered:
            raise TournamentError("already-entered", {"name": event.name})
        if event.row.max_players and len(event.entrants) >= event.row.max_players:
            raise TournamentError("tournament-full", {"name": event.name, "most": event.row.max_players})
        ctx.store.add_entrant(event.id, user.id, ctx.now)
    else:
        if not entered:
            raise TournamentError("not-entered", {"name": event.name})
        ctx.store.remove_entrant(event.id, user.id)
    return reload(ctx, event.id)


def start_now(ctx: Context, event: Event) -> list[Progress]:
    """The director starts the event."""
    if event.row.status != "open":
        raise TournamentError("already-started", {"name": event.name})
    return start(ctx, event)


def withdraw(ctx: Context, event: Event, player: User) -> list[int]:
    """The director takes a player out: before the start the entry is
    removed, after it the player is marked withdrawn.  The boards of the
    player's games still in play, which the player forfeits."""
    entry = next((e for e in event.entrants if e.user_id == player.id), None)
    if entry is None or entry.withdrawn_at is not None:
        raise TournamentError("not-playing", {"userid": player.userid, "name": event.name})
    if event.row.status == "open":
        ctx.store.remove_entrant(event.id, player.id)
    elif event.row.status == "finished":
        raise TournamentError("tournament-over", {"name": event.name})
    else:
        ctx.store.update_entrant(event.id, player.id, withdrawn_at=stamp(ctx.now))
    return [p.board for p in _open(event.pairings) if player.id in (p.white_id, p.black_id) and p.board is not None]


def check_adjudication(ctx: Context, event: Event, game: Game, named: int | str) -> None:
    """May the director decide this board of the event (``named`` as the
    director wrote it) now?"""
    p = ctx.store.pairing_of_board(game.number)
    if p is None or p.tournament_id != event.id:
        raise UnknownBoardError("not-a-tournament-board", {"board": named, "name": event.name})
    if not game.active:
        raise TournamentError("board-already-finished", {"label": game.row.label})


def pair_now(ctx: Context, event: Event) -> list[Progress]:
    """The director pairs the next round (once the last one is over)."""
    if event.row.status != "running":
        raise TournamentError("not-running", {"name": event.name, "status": event.row.status})
    waiting = _open(event.pairings)
    if waiting:
        labels = tuple(str(ctx.store.board_label(p.board)) for p in waiting if p.board is not None)
        raise TournamentError(
            "round-not-over", {"boards": labels}
        )
    progress = advance(ctx, event)
    if not progress:
        raise TournamentError("nothing-to-pair", {"name": event.name})
    return progress


# ----------------------------------------------------------------------------
# the clock work


def start_due(ctx: Context) -> list[Progress | NotStarted]:
    """Start the open events whose start date has come; one without enough
    players is left open (its start date cleared, so it is told once)."""
    out: list[Progress | NotStarted] = []
    for row in ctx.store.tournaments_due(ctx.now.date().isoformat()):
        event = reload(ctx, row.id)
        try:
            with ctx.store.atomic():
                out += start(ctx, event)
        except TournamentError as exc:
            ctx.store.update_tournament(event.id, start_date=None)
            out.append(NotStarted(event.id, exc))
    return out


def late_rounds(ctx: Context) -> list[LateRound]:
    """Knockout rounds past their deadline with boards still in play, each
    reported once."""
    out = []
    for row in ctx.store.tournaments_running("knockout"):
        if row.reported_round == row.round or not row.round_started_at:
            continue
        deadline = when(row.round_started_at) + DEADLINE_IN_FORFEIT_TIMES * row.forfeit_days * DAY
        if ctx.now < deadline:
            continue
        event = reload(ctx, row.id)
        late = [ctx.store.board(p.board) for p in _open(event.pairings) if p.round == row.round and p.board is not None]
        ctx.store.update_tournament(event.id, reported_round=row.round)
        if late:
            out.append(LateRound(event.id, row.round, deadline, tuple(b for b in late if b is not None)))
    return out
