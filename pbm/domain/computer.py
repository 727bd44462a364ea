"""The computer opponent as the server knows it: its account, the level a
board plays at, the jobs the boards queue for it, and its results.

The search itself is :mod:`pbm.ai` (run by the daemon in worker processes,
see :mod:`pbm.server.searcher`); this module decides what is asked of it and
checks that an answer still fits the board when it comes back.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from pbm.config import Config

from .boards import Game, load_game
from .context import Context
from .passwords import hash_password
from .ratings import Rating, after_game, white_score
from .refusals import ChallengeRefusedError
from .store import Store
from .store.records import BoardRecord, ComputerJob, User

#: What each level is taken to be worth when a player's results against the
#: computer are rated (apart from the ratings between people), from the
#: strength benchmark (bench/strength.py, README): level 2 won 100 of 100
#: against level 1 (counted as 400 apart), level 3 +382 over level 2, level
#: 4 +363 over level 3; level 2 near a newcomer's 1400.
LEVEL_RATING = {1: 1000.0, 2: 1400.0, 3: 1780.0, 4: 2140.0}


def ensure_account(store: Store, config: Config, now: datetime) -> User | None:
    """The computer's account, made when missing (no address, a password
    nobody knows).  None when the computer is off, or when a person already
    holds its userid (that person keeps it; the operator is told in the log
    by the caller)."""
    if not config.computer.enabled:
        return None
    userid = config.computer.userid
    with store.atomic():
        row = store.find_user(userid.lower())
        if row is None:
            row = store.create_user(userid, userid.lower(), hash_password(secrets.token_urlsafe(32)), [], now)
            store.mark_computer(row.id)
            return store.user_by_id(row.id)
    return row if row.computer else None


def is_computer(user: User) -> bool:
    return bool(user.computer)


def computer_in(game: Game) -> User | None:
    """The computer, when it plays on this board."""
    for user in (game.white, game.black):
        if is_computer(user):
            return user
    return None


def check_challenge(ctx: Context, white: User, black: User, level: int | None, password_given: bool) -> int | None:
    """The level of a new board (None when the computer does not play on
    it); refuses what cannot be."""
    playing = [u for u in (white, black) if is_computer(u)]
    if not playing:
        if level is not None:
            raise ChallengeRefusedError("level-for-computer", {"computer": ctx.config.computer.userid})
        return None
    if not ctx.config.computer.enabled:
        raise ChallengeRefusedError("computer-off", {"userid": playing[0].userid})
    if len(playing) == 2:
        raise ChallengeRefusedError("computer-itself")
    if not password_given:
        raise ChallengeRefusedError("computer-needs-password", {"userid": playing[0].userid})
    return level if level is not None else ctx.config.computer.default_level


@dataclass(frozen=True)
class Job:
    """A job as the searcher takes it: the board as it stood when the job
    was queued, and what is asked (a move, or an answer to an offer)."""

    id: int
    board: int
    ply: int
    pending: str  # '' a move; draw | undo: the opponent's offer to answer
    game: str  # the game type
    moves: tuple[str, ...]
    level: int
    ending: str | None
    points: int | None
    face: int | None  # LuckyTrax: the tile drawn for the player to move
    computer_to_move: bool = True
    player: int = 0  # the id of the person the computer plays on the board (users.id)


def job_for(ctx: Context, row: ComputerJob) -> Job | None:
    """What a queued job asks, or None when the board has moved on (the job
    is then done with nothing to do)."""
    game = load_game(ctx, row.board)
    if not still_wanted(game, row):
        return None
    board = game.board
    face = None
    if board.variant.drawn:
        draws = [int(d) for d in (game.row.draws or "").split()]
        face = draws[board.ply] if len(draws) > board.ply else None
    me = computer_in(game)
    assert me is not None
    person = game.black if game.white.id == me.id else game.white
    return Job(row.id, game.number, board.ply, row.pending, game.row.game,
               tuple(str(m) for m in board.moves), game.row.level or ctx.config.computer.default_level,
               game.row.ending, game.row.points, face, game.to_move.id == me.id, person.id)


def still_wanted(game: Game, row: ComputerJob) -> bool:
    """Does the board still need what the job asks?"""
    me = computer_in(game)
    if me is None or not game.active or game.board.ply != row.ply:
        return False
    if row.pending:
        return game.row.pending_kind == row.pending and game.row.pending_by != me.id
    return game.to_move.id == me.id


def accepts_take_back(level: int) -> bool:
    """Levels 1 and 2 are teaching partners: they let a move be taken back."""
    return level <= 2


def record_result(store: Store, board: BoardRecord, now: datetime) -> dict[str, float]:
    """A finished game against the computer, rated apart: the person's
    rating against it moves by the same rules as between people, the
    computer counted at its level's fixed rating.  The change is kept on
    the board too (for its end mail); returns the board columns written."""
    white = store.user_by_id(board.white_id)
    person, colour = (store.user_by_id(board.black_id), "black") if is_computer(white) else (white, "white")
    row = store.computer_rating(person.id, board.game)
    before = Rating(row.rating, row.games) if row else Rating()
    score = white_score(board.winner) if colour == "white" else 1.0 - white_score(board.winner)
    level = board.level or 2
    after = after_game(before, Rating(LEVEL_RATING.get(level, LEVEL_RATING[2]), 1000), score)
    store.save_computer_rating(person.id, board.game, after.value,
                               {1.0: "win", 0.5: "draw", 0.0: "loss"}[score], now)
    changes = {"apart_before": before.value, "apart_after": after.value}
    store.update_board(board.number, **changes)
    return changes


@dataclass(frozen=True)
class Answer:
    """What the searcher came back with for a job: a move to play (with,
    at level 1, why: a kind the board mail words, and the cells it is
    about), or the answer to an offer."""

    move: str | None = None
    accept: bool | None = None
    reason: str | None = None  # wins | blocks | threatens | builds | random
    cells: tuple[str, ...] = ()
    seconds: float = 0.0  # CPU seconds the search took
    depth: int = 0


def answer_offer_without_search(job: Job) -> Answer | None:
    """Offers the computer answers by rule: take-backs by level; draws are
    searched (at level 4 it accepts only when it sees no win for itself)."""
    if job.pending == "undo":
        return Answer(accept=accepts_take_back(job.level))
    return None
