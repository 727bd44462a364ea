"""The old-notation sample game from the "Rules to Trax" booklet.

The booklet (David Smith) records a 31-move game in the old notation and
draws the position after each of moves 1-10 in traxfig style.  The game and
the diagrams are copied into ``tests/data/sample-game-diagrams.txt``; here the
game is replayed, every position drawn the same way and compared with the
booklet.  The diagrams came to us with their whitespace collapsed, so the
comparison is made after squeezing whitespace in the drawing we make too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pbm.trax.board import Board

DATA = Path(__file__).resolve().parent.parent / "data" / "sample-game-diagrams.txt"


def _read_data() -> tuple[list[str], dict[int, list[str]]]:
    moves: list[str] = []
    diagrams: dict[int, list[str]] = {}
    section: list[str] | None = None
    for raw in DATA.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        if raw.startswith("== "):
            head = raw[3:].split()
            if head == ["moves"]:
                section = moves
            else:
                assert head[0] == "after", raw
                section = diagrams.setdefault(int(head[1]), [])
            continue
        assert section is not None, raw
        if section is moves:
            number, move = raw.split()
            assert int(number) == len(moves) + 1, raw
            moves.append(move)
        else:
            section.append(raw)
    return moves, diagrams


OLD_MOVES, DIAGRAMS = _read_data()

# The game in the new notation as the engine records it.  Checked by hand for
# the opening: A1S is the first tile as a straight (@0+); A1U puts a curve in a
# new column left of it that turns the black track coming from the right
# upwards (@1\, black right+top, white bottom+left); B2R curves the white
# track coming down out of the first tile to the right (B2\); A2S is a
# straight joining white from above (A2+); B1R, in the new row above the
# first tile, turns its white track to the right (B0/) and forces A0/.
NEW_MOVES = [
    "@0+", "@1\\", "B2\\", "A2+", "B0/", "C3\\", "D3+", "A4+", "@2+", "C0/",
    "F2+", "G2\\", "C0+", "D7\\", "E7\\", "E1+", "F7\\", "F8\\", "E0/", "E0/",
    "H5+", "G2+", "F0/", "G1+", "I6\\", "H3\\", "H7+", "J7+", "C12/", "B10+",
    "H12\\",
]


# ----------------------------------------------------------------------
# a traxfig-style drawing


def _edge(mask: int, bit: int) -> str:
    return "o" if mask >> bit & 1 else "x"


_SYMBOL = {5: " ", 10: " ", 9: "/", 6: "/", 3: "\\", 12: "\\"}


def traxfig(board: Board, first: tuple[int, int] | None = None) -> list[str]:
    """The board drawn as in the booklet, before any whitespace is squeezed.

    Each tile takes a 5x3 block of characters and shares its border with its
    neighbours: corners ``+``, edge colours ``o``/``x`` in the middle of each
    side, the tile's symbol in the centre (``.`` for the cell ``first``).
    Empty cells are blanks.
    """
    grid = [[" "] * (4 * board.width + 1) for _ in range(2 * board.height + 1)]
    for column, row, mask in board.cells():
        x, y = 4 * (column - 1), 2 * (row - 1)
        for cx in (x, x + 4):
            for cy in (y, y + 2):
                grid[cy][cx] = "+"
        grid[y][x + 2] = _edge(mask, 0)
        grid[y + 1][x + 4] = _edge(mask, 1)
        grid[y + 2][x + 2] = _edge(mask, 2)
        grid[y + 1][x] = _edge(mask, 3)
        grid[y + 1][x + 2] = "." if (column, row) == first else _SYMBOL[mask]
    return ["".join(line) for line in grid]


def squeeze(lines: list[str]) -> list[str]:
    """What the booklet's diagrams went through: blank runs squeezed to one
    blank, leading and trailing blanks dropped, then empty lines dropped."""
    squeezed = (" ".join(line.split()) for line in lines)
    return [line for line in squeezed if line]


def first_tile_positions(board: Board) -> list[tuple[int, int] | None]:
    """Where the game's first tile is, as (column, row), after each move.

    A turn can grow the formation left or up (the chosen tile or a forced
    one), which shifts the first tile's coordinates.  The tiles that were
    there before the turn start, after it, at column 1 + columns added on the
    left and row 1 + rows added on top.
    """
    positions: list[tuple[int, int] | None] = [None]
    for n in range(1, board.ply + 1):
        now = board.after(n)
        placed = now.last_placed()
        if n == 1:
            assert len(placed) == 1
            positions.append(placed[0])
            continue
        new = set(placed)
        old = [(c, r) for c, r, _ in now.cells() if (c, r) not in new]
        dx = min(c for c, _ in old) - 1
        dy = min(r for _, r in old) - 1
        column, row = positions[-1]
        positions.append((column + dx, row + dy))
    return positions


# ----------------------------------------------------------------------
# tests


@pytest.fixture(scope="module")
def game() -> Board:
    return Board.replay(OLD_MOVES, "trax")


def test_the_booklet_game_has_31_moves():
    assert len(OLD_MOVES) == 31
    assert OLD_MOVES[:3] == ["A1S", "A1U", "B2R"]
    assert OLD_MOVES[-3:] == ["C12L", "B10S", "H12R"]


def test_the_game_replays_with_no_winner(game):
    assert game.ply == 31
    assert game.outcome() is None
    assert not game.is_over()
    # White's 31st move sets up the win ("C12L any H12R any win"); black
    # is to move and nobody has won yet.
    assert game.turn == "black"


def test_the_game_in_the_new_notation(game):
    assert [str(m) for m in game.moves] == NEW_MOVES


def test_the_new_notation_replays_the_same_game(game):
    again = Board.replay(NEW_MOVES, "trax")
    assert again.fingerprint() == game.fingerprint()
    assert again.outcome() is None


@pytest.mark.parametrize("k", range(31))
def test_each_old_move_is_the_recorded_new_move(game, k):
    before = game.after(k)
    from_old = before.parse_move(OLD_MOVES[k])
    from_new = before.parse_move(NEW_MOVES[k])
    assert from_old == game.moves[k] == from_new
    assert from_old.tile == game.moves[k].tile == from_new.tile


def test_the_first_tile_is_tracked(game):
    positions = first_tile_positions(game)
    # @1\ (move 2) adds a column on the left, B0/ (move 5) a row on top,
    # @2+ (move 9) another column, C0/ (move 10) another row.
    assert positions[1:11] == [
        (1, 1), (2, 1), (2, 1), (2, 1), (2, 2),
        (2, 2), (2, 2), (2, 2), (3, 2), (3, 3),
    ]
    for n, (column, row) in enumerate(positions[1:], start=1):
        assert game.after(n).tile_at(column, row) == 5  # A1S: white top and bottom


def test_the_booklet_has_diagrams_after_moves_1_to_10():
    assert sorted(DIAGRAMS) == list(range(1, 11))


@pytest.mark.parametrize("n", sorted(DIAGRAMS))
def test_diagram(game, n):
    first = first_tile_positions(game)[n]
    drawn = squeeze(traxfig(game.after(n), first))
    assert drawn == DIAGRAMS[n]


def test_the_drawing_before_squeezing():
    """The renderer itself, on the position after move 3 (B2R)."""
    board = Board.replay(OLD_MOVES[:3], "trax")
    assert traxfig(board, (2, 1)) == [
        "+ x + o +",
        "o \\ x . x",
        "+ o + o +",
        "    x \\ o",
        "    + x +",
    ]
