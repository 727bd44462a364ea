"""The Trax rules engine: pure Python, no I/O, standard library only.

>>> from pbm.trax import Board
>>> board = Board("trax")
>>> str(board.play("@0/"))
'@0/'
>>> [str(m) for m in board.legal_moves()][:3]
['A0+', 'A0/', 'A0\\\\']
"""

from .board import PASS, Board, LastTurn, Move, Scored, WinningTrack
from .errors import IllegalMoveError, NotationError, TraxError
from .notation import column_index, column_letters, is_pass, parse_notation
from .outcome import REASONS, Outcome
from .variants import DEFAULT_POINTS, ENDINGS, VARIANTS, Variant, get_variant

__all__ = [
    "DEFAULT_POINTS",
    "ENDINGS",
    "PASS",
    "REASONS",
    "VARIANTS",
    "Board",
    "IllegalMoveError",
    "LastTurn",
    "Move",
    "NotationError",
    "Outcome",
    "Scored",
    "TraxError",
    "Variant",
    "WinningTrack",
    "column_index",
    "column_letters",
    "get_variant",
    "is_pass",
    "parse_notation",
]
