"""The search: iterative deepening principal-variation alpha-beta.

One :class:`Searcher` thinks about one position within a CPU-time budget.

Iterative deepening
    After the threat search (below), the root is searched to depth 1, 2, 3 ... until the time is up; each
    iteration starts with the best move of the last one, and the answer is
    the best move of the last *completed* iteration (or a move of the
    interrupted one that has already been proven better than that).  A new
    iteration is not started once half the budget is spent: it would not
    finish.  The search stops early when it has proven a win or a loss, or
    when a whole iteration met no position it had to guess about.
Principal-variation search
    Each node searches its first move with the full window and the others
    with a null window, searching again only a move that turns out better.
Transposition table
    Positions are keyed by their Zobrist hash (:mod:`.zobrist`), which holds
    the tiles in area coordinates, the side to move and the PointTrax
    scores.  An entry keeps the depth, the kind of bound, the score and the
    best move.  Scores of proven wins count plies from the node, not the
    root, so that they can be reused at another depth.
Duplicates
    Many Trax moves give the same position (a forced tile may be placed by
    hand, or the same chain started from either end).  Each node plays its
    moves in order and skips a move whose position (hash) it has already
    searched.
Threats first
    Every node first asks the engine for the moves that complete a loop or a
    line (:meth:`pbm.trax.Board.completions`): if the side to move has one it
    has won (no search needed).  Otherwise the other side's completions are
    *threats*: a move that leaves one of them standing loses at once, which
    is checked by replaying just that turn (:meth:`pbm.trax.Board.completes`)
    instead of searching the reply (a move whose tiles all lie too far from
    those of a loop threat to change it is known to lose without being
    played: :func:`.threats.cannot_block`).  A node under threat is extended by one
    ply (its few real answers are searched as deep as the node), and at the
    horizon (quiescence) a position is evaluated only when the side to move
    is not under threat; otherwise the blocks are searched, up to
    :data:`QUIESCENCE` plies beyond the horizon.
Threat search
    Before the first iteration the root looks for a forced win through
    threats only (:mod:`.threats`), within :data:`THREAT_SHARE` of the
    budget; a win it finds is the answer.
Move order
    The move the table remembers, then the two *killer* moves of the ply
    (the last moves that cut off there), then by the *history* score of the
    move (how often and how deep it has cut off before); under threat, the
    moves near a threatened cell come first.  Moves are named by their
    area coordinates and tile, which do not change as the formation grows.
LuckyTrax
    The side to move knows its drawn face, nobody knows the next one: the
    root chooses among the placements of the face (a pass when there are
    none), and every position below it is a *chance node*, worth the mean
    over the six faces of the best placement of that face (the pass when
    none fits; a face that completes the mover's track is a win).  So that
    the tree stays small, each face's placements beyond the root are cut to
    the :data:`LUCKY_BEAM` best by the move order.
PointTrax
    A completed loop or line scores instead of winning: the moves that reach
    the target are found by playing the scoring moves, and the evaluation
    counts points (:mod:`.evaluate`).

Time is CPU time (:func:`time.process_time`), read at every node: a search
given ``budget`` seconds returns within that plus the time to unwind.  A
second deadline in wall-clock time (:func:`time.monotonic`), read beside it,
stops a search that other work on the machine starves of CPU time.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from pbm.trax import PASS, Board, Move, Outcome

from .evaluate import evaluate
from .threats import MOST_MOVES, ThreatSearch, cannot_block, loop_regions, refuted, threat_cells
from .zobrist import Position, cell_key

#: The score of a win on the move; a win n plies away scores WIN - n.
WIN = 1_000_000
#: Scores beyond this (either sign) are proven wins or losses.
WON = WIN - 10_000
_INF = WIN + 1
#: How many plies of blocks the quiescence search may add beyond the horizon.
QUIESCENCE = 6
#: The deepest iteration (a small game tree is exhausted long before).
MAX_DEPTH = 40
#: LuckyTrax: the placements of each face searched below the root.
LUCKY_BEAM = 6
#: The share of the budget the threat search (:mod:`.threats`) may take at the root.
THREAT_SHARE = 0.25
#: The transposition table is emptied when it grows past this many entries.
TABLE_LIMIT = 400_000

FACES = (5, 10, 9, 6, 3, 12)

_EXACT, _LOWER, _UPPER = 0, 1, 2


class Timeout(Exception):
    """The budget ran out in the middle of an iteration."""


@dataclass(frozen=True, slots=True)
class Result:
    """What a search found: the move, its score for the side to move, the
    depth of the last completed iteration (0: none completed), the nodes
    searched, and whether the score is proven (a forced win or loss, or a
    tree searched to its end)."""

    move: Move
    score: int
    depth: int
    nodes: int
    proven: bool


def terminal_score(outcome: Outcome, mover: str, ply: int) -> int:
    """The score of a finished game for ``mover`` (the side to move there),
    ``ply`` plies below the root."""
    if outcome.winner is None:
        return 0
    return WIN - ply if outcome.winner == mover else -(WIN - ply)


class Searcher:
    """Searches one position within a deadline (a :func:`time.process_time` value).

    ``face`` is the drawn face of a LuckyTrax mover (the root's moves are its
    placements); ``seed`` shuffles the root's moves before the first
    iteration, so that of moves the search cannot tell apart it picks one
    at random (and repeatably for a seed, time allowing).  ``clock`` is
    what the deadline is read on.  ``wall_deadline`` is a second deadline,
    read on ``wall_clock`` (:func:`time.monotonic`): the search stops at
    whichever comes first, so that a search starved of CPU time by other
    work on the machine still answers in time (None: no wall deadline).
    ``threats``: look for a forced win by threats (:mod:`.threats`) first
    (what :func:`pbm.ai.think` and :func:`pbm.ai.wants_draw` ask for).
    """

    def __init__(self, board: Board, deadline: float, *, face: int | None = None, seed: int | None = None,
                 clock: Callable[[], float] = time.process_time, wall_deadline: float | None = None,
                 wall_clock: Callable[[], float] = time.monotonic, threats: bool = False) -> None:
        self.board = board
        self.pos = Position(board)
        self.deadline = deadline
        self.clock = clock
        self.wall_deadline = wall_deadline if wall_deadline is not None else float("inf")
        self.wall_clock = wall_clock
        self.use_threats = threats
        self.face = face
        self.rng = random.Random(seed)
        self.lucky = board.variant.drawn
        self.points = board.points is not None
        self.table: dict[int, tuple[int, int, int, int]] = {}
        self.known: dict[int, list[tuple[Move, int]]] = {}  # threats by position key
        self.killers: list[list[int]] = [[0, 0] for _ in range(MAX_DEPTH + QUIESCENCE + 8)]
        self.history: dict[int, int] = {}
        self.nodes = 0
        self.guessed = False  # did this iteration evaluate a position statically?
        self.iteration = 0  # the depth of the iteration under way
        self.root_threats: list[tuple[int, int, int]] = []  # the other side's, at the root

    # ------------------------------------------------------------------
    # the root

    def root_moves(self) -> list[Move]:
        """The moves the side to move may choose from."""
        board = self.board
        if self.lucky and self.face is not None:
            return board.placements(self.face) or [PASS]
        return board.legal_moves()

    def run(self, budget: float, start: float, max_depth: int = MAX_DEPTH, *, wall: float | None = None,
            wall_start: float | None = None) -> Result:
        """Iterative deepening until the deadline (or ``max_depth``);
        ``budget`` and ``start`` (CPU seconds) decide when no new iteration
        is started, and so do ``wall`` and ``wall_start`` (wall-clock
        seconds, when given): not once half of either is spent."""
        board = self.board
        moves = self.root_moves()
        if not moves:
            raise ValueError("the game is over: there is no move to choose")
        if len(moves) == 1:
            return Result(moves[0], 0, 0, 0, False)
        win = self.win_in_one(moves)
        if win is not None:
            return Result(win, WIN - 1, 1, 1, True)
        root_ply = board.ply
        if self.use_threats and not self.lucky and not self.points:
            wall_until = self.wall_deadline
            if wall is not None and wall_start is not None:
                wall_until = min(wall_until, wall_start + wall * THREAT_SHARE)
            forced = self.threat_search(start + budget * THREAT_SHARE, wall_until)
            if forced is not None:
                return Result(forced[0], WIN - forced[1], forced[1], self.nodes, True)
        order = self.order_root(moves)
        best = order[0]
        best_score = 0
        depth_done = 0
        proven = False
        for depth in range(1, max_depth + 1):
            self.guessed = False
            self.iteration = depth
            try:
                scored = self.search_root(order, depth)
            except Timeout as stop:
                while board.ply > root_ply:
                    self.pos.pop()
                # a move of the unfinished iteration is proven better than the
                # last iteration's best (searched first) only by beating it
                partial = stop.args[0] if stop.args else None
                if partial is not None and partial[0] is not None:
                    best, best_score = partial[0], partial[1]
                break
            # the moves of this iteration, best first (stable: a move that
            # only tied with the best, an upper bound, stays behind it)
            scored.sort(key=lambda item: -item[0])
            order = [move for _, move in scored]
            best_score, best = scored[0]
            depth_done = depth
            if abs(best_score) >= WON or not self.guessed:
                proven = True
                break
            if self.clock() - start > budget * 0.5:
                break
            if wall is not None and wall_start is not None and self.wall_clock() - wall_start > wall * 0.5:
                break
        return Result(best, best_score, depth_done, self.nodes, proven)

    def threat_search(self, until: float, wall_until: float) -> tuple[Move, int] | None:
        """A forced win by threats only (:mod:`.threats`), looked for with
        more and more moves until ``until`` on the CPU clock or
        ``wall_until`` on the wall clock: the first move and the plies to
        the win."""
        board = self.board
        root_ply = board.ply

        def tick() -> None:
            self.nodes += 1
            if self.clock() > min(until, self.deadline) or self.wall_clock() > wall_until:
                raise Timeout()

        threats = ThreatSearch(self.pos, tick)
        try:
            return threats.win(MOST_MOVES)
        except Timeout:
            while board.ply > root_ply:
                self.pos.pop()
            return None

    def win_in_one(self, moves: list[Move]) -> Move | None:
        """A root move that wins at once, if there is one."""
        board = self.board
        mbit = 1 << (board.ply & 1)
        allowed = None if not self.lucky else {(m.column, m.row, m.tile) for m in moves}
        for move, bits in board.completions(stop=0 if self.points else mbit):
            if allowed is not None and (move.column, move.row, move.tile) not in allowed:
                continue
            if self.points:
                board.play(move)
                outcome = board.outcome()
                board.pop()
                if outcome is not None and outcome.winner == board.turn:
                    return move
            elif bits & mbit:
                return move
        return None

    def order_root(self, moves: list[Move]) -> list[Move]:
        """The root's moves in the order of the first iteration: as any node
        orders them, ties shuffled by the seed."""
        shuffled = list(moves)
        self.rng.shuffle(shuffled)
        gains = None
        if self.points:
            found, scoring = self.point_threats()
            threats = self.threat_cells(found)
            gains = dict(scoring)
        else:
            threats = self.threat_cells(self.threats())
        if not self.lucky and not self.points:
            self.root_threats = threats
        return [move for _, _, move in self.ordered(shuffled, 0, 0, threats, gains)]

    def search_root(self, order: list[Move], depth: int) -> list[tuple[int, Move]]:
        """One iteration: (score, move) of every distinct root move, exact for
        the best and an upper bound for the others."""
        board = self.board
        pos = self.pos
        seen: set[int] = set()
        scored: list[tuple[int, Move]] = []
        alpha = -_INF
        best_move: Move | None = None
        first_done = False
        x0, y0 = board.frame()
        cells = self.root_threats
        obit = 2 >> (board.ply & 1)
        for move in order:
            pos.play(move)
            key = pos.key
            if key in seen:
                pos.pop()
                continue
            seen.add(key)
            try:
                if cells and board.outcome() is None and self.refuted(cells, obit):
                    score = -(WIN - 2)
                elif self.lucky:
                    score = -self.chance(depth - 1, 1)
                elif best_move is None:
                    score = -self.search(depth - 1, -_INF, _INF, 1, 0)
                else:
                    score = -self.search(depth - 1, -alpha - 1, -alpha, 1, 0)
                    if score > alpha:
                        score = -self.search(depth - 1, -_INF, -alpha, 1, 0)
            except Timeout:
                raise Timeout((best_move, alpha) if first_done else None) from None
            pos.pop()
            scored.append((score, move))
            if best_move is None:
                first_done = True
            if best_move is None or score > alpha:
                alpha = score
                best_move = move
                if not move.is_pass:
                    key = cell_key(x0 + move.column, y0 + move.row, move.tile)
                    self.history[key] = self.history.get(key, 0) + depth * depth
        return scored

    # ------------------------------------------------------------------
    # threats

    def threats(self, new_only: bool = False) -> list[tuple[Move, int]]:
        """The other side's completions in the current position (the moves
        it would win with), or the side to move's own first completion when
        it has one (then the list's last entry has the mover's bit).

        ``new_only``: the position was reached by a move that left none of
        the other side's threats standing (the search checks that before it
        goes on), so only what that move made possible needs looking at."""
        board = self.board
        mbit = 1 << (board.ply & 1)
        if self.points:
            return self.point_threats()[0]
        if not new_only:
            return board.completions(stop=mbit)
        # the answer is the position's own (all its completions), so it can
        # be kept for the next iteration's visit
        key = self.pos.key
        known = self.known.get(key)
        if known is None:
            if len(self.known) >= TABLE_LIMIT:
                self.known.clear()
            known = self.known[key] = board.completions(stop=mbit, new_only=True)
        return known

    def point_threats(self) -> tuple[list[tuple[Move, int]], list[tuple[Move, int]]]:
        """PointTrax: the scoring moves that end the game, each with the bit
        of the side it makes the winner (the mover's first, if it has one:
        then it is the list's last entry), and the moves with which the
        side to move gains points without ending the game, each with its
        gain (its points less those it gives the other side), most first."""
        board = self.board
        mover = board.turn
        mbit = 1 << (board.ply & 1)
        threats: list[tuple[Move, int]] = []
        scoring: list[tuple[Move, int]] = []
        before = board.scores
        for move, bits in board.completions():
            board.play(move)
            outcome = board.outcome()
            after = board.scores
            board.pop()
            if outcome is not None and outcome.winner is not None:
                if outcome.winner == mover:
                    return [*threats, (move, mbit)], scoring
                threats.append((move, 3 ^ mbit))
            elif bits & mbit:
                other = "black" if mover == "white" else "white"
                gain = (after[mover] - before[mover]) - (after[other] - before[other])
                if gain > 0:
                    scoring.append((move, gain))
        scoring.sort(key=lambda item: -item[1])
        return threats, scoring

    def threat_cells(self, threats: list[tuple[Move, int]]) -> list[tuple[int, int, int]]:
        """The area coordinates and tiles of the threats' moves."""
        return threat_cells(self.board, threats)

    def refuted(self, cells: list[tuple[int, int, int]], bit: int) -> bool:
        """After a move: does one of the other side's threats (``cells``,
        recorded before the move) still complete its colour?"""
        return refuted(self.board, cells, bit)

    # ------------------------------------------------------------------
    # move order

    def ordered(self, moves: list[Move], table_key: int, ply: int, threats: list[tuple[int, int, int]],
                gains: dict[Move, int] | None = None) -> list[tuple[int, int, Move]]:
        """(order score, move key, move), best first; ``gains``: PointTrax
        points a move scores, which puts it before all but the table's move."""
        x0, y0 = self.board.frame()
        killers = self.killers[ply]
        history = self.history
        out = []
        for move in moves:
            if move.is_pass:
                out.append((0, 0, move))
                continue
            x = x0 + move.column
            y = y0 + move.row
            key = cell_key(x, y, move.tile)
            score = history.get(key, 0)
            if key == table_key:
                score += 1 << 40
            elif key in killers:
                score += 1 << 36
            if threats:
                for tx, ty, _ in threats:
                    d = abs(x - tx) + abs(y - ty)
                    if d <= 2:
                        score += (3 - d) << 32
                        break
            if gains:
                gain = gains.get(move)
                if gain is not None:
                    score += (gain + 64) << 38
            out.append((score, key, move))
        out.sort(key=lambda item: -item[0])
        return out

    def _cut(self, key: int, ply: int, depth: int) -> None:
        """A move cut off: make it a killer of the ply and raise its history."""
        killers = self.killers[ply]
        if killers[0] != key:
            killers[1] = killers[0]
            killers[0] = key
        self.history[key] = self.history.get(key, 0) + depth * depth + 1

    # ------------------------------------------------------------------
    # the alpha-beta search

    def _tick(self) -> None:
        self.nodes += 1
        if self.clock() > self.deadline or self.wall_clock() > self.wall_deadline:
            raise Timeout()

    def _store(self, key: int, depth: int, flag: int, value: int, move: int, ply: int) -> None:
        table = self.table
        if len(table) >= TABLE_LIMIT:
            table.clear()
        if value >= WON:
            value += ply
        elif value <= -WON:
            value -= ply
        table[key] = (depth, flag, value, move)

    def child(self, depth: int, alpha: int, beta: int, ply: int, quiet: int, first: bool) -> int:
        """The score of a move just played, for the side that played it: the
        first move with the full window, the others with a null window and
        again with the full one when they beat ``alpha``."""
        if first:
            return -self.search(depth, -beta, -alpha, ply, quiet)
        score = -self.search(depth, -alpha - 1, -alpha, ply, quiet)
        if alpha < score < beta:
            score = -self.search(depth, -beta, -alpha, ply, quiet)
        return score

    def search(self, depth: int, alpha: int, beta: int, ply: int, quiet: int) -> int:
        """The score of the position for the side to move, searched ``depth``
        plies deep (quiescence below 0; ``quiet`` counts its plies)."""
        self._tick()
        board = self.board
        outcome = board.outcome()
        if outcome is not None:
            return terminal_score(outcome, board.turn, ply)
        key = self.pos.key
        entry = self.table.get(key)
        table_move = 0
        if entry is not None:
            stored_depth, flag, value, table_move = entry
            if stored_depth >= depth:
                if value >= WON:
                    value -= ply
                elif value <= -WON:
                    value += ply
                if flag == _EXACT or (flag == _LOWER and value >= beta) or (flag == _UPPER and value <= alpha):
                    if -WON < value < WON:
                        self.guessed = True  # it may rest on an evaluation
                    return value
        mbit = 1 << (board.ply & 1)
        scoring: list[tuple[Move, int]] = []
        if self.points:
            threats, scoring = self.point_threats()
        else:
            threats = self.threats(new_only=True)
        if threats and threats[-1][1] & mbit:
            value = WIN - ply - 1
            self._store(key, MAX_DEPTH + QUIESCENCE, _EXACT, value, 0, ply)
            return value
        best = -_INF
        alpha_start = alpha
        if depth <= 0:
            if not threats or quiet >= QUIESCENCE:
                # quiet enough to judge (PointTrax: the side to move may
                # still score, as a capture in chess)
                self.guessed = True
                value = evaluate(board)
                if threats:
                    value -= 200  # out of quiescence plies while under threat
                if not scoring or quiet >= QUIESCENCE or value >= beta:
                    self._store(key, 0, _EXACT if not scoring else _LOWER, value, 0, ply)
                    return value
                best = value
                alpha = max(alpha, value)
                moves = [move for move, _ in scoring]
            else:
                moves = board.legal_moves()  # under threat: the blocks
        else:
            moves = board.legal_moves()
        if not moves:
            return 0
        cells = self.threat_cells(threats) if threats else []
        obit = 3 ^ mbit
        # under threat: one ply more for the few real answers (not without end)
        next_depth = depth if threats and ply < 2 * self.iteration else depth - 1
        next_quiet = quiet + 1 if depth <= 0 else 0
        best_key = 0
        seen: set[int] = set()
        pos = self.pos
        lost = -(WIN - ply - 2)
        searched = 0
        check = bool(cells) and not self.points
        loops = loop_regions(board, threats, cells, obit) if check else []
        gains = dict(scoring) if scoring else None
        for _, move_key, move in self.ordered(moves, table_move, ply, cells, gains):
            if loops and cannot_block(board, move, loops):
                score = lost  # known without playing it
            else:
                pos.play(move)
                child = pos.key
                if child in seen:
                    pos.pop()
                    continue
                seen.add(child)
                if check and board.outcome() is None and self.refuted(cells, obit):
                    score = lost
                else:
                    score = self.child(next_depth, alpha, beta, ply + 1, next_quiet, searched == 0)
                pos.pop()
            searched += 1
            if score > best:
                best = score
                best_key = move_key
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if score != lost:
                            self._cut(move_key, ply, max(depth, 1))
                        break
        if best <= alpha_start:
            flag = _UPPER
        elif best >= beta:
            flag = _LOWER
        else:
            flag = _EXACT
        self._store(key, max(depth, 0), flag, best, best_key, ply)
        return best

    # ------------------------------------------------------------------
    # LuckyTrax: chance nodes

    def _faces(self) -> dict[int, list[Move]]:
        """The legal moves of the side to move, by the face they place."""
        board = self.board
        if not board.tile_count or board.reset_due:
            return {face: board.placements(face) for face in FACES}
        groups: dict[int, list[Move]] = {face: [] for face in FACES}
        for move in board.legal_moves():
            groups[move.tile].append(move)
        return groups

    def chance(self, depth: int, ply: int) -> int:
        """The expected score of a LuckyTrax position for the side to move,
        before its face is drawn."""
        self._tick()
        board = self.board
        outcome = board.outcome()
        if outcome is not None:
            return terminal_score(outcome, board.turn, ply)
        key = self.pos.key
        entry = self.table.get(key)
        if entry is not None and entry[0] >= depth:
            value = entry[2]
            if value >= WON:
                return value - ply
            if value <= -WON:
                return value + ply
            self.guessed = True
            return value
        mbit = 1 << (board.ply & 1)
        winning = {move.tile for move, bits in board.completions() if bits & mbit}
        win = WIN - ply - 1
        if depth <= 0:
            self.guessed = True
            value = (len(winning) * win + (len(FACES) - len(winning)) * evaluate(board)) // len(FACES)
            self._store(key, 0, _EXACT, value, 0, ply)
            return value
        groups = self._faces()
        pos = self.pos
        values: dict[int, int] = {}
        total = 0
        pass_value: int | None = None
        for face in FACES:
            if face in winning:
                total += win
                continue
            group = groups[face]
            if not group:
                if pass_value is None:
                    pos.play(PASS)
                    pass_value = -self.chance(depth - 1, ply + 1)
                    pos.pop()
                total += pass_value
                continue
            best = -_INF
            for _, _, move in self.ordered(group, 0, ply, [])[:LUCKY_BEAM]:
                pos.play(move)
                child = pos.key
                known = values.get(child)
                if known is None:
                    known = values[child] = -self.chance(depth - 1, ply + 1)
                pos.pop()
                if known > best:
                    best = known
            total += best
        value = total // len(FACES)
        self._store(key, depth, _EXACT, value, 0, ply)
        return value

