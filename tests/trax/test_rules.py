"""The cases an engine gets wrong, from the rules spec, and the basic rules."""

import pytest

from pbm.trax import Board, IllegalMoveError, NotationError, TraxError


def play(moves: str, variant: str = "trax") -> Board:
    board = Board(variant)
    for move in moves.split():
        board.play(move)
    return board


def test_a_forced_chain_that_brings_three_ends_together_makes_the_turn_illegal():
    board = play("@0/ B1+ C1/ C2\\ @1+ A2/ A3/ D3\\")
    before = board.fingerprint()
    with pytest.raises(IllegalMoveError, match=r"^three-ends "):
        board.play("B3\\")
    assert board.fingerprint() == before
    assert "B3\\" not in [str(m) for m in board.legal_moves()]


def test_a_curve_can_be_illegal_where_a_straight_in_the_same_cell_is_legal():
    board = play("@0+ B1/ C1/ A2/ A3+ A4/ B4+ C4/")
    with pytest.raises(IllegalMoveError):
        board.play("C3/")
    legal = [str(m) for m in board.legal_moves()]
    assert "C3/" not in legal and "C3+" in legal
    board.play("C3+")
    assert board.outcome() is None or board.outcome().winner in ("white", "black")


def test_the_mover_wins_when_both_colours_complete_a_track_in_one_turn():
    board = play("@0+ B1\\ B2/ A2+ A3/ A0\\ @3+ @3\\")
    assert board.turn == "white"
    board.play("B2+")
    outcome = board.outcome()
    assert outcome is not None and outcome.winner == "white"


def test_eight_straights_in_a_row_make_a_black_line():
    outcome = play("@0+ B1+ C1+ D1+ E1+ F1+ G1+ H1+").outcome()
    assert (outcome.winner, outcome.reason) == ("black", "line")


def test_a_line_needs_the_track_to_leave_through_the_outermost_edge():
    assert play("@0+ B1+ C1+ D1+ E1+ F1+ G1+ H1\\").outcome() is None


def test_seven_columns_are_not_enough_for_a_line():
    assert play("@0+ B1+ C1+ D1+ E1+ F1+ G1+").outcome() is None


LINE_GAME = "@0/ B1\\ C1/ D1+ E1\\ F1\\ G1/ A2/ B2+ C2\\ D2\\ E2\\ F2+ G2+ H2/ A3\\ B3\\ C3+ F3\\ H3+"


def test_a_winding_line_whose_ends_are_not_opposite_still_wins():
    outcome = play(LINE_GAME + " H1/").outcome()
    assert (outcome.winner, outcome.reason) == ("black", "line")


def test_widening_the_formation_spoils_a_line():
    assert play(LINE_GAME + " I3/ H1/").outcome() is None


def test_looptrax_does_not_count_lines():
    board = play("@0+ B1+ C1+ D1+ E1+ F1+ G1+ H1+", "looptrax")
    assert board.outcome() is None
    assert board.legal_moves()


def test_a_loop_wins_in_looptrax():
    board = play("@0+ B1\\ B2/ A2+ A3/ A0\\ @3+ @3\\ B2+", "looptrax")
    assert board.outcome().winner == "white" and board.outcome().reason == "loop"


def test_the_first_move_is_a_straight_or_a_slash_at_the_origin_only():
    assert [str(m) for m in Board().legal_moves()] == ["@0+", "@0/"]
    for bad in ("@0\\", "A1+", "B2/", "@1+"):
        with pytest.raises(IllegalMoveError, match=r"^first-move "):
            Board().play(bad)


def test_the_first_tile_fixes_the_colours():
    board = Board()
    assert board.play("@0+").tile == 5  # white vertical
    board = Board()
    assert board.play("@0/").tile == 9  # white joins top and left


