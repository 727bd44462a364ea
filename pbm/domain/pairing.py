"""Pairing for e-mail tournaments (pure: players are user ids, nothing is stored).

* :func:`round_robin` - every round of a (double) round robin, circle method.
* :func:`swiss_round` - one Swiss round by a maximum-weight matching
  (:func:`networkx.max_weight_matching`), never a rematch.
* :func:`knockout_bracket` / :func:`knockout_next` - a seeded knockout.
* :func:`pools` - players spread over pools in snake order.

Every pair is ``(white, black)``.  The same input always gives the same output.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import networkx as nx


class PairingError(Exception):
    """No pairing satisfies the rules (e.g. every possible pair has met already)."""


def _check_distinct(players: Iterable[int]) -> list[int]:
    players = list(players)
    if len(set(players)) != len(players):
        raise ValueError(f"a player is listed twice: {players}")
    return players


# -- round robin ---------------------------------------------------------------------------------


def round_robin(players: list[int], *, double: bool = False) -> list[list[tuple[int, int]]]:
    """All rounds of a round robin by the circle (Berger) method: a list of rounds, each a list
    of (white, black). Odd count: one player sits out each round (no pair for them). Colours
    balanced: over the whole event each player's number of whites and blacks differ by at most 1
    (single RR) and every pair meets exactly once. double=True: the second cycle repeats the first
    with colours swapped, so every pair meets twice, once with each colour. players[0] is the
    first seed; the order of players decides the schedule deterministically.

    How: with an odd count a dummy (the sit-out) is added.  The last entry stays put and the
    others turn round a circle one place a round; in round ``r`` the circle ``c`` gives the pairs
    ``c[0]`` v fixed and ``c[i]`` v ``c[-i]``.  The fixed entry alternates colours (black in round
    1, so round 1 reads 1-n, 2-(n-1), ... as in the Berger tables); in the other pairs the player
    on the left of the circle is white when ``i`` is odd.  Each circle player passes every place
    once, so it gets as many whites as blacks on the left and right, plus the game with the fixed
    entry: whites and blacks differ by at most one.  With an odd count the fixed entry is the
    dummy, so everyone has exactly as many whites as blacks.
    """
    players = _check_distinct(players)
    if len(players) < 2:
        return []
    seats: list[int | None] = list(players)
    if len(seats) % 2:
        seats.append(None)
    n = len(seats)
    fixed, circle = seats[-1], seats[:-1]
    rounds: list[list[tuple[int, int]]] = []
    for r in range(n - 1):
        c = circle[r:] + circle[:r]
        pairs: list[tuple[int | None, int | None]] = []
        pairs.append((fixed, c[0]) if r % 2 else (c[0], fixed))
        for i in range(1, n // 2):
            left, right = c[i], c[n - 1 - i]
            pairs.append((left, right) if i % 2 else (right, left))
        rounds.append([(w, b) for w, b in pairs if w is not None and b is not None])
    if double:
        rounds += [[(b, w) for w, b in rnd] for rnd in rounds]
    return rounds


# -- Swiss ---------------------------------------------------------------------------------------


def _colour_pref(last: str | None) -> int:
    """+1 if the player should have white to alternate (last game black), -1 if black, 0 unknown."""
    if not last:
        return 0
    first = last.strip().lower()[:1]
    return {"b": 1, "w": -1}.get(first, 0)


def swiss_round(players: list[int], scores: dict[int, float], met: set[frozenset[int]],
                whites: dict[int, int], blacks: dict[int, int], last_colour: dict[int, str],
                had_bye: set[int], rating: dict[int, float]) -> tuple[list[tuple[int, int]], int | None]:
    """Pair one Swiss round. `players` are those still in the event (withdrawn ones already left
    out). Returns (pairs as (white, black), the player with the bye or None). Rules: never a
    rematch (pairs in `met` are forbidden); when the count is odd the bye goes to the
    lowest-ranked player (lowest score, then lowest rating) who has not had one yet (if all had
    one, the lowest-ranked); players of equal score are paired with each other wherever possible
    (score groups), otherwise with the nearest score; colours: a player who had more blacks gets
    white, ties broken by alternating from last_colour, then by rating (higher rating white).
    Use networkx.max_weight_matching(G, maxcardinality=True) on a graph whose edge weights
    encode: big reward per pair (so cardinality first), minus a penalty growing with the score
    difference (squared), minus small penalties for colour trouble. If no perfect matching
    without rematches exists, raise PairingError (define it, subclass of Exception) with a clear
    message. Deterministic for the same input (sort nodes/edges).

    Details:

    * Missing entries in the dicts count as 0 (scores, whites, blacks, rating) or "no colour yet"
      (last_colour, which holds ``"white"``/``"black"``; only the first letter is read).
    * Rank: score, then rating (higher first), then the order of ``players``.
    * The bye is tried on the lowest-ranked player without one first, then on the next one up,
      until the others can be paired without a rematch; only if none of them will do is a
      player who already had a bye considered (lowest-ranked first).
    * Edge weights are integers (networkx then computes exactly), in layers so that each layer
      outweighs everything below it summed over the whole round: pair count, then the sum of
      squared score differences (in half points), then colour trouble (both players due the
      same colour by balance, 2; both due the same colour by alternation, 1), and last a
      preference, within a score group, for the top half meeting the bottom half (1 v 3, 2 v 4
      in a group of four) rather than 1 v 2.
    * "More blacks" means a lower whites - blacks balance.
    * Pairs come back in board order: the pair with the best-ranked player first.
    """
    players = _check_distinct(players)
    order = {p: i for i, p in enumerate(players)}
    ranked = sorted(players, key=lambda p: (-scores.get(p, 0.0), -rating.get(p, 0.0), order[p]))
    rank = {p: i for i, p in enumerate(ranked)}
    if not players:
        return [], None
    if len(players) % 2 == 0:
        return _swiss_pairs(ranked, rank, scores, met, whites, blacks, last_colour, rating), None

    fresh = [p for p in reversed(ranked) if p not in had_bye]
    again = [p for p in reversed(ranked) if p in had_bye]
    for bye in fresh + again:
        rest = [p for p in ranked if p != bye]
        try:
            return _swiss_pairs(rest, rank, scores, met, whites, blacks, last_colour, rating), bye
        except PairingError:
            continue
    raise PairingError(
        f"cannot pair {len(players)} players without a rematch, whoever has the bye; "
        "the director must pair this round by hand or end the event")


def _swiss_pairs(ranked: list[int], rank: dict[int, int], scores: dict[int, float],
                 met: set[frozenset[int]], whites: dict[int, int], blacks: dict[int, int],
                 last_colour: dict[int, str], rating: dict[int, float]) -> list[tuple[int, int]]:
    """A perfect matching of ``ranked`` (an even count, best first) with colours, or PairingError."""
    if not ranked:
        return []
    n = len(ranked)
    half_points = {p: round(2 * scores.get(p, 0.0)) for p in ranked}
    balance = {p: whites.get(p, 0) - blacks.get(p, 0) for p in ranked}
    pref = {p: _colour_pref(last_colour.get(p)) for p in ranked}
    # place of each player within their score group, and the size of that group
    group: dict[int, list[int]] = {}
    for p in ranked:
        group.setdefault(half_points[p], []).append(p)
    place = {p: members.index(p) for members in group.values() for p in members}

    def colour_trouble(a: int, b: int) -> int:
        trouble = 0
        if (balance[a] > 0 and balance[b] > 0) or (balance[a] < 0 and balance[b] < 0):
            trouble += 2
        if pref[a] != 0 and pref[a] == pref[b]:
            trouble += 1
        return trouble

    def fold(a: int, b: int) -> int:
        if half_points[a] != half_points[b]:
            return 0
        size = len(group[half_points[a]])
        return abs(abs(place[a] - place[b]) - size // 2)

    pairs_in_round = n // 2
    fold_unit = 1
    fold_total = pairs_in_round * n + 1                 # > any sum of fold penalties
    colour_unit = fold_total
    colour_total = pairs_in_round * 3 * colour_unit + fold_total
    score_unit = colour_total                           # > any sum of colour and fold penalties
    spread = max(half_points.values()) - min(half_points.values())
    big = score_unit * (spread * spread + 1)            # every edge weight stays positive

    graph = nx.Graph()
    graph.add_nodes_from(ranked)
    for i, a in enumerate(ranked):
        for b in ranked[i + 1:]:
            if frozenset((a, b)) in met:
                continue
            d = half_points[a] - half_points[b]
            weight = (big - score_unit * d * d - colour_unit * colour_trouble(a, b)
                      - fold_unit * fold(a, b))
            graph.add_edge(a, b, weight=weight)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != n:
        raise PairingError(
            f"no pairing of {n} players avoids a rematch "
            f"(at most {len(matching)} of {pairs_in_round} pairs possible)")

    def white_first(a: int, b: int) -> tuple[int, int]:
        if balance[a] != balance[b]:
            return (a, b) if balance[a] < balance[b] else (b, a)
        if pref[a] != pref[b]:
            return (a, b) if pref[a] > pref[b] else (b, a)
        ra, rb = rating.get(a, 0.0), rating.get(b, 0.0)
        if ra != rb:
            return (a, b) if ra > rb else (b, a)
        return (a, b) if rank[a] < rank[b] else (b, a)

    pairs = [white_first(a, b) for a, b in matching]
    pairs.sort(key=lambda pair: min(rank[pair[0]], rank[pair[1]]))
    return pairs


# -- knockout ------------------------------------------------------------------------------------


def _bracket_seeds(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket order for a power-of-two ``size``: 1 8 4 5 2 7 3 6 for 8."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


def knockout_bracket(seeded: list[int]) -> list[tuple[int, int | None]]:
    """First round of a knockout from players in seed order (best first): pad to the next power
    of two with byes (None) so the top seeds get the byes; standard bracket order so that seeds
    1 and 2 can only meet in the final (1 v 16, 8 v 9, 5 v 12, 4 v 13, ... for 16). Each pair is
    (higher seed, lower seed or None); the higher seed is white in round 1.

    The order is the usual recursive one: for 8, seeds 1-8, 4-5, 2-7, 3-6; for 16, 1-16, 8-9,
    4-13, 5-12, 2-15, 7-10, 3-14, 6-11.  Each round's winners in this order feed
    :func:`knockout_next`.  A single player gives ``[(player, None)]``.
    """
    seeded = _check_distinct(seeded)
    if not seeded:
        return []
    size = 1 << (len(seeded) - 1).bit_length()
    slots = _bracket_seeds(size)
    if size == 1:
        return [(seeded[0], None)]
    pairs: list[tuple[int, int | None]] = []
    for i in range(0, size, 2):
        high, low = sorted(slots[i:i + 2])
        pairs.append((seeded[high - 1], seeded[low - 1] if low <= len(seeded) else None))
    return pairs


def knockout_next(winners: list[int]) -> list[tuple[int, int]]:
    """Next knockout round from the previous round's winners in bracket order: winners[0] v
    winners[1], winners[2] v winners[3], ... (the first of each pair white).

    One winner left means the event is over: ``[]``.  An odd count above one is an error.
    """
    winners = _check_distinct(winners)
    if len(winners) <= 1:
        return []
    if len(winners) % 2:
        raise ValueError(f"a knockout round needs an even number of winners, got {len(winners)}")
    return [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]


# -- pools ---------------------------------------------------------------------------------------


def pools(seeded: list[int], pool_size: int) -> list[list[int]]:
    """Spread players (best rating first) over ceil(n / pool_size) pools in snake order
    (1 2 3 3 2 1 1 2 3 ...), so pool strengths are even; pool sizes differ by at most 1.

    Each pool lists its players in seed order; pool 1 holds the first seed.  ``pool_size`` is
    the largest size wanted: no pool is bigger.
    """
    seeded = _check_distinct(seeded)
    if pool_size < 1:
        raise ValueError(f"pool size must be at least 1, got {pool_size}")
    count = math.ceil(len(seeded) / pool_size)
    result: list[list[int]] = [[] for _ in range(count)]
    for i, player in enumerate(seeded):
        lap, step = divmod(i, count)
        result[step if lap % 2 == 0 else count - 1 - step].append(player)
    return result
