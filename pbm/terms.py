"""The terms a board is played on, one value, and the rule its times keep.

A challenge and a tournament write them (the grammar reads the options into
a :class:`BoardTerms`), the configuration gives the defaults of its clocks,
and the domain settles them for a new board (``pbm.domain.boards``): the
days to the reminder (``nag_days``), to the forfeit and for the whole game
(``None``: not given, the server's default applies), whether the game is
rated, and its rules (a size-limited type's ``ending``, PointTrax's
``points``; ``None``: the game type's own).

A leaf like :mod:`pbm.secret`: it imports nothing of pbm, so the grammar,
the configuration and the domain share it without the grammar knowing the
server's configuration.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class TooShort:
    """A time below the server's floor: ``name`` is ``"forfeit time"`` or
    ``"total time"``."""

    name: str
    days: float
    floor: float


@dataclass(frozen=True, slots=True)
class BoardTerms:
    nag_days: float | None = None
    forfeit_days: float | None = None
    total_days: float | None = None
    rated: bool = True
    ending: str | None = None
    points: int | None = None

    def nag_comes_first(self) -> bool:
        """The rule every board's times keep, wherever they come from (the
        configuration, a challenge's options, a tournament): the reminder
        comes before the forfeit.  True while either is not given."""
        return self.nag_days is None or self.forfeit_days is None or self.nag_days < self.forfeit_days

    def too_short(self, floor: float) -> TooShort | None:
        """The first of the forfeit and total times (those given) that is
        shorter than ``floor`` days, if any."""
        for name, days in (("forfeit time", self.forfeit_days), ("total time", self.total_days)):
            if days is not None and days < floor:
                return TooShort(name, days, floor)
        return None

    def with_times(self, nag_days: float, forfeit_days: float) -> BoardTerms:
        """These terms with the times not given set to the defaults."""
        return replace(self, nag_days=self.nag_days if self.nag_days is not None else nag_days,
                       forfeit_days=self.forfeit_days if self.forfeit_days is not None else forfeit_days)
