"""What happened on a board, as the board mail tells it: one small frozen
dataclass per kind of event.

A :class:`~pbm.domain.turns.Turn` collects them (a move, a result, a score,
an offer and its answer ...), the clock work makes one (a forfeit, a lapsed
challenge), and the application adds its own (an account deleted, a player
withdrawn, the computer's reason).  ``templates/partials/events.txt`` words
each by its ``kind``; players are named by userid.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, TypeAlias


@dataclass(frozen=True, slots=True)
class Moved:
    kind: ClassVar[str] = "move"
    player: str
    move: str
    auto: bool  # a queued move, played for the player
    number: int  # the move's number in the game


@dataclass(frozen=True, slots=True)
class Ended:
    """The game ended on the board (a loop, a line, a full area ...)."""

    kind: ClassVar[str] = "result"
    winner: str | None  # a colour; None: a draw
    reason: str


@dataclass(frozen=True, slots=True)
class Scored:
    """PointTrax: a line or loop scored."""

    kind: ClassVar[str] = "scored"
    player: str
    colour: str
    what: str  # loop or line
    tiles: int


@dataclass(frozen=True, slots=True)
class Cleared:
    """PointTrax: the area cleared after a score; ``next`` starts anew."""

    kind: ClassVar[str] = "cleared"
    next: str


@dataclass(frozen=True, slots=True)
class Passed:
    """LuckyTrax: the drawn tile fitted nowhere."""

    kind: ClassVar[str] = "pass"
    player: str
    face: int
    number: int


@dataclass(frozen=True, slots=True)
class Cancelled:
    """A resignation before both players had moved."""

    kind: ClassVar[str] = "cancelled"
    player: str


@dataclass(frozen=True, slots=True)
class Resigned:
    kind: ClassVar[str] = "resign"
    player: str


@dataclass(frozen=True, slots=True)
class Proposed:
    """An offer of a draw, or a request to take back a move (``what``)."""

    player: str
    what: str  # draw or undo

    @property
    def kind(self) -> str:
        return f"propose-{self.what}"


@dataclass(frozen=True, slots=True)
class Rejected:
    player: str
    what: str  # draw or undo

    @property
    def kind(self) -> str:
        return f"reject-{self.what}"


@dataclass(frozen=True, slots=True)
class DrawAccepted:
    kind: ClassVar[str] = "accept-draw"
    player: str


@dataclass(frozen=True, slots=True)
class UndoAccepted:
    kind: ClassVar[str] = "accept-undo"
    player: str
    move: str  # the move taken back


@dataclass(frozen=True, slots=True)
class ChallengeAccepted:
    kind: ClassVar[str] = "accepted"
    player: str
    rated: bool


@dataclass(frozen=True, slots=True)
class ChallengeDeclined:
    kind: ClassVar[str] = "declined"
    player: str


@dataclass(frozen=True, slots=True)
class ChallengeLapsed:
    kind: ClassVar[str] = "lapsed"
    player: str


@dataclass(frozen=True, slots=True)
class DrawAtForfeit:
    """``player`` let the forfeit time pass with ``by``'s draw offer open."""

    kind: ClassVar[str] = "draw-at-forfeit"
    player: str
    by: str


@dataclass(frozen=True, slots=True)
class TimedOut:
    kind: ClassVar[str] = "timeout"
    player: str
    total: bool  # the whole game's time, not one move's
    days: float


@dataclass(frozen=True, slots=True)
class AccountDeleted:
    kind: ClassVar[str] = "forfeit"
    player: str


@dataclass(frozen=True, slots=True)
class Withdrawn:
    kind: ClassVar[str] = "withdrawn"
    player: str
    tournament: str


@dataclass(frozen=True, slots=True)
class Adjudicated:
    kind: ClassVar[str] = "adjudicated"
    player: str  # the director


@dataclass(frozen=True, slots=True)
class ComputerReason:
    """Why the computer played its move: a reason code and the cells it names."""

    kind: ClassVar[str] = "computer-reason"
    player: str
    why: str
    cells: tuple[str, ...]


#: Any of them.
BoardEvent: TypeAlias = (
    Moved | Ended | Scored | Cleared | Passed | Cancelled | Resigned | Proposed | Rejected | DrawAccepted
    | UndoAccepted | ChallengeAccepted | ChallengeDeclined | ChallengeLapsed | DrawAtForfeit | TimedOut
    | AccountDeleted | Withdrawn | Adjudicated | ComputerReason
)
