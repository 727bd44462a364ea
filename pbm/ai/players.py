"""The computer opponent: what the server asks (:func:`think`,
:func:`wants_draw`) and the players of each level.

Everything a request needs travels in a :class:`ThinkRequest` and comes
back in a :class:`Choice`, both frozen dataclasses of plain values, so a
server can hand the thinking to a worker process (they pickle).

Levels
    1. *Teaching partner*: plays a win in one when it has one, blocks a
       threat only every other time (by the seed), and otherwise picks among
       a few random legal moves the one that threatens, or else builds a
       loop or a line, or else any.  It says why (:class:`Reason`).
    2. *One move ahead*: plays a win in one, never leaves the other side a
       win in one when it can help it (so it blocks every threat it can),
       and among the safe moves prefers one that threatens (two threats
       first), then the one the evaluation likes best.
    3. and 4. The search (:mod:`.search`) with a CPU-time budget each
       (:data:`DEFAULT_BUDGETS`, which a server may override per request);
       level 4 in plain Trax searches on the compiled core instead
       (:mod:`.fast`, :mod:`.core`), where the build compiled it.

    Levels 1 and 2 stop looking at more moves after :data:`LIGHT_SECONDS`
    of CPU time (only large PointTrax positions take so long) and choose
    among those seen.

The *reason* of a move is data, never a sentence: a kind from
:data:`REASON_KINDS` and the cells involved, named in the notation of the
position *after* the move (the diagram the other player is sent):

``wins``       the cells of the loop or line it completed
``blocks``     the cells where the other side could have won
``threatens``  the cells where it can now win
``builds``     the end cells of the track it brought on (closer to a loop,
               or wider towards a line)
``random``     no cells: a move picked at random (level 1)

Draws (:func:`wants_draw`): levels 1 and 2 accept when they cannot win at
once and the evaluation does not favour them; level 3 when its search does
not favour it; level 4 only when its search sees no win for itself and it is
not clearly ahead (:data:`CLEARLY_AHEAD`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pbm.trax import PASS, Board, Move, column_letters

from . import fast
from .book import book_move
from .evaluate import evaluate
from .search import WIN, WON, Result, Searcher

#: The levels a request may ask for.
LEVELS = (1, 2, 3, 4)
#: CPU seconds per move of the searching levels, unless a request says otherwise.
DEFAULT_BUDGETS: dict[int, float] = {3: 1.0, 4: 8.0}
#: The kinds of :class:`Reason`.
REASON_KINDS = ("wins", "blocks", "threatens", "builds", "random")
#: Level 4 refuses a draw when its search scores the position above this.
CLEARLY_AHEAD = 150
#: The same for level 4 in plain Trax, where it searches on the compact core
#: (:mod:`.fast`), whose evaluation counts in its own units (an attack 40, the
#: move 35; a shallow search's score swings by some 150 from ply to ply).
CORE_CLEARLY_AHEAD = 300
#: Every budget is cut to this many CPU seconds at most.
MAX_BUDGET = 10.0
#: Levels 1 and 2 (and the benchmark's greedy player) stop looking at more
#: moves after this many CPU seconds (only big PointTrax positions take so long).
LIGHT_SECONDS = 1.0
#: Without a request's ``wall``, an answer may take this many times its CPU
#: budget in wall-clock seconds, plus one second.
DEFAULT_WALL_FACTOR = 3
#: The time kept back from a budget for setting up and answering.
_MARGIN = 0.02


@dataclass(frozen=True, slots=True)
class ThinkRequest:
    """Everything a computer player needs to choose a move.

    ``game_type`` names the variant (``trax``, ``8x8trax`` ...); ``ending``
    and ``points`` are the board options (None: the game type's default).
    ``moves`` are the moves played so far, in the notation the server
    stores.  ``level`` is 1 to 4; ``budget`` the CPU seconds the move may
    take (None: :data:`DEFAULT_BUDGETS`, used by levels 3 and 4 only);
    ``seed`` makes the choice repeatable (None: it varies).  ``face`` is the
    face a LuckyTrax player to move has drawn (a white mask, see
    :mod:`pbm.trax.tiles`); None elsewhere, and in LuckyTrax it means the
    draw is not known (the player then chooses among all legal moves).
    ``wall`` is the most wall-clock seconds the answer may take (None:
    :data:`DEFAULT_WALL_FACTOR` times the CPU budget, plus one second): a
    search stops at its CPU budget or at this, whichever comes first, so a
    worker starved of CPU time by other work still answers.
    """

    game_type: str
    moves: tuple[str, ...] = ()
    level: int = 3
    budget: float | None = None
    seed: int | None = None
    face: int | None = None
    ending: str | None = None
    points: int | None = None
    wall: float | None = None
    book: bool = True  # levels 3 and 4 open from the opening book (pbm.ai.book; not level 4 on the core)

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"unknown level {self.level!r}; the levels are 1 to 4")
        object.__setattr__(self, "moves", tuple(str(m) for m in self.moves))
        if self.budget is not None and not self.budget > 0:
            raise ValueError(f"a budget is a positive number of seconds, not {self.budget!r}")
        if self.wall is not None and not self.wall > 0:
            raise ValueError(f"a wall time is a positive number of seconds, not {self.wall!r}")

    def board(self) -> Board:
        """The position the request describes."""
        return Board.replay(self.moves, self.game_type, ending=self.ending, points=self.points)

    def seconds(self) -> float:
        """The CPU budget of the move (levels 3 and 4; capped at :data:`MAX_BUDGET`)."""
        if self.budget is not None:
            return min(self.budget, MAX_BUDGET)
        return DEFAULT_BUDGETS.get(self.level, 1.0)

    def wall_seconds(self) -> float:
        """The most wall-clock seconds the answer may take (see ``wall``)."""
        if self.wall is not None:
            return self.wall
        return DEFAULT_WALL_FACTOR * self.seconds() + 1.0


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a move was chosen: a kind from :data:`REASON_KINDS` and the
    cells involved (notation of the position after the move)."""

    kind: str
    cells: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Choice:
    """A chosen move (notation as :meth:`pbm.trax.Board.play` takes and the
    server stores), the search depth reached (0: no search), the positions
    searched, the score for the player who moves (see :data:`WIN`), the CPU
    seconds used, and why (:class:`Reason`)."""

    move: str
    depth: int = 0
    nodes: int = 0
    score: int = 0
    seconds: float = 0.0
    reason: Reason | None = field(default=None)


@dataclass(frozen=True, slots=True)
class Wall:
    """A wall-clock deadline: ``deadline`` read on ``clock``."""

    deadline: float
    clock: Callable[[], float] = time.monotonic

    def passed(self) -> bool:
        return self.clock() > self.deadline


# ----------------------------------------------------------------------
# what a position offers


def _bit(board: Board) -> int:
    """The colour bit of the side to move (1 white, 2 black)."""
    return 1 << (board.ply & 1)


def _cell_names(board: Board, cells: Sequence[tuple[int, int]]) -> tuple[str, ...]:
    """Area coordinates as notation cell names of the position (distinct, in order)."""
    x0, y0 = board.frame()
    names: list[str] = []
    for x, y in cells:
        if x < x0 or y < y0:
            continue  # not in the position shown (a cleared PointTrax area)
        name = f"{column_letters(x - x0)}{y - y0}"
        if name not in names:
            names.append(name)
    return tuple(names)


def _area(board: Board, move: Move) -> tuple[int, int]:
    x0, y0 = board.frame()
    return x0 + move.column, y0 + move.row


def winning_moves(board: Board, moves: Sequence[Move] | None = None) -> list[Move]:
    """The moves (among ``moves``, default all) that win at once for the side to move."""
    allowed = None if moves is None else {(m.column, m.row, m.tile) for m in moves}
    out = []
    mbit = _bit(board)
    scoring = board.points is not None
    for move, bits in board.completions():
        if allowed is not None and (move.column, move.row, move.tile) not in allowed:
            continue
        if scoring:
            mover = board.turn
            board.play(move)
            outcome = board.outcome()
            board.pop()
            if outcome is not None and outcome.winner == mover:
                out.append(move)
        elif bits & mbit:
            out.append(move)
    return out


def threat_moves(board: Board) -> list[Move]:
    """The moves with which the side *not* to move could win at once."""
    obit = 3 ^ _bit(board)
    if board.points is None:
        return [move for move, bits in board.completions() if bits & obit]
    other = "black" if board.turn == "white" else "white"
    out = []
    for move, _ in board.completions():
        board.play(move)
        outcome = board.outcome()
        board.pop()
        if outcome is not None and outcome.winner == other:
            out.append(move)
    return out


def _track_cells(board: Board, colour: int) -> list[tuple[int, int]]:
    """After a move: the end cells of the colour's open track that the move
    drew on (an end next to a tile it placed) whose ends are closest, or of
    the colour's closest track when it drew on none."""
    placed = [(x, y) for x, y, _ in board.last_tiles()]

    def touches(x: int, y: int) -> bool:
        return any(abs(x - px) + abs(y - py) == 1 for px, py in placed)

    best: tuple[int, int, int, int] | None = None
    best_rank = (2, 0)
    for c, x1, y1, x2, y2 in board.track_ends():
        if c == colour:
            rank = (0 if touches(x1, y1) or touches(x2, y2) else 1, abs(x1 - x2) + abs(y1 - y2))
            if best is None or rank < best_rank:
                best_rank, best = rank, (x1, y1, x2, y2)
    if best is None:
        return []
    return [(best[0], best[1]), (best[2], best[3])]


def explain(board: Board, move: Move, before: list[Move] | None = None) -> Reason:
    """Why ``move`` is good in the board's position (which it leaves as it
    was): it wins, blocks threats (``before``: the other side's winning
    moves, worked out when not given), threatens, or builds."""
    mover = board.turn
    threats_before = threat_moves(board) if before is None else before
    threat_cells = [_area(board, m) for m in threats_before]
    board.play(move)
    try:
        outcome = board.outcome()
        if outcome is not None and outcome.winner == mover:
            track = board.winning_track()
            cells = track.cells if track is not None else [c for t in board.last_scored() for c in t.cells]
            return Reason("wins", tuple(dict.fromkeys(f"{column_letters(c)}{r}" for c, r in cells)))
        if threat_cells and not winning_moves(board):
            return Reason("blocks", _cell_names(board, threat_cells))
        mine = threat_moves(board)  # the mover's, now the other side is to move
        if mine:
            return Reason("threatens", _cell_names(board, [_area(board, m) for m in mine]))
        colour = 0 if mover == "white" else 1
        return Reason("builds", _cell_names(board, _track_cells(board, colour)))
    finally:
        board.pop()


def _distinct_cells(board: Board, moves: Sequence[Move]) -> int:
    return len({(m.column, m.row) for m in moves})


# ----------------------------------------------------------------------
# the players


def _options(board: Board, face: int | None) -> list[Move]:
    if board.variant.drawn and face is not None:
        return board.placements(face) or [PASS]
    return board.legal_moves()


def _after_move(board: Board) -> tuple[bool, list[Move]]:
    """In the position after a move (the other side to move), with one look
    at the completions: can the side to move win at once, and (when it
    cannot) the moves with which the side that just moved could win next."""
    to_move = _bit(board)
    if board.points is None:
        found = board.completions(stop=to_move)
        if found and found[-1][1] & to_move:
            return True, []
        return False, [move for move, _ in found]
    # PointTrax: a scoring move ends the game for whoever it makes the winner
    mover = board.turn
    threats = []
    for move, _ in board.completions():
        board.play(move)
        outcome = board.outcome()
        board.pop()
        if outcome is not None and outcome.winner is not None:
            if outcome.winner == mover:
                return True, []
            threats.append(move)
    return False, threats


def _safe_moves(board: Board, moves: Sequence[Move], deadline: float | None = None,
                wall: Wall | None = None) -> list[tuple[Move, list[Move]]]:
    """The moves after which the other side cannot win at once, each with
    the mover's own threats after it.  Past ``deadline`` (CPU time) or the
    ``wall`` deadline no more moves are looked at once one safe move has
    been found."""
    mover = board.turn
    out: list[tuple[Move, list[Move]]] = []
    for move in moves:
        if out and ((deadline is not None and time.process_time() > deadline) or (wall is not None and wall.passed())):
            break
        board.play(move)
        try:
            outcome = board.outcome()
            if outcome is not None:
                if outcome.winner == mover or outcome.winner is None:
                    out.append((move, []))
                continue
            loses, threats = _after_move(board)
            if not loses:
                out.append((move, threats))
        finally:
            board.pop()
    return out


def _score_after(board: Board, move: Move) -> int:
    """The evaluation after ``move`` for the side that played it."""
    board.play(move)
    try:
        outcome = board.outcome()
        if outcome is not None:
            return 0 if outcome.winner is None else (WIN if outcome.winner != board.turn else -WIN)
        return -evaluate(board)
    finally:
        board.pop()


def level_two(board: Board, face: int | None, rng: random.Random, wall: Wall | None = None) -> tuple[Move, Reason]:
    """One move ahead (see the module docs); ``wall``: a wall-clock deadline
    beside :data:`LIGHT_SECONDS`."""
    options = _options(board, face)
    if options == [PASS]:
        return PASS, Reason("random")
    wins = winning_moves(board, options)
    if wins:
        move = wins[0]
        return move, explain(board, move, [])
    before = threat_moves(board)
    looked = list(options)
    rng.shuffle(looked)  # what a look cut short by LIGHT_SECONDS sees is a random sample
    safe = _safe_moves(board, looked, time.process_time() + LIGHT_SECONDS, wall)
    if not safe:
        move = rng.choice(options)
        return move, Reason("random")
    double = [(m, t) for m, t in safe if _distinct_cells(board, t) >= 2]
    single = [(m, t) for m, t in safe if t]
    pool = double or single or safe
    scored = [(_score_after(board, m), rng.random(), m) for m, _ in pool]
    scored.sort(reverse=True)
    move = scored[0][2]
    return move, explain(board, move, before)


def level_one(board: Board, face: int | None, rng: random.Random, wall: Wall | None = None) -> tuple[Move, Reason]:
    """The teaching partner (see the module docs); ``wall``: a wall-clock
    deadline beside :data:`LIGHT_SECONDS`."""
    options = _options(board, face)
    if options == [PASS]:
        return PASS, Reason("random")
    wins = winning_moves(board, options)
    if wins:
        return wins[0], explain(board, wins[0], [])
    before = threat_moves(board)
    if before and rng.random() < 0.5:
        safe = [m for m, _ in _safe_moves(board, options, time.process_time() + LIGHT_SECONDS, wall)]
        if safe:
            move = rng.choice(safe)
            return move, explain(board, move, before)
    sample = rng.sample(options, min(6, len(options)))
    threatening = []
    for move in sample:
        board.play(move)
        try:
            if board.outcome() is None and not winning_moves(board) and threat_moves(board):
                threatening.append(move)
        finally:
            board.pop()
    if threatening:
        move = threatening[0]
        return move, explain(board, move, before)
    if rng.random() < 0.5:
        move = max(sample, key=lambda m: _score_after(board, m))
        reason = explain(board, move, before)
        return move, reason if reason.kind != "builds" or reason.cells else Reason("random")
    return sample[0], Reason("random")


def random_move(board: Board, face: int | None, rng: random.Random) -> Move:
    """A uniformly random legal move (the benchmark's weakest player)."""
    return rng.choice(_options(board, face))


def greedy_move(board: Board, face: int | None, rng: random.Random) -> Move:
    """The one-move greedy player of the benchmark: a win in one if it has
    one, else a random move that leaves the other side no win in one (any
    move when there is none)."""
    options = _options(board, face)
    wins = winning_moves(board, options) if options != [PASS] else []
    if wins:
        return wins[0]
    safe = [m for m, _ in _safe_moves(board, options, time.process_time() + LIGHT_SECONDS)] if options != [PASS] else []
    return rng.choice(safe or options)


# ----------------------------------------------------------------------
# the requests


def _wall(request: ThinkRequest, wall_start: float, wall_clock: Callable[[], float]) -> Wall:
    """The request's wall-clock deadline, less the time kept for answering."""
    wall = request.wall_seconds()
    return Wall(wall_start + max(wall - _MARGIN, wall * 0.5), wall_clock)


def _search(request: ThinkRequest, board: Board, face: int | None, start: float, wall_start: float,
            clock: Callable[[], float], wall_clock: Callable[[], float]) -> Result:
    """The search of levels 3 and 4, within the CPU budget and the wall time."""
    budget = request.seconds()
    deadline = start + max(budget - _MARGIN, budget * 0.5)
    searcher = Searcher(board, deadline, face=face, seed=request.seed, clock=clock,
                        wall_deadline=_wall(request, wall_start, wall_clock).deadline, wall_clock=wall_clock,
                        threats=True)
    return searcher.run(budget, start, wall=request.wall_seconds(), wall_start=wall_start)


def _core_choice(request: ThinkRequest, board: Board, rng: random.Random, start: float, wall_start: float,
                 clock: Callable[[], float], wall_clock: Callable[[], float]) -> Choice | None:
    """Level 4 in plain Trax: the compact core's search (:mod:`.fast`)
    within the budget and the wall time left; None when the core refuses
    the position (the Board's search then serves)."""
    budget = request.seconds()
    cpu = max(budget - _MARGIN, budget * 0.5) - (clock() - start)
    wall = _wall(request, wall_start, wall_clock).deadline - wall_clock()
    seed = request.seed if request.seed is not None else rng.getrandbits(31)
    answer = None
    if cpu > 0 and wall > 0:
        try:
            answer = fast.choose(board, cpu, seed, wall)
        except ValueError:  # a formation too large for the core's area (129 cells across)
            return None
    if answer is None or (answer.depth == 0 and abs(answer.score) < WON):
        # out of time before depth 1 finished: the level-2 player's first safe move
        move, reason = level_two(board, None, rng, Wall(float("-inf")))
        return Choice(str(move), 0, 0 if answer is None else answer.nodes, 0, clock() - start, reason)
    return Choice(str(answer.move), answer.depth, answer.nodes, answer.score, clock() - start,
                  explain(board, answer.move))


def think(request: ThinkRequest, clock: Callable[[], float] = time.process_time,
          wall_clock: Callable[[], float] = time.monotonic) -> Choice:
    """Choose a move for the player to move in the request's position.

    ``clock`` is the CPU clock the budget is kept on, ``wall_clock`` the
    clock of the request's ``wall`` time.  ``ValueError`` when the game is
    over (no move to choose) or the request is not a position of its game
    type."""
    start = clock()
    wall_start = wall_clock()
    board = request.board()
    if board.outcome() is not None:
        raise ValueError("the game is over: there is no move to choose")
    rng = random.Random(request.seed)
    face = request.face if board.variant.drawn else None
    options = _options(board, face)
    if len(options) == 1:
        only = options[0]
        reason = Reason("random") if only.is_pass else explain(board, only)
        return Choice(str(only), 0, 0, 0, clock() - start, reason)
    if request.level == 1:
        move, reason = level_one(board, face, rng, _wall(request, wall_start, wall_clock))
        return Choice(str(move), 0, 0, _score_after(board, move) if not move.is_pass else 0, clock() - start, reason)
    if request.level == 2:
        move, reason = level_two(board, face, rng, _wall(request, wall_start, wall_clock))
        return Choice(str(move), 1, 0, _score_after(board, move) if not move.is_pass else 0, clock() - start, reason)
    # level 4 on the compact core plays the opening better by its search than by the book (built
    # from the Board search's games): measured, docs/decisions.md
    booked = request.book and face is None and not (request.level == 4 and fast.plays(board))
    opening = book_move(board, rng) if booked else None
    if opening is not None:  # in the opening book: played at once, the seed choosing among its moves
        return Choice(str(opening), 0, 0, 0, clock() - start, explain(board, opening))
    if request.level == 4 and face is None and fast.plays(board):
        chosen = _core_choice(request, board, rng, start, wall_start, clock, wall_clock)
        if chosen is not None:
            return chosen
    result = _search(request, board, face, start, wall_start, clock, wall_clock)
    if result.depth == 0 and not result.proven:
        # out of time before depth 1 finished (starved, or a huge formation): the
        # level-2 player's move at least takes a win and stops a threat (with its
        # deadline passed, it takes the first safe move it finds)
        move, reason = level_two(board, face, rng, Wall(float("-inf")))
        return Choice(str(move), 0, result.nodes, 0, clock() - start, reason)
    reason = Reason("random") if result.move.is_pass else explain(board, result.move)
    return Choice(str(result.move), result.depth, result.nodes, result.score, clock() - start, reason)


def clearly_ahead(board: Board, level: int) -> int:
    """The score above which a searching level is clearly ahead in the
    board's game (:data:`CLEARLY_AHEAD`, or :data:`CORE_CLEARLY_AHEAD` where
    level 4 searches on the compact core)."""
    return CORE_CLEARLY_AHEAD if level == 4 and fast.plays(board) else CLEARLY_AHEAD


def wants_draw(request: ThinkRequest, clock: Callable[[], float] = time.process_time,
               wall_clock: Callable[[], float] = time.monotonic) -> bool:
    """Should the computer accept (or offer) a draw in the request's position?

    Levels 1 and 2: when it cannot win at once and its evaluation of the
    position is not in its favour.  Level 3: when its search scores the
    position 0 or less for it.  Level 4: only when its search sees no win
    for itself and does not score the position above :func:`clearly_ahead`.
    Never once the game is over.  Always from the point of view of the side
    to move in the request's position.  The clocks are those of :func:`think`."""
    start = clock()
    wall_start = wall_clock()
    board = request.board()
    if board.outcome() is not None:
        return False
    face = request.face if board.variant.drawn else None
    if request.level <= 2:
        if winning_moves(board, _options(board, face) if face is not None else None):
            return False
        return evaluate(board) <= 0
    if request.level == 4 and face is None and fast.plays(board):
        chosen = _core_choice(request, board, random.Random(request.seed), start, wall_start, clock, wall_clock)
        if chosen is not None:
            return chosen.score < WON and chosen.score <= CORE_CLEARLY_AHEAD
    result = _search(request, board, face, start, wall_start, clock, wall_clock)
    if request.level == 3:
        return result.score <= 0
    return result.score < WON and result.score <= CLEARLY_AHEAD
