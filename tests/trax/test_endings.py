"""The ending of a limited area, a board option (``Board(..., ending=)``):
``"draw"`` (no legal turn: a draw) and ``"lastloses"`` (the 2017 rules'
limited-tiles game: no legal turn that completes nothing, so the side to
move wins and the player who placed the last tile loses).  Also the other
board option, ``points``, and how both are kept."""

from __future__ import annotations

import pytest

from pbm.trax import ENDINGS, VARIANTS, Board, IllegalMoveError, Outcome, Variant, get_variant

from .test_last_turn import DRAWN

# ----------------------------------------------------------------------
# the options


def test_each_game_type_has_its_default_options():
    assert ENDINGS == ("draw", "lastloses")
    expected = {
        "trax": (None, None),
        "8x8trax": ("draw", None),
        "looptrax": (None, None),
        "minitrax": ("lastloses", None),
        "luckytrax": (None, None),
        "pointtrax": (None, 25),
    }
    assert set(VARIANTS) == set(expected)
    for name, options in expected.items():
        board = Board(name)
        assert (board.ending, board.points) == options, name


def test_an_ending_is_only_for_a_limited_area():
    for name in ("trax", "looptrax", "luckytrax", "pointtrax"):
        for ending in ENDINGS:
            with pytest.raises(ValueError, match="limited area"):
                Board(name, ending=ending)
    with pytest.raises(ValueError, match="unknown ending"):
        Board("8x8trax", ending="lose")
    assert Board("8x8trax", ending="lastloses").ending == "lastloses"
    assert Board("minitrax", ending="draw").ending == "draw"


def test_a_target_score_is_only_for_pointtrax_and_at_least_one():
    for name in ("trax", "8x8trax", "looptrax", "minitrax", "luckytrax"):
        with pytest.raises(ValueError, match="PointTrax"):
            Board(name, points=10)
    for bad in (0, -3, 2.5, True, "10"):
        with pytest.raises(ValueError, match="at least 1"):
            Board("pointtrax", points=bad)
    assert Board("pointtrax", points=1).points == 1


def test_a_variant_checks_its_own_ending():
    assert Variant("x", "X", 5, True).ending == "draw"  # a limited area's default
    with pytest.raises(ValueError):
        Variant("x", "X", None, True, ending="draw")
    with pytest.raises(ValueError):
        Variant("x", "X", 5, True, ending="sudden")
    assert get_variant("pointtrax").scores and not get_variant("trax").scores
    assert get_variant("luckytrax").drawn and not get_variant("trax").drawn


def test_the_options_are_kept_by_copy_after_replay_and_shown_by_repr():
    board = Board.replay(["@0+", "B1+"], "8x8trax", ending="lastloses")
    assert board.copy().ending == "lastloses"
    assert board.after(1).ending == "lastloses"
    assert board.after(0).ending == "lastloses"
    assert repr(board) == "Board('8x8trax', ending='lastloses', moves='@0+ B1+')"
    scored = Board.replay(["@0/"], "pointtrax", points=7)
    assert scored.copy().points == scored.after(0).points == 7
    assert repr(scored) == "Board('pointtrax', points=7, moves='@0/')"
    assert repr(Board.replay(["@0/"])) == "Board('trax', moves='@0/')"
    assert repr(Board("minitrax")) == "Board('minitrax', ending='lastloses', moves='')"


# ----------------------------------------------------------------------
# 8x8: the draw ending is what it always was


def test_the_draw_ending_of_8x8_is_unchanged():
    board = Board.replay(DRAWN.split(), "8x8trax")
    assert board.ending == "draw"
    assert board.outcome() == Outcome(None, "draw")
    assert board.legal_moves() == []
    assert board.after(board.ply - 1).outcome() is None


