"""rival: an independent Trax engine to measure pbm.ai against.

It is written the way strong Trax contest programs are, and shares nothing
with :mod:`pbm.ai` but the rules engine (:class:`pbm.trax.Board`: the legal
moves, playing and taking back turns, and which turns complete a loop or a
line).  Its own parts:

Negamax alpha-beta with iterative deepening
    depth 1, 2, 3 ... within a CPU-time budget (:func:`time.process_time`);
    the root keeps the best move of the last completed iteration, or a move
    of the unfinished one that has already beaten it.  Principal-variation
    windows (a null window for every move after the first).
Transposition table
    its own Zobrist keys: a 64-bit number for every tile at every cell in
    area coordinates (:meth:`pbm.trax.Board.frame`), made by a splitmix64
    mix of the cell and the tile (no table to fill), plus one for the side
    to move; kept up to date from :meth:`pbm.trax.Board.last_tiles`.
    Entries: depth, bound, score (wins relative to the node), best move.
Move ordering
    table move, two killers per ply, a history table, and moves close to
    the cells that matter (the threatened cells, the ends of the side's own
    best shapes).
Threats
    every node asks for the turns that complete a loop or a line: its own is
    an immediate win; the other side's are threats, and only the moves that
    leave none standing (checked by :meth:`pbm.trax.Board.completes`) are
    searched -- a forced block, extended by a ply.  Two threats no move
    blocks lose at once.  At the horizon a side under threat searches its
    blocks (quiescence) before the position is judged.
Threat-space search
    at the root, before the full search: can the side to move win by making
    a threat with every move (the other side always forced to block) until
    it has two that no block stops?  A short budgeted search over attacking
    moves only, as contest programs do (a "VCF" in Gomoku terms).
The evaluation
    reads the open tracks (:meth:`pbm.trax.Board.track_ends`): *attacks*
    (tracks whose end cells are two steps apart: one move makes them a
    threat), pairs of attacks close together (one tile may make two threats
    at once), near misses (ends one step apart but blocked), farther
    shapes, and line progress (how many columns or rows a track still lacks
    to cross the formation, more when its ends reach the outermost edges);
    the side to move counts its attacks at a premium (it can use them first).

``choose(board, budget, seed)`` is the whole interface; :func:`bench.strength`
calls it with the player's budget.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from pbm.trax import Board, Move

WIN = 1_000_000
WON = WIN - 1_000
INF = WIN + 1
#: Quiescence: plies of forced blocks searched beyond the horizon.
QUIET_PLIES = 8
MAX_PLY = 64
TABLE_LIMIT = 300_000
#: The share of the budget the root's threat-space search may take.
ATTACK_SHARE = 0.2
#: How deep (attacking moves) the threat-space search looks.
ATTACK_DEPTH = 4

EXACT, LOWER, UPPER = 0, 1, 2
MASK = (1 << 64) - 1
SIDE = 0x9E3779B97F4A7C15

# evaluation weights
ATTACK = 40           # a track with end cells two steps apart
ATTACK_PAIR = 60      # two attacks of one colour within reach of one tile
NEAR = 12             # end cells one step apart (blocked: no threat now)
FAR = (0, 0, 0, 14, 5, 2)  # by steps between end cells (3, 4, 5)
LINE_NEED = (0, 90, 40, 18, 7, 3)  # by columns still missing to cross
TEMPO_ATTACK = 35     # the side to move can turn one attack into a threat now


class OutOfTime(Exception):
    """The budget is spent."""


_ZOBRIST: dict[tuple[int, int, int], int] = {}


def zobrist(x: int, y: int, tile: int) -> int:
    """The key of ``tile`` at area coordinates (x, y): a splitmix64 mix."""
    found = _ZOBRIST.get((x, y, tile))
    if found is None:
        z = ((x & 0xFFFFF) << 28 | (y & 0xFFFFF) << 8 | tile) + 0x9E3779B97F4A7C15 & MASK
        z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9 & MASK
        z = (z ^ z >> 27) * 0x94D049BB133111EB & MASK
        found = _ZOBRIST[(x, y, tile)] = z ^ z >> 31
    return found


class Rival:
    """One search of one position (the board is played on and restored)."""

    def __init__(self, board: Board, deadline: float, seed: int | None = None,
                 clock: Callable[[], float] = time.process_time) -> None:
        self.board = board
        self.deadline = deadline
        self.clock = clock
        self.rng = random.Random(seed)
        self.nodes = 0
        self.table: dict[int, tuple[int, int, int, int]] = {}
        self.comps: dict[int, list[tuple[Move, int]]] = {}
        self.killers = [[0, 0] for _ in range(MAX_PLY + QUIET_PLIES + 4)]
        self.history: dict[int, int] = {}
        self.lines = board.variant.lines_win
        self.span = board.variant.max_size or 8  # the columns a line crosses
        x0, y0 = board.frame()
        key = SIDE if board.ply & 1 else 0
        for column, row, tile in board.cells():
            key ^= zobrist(x0 + column, y0 + row, tile)
        self.keys = [key]

    # ------------------------------------------------------------------
    # playing on the board with the key kept in step

    @property
    def key(self) -> int:
        return self.keys[-1]

    def play(self, move: Move) -> None:
        board = self.board
        board.play(move)
        key = self.keys[-1] ^ SIDE
        for x, y, tile in board.last_tiles():
            key ^= zobrist(x, y, tile)
        self.keys.append(key)

    def pop(self) -> None:
        self.board.pop()
        self.keys.pop()

    def move_key(self, move: Move) -> int:
        x0, y0 = self.board.frame()
        return ((x0 + move.column) & 0xFFFF) << 20 | ((y0 + move.row) & 0xFFFF) << 4 | move.tile

    def completions(self, fresh: bool) -> list[tuple[Move, int]]:
        """The turns completing a loop or a line here (all of them; only the
        new ones are looked for when the caller knows the old ones are gone)."""
        key = self.key
        found = self.comps.get(key)
        if found is None:
            if len(self.comps) > TABLE_LIMIT:
                self.comps.clear()
            found = self.comps[key] = self.board.completions(new_only=fresh)
        return found

    def tick(self) -> None:
        self.nodes += 1
        if self.clock() > self.deadline:
            raise OutOfTime

    # ------------------------------------------------------------------
    # the evaluation

    def evaluate(self) -> int:
        """A quiet position (no completion for either side) for the side to move."""
        board = self.board
        ends = board.track_ends()
        attacks: list[list[tuple[int, int, int, int]]] = [[], []]
        value = [0, 0]
        lines = self.lines
        if lines:
            x0, y0 = board.frame()
            left, top = x0, y0
            right, bottom = x0 + board.width + 1, y0 + board.height + 1
            span = self.span
        for colour, x1, y1, x2, y2 in ends:
            dx = abs(x1 - x2)
            dy = abs(y1 - y2)
            d = dx + dy
            if d == 2:
                attacks[colour].append((x1, y1, x2, y2))
            elif d == 1:
                value[colour] += NEAR
            elif d < len(FAR):
                value[colour] += FAR[d]
            if lines:
                # a line needs tiles in ``span`` columns (or rows): the
                # track's end cells lie outside dx - 1 of them; an end on the
                # formation's outermost edge can still run out to it
                if dx >= dy:
                    need = span + 1 - dx
                    edges = (x1 in (left, right)) + (x2 in (left, right))
                else:
                    need = span + 1 - dy
                    edges = (y1 in (top, bottom)) + (y2 in (top, bottom))
                if 0 < need < len(LINE_NEED):
                    value[colour] += LINE_NEED[need] * (1 + edges) // 3
        for colour in (0, 1):
            shapes = attacks[colour]
            value[colour] += ATTACK * len(shapes)
            # two attacks whose cells one tile (and its forced tiles) may reach
            for i in range(len(shapes)):
                ax1, ay1, ax2, ay2 = shapes[i]
                for j in range(i + 1, len(shapes)):
                    bx1, by1, bx2, by2 = shapes[j]
                    near = min(abs(ax1 - bx1) + abs(ay1 - by1), abs(ax1 - bx2) + abs(ay1 - by2),
                               abs(ax2 - bx1) + abs(ay2 - by1), abs(ax2 - bx2) + abs(ay2 - by2))
                    if near <= 2:
                        value[colour] += ATTACK_PAIR
        me = board.ply & 1
        score = value[me] - value[1 - me]
        if attacks[me]:
            score += TEMPO_ATTACK
        return score

    # ------------------------------------------------------------------
    # the search

    def blocks(self, moves: list[Move], threats: list[tuple[int, int, int]], obit: int) -> list[Move]:
        """The moves after which none of ``threats`` (area x, y, tile) completes
        the other side's colour."""
        out = []
        board = self.board
        for move in moves:
            board.play(move)
            if not self.standing(threats, obit):
                out.append(move)
            board.pop()
        return out

    def order(self, moves: list[Move], table_move: int, ply: int,
              focus: list[tuple[int, int]]) -> list[tuple[int, Move]]:
        x0, y0 = self.board.frame()
        killers = self.killers[ply]
        history = self.history
        scored = []
        for move in moves:
            x, y = x0 + move.column, y0 + move.row
            mk = (x & 0xFFFF) << 20 | (y & 0xFFFF) << 4 | move.tile
            s = history.get(mk, 0)
            if mk == table_move:
                s += 1 << 50
            elif mk == killers[0]:
                s += 1 << 46
            elif mk == killers[1]:
                s += 1 << 45
            for fx, fy in focus:
                d = abs(x - fx) + abs(y - fy)
                if d <= 2:
                    s += (3 - d) << 40
                    break
            scored.append((s, mk, move))
        scored.sort(key=lambda item: -item[0])
        return [(mk, move) for _, mk, move in scored]

    def focus(self) -> list[tuple[int, int]]:
        """Cells worth trying first in a quiet position: the end cells of
        each side's closest tracks."""
        ends = sorted(self.board.track_ends(), key=lambda e: abs(e[1] - e[3]) + abs(e[2] - e[4]))
        out = []
        for _, x1, y1, x2, y2 in ends[:4]:
            out.append((x1, y1))
            out.append((x2, y2))
        return out

    def search(self, depth: int, alpha: int, beta: int, ply: int, fresh: bool, quiet: int) -> int:
        self.tick()
        board = self.board
        outcome = board.outcome()
        if outcome is not None:
            if outcome.winner is None:
                return 0
            return WIN - ply if outcome.winner == board.turn else -(WIN - ply)
        key = self.key
        entry = self.table.get(key)
        table_move = 0
        if entry is not None:
            e_depth, flag, value, table_move = entry
            if e_depth >= depth:
                if value >= WON:
                    value -= ply
                elif value <= -WON:
                    value += ply
                if flag == EXACT or (flag == LOWER and value >= beta) or (flag == UPPER and value <= alpha):
                    return value
        mbit = 1 << (board.ply & 1)
        obit = 3 ^ mbit
        comps = self.completions(fresh)
        threats = []
        for move, bits in comps:
            if bits & mbit:
                return WIN - ply - 1
            threats.append(move)
        if depth <= 0:
            if not threats:
                value = self.evaluate()
                self.store(key, 0, EXACT, value, 0, ply)
                return value
            if quiet >= QUIET_PLIES:
                return self.evaluate() - 300
        moves = board.legal_moves()
        if not moves:
            return 0
        cells: list[tuple[int, int, int]] = []
        if threats:
            x0, y0 = board.frame()
            cells = [(x0 + m.column, y0 + m.row, m.tile) for m in threats]
            focus = [(x, y) for x, y, _ in cells]
            next_depth = depth if ply < 3 * max(depth, 1) + 8 else depth - 1
        else:
            focus = self.focus() if depth >= 2 else []
            next_depth = depth - 1
        next_quiet = quiet + 1 if depth <= 0 else 0
        best = -INF
        best_key = 0
        start_alpha = alpha
        seen: set[int] = set()
        first = True
        for mk, move in self.order(moves, table_move, ply, focus):
            self.play(move)
            child = self.key
            if child in seen:
                self.pop()
                continue
            seen.add(child)
            if cells and self.standing(cells, obit):
                # a move that leaves a threat standing loses at once: not
                # searched (checked here, where the move is played anyway)
                self.pop()
                continue
            try:
                if first:
                    score = -self.search(next_depth, -beta, -alpha, ply + 1, True, next_quiet)
                else:
                    score = -self.search(next_depth, -alpha - 1, -alpha, ply + 1, True, next_quiet)
                    if alpha < score < beta:
                        score = -self.search(next_depth, -beta, -alpha, ply + 1, True, next_quiet)
            finally:
                self.pop()
            first = False
            if score > best:
                best = score
                best_key = mk
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        self.cut(mk, ply, depth)
                        break
        if first:  # every move left a threat standing (two threats no tile blocks)
            value = -(WIN - ply - 2)
            self.store(key, MAX_PLY, EXACT, value, 0, ply)
            return value
        flag = UPPER if best <= start_alpha else LOWER if best >= beta else EXACT
        self.store(key, max(depth, 0), flag, best, best_key, ply)
        return best

    def standing(self, cells: list[tuple[int, int, int]], obit: int) -> bool:
        """Does one of the threats at ``cells`` (area x, y, tile) still complete
        the colour ``obit`` after the move just played?"""
        board = self.board
        outcome = board.outcome()
        if outcome is not None:  # the move closed a track: whose?
            return outcome.winner == ("white" if obit == 1 else "black")
        completes = board.completes
        for x, y, tile in cells:
            bits = completes(x, y, tile)
            if bits is not None and bits & obit:
                return True
        return False

    def cut(self, mk: int, ply: int, depth: int) -> None:
        """The move ``mk`` cut off at ``ply``: a killer there, and its history up."""
        killers = self.killers[ply]
        if killers[0] != mk:
            killers[1] = killers[0]
            killers[0] = mk
        self.history[mk] = self.history.get(mk, 0) + depth * depth + 1

    def store(self, key: int, depth: int, flag: int, value: int, move: int, ply: int) -> None:
        table = self.table
        if len(table) >= TABLE_LIMIT:
            table.clear()
        if value >= WON:
            value += ply
        elif value <= -WON:
            value -= ply
        table[key] = (depth, flag, value, move)

    # ------------------------------------------------------------------
    # threat-space search: win by threats alone

    def attack(self, depth: int, ply: int) -> Move | None:
        """A move of the side to move that wins by threats alone (each of its
        moves makes a threat, each answer is forced), looking ``depth``
        attacking moves ahead; None if it finds none.  Sound: a win is
        claimed only when every answer of the other side loses."""
        self.tick()
        board = self.board
        mbit = 1 << (board.ply & 1)
        obit = 3 ^ mbit
        attacker = board.turn
        comps = self.completions(ply > 0)
        for move, bits in comps:
            if bits & mbit:
                return move
        if comps or depth <= 0:
            return None  # under threat: not a position to attack from
        for move in self.attacking_moves():
            self.play(move)
            try:
                outcome = board.outcome()
                if outcome is not None:
                    if outcome.winner == attacker:
                        return move
                    continue
                replies = self.completions(True)
                mine = [(m, b) for m, b in replies if b & mbit]
                if not mine or any(b & obit for _, b in replies):
                    continue  # no threat made, or the other side wins first
                x0, y0 = board.frame()
                cells = [(x0 + m.column, y0 + m.row, m.tile) for m, _ in mine]
                answers = self.blocks(board.legal_moves(), cells, mbit)
                won = True
                for answer in answers:
                    self.play(answer)
                    try:
                        ended = board.outcome()
                        if ended is not None:
                            won = ended.winner == attacker  # an answer that closes our track
                        elif self.attack(depth - 1, ply + 2) is None:
                            won = False
                    finally:
                        self.pop()
                    if not won:
                        break
                if won:
                    return move
            finally:
                self.pop()
        return None

    def attacking_moves(self) -> list[Move]:
        """Moves that may make a threat for the side to move: those within two
        steps of an end of its tracks that come close to a loop or a line."""
        board = self.board
        me = board.ply & 1
        spots = []
        x0, y0 = board.frame()
        width, height = board.width, board.height
        for colour, x1, y1, x2, y2 in board.track_ends():
            if colour != me:
                continue
            d = abs(x1 - x2) + abs(y1 - y2)
            liney = self.lines and (abs(x1 - x2) >= 5 or abs(y1 - y2) >= 5 or width >= 6 or height >= 6)
            if d <= 4 or liney:
                spots.append((x1, y1))
                spots.append((x2, y2))
        if not spots:
            return []
        out = []
        for move in board.legal_moves():
            x, y = x0 + move.column, y0 + move.row
            for sx, sy in spots:
                if abs(x - sx) + abs(y - sy) <= 2:
                    out.append(move)
                    break
        return out

    # ------------------------------------------------------------------
    # the root

    def run(self, budget: float, start: float, max_depth: int = MAX_PLY) -> tuple[Move, int, int]:
        """(move, score, depth completed) by iterative deepening."""
        board = self.board
        moves = board.legal_moves()
        if len(moves) == 1:
            return moves[0], 0, 0
        mbit = 1 << (board.ply & 1)
        obit = 3 ^ mbit
        comps = board.completions()
        for move, bits in comps:
            if bits & mbit:
                return move, WIN - 1, 1
        self.comps[self.key] = comps
        threats = [m for m, _ in comps]
        if threats:
            x0, y0 = board.frame()
            cells = [(x0 + m.column, y0 + m.row, m.tile) for m in threats]
            safe = self.blocks(moves, cells, obit)
            if not safe:
                return moves[0], -(WIN - 2), 1
            if len(safe) == 1:
                return safe[0], 0, 0
            moves = safe
        else:
            saved = self.deadline
            self.deadline = min(saved, start + budget * ATTACK_SHARE)
            try:
                for depth in range(1, ATTACK_DEPTH + 1):
                    found = self.attack(depth, 0)
                    if found is not None:
                        return found, WON, depth
            except OutOfTime:
                while len(self.keys) > 1:
                    self.pop()
            finally:
                self.deadline = saved
        self.rng.shuffle(moves)
        order = [move for _, move in self.order(moves, 0, 0, self.focus())]
        best, best_score, done = order[0], 0, 0
        for depth in range(1, max_depth + 1):
            try:
                scored = self.root(order, depth)
            except OutOfTime as stop:
                while len(self.keys) > 1:
                    self.pop()
                if stop.args and stop.args[0] is not None:
                    best, best_score = stop.args[0]
                break
            scored.sort(key=lambda item: -item[0])
            order = [move for _, move in scored]
            best_score, best = scored[0]
            done = depth
            if abs(best_score) >= WON:
                break
            if self.clock() - start > budget * 0.45:
                break
        return best, best_score, done

    def root(self, order: list[Move], depth: int) -> list[tuple[int, Move]]:
        alpha = -INF
        best: Move | None = None
        scored: list[tuple[int, Move]] = []
        seen: set[int] = set()
        for move in order:
            self.play(move)
            key = self.key
            if key in seen:
                self.pop()
                continue
            seen.add(key)
            try:
                if best is None:
                    score = -self.search(depth - 1, -INF, INF, 1, True, 0)
                else:
                    score = -self.search(depth - 1, -alpha - 1, -alpha, 1, True, 0)
                    if score > alpha:
                        score = -self.search(depth - 1, -INF, -alpha, 1, True, 0)
            except OutOfTime:
                self.pop()
                raise OutOfTime((best, alpha) if best is not None else None) from None
            self.pop()
            scored.append((score, move))
            if best is None or score > alpha:
                alpha = score
                best = move
        return scored


def choose(board: Board, budget: float, seed: int | None = None,
           clock: Callable[[], float] = time.process_time) -> Move:
    """The rival's move in ``board``'s position within ``budget`` CPU seconds."""
    start = clock()
    deadline = start + max(budget - 0.02, budget * 0.5)
    move, _, _ = Rival(board, deadline, seed=seed, clock=clock).run(budget, start)
    return move
