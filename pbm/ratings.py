"""Rating arithmetic (pure; the store keeps the numbers).

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
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / SPREAD))


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
