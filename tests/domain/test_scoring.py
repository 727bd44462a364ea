"""Tournament tables against tables worked out by hand."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbm.domain.scoring import Game, Standing, crosstable, standings

# A six-player round robin (A..F = 1..6), each result as the first player's score:
#
#        A    B    C    D    E    F  | score  SB    wins
#   A    *    1    0    1    1    1  |  4     8      4
#   B    0    *    1    1    0    1  |  3     6      3
#   C    1    0    *    ½    1    ½  |  3     7.5    2
#   D    0    0    ½    *    ½    1  |  2     3.5    1
#   E    0    1    0    ½    *    ½  |  2     4.5    1
#   F    0    0    ½    0    ½    *  |  1     2.5    0
#                                      15 points from 15 games
# SB (opponent's final score x my score in that game):
#   A: B 3 + D 2 + E 2 + F 1                 = 8    (lost to C)
#   B: C 3 + D 2 + F 1                       = 6
#   C: A 4 + D 2 x ½ + E 2 + F 1 x ½        = 4 + 1 + 2 + 0.5 = 7.5
#   D: C 3 x ½ + E 2 x ½ + F 1              = 1.5 + 1 + 1 = 3.5
#   E: B 3 + D 2 x ½ + F 1 x ½              = 3 + 1 + 0.5 = 4.5
#   F: C 3 x ½ + E 2 x ½                    = 1.5 + 1 = 2.5
# B and C are level on 3: B beat C, so countback puts B (1) above C (0) although C has the
# better SB.  D and E are level on 2 and drew each other (countback ½ each): SB puts E (4.5)
# above D (3.5).  Table: A, B, C, E, D, F.
A, B, C, D, E, F = 1, 2, 3, 4, 5, 6
ROUND_ROBIN = [
    Game(A, B, 1.0, 1), Game(C, A, 1.0, 2), Game(A, D, 1.0, 3), Game(E, A, 0.0, 4),
    Game(A, F, 1.0, 5),
    Game(B, C, 1.0, 3), Game(D, B, 0.0, 4), Game(B, E, 0.0, 5), Game(F, B, 0.0, 1),
    Game(C, D, 0.5, 5), Game(E, C, 0.0, 1), Game(C, F, 0.5, 4),
    Game(D, E, 0.5, 2), Game(F, D, 0.0, 3),
    Game(E, F, 0.5, 3),
]


def test_round_robin_table_by_hand():
    table = standings([A, B, C, D, E, F], ROUND_ROBIN)
    assert [s.player for s in table] == [A, B, C, E, D, F]
    assert [s.rank for s in table] == [1, 2, 3, 4, 5, 6]
    by = {s.player: s for s in table}
    assert {p: by[p].score for p in by} == {A: 4, B: 3, C: 3, D: 2, E: 2, F: 1}
    assert {p: by[p].sonneborn_berger for p in by} == {A: 8, B: 6, C: 7.5, D: 3.5, E: 4.5,
                                                       F: 2.5}
    assert {p: by[p].countback for p in by} == {A: 0, B: 1, C: 0, D: 0.5, E: 0.5, F: 0}
    assert {p: (by[p].wins, by[p].draws, by[p].losses) for p in by} == {
        A: (4, 0, 1), B: (3, 0, 2), C: (2, 2, 1), D: (1, 2, 2), E: (1, 2, 2), F: (0, 2, 3)}
    assert all(s.games == 5 and s.byes == 0 for s in table)
    # in a full round robin Buchholz is 15 minus one's own score
    assert {p: by[p].buchholz for p in by} == {A: 11, B: 12, C: 12, D: 13, E: 13, F: 14}
    assert by[A] == Standing(player=A, rank=1, score=4, games=5, wins=4, draws=0, losses=1,
                             byes=0, sonneborn_berger=8, buchholz=11, countback=0)


# A Swiss event, six players, three rounds (results as white's score):
#   R1: 2-1 1, 3-4 ½, 5-6 1      R2: 1-3 1, 2-5 1, 4-6 1      R3: 4-1 0, 6-2 1, 3-5 1
# Scores: 1 L W W = 2, 2 W W L = 2, 3 ½ L W = 1.5, 4 ½ W L = 1.5, 5 W L L = 1, 6 L L W = 1
# (9 points from 9 games).
# Buchholz (opponents' final scores):
#   1: 2 (2) + 3 (1.5) + 4 (1.5) = 5        2: 1 (2) + 5 (1) + 6 (1) = 4
#   3: 4 (1.5) + 1 (2) + 5 (1) = 4.5        4: 3 (1.5) + 6 (1) + 1 (2) = 4.5
#   5: 6 (1) + 2 (2) + 3 (1.5) = 4.5        6: 5 (1) + 4 (1.5) + 2 (2) = 4.5
# Countback: 1 and 2 level on 2, 2 beat 1 -> 2: 1, 1: 0.  3 and 4 drew -> ½ each.
#   5 and 6 level on 1, 5 beat 6 -> 5: 1, 6: 0.
# SB: 1: 3 (1.5) + 4 (1.5) = 3; 2: 1 (2) + 5 (1) = 3; 3: ½ x 1.5 + 5 (1) = 1.75;
#   4: ½ x 1.5 + 6 (1) = 1.75; 5: 6 (1) = 1; 6: 2 (2) = 2.
# Wins: 1: 2, 2: 2, 3: 1, 4: 1, 5: 1, 6: 1.
# Swiss (Buchholz first): 1 (5) above 2 (4) although 2 won their game; 3 and 4 level on
# everything (rank 3 both, listed in entry order); 5 above 6 by countback although 6 has the
# better SB.  Without Buchholz: 2 above 1 by countback.
SWISS = [
    Game(2, 1, 1.0, 1), Game(3, 4, 0.5, 1), Game(5, 6, 1.0, 1),
    Game(1, 3, 1.0, 2), Game(2, 5, 1.0, 2), Game(4, 6, 1.0, 2),
    Game(4, 1, 0.0, 3), Game(6, 2, 1.0, 3), Game(3, 5, 1.0, 3),
]


def test_swiss_table_buchholz_first():
    table = standings([1, 2, 3, 4, 5, 6], SWISS, swiss=True)
    assert [(s.player, s.rank) for s in table] == [(1, 1), (2, 2), (3, 3), (4, 3), (5, 5),
                                                   (6, 6)]
    by = {s.player: s for s in table}
    assert {p: by[p].score for p in by} == {1: 2, 2: 2, 3: 1.5, 4: 1.5, 5: 1, 6: 1}
    assert {p: by[p].buchholz for p in by} == {1: 5, 2: 4, 3: 4.5, 4: 4.5, 5: 4.5, 6: 4.5}
    assert {p: by[p].countback for p in by} == {1: 0, 2: 1, 3: 0.5, 4: 0.5, 5: 1, 6: 0}
    assert {p: by[p].sonneborn_berger for p in by} == {1: 3, 2: 3, 3: 1.75, 4: 1.75, 5: 1,
                                                       6: 2}
    # entry order decides only the listing of players level on every key
    table = standings([4, 3, 2, 1, 6, 5], SWISS, swiss=True)
    assert [(s.player, s.rank) for s in table] == [(1, 1), (2, 2), (4, 3), (3, 3), (5, 5),
                                                   (6, 6)]


def test_same_games_without_buchholz_countback_first():
    table = standings([1, 2, 3, 4, 5, 6], SWISS)
    assert [(s.player, s.rank) for s in table] == [(2, 1), (1, 2), (3, 3), (4, 3), (5, 5),
                                                   (6, 6)]


def test_wins_break_the_last_tie():
    # P (1) beat X (3) and lost to Y (4); Q (2) drew X and Y; X beat Z (5).
    # Scores: P 1, Q 1, X 1.5, Y 1.5, Z 0.  P and Q did not meet: countback 0 each.
    # SB P: 1 x 1.5 = 1.5; SB Q: ½ x 1.5 + ½ x 1.5 = 1.5.  Wins: P 1, Q 0 -> P first.
    games = [Game(1, 3, 1.0), Game(4, 1, 1.0), Game(2, 3, 0.5), Game(4, 2, 0.5),
             Game(3, 5, 1.0)]
    table = standings([2, 1, 3, 4, 5], games)
    by = {s.player: s for s in table}
    assert by[1].sonneborn_berger == by[2].sonneborn_berger == 1.5
    assert by[1].countback == by[2].countback == 0
    assert [s.player for s in table][2:4] == [1, 2]
    assert (by[1].rank, by[2].rank) == (3, 4)
    # X and Y level on 1.5; they did not meet; SB X: ½ x 1 + 1 x 0 = 0.5, Y: 1 + 0.5 = 1.5
    assert [s.player for s in table][:2] == [4, 3]


def test_a_cycle_shares_first_place():
    # 1 beat 2, 2 beat 3, 3 beat 1: 1 point, countback 1, SB 1, one win each
    games = [Game(1, 2, 1.0), Game(2, 3, 1.0), Game(3, 1, 1.0)]
    table = standings([3, 1, 2], games)
    assert [(s.player, s.rank, s.score, s.countback, s.sonneborn_berger) for s in table] == [
        (3, 1, 1, 1, 1), (1, 1, 1, 1, 1), (2, 1, 1, 1, 1)]


def test_byes_score_one_and_add_nothing_to_tie_breaks():
    # round 1: 1 beat 2, 3 had the bye.  Scores 1: 1, 3: 1, 2: 0.  Buchholz 1: 0 (2 has 0),
    # 3: 0; SB both 0; countback 0 (no game between them); wins 1: 1, 3: 0 -> 1 first.
    table = standings([3, 2, 1], [Game(1, 2, 1.0)], byes={3: 1}, swiss=True)
    assert [(s.player, s.rank, s.score, s.games, s.byes, s.buchholz, s.wins) for s in table] == [
        (1, 1, 1, 1, 0, 0, 1), (3, 2, 1, 0, 1, 0, 0), (2, 3, 0, 1, 0, 1, 0)]


def test_unfinished_games_count_for_nothing():
    games = [Game(1, 2, None), Game(2, 3, 0.5), Game(3, 1, None, 2)]
    table = standings([1, 2, 3], games)
    by = {s.player: s for s in table}
    assert by[1] == Standing(1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    assert (by[2].games, by[2].score, by[3].score) == (1, 0.5, 0.5)
    assert (by[2].rank, by[3].rank) == (1, 1)  # level on every key


def test_withdrawn_opponent_still_counts_for_tie_breaks():
    # 9 is left out of the table but beat 2 and lost to 1: 9 has 1 point, so 1's SB is 1
    games = [Game(1, 9, 1.0), Game(9, 2, 1.0)]
    by = {s.player: s for s in standings([1, 2], games)}
    assert (by[1].sonneborn_berger, by[1].buchholz, by[2].buchholz) == (1, 1, 1)


def test_bad_input():
    with pytest.raises(ValueError):
        standings([1, 1], [])
    with pytest.raises(ValueError):
        standings([1, 2], [Game(1, 2, 0.7)])
    with pytest.raises(ValueError):
        standings([1, 2], [Game(1, 1, 1.0)])


def test_empty():
    assert standings([], []) == []
    table = standings([5, 6], [])
    assert [(s.player, s.rank, s.score) for s in table] == [(5, 1, 0), (6, 1, 0)]


@given(st.lists(st.sampled_from([1.0, 0.5, 0.0, None]), min_size=15, max_size=15))
def test_any_round_robin_table_is_consistent(results):
    players = [1, 2, 3, 4, 5, 6]
    pairs = [(a, b) for i, a in enumerate(players) for b in players[i + 1:]]
    games = [Game(a, b, r) for (a, b), r in zip(pairs, results)]
    table = standings(players, games)
    assert sorted(s.player for s in table) == players
    assert sum(s.score for s in table) == sum(r is not None for r in results)
    assert all(s.score == s.wins + s.draws / 2 for s in table)
    assert sum(s.wins for s in table) == sum(s.losses for s in table)
    assert [s.score for s in table] == sorted((s.score for s in table), reverse=True)
    ranks = [s.rank for s in table]
    assert ranks[0] == 1 and ranks == sorted(ranks)
    for i, s in enumerate(table):
        assert s.rank == i + 1 or s.rank == table[i - 1].rank


def test_crosstable():
    games = [Game(2, 1, 0.5, 2), Game(1, 2, 1.0, 1), Game(1, 3, None, 3), Game(3, 9, 1.0, 1)]
    grid = crosstable([1, 2, 3], games)
    assert grid == {
        1: {2: [1.0, 0.5], 3: [None]},
        2: {1: [0.0, 0.5], 3: []},
        3: {1: [None], 2: []},
    }
    assert list(grid) == [1, 2, 3] and list(grid[2]) == [1, 3]


def test_crosstable_of_the_hand_table():
    grid = crosstable([A, B, C, D, E, F], ROUND_ROBIN)
    assert [grid[C][p] for p in (A, B, D, E, F)] == [[1.0], [0.0], [0.5], [1.0], [0.5]]
    assert sum(sum(scores[0] for scores in row.values()) for row in grid.values()) == 15
