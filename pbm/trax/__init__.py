"""The Trax rules engine: pure Python, no I/O, standard library only.

>>> from pbm.trax import Board
>>> board = Board("trax")
>>> str(board.play("@0/"))
'@0/'
>>> [str(m) for m in board.legal_moves()][:3]
['A0+', 'A0/', 'A0\\\\']
"""

from .board import Board, LastTurn, Move, WinningTrack
from .errors import IllegalMoveError, NotationError, TraxError
from .notation import column_index, column_letters, parse_notation
from .outcome import Outcome
from .variants import VARIANTS, Variant, get_variant

__all__ = [
    "VARIANTS",
    "Board",
    "IllegalMoveError",
    "LastTurn",
    "Move",
    "NotationError",
    "Outcome",
    "TraxError",
    "Variant",
    "WinningTrack",
    "column_index",
    "column_letters",
    "get_variant",
    "parse_notation",
]
