"""LuckyTrax: the server draws the tile of every turn.

At the start of each turn one of the six tile faces (a white mask) is
drawn from an unpredictable source and stored with the board (``draws``:
the face of every turn so far, the current one last), so that replays,
past positions, records and take-backs stay exact.  The player names the
cell (``C3``), or writes the move in full with the drawn face's symbol; a
face that fits nowhere is passed automatically (see :mod:`.turns`).
"""

from __future__ import annotations

import random
import secrets
from typing import Protocol

from pbm.grammar import WrittenMove
from pbm.trax import Board, TraxError

from .refusals import IllegalMoveReplyError
from .store.records import BoardRecord

#: The six faces, as white masks (see pbm.trax.tiles).
FACES = (5, 10, 9, 6, 3, 12)

#: Where draws come from: the system's unpredictable source (tests swap in a seeded one).
source: random.Random = secrets.SystemRandom()


class _Loaded(Protocol):
    board: Board
    row: BoardRecord


def draw_face() -> int:
    """One of the six faces, at random."""
    return source.choice(FACES)


def draws_of(row: BoardRecord) -> list[int]:
    """The faces drawn for a board's turns, in order (the current turn's last)."""
    return [int(w) for w in row.draws.split()]


def current_draw(game: _Loaded) -> int | None:
    """The face the player to move has to place (None: not a LuckyTrax
    board, or no turn under way)."""
    if not game.board.variant.drawn:
        return None
    draws = draws_of(game.row)
    return draws[game.board.ply] if game.board.ply < len(draws) else None


def resolve(game: _Loaded, written: WrittenMove) -> str:
    """The drawn tile's move at the cell the player named (or the move they
    wrote in full, which must place the drawn face): its notation."""
    face = current_draw(game)
    assert face is not None
    options = game.board.placements(face)
    cells = tuple(m.cell for m in options)
    if written.cell is not None:
        for option in options:
            if option.cell == written.cell:
                return str(option)
        raise IllegalMoveReplyError(
            "drawn-tile-not-here", {"cell": written.cell, "cells": cells}, view_game=game)
    assert written.notation is not None
    try:
        move = game.board.parse_move(str(written.notation))
    except TraxError as exc:
        raise IllegalMoveReplyError(exc.code, exc.params, view_game=game) from None
    if any(m == move and m.tile == move.tile for m in options):
        return str(move)
    raise IllegalMoveReplyError(
        "drawn-tile-elsewhere", {"move": str(written.notation), "cells": cells},
        view_game=game)
