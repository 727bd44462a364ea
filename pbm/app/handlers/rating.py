"""Rating commands: the ``standings`` table and the ``history`` of rated games."""

from __future__ import annotations

from typing import Any

from pbm.domain.ratings import ESTABLISHED_AFTER, START, rating_changes
from pbm.domain.times import DAY, shown, when
from pbm.grammar.account_commands import NoArgs
from pbm.trax import get_variant

from ..request import Reply, Request


def standings(req: Request[NoArgs]) -> list[Reply]:
    store, game = req.store, req.game
    rated = {r.user_id: r for r in store.ratings_of_game(game)}
    active = store.active_players(game)
    prefs = store.preferences_of_game(game)
    default_limit = req.config.games.default_limit
    users = {u.id: u for u in store.all_users()}
    horizon = req.now - req.config.games.inactive_days * DAY
    sections: dict[str, list[dict[str, Any]]] = {"established": [], "provisional": [], "inactive": []}
    for uid, user in users.items():
        if user.computer:  # rated apart: its opponents' results are below
            continue
        r = rated.get(uid)
        pref = prefs.get(uid)
        seeking = pref.seeking if pref is not None else 0
        if r is None and not active.get(uid) and not seeking:
            continue  # never played this game type and not looking for a game
        entry: dict[str, Any] = {
            "userid": user.userid,
            "rating": round(r.rating) if r else round(START),
            "exact": r.rating if r else START,
            "games": r.games if r else 0,
            "wins": r.wins if r else 0, "losses": r.losses if r else 0, "draws": r.draws if r else 0,
            "active": active.get(uid, 0),
            "limit": (pref.game_limit if pref is not None else None) or default_limit or None,
            "seeking": seeking,
        }
        recent = r is not None and r.last_game_at is not None and when(r.last_game_at) >= horizon
        if not entry["active"] and not seeking and not recent:
            sections["inactive"].append(entry)
        elif entry["games"] >= ESTABLISHED_AFTER:
            sections["established"].append(entry)
        else:
            sections["provisional"].append(entry)
    for entries in sections.values():
        entries.sort(key=lambda e: (-e["exact"], e["userid"].casefold()))
    versus = [{"userid": r.userid, "rating": round(r.rating), "games": r.games,
               "wld": f"{r.wins}-{r.losses}-{r.draws}"} for r in store.computer_ratings_of_game(game)]
    return [req.to_sender("replies/standings.txt", title=get_variant(game).title, game=game,
                          sections=sections, established_after=ESTABLISHED_AFTER, versus_computer=versus,
                          inactive_days=req.config.games.inactive_days, now=shown(req.now))]


def history(req: Request[NoArgs]) -> list[Reply]:
    lines = []
    for row in req.store.rated_games(req.game):
        lines.append({
            "number": row.number, "ended": (row.finished_at or row.updated_at)[:10],
            "white": row.white_userid, "black": row.black_userid,
            "winner": row.winner, "reason": row.reason, "ply": row.ply,
            "ratings": rating_changes(row),
        })
    return [req.to_sender("replies/history.txt", title=get_variant(req.game).title, game=req.game,
                          games=lines)]
