"""LuckyTrax: the server draws a face (a white mask) for each turn; the
engine lists where that face can go (``Board.placements``) and takes a pass
when it fits nowhere.

Faces (see pbm/trax/tiles.py): 5 white up-down, 10 white across,
9 white top-left, 6 white bottom-right, 3 white top-right, 12 white
bottom-left (black takes the other two sides).
"""

from __future__ import annotations

from functools import partial

import pytest

from pbm.trax import PASS, Board, IllegalMoveError, LastTurn, Move, NotationError, TraxError, get_variant, is_pass
from pbm.trax.render import render as render_plain

from .test_render import WORDS

render = partial(render_plain, words=WORDS)  # diagrams as mail draws them

FACES = (5, 10, 9, 6, 3, 12)


def lucky(moves: str = "") -> Board:
    return Board.replay(moves.split(), "luckytrax")


def names(moves: list[Move]) -> list[str]:
    return [str(m) for m in moves]


def test_the_game_type():
    variant = get_variant("luckytrax")
    assert (variant.title, variant.max_size, variant.lines_win, variant.drawn) == ("LuckyTrax", None, True, True)
    # lines and loops win as in trax
    assert lucky("@0+ B1+ C1+ D1+ E1+ F1+ G1+ H1+").outcome().reason == "line"


def test_on_the_empty_board_any_face_turns_to_fit_the_first_move():
    board = lucky()
    for face in (5, 10):
        assert names(board.placements(face)) == ["@0+"]
    for face in (9, 6, 3, 12):
        assert names(board.placements(face)) == ["@0/"]


# After @0/ the one tile A1 is white top-left, black bottom-right:
#
#    @  A  B
# 0  .  .  .  0
#       o
# 1  . o/# .  1
#       #
# 2  .  .  .  2
#
# Its four neighbours see: A0 white from below, @1 white from the right,
# B1 black from the left, A2 black from above.  A face fits a cell when its
# side towards A1 has that colour; a single tile forces nothing, so every
# fitting tile is a legal turn:
#
#   face  sides white   fits at
#    5    top, bottom   A0 (white below), B1 (black left)
#   10    left, right   @1 (white right), A2 (black above)
#    9    top, left     nowhere: its bottom and right are black
#    6    bottom, right A0, @1, B1, A2
#    3    top, right    @1 (white right), B1 (black left)
#   12    bottom, left  A0 (white below), A2 (black above)
AFTER_ONE = {
    5: ["A0+", "B1+"],
    10: ["@1+", "A2+"],
    9: [],
    6: ["A0/", "@1/", "B1/", "A2/"],
    3: ["@1\\", "B1\\"],
    12: ["A0\\", "A2\\"],
}


def test_placements_of_each_face_after_the_first_tile_worked_out_by_hand():
    board = lucky("@0/")
    for face, expected in AFTER_ONE.items():
        moves = board.placements(face)
        assert names(moves) == expected, face
        assert all(m.tile == face for m in moves)
    # together they are the legal moves, each once
    every = sorted(str(m) for face in FACES for m in board.placements(face))
    assert every == sorted(str(m) for m in board.legal_moves())


def test_a_placement_whose_turn_is_illegal_is_not_listed():
    # the spec's case: B3\ fits (black enters B3 from the left) but its forced
    # chain brings three ends into one cell
    board = lucky("@0/ B1+ C1/ C2\\ @1+ A2/ A3/ D3\\")
    face_3 = names(board.placements(3))
    assert "B3\\" not in face_3
    assert face_3 == ["A0\\", "D0\\", "@1\\", "@3\\", "C3\\", "E3\\", "D4\\"]
    with pytest.raises(IllegalMoveError):
        board.play("B3\\")


def test_placements_is_empty_once_the_game_is_over_and_refuses_a_non_face():
    board = lucky("@0/ B1\\ A2\\")  # a black loop
    assert board.outcome() is not None
    assert all(board.placements(face) == [] for face in FACES)
    for bad in (0, 1, 7, 15, 16, True):
        with pytest.raises(ValueError, match="face"):
            Board("luckytrax").placements(bad)


