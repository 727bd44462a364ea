"""How a game ended."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result a board shows.

    ``winner`` is ``"white"``, ``"black"`` or ``None`` for a draw; ``reason`` is
    ``"loop"``, ``"line"`` or ``"draw"``.
    """

    winner: str | None
    reason: str

    def __str__(self) -> str:
        if self.winner is None:
            return "draw"
        return f"{self.winner} {self.reason}"
