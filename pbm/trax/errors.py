"""Errors raised by the rules engine.

A refusal says what was wrong as data, not as a sentence: a stable ``code``
(kebab-case, one per kind of refusal: :data:`CODES`) and ``params``, the
facts it is about.  The application words it for a player from a template
(``templates/errors/reasons/engine.txt``, one macro per code: a translated
server words them in its language).  The params are plain values: strings,
whole numbers, booleans, and tuples of them.  ``str(error)`` shows the code
and params, for logs and debugging.  All of them are ``ValueError``s, so a
caller that only wants "was this move accepted?" can catch that.

========================  ====================================================
code                      params
========================  ====================================================
``not-text``              ``type``: the type given instead of text
``no-move``               (none): the text is empty
``leading-zero``          ``move``: the text as written (new notation)
``not-notation``          ``move``: the text as written
``old-row-zero``          ``move``: the text as written (old notation)
``no-pass``               ``variant``, ``title``: the game type
``first-move``            ``move`` (new notation), ``fresh_area``: the move
                          starts a PointTrax area cleared by a line
``first-move-old``        ``move`` (old notation), ``fresh_area``
``off-board``             ``cell``, ``last_column`` (letters), ``last_row``
``occupied``              ``cell``
``not-touching``          ``cell``
``no-fit``                ``move``, ``symbol``, ``cell``, ``entries``
``no-straight``           ``move``, ``cell``, ``entries`` (old notation)
``no-curve``              ``move``, ``cell``, ``entries`` (old notation)
``which-curve``           ``move``, ``cell`` (old notation ``C``)
``no-such-turn``          ``move``, ``cell``, ``direction``: ``up``, ``down``,
                          ``left`` or ``right`` (old notation)
``ambiguous``             ``move``, ``cell`` (old notation)
``game-over``             (none)
``too-large``             ``move``, ``limit``, ``variant``, ``title``
``three-ends``            ``move``, ``cell``: where three ends of one colour
                          would meet
``nothing-to-undo``       (none): no move to take back
========================  ====================================================

``entries`` is a tuple of ``(colour, side)`` pairs, the track ends entering
the cell: ``("white", "top")``.  A cell is written as the notation names it
(``B2``), a move as the player wrote it, canonical where it was read.

A refusal met while a move list is replayed (:meth:`~pbm.trax.Board.replay`)
keeps the code and params of what went wrong and adds ``number`` (the move's
number in the list, from 1) and ``given`` (that move as written).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeAlias

#: Every code a refusal of the engine carries (see the table above).
CODES = frozenset({
    "not-text", "no-move", "leading-zero", "not-notation", "old-row-zero",
    "no-pass", "first-move", "first-move-old", "off-board", "occupied", "not-touching",
    "no-fit", "no-straight", "no-curve", "which-curve", "no-such-turn", "ambiguous",
    "game-over", "too-large", "three-ends", "nothing-to-undo",
})

#: What a param may be: a plain value, or a tuple of them.
Param: TypeAlias = str | int | bool | tuple[object, ...] | None


class TraxError(ValueError):
    """Base class of everything the engine refuses.

    ``code`` names the kind of refusal (one of :data:`CODES`) and ``params``
    the facts it is about; ``str(error)`` shows both (``off-board
    cell='Z9' ...``), for logs and debugging, not for a player."""

    def __init__(self, code: str, params: Mapping[str, Param] | None = None) -> None:
        self.code = code
        self.params: dict[str, Param] = dict(params) if params else {}
        super().__init__(code, self.params)

    def __str__(self) -> str:
        return " ".join([self.code, *(f"{key}={value!r}" for key, value in self.params.items())])


class NotationError(TraxError):
    """The text is not a move in either notation, or names no usable cell."""


class IllegalMoveError(TraxError):
    """The move is well written but the rules forbid it in this position."""
