"""PointTrax: completed loops and lines score the tiles their tracks run
through; a line also clears the playing area; the first to the target score
with more points than the other wins.

Diagrams are the compact style: a tile is its symbol flanked by the colours
of its left and right sides, with the colours of its top and bottom sides
above and below (``o`` white, ``#`` black); ``*`` marks the tile chosen by
the last turn and ``x`` the tiles it forced.
"""

from __future__ import annotations

import pytest

from pbm.trax import Board, IllegalMoveError, Outcome, Scored, get_variant


def points(moves: str, **options) -> Board:
    return Board.replay(moves.split(), "pointtrax", **options)


def test_the_game_type():
    variant = get_variant("PointTrax")
    assert (variant.title, variant.max_size, variant.lines_win, variant.points, variant.scores) == (
        "PointTrax", None, True, 25, True)
    board = Board("pointtrax")
    assert board.points == 25
    assert board.scores == {"white": 0, "black": 0}
    assert board.last_scored() == () and board.areas == () and board.area == 1 and not board.reset_due


def test_the_other_game_types_score_nothing():
    board = Board.replay(SMALL_LOOP.split(), "trax")
    assert board.scores == {"white": 0, "black": 0} and board.last_scored() == ()


# @0/ B1\ A2\ (A2 forces B2): four curves close a black loop.
#
#    @  A  B  C
# 0  .  .  .  .  0
#       o  o
# 1  . o/##\o .  1
#       #  #
# 2  . o*##xo .  2
#       o  o
# 3  .  .  .  .  3
SMALL_LOOP = "@0/ B1\\ A2\\"


def test_a_loop_scores_its_tiles_for_its_colour_and_play_goes_on():
    board = points(SMALL_LOOP)
    assert board.scores == {"white": 0, "black": 4}
    (scored,) = board.last_scored()
    assert scored == Scored("black", "loop", 4, scored.cells)
    assert set(scored.cells) == {(1, 1), (2, 1), (1, 2), (2, 2)}
    assert board.outcome() is None  # a loop never ends PointTrax by itself
    assert board.winning_track() is None
    assert not board.reset_due and board.tile_count == 4  # the loop stays
    board.play("C1+")
    assert board.last_scored() == ()
    assert board.scores == {"white": 0, "black": 4}


def test_the_loops_cells_are_in_order_along_the_track():
    (scored,) = points(SMALL_LOOP).last_scored()
    cells = scored.cells
    for here, after in zip(cells, cells[1:] + cells[:1]):
        assert abs(here[0] - after[0]) + abs(here[1] - after[1]) == 1


# Eight straights in a row: the black track runs across 8 columns, from the
# outermost left edge to the outermost right one: a black line of 8 tiles.
#
#    @  A  B  C  D  E  F  G  H  I
# 0  .  .  .  .  .  .  .  .  .  .  0
#       o  o  o  o  o  o  o  o
# 1  . #+##+##+##+##+##+##+##*# .  1
#       o  o  o  o  o  o  o  o
# 2  .  .  .  .  .  .  .  .  .  .  2
LINE = "@0+ B1+ C1+ D1+ E1+ F1+ G1+ H1+"


def test_a_line_scores_its_tiles_and_clears_the_area_after_the_position_is_shown():
    board = points(LINE)
    assert board.scores == {"white": 0, "black": 8}
    (scored,) = board.last_scored()
    assert (scored.colour, scored.kind, scored.tiles) == ("black", "line", 8)
    assert scored.cells == tuple((c, 1) for c in range(1, 9))
    assert board.outcome() is None
    # the position after the turn still shows the line ...
    assert board.tile_count == 8 and board.width == 8
    # ... and the next move starts a fresh area
    assert board.reset_due and board.areas == (8,) and board.area == 1
    assert [str(m) for m in board.legal_moves()] == ["@0+", "@0/"]
    assert board.after(8).reset_due and board.after(8).tile_count == 8


def test_the_move_after_a_line_is_a_first_move_by_the_player_to_move():
    board = points(LINE)
    assert board.turn == "white"  # black placed the eighth straight
    before = board.fingerprint()
    for bad in ("I1+", "A0+", "@0\\", "B2/"):
        with pytest.raises(IllegalMoveError, match=r"^first-move .*fresh_area=True"):
            board.play(bad)
        assert board.fingerprint() == before
    assert str(board.parse_move("@0/")) == "@0/"
    board.play("@0/")
    assert board.tile_count == 1 and board.width == board.height == 1
    assert board.tile_at(1, 1) == 9
    assert not board.reset_due and board.areas == (8,) and board.area == 2
    assert board.scores == {"white": 0, "black": 8}  # scores carry over to the new area
    assert str(board.last_turn().placed) == "A1/"
    assert board.last_placed() == [(1, 1)]
    assert board.turn == "black"
    board.play("B1+")
    assert board.tile_count == 2


