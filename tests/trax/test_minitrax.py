"""MiniTrax: the formation never grows past 3x3, only loops win, and by
default the limited-tiles ending of the 2017 rules (the player who places
the last tile loses).

Diagrams are the compact style (``render(board, "compact")``): a tile is its
symbol flanked by the colours of its left and right sides, with the colours
of its top and bottom sides above and below; ``o`` white, ``#`` black.
"""

from __future__ import annotations

import pytest

from pbm.trax import Board, IllegalMoveError, Outcome, get_variant


def mini(moves: str, **options) -> Board:
    return Board.replay(moves.split(), "minitrax", **options)


def test_the_game_type():
    variant = get_variant("MiniTrax")
    assert (variant.name, variant.title, variant.max_size, variant.lines_win) == ("minitrax", "MiniTrax", 3, False)
    assert variant.ending == "lastloses"
    assert Board("minitrax").ending == "lastloses"


def test_a_fourth_column_or_row_is_refused():
    #    @  A  B  C  D
    # 0  .  .  .  .  .  0
    #       o  o  o
    # 1  . #+##+##+# .  1      three straights: the area is 3 wide
    #       o  o  o
    # 2  .  .  .  .  .  2
    board = mini("@0+ B1+ C1+")
    assert board.width == 3 and board.outcome() is None
    for move in ("D1+", "@1+", "D1/", "@1\\"):
        with pytest.raises(IllegalMoveError, match=r"^too-large .*limit=3 "):
            board.play(move)
    assert {m.column for m in board.legal_moves()} == {1, 2, 3}
    # a row above and a row below are still open, but not both
    board.play("A0+")
    assert board.height == 2
    board.play("B3+")  # rows 1-3 now
    assert board.height == 3
    assert {m.row for m in board.legal_moves()} <= {1, 2, 3}
    with pytest.raises(IllegalMoveError, match=r"^too-large .*limit=3 "):
        board.play("A0+")


def test_a_loop_wins_in_minitrax():
    # @0/ B1\ then A2\ forces B2 (black enters it from the top and from the
    # left): four curves close a black loop round the middle point.
    #    @  A  B  C
    # 0  .  .  .  .  0
    #       o  o
    # 1  . o/##\o .  1
    #       #  #
    # 2  . o\##/o .  2       A2 chosen, B2 forced
    #       o  o
    # 3  .  .  .  .  3
    board = mini("@0/ B1\\ A2\\")
    assert board.outcome() == Outcome("black", "loop")
    assert set(board.winning_track().cells) == {(1, 1), (2, 1), (1, 2), (2, 2)}
    assert board.legal_moves() == []


def test_straights_across_three_columns_are_no_line():
    # no line fits a 3x3 area (a line spans 8): a row of straights wins nothing
    board = mini("@0+ B1+ C1+")
    assert board.outcome() is None


# The last quiet tile, worked out by hand.
#
# After @0+ @1+ @1/ B2\ (white to move):
#
#    @  A  B  C  D
# 0  .  .  .  .  .  0
#       o  o  o
# 1  . o/##+##+# .  1       A1 / (from @1/), B1 +, C1 + (the first tile)
#       #  o  o
# 2  . o\##\oo/# .  2       B2\ chosen; it forced A2 and C2
#       o  #  #
# 3  .  .  .  .  .  3
#
# The area is 3 wide and 2 tall: one more row fits, above (row 0) or below
# (row 3).  A0+ is a quiet turn (nothing forced, nothing closed), so the
# game goes on.  White plays B3\: black enters B3 from above, so the tile is
# black top-right, white bottom-left; that brings two whites into A3 (from
# A2 above and B3 on the right) and two blacks into C3 (from C2 above and
# B3 on the left), both forced.  No track closes:
#
#    @  A  B  C  D
# 0  .  .  .  .  .  0
#       o  o  o
# 1  . o/##+##+# .  1
#       #  o  o
# 2  . o\##\oo/# .  2
#       o  #  #
# 3  . #\oo\##/o .  3       B3\ chosen, A3\ and C3/ forced
#       #  o  o
# 4  .  .  .  .  .  4
#
# The 3x3 area is full: black, to move, has no legal turn at all.  White
# placed the last tile, so white loses: black wins.
BEFORE_LAST = "@0+ @1+ @1/ B2\\"
LAST = BEFORE_LAST + " B3\\"


def test_the_player_who_fills_the_area_loses():
    board = mini(LAST)
    assert board.tile_count == 9 and board.width == board.height == 3
    assert board.turn == "black"
    assert board.outcome() == Outcome("black", "lasttile")
    assert board.legal_moves() == []
    assert board.winning_track() is None
    with pytest.raises(IllegalMoveError, match=r"^game-over$"):
        board.play("A0+")


def test_one_ply_earlier_the_game_goes_on_with_a_quiet_turn():
    board = mini(BEFORE_LAST)
    assert board.outcome() is None
    legal = [str(m) for m in board.legal_moves()]
    assert "A0+" in legal and "B3\\" in legal
    board.play("A0+")
    assert board.outcome() is None  # quiet, and the game still goes on
    board.pop()
    board.play("B3\\")
    assert board.outcome() == Outcome("black", "lasttile")
    board.pop()
    assert board.outcome() is None  # the decision is made again for the position


def test_the_same_position_is_a_draw_under_the_draw_ending():
    board = mini(LAST, ending="draw")
    assert board.ending == "draw"
    assert board.outcome() == Outcome(None, "draw")
    assert mini(BEFORE_LAST, ending="draw").outcome() is None


def test_a_turn_that_fills_the_area_and_closes_a_loop_is_a_loop_win():
    # After @0+ A2\ B2+ B3/ (white to move) the area is 2 wide, 3 tall:
    #
    #    @  A  B  C
    # 0  .  .  .  .  0
    #       o  o
    # 1  . #+##\o .  1
    #       o  #
    # 2  . #\oo+o .  2
    #       #  #
    # 3  . o\##/o .  3
    #       o  o
    # 4  .  .  .  .  4
    #
    # @1/ adds a column on the left: black enters it from the right, so it
    # is black bottom-right; it forces the cell below (black from above and
    # from the right), which forces the one below that (white from above and
    # from the right).  The black track now runs A1 B1 C1 C2 C3 B3 B2 A2 and
    # back to A1: a loop of eight, on a full 3x3 area.
    #
    #    @  A  B  C  D
    # 0  .  .  .  .  .  0
    #       o  o  o
    # 1  . o*##+##\o .  1
    #       #  o  #
    # 2  . ox##\oo+o .  2
    #       o  #  #
    # 3  . #xoo\##/o .  3
    #       #  o  o
    # 4  .  .  .  .  .  4
    board = mini("@0+ A2\\ B2+ B3/ @1/")
    assert board.tile_count == 9
    assert board.outcome() == Outcome("black", "loop")  # the loop decides, not the last tile
    assert len(board.winning_track().cells) == 8