def test_a_face_that_fits_nowhere_is_a_pass():
    board = lucky("@0/")
    assert board.placements(9) == []
    played = board.play("pass")
    assert played == PASS and played.is_pass and str(played) == "pass"
    assert board.ply == 2 and board.turn == "white" and board.tile_count == 1
    assert names(board.moves) == ["@0/", "pass"]
    assert board.last_turn() == LastTurn(PASS, None, ())
    assert board.last_placed() == []
    assert board.outcome() is None
    # the position is that of @0/: the next turn has the same placements
    assert all(names(board.placements(face)) == AFTER_ONE[face] for face in FACES)


def test_the_pass_is_never_a_legal_move_and_is_written_pass():
    board = lucky("@0/")
    assert all(not m.is_pass for m in board.legal_moves())
    assert str(PASS) == "pass" and repr(PASS) == "Move('pass')" and PASS.cell == ""
    assert is_pass(" PASS ") and not is_pass("A0+")
    for text in ("pass", "PASS", " Pass "):
        assert board.parse_move(text) == PASS
    assert board.parse_move(PASS) == PASS


def test_undo_of_a_pass():
    board = lucky("@0/ B1+")
    before = board.fingerprint()
    board.play("pass")
    assert board.pop() == PASS
    assert board.fingerprint() == before
    assert board.turn == "white"
    # passes in a row, and their undo
    for _ in range(3):
        board.play("pass")
    assert board.ply == 5 and board.turn == "black"
    for _ in range(3):
        board.pop()
    assert board.fingerprint() == before


def test_passes_replay_copy_and_after():
    moves = ["@0/", "pass", "A2+", "pass", "pass", "B1/"]
    board = Board.replay(moves, "luckytrax")
    assert names(board.moves) == moves
    assert board.copy().fingerprint() == board.fingerprint()
    assert board.after(2).fingerprint() == Board.replay(moves[:2], "luckytrax").fingerprint()
    assert board.after(2).last_turn().placed is None
    assert board.last_turn().placed is not None


def test_a_pass_on_the_empty_board_leaves_it_empty():
    board = lucky("pass pass")
    assert board.ply == 2 and board.tile_count == 0 and board.turn == "white"
    assert names(board.legal_moves()) == ["@0+", "@0/"]
    assert names(board.placements(10)) == ["@0+"]
    board.play("@0+")
    assert board.tile_count == 1


def test_a_pass_is_refused_in_the_other_game_types():
    for name in ("trax", "8x8trax", "looptrax", "minitrax", "pointtrax"):
        board = Board.replay(["@0/"], name)
        before = board.fingerprint()
        for move in ("pass", PASS):
            with pytest.raises(IllegalMoveError, match=r"^no-pass "):
                board.play(move)
        assert board.fingerprint() == before
        with pytest.raises(TraxError, match=r"^no-pass .*number=2 "):
            Board.replay(["@0/", "pass"], name)
    with pytest.raises(NotationError):
        lucky().play("passe")


def test_a_pass_is_refused_once_the_game_is_over():
    board = lucky("@0/ B1\\ A2\\")
    with pytest.raises(IllegalMoveError, match="over"):
        board.play("pass")


def test_a_pass_changes_who_places_the_closing_tile():
    # @0/ B1\ A2\ is a black loop closed by white (third move); with a pass
    # after B1\ black places A2\ and closes its own loop: black wins either way
    board = lucky("@0/ B1\\ pass A2\\")
    assert board.outcome().winner == "black" and board.outcome().reason == "loop"
    assert board.ply == 4 and board.turn == "white"
    assert board.winning_track() is not None


def test_render_after_a_pass_and_on_the_empty_board():
    board = lucky("@0/ pass")
    plain = render(Board.replay(["@0/"]))
    assert render(board) == plain
    highlighted = render(board, highlight_last=True)
    assert "*" not in highlighted.split("o = white")[0]
    assert highlighted.endswith("last move: pass")
    empty = lucky("pass")
    assert render(empty) == render(Board())
    assert render(empty, highlight_last=True).endswith("o = white, # = black, last move: pass")
    assert render(empty, "compact", highlight_last=True).endswith("last move: pass")
