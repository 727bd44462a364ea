"""What a mail shows of a position beyond its tiles: the last turn
(``Board.last_turn``) and, at a game's end, the track that won
(``Board.winning_track``)."""

from __future__ import annotations

from hypothesis import given

from pbm.trax import Board, LastTurn, Move, WinningTrack
from pbm.trax.tiles import PATHS, SYMBOL

from .test_properties import FAST, games
from .test_recorded_games import GAMES

# side -> (column, row) step
STEP = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}
COLOUR = {"white": 0, "black": 1}

LINE_GAME = (
    "@0/ B1\\ C1/ D1+ E1\\ F1\\ G1/ A2/ B2+ C2\\ D2\\ E2\\ F2+ G2+ H2/ A3\\ B3\\ C3+ F3\\ H3+ H1/"
)


def play(moves: str, variant: str = "trax") -> Board:
    return Board.replay(moves.split(), variant)


def side_towards(a: tuple[int, int], b: tuple[int, int]) -> int:
    """The side of cell ``a`` that touches the neighbouring cell ``b``."""
    step = (b[0] - a[0], b[1] - a[1])
    sides = [d for d, s in STEP.items() if s == step]
    assert sides, f"{a} and {b} do not share an edge"
    return sides[0]


def check_track(board: Board, track: WinningTrack) -> None:
    """The track is what the outcome says and really is one track: each
    tile's path of the colour joins its neighbours on the track, a loop
    closes, a line runs between opposite outermost edges of a formation at
    least 8 wide or tall."""
    outcome = board.outcome()
    assert outcome is not None
    assert (track.colour, track.kind) == (outcome.winner, outcome.reason)
    tiles = {(c, r): mask for c, r, mask in board.cells()}
    cells = list(track.cells)
    assert len(set(cells)) == len(cells) and set(cells) <= set(tiles)
    colour = COLOUR[track.colour]
    n = len(cells)
    ends = []
    for i, cell in enumerate(cells):
        path = set(PATHS[tiles[cell]][colour])
        joined = set()
        if i > 0 or track.kind == "loop":
            joined.add(side_towards(cell, cells[i - 1]))
        if i < n - 1 or track.kind == "loop":
            joined.add(side_towards(cell, cells[(i + 1) % n]))
        assert joined <= path, (cell, joined, path)
        if track.kind == "line" and i in (0, n - 1):
            (free,) = path - joined
            ends.append((cell, free))
    if track.kind == "loop":
        assert n >= 4
        return
    # a line: its free ends leave the formation through opposite outermost sides
    assert len(ends) == 2
    (first, out_first), (last, out_last) = ends
    assert {out_first, out_last} in ({1, 3}, {0, 2})
    for cell, side in ends:
        dx, dy = STEP[side]
        beyond = (cell[0] + dx, cell[1] + dy)
        assert beyond[0] in (0, board.width + 1) or beyond[1] in (0, board.height + 1), (cell, side)
    if {out_first, out_last} == {1, 3}:
        assert board.width >= 8 and (out_first, first[0]) == (3, 1) and (out_last, last[0]) == (1, board.width)
    else:
        assert board.height >= 8 and (out_first, first[1]) == (0, 1) and (out_last, last[1]) == (2, board.height)


# ----------------------------------------------------------------------
# the last turn


def test_there_is_no_last_turn_on_the_empty_board():
    assert Board().last_turn() is None


def test_the_first_move_is_placed_at_a1():
    turn = play("@0/").last_turn()
    assert turn == LastTurn(Move(0, 0, "/"), Move(1, 1, "/"), ())
    assert turn.placed.tile == turn.move.tile == 9


def test_a_move_into_the_at_column_is_shown_where_the_tile_now_stands():
    board = play("@0/ @1+")
    turn = board.last_turn()
    assert str(turn.move) == "@1+"
    assert str(turn.placed) == "A1+"
    assert board.tile_at(1, 1) == turn.placed.tile
    board = play("@0/ A0+")
    assert (str(board.last_turn().move), str(board.last_turn().placed)) == ("A0+", "A1+")


