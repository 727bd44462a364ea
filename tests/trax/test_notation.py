"""Reading and writing both notations."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbm.app.compose import Renderer
from pbm.trax import Board, IllegalMoveError, NotationError, column_index, column_letters, parse_notation
from pbm.trax.notation import NewNotation, OldNotation


@pytest.mark.parametrize(
    "letters, index",
    [("@", 0), ("A", 1), ("Z", 26), ("AA", 27), ("AZ", 52), ("BA", 53), ("ZZ", 702), ("AAA", 703)],
)
def test_columns_count_in_bijective_base_26(letters, index):
    assert column_index(letters) == index
    assert column_letters(index) == letters


@given(st.integers(min_value=0, max_value=10**6))
def test_column_letters_round_trip(index):
    assert column_index(column_letters(index)) == index


@pytest.mark.parametrize(
    "text, expected",
    [
        ("@0+", NewNotation(0, 0, "+")),
        ("B3/", NewNotation(2, 3, "/")),
        ("AA12\\", NewNotation(27, 12, "\\")),
        ("b3/", NewNotation(2, 3, "/")),
        ("  c10+ ", NewNotation(3, 10, "+")),
    ],
)
def test_new_notation_is_read_in_any_case(text, expected):
    assert parse_notation(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("A1S", OldNotation(1, 1, "S", False)),
        ("1AU", OldNotation(1, 1, "U", True)),
        ("b2r", OldNotation(2, 2, "R", False)),
        ("C12L", OldNotation(3, 12, "L", False)),
        ("1Al", OldNotation(1, 1, "L", True)),
    ],
)
def test_old_notation_is_read_column_first_or_row_first(text, expected):
    assert parse_notation(text) == expected
    assert str(parse_notation(text)) == text.upper()


@pytest.mark.parametrize("text", ["", "B2x", "hello", "@@1+", "B+", "2B+", "A01/", "A0S", "@1S", "B2/#3", "+"])
def test_text_that_is_no_move_is_a_notation_error_with_the_right_form(text):
    with pytest.raises(NotationError) as refused:
        parse_notation(text)
    assert "B2/" in Renderer().words(refused.value)  # its words say how moves look


def test_old_notation_plays_the_same_as_new_notation():
    # A1S, then A1U: a new column left of the first tile, turning black upward
    old = Board()
    new = Board()
    for o, n in [("A1S", "@0+"), ("A1U", "@1\\"), ("1AR", None)]:
        played = old.play(o)
        if n is not None:
            assert str(played) == n
            new.play(n)
    assert [str(m) for m in old.moves][:2] == [str(m) for m in new.moves]


def test_old_first_move_letters():
    assert str(Board().play("A1C")) == "@0/"
    assert str(Board().play("a1s")) == "@0+"


def test_an_impossible_old_turn_letter_is_explained():
    board = Board.replay(["A1S"])
    assert str(board.parse_move("B1U")) == "B1/"
    assert str(board.parse_move("B1D")) == "B1\\"
    assert str(board.parse_move("1AR")) == "A0/"
    with pytest.raises(IllegalMoveError, match=r"^no-such-turn .*direction='left'"):
        board.play("B1L")  # a track coming from the left cannot turn back left
