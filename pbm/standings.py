"""Ratings in the store: a finished rated game updates both players, and the
``standings`` and ``history`` commands show the tables."""

from __future__ import annotations

from datetime import datetime

from .clock import DAY, shown, when
from .ratings import ESTABLISHED_AFTER, START, Rating, rate_game
from .replies import Reply, Request, handles
from .store import Row, Store
from .trax import get_variant

SCORES = {"white": 1.0, "black": 0.0, None: 0.5}


def _rating(store: Store, user_id: int, game: str) -> Rating:
    row = store.rating(user_id, game)
    return Rating(row["rating"], row["games"]) if row else Rating()


def record_result(store: Store, board: Row, now: datetime) -> dict[str, float]:
    """Rate a finished game (``board`` as it ended) and store both changes
    on the board and in the table; returns the board columns written."""
    game = board["game"]
    white, black = _rating(store, board["white_id"], game), _rating(store, board["black_id"], game)
    score = SCORES[board["winner"]]
    new_white, new_black = rate_game(white, black, score)
    results = {1.0: ("win", "loss"), 0.0: ("loss", "win"), 0.5: ("draw", "draw")}[score]
    store.save_rating(board["white_id"], game, new_white.value, results[0], now)
    store.save_rating(board["black_id"], game, new_black.value, results[1], now)
    changes = {"white_before": white.value, "white_after": new_white.value,
               "black_before": black.value, "black_after": new_black.value}
    store.update_board(board["number"], **changes)
    return changes


def rating_changes(board: Row) -> dict[str, dict] | None:
    """The rating changes a board mail shows, or None for an unrated result."""
    if board.get("white_after") is None:
        return None
    out = {}
    for colour in ("white", "black"):
        before, after = round(board[f"{colour}_before"]), round(board[f"{colour}_after"])
        out[colour] = {"before": before, "after": after, "change": after - before}
    return out


@handles("standings")
def standings(req: Request) -> list[Reply]:
    store, game = req.store, req.game
    rated = {r["user_id"]: r for r in store.ratings_of_game(game)}
    active = store.active_players(game)
    prefs = store.preferences_of_game(game)
    default_limit = req.config.games.default_limit
    users = {u["id"]: u for u in store.all_users()}
    horizon = req.now - req.config.games.inactive_days * DAY
    sections: dict[str, list[dict]] = {"established": [], "provisional": [], "inactive": []}
    for uid, user in users.items():
        r = rated.get(uid)
        pref = prefs.get(uid, {})
        seeking = pref.get("seeking") or 0
        if r is None and not active.get(uid) and not seeking:
            continue  # never played this game type and not looking for a game
        entry = {
            "userid": user["userid"],
            "rating": round(r["rating"]) if r else round(START),
            "exact": r["rating"] if r else START,
            "games": r["games"] if r else 0,
            "wins": r["wins"] if r else 0, "losses": r["losses"] if r else 0, "draws": r["draws"] if r else 0,
            "active": active.get(uid, 0),
            "limit": pref.get("game_limit") or default_limit or None,
            "seeking": seeking,
        }
        recent = r is not None and r["last_game_at"] and when(r["last_game_at"]) >= horizon
        if not entry["active"] and not seeking and not recent:
            sections["inactive"].append(entry)
        elif entry["games"] >= ESTABLISHED_AFTER:
            sections["established"].append(entry)
        else:
            sections["provisional"].append(entry)
    for entries in sections.values():
        entries.sort(key=lambda e: (-e["exact"], e["userid"].casefold()))
    return [req.to_sender("replies/standings.txt", title=get_variant(game).title, game=game,
                          sections=sections, established_after=ESTABLISHED_AFTER,
                          inactive_days=req.config.games.inactive_days, now=shown(req.now))]


@handles("history")
def history(req: Request) -> list[Reply]:
    lines = []
    for row in req.store.rated_games(req.game):
        lines.append({
            "number": row["number"], "ended": (row["finished_at"] or row["updated_at"])[:10],
            "white": row["white_userid"], "black": row["black_userid"],
            "winner": row["winner"], "reason": row["reason"], "ply": row["ply"],
            "ratings": rating_changes(row),
        })
    return [req.to_sender("replies/history.txt", title=get_variant(req.game).title, game=req.game,
                          games=lines)]
