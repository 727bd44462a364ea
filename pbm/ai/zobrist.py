"""Zobrist hashing of Trax positions, kept in step with a board.

A position is its tiles, the side to move and, in PointTrax, the scores and
how many areas were cleared.  Tiles are keyed by *area coordinates*
(:meth:`pbm.trax.Board.frame`): counted from the first tile of the playing
area, so the key of a tile does not change when the formation grows left or
up (notation coordinates would).  Every ``(x, y, tile)`` gets a random
64-bit number, made the first time it is asked for by a generator with a
fixed seed, so that every process gives the same position the same hash; the
hash of a position is the exclusive or of the numbers of its tiles, and a
turn changes it by the numbers of the tiles it placed
(:meth:`pbm.trax.Board.last_tiles`).

:class:`Position` wraps a board: :meth:`Position.play` and
:meth:`Position.pop` play and take back a turn and keep :attr:`Position.key`
(the hash with the side to move) up to date.
"""

from __future__ import annotations

import random

from pbm.trax import Board, Move

_BITS = 64
_OFFSET = 1 << 15  # area coordinates are small; this keeps the packed key positive
_RANDOM = random.Random(0x7A5C)
_NUMBERS: dict[int, int] = {}

#: Exclusive-ored into the key when black is to move.
BLACK_TO_MOVE = _RANDOM.getrandbits(_BITS)
#: Exclusive-ored into the key when a PointTrax reset is due (the next move starts an area).
RESET_DUE = _RANDOM.getrandbits(_BITS)
_SCORE_MIX = 0x9E3779B97F4A7C15


def tile_number(x: int, y: int, tile: int) -> int:
    """The random number of ``tile`` (a white mask) at area coordinates ``(x, y)``."""
    key = ((x + _OFFSET) << 16 | (y + _OFFSET)) << 4 | tile
    number = _NUMBERS.get(key)
    if number is None:
        number = _NUMBERS[key] = _RANDOM.getrandbits(_BITS)
    return number


def cell_key(x: int, y: int, tile: int) -> int:
    """A small integer naming a tile at area coordinates (move ordering tables)."""
    return ((x + _OFFSET) << 16 | (y + _OFFSET)) << 4 | tile


def _extras(board: Board) -> int:
    """The part of the hash that is not tiles: PointTrax scores, areas and a due reset."""
    if board.points is None:
        return 0
    scores = board.scores
    mixed = ((scores["white"] << 12 | scores["black"]) << 8 | len(board.areas)) * _SCORE_MIX
    mixed &= (1 << _BITS) - 1
    return mixed ^ (RESET_DUE if board.reset_due else 0)


def tiles_hash(board: Board) -> int:
    """The hash of the tiles of the board's playing area, worked out from scratch."""
    x0, y0 = board.frame()
    value = 0
    if board.reset_due:
        return value
    for column, row, tile in board.cells():
        value ^= tile_number(x0 + column, y0 + row, tile)
    return value


class Position:
    """A board and the Zobrist hash of its position.

    ``key`` is the hash of the tiles, the side to move and the PointTrax
    extras; :meth:`play` and :meth:`pop` keep it up to date at the cost of
    the tiles a turn places.
    """

    __slots__ = ("_stack", "_tiles", "board", "key", "points")

    def __init__(self, board: Board) -> None:
        self.board = board
        self.points = board.points is not None
        self._tiles = tiles_hash(board)
        self._stack: list[int] = []
        self.key = self._full_key()

    def _full_key(self) -> int:
        key = self._tiles
        if self.board.ply & 1:
            key ^= BLACK_TO_MOVE
        if self.points:
            key ^= _extras(self.board)
        return key

    def play(self, move: Move | str) -> Move:
        """Play a turn (see :meth:`pbm.trax.Board.play`) and update the key."""
        board = self.board
        played = board.play(move)
        self._stack.append(self._tiles)
        placed = board.last_tiles()
        tiles = self._tiles
        if self.points and placed and board.tile_count == len(placed):
            tiles = 0  # the first move of a fresh area
        for x, y, tile in placed:
            tiles ^= tile_number(x, y, tile)
        if self.points and board.reset_due:
            tiles = 0  # a line cleared the area: its tiles no longer matter
        self._tiles = tiles
        if self.points:
            self.key = self._full_key()
        else:
            self.key = tiles ^ BLACK_TO_MOVE if board.ply & 1 else tiles
        return played

    def pop(self) -> Move:
        """Take back the last turn played through :meth:`play`."""
        move = self.board.pop()
        self._tiles = self._stack.pop()
        self.key = self._full_key()
        return move
