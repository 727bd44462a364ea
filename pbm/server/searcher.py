"""The computer's searches, out of the mail path.

Boards queue jobs for the computer in the database (a trigger does, in the
transaction of the change that gives it the turn or an offer to answer; see
:mod:`pbm.domain.computer`).  :class:`Searcher` runs in the daemon's event
loop: it reads the open jobs (on a connection and a thread of its own, so
the loop never waits for the database), hands each to a pool of worker
processes (``[computer] workers``, at the lowest CPU priority, so that
searching never slows the mail), at most ``[computer] max_searches`` at once,
and applies each answer through the pipeline under the daemon's lock, like
a player's command.  The analyses of finished games that players ask for
(:mod:`pbm.domain.coaching`) wait in the same turns and run in the same
pool, each within ``[computer] analysis_seconds`` of CPU time.  A crash or restart loses nothing: a job is done only in
the transaction that plays its move; the jobs not done are searched again.

Jobs are taken in turns by player (the person the computer plays on the
job's board), not oldest first: a player has at most
:data:`PER_PLAYER` jobs in hand at once, and the next job taken is the
oldest of the player served least recently, so one player's many boards
delay another player's one by at most a search (a player's analyses count
among his jobs, after his moves).  A job that failed
:data:`MAX_ATTEMPTS` times gets a level-2 move (or, for an offer, a no)
chosen at once on the searcher's own thread, so that the game goes on.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, TypeVar

from pbm.ai import WON, ThinkRequest, clearly_ahead, think, wants_draw
from pbm.ai.evaluate import evaluate
from pbm.ai.review import Review
from pbm.config import Config
from pbm.domain import coaching, computer
from pbm.domain.coaching import AnalysisJob
from pbm.domain.computer import Answer, Job
from pbm.domain.context import Context
from pbm.domain.passwords import VerifiedPasswords
from pbm.domain.positions import Positions
from pbm.domain.store import Store, is_busy
from pbm.domain.store.records import Analysis, PlayerJob

log = logging.getLogger("pbm.computer")
T = TypeVar("T")

#: A job whose search or move failed this often gets a fallback answer
#: (:func:`fallback`); when even that fails, it is given up (and logged).
MAX_ATTEMPTS = 3
#: The most jobs of one player in hand (being searched) at once.
PER_PLAYER = 2
#: The most open jobs read at a time: every player's oldest first, so a
#: player is left out only when this many others wait.
READ_LIMIT = 1000
#: How often the open jobs are looked at when nothing wakes the searcher.
POLL_SECONDS = 5.0


def _key(player: int) -> str:
    """Who a job is served for, in the turns: ``u`` and the person's id
    (an analysis asked from an account's address is his too)."""
    return f"u{player}"


def budget_of(config: Config, level: int) -> float | None:
    """The CPU seconds a move may take at ``level`` (None: the level's own,
    levels 1 and 2 answer at once)."""
    return {3: config.computer.level3_seconds, 4: config.computer.level4_seconds}.get(level)


def request_of(job: Job, budget: float | None) -> ThinkRequest:
    return ThinkRequest(game_type=job.game, moves=job.moves, level=job.level, budget=budget, face=job.face,
                        ending=job.ending, points=job.points)


def search(job: Job, budget: float | None) -> Answer:
    """What the computer does for ``job`` (in a worker process)."""
    fixed = computer.answer_offer_without_search(job)
    if fixed is not None:
        return fixed
    request = request_of(job, budget)
    if job.pending == "draw":
        return Answer(accept=accepts_draw(job, request))
    choice = think(request)
    reason = choice.reason
    return Answer(move=choice.move, reason=reason.kind if reason else None,
                  cells=tuple(reason.cells) if reason else (), seconds=choice.seconds, depth=choice.depth)


def fallback(job: Job) -> Answer:
    """What the computer does for a job whose searches kept failing, chosen
    at once (the level-1 or level-2 player, no search): a move, or no to
    an offer."""
    if job.pending:
        return Answer(accept=False)
    choice = think(request_of(replace(job, level=min(job.level, 2)), None))
    reason = choice.reason
    return Answer(move=choice.move, reason=reason.kind if reason else None,
                  cells=tuple(reason.cells) if reason else (), seconds=choice.seconds, depth=choice.depth)


def accepts_draw(job: Job, request: ThinkRequest) -> bool:
    """The computer's answer to a draw offer, from its own point of view:
    ``wants_draw`` when it is to move; when its opponent is, the same rules
    on the opponent's view turned round (levels 1 and 2: the evaluation
    does not favour the computer; 3: the search does not; 4: the search
    sees no win for the computer and it is not clearly ahead)."""
    if job.computer_to_move:
        return wants_draw(request)
    board = request.board()
    if board.outcome() is not None:
        return False
    if job.level <= 2:
        return evaluate(board) >= 0
    score = think(replace(request, level=max(job.level, 3))).score
    if job.level == 3:
        return score >= 0
    return score > -WON and score >= -clearly_ahead(board, job.level)


class LostWork(RuntimeError):
    """A worker did not answer in many times the work's time (it died)."""


#: A task with no answer after this many times its CPU budget, plus
#: :data:`LOST_MARGIN` seconds, is taken as lost (its worker died): its job
#: then fails like any failed search, is tried again, and is given up after
#: MAX_ATTEMPTS.  (A search answers by 3 x its budget + 1 s of wall time.)
LOST_FACTOR = 6
LOST_MARGIN = 60.0


def lost_after(budget: float | None) -> float:
    """The seconds after which a task of ``budget`` CPU seconds is lost."""
    return LOST_FACTOR * (budget or 1.0) + LOST_MARGIN


def analyse(job: AnalysisJob, seconds: float) -> Review:
    """The analysis of a finished game (in a worker process)."""
    return coaching.analyse(job, seconds)


def _lowest_priority() -> None:
    """Worker processes yield the CPU to the daemon and to everything else,
    but are never starved outright: the lowest nice level (19) under the
    batch scheduling class where there is one (Linux).  The idle class
    (SCHED_IDLE) would give a search no CPU at all while any other program
    is busy, and a search answers by a wall-clock deadline too (a few times
    its budget): at nice 19 it still gets a small share in that time, and
    so always answers (docs/decisions.md, "The computer's priority")."""
    try:
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    except (AttributeError, OSError):  # not Linux, or not allowed here
        pass
    try:
        os.nice(19 - os.nice(0))
    except OSError:  # not allowed: search at the same priority
        pass


Apply = Callable[[int, Answer], Awaitable[Any]]
ApplyAnalysis = Callable[[int, Review], Awaitable[Any]]


@dataclass
class Taken:
    """What one read of the open jobs gave: jobs to search, and jobs that
    failed too often with the answer to play for them at once."""

    searches: list[Job] = field(default_factory=list)
    fallbacks: list[tuple[Job, Answer]] = field(default_factory=list)
    analyses: list[AnalysisJob] = field(default_factory=list)


class Searcher:
    def __init__(self, config: Config, apply: Apply, stop: asyncio.Event,
                 clock: Callable[[], datetime], apply_analysis: ApplyAnalysis | None = None) -> None:
        self.config = config
        self.apply = apply
        self.apply_analysis = apply_analysis
        self.stop = stop
        self.clock = clock
        self._wake = asyncio.Event()
        self._db = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pbm-computer-db")
        self._store: Store | None = None
        self._pool: Any = None  # multiprocessing.pool.Pool, made when the first job comes
        self.in_hand: dict[int, asyncio.Future[Answer]] = {}
        self.players: dict[int, int] = {}  # job id in hand -> its player
        self.analysing: dict[int, asyncio.Future[Review]] = {}  # analyses in hand, by id
        self.requesters: dict[int, str] = {}  # analysis id in hand -> who asked (see _key)
        self.searched = 0
        # player -> when last served (a count of jobs taken): the least
        # recently served goes first; only the database thread touches it
        self._served: dict[str, int] = {}
        self._taken = 0
        self._locked = False  # the last read met a locked database (logged once)

    def wake(self) -> None:
        """Jobs may have been queued (cheap; call from the event loop)."""
        self._wake.set()

    # -- the database, on the searcher's own thread and connection ----------------

    def _context(self) -> Context:
        if self._store is None:
            self._store = Store(self.config.server.database)
        return Context(self._store, self.config, self.clock(), VerifiedPasswords(), Positions(), None)

    def _next_jobs(self, room: int, holding: dict[int, int], analysing: dict[int, str] | None = None) -> Taken:
        """Up to ``room`` open jobs to search, marked started, taken in turns
        by player: none of a player who has :data:`PER_PLAYER` in hand
        already, else the oldest job of the player served least recently
        (``holding``: the jobs in hand, by id, and their players;
        ``analysing``: the analyses in hand, by id, and who asked).  A
        player's analyses are his jobs too, after his moves.  A job whose
        board moved on is closed here; one that failed :data:`MAX_ATTEMPTS`
        times gets its fallback answer (taking no room), one whose fallback
        failed too is given up; an analysis that failed that often is given
        up."""
        ctx = self._context()
        store = ctx.store
        taken = Taken()
        analysing = analysing or {}
        held = Counter([_key(p) for p in holding.values()] + list(analysing.values()))
        besides = tuple(holding)
        others = tuple(analysing)
        if not store.open_computer_jobs(1, besides=besides) and not store.open_analyses(1, besides=others):
            return taken  # nothing to do: no write lock taken
        with store.atomic():
            for _ in range(4):  # read again when closing jobs made way for others
                rows = store.open_computer_jobs(READ_LIMIT, besides=besides, per_player=PER_PLAYER)
                queues: dict[str, deque[PlayerJob | Analysis]] = {}
                for row in rows:
                    queues.setdefault(_key(row.player), deque()).append(row)
                for asked in store.open_analyses(READ_LIMIT, besides=others, per_requester=PER_PLAYER):
                    queues.setdefault(asked.requester, deque()).append(asked)
                closed = False
                while len(taken.searches) + len(taken.analyses) < room:
                    ready = [p for p, q in queues.items() if q and held[p] < PER_PLAYER]
                    if not ready:
                        break
                    player = min(ready, key=lambda p: (self._served.get(p, -1), queues[p][0].queued_at))
                    item = queues[player].popleft()
                    if isinstance(item, Analysis):
                        others += (item.id,)
                        gone = self._take_analysis(item, taken)
                        closed = closed or gone
                        if not gone:
                            held[player] += 1
                            self._taken += 1
                            self._served[player] = self._taken
                        continue
                    row = item
                    besides += (row.id,)
                    job = computer.job_for(self._context(), row)  # a context per job: counted apart
                    if job is None:
                        store.finish_computer_job(row.id, "stale", ctx.now)
                        closed = True
                    elif row.attempts > MAX_ATTEMPTS:
                        log.error("computer job %s on board %s: its fallback failed too; given up", row.id,
                                  row.board)
                        store.finish_computer_job(row.id, "given up", ctx.now)
                        closed = True
                    elif row.attempts == MAX_ATTEMPTS:
                        store.start_computer_job(row.id, ctx.now)  # counted: a failed fallback is given up
                        try:
                            answer = fallback(job)
                        except Exception:
                            log.exception("computer job %s on board %s: no fallback either; given up", row.id,
                                          row.board)
                            store.finish_computer_job(row.id, "given up", ctx.now)
                            closed = True
                            continue
                        log.error("computer job %s on board %s failed %d times; answered at once instead (%s)",
                                  row.id, row.board, row.attempts,
                                  answer.move or ("yes" if answer.accept else "no"))
                        taken.fallbacks.append((job, answer))
                    else:
                        store.start_computer_job(row.id, ctx.now)
                        taken.searches.append(job)
                        held[player] += 1
                        self._taken += 1
                        self._served[player] = self._taken
                if not closed or len(taken.searches) + len(taken.analyses) >= room:
                    break
        return taken

    def _take_analysis(self, row: Analysis, taken: Taken) -> bool:
        """An analysis to run, marked started, or (failed too often, or its
        board gone) closed: True when closed."""
        ctx = self._context()
        if row.attempts >= MAX_ATTEMPTS:
            log.error("analysis %s of board %s failed %d times; given up", row.id, row.board, row.attempts)
            ctx.store.finish_analysis(row.id, "given up", ctx.now)
            return True
        try:
            job = coaching.analysis_job(ctx, row)
        except Exception:
            log.exception("analysis %s: board %s cannot be read; given up", row.id, row.board)
            ctx.store.finish_analysis(row.id, "given up", ctx.now)
            return True
        ctx.store.start_analysis(row.id, ctx.now)
        taken.analyses.append(job)
        return False

    def _give_up(self, job_id: int) -> None:
        store = self._context().store
        with store.atomic():
            store.finish_computer_job(job_id, "given up", self.clock())

    async def _db_call(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._db, fn, *args)

    # -- the loop ---------------------------------------------------------------------

    def _submit(self, job: Job) -> asyncio.Future[Answer]:
        budget = budget_of(self.config, job.level)
        return self._in_pool(search, job, budget, lost_after=lost_after(budget))

    def _submit_analysis(self, job: AnalysisJob) -> asyncio.Future[Review]:
        seconds = self.config.computer.analysis_seconds
        return self._in_pool(analyse, job, seconds, lost_after=lost_after(seconds))

    def _in_pool(self, work: Callable[..., T], *args: Any, lost_after: float) -> asyncio.Future[T]:
        """``work(*args)`` in a worker process; a future of the event loop
        that the pool's result thread settles, or that fails with
        :class:`LostWork` after ``lost_after`` seconds (a worker that died,
        say in the compiled search core, takes its task with it: the pool
        starts another worker but never answers that task)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def settle(value: T | None, exc: BaseException | None) -> None:  # on the event loop
            if future.done():
                return
            if exc is not None:
                future.set_exception(exc)
            else:
                future.set_result(value)  # type: ignore[arg-type]

        def done(value: T) -> None:  # called in the pool's result thread
            loop.call_soon_threadsafe(settle, value, None)

        def failed(exc: BaseException) -> None:
            loop.call_soon_threadsafe(settle, None, exc)

        self._ensure_pool()
        self._pool.apply_async(work, args, callback=done, error_callback=failed)
        lost = LostWork(f"no answer from a worker in {lost_after:g} s")  # for the operator
        loop.call_later(lost_after, settle, None, lost)
        return future

    def _ensure_pool(self) -> None:
        if self._pool is None:
            context = multiprocessing.get_context("spawn")  # the daemon has threads: no fork
            self._pool = context.Pool(self.config.computer.workers, initializer=_lowest_priority)

    async def run(self) -> None:
        try:
            while not self.stop.is_set():
                self._wake.clear()
                room = self.config.computer.max_searches - len(self.in_hand) - len(self.analysing)
                if room > 0:
                    taken = await self._read_jobs(room)
                    for job in taken.searches:
                        log.info("computer: searching board %s move %s (level %s)", job.board, job.ply + 1,
                                 job.level)
                        self.in_hand[job.id] = self._submit(job)
                        self.players[job.id] = job.player
                    for analysis in taken.analyses:
                        log.info("computer: analysing board %s (analysis %s)", analysis.board, analysis.id)
                        self.analysing[analysis.id] = self._submit_analysis(analysis)
                        self.requesters[analysis.id] = analysis.requester
                    for job, answer in taken.fallbacks:
                        await self._play_fallback(job, answer)
                waiting: set[asyncio.Future[Any]] = {*self.in_hand.values(), *self.analysing.values()}
                woken = asyncio.ensure_future(self._wake.wait())
                stopping = asyncio.ensure_future(self.stop.wait())
                try:
                    await asyncio.wait({*waiting, woken, stopping}, timeout=POLL_SECONDS,
                                       return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for task in (woken, stopping):
                        task.cancel()
                for job_id, future in list(self.in_hand.items()):
                    if future.done():
                        del self.in_hand[job_id]
                        self.players.pop(job_id, None)
                        await self._finish(job_id, future)
                for analysis_id, found in list(self.analysing.items()):
                    if found.done():
                        del self.analysing[analysis_id]
                        self.requesters.pop(analysis_id, None)
                        await self._finish_analysis(analysis_id, found)
        finally:
            self.close()

    async def _read_jobs(self, room: int) -> Taken:
        """:meth:`_next_jobs` on the database thread.  A database locked by
        a long transaction elsewhere is logged once, in one line, until a
        read works again; anything else with its traceback."""
        try:
            taken: Taken = await self._db_call(self._next_jobs, room, dict(self.players), dict(self.requesters))
        except Exception as exc:
            if not is_busy(exc):
                log.exception("reading the computer's jobs failed")
            elif not self._locked:
                self._locked = True
                log.warning("reading the computer's jobs: the database is locked (%s); tried again quietly "
                            "until it is free", exc)
            return Taken()
        if self._locked:
            self._locked = False
            log.info("reading the computer's jobs works again")
        return taken

    async def _play_fallback(self, job: Job, answer: Answer) -> None:
        try:
            await self.apply(job.id, answer)
        except Exception:
            log.exception("computer job %s on board %s: its fallback could not be played; given up", job.id,
                          job.board)
            try:
                await self._db_call(self._give_up, job.id)
            except Exception:  # it is given up at the next read (its attempts say so)
                log.exception("computer job %s: could not be marked given up", job.id)

    async def _finish(self, job_id: int, future: asyncio.Future[Answer]) -> None:
        try:
            answer = future.result()
        except Exception:
            log.exception("computer search for job %s failed; it is tried again", job_id)
            return
        self.searched += 1
        try:
            await self.apply(job_id, answer)
        except Exception:
            log.exception("computer move for job %s could not be played; it is tried again", job_id)

    async def _finish_analysis(self, analysis_id: int, future: asyncio.Future[Review]) -> None:
        try:
            found = future.result()
        except Exception:
            log.exception("analysis %s failed; it is tried again", analysis_id)
            return
        if self.apply_analysis is None:
            return
        try:
            await self.apply_analysis(analysis_id, found)
        except Exception:
            log.exception("analysis %s could not be mailed; it is tried again", analysis_id)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()  # a search in progress is dropped: its job stays open
            self._pool.join()
            self._pool = None
        self._db.shutdown(wait=True)
        if self._store is not None:
            self._store.close()
            self._store = None