def test_undo_across_the_reset_restores_the_old_area_and_the_scores():
    board = points(LINE)
    with_line = board.fingerprint()
    legal = board.legal_moves()
    board.play("@0/")
    board.play("A0+")
    board.pop()
    board.pop()
    assert board.fingerprint() == with_line
    assert board.legal_moves() == legal
    assert board.tile_count == 8 and board.reset_due
    board.pop()  # the line itself
    assert board.scores == {"white": 0, "black": 0}
    assert board.areas == () and not board.reset_due and board.tile_count == 7
    assert board.fingerprint() == points("@0+ B1+ C1+ D1+ E1+ F1+ G1+").fingerprint()
    board.play("H1\\")  # no line this time
    assert board.scores == {"white": 0, "black": 0} and not board.reset_due


def test_replay_of_the_move_list_gives_the_same_scores_areas_and_position():
    board = points(LINE + " @0/ B1\\ A2\\")  # a line, a fresh area, a loop in it
    assert board.scores == {"white": 0, "black": 12}
    assert board.areas == (8,) and board.area == 2
    again = points(" ".join(str(m) for m in board.moves))
    assert again.fingerprint() == board.fingerprint()
    assert again.scores == board.scores and again.areas == board.areas
    assert board.copy().fingerprint() == board.fingerprint()
    assert board.after(8).fingerprint() == points(LINE).fingerprint()


# The rules' case where both colours complete a track in one turn.  Before
# the last move (white to move):
#
#    @  A  B  C  D  E
# 0  .  .  .  .  .  .  0
#             #
# 1  .  .  . o\# .  .  1
#             o  o
# 2  .  .  . #+##\o .  2
#       #  o  o  #
# 3  . o*##+##+##/o .  3
#       o  o  o  o
# 4  .  . #\oo/# .  .  4
#          #  #
# 5  .  .  .  .  .  .  5
#
# B2+ (white up and down, black across) brings two whites into B1 (from B2
# below and C1 on the right) and two blacks into A2 (from B2 and from A3
# below); both are forced.  White's track now runs B2 B3 B4 C4 C3 C2 C1 B1
# and back: a loop of 8; black's runs B2 A2 A3 B3 C3 D3 D2 C2 and back: a
# loop of 8 too.
#
#    @  A  B  C  D  E
# 0  .  .  .  .  .  .  0
#          #  #
# 1  .  . #xoo\# .  .  1
#       o  o  o  o
# 2  . ox##*##+##\o .  2
#       #  o  o  #
# 3  . o\##+##+##/o .  3
#       o  o  o  o
# 4  .  . #\oo/# .  .  4
#          #  #
# 5  .  .  .  .  .  .  5
BOTH = "@0+ B1\\ B2/ A2+ A3/ A0\\ @3+ @3\\ B2+"


def test_a_turn_that_completes_loops_of_both_colours_scores_both():
    board = points(BOTH)
    assert board.scores == {"white": 8, "black": 8}
    white, black = board.last_scored()
    assert (white.colour, white.kind, white.tiles) == ("white", "loop", 8)
    assert (black.colour, black.kind, black.tiles) == ("black", "loop", 8)
    assert set(white.cells) == {(2, 2), (2, 3), (2, 4), (3, 4), (3, 3), (3, 2), (3, 1), (2, 1)}
    assert set(black.cells) == {(2, 2), (1, 2), (1, 3), (2, 3), (3, 3), (4, 3), (4, 2), (3, 2)}
    assert board.outcome() is None


def test_reaching_the_target_with_more_points_wins():
    board = points(SMALL_LOOP, points=4)
    assert board.outcome() == Outcome("black", "points")  # white moved; black's loop scored
    assert board.legal_moves() == []
    with pytest.raises(IllegalMoveError, match=r"^game-over$"):
        board.play("C1+")
    assert points(SMALL_LOOP, points=5).outcome() is None
    board.pop()
    assert board.outcome() is None and board.scores == {"white": 0, "black": 0}


def test_a_line_that_reaches_the_target_wins_and_clears_nothing():
    board = points(LINE, points=8)
    assert board.outcome() == Outcome("black", "points")
    assert not board.reset_due and board.areas == ()
    assert board.legal_moves() == []


