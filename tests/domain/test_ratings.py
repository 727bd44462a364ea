"""Rating arithmetic against examples worked by hand."""

import pytest

from pbm.domain.ratings import Rating, after_game, expected, rate_game


def test_equal_ratings_expect_half_and_two_hundred_points_expect_about_three_quarters():
    assert expected(1600, 1600) == 0.5
    # 1 / (1 + 10^(-200/400)) = 1 / 1.316228 = 0.759747
    assert expected(1800, 1600) == pytest.approx(0.759747, abs=1e-6)
    assert expected(1600, 1800) == pytest.approx(0.240253, abs=1e-6)


def test_two_newcomers_first_game():
    # the start rating counts as one game: (1600 + (1600 + 400)) / 2 and (1600 + (1600 - 400)) / 2
    white, black = rate_game(Rating(), Rating(), 1.0)
    assert (white.value, white.games) == (1800, 1)
    assert (black.value, black.games) == (1400, 1)
    white, black = rate_game(Rating(), Rating(), 0.5)
    assert (white.value, black.value) == (1600, 1600)


def test_provisional_player_averages_the_start_and_every_performance():
    # 3 games at 1700, a draw with an established 1500: (1700 x 4 + 1500) / 5 = 1660
    assert after_game(Rating(1700, 3), Rating(1500, 40), 0.5) == Rating(1660, 4)
    # a loss to 1500 after 5 games at 1700: (1700 x 6 + 1100) / 7 = 1614.2857
    assert after_game(Rating(1700, 5), Rating(1500, 30), 0.0).value == pytest.approx(1614.2857, abs=1e-4)


def test_established_player_moves_by_elo_with_k_32():
    # 1600 v 1600, a loss: 1600 + 32 x (0 - 0.5) = 1584
    assert after_game(Rating(1600, 20), Rating(1600, 20), 0.0) == Rating(1584, 21)
    # 1800 beats 1600: 1800 + 32 x (1 - 0.759747) = 1807.688
    assert after_game(Rating(1800, 25), Rating(1600, 25), 1.0).value == pytest.approx(1807.688, abs=1e-3)
    # 1500 beats a provisional 1700: 1500 + 32 x 0.759747 = 1524.312
    assert after_game(Rating(1500, 30), Rating(1700, 5), 1.0).value == pytest.approx(1524.312, abs=1e-3)


def test_the_twentieth_game_is_still_provisional_and_the_twenty_first_is_not():
    twentieth = after_game(Rating(1600, 19), Rating(1600, 50), 1.0)
    assert twentieth == Rating((1600 * 20 + 2000) / 21, 20)  # 1619.05
    assert not twentieth.provisional
    assert after_game(twentieth, Rating(1600, 50), 1.0).value == pytest.approx(
        twentieth.value + 32 * (1 - expected(twentieth.value, 1600)))


def test_an_established_rating_never_moves_32_points_or_more():
    for a in range(1000, 2600, 100):
        for b in range(1000, 2600, 100):
            for score in (0.0, 0.5, 1.0):
                change = after_game(Rating(a, 30), Rating(b, 30), score).value - a
                assert abs(change) < 32
