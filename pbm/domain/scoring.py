"""Tournament tables (pure): scores, tie-breaks and the crosstable from a list of games.

Win 1, draw 1/2, loss (or forfeit) 0, a bye 1.  Tie-breaks in order: countback (the result
between the players tied on score), Sonneborn-Berger, number of wins; a Swiss event puts
Buchholz before them.  Scores are multiples of 1/2 and SB sums multiples of 1/4, so every
figure is exact in floating point and ties are compared with ``==``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

RESULTS = (1.0, 0.5, 0.0)


@dataclass(frozen=True)
class Game:
    white: int
    black: int
    result: float | None       # white's score; None = not finished
    round: int = 1

    @property
    def finished(self) -> bool:
        return self.result is not None


@dataclass(frozen=True)
class Standing:
    player: int
    rank: int                  # 1-based; equal ranks for players tied on every key
    score: float
    games: int                 # finished games played
    wins: int
    draws: int
    losses: int
    byes: int
    sonneborn_berger: float
    buchholz: float
    countback: float           # score in games among the players tied with them on score


def _check(players: list[int], games: list[Game]) -> list[int]:
    players = list(players)
    if len(set(players)) != len(players):
        raise ValueError(f"a player is listed twice: {players}")
    for game in games:
        if game.white == game.black:
            raise ValueError(f"a player cannot play themselves: {game}")
        if game.result is not None and game.result not in RESULTS:
            raise ValueError(f"a result is 1, 0.5, 0 or None: {game}")
    return players


def _sides(game: Game) -> tuple[tuple[int, int, float], tuple[int, int, float]]:
    """(player, opponent, player's score) for white and for black of a finished game."""
    assert game.result is not None
    return (game.white, game.black, float(game.result)), (game.black, game.white, 1.0 - game.result)


def standings(players: list[int], games: list[Game], *, byes: dict[int, int] | None = None,
              swiss: bool = False) -> list[Standing]:
    """The table, best first. Score: win 1, draw 1/2, loss 0; a bye scores 1 (byes: player ->
    number of byes). Tie-breaks in order: countback (the tied players' scores in the games among
    themselves only, computed within each group tied on score), Sonneborn-Berger (sum over
    finished games of opponent's final score x my score in that game, byes add nothing), number of
    wins; with swiss=True, Buchholz (sum of the final scores of the opponents met; a bye adds 0)
    comes before countback. Players level on all keys share a rank and are listed by the order
    of `players`. Unfinished games count for nothing.

    Games may involve players not in ``players`` (say, someone withdrawn and left out of the
    table): their scores still count in their opponents' Sonneborn-Berger and Buchholz.  Each
    game counts on its own, so in a double round robin an opponent adds twice to Buchholz.
    Countback groups are formed among ``players`` only.
    """
    players = _check(players, games)
    byes = dict(byes or {})
    if any(count < 0 for count in byes.values()):
        raise ValueError(f"a negative number of byes: {byes}")
    finished = [g for g in games if g.finished]

    score: dict[int, float] = defaultdict(float)
    for player, count in byes.items():
        score[player] += count
    for game in finished:
        for player, _, points in _sides(game):
            score[player] += points

    tally: dict[int, list[int]] = {p: [0, 0, 0] for p in players}  # wins, draws, losses
    sb: dict[int, float] = defaultdict(float)
    buchholz: dict[int, float] = defaultdict(float)
    for game in finished:
        for player, opponent, points in _sides(game):
            if player not in tally:
                continue
            tally[player][{1.0: 0, 0.5: 1, 0.0: 2}[points]] += 1
            sb[player] += points * score[opponent]
            buchholz[player] += score[opponent]

    by_score: dict[float, set[int]] = defaultdict(set)
    for player in players:
        by_score[score[player]].add(player)
    countback: dict[int, float] = defaultdict(float)
    for game in finished:
        for player, opponent, points in _sides(game):
            if player in tally and opponent in by_score[score[player]]:
                countback[player] += points

    def key(player: int) -> tuple[float, ...]:
        keys = [score[player]]
        if swiss:
            keys.append(buchholz[player])
        keys += [countback[player], sb[player], tally[player][0]]
        return tuple(-k for k in keys)

    table: list[Standing] = []
    previous = None
    for i, player in enumerate(sorted(players, key=key)):  # stable: ties keep `players` order
        k = key(player)
        rank = table[-1].rank if k == previous else i + 1
        previous = k
        wins, draws, losses = tally[player]
        table.append(Standing(
            player=player, rank=rank, score=score[player], games=wins + draws + losses,
            wins=wins, draws=draws, losses=losses, byes=byes.get(player, 0),
            sonneborn_berger=sb[player], buchholz=buchholz[player],
            countback=countback[player]))
    return table


def crosstable(players: list[int], games: list[Game]) -> dict[int, dict[int, list[float | None]]]:
    """For each player, for each opponent, the list of that player's scores in their games in
    round order (None for a game not finished); used to print the grid (1, ½, 0, '.' for
    unplayed).

    Keys follow the order of ``players``; every other player is a key even with no game between
    them (an empty list).  Games with anyone not in ``players`` are left out.  Games of the same
    round keep the order they were given in.
    """
    players = _check(players, games)
    grid: dict[int, dict[int, list[float | None]]] = {
        p: {q: [] for q in players if q != p} for p in players}
    for game in sorted(games, key=lambda g: g.round):
        if game.white not in grid or game.black not in grid:
            continue
        white = None if game.result is None else float(game.result)
        black = None if game.result is None else 1.0 - game.result
        grid[game.white][game.black].append(white)
        grid[game.black][game.white].append(black)
    return grid
