"""Pairing: round robins, Swiss rounds, knockouts and pools, against hand-made cases and
brute force."""

import math
import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbm.domain.pairing import (
    PairingError,
    knockout_bracket,
    knockout_next,
    pools,
    round_robin,
    swiss_round,
)

# -- round robin ---------------------------------------------------------------------------------


def colour_counts(rounds):
    whites, blacks = Counter(), Counter()
    for rnd in rounds:
        for white, black in rnd:
            whites[white] += 1
            blacks[black] += 1
    return whites, blacks


def test_six_players_five_rounds_fifteen_pairs_colours_balanced():
    players = [11, 12, 13, 14, 15, 16]
    rounds = round_robin(players)
    assert len(rounds) == 5
    for rnd in rounds:
        assert len(rnd) == 3
        assert sorted(p for pair in rnd for p in pair) == players  # everyone plays once a round
    pairs = [frozenset(pair) for rnd in rounds for pair in rnd]
    assert len(pairs) == 15 and set(pairs) == {frozenset(c) for c in combinations(players, 2)}
    whites, blacks = colour_counts(rounds)
    # five games each, so 3 whites and 2 blacks or the other way round
    assert all({whites[p], blacks[p]} == {2, 3} for p in players)


def test_first_round_follows_the_circle():
    # the last player is fixed and meets the first (1-6), then 2-5 and 3-4 (colours alternating
    # down the boards: the left side of the circle is white on odd boards)
    assert round_robin([1, 2, 3, 4, 5, 6])[0] == [(1, 6), (2, 5), (4, 3)]
    assert round_robin([1, 2, 3, 4, 5, 6])[1] == [(6, 2), (3, 1), (5, 4)]


def test_five_players_five_rounds_one_sitter_each():
    players = [1, 2, 3, 4, 5]
    rounds = round_robin(players)
    assert len(rounds) == 5
    sitters = []
    for rnd in rounds:
        assert len(rnd) == 2
        playing = {p for pair in rnd for p in pair}
        assert len(playing) == 4
        sitters += set(players) - playing
    assert sorted(sitters) == players  # everyone sits out exactly once
    pairs = {frozenset(pair) for rnd in rounds for pair in rnd}
    assert len(pairs) == 10
    whites, blacks = colour_counts(rounds)
    assert all(whites[p] == blacks[p] == 2 for p in players)


@pytest.mark.parametrize("n", range(2, 21))
def test_every_pair_once_and_colours_within_one(n):
    players = list(range(100, 100 + n))
    rounds = round_robin(players)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    pairs = [frozenset(pair) for rnd in rounds for pair in rnd]
    assert Counter(pairs) == Counter({frozenset(c): 1 for c in combinations(players, 2)})
    for rnd in rounds:
        flat = [p for pair in rnd for p in pair]
        assert len(flat) == len(set(flat))
    whites, blacks = colour_counts(rounds)
    assert all(abs(whites[p] - blacks[p]) <= 1 for p in players)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8])
def test_double_round_robin_every_ordered_pair_once(n):
    players = list(range(1, n + 1))
    single = round_robin(players)
    double = round_robin(players, double=True)
    assert len(double) == 2 * len(single)
    assert double[:len(single)] == single
    assert double[len(single):] == [[(b, w) for w, b in rnd] for rnd in single]
    ordered = Counter(pair for rnd in double for pair in rnd)
    assert ordered == Counter({(a, b): 1 for a in players for b in players if a != b})
    whites, blacks = colour_counts(double)
    assert all(whites[p] == blacks[p] == n - 1 for p in players)


def test_round_robin_edge_cases():
    assert round_robin([]) == []
    assert round_robin([7]) == []
    assert round_robin([7, 8]) == [[(7, 8)]]
    assert round_robin([7, 8], double=True) == [[(7, 8)], [(8, 7)]]
    assert round_robin([3, 1, 2]) == round_robin([3, 1, 2])
    with pytest.raises(ValueError):
        round_robin([1, 2, 1])


