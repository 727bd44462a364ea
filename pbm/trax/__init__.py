"""The Trax rules engine: pure Python, no I/O, standard library only.

>>> from pbm.trax import Board
>>> board = Board("trax")
>>> str(board.play("@0/"))
'@0/'
>>> [str(m) for m in board.legal_moves()][:3]
['A0+', 'A0/', 'A0\\\\']

:class:`Board` is built in layers (see :mod:`.board`); what boards learn is
kept in a :class:`Knowledge` each holds, never at module level.
"""

from .board import Board
from .errors import CODES, IllegalMoveError, NotationError, TraxError
from .knowledge import Knowledge
from .moves import PASS, LastTurn, Move, Scored, WinningTrack
from .notation import column_index, column_letters, is_pass, parse_notation
from .outcome import REASONS, Outcome
from .variants import DEFAULT_POINTS, ENDINGS, VARIANTS, Variant, get_variant

__all__ = (
    "CODES",
    "DEFAULT_POINTS",
    "ENDINGS",
    "PASS",
    "REASONS",
    "VARIANTS",
    "Board",
    "IllegalMoveError",
    "Knowledge",
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
)