# The last quiet tile on an 8x8 board.  After the 37 moves of BEFORE (black
# to move) two cells are empty, A1 and B1 in the top-left corner:
#
#    @  A  B  C  D  E  F  G  H  I
# 0  .  .  .  .  .  .  .  .  .  .  0
#             #  #  o  o  o  o
# 1  .  .  . o+oo\##+##\oo/##+# .  1
#       #  #  #  o  o  #  #  o
# 2  . o+oo+oo\##+##\oo+oo\##\o .  2
#       #  #  o  o  #  #  o  #
# 3  . o+oo+oo/##\oo+oo\##\oo+o .  3
#       #  #  #  #  #  o  #  #
# 4  . o+oo\##/oo\##/oo/##/oo\# .  4
#       #  o  o  o  o  #  o  o
# 5  . o+oo/##+##\oo/##/oo/##+# .  5
#       #  #  o  #  #  o  #  o
# 6  . o\##/oo/##/oo\##\oo\##+# .  6
#       o  o  #  o  o  #  o  o
# 7  . #+##\oo\##+##\oo\##+##\o .  7
#       o  #  o  o  #  o  o  #
# 8  . #\oo\##+##\oo\##+##\oo\# .  8
#       #  o  o  #  o  o  #  o
# 9  .  .  .  .  .  .  .  .  .  .  9
#
# The formation is 8x8 already, so nothing may go outside it.  B1 has white
# entering from the right (C1) and black from below (B2); A1 has black from
# below (A2).  Black's five legal turns are A1+, A1/, A1\, B1+ and B1\; each
# but B1+ sends a track out through the top edge that runs down to the
# bottom one, a line over 8 rows.  B1+ (white across, black up and down)
# is the only quiet turn, and black plays it.  Now A1 is the last empty
# cell, with white entering from the right (B1) and black from below (A2):
#
#    @  A  B  C  D
# 0  .  .  .  .  .  ...
#          #  #  #
# 1  .  . o*oo+oo\#  ...
#       #  #  #  o
# 2  . o+oo+oo\##+#  ...
#
# A1+ (black up and down) takes the black track from A2 out through the
# top: it runs down to the bottom edge, a black line.  A1\ (white right and
# up) takes the white track from B1 out through the top: it too runs down
# to the bottom edge, a white line.  White has no quiet turn left, so black,
# who placed the last quiet tile, loses.
BEFORE_MOVES = (
    "@0/ B1/ A0+ A3\\ B0\\ C1/ D2/ @4\\ C0\\ F3/ @5+ H3+ H2\\ H1+ A3+ C0\\ H5+ H1\\ B7\\ B3\\ F2\\ F6\\ "
    "E1\\ E0+ D1\\ B3+ F2+ B2+ H1+ A4+ A2+ D8\\ E8\\ H7\\ G8\\ C1+ H8\\"
)
BEFORE = BEFORE_MOVES.split()
LAST = [*BEFORE, "B1+"]


def test_8x8_lastloses_one_ply_before_the_end_black_has_one_quiet_turn():
    board = Board.replay(BEFORE, "8x8trax", ending="lastloses")
    assert board.tile_count == 62 and board.turn == "black"
    assert board.outcome() is None
    outcomes = {}
    for move in board.legal_moves():
        board.play(move)
        outcomes[str(move)] = board.outcome()
        board.pop()
    assert set(outcomes) == {"A1+", "A1/", "A1\\", "B1+", "B1\\"}
    assert [m for m, o in outcomes.items() if o is None or o.reason == "lasttile"] == ["B1+"]
    assert all(o.reason == "line" for m, o in outcomes.items() if m != "B1+")


def test_8x8_lastloses_the_side_to_move_wins_when_only_winning_turns_are_left():
    board = Board.replay(LAST, "8x8trax", ending="lastloses")
    assert board.tile_count == 63 and board.turn == "white"
    assert board.outcome() == Outcome("white", "lasttile")
    assert board.legal_moves() == []
    assert board.winning_track() is None
    with pytest.raises(IllegalMoveError, match=r"^game-over$"):
        board.play("A1+")
    # under the draw ending the same position goes on: two legal turns, both lines
    drawn = Board.replay(LAST, "8x8trax")
    assert [str(m) for m in drawn.legal_moves()] == ["A1+", "A1\\"]
    for move, winner in (("A1+", "black"), ("A1\\", "white")):
        drawn.play(move)
        assert drawn.outcome() == Outcome(winner, "line")
        drawn.pop()


def test_a_full_8x8_board_under_lastloses_is_won_by_the_side_to_move():
    # the drawn game: with the last-tile ending the same moves cannot all be
    # played, or the last one leaves the side to move the winner
    board = Board("8x8trax", ending="lastloses")
    for move in DRAWN.split():
        if board.outcome() is not None:
            break
        board.play(move)
    outcome = board.outcome()
    assert outcome is not None and outcome.reason == "lasttile"
    assert outcome.winner == board.turn
    # one ply earlier it was open
    assert board.after(board.ply - 1).outcome() is None


def test_taking_back_the_last_tile_reopens_the_game():
    board = Board.replay(LAST, "8x8trax", ending="lastloses")
    assert board.outcome() is not None
    board.pop()
    assert board.outcome() is None
    board.play("A1\\")  # a line instead
    assert board.outcome() == Outcome("white", "line")
    board.pop()
    board.play("B1+")
    assert board.outcome() == Outcome("white", "lasttile")
