"""The game types: each its own rules, ratings and board numbers' game name."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Variant:
    name: str  # the game type as typed in commands
    title: str  # as written in mail subjects
    max_size: int | None  # widest/tallest the formation may grow, None = unlimited
    lines_win: bool  # False in looptrax: only loops win

    @property
    def can_draw(self) -> bool:
        """Only a bounded board can run out of legal turns."""
        return self.max_size is not None


VARIANTS = {
    "trax": Variant("trax", "Trax", None, True),
    "8x8trax": Variant("8x8trax", "8x8Trax", 8, True),
    "looptrax": Variant("looptrax", "LoopTrax", None, False),
}


def get_variant(name: str | Variant) -> Variant:
    """The variant called ``name`` (any case); ``ValueError`` if there is none."""
    if isinstance(name, Variant):
        return name
    try:
        return VARIANTS[str(name).lower()]
    except KeyError:
        known = ", ".join(VARIANTS)
        raise ValueError(f"unknown game type {name!r}; the game types are {known}") from None
