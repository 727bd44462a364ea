"""Refusals: the errors a player can be told about.

Each names the template of its reply (``templates/errors/<template>.txt``);
its ``code`` (kebab-case, one of :data:`CODES`, or a code of the layers
below it stands on: the engine's, the grammar's) and ``params`` (the
facts: userids, board numbers, counts, caps) say what was wrong, and the
application words them from ``templates/errors/reasons/`` (one macro per
code).  Exactly one place, the pipeline, turns them into replies.  Wrong
user, wrong password and "not your board" share one error, so that a reply
never tells who exists.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Every code the domain's refusals carry (the application's own are in
#: :data:`pbm.app.refusals.CODES`).
CODES = frozenset({
    # accounts and logins
    "unknown-user", "wrong-login", "operator-locked", "login-blocked", "signups-today", "userid-taken",
    "addresses-too-many", "not-an-address", "confirmations-today", "password-checks",
    # challenges and new boards
    "same-player", "signed-off", "not-accepting", "game-limit", "boards-today", "computer-games",
    "invitations-today", "level-for-computer", "computer-off", "computer-itself", "computer-needs-password",
    "challenges-waiting", "time-too-short", "nag-not-first", "rules-not-offered",
    # boards and turns
    "unknown-board", "wrong-game", "not-a-player", "not-a-member", "no-such-position", "board-finished",
    "not-your-turn", "stale-number", "no-submitted-move", "stale-submitted-move", "no-undo-in-tournament",
    "no-undo-yet", "no-proposal", "drawn-tile-not-here", "drawn-tile-elsewhere",
    # the computer's help: hints and analyses
    "hint-not-here", "analyses-off", "game-in-play", "analyses-today",
    # work and mail a mail may ask for
    "replays", "drawings", "recipients-per-mail", "mail-to-others-today",
    # vacations
    "vacations-off", "not-on-vacation", "vacation-too-long",
    # replies to board mails
    "reply-wrong-address",
    # tournaments
    "unknown-tournament", "not-director", "too-few-entrants", "tournament-exists", "start-date-past",
    "entries-closed", "already-entered", "tournament-full", "not-entered", "already-started", "not-playing",
    "tournament-over", "not-a-tournament-board", "board-already-finished", "not-running", "round-not-over",
    "nothing-to-pair",
})


class PbmError(Exception):
    """Base: ``template`` names the error reply; ``code`` and ``params``
    say why (``str()`` shows them, for logs and debugging).

    ``view_game``: the board (a :class:`pbm.domain.boards.Game`) the reply
    shows as it stands; ``position``: a position (a ``pbm.trax.Board``) the
    reply draws instead; ``wrong_login``: a login failed, to be counted
    against its sender once the command has been rolled back, and against
    the user ``failed_login`` (an id) when there is one; ``refused_for``:
    the account (an id) whose command was not run although it may be its
    owner's (a blocked address): the owner is told, once a day.
    """

    template = "error"

    def __init__(self, code: str, params: Mapping[str, Any] | None = None, *, view_game: object = None,
                 position: object = None, wrong_login: bool = False, failed_login: int | None = None,
                 refused_for: int | None = None) -> None:
        self.code = code
        self.params: dict[str, Any] = dict(params) if params else {}
        super().__init__(code, self.params)
        self.view_game = view_game
        self.position = position
        self.wrong_login = wrong_login or failed_login is not None
        self.failed_login = failed_login
        self.refused_for = refused_for

    def __str__(self) -> str:
        return " ".join([self.code, *(f"{key}={value!r}" for key, value in self.params.items())])


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


class UnreadMoveError(IllegalMoveReplyError):
    """A word in a move's place that reads as no move, refused once its
    sender logged in (with the grammar's code and params: see
    :class:`pbm.grammar.UnreadMove`): the reply to the sender may quote
    the word in his command; the log never does."""


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


class ReplyRefusedError(PbmError):
    """A reply to a board mail that cannot be taken as a command (not the
    player's address, a board the mail was not about, no move in it)."""

    template = "reply"


class DailyLimitError(PbmError):
    """A per-day cap (broadcasts) is reached."""

    template = "error"


class TournamentError(PbmError):
    """A tournament command that cannot be done now (the code says why)."""


class WorkLimitError(PbmError):
    """One mail asked for more work than one mail may (positions replayed,
    pictures drawn, mail to others)."""

    template = "error"


class CoachingError(PbmError):
    """A hint or an analysis that cannot be given (the code says why)."""

    template = "error"