# -- Swiss: hand-made cases ----------------------------------------------------------------------


def swiss(players, scores=None, met=(), whites=None, blacks=None, last=None, had_bye=(),
          rating=None):
    return swiss_round(players, scores or {}, {frozenset(m) for m in met}, whites or {},
                       blacks or {}, last or {}, set(had_bye), rating or {})


def as_sets(pairs):
    return {frozenset(pair) for pair in pairs}


def test_score_groups_pair_within_themselves():
    pairs, bye = swiss([1, 2, 3, 4], {1: 1, 2: 1, 3: 0, 4: 0})
    assert bye is None
    assert as_sets(pairs) == {frozenset({1, 2}), frozenset({3, 4})}


def test_rematch_forces_the_score_groups_to_cross():
    pairs, _ = swiss([1, 2, 3, 4], {1: 1, 2: 1, 3: 0, 4: 0}, met=[(1, 2)])
    assert frozenset({1, 2}) not in as_sets(pairs)
    assert all(len({a, b} & {1, 2}) == 1 for a, b in pairs)  # each 1-pointer meets a 0-pointer


def test_odd_score_group_floats_one_player_only():
    # three on 2 points, three on 1: one 2-pointer must meet a 1-pointer, the rest stay in group
    scores = {1: 2, 2: 2, 3: 2, 4: 1, 5: 1, 6: 1}
    pairs, _ = swiss([1, 2, 3, 4, 5, 6], scores)
    mixed = [pair for pair in pairs if scores[pair[0]] != scores[pair[1]]]
    assert len(mixed) == 1


def test_squared_penalty_prefers_two_half_point_floats_to_one_full_point():
    # scores 2, 1.5, 1.5, 1: 2 v 1.5 and 1.5 v 1 cost 1 + 1 = 2 (in half points squared) and
    # 1.5 v 1.5 with 2 v 1 costs 0 + 4 = 4, so the lone leader floats down (as in the Dutch
    # system) rather than the two 1.5s keeping together
    pairs, _ = swiss([1, 2, 3, 4], {1: 2, 2: 1.5, 3: 1.5, 4: 1})
    sets = as_sets(pairs)
    assert frozenset({1, 4}) not in sets
    assert frozenset({2, 3}) not in sets


def test_first_round_splits_by_rating_top_half_against_bottom_half():
    rating = {p: 2000 - 10 * p for p in range(1, 9)}
    pairs, bye = swiss(list(range(1, 9)), rating=rating)
    assert bye is None
    # higher rating white when nothing else decides
    assert pairs == [(1, 5), (2, 6), (3, 7), (4, 8)]


def test_bye_to_the_lowest_ranked_without_one():
    players = [1, 2, 3, 4, 5]
    scores = {1: 2, 2: 1, 3: 1, 4: 0, 5: 0}
    rating = {1: 1500, 2: 1500, 3: 1500, 4: 1400, 5: 1600}
    # lowest score is 0 (4 and 5); of those 4 has the lower rating
    _, bye = swiss(players, scores, rating=rating)
    assert bye == 4
    _, bye = swiss(players, scores, rating=rating, had_bye=[4])
    assert bye == 5
    # both 0-pointers had one: the lowest-ranked 1-pointer; 2 and 3 are level on score and
    # rating, so the order of `players` ranks 2 above 3
    _, bye = swiss(players, scores, rating=rating, had_bye=[4, 5])
    assert bye == 3
    # everyone had one: the lowest-ranked again
    _, bye = swiss(players, scores, rating=rating, had_bye=players)
    assert bye == 4


def test_bye_moves_up_when_the_rest_cannot_be_paired():
    # 3 is lowest, but then 1 and 2 would have to meet again; the next one up is 2
    pairs, bye = swiss([1, 2, 3], {1: 1, 2: 1, 3: 0}, met=[(1, 2)])
    assert bye == 2 and as_sets(pairs) == {frozenset({1, 3})}


