"""Views: what the templates show about a board or a tournament, as data.

Every value here is a fact (names, numbers, states, times as mail shows
them); the sentences around them are in the templates.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pbm.domain import consent, luck, scoring
from pbm.domain.boards import Game, colour_of_turn, colour_to_move, mover_id
from pbm.domain.clocks import BoardClock, board_clock
from pbm.domain.context import Context
from pbm.domain.ratings import apart_change, rating_changes
from pbm.domain.store import Store
from pbm.domain.store.records import BoardRecord, User
from pbm.domain.times import shown, span
from pbm.domain.tournaments import Event, games_and_byes, group_standings
from pbm.trax import Board, get_variant

# ----------------------------------------------------------------------------
# boards


def clock_view(clock: BoardClock) -> dict[str, Any]:
    return {
        "used": {c: span(t) for c, t in clock.used.items()},
        "waiting": span(clock.waiting) if clock.waiting is not None else None,
        "away": {c: shown(t) for c, t in clock.away.items()},
        "held": {c: shown(t) for c, t in clock.held.items()},
    }


def deadlines(row: BoardRecord, clock: BoardClock, now: datetime, awaiting: bool) -> dict[str, str | None]:
    """When the player to move gets the next reminder and loses by forfeit
    without a move (as mail shows times), while his clock runs: none while
    he is on vacation or his mail bounces, no reminder while a challenge
    waits for its answer.  Reminders come daily from ``nag_days`` on."""
    colour = colour_to_move(len(row.moves.split()))
    if row.status != "active" or clock.waiting is None or clock.away[colour] or clock.held[colour]:
        return {"reminder": None, "forfeit": None}
    day = timedelta(days=1)
    waited = clock.waiting
    forfeit = now + row.forfeit_days * day - waited
    if row.total_days:
        forfeit = min(forfeit, now + row.total_days * day - clock.used[colour])
    reminder = None
    if not awaiting:
        first = row.nag_days * day
        next_nag = first if waited < first else first + ((waited - first) // day + 1) * day
        reminder = now + next_nag - waited
        if reminder >= forfeit:
            reminder = None
    return {"reminder": shown(reminder), "forfeit": shown(forfeit)}


def last_turn_view(game: Game, board: Board) -> dict[str, Any] | None:
    """The last turn of ``board``: who played it, the move as recorded, and
    the tiles it forced (named as the board now stands)."""
    last = board.last_turn()
    if last is None:
        return None
    return {"player": game.player(colour_of_turn(board.ply)).userid, "move": str(last.move),
            "placed": str(last.placed) if last.placed is not None else None, "forced": [str(m) for m in last.forced]}


def board_view(ctx: Context, game: Game, *, position: Board | None = None, viewer: User | None = None,
               trial: bool = False, observers: bool = False) -> dict[str, Any]:
    """Everything a template shows about a board (``position``: an earlier
    position of it instead, or with ``trial`` the position a submitted move
    would give; ``viewer``: a player, who sees their own queue; with
    ``observers``, the userids of those subscribed to it)."""
    row = game.row
    variant = get_variant(row.game)
    board = position or game.board
    moves = ctx.store.moves_of(game.number)
    names = {game.white.id: game.white.userid, game.black.id: game.black.userid}
    draws = luck.draws_of(row)
    listed = [
        {"number": m.ply, "move": m.move, "auto": bool(m.auto), "player": names.get(m.user_id, "?"),
         "colour": colour_of_turn(m.ply), "drawn": draws[m.ply - 1] if m.ply <= len(draws) else None}
        for m in moves
    ][: board.ply]
    pending = None
    if row.pending_kind and game.active:
        pending = {"kind": row.pending_kind, "by": names.get(row.pending_by or 0, "?")}
    queued = ctx.store.queued(game.number, viewer.id) if viewer is not None else None
    outcome_winner = row.winner
    current = game.active and position is None
    draw = luck.current_draw(game) if current else None
    clock = board_clock(ctx.store, row, moves, ctx.now)
    awaiting = names.get(row.challenged_id or 0) if game.active and consent.awaited(row) else None
    return {
        "number": game.number,
        "game": row.game,
        "title": variant.title,
        "white": game.white.userid,
        "black": game.black.userid,
        "active": current,
        "finished": not game.active,
        "to_move": game.player(board.turn).userid if game.active else None,
        "to_move_colour": board.turn,
        "winner": game.player(outcome_winner).userid if outcome_winner else None,
        "winner_colour": outcome_winner,
        "reason": row.reason,
        "area_full": variant.max_size is not None and board.tile_count == variant.max_size ** 2,
        "rated": bool(row.rated),
        "awaiting": awaiting,
        "moves": listed,
        "ply": board.ply,
        "after": position.ply if position is not None and not trial else None,
        "trial": trial,
        "total_moves": len(moves),
        "last_turn": last_turn_view(game, board),
        "next": {"userid": game.player(board.turn).userid, "number": board.ply + 1,
                 "computer": game.player(board.turn).computer} if current else None,
        # how the player to move may answer this mail: "board" (a reply's first line is
        # the move), "digest" (a line "BOARD MOVE"), None (a reply cannot move): set by
        # whoever makes the mail, which knows whether his copy carries his reply token
        "by_reply": None,
        "level": row.level,
        "pending": pending,
        "queued": queued,
        "board": board,
        "created_at": shown(row.created_at),
        "updated_at": shown(row.updated_at),
        "last_move_at": shown(moves[-1].played_at) if moves else None,
        "now": shown(ctx.now),
        "limits": {"nag_days": row.nag_days, "forfeit_days": row.forfeit_days, "total_days": row.total_days},
        "clock": clock_view(clock),
        "due": deadlines(row, clock, ctx.now, awaiting is not None) if current else None,
        "tournament": row.tournament,
        "label": row.label,
        "ratings": rating_changes(row),
        "rating_apart": apart_change(row),  # against the computer: the person's rating apart
        "observers": observer_names(ctx, game) if observers else [],
        # the rules of the game type and of this board
        "ending": board.ending if board.variant.max_size is not None else None,
        "scores": dict(board.scores) if board.variant.scores else None,
        "target": board.points if board.variant.scores else None,
        "reset_due": board.variant.scores and board.reset_due,
        "draw": draw,
        "placements": [m.cell for m in board.placements(draw)] if draw is not None else [],
    }


def row_view(store: Store, row: BoardRecord) -> dict[str, Any]:
    """What a table of boards shows of one, from its stored row alone
    (nothing replayed: a list of two hundred long games costs no engine
    work)."""
    white, black = store.user_by_id(row.white_id), store.user_by_id(row.black_id)
    active = row.status == "active"
    names = {"white": white.userid, "black": black.userid}
    return {
        "number": row.number, "ply": len(row.moves.split()), "white": white.userid,
        "black": black.userid, "active": active, "reason": row.reason,
        "to_move": (white if mover_id(row) == white.id else black).userid if active else None,
        "winner": names.get(row.winner) if row.winner else None,
    }


def observer_names(ctx: Context, game: Game) -> list[str]:
    """The userids of a board's observers (subscribed to it or to every
    board of its game type; not those who get its result only)."""
    store = ctx.store
    players = {game.white.id, game.black.id}
    names = []
    for w in store.watchers_of(game.number, game.row.game):
        if w.kind == "subscribe" and w.user_id not in players:
            user = store.user_by_id(w.user_id)
            if not user.deleted_at:
                names.append(user.userid)
    return sorted(set(names), key=str.lower)


# ----------------------------------------------------------------------------
# tournaments


def group_table(event: Event, stage: str | None) -> dict[str, Any]:
    """The table of a group: all games (``stage`` None), a pool (its
    letter) or the final; each row with its crosstable cells (a result
    mark per game against each other player)."""
    table = group_standings(event, stage)
    pairings = [p for p in event.pairings if stage is None or p.stage == stage]
    order = [s.player for s in table]
    grid = scoring.crosstable(order, games_and_byes(pairings)[0])
    withdrawn = {e.user_id for e in event.entrants if e.withdrawn_at is not None}
    marks = {1.0: "1", 0.5: "1/2", 0.0: "0", None: "."}
    rows: list[dict[str, Any]] = []
    tied = {rank: sum(1 for s in table if s.rank == rank) for rank in {s.rank for s in table}}
    for s in table:
        cells = []
        for other in order:
            if other == s.player:
                cells.append("*")
            else:
                cells.append(" ".join(marks[r] for r in grid.get(s.player, {}).get(other, [])))
        rows.append({
            "rank": s.rank, "place": f"{s.rank}-{s.rank + tied[s.rank] - 1}" if tied[s.rank] > 1 else str(s.rank),
            "number": len(rows) + 1, "userid": event.userid(s.player), "withdrawn": s.player in withdrawn,
            "cells": cells, "score": s.score, "sb": s.sonneborn_berger, "buchholz": s.buchholz,
            "wins": s.wins, "games": s.games, "byes": s.byes,
        })
    width = max([len(c) for r in rows for c in r["cells"]] + [1])
    scores = [s.score for s in table]
    return {"stage": stage, "rows": rows, "width": max(width, 2), "size": len(rows),
            "ties": any(n > 1 for n in tied.values()),
            # a tie-break decided a place: two players on the same score, ranked apart
            "tie_broken": any(scores.count(s.score) > tied[s.rank] for s in table),
            "swiss": event.row.format == "swiss", "withdrawn": bool(withdrawn & set(order))}


def tables(event: Event) -> list[dict[str, Any]]:
    if event.row.format == "pools":
        out = [group_table(event, letter) for letter in sorted({e.pool for e in event.entrants if e.pool})]
        if any(p.stage == "final" for p in event.pairings):
            out.append(group_table(event, "final"))
        return out
    return [group_table(event, None)]


def heading(event: Event) -> dict[str, Any]:
    """The facts of an event's one-line heading: name, game type, format,
    players, how far it is."""
    t = event.row
    return {
        "name": t.name, "game": t.game, "format": t.format,
        "players": len(event.entrants), "status": t.status, "round": t.round, "rounds": t.rounds,
        "stage": t.stage,
        "played": sum(1 for p in event.pairings if p.result is not None and p.black_id is not None),
        "games": sum(1 for p in event.pairings if p.black_id is not None),
    }


def rounds_view(store: Store, event: Event) -> list[dict[str, Any]]:
    """Every pairing, grouped by stage and round, with its state."""
    out: dict[tuple[bool, str, int], dict[str, Any]] = {}
    for p in event.pairings:
        stage = p.stage
        key = (stage == "final", stage, p.round)
        group = out.setdefault(key, {"stage": stage, "round": p.round, "games": []})
        if p.black_id is None:
            group["games"].append({"bye": True, "number": None, "white": event.userid(p.white_id)})
            continue
        board = store.board(p.board) if p.board is not None else None
        assert board is not None
        game = {"bye": False, "label": board.label, "number": board.number,
                "white": event.userid(p.white_id), "black": event.userid(p.black_id),
                "result": p.result, "reason": board.reason, "to_move": None, "next_move": None}
        if p.result is None:
            game["to_move"] = event.userid(mover_id(board))
            game["next_move"] = len(board.moves.split()) + 1
        group["games"].append(game)
    return [out[k] for k in sorted(out)]


def knockout_winner(event: Event) -> str | None:
    """The winner of a finished knockout: who won the last game decided."""
    if event.row.format != "knockout" or event.row.status != "finished":
        return None
    decided = [p for p in event.pairings if p.result in (0.0, 1.0) and p.black_id is not None]
    if not decided:
        return None
    last = max(decided, key=lambda p: (p.round, p.id))
    return event.userid(last.white_id if last.result == 1.0 else last.black_id)


def round_pairings(store: Store, event: Event, numbers: tuple[int, ...]) -> dict[str, Any]:
    """The games just paired (the boards ``numbers``) and the byes of their
    round: board, names, colours."""
    made = [p for p in event.pairings if p.board in numbers]
    rounds = {(p.stage, p.round) for p in made}
    games = []
    for p in made:
        board = store.board(p.board) if p.board is not None else None
        games.append({"label": board.label if board else "", "number": p.board,
                      "white": event.userid(p.white_id), "black": event.userid(p.black_id)})
    byes = [event.userid(p.white_id) for p in event.pairings
            if p.black_id is None and (p.stage, p.round) in rounds]
    return {"pairings": games, "byes": byes}


def event_context(store: Store, event: Event) -> dict[str, Any]:
    """Everything the tournament templates show about an event."""
    t = event.row
    return {
        "event": t.name, "heading": heading(event), "game": t.game, "title": get_variant(t.game).title,
        "format": t.format, "status": t.status, "tables": tables(event),
        "rounds": rounds_view(store, event), "director": store.user_by_id(t.director_id).userid,
        "nag_days": t.nag_days, "forfeit_days": t.forfeit_days, "rated": bool(t.rated),
        "entrants": [{"userid": e.userid, "withdrawn": e.withdrawn_at is not None} for e in event.entrants],
        "start_date": t.start_date, "max_players": t.max_players, "winner": knockout_winner(event),
    }
