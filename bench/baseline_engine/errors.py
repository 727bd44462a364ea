"""Errors raised by the rules engine.

Every message is written for a player: it says what was wrong and, where it
helps, what a right move looks like.  All of them are ``ValueError``s, so a
caller that only wants "was this move accepted?" can catch that.
"""


class TraxError(ValueError):
    """Base class of everything the engine refuses."""


class NotationError(TraxError):
    """The text is not a move in either notation, or names no usable cell."""


class IllegalMoveError(TraxError):
    """The move is well written but the rules forbid it in this position."""