def test_forced_tiles_are_placed_in_the_same_turn():
    board = play("@0/ A0+")
    assert board.tile_count == 2
    board.play("@1+")
    assert board.tile_count == 4  # the chosen tile forces one into the corner between
    assert [str(m) for m in board.moves] == ["@0/", "A0+", "@1+"]


def test_after_an_error_the_board_is_unchanged():
    board = play("@0/ B1+ C1/")
    before = board.fingerprint()
    for bad in ("Z9+", "A1+", "A0+#", "", "hello", "E1+", "@5/"):
        with pytest.raises(TraxError):
            board.play(bad)
        assert board.fingerprint() == before


def test_errors_say_what_was_wrong_in_plain_words():
    board = play("@0/ B1+ C1/")
    with pytest.raises(NotationError, match=r"^not-notation move='B2x'$"):
        board.play("B2x")
    with pytest.raises(IllegalMoveError, match=r"^occupied "):
        board.play("A1+")
    with pytest.raises(IllegalMoveError, match=r"^not-touching "):
        board.play("@2+")
    with pytest.raises(IllegalMoveError, match=r"^off-board "):
        board.play("Z9+")
    board = play("@0+ B1/ C1/ A2/ A3+ A4/ B4+ C4/")
    with pytest.raises(IllegalMoveError, match=r"^no-fit .*entries=\(\('white', 'top'\), \('black', 'left'\)\)"):
        board.play("B2/")


def test_error_classes_form_one_tree_under_value_error():
    assert issubclass(NotationError, TraxError)
    assert issubclass(IllegalMoveError, TraxError)
    assert issubclass(TraxError, ValueError)


def test_an_unknown_variant_is_a_value_error():
    with pytest.raises(ValueError, match="unknown game type"):
        Board(variant="chess")


def test_no_moves_are_legal_once_the_game_is_won():
    board = play("@0+ B1+ C1+ D1+ E1+ F1+ G1+ H1+")
    assert board.legal_moves() == []
    with pytest.raises(IllegalMoveError, match=r"^game-over$"):
        board.play("@1+")


def test_tile_count_includes_forced_tiles():
    board = play("@0/ A0+ @1+")
    assert board.tile_count == len(list(board.cells())) == 4
    assert len(board.moves) == 3


def test_undo_takes_back_the_whole_turn_including_forced_tiles():
    board = play("@0/ A0+")
    before = board.fingerprint()
    board.play("@1+")
    assert board.tile_count == 4
    assert str(board.pop()) == "@1+"
    assert board.fingerprint() == before


def test_undo_reopens_a_won_game():
    board = play("@0+ B1+ C1+ D1+ E1+ F1+ G1+")
    board.play("H1+")
    assert board.outcome() is not None
    board.pop()
    assert board.outcome() is None


def test_pop_on_an_empty_board_is_refused():
    with pytest.raises(IllegalMoveError):
        Board().pop()


def test_position_after_move_n_is_the_game_as_it_stood_then():
    board = play(LINE_GAME)
    past = board.after(5)
    assert [str(m) for m in past.moves] == LINE_GAME.split()[:5]
    assert past.fingerprint() == play(" ".join(LINE_GAME.split()[:5])).fingerprint()
    with pytest.raises(ValueError):
        board.after(99)


def test_replay_names_the_move_that_failed():
    with pytest.raises(IllegalMoveError, match=r"^off-board .*number=2 "):
        Board.replay(["@0/", "Q9+"])


def test_lower_case_moves_are_accepted_and_recorded_in_upper_case():
    board = Board()
    board.play("@0/")
    assert str(board.play("b1+")) == "B1+"


def test_column_letters_grow_past_z():
    # a long straight row: every move adds a column on the right
    board = Board("looptrax")
    board.play("@0+")
    for i in range(1, 30):
        from pbm.trax import column_letters

        board.play(f"{column_letters(i + 1)}1+")
    assert board.width == 30
    assert "AE1+" in [str(m) for m in board.legal_moves()]
