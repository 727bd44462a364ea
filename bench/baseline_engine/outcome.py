"""How a game ended."""

from __future__ import annotations

from dataclasses import dataclass

#: Every ``Outcome.reason``: a loop or a line completed, a draw (a limited
#: area with no legal turn left, ending ``"draw"``), the last quiet tile
#: placed (a limited area, ending ``"lastloses"``: the side to move wins), or
#: the target score reached with more points than the other (PointTrax).
REASONS = ("loop", "line", "draw", "lasttile", "points")


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result a board shows.

    ``winner`` is ``"white"``, ``"black"`` or ``None`` for a draw; ``reason`` is
    one of :data:`REASONS`: ``"loop"``, ``"line"``, ``"draw"``, ``"lasttile"``
    or ``"points"``.
    """

    winner: str | None
    reason: str

    def __str__(self) -> str:
        if self.winner is None:
            return "draw"
        return f"{self.winner} {self.reason}"