def test_second_bye_only_when_no_one_else_can_sit_out():
    # 3 met both others, so 1 and 2 (no bye yet) cannot sit out; 3 gets a second bye
    pairs, bye = swiss([1, 2, 3], {1: 1, 2: 1, 3: 1}, met=[(1, 3), (2, 3)], had_bye=[3])
    assert bye == 3 and as_sets(pairs) == {frozenset({1, 2})}


def test_impossible_pairings_raise():
    everyone_met = list(combinations([1, 2, 3, 4], 2))
    with pytest.raises(PairingError, match="rematch"):
        swiss([1, 2, 3, 4], met=everyone_met)
    with pytest.raises(PairingError):
        swiss([1, 2, 3], met=list(combinations([1, 2, 3], 2)))
    # 1 has met everybody else, so 1 cannot be paired (and an even count has no bye)
    with pytest.raises(PairingError):
        swiss([1, 2, 3, 4], met=[(1, 2), (1, 3), (1, 4)])


def test_small_counts():
    assert swiss([]) == ([], None)
    assert swiss([9]) == ([], 9)
    assert swiss([9, 4], rating={4: 1700, 9: 1600}) == ([(4, 9)], None)
    with pytest.raises(ValueError):
        swiss([1, 1])


def test_colour_more_blacks_gets_white():
    # 5 has had 2 whites 1 black, 6 has had 1 white 2 blacks: 6 gets white, whatever the
    # rating and last colour say
    pairs, _ = swiss([5, 6], whites={5: 2, 6: 1}, blacks={5: 1, 6: 2},
                     last={5: "black", 6: "white"}, rating={5: 2000, 6: 1000})
    assert pairs == [(6, 5)]


def test_colour_equal_balance_alternates():
    pairs, _ = swiss([5, 6], whites={5: 1, 6: 1}, blacks={5: 1, 6: 1},
                     last={5: "black", 6: "white"}, rating={5: 1000, 6: 2000})
    assert pairs == [(5, 6)]
    # only one of them has a last colour: they alternate from it
    pairs, _ = swiss([5, 6], last={6: "white"}, rating={5: 1000, 6: 2000})
    assert pairs == [(5, 6)]
    pairs, _ = swiss([5, 6], last={5: "w"}, rating={5: 1000, 6: 2000})
    assert pairs == [(6, 5)]


def test_colour_same_history_higher_rating_white():
    pairs, _ = swiss([5, 6], whites={5: 1, 6: 1}, last={5: "white", 6: "white"},
                     rating={5: 1500, 6: 1700})
    assert pairs == [(6, 5)]


def test_matching_avoids_two_players_due_the_same_colour():
    # all on 1 point; 1 and 3 have had more blacks, 2 and 4 more whites.  The group split
    # (1 v 3, 2 v 4) would give two pairs both due the same colour, so each pair mixes them
    rating = {1: 1900, 2: 1800, 3: 1700, 4: 1600}
    whites = {1: 0, 2: 1, 3: 0, 4: 1}
    blacks = {1: 1, 2: 0, 3: 1, 4: 0}
    pairs, _ = swiss([1, 2, 3, 4], {p: 1 for p in rating}, whites=whites, blacks=blacks,
                     rating=rating)
    assert {white for white, _ in pairs} == {1, 3}
    assert {black for _, black in pairs} == {2, 4}


def test_deterministic():
    rng = random.Random(5)
    players = list(range(1, 12))
    scores = {p: rng.choice([0, 0.5, 1, 1.5, 2]) for p in players}
    rating = {p: rng.choice([1500, 1600]) for p in players}
    first = swiss(players, scores, rating=rating)
    for _ in range(3):
        assert swiss(players, scores, rating=rating) == first


