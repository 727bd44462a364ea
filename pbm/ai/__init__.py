"""The computer opponent: a Trax search on the rules engine (:mod:`pbm.trax`).

Pure code like the engine: no I/O, no database, nothing but the engine and
the standard library (it reads the CPU clock to keep to its budget).  A
server asks through plain values that pickle, so the thinking can run in a
worker process::

    >>> from pbm.ai import ThinkRequest, think
    >>> choice = think(ThinkRequest("trax", ("@0/", "B1+"), level=2, seed=1))
    >>> choice.move in {str(m) for m in ThinkRequest("trax", ("@0/", "B1+")).board().legal_moves()}
    True

See ``docs/ai.md`` for how the search works and how strong each level is.
"""

from .players import (
    CLEARLY_AHEAD,
    CORE_CLEARLY_AHEAD,
    DEFAULT_BUDGETS,
    DEFAULT_WALL_FACTOR,
    LEVELS,
    LIGHT_SECONDS,
    MAX_BUDGET,
    REASON_KINDS,
    Choice,
    Reason,
    ThinkRequest,
    clearly_ahead,
    explain,
    greedy_move,
    level_one,
    level_two,
    random_move,
    think,
    threat_moves,
    wants_draw,
    winning_moves,
)
from .search import WIN, WON, Result, Searcher

__all__ = [
    "CLEARLY_AHEAD",
    "CORE_CLEARLY_AHEAD",
    "DEFAULT_BUDGETS",
    "DEFAULT_WALL_FACTOR",
    "LEVELS",
    "LIGHT_SECONDS",
    "MAX_BUDGET",
    "REASON_KINDS",
    "WIN",
    "WON",
    "Choice",
    "Reason",
    "Result",
    "Searcher",
    "ThinkRequest",
    "clearly_ahead",
    "explain",
    "greedy_move",
    "level_one",
    "level_two",
    "random_move",
    "think",
    "threat_moves",
    "wants_draw",
    "winning_moves",
]
