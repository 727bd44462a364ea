"""The computer's help to players: a hint a turn in games against its two
lower levels, and the analysis of a finished game.

A hint is chosen at once (the level-2 player, a few milliseconds) and kept,
so that asking again in the same turn repeats it.  An analysis is queued
(the store's ``analyses``) for the computer's workers, which take it in
turns with its moves (:mod:`pbm.server.searcher`), and is mailed to the
address that asked.  No engine help is given on a board while it is played,
except a hint where the computer is a teaching partner.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pbm.ai import ThinkRequest, think
from pbm.ai.review import Review, review

from .boards import Game, load_game
from .computer import computer_in
from .context import Context
from .refusals import CoachingError
from .store.records import Analysis, User
from .turns import require_active, require_turn

#: The levels of the computer a hint may be asked for against.
HINT_LEVELS = (1, 2)


@dataclass(frozen=True)
class HintGiven:
    """A hint: the move, why (a kind of :data:`pbm.ai.REASON_KINDS` and
    its cells), and whether it was given before in this turn."""

    board: int
    number: int  # the move's number
    move: str
    reason: str | None
    cells: tuple[str, ...]
    again: bool


def _face(game: Game) -> int | None:
    """LuckyTrax: the face drawn for the player to move."""
    if not game.board.variant.drawn:
        return None
    draws = [int(d) for d in (game.row.draws or "").split()]
    return draws[game.board.ply] if len(draws) > game.board.ply else None


def give_hint(ctx: Context, game: Game, user: User) -> HintGiven:
    """The hint for ``user``'s turn on ``game``: only on a board where he
    plays the computer at level 1 or 2, only when he is to move; one a
    turn (asked again, the same)."""
    require_active(game)
    me = computer_in(game)
    if me is None or game.colour_of(user) is None or (game.row.level or 0) not in HINT_LEVELS:
        raise CoachingError("hint-not-here", {"board": game.number, "computer": ctx.config.computer.userid},
                            view_game=game)
    require_turn(game, user)
    ply = game.board.ply
    kept = ctx.store.hint(game.number, ply)
    if kept is not None:
        return HintGiven(game.number, ply + 1, kept.move, kept.reason, tuple(kept.cells.split()), True)
    request = ThinkRequest(game_type=game.row.game, moves=tuple(str(m) for m in game.board.moves), level=2,
                           seed=game.number * 1000 + ply, face=_face(game), ending=game.row.ending,
                           points=game.row.points)
    choice = think(request)
    reason = choice.reason
    kind = reason.kind if reason else None
    cells = tuple(reason.cells) if reason else ()
    after = game.board.copy()
    after.play(choice.move)
    if after.frame() != game.board.frame():
        cells = ()  # named as the board stands after the move, which moves the edges: not said
    ctx.store.save_hint(game.number, ply, choice.move, kind, cells, ctx.now)
    return HintGiven(game.number, ply + 1, choice.move, kind, cells, False)


@dataclass(frozen=True)
class AnalysisAsked:
    """An analysis queued (or queued before, ``again``) for an address."""

    board: int
    again: bool


def _day_start(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def ask_analysis(ctx: Context, sender: str, game: Game, language: str | None) -> AnalysisAsked:
    """Queue the analysis of ``game`` for ``sender`` (in ``language`` when
    the address has no account): only of a finished game, only while the
    computer is on, at most ``[computer] analyses_per_sender_per_day`` a
    day; asked again before it is mailed, nothing more is queued."""
    settings = ctx.config.computer
    if not settings.enabled:
        raise CoachingError("analyses-off")
    if game.active:
        raise CoachingError("game-in-play", {"board": game.number}, view_game=game)
    store = ctx.store
    if store.open_analysis(game.number, sender) is not None:
        return AnalysisAsked(game.number, True)
    cap = settings.analyses_per_sender_per_day
    if store.analyses_asked_since(sender, _day_start(ctx.now)) >= cap:
        raise CoachingError("analyses-today", {"cap": cap})
    accounts = store.users_with_address(sender)
    requester = f"u{accounts[0].id}" if len(accounts) == 1 else sender.lower()
    store.queue_analysis(game.number, sender, requester, language, ctx.now)
    return AnalysisAsked(game.number, False)


@dataclass(frozen=True)
class AnalysisJob:
    """An analysis as the workers take it: the game as plain values."""

    id: int
    board: int
    requester: str
    game: str
    moves: tuple[str, ...]
    ending: str | None
    points: int | None
    faces: tuple[int | None, ...]


def analysis_job(ctx: Context, row: Analysis) -> AnalysisJob:
    game = load_game(ctx, row.board)
    faces: tuple[int | None, ...] = tuple(int(d) for d in (game.row.draws or "").split())
    return AnalysisJob(row.id, game.number, row.requester, game.row.game, tuple(str(m) for m in game.board.moves),
                       game.row.ending, game.row.points, faces)


def analyse(job: AnalysisJob, seconds: float) -> Review:
    """The review of the job's game (in a worker process)."""
    return review(job.game, job.moves, budget=seconds, ending=job.ending, points=job.points, faces=job.faces)
