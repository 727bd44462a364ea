"""Errors a player can be told about.

Each names the template of its reply (``templates/errors/<template>.txt``)
and carries the values that template shows.  Exactly one place, the
pipeline, turns them into replies.  Wrong user, wrong password and "not your
board" share one error, so that a reply never tells who exists.
"""

from __future__ import annotations

from typing import Any


class PbmError(Exception):
    """Base: ``template`` names the error reply, ``details`` fill it in."""

    template = "error"

    def __init__(self, message: str = "", **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class CommandUsageError(PbmError):
    """The command is written wrongly (from the command grammar)."""

    template = "usage"


class NotAllowedError(PbmError):
    """Wrong userid or password, or not a player of that board."""

    template = "not-allowed"


class UnknownBoardError(PbmError):
    template = "unknown-board"


class UnknownUserError(PbmError):
    """A user named as opponent, recipient or subject of a show does not exist."""

    template = "unknown-user"


class UseridTakenError(PbmError):
    template = "userid-taken"


class BadAddressError(PbmError):
    template = "bad-address"


class GameOverError(PbmError):
    template = "game-over"


class NotYourTurnError(PbmError):
    template = "not-your-turn"


class StaleMoveError(PbmError):
    template = "stale-move"


class IllegalMoveReplyError(PbmError):
    """The engine refused the move: the reply shows the reason and the board."""

    template = "illegal-move"


class ChallengeRefusedError(PbmError):
    template = "challenge-refused"


class NothingPendingError(PbmError):
    template = "nothing-pending"


class WrongGameError(PbmError):
    """A board addressed with another game type's command."""

    template = "wrong-game"


class NotAvailableError(PbmError):
    """A command of the language that this server does not offer yet."""

    template = "not-available"


class VacationRefusedError(PbmError):
    """A vacation longer than the days left this year."""

    template = "vacation-refused"


class AccountLockedError(PbmError):
    """Too many wrong passwords (for a while), or locked by the operator."""

    template = "account-locked"


class DailyLimitError(PbmError):
    """A per-day cap (broadcasts) is reached."""

    template = "error"
