"""The game types: each its own rules, ratings and board numbers' game name.

=============  ==========================================================
game type      rules
=============  ==========================================================
``trax``       the formation grows without limit; loops and lines win
``8x8trax``    the formation may not grow past 8x8; by default a draw
               when the side to move has no legal turn
``looptrax``   as ``trax``, but only loops win
``minitrax``   the formation may not grow past 3x3 (no line fits in it,
               so only loops win); by default the *limited-tiles ending*
               (below)
``luckytrax``  as ``trax``, but the tile of each turn is drawn at random
               (by the server: :attr:`Variant.drawn`); a tile that fits
               nowhere is a pass
``pointtrax``  loops and lines score the tiles they run through; a line
               also clears the playing area; the first to the target
               score with more points than the other wins
=============  ==========================================================

The two endings of a limited area (a board option, ``Board(..., ending=)``;
:data:`ENDINGS`):

``"draw"``
    The rule of the network server's FAQ: when the side to move has no
    legal turn at all, the game is a draw; while a legal turn remains the
    game goes on, even when every legal turn completes a loop or a line.
``"lastloses"``
    The limited-tiles rule of the 2017 rules: once every tile that can be
    placed without completing a loop or a line has been placed, the player
    who placed the last one loses.  Read exactly: after a turn that decides
    nothing, when the side to move has no legal turn that completes no
    loop and no line (every legal turn wins something for someone, or
    there is no legal turn at all), the game ends and the side to move
    wins (``Outcome(<side to move>, "lasttile")``): the player who just
    moved placed the last quiet tile.  A turn that completes a loop or a
    line is judged as always; the ending only looks at the positions that
    turn leaves undecided.

How the other rules of the 2017 variants page are read:

MiniTrax
    "Played within a 3x3 playing area": the limited area of 8x8 Trax with
    ``max_size`` 3.  No line fits in 3 columns, so only loops win.  (In
    random games the ending comes with a full area, when no legal turn is
    left at all.)
LuckyTrax
    The tile and its orientation (one of the six faces) are drawn at random
    each turn by the server, not the engine; the player places that face
    where it is a legal turn (:meth:`~pbm.trax.Board.placements`), or, when
    it fits nowhere, misses the turn: a pass, which counts as a turn.  The
    first tile of a game may be any face: turned, it is ``@0+`` (a straight)
    or ``@0/`` (a curve), as the first tile fixes the board's orientation.
PointTrax
    "One point for each tile within the loop" is read as one point for each
    tile the loop's track runs through (the tiles it encloses are not
    counted); "the tiles completing the line" likewise as the tiles the
    line's track runs through.  Points go to the owner of the track (its
    colour), whoever placed the tile; a turn may score several tracks, of
    both colours.  A line clears the playing area once its turn is over (the
    position after the turn still shows it), unless that turn won the game.
    After a turn that scored, a player at or over the target with more points
    than the other wins (``Outcome(<winner>, "points")``); equal scores at
    the target play on until one is higher.  Loops and lines never end the
    game by themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

#: The endings a board with a limited area may have (see the module docs).
ENDINGS = ("draw", "lastloses")

#: The target score of a PointTrax board unless the players agree another.
DEFAULT_POINTS = 25


@dataclass(frozen=True, slots=True)
class Variant:
    """A game type.

    ``ending`` is the default ending of a limited area (``"draw"`` or
    ``"lastloses"``; ``"draw"`` when left out) and ``None`` for the game
    types whose formation grows without limit.  ``drawn`` says the server
    draws the tile of every turn (LuckyTrax).  ``points`` is the default
    target score of a game that scores (PointTrax), else ``None``.
    """

    name: str  # the game type as typed in commands
    title: str  # as written in mail subjects
    max_size: int | None  # widest/tallest the formation may grow, None = unlimited
    lines_win: bool  # False in looptrax: only loops win
    ending: str | None = None  # the default ending of a limited area
    drawn: bool = False  # luckytrax: the tile of each turn is drawn; a pass is allowed
    points: int | None = None  # pointtrax: the default target score

    def __post_init__(self) -> None:
        if self.max_size is None:
            if self.ending is not None:
                raise ValueError(f"{self.name}: an ending is only for a limited area")
        elif self.ending is None:
            object.__setattr__(self, "ending", "draw")
        elif self.ending not in ENDINGS:
            raise ValueError(f"{self.name}: unknown ending {self.ending!r}; the endings are {', '.join(ENDINGS)}")
        if self.points is not None and self.points < 1:
            raise ValueError(f"{self.name}: a target score is at least 1")

    @property
    def bounded(self) -> bool:
        """Is the formation's size limited (``max_size``)?"""
        return self.max_size is not None

    @property
    def can_draw(self) -> bool:
        """Only a bounded board can run out of legal turns (whether that is
        a draw or a win depends on the board's ending)."""
        return self.max_size is not None

    @property
    def scores(self) -> bool:
        """Do loops and lines score points instead of winning (PointTrax)?"""
        return self.points is not None


VARIANTS: Mapping[str, Variant] = MappingProxyType({
    "trax": Variant("trax", "Trax", None, True),
    "8x8trax": Variant("8x8trax", "8x8Trax", 8, True, ending="draw"),
    "looptrax": Variant("looptrax", "LoopTrax", None, False),
    "minitrax": Variant("minitrax", "MiniTrax", 3, False, ending="lastloses"),
    "luckytrax": Variant("luckytrax", "LuckyTrax", None, True, drawn=True),
    "pointtrax": Variant("pointtrax", "PointTrax", None, True, points=DEFAULT_POINTS),
})


def get_variant(name: str | Variant) -> Variant:
    """The variant called ``name`` (any case); ``ValueError`` if there is none."""
    if isinstance(name, Variant):
        return name
    try:
        return VARIANTS[str(name).lower()]
    except KeyError:
        known = ", ".join(VARIANTS)
        raise ValueError(f"unknown game type {name!r}; the game types are {known}") from None