def test_the_forced_tiles_come_in_the_order_they_were_placed_in_current_coordinates():
    board = play("@0/ B1+ C1/ C2\\ @1+ A2/ A3/ B3\\")
    turn = board.last_turn()
    assert str(turn.move) == "B3\\"
    assert [str(m) for m in (turn.placed, *turn.forced)] == ["B3\\", "B2\\", "C2+", "C3/", "D3/"]
    assert [(m.column, m.row) for m in (turn.placed, *turn.forced)] == board.last_placed()
    for m in (turn.placed, *turn.forced):
        assert board.tile_at(m.column, m.row) == m.tile and SYMBOL[m.tile] == m.symbol


@FAST
@given(games())
def test_the_last_turn_is_the_last_move_and_the_tiles_it_placed(board):
    turn = board.last_turn()
    if board.ply == 0:
        assert turn is None
        return
    assert turn.move == board.moves[-1]
    placed = [turn.placed, *turn.forced]
    assert [(m.column, m.row) for m in placed] == board.last_placed()
    assert len(placed) == board.tile_count - board.after(board.ply - 1).tile_count
    for m in placed:
        assert board.tile_at(m.column, m.row) == m.tile and SYMBOL[m.tile] == m.symbol
    assert turn.placed.symbol == turn.move.symbol and turn.placed.tile == turn.move.tile


# ----------------------------------------------------------------------
# the winning track


def test_eight_straights_in_a_row_are_a_black_line_along_row_1():
    board = play("@0+ B1+ C1+ D1+ E1+ F1+ G1+ H1+")
    track = board.winning_track()
    assert track == WinningTrack("black", "line", tuple((c, 1) for c in range(1, 9)))
    check_track(board, track)


def test_three_moves_make_a_black_loop_of_four_tiles():
    board = play("@0/ B1\\ A2\\")  # the third tile forces the fourth: black closes round
    track = board.winning_track()
    assert track is not None and (track.colour, track.kind) == ("black", "loop")
    assert set(track.cells) == {(1, 1), (2, 1), (1, 2), (2, 2)}
    check_track(board, track)


def test_when_both_colours_close_the_movers_loop_is_the_winning_track():
    board = play("@0+ B1\\ B2/ A2+ A3/ A0\\ @3+ @3\\ B2+")
    track = board.winning_track()
    assert (track.colour, track.kind) == ("white", "loop")
    check_track(board, track)


def test_a_winding_line_runs_from_the_left_edge_to_the_right_one():
    board = play(LINE_GAME)
    track = board.winning_track()
    assert (track.colour, track.kind) == ("black", "line")
    assert track.cells[0][0] == 1 and track.cells[-1][0] == board.width == 8
    check_track(board, track)


def test_no_track_while_the_game_goes_on():
    assert Board().winning_track() is None
    assert play("@0+ B1+ C1+ D1+ E1+ F1+ G1+").winning_track() is None
    assert play("@0+ B1+ C1+ D1+ E1+ F1+ G1+ H1\\").winning_track() is None
    assert play("@0+ B1+ C1+ D1+ E1+ F1+ G1+ H1+", "looptrax").winning_track() is None


# a random 8x8trax game that filled the board without a win
DRAWN = (
    "@0/ A2/ @2\\ @2+ A1\\ @2\\ E1\\ @2\\ A1+ F0+ G2+ G0\\ D5+ B2\\ C0\\ C7+ @4/ E0\\ B7+ H2+ H6\\ "
    "F7\\ D1\\ G7\\ B3+ A3\\ F8\\ B8\\ C2+ B1+ A8+ H7+ H8\\"
)


def test_a_draw_has_no_winning_track():
    board = play(DRAWN, "8x8trax")
    assert board.outcome().reason == "draw"
    assert board.winning_track() is None


def test_every_recorded_win_has_its_winning_track():
    won = 0
    for param in GAMES:
        variant, result, moves = param.values
        board = Board.replay(moves, variant)
        track = board.winning_track()
        if result == "none":
            assert track is None, param.id
            continue
        assert track is not None, param.id
        check_track(board, track)
        # the track runs through a tile the last turn placed
        assert set(track.cells) & set(board.last_placed()), param.id
        won += 1
    assert won > 100


@FAST
@given(games(max_moves=60))
def test_a_random_game_has_a_winning_track_exactly_when_it_is_won(board):
    outcome = board.outcome()
    track = board.winning_track()
    if outcome is None or outcome.winner is None:
        assert track is None
    else:
        check_track(board, track)
