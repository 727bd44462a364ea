"""Level 4's search in plain Trax: the compact core (:mod:`.core`).

The search of :mod:`.search` works on the rules engine's :class:`Board`,
which is made for clarity and for every game type; :mod:`.core` is the same
game written for speed (fixed arrays, an undo log, a compiled extension
where the build had Cython and a C compiler, the same file as plain Python
where not).  It knows plain Trax only (no limited area, no points, no drawn
tiles), so level 4 uses it there and the Board's search everywhere else.

This module is the bridge: the position goes to the core as the Board's
tiles in area coordinates, the core's answer comes back as the Board's
legal move placing that tile there.  One core is kept per process (its
transposition table serves the next request of the same game too).
"""

from __future__ import annotations

from dataclasses import dataclass

from pbm.trax import Board, Move

from . import core

#: log2 of the core's transposition table entries.
TT_BITS = 20


@dataclass(frozen=True, slots=True)
class CoreAnswer:
    """The core's move (legal in the board) and what it says about it."""

    move: Move
    depth: int
    nodes: int
    score: int
    seconds: float


_CORE: core.Core | None = None


def plays(board: Board) -> bool:
    """Does level 4 search the board's game on the core?  When the core is
    compiled and the game is plain Trax, not over.  (As plain Python the core
    searches a seventh to a third as many positions a second as the Board's
    search, which then serves instead: ``bench/core.py``.)"""
    variant = board.variant
    return (
        compiled()
        and variant.name == "trax"
        and variant.max_size is None
        and not variant.drawn
        and board.points is None
        and board.outcome() is None
    )


def compiled() -> bool:
    """Is the core a compiled extension (else it runs as plain Python)?"""
    return bool(core.compiled)


def _core() -> core.Core:
    global _CORE
    if _CORE is None:
        _CORE = core.Core(TT_BITS)
    return _CORE


def position(board: Board) -> tuple[int, list[tuple[int, int, int]]]:
    """The board as the core takes it: the ply and the tiles ``(x, y,
    white mask)`` in area coordinates."""
    x0, y0 = board.frame()
    return board.ply, [(x0 + column, y0 + row, tile) for column, row, tile in board.cells()]


def to_move(board: Board, x: int, y: int, tile: int) -> Move:
    """The board's legal move placing ``tile`` at area ``(x, y)``
    (``ValueError`` when there is none: the core is never trusted blindly)."""
    x0, y0 = board.frame()
    column, row = x - x0, y - y0
    for move in board.legal_moves():
        if move.column == column and move.row == row and move.tile == tile:
            return move
    raise ValueError(f"the core answered no legal move: tile {tile} at area ({x}, {y})")


def choose(board: Board, budget: float, seed: int, wall: float) -> CoreAnswer:
    """The core's move within ``budget`` CPU seconds and ``wall`` seconds
    of wall-clock time, whichever ends first."""
    if not plays(board):
        raise ValueError(f"the core plays plain Trax only, compiled, not {board.variant.name}")
    engine = _core()
    ply, tiles = position(board)
    engine.setup(ply, tiles)
    x, y, tile, depth, nodes, score, seconds = engine.think(budget, seed & 0x7FFFFFFF, wall)
    return CoreAnswer(to_move(board, x, y, tile), depth, nodes, score, seconds)
