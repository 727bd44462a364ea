"""Ratings: the arithmetic, and what a finished rated game writes.

Each game type has its own table.  Everyone starts at :data:`START`.  A
player with fewer than :data:`ESTABLISHED_AFTER` rated games is provisional:
their rating is the average of the start rating and their performance in
each game, the opponent's rating plus 400 for a win, minus 400 for a loss,
and just the opponent's rating for a draw (the start rating counts as one
game, so a first result moves a newcomer by at most 200 points when the
opponent is rated 1600).  From then on the rating moves by Elo with ``K`` = 32 against
the opponent's rating as it stood before the game, provisional or not.
Both players' new ratings are worked out from the ratings before the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .store import Store
from .store.records import BoardRecord

START = 1600.0
ESTABLISHED_AFTER = 20
K = 32.0
SPREAD = 400.0  # the Elo scale, and the provisional bonus for a win


@dataclass(frozen=True)
class Rating:
    value: float = START
    games: int = 0  # rated games finished

    @property
    def provisional(self) -> bool:
        return self.games < ESTABLISHED_AFTER


def expected(rating: float, opponent: float) -> float:
    """The expected score against ``opponent`` (0.5 when equal)."""
    return 1.0 / (1.0 + float(10.0 ** ((opponent - rating) / SPREAD)))


def after_game(player: Rating, opponent: Rating, score: float) -> Rating:
    """``player``'s rating after scoring ``score`` (1, 0.5 or 0) against
    ``opponent``; both as they stood before the game."""
    if player.provisional:
        performance = opponent.value + SPREAD * (2.0 * score - 1.0)
        value = (player.value * (player.games + 1) + performance) / (player.games + 2)
    else:
        value = player.value + K * (score - expected(player.value, opponent.value))
    return Rating(value, player.games + 1)


def rate_game(white: Rating, black: Rating, white_score: float) -> tuple[Rating, Rating]:
    """Both new ratings after one game (``white_score`` 1, 0.5 or 0)."""
    return after_game(white, black, white_score), after_game(black, white, 1.0 - white_score)


def white_score(winner: str | None) -> float:
    """White's score in a result: 1 for a white win, 0 for a black one,
    0.5 for a draw (no winner)."""
    return {"white": 1.0, "black": 0.0, None: 0.5}[winner]


def stored_rating(store: Store, user_id: int, game: str) -> Rating:
    """A player's rating in a game type (the start rating before any game)."""
    row = store.rating(user_id, game)
    return Rating(row.rating, row.games) if row else Rating()


def record_result(store: Store, board: BoardRecord, now: datetime) -> dict[str, float]:
    """Rate a finished game (``board`` as it ended) and store both changes
    on the board and in the table; returns the board columns written."""
    game = board.game
    white, black = stored_rating(store, board.white_id, game), stored_rating(store, board.black_id, game)
    score = white_score(board.winner)
    new_white, new_black = rate_game(white, black, score)
    results = {1.0: ("win", "loss"), 0.0: ("loss", "win"), 0.5: ("draw", "draw")}[score]
    store.save_rating(board.white_id, game, new_white.value, results[0], now)
    store.save_rating(board.black_id, game, new_black.value, results[1], now)
    changes = {"white_before": white.value, "white_after": new_white.value,
               "black_before": black.value, "black_after": new_black.value}
    store.update_board(board.number, **changes)
    return changes


def apart_change(board: BoardRecord) -> dict[str, int] | None:
    """The person's rating against the computer before and after a game
    against it, rated apart (rounded), or None for any other board."""
    if board.apart_before is None or board.apart_after is None:
        return None
    before, after = round(board.apart_before), round(board.apart_after)
    return {"before": before, "after": after, "change": after - before}


def rating_changes(board: BoardRecord) -> dict[str, dict[str, Any]] | None:
    """Both players' ratings before and after a rated result (rounded), or
    None for a board without one."""
    sides = {"white": (board.white_before, board.white_after), "black": (board.black_before, board.black_after)}
    out = {}
    for colour, (before, after) in sides.items():
        if before is None or after is None:
            return None
        out[colour] = {"before": round(before), "after": round(after), "change": round(after) - round(before)}
    return out
