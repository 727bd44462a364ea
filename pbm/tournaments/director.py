"""Tournaments run by the server: entries, rounds, boards, tables, results.

The director creates the event and keeps the final word (withdrawals,
adjudications, pairing by hand); the server does the rest.  Round robins and
pools create all their boards at the start; Swiss and knockout events pair a
round as soon as the last game of the one before ends (a finished game calls
:func:`board_finished` from ``games.finish``, in the same transaction).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..errors import NotAllowedError, PbmError, UnknownBoardError
from ..replies import Reply, Request, handles
from ..store import Row, stamp
from ..trax import get_variant
from . import pairing, scoring

FORMAT_NAMES = {
    "roundrobin": "round robin",
    "double": "double round robin",
    "swiss": "Swiss",
    "knockout": "knockout",
    "pools": "pools, then a final",
}
DEFAULT_POOL_SIZE = 7
DEFAULT_ADVANCE = 3
# a knockout round still unfinished this many forfeit times after it was
# paired is reported to the director (once)
DEADLINE_IN_FORFEIT_TIMES = 4
RESULT_SCORES = {"white": 1.0, "black": 0.0, "draw": 0.5}


class TournamentError(PbmError):
    """A tournament command that cannot be done now (the message says why)."""


# ----------------------------------------------------------------------------
# loading


@dataclass
class Event:
    """A tournament with its entrants and pairings loaded."""

    row: Row
    entrants: list[Row]
    pairings: list[Row]

    @property
    def id(self) -> int:
        return self.row["id"]

    @property
    def name(self) -> str:
        return self.row["name"]

    def playing(self) -> list[Row]:
        """Entrants not withdrawn, by seed (join order before the start)."""
        rows = [e for e in self.entrants if e["withdrawn_at"] is None]
        return sorted(rows, key=lambda e: (e["seed"] or 0, e["joined_at"]))

    def userid(self, user_id: int | None) -> str:
        for e in self.entrants:
            if e["user_id"] == user_id:
                return e["userid"]
        return "?"


def load_event(req: Request, name) -> Event:
    row = req.store.tournament(name.key)
    if row is None or row["game"] != req.game:
        raise TournamentError(
            f"there is no {req.game} tournament {name}; \"{req.game} tournament list\" shows them"
        )
    return reload(req, row["id"])


def reload(req: Request, tournament_id: int) -> Event:
    store = req.store
    return Event(store.tournament_by_id(tournament_id), store.entrants(tournament_id), store.pairings(tournament_id))


def as_director(req: Request) -> tuple[Event, Row]:
    a = req.args
    user = req.login(a.userid, a.password)
    event = load_event(req, a.name)
    if event.row["director_id"] != user["id"]:
        raise NotAllowedError(f"only the director of {event.name} may do that")
    return event, user


def rating_of(req: Request, user_id: int, game: str) -> float:
    row = req.store.rating(user_id, game)
    return row["rating"] if row else 1600.0


# ----------------------------------------------------------------------------
# boards and pairings


def _create_game(req: Request, event: Event, stage: str, round_: int, white: int, black: int, label: str) -> int:
    from ..games import new_board

    store = req.store
    t = event.row
    number = new_board(
        req, t["game"], store.user_by_id(white), store.user_by_id(black), tournament=t["name"], label=label,
        nag_days=t["nag_days"], forfeit_days=t["forfeit_days"], rated=bool(t["rated"]),
    )
    store.add_pairing(tournament_id=event.id, stage=stage, round=round_, white_id=white, black_id=black,
                      board=number)
    return number


def _add_bye(req: Request, event: Event, stage: str, round_: int, player: int) -> None:
    req.store.add_pairing(tournament_id=event.id, stage=stage, round=round_, white_id=player, black_id=None,
                          result=1.0, decided_by="bye")


def _next_label(event: Event, round_: int) -> str:
    """The next board name of a Swiss or knockout round: ``ETC26-R2.3``."""
    used = sum(1 for p in event.pairings if p["round"] == round_ and p["board"] is not None)
    return f"{event.name}-R{round_}.{used + 1}"


def _round_robin_boards(req: Request, event: Event, stage: str, players: list[int], *, double: bool,
                        prefix: str) -> list[int]:
    numbers = []
    count = 0
    for r, games in enumerate(pairing.round_robin(players, double=double), start=1):
        for white, black in games:
            count += 1
            numbers.append(_create_game(req, event, stage, r, white, black, f"{event.name}-{prefix}{count}"))
    return numbers


def _pair_swiss(req: Request, event: Event, round_: int) -> list[int]:
    players = [e["user_id"] for e in event.playing()]
    finished = [p for p in event.pairings if p["result"] is not None]
    scores = {pid: 0.0 for pid in players}
    met: set[frozenset[int]] = set()
    whites = {pid: 0 for pid in players}
    blacks = {pid: 0 for pid in players}
    last: dict[int, str] = {}
    byes: set[int] = set()
    for p in sorted(event.pairings, key=lambda p: (p["round"], p["id"])):
        w, b = p["white_id"], p["black_id"]
        if b is None:
            byes.add(w)
            scores[w] = scores.get(w, 0.0) + 1.0
            continue
        met.add(frozenset((w, b)))
        whites[w] = whites.get(w, 0) + 1
        blacks[b] = blacks.get(b, 0) + 1
        last[w], last[b] = "white", "black"
    for p in finished:
        if p["black_id"] is not None:
            scores[p["white_id"]] = scores.get(p["white_id"], 0.0) + p["result"]
            scores[p["black_id"]] = scores.get(p["black_id"], 0.0) + 1.0 - p["result"]
    rating = {pid: rating_of(req, pid, event.row["game"]) for pid in players}
    pairs, bye = pairing.swiss_round(players, scores, met, whites, blacks, last, byes, rating)
    numbers = []
    for k, (white, black) in enumerate(pairs, start=1):
        numbers.append(_create_game(req, event, "main", round_, white, black, f"{event.name}-R{round_}.{k}"))
    if bye is not None:
        _add_bye(req, event, "main", round_, bye)
    return numbers


def _pair_knockout(req: Request, event: Event, round_: int, pairs: list[tuple[int, int | None]]) -> list[int]:
    numbers = []
    withdrawn = {e["user_id"] for e in event.entrants if e["withdrawn_at"] is not None}
    for white, black in pairs:
        if black is not None and black in withdrawn:
            black = None
        if white in withdrawn and black is not None:
            white, black = black, None
        if black is None:
            _add_bye(req, event, "main", round_, white)
            continue
        numbers.append(_create_game(req, event, "main", round_, white, black, _next_label(event, round_)))
        event = reload(req, event.id)
    return numbers


# ----------------------------------------------------------------------------
# starting and moving on


def start(req: Request, event: Event) -> list[Reply]:
    t = event.row
    entrants = event.playing()
    need = 4 if t["format"] == "pools" else 2
    if len(entrants) < need:
        raise TournamentError(
            f"{event.name} has {len(entrants)} player{'s' if len(entrants) != 1 else ''}; "
            f"a {FORMAT_NAMES[t['format']]} event needs at least {need}"
        )
    store = req.store
    seeded = sorted(entrants, key=lambda e: (-rating_of(req, e["user_id"], t["game"]), e["joined_at"], e["key"]))
    for seed, e in enumerate(seeded, start=1):
        store.update_entrant(event.id, e["user_id"], seed=seed)
    ids = [e["user_id"] for e in seeded]
    fields: dict[str, Any] = {"status": "running", "started_at": stamp(req.now), "round": 1,
                              "round_started_at": stamp(req.now)}
    if t["format"] == "swiss" and not t["rounds"]:
        fields["rounds"] = max(1, math.ceil(math.log2(len(ids))))
    if t["format"] == "pools":
        size = t["pool_size"] or DEFAULT_POOL_SIZE
        advance = t["advance"] or min(DEFAULT_ADVANCE, size - 1)
        fields.update(stage="pools", pool_size=size, advance=advance)
    store.update_tournament(event.id, **fields)
    event = reload(req, event.id)
    fmt = t["format"]
    if fmt in ("roundrobin", "double"):
        numbers = _round_robin_boards(req, event, "main", ids, double=fmt == "double", prefix="")
    elif fmt == "pools":
        numbers = []
        for i, pool in enumerate(pairing.pools(ids, event.row["pool_size"])):
            letter = chr(ord("A") + i)
            for pid in pool:
                store.update_entrant(event.id, pid, pool=letter)
            numbers += _round_robin_boards(req, event, letter, pool, double=False, prefix=letter)
    elif fmt == "swiss":
        numbers = _pair_swiss(req, event, 1)
    else:
        numbers = _pair_knockout(req, event, 1, pairing.knockout_bracket(ids))
    event = reload(req, event.id)
    return round_mails(req, event, numbers, "started")


def board_finished(req: Request, game) -> None:
    """A tournament board ended: record its result and move the event on."""
    p = req.store.pairing_of_board(game.number)
    if p is None:
        return
    winner = game.row["winner"]
    result = 1.0 if winner == "white" else 0.0 if winner == "black" else 0.5
    req.store.update_pairing(p["id"], result=result,
                             decided_by="director" if game.row["reason"] == "adjudicated" else "play")
    req.followups.extend(advance(req, reload(req, p["tournament_id"])))


def _open(pairings: list[Row]) -> list[Row]:
    return [p for p in pairings if p["result"] is None]


def advance(req: Request, event: Event) -> list[Reply]:
    """Pair what can be paired now; finish the event when nothing is left."""
    t = event.row
    if t["status"] != "running" or _open(event.pairings):
        return []
    fmt = t["format"]
    store = req.store
    if fmt == "pools" and t["stage"] == "pools":
        finalists = []
        for pool in sorted({p["stage"] for p in event.pairings}):
            table = group_standings(event, pool)
            withdrawn = {e["user_id"] for e in event.entrants if e["withdrawn_at"] is not None}
            finalists += [s.player for s in table if s.player not in withdrawn][: t["advance"]]
        finalists.sort(key=lambda pid: next(e["seed"] for e in event.entrants if e["user_id"] == pid))
        store.update_tournament(event.id, stage="final", round=2)
        event = reload(req, event.id)
        numbers = _round_robin_boards(req, event, "final", finalists, double=False, prefix="F")
        return round_mails(req, reload(req, event.id), numbers, "final")
    if fmt == "swiss" and t["round"] < t["rounds"] and len(event.playing()) >= 2:
        store.update_tournament(event.id, round=t["round"] + 1, round_started_at=stamp(req.now))
        event = reload(req, event.id)
        numbers = _pair_swiss(req, event, t["round"] + 1)
        return round_mails(req, reload(req, event.id), numbers, "round")
    if fmt == "knockout":
        winners, replays = knockout_winners(event, t["round"])
        if replays:
            numbers = []
            for white, black in replays:
                label = _next_label(event, t["round"])
                numbers.append(_create_game(req, event, "main", t["round"], white, black, label))
                event = reload(req, event.id)
            return round_mails(req, event, numbers, "replay")
        if len(winners) > 1:
            store.update_tournament(event.id, round=t["round"] + 1, round_started_at=stamp(req.now))
            event = reload(req, event.id)
            numbers = _pair_knockout(req, event, t["round"] + 1, pairing.knockout_next(winners))
            event = reload(req, event.id)
            if not numbers:  # only byes (withdrawals): on to the next round at once
                return advance(req, event)
            return round_mails(req, event, numbers, "round")
    store.update_tournament(event.id, status="finished", finished_at=stamp(req.now))
    return final_mails(req, reload(req, event.id))


def knockout_winners(event: Event, round_: int) -> tuple[list[int], list[tuple[int, int]]]:
    """The winners of a knockout round in bracket order, and the drawn
    pairs still to replay (colours swapped)."""
    slots: dict[frozenset, Row] = {}
    for p in event.pairings:
        if p["round"] == round_:
            key = frozenset((p["white_id"], p["black_id"]))
            slots[key] = p  # the latest game of a pair decides
    winners, replays = [], []
    for p in slots.values():
        if p["black_id"] is None:
            winners.append(p["white_id"])
        elif p["result"] == 0.5:
            replays.append((p["black_id"], p["white_id"]))
        else:
            winners.append(p["white_id"] if p["result"] == 1.0 else p["black_id"])
    return winners, replays


# ----------------------------------------------------------------------------
# tables


def _games(pairings: list[Row]) -> tuple[list[scoring.Game], dict[int, int]]:
    games, byes = [], {}
    for p in pairings:
        if p["black_id"] is None:
            byes[p["white_id"]] = byes.get(p["white_id"], 0) + 1
        else:
            games.append(scoring.Game(p["white_id"], p["black_id"], p["result"], p["round"]))
    return games, byes


def group_standings(event: Event, stage: str | None) -> list[scoring.Standing]:
    pairings = [p for p in event.pairings if stage is None or p["stage"] == stage]
    if event.row["format"] == "pools" and stage is not None and stage != "final":
        players = [e["user_id"] for e in sorted(event.entrants, key=lambda e: e["seed"] or 0) if e["pool"] == stage]
    elif stage == "final":
        players = list(dict.fromkeys(pid for p in pairings for pid in (p["white_id"], p["black_id"])))
        players.sort(key=lambda pid: next((e["seed"] or 0) for e in event.entrants if e["user_id"] == pid))
    else:
        players = [e["user_id"] for e in sorted(event.entrants, key=lambda e: (e["seed"] or 0, e["joined_at"]))]
    games, byes = _games(pairings)
    return scoring.standings(players, games, byes=byes, swiss=event.row["format"] == "swiss")


def _cell(scores: list[float | None]) -> str:
    marks = {1.0: "1", 0.5: "½", 0.0: "0", None: "."}
    return "".join(marks[s] for s in scores)


def group_table(event: Event, stage: str | None, title: str) -> dict[str, Any]:
    table = group_standings(event, stage)
    pairings = [p for p in event.pairings if stage is None or p["stage"] == stage]
    games, _ = _games(pairings)
    order = [s.player for s in table]
    grid = scoring.crosstable(order, games)
    withdrawn = {e["user_id"] for e in event.entrants if e["withdrawn_at"] is not None}
    rows = []
    for s in table:
        cells = []
        for other in order:
            if other == s.player:
                cells.append("*")
            else:
                cells.append(_cell(grid.get(s.player, {}).get(other, [])) or "")
        rows.append({
            "rank": s.rank, "userid": event.userid(s.player) + (" (w)" if s.player in withdrawn else ""),
            "cells": cells, "score": s.score, "sb": s.sonneborn_berger, "buchholz": s.buchholz,
            "wins": s.wins, "games": s.games, "byes": s.byes,
        })
    width = max([len(c) for r in rows for c in r["cells"]] + [1])
    return {"title": title, "rows": rows, "width": max(width, 2), "size": len(rows),
            "swiss": event.row["format"] == "swiss", "withdrawn": bool(withdrawn & set(order))}


def tables(event: Event) -> list[dict[str, Any]]:
    fmt = event.row["format"]
    if fmt == "pools":
        out = [group_table(event, letter, f"Pool {letter}")
               for letter in sorted({e["pool"] for e in event.entrants if e["pool"]})]
        if any(p["stage"] == "final" for p in event.pairings):
            out.append(group_table(event, "final", "Final"))
        return out
    return [group_table(event, None, "Table")]


def header(event: Event) -> str:
    t = event.row
    n = len(event.entrants)
    head = f"{t['name']} ({t['game']}, {FORMAT_NAMES[t['format']]}, {n} player{'s' if n != 1 else ''})"
    if t["status"] == "open":
        return head + " - open for entry"
    if t["status"] == "finished":
        return head + " - finished"
    played = sum(1 for p in event.pairings if p["result"] is not None and p["black_id"] is not None)
    total = sum(1 for p in event.pairings if p["black_id"] is not None)
    if t["format"] == "swiss":
        return head + f" - round {t['round']} of {t['rounds']} in progress"
    if t["format"] == "knockout":
        return head + f" - round {t['round']} in progress"
    stage = " (final)" if t["stage"] == "final" else " (pools)" if t["format"] == "pools" else ""
    return head + f" - {played} of {total} games finished{stage}"


def rounds_view(req: Request, event: Event) -> list[dict[str, Any]]:
    """Every pairing, grouped by stage and round, with its state."""
    out: dict[tuple, dict] = {}
    for p in event.pairings:
        stage = p["stage"]
        name = {"main": "Round", "final": "Final, round"}.get(stage, f"Pool {stage}, round")
        key = (stage == "final", stage, p["round"])
        group = out.setdefault(key, {"title": f"{name} {p['round']}", "games": []})
        if p["black_id"] is None:
            group["games"].append({"label": "bye", "number": None, "white": event.userid(p["white_id"]),
                                   "black": None, "state": "a bye (1 point)"})
            continue
        board = req.store.board(p["board"])
        if p["result"] is None:
            mover = board["white_id"] if len(board["moves"].split()) % 2 == 0 else board["black_id"]
            state = f"{event.userid(mover)} to move (move {len(board['moves'].split()) + 1})"
        else:
            state = {1.0: "1-0", 0.0: "0-1", 0.5: "½-½"}[p["result"]]
            if board["reason"] == "forfeit":
                state += " (forfeit)"
            elif board["reason"] == "adjudicated":
                state += " (director)"
        group["games"].append({"label": board["label"], "number": board["number"],
                               "white": event.userid(p["white_id"]), "black": event.userid(p["black_id"]),
                               "state": state})
    return [out[k] for k in sorted(out)]


def event_context(req: Request, event: Event) -> dict[str, Any]:
    t = event.row
    return {
        "event": t["name"], "header": header(event), "game": t["game"], "title": get_variant(t["game"]).title,
        "format": FORMAT_NAMES[t["format"]], "status": t["status"], "tables": tables(event),
        "rounds": rounds_view(req, event), "director": req.store.user_by_id(t["director_id"])["userid"],
        "nag_days": t["nag_days"], "forfeit_days": t["forfeit_days"], "rated": bool(t["rated"]),
        "entrants": [e["userid"] + (" (withdrawn)" if e["withdrawn_at"] else "") for e in event.entrants],
        "start_date": t["start_date"], "max_players": t["max_players"],
    }


# ----------------------------------------------------------------------------
# mail


def _everyone(req: Request, event: Event) -> dict[int, Row]:
    """Entrants still playing, and the director."""
    store = req.store
    people = {e["user_id"]: store.user_by_id(e["user_id"]) for e in event.entrants if e["withdrawn_at"] is None}
    people.setdefault(event.row["director_id"], store.user_by_id(event.row["director_id"]))
    return people


def round_mails(req: Request, event: Event, numbers: list[int], why: str) -> list[Reply]:
    """Board mail for every new board, then every entrant their boards and the table."""
    from ..games import board_mail, load_game

    mails = []
    mine: dict[int, list[dict]] = {}
    for number in numbers:
        game = load_game(req, number)
        mails.append(board_mail(req, game, template="replies/new-board.txt"))
        for colour, user in (("white", game.white), ("black", game.black)):
            mine.setdefault(user["id"], []).append({
                "label": game.row["label"], "number": number, "colour": colour,
                "opponent": game.opponent(user)["userid"], "moves_first": colour == "white",
            })
    context = event_context(req, event)
    for uid, user in _everyone(req, event).items():
        mails.append(Reply("replies/tournament-round.txt", req.addresses(user),
                           {**context, "why": why, "userid": user["userid"], "boards": mine.get(uid, [])}))
    return mails


def final_mails(req: Request, event: Event) -> list[Reply]:
    context = event_context(req, event)
    people = _everyone(req, event)
    for e in event.entrants:  # withdrawn players get the final table too
        people.setdefault(e["user_id"], req.store.user_by_id(e["user_id"]))
    return [Reply("replies/tournament-final.txt", req.addresses(user), {**context, "userid": user["userid"]})
            for user in people.values()]


# ----------------------------------------------------------------------------
# handlers


@handles("tournament create")
def create(req: Request) -> list[Reply]:
    a = req.args
    user = req.login(a.userid, a.password)
    if req.store.tournament(a.name.key) is not None:
        raise TournamentError(f"there is already a tournament named {a.name}; choose another name")
    if a.start is not None and a.start < req.now.date():
        raise TournamentError(f"the start date {a.start.isoformat()} has passed")
    cfg = req.config.games
    nag = a.nag_days if a.nag_days is not None else cfg.tournament_nag_days
    forfeit = a.forfeit_days if a.forfeit_days is not None else cfg.tournament_forfeit_days
    if nag >= forfeit:
        raise TournamentError(f"the nag time ({nag:g} days) must be shorter than the forfeit time ({forfeit:g} days)")
    fmt = a.format or "roundrobin"
    tid = req.store.create_tournament(
        name=str(a.name), key=a.name.key, game=req.game, director_id=user["id"], format=fmt, rounds=a.rounds,
        pool_size=a.pool_size, advance=a.advance, nag_days=nag, forfeit_days=forfeit, rated=int(a.rated),
        max_players=a.max_players, start_date=a.start.isoformat() if a.start else None, created_at=stamp(req.now),
    )
    event = reload(req, tid)
    return [Reply("replies/tournament-created.txt", req.account_mail(user), event_context(req, event))]


@handles("tournament join", "tournament leave")
def join_or_leave(req: Request) -> list[Reply]:
    a = req.args
    user = req.login(a.userid, a.password)
    event = load_event(req, a.name)
    joining = req.command.name == "tournament join"
    if event.row["status"] != "open":
        raise TournamentError(
            f"{event.name} has started, so entries are closed"
            + ("" if joining else f"; the director ({event.userid(event.row['director_id'])}) can withdraw you")
        )
    entered = any(e["user_id"] == user["id"] for e in event.entrants)
    if joining:
        if entered:
            raise TournamentError(f"you have already entered {event.name}")
        if event.row["max_players"] and len(event.entrants) >= event.row["max_players"]:
            raise TournamentError(f"{event.name} is full ({event.row['max_players']} players)")
        req.store.add_entrant(event.id, user["id"], req.now)
    else:
        if not entered:
            raise TournamentError(f"you have not entered {event.name}")
        req.store.remove_entrant(event.id, user["id"])
    event = reload(req, event.id)
    return [Reply("replies/tournament-entry.txt", req.account_mail(user),
                  {**event_context(req, event), "userid": user["userid"], "joined": joining})]


@handles("tournament start")
def start_command(req: Request) -> list[Reply]:
    event, _ = as_director(req)
    if event.row["status"] != "open":
        raise TournamentError(f"{event.name} has already started")
    return start(req, event)


def start_due(req: Request) -> list[Reply]:
    """Start the open tournaments whose start date has come (the clock work);
    one without enough players is left open and its director told, once."""
    mails = report_late_rounds(req)
    for row in req.store.tournaments_due(req.now.date().isoformat()):
        event = reload(req, row["id"])
        try:
            with req.store.atomic():
                mails += start(req, event)
        except TournamentError as exc:
            req.store.update_tournament(event.id, start_date=None)
            director = req.store.user_by_id(row["director_id"])
            mails.append(Reply("replies/tournament-not-started.txt", req.addresses(director),
                               {**event_context(req, reload(req, event.id)), "reason": exc.message}))
    return mails


def report_late_rounds(req: Request) -> list[Reply]:
    """Knockout rounds past their deadline with boards still in play: the
    director is told once per round, with the way to decide them."""
    from ..clock import DAY, shown, when

    mails = []
    for row in req.store.tournaments_running("knockout"):
        if row["reported_round"] == row["round"] or not row["round_started_at"]:
            continue
        deadline = when(row["round_started_at"]) + DEADLINE_IN_FORFEIT_TIMES * row["forfeit_days"] * DAY
        if req.now < deadline:
            continue
        event = reload(req, row["id"])
        late = [req.store.board(p["board"]) for p in _open(event.pairings) if p["round"] == row["round"]]
        req.store.update_tournament(event.id, reported_round=row["round"])
        if late:
            director = req.store.user_by_id(row["director_id"])
            mails.append(Reply("replies/tournament-late.txt", req.addresses(director), {
                **event_context(req, event), "deadline": shown(deadline), "round": row["round"],
                "late": [{"label": b["label"], "number": b["number"]} for b in late]}))
    return mails


@handles("tournament show")
def show(req: Request) -> list[Reply]:
    event = load_event(req, req.args.name)
    return [req.to_sender("replies/tournament-show.txt", **event_context(req, event))]


@handles("tournament list")
def list_tournaments(req: Request) -> list[Reply]:
    groups: dict[str, list[str]] = {"open": [], "running": [], "finished": []}
    for row in req.store.tournaments_of_game(req.game):
        groups[row["status"]].append(header(reload(req, row["id"])))
    return [req.to_sender("replies/tournament-list.txt", title=get_variant(req.game).title, game=req.game,
                          groups=groups)]


@handles("tournament withdraw")
def withdraw(req: Request) -> list[Reply]:
    from ..games import board_mail, finish, load_game

    event, _ = as_director(req)
    player = req.user(req.args.player)
    entry = next((e for e in event.entrants if e["user_id"] == player["id"]), None)
    if entry is None or entry["withdrawn_at"] is not None:
        raise TournamentError(f"{player['userid']} is not playing in {event.name}")
    if event.row["status"] == "open":
        req.store.remove_entrant(event.id, player["id"])
    elif event.row["status"] == "finished":
        raise TournamentError(f"{event.name} is over")
    else:
        req.store.update_entrant(event.id, player["id"], withdrawn_at=stamp(req.now))
    mails = []
    for p in _open(event.pairings):
        if player["id"] in (p["white_id"], p["black_id"]):
            game = load_game(req, p["board"])
            if game.active:
                winner = "black" if p["white_id"] == player["id"] else "white"
                finish(req, game, winner, "forfeit")
                mails.append(board_mail(req, game, events=[{"kind": "withdrawn", "player": player["userid"],
                                                            "tournament": event.name}]))
    event = reload(req, event.id)
    mails.insert(0, req.to_sender("replies/tournament-withdrawn.txt", **event_context(req, event),
                                  player=player["userid"], forfeited=len(mails)))
    if player["id"] != event.row["director_id"]:
        mails.append(Reply("replies/tournament-withdrawn.txt", req.addresses(player),
                           {**event_context(req, event), "player": player["userid"], "forfeited": len(mails) - 1}))
    return mails


@handles("tournament result")
def result(req: Request) -> list[Reply]:
    from ..games import board_mail, finish, load_game

    event, user = as_director(req)
    a = req.args
    game = load_game(req, a.board)
    p = req.store.pairing_of_board(game.number)
    if p is None or p["tournament_id"] != event.id:
        raise UnknownBoardError(f"board {a.board} is not a board of {event.name}", board=a.board)
    if not game.active:
        raise TournamentError(f"board {game.row['label']} is already finished")
    winner = None if a.result == "draw" else a.result
    finish(req, game, winner, "adjudicated")
    return [board_mail(req, game, events=[{"kind": "adjudicated", "player": user["userid"]}])]


@handles("tournament pair")
def pair(req: Request) -> list[Reply]:
    event, _ = as_director(req)
    if event.row["status"] != "running":
        raise TournamentError(f"{event.name} is {event.row['status']}; only a running event has rounds to pair")
    waiting = _open(event.pairings)
    if waiting:
        labels = ", ".join(req.store.board(p["board"])["label"] for p in waiting)
        raise TournamentError(
            f"the round is not over: {labels} still in play (decide one with \"tournament result\")"
        )
    mails = advance(req, event)
    if not mails:
        raise TournamentError(f"{event.name} has nothing left to pair")
    return mails


@handles("tournament announce")
def announce(req: Request) -> list[Reply]:
    event, user = as_director(req)
    if not req.comment.strip():
        raise TournamentError("the announcement goes in the body of the mail, and the body is empty")
    to: list[str] = []
    for person in _everyone(req, event).values():
        to.extend(req.addresses(person))
    return [Reply("replies/tournament-announce.txt", tuple(dict.fromkeys(to)),
                  {"event": event.name, "from": user["userid"], "comment": req.comment})]
