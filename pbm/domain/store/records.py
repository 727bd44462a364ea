"""What the store returns: one frozen dataclass per kind of row.

Every read of the store gives typed records, made here from the database's
rows and nowhere else: a column that is added is a field here, and a field
that a caller misspells is an error the type checker finds.  The fields are
the columns; flags stored as 0 or 1 are ``bool``.  A record does not change;
a changed row is read again or made with :func:`dataclasses.replace`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pbm.terms import BoardTerms

R = TypeVar("R")

_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}


def record(cls: type[R], row: Mapping[str, Any]) -> R:
    """A record of ``cls`` made from a database row (its columns by name;
    columns the record does not name are left out)."""
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = tuple((f.name, f.type == "bool") for f in dataclasses.fields(cls))  # type: ignore[arg-type]
    return cls(**{name: bool(row[name]) if flag else row[name] for name, flag in fields})


# ----------------------------------------------------------------------------
# accounts


@dataclass(frozen=True, slots=True)
class User:
    """An account (the computer's too; a deleted one keeps its row)."""

    id: int
    userid: str
    key: str
    password_hash: str
    signed_off: bool
    deleted_at: str | None
    created_at: str
    operator_locked: bool
    pictures: bool
    digest_hour: int | None
    digest_sent: str | None
    computer: bool
    open_challenges: bool
    language: str | None  # a code of pbm.languages.LANGUAGES; None: not chosen (English)


@dataclass(frozen=True, slots=True)
class Address:
    user_id: int
    position: int
    address: str
    confirmed: bool


@dataclass(frozen=True, slots=True)
class Preference:
    """A player's choices in one game type."""

    user_id: int
    game: str
    accepting: bool
    game_limit: int | None
    seeking: int


@dataclass(frozen=True, slots=True)
class LoginFailures:
    """Wrong passwords in a row from one lane for one account."""

    sender: str
    user_id: int
    failures: int
    blocked_until: str | None
    noticed_at: str | None


@dataclass(frozen=True, slots=True)
class Code:
    """A one-time code (only its hash)."""

    id: int
    user_id: int
    kind: str
    address: str | None
    code_hash: str
    created_at: str
    expires_at: str
    used_at: str | None


@dataclass(frozen=True, slots=True)
class Vacation:
    id: int
    user_id: int
    starts_at: str
    ends_at: str


@dataclass(frozen=True, slots=True)
class Leave:
    """A time a player's clock stands still: a vacation or a hold."""

    starts_at: str
    ends_at: str | None
    kind: str


@dataclass(frozen=True, slots=True)
class SenderDay:
    """What one sender address did on one day."""

    sender: str
    day: str
    mails: int
    noticed: bool
    failed_logins: int


# ----------------------------------------------------------------------------
# boards


@dataclass(frozen=True, slots=True)
class BoardRecord:
    """A board as stored: its players, its moves (blank-separated), its
    terms and its state."""

    number: int
    game: str
    white_id: int
    black_id: int
    status: str
    winner: str | None
    reason: str | None
    moves: str
    rated: bool
    nag_days: float
    forfeit_days: float
    total_days: float | None
    pending_kind: str | None
    pending_by: int | None
    created_at: str
    updated_at: str
    tournament: str | None
    turn_since: str | None
    nags: int
    finished_at: str | None
    white_before: float | None
    white_after: float | None
    black_before: float | None
    black_after: float | None
    label: str | None
    ending: str | None
    points: int | None
    draws: str
    level: int | None
    challenged_id: int | None
    accepted_at: str | None
    apart_before: float | None  # against the computer: the person's rating apart, before the game
    apart_after: float | None

    @property
    def ply(self) -> int:
        """Turns played (passes too)."""
        return len(self.moves.split())


@dataclass(frozen=True, slots=True)
class BoardListing(BoardRecord):
    """A board with its players' userids, for lists of boards."""

    white_userid: str
    black_userid: str


@dataclass(frozen=True, slots=True)
class Submitted:
    """A move a player submitted to see, waiting for confirm."""

    board: int
    user_id: int
    move: str
    ply: int


@dataclass(frozen=True, slots=True)
class Watcher:
    """Someone who follows a board: ``subscribe`` (every mail) or ``notify`` (results)."""

    user_id: int
    kind: str


@dataclass(frozen=True, slots=True)
class MoveRecord:
    board: int
    ply: int
    move: str
    user_id: int
    auto: bool
    played_at: str


@dataclass(frozen=True, slots=True)
class Watch:
    """A user watching a board (``board`` None: every board of the game)."""

    user_id: int
    game: str
    board: int | None
    kind: str


@dataclass(frozen=True, slots=True)
class Rating:
    user_id: int
    game: str
    rating: float
    games: int
    wins: int
    losses: int
    draws: int
    last_game_at: str | None


@dataclass(frozen=True, slots=True)
class RatingEntry:
    """A row of the standings: a rating and its player's userid."""

    user_id: int
    game: str
    rating: float
    games: int
    wins: int
    losses: int
    draws: int
    last_game_at: str | None
    userid: str
    key: str


# ----------------------------------------------------------------------------
# tournaments


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    id: int
    name: str
    key: str
    game: str
    director_id: int
    format: str
    rounds: int | None
    pool_size: int | None
    advance: int | None
    nag_days: float
    forfeit_days: float
    rated: bool
    max_players: int | None
    start_date: str | None
    status: str
    stage: str | None
    round: int
    round_started_at: str | None
    reported_round: int | None
    created_at: str
    started_at: str | None
    finished_at: str | None
    ending: str | None
    points: int | None

    @property
    def terms(self) -> BoardTerms:
        """The terms its boards are played on."""
        return BoardTerms(nag_days=self.nag_days, forfeit_days=self.forfeit_days, rated=self.rated,
                          ending=self.ending, points=self.points)


@dataclass(frozen=True, slots=True)
class Entrant:
    tournament_id: int
    user_id: int
    seed: int | None
    pool: str | None
    joined_at: str
    withdrawn_at: str | None


@dataclass(frozen=True, slots=True)
class EntrantListing(Entrant):
    """An entrant with the userid (and its key) of the player."""

    userid: str
    key: str


@dataclass(frozen=True, slots=True)
class Pairing:
    id: int
    tournament_id: int
    stage: str
    round: int
    white_id: int
    black_id: int | None
    board: int | None
    result: float | None
    decided_by: str | None


# ----------------------------------------------------------------------------
# mail


@dataclass(frozen=True, slots=True)
class QueuedReply:
    """A reply in the outbox."""

    id: int
    message_key: str | None
    recipient: str
    message: bytes
    created_at: str
    sent_at: str | None
    attempts: int
    next_attempt_at: str | None
    last_error: str | None
    refused_at: str | None
    message_id: str | None


@dataclass(frozen=True, slots=True)
class SentReply:
    """What is kept of a reply to match a bounce to it."""

    id: int
    message_key: str | None
    recipient: str
    created_at: str
    sent_at: str | None


@dataclass(frozen=True, slots=True)
class FailedMail:
    id: int
    source: str
    raw: bytes
    error: str
    failed_at: str
    retried_at: str | None


@dataclass(frozen=True, slots=True)
class FailedMailEntry:
    """A line of ``pbm failed list``."""

    id: int
    source: str
    size: int
    error: str
    failed_at: str
    retried_at: str | None


@dataclass(frozen=True, slots=True)
class ReplyToken:
    id: int
    token_hash: str
    user_id: int
    board: int | None
    ply: int | None
    created_at: str
    used_at: str | None
    used_for: str | None


@dataclass(frozen=True, slots=True)
class DigestBoard:
    token_id: int
    board: int
    ply: int
    used_for: str | None


@dataclass(frozen=True, slots=True)
class Hold:
    """A player's clock held while mail to them bounces."""

    id: int
    user_id: int
    address: str
    starts_at: str
    ends_at: str | None


@dataclass(frozen=True, slots=True)
class BounceSummary:
    """A line of ``pbm bounces``."""

    address: str
    userid: str | None
    reports: int
    failed: int | None
    last_at: str
    last_status: str | None
    held_until: str | None


# ----------------------------------------------------------------------------
# the computer


@dataclass(frozen=True, slots=True)
class ComputerJob:
    """A job queued for the computer."""

    id: int
    board: int
    ply: int
    pending: str
    queued_at: str
    started_at: str | None
    attempts: int
    done_at: str | None
    outcome: str | None


@dataclass(frozen=True, slots=True)
class PlayerJob(ComputerJob):
    """An open job with the person the computer plays on its board."""

    player: int


@dataclass(frozen=True, slots=True)
class ComputerRating:
    user_id: int
    game: str
    rating: float
    games: int
    wins: int
    draws: int
    losses: int
    updated_at: str


@dataclass(frozen=True, slots=True)
class ComputerRatingEntry:
    user_id: int
    game: str
    rating: float
    games: int
    wins: int
    draws: int
    losses: int
    updated_at: str
    userid: str


@dataclass(frozen=True, slots=True)
class Hint:
    """The hint given on a board at a turn (one a turn)."""

    board: int
    ply: int
    move: str
    reason: str | None
    cells: str  # blank-separated
    given_at: str


@dataclass(frozen=True, slots=True)
class Analysis:
    """An analysis of a finished game, asked for by mail and queued for the
    computer's workers."""

    id: int
    board: int
    address: str  # lowercased: where the analysis goes
    requester: str  # served in turns: "u<user id>", or the address
    language: str | None  # asked for, when the address has no account
    queued_at: str
    started_at: str | None
    attempts: int
    done_at: str | None
    outcome: str | None