def test_equal_scores_at_the_target_play_on_until_one_is_higher():
    board = points(BOTH, points=8)
    assert board.scores == {"white": 8, "black": 8}
    assert board.outcome() is None  # both reached 8, equal: the game goes on
    # Black plays B0\ (quiet), then white A1/ in the new top row: black enters
    # A1 from the right, so A1 is black bottom-right, which forces A2 (black
    # from above and from the right): a black loop of four round A1 B1 B2 A2.
    #
    #    @  A  B  C  D  E
    # 0  .  .  .  .  .  .  0
    #       o  o
    # 1  . o*##\o .  .  .  1
    #       #  #  #
    # 2  . ox##/oo\# .  .  2
    #       o  o  o  o
    # 3  . o/##+##+##\o .  3
    #      ...
    board.play("B0\\")
    assert board.outcome() is None and board.last_scored() == ()
    board.play("A1/")
    (scored,) = board.last_scored()
    assert (scored.colour, scored.kind, scored.tiles) == ("black", "loop", 4)
    assert board.scores == {"white": 8, "black": 12}
    assert board.outcome() == Outcome("black", "points")


def test_after_equal_scores_the_next_to_score_more_wins_whoever_moves():
    board = points(BOTH + " A1\\ @1/", points=8)
    assert board.last_scored()[0].colour == "white"
    assert board.scores == {"white": 12, "black": 8}
    assert board.outcome() == Outcome("white", "points")


# A turn that completes a loop and a line.  After 18 moves (white to move;
# white has 6 points from a loop of six round D4 E4 E5 E6 D6 D5):
#
#    @  A  B  C  D  E  F  G  H  I
# 0  .  .  .  .  .  .  .  .  .  .  0
#          #  o
# 1  .  . o\##+# .  .  .  .  .  .  1
#          o  o  o  o  #
# 2  .  . o/##+##+##\oo\# .  .  .  2
#       #  #  o  o  #  o  o  o
# 3  . o+oo\##+##\oo+oo/##+##+# .  3
#       #  o  o  #  #  #  o  o
# 4  . o\##+##+##/oo\##/oo/# .  .  4
#       o  o  o  o  o  o  #
# 5  .  .  .  . #+##+# .  .  .  .  5
#                o  o
# 6  .  .  .  . #*oox# .  .  .  .  6
#                #  #
# 7  .  .  .  .  .  .  .  .  .  .  7
#
# White plays A1/: white enters A1 from the right (B1), so A1 is white
# bottom-right.  A2 then has white from above (A1) and from the right (B2):
# forced, white top-right, black bottom-left.  White closes A1 B1 B2 A2, a
# loop of 4; black's track from A2's left side now runs down column A and
# across to H3's right side: from the outermost left edge to the outermost
# right one of a formation 8 wide, a line through 19 tiles.
#
#    @  A  B  C  D  E  F  G  H  I
# 0  .  .  .  .  .  .  .  .  .  .  0
#       #  #  o
# 1  . #*oo\##+# .  .  .  .  .  .  1
#       o  o  o  o  o  #
# 2  . #xoo/##+##+##\oo\# .  .  .  2
#       #  #  o  o  #  o  o  o
# 3  . o+oo\##+##\oo+oo/##+##+# .  3
#      ...
LOOP_AND_LINE = "@0+ A0+ A3+ @3+ C3/ D2+ D3\\ C1+ E2/ A1/ B0+ F3+ C5+ G3+ @3+ E5+ B1\\ D6\\"


def test_a_turn_that_completes_a_loop_and_a_line_scores_both_then_clears():
    board = points(LOOP_AND_LINE)
    assert board.scores == {"white": 6, "black": 0}
    board.play("A1/")
    loop, line = board.last_scored()
    assert (loop.colour, loop.kind, loop.tiles) == ("white", "loop", 4)
    assert set(loop.cells) == {(1, 1), (2, 1), (2, 2), (1, 2)}
    assert (line.colour, line.kind, line.tiles) == ("black", "line", 19)
    assert line.cells[0] == (1, 2) and line.cells[-1] == (8, 3) and board.width == 8
    assert board.scores == {"white": 10, "black": 19}
    assert board.reset_due and board.areas == (19,)
    assert board.outcome() is None
    board.pop()
    assert board.scores == {"white": 6, "black": 0} and not board.reset_due


def test_a_line_below_the_target_clears_the_area_and_the_game_goes_on():
    board = points(LINE, points=9)  # black's 8 is one short
    assert board.outcome() is None and board.reset_due and board.areas == (8,)