# -- Swiss: a whole event ------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_seven_players_four_rounds(seed):
    rng = random.Random(seed)
    players = [21, 22, 23, 24, 25, 26, 27]
    rating = {p: rng.randrange(1400, 1800) for p in players}
    scores = {p: 0.0 for p in players}
    met, had_bye = set(), set()
    whites, blacks, last = Counter(), Counter(), {}
    for _ in range(4):
        pairs, bye = swiss_round(players, scores, met, whites, blacks, last, had_bye, rating)
        assert bye is not None and bye not in had_bye  # a bye each round, never twice
        seen = [p for pair in pairs for p in pair] + [bye]
        assert sorted(seen) == players
        for white, black in pairs:
            assert frozenset((white, black)) not in met
            # the one with fewer whites - blacks gets white
            assert whites[white] - blacks[white] <= whites[black] - blacks[black]
            met.add(frozenset((white, black)))
            whites[white] += 1
            blacks[black] += 1
            last[white], last[black] = "white", "black"
            result = rng.choice([1.0, 0.5, 0.0])
            scores[white] += result
            scores[black] += 1 - result
        had_bye.add(bye)
        scores[bye] += 1
    assert len(had_bye) == 4
    assert len(met) == 12
    assert all(abs(whites[p] - blacks[p]) <= 2 for p in players)


# -- Swiss: against brute force ------------------------------------------------------------------


def perfect_matchings(players, met):
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        if frozenset((first, other)) in met:
            continue
        for matching in perfect_matchings(rest[:i] + rest[i + 1:], met):
            yield [(first, other), *matching]


def cost(pairs, scores):
    return sum((2 * scores.get(a, 0) - 2 * scores.get(b, 0)) ** 2 for a, b in pairs)


@st.composite
def swiss_inputs(draw):
    n = draw(st.integers(0, 9))
    players = draw(st.permutations(range(1, 10)))[:n]
    scores = {p: draw(st.integers(0, 6)) / 2 for p in players}
    rating = {p: draw(st.sampled_from([1400, 1500, 1600])) for p in players}
    all_pairs = [frozenset(c) for c in combinations(sorted(players), 2)]
    met = {pair for pair in all_pairs if draw(st.booleans()) and draw(st.booleans())}
    had_bye = {p for p in players if draw(st.booleans())}
    whites = {p: draw(st.integers(0, 3)) for p in players}
    blacks = {p: draw(st.integers(0, 3)) for p in players}
    last = {p: draw(st.sampled_from(["white", "black"])) for p in players if draw(st.booleans())}
    return players, scores, met, whites, blacks, last, had_bye, rating


@settings(max_examples=150, deadline=None)
@given(swiss_inputs())
def test_swiss_matches_brute_force(args):
    players, scores, met, whites, blacks, last, had_bye, rating = args
    ranked = sorted(players, key=lambda p: (-scores[p], -rating[p], players.index(p)))
    if len(players) % 2:
        candidates = [p for p in reversed(ranked) if p not in had_bye]
        candidates += [p for p in reversed(ranked) if p in had_bye]
    else:
        candidates = [None]
    feasible = [c for c in candidates
                if next(perfect_matchings([p for p in ranked if p != c], met), None) is not None]
    if not feasible:
        with pytest.raises(PairingError):
            swiss_round(players, scores, met, whites, blacks, last, had_bye, rating)
        return
    pairs, bye = swiss_round(players, scores, met, whites, blacks, last, had_bye, rating)
    assert bye == feasible[0]
    rest = [p for p in ranked if p != bye]
    assert sorted(p for pair in pairs for p in pair) == sorted(rest)
    assert not any(frozenset(pair) in met for pair in pairs)
    best = min(cost(m, scores) for m in perfect_matchings(rest, met))
    assert cost(pairs, scores) == best
    for white, black in pairs:
        assert whites[white] - blacks[white] <= whites[black] - blacks[black]


