"""The pre-optimisation engine, kept for comparison (issue 20).

A frozen copy of ``pbm/trax`` (board, tiles, notation, render and what they
import) as it stood before the engine was made faster.  Only
``bench/engine.py`` uses it, to measure the old and the new engine in one
run; nothing in ``pbm`` imports it and it is never changed.
"""

from .board import Board

__all__ = ["Board"]