# -- knockout ------------------------------------------------------------------------------------


def test_eight_seeds_standard_order():
    seeds = [101, 102, 103, 104, 105, 106, 107, 108]
    assert knockout_bracket(seeds) == [(101, 108), (104, 105), (102, 107), (103, 106)]


def test_sixteen_seeds_standard_order():
    seeds = list(range(1, 17))
    assert knockout_bracket(seeds) == [(1, 16), (8, 9), (4, 13), (5, 12),
                                       (2, 15), (7, 10), (3, 14), (6, 11)]


def test_six_seeds_top_two_get_byes():
    assert knockout_bracket([1, 2, 3, 4, 5, 6]) == [(1, None), (4, 5), (2, None), (3, 6)]


def test_knockout_small():
    assert knockout_bracket([]) == []
    assert knockout_bracket([7]) == [(7, None)]
    assert knockout_bracket([7, 3]) == [(7, 3)]
    assert knockout_bracket([7, 3, 5]) == [(7, None), (3, 5)]


@pytest.mark.parametrize("n", range(2, 41))
def test_bracket_shape_and_favourites_meet_late(n):
    seeds = list(range(1, n + 1))
    first = knockout_bracket(seeds)
    size = 1 << (n - 1).bit_length()
    assert len(first) == size // 2
    byes = [high for high, low in first if low is None]
    assert sorted(byes) == seeds[:size - n]  # the top seeds get the byes
    assert sorted(p for pair in first for p in pair if p is not None) == seeds
    for high, low in first:
        assert low is None or high < low
        assert (low or size + 1 - high) + high == size + 1  # seed s meets seed size + 1 - s
    # if the higher seed always wins, the last four are 1-4 and the final 1 v 2
    winners = [high for high, _ in first]
    rounds = [first]
    while len(winners) > 1:
        pairs = knockout_next(winners)
        rounds.append(pairs)
        winners = [min(pair) for pair in pairs]
    assert winners == [1]
    assert len(rounds[-1]) == 1 and sorted(rounds[-1][0]) == [1, 2]
    if n >= 4:
        assert as_sets(rounds[-2]) == {frozenset({1, 4}), frozenset({2, 3})}


def test_knockout_next():
    assert knockout_next([5, 1, 7, 2]) == [(5, 1), (7, 2)]
    assert knockout_next([5]) == []
    with pytest.raises(ValueError):
        knockout_next([5, 1, 7])


# -- pools ---------------------------------------------------------------------------------------


def test_fourteen_players_two_pools_of_seven_snake():
    # seeds 1 2 | 2 1 | 1 2 | ...: pool A gets 1 4 5 8 9 12 13, pool B 2 3 6 7 10 11 14
    assert pools(list(range(1, 15)), 7) == [[1, 4, 5, 8, 9, 12, 13], [2, 3, 6, 7, 10, 11, 14]]


def test_ten_players_pools_of_four_make_three_pools_of_three_or_four():
    # ceil(10 / 4) = 3 pools: 1 2 3 | 3 2 1 | 1 2 3 | 3 -> sizes 3, 3, 4 (never 4, 4, 2)
    assert pools(list(range(1, 11)), 4) == [[1, 6, 7], [2, 5, 8], [3, 4, 9, 10]]


@given(st.integers(0, 60), st.integers(1, 12))
def test_pools_sizes_even(n, size):
    seeded = list(range(1000, 1000 + n))
    result = pools(seeded, size)
    assert len(result) == math.ceil(n / size)
    assert sorted(p for pool in result for p in pool) == seeded
    if result:
        sizes = [len(pool) for pool in result]
        assert max(sizes) - min(sizes) <= 1 and max(sizes) <= size
        assert result[0][0] == seeded[0]
        assert all(pool == sorted(pool) for pool in result)  # each pool keeps seed order


def test_pools_bad_size():
    with pytest.raises(ValueError):
        pools([1, 2, 3], 0)
