"""The threat search: forced wins through threats only, several turns deep.

A *threat* is a move after which its player could complete a loop or a line
with the next one.  The other side must answer it (block every such
completion) or lose at once, so a line of play in which every move of the
attacker threatens has few branches: the attacker tries only its moves that
make a threat (and that block the defender's own threats, when it has any),
the defender every move that leaves none of the attacker's threats standing.
A move that makes two threats no single tile blocks (a *double threat*) wins
one turn later; so does a threat every answer to which allows a new one that
wins, and so on.  This is what gomoku programs call a VCF (victory by
continuous fours) or threat-space search.

It proves wins, never guesses: the defender's side is searched in full (a
move that cannot block a loop threat by where its tiles go is known to lose
without being played, see :func:`loop_regions`), so a win it reports holds
against every defence.  It may miss wins: the attacker looks only at its
threats, and gives up past a number of moves.

:class:`ThreatSearch` works on a :class:`~.zobrist.Position`; its ``tick``
is called at every node (the main search's, which counts nodes and raises
:class:`~.search.Timeout` when the time is up).  It is used in Trax, 8x8
Trax and LoopTrax; LuckyTrax (nobody knows the next tile) and PointTrax (a
completed track scores instead of winning) have no forced wins of this kind.
"""

from __future__ import annotations

from collections.abc import Callable

from pbm.trax import Board, Move

from .zobrist import Position

#: The most attacker moves of a threat sequence looked for (the last one
#: completes the track): 5 moves are 9 plies.
MOST_MOVES = 5
#: The attacker's moves tried lie within NEAR cells of an end of one of its
#: tracks whose ends are at most LOOP_SPAN cells apart, or (where lines win)
#: at least LINE_SPAN columns or rows apart.
NEAR = 2
LOOP_SPAN = 6
LINE_SPAN = 5


def threat_cells(board: Board, threats: list[tuple[Move, int]]) -> list[tuple[int, int, int]]:
    """The area coordinates and tiles of the threats' moves."""
    x0, y0 = board.frame()
    return [(x0 + move.column, y0 + move.row, move.tile) for move, _ in threats]


def refuted(board: Board, cells: list[tuple[int, int, int]], bit: int) -> bool:
    """After a move: does one of the other side's threats (``cells``,
    recorded before the move) still complete its colour ``bit``?"""
    completes = board.completes
    for x, y, tile in cells:
        bits = completes(x, y, tile)
        if bits is not None and bits & bit:
            return True
    return False


def loop_regions(board: Board, threats: list[tuple[Move, int]], cells: list[tuple[int, int, int]],
                 bit: int) -> list[list[tuple[int, int]]]:
    """The cells each loop threat of colour ``bit`` would fill
    (:meth:`pbm.trax.Board.loop_cells`): a move whose tiles all lie more than
    two cells from those of one of them leaves that threat standing.  Empty
    in a limited area and in PointTrax."""
    regions = []
    loop_cells = board.loop_cells
    for (_, bits), (x, y, tile) in zip(threats, cells, strict=True):
        if bits & bit:
            found = loop_cells(x, y, tile)
            if found is not None and found[0] & bit:
                regions.append(found[1])
    return regions


def cannot_block(board: Board, move: Move, regions: list[list[tuple[int, int]]]) -> bool:
    """Does ``move`` leave one of the loop threats of ``regions`` (see
    :func:`loop_regions`) standing, for certain, by where its tiles go (no
    farther than :meth:`pbm.trax.Board.turn_reach` from its cell)?"""
    if move.is_pass:
        return False
    x0, y0 = board.frame()
    mx = x0 + move.column
    my = y0 + move.row
    near = board.turn_reach(move) + 2
    for region in regions:
        for cx, cy in region:
            if (mx - cx if mx > cx else cx - mx) + (my - cy if my > cy else cy - my) <= near:
                break
        else:
            return True
    return False


class ThreatSearch:
    """Looks for a forced win of the side to move by threats only.

    ``tick`` is called at every node (it may raise to stop the search);
    what was proven and refuted is kept by position key between calls, so
    that :meth:`win` may be asked again with more moves."""

    def __init__(self, pos: Position, tick: Callable[[], None]) -> None:
        self.pos = pos
        self.board = pos.board
        self.tick = tick
        self.won: dict[int, tuple[int, Move]] = {}  # attacker to move: (moves, the winning move)
        self.failed: dict[int, int] = {}  # attacker to move: no win found within this many moves
        self.held: dict[int, int] = {}  # defender to move: holds against this many moves

    def win(self, moves: int) -> tuple[Move, int] | None:
        """A move of the side to move that wins by force within ``moves`` of
        its moves (the last completing its track), and the plies to the
        win, or None when no such sequence of threats is found."""
        board = self.board
        if board.outcome() is not None or board.variant.drawn or board.points is not None:
            return None
        found = board.completions(stop=1 << (board.ply & 1))
        for n in range(1, moves + 1):
            move = self.attack(n, found)
            if move is not None:
                return move, 2 * n - 1
        return None

    def attack(self, n: int, found: list[tuple[Move, int]]) -> Move | None:
        """The attacker (the side to move) with ``n`` moves left, ``found``
        the position's completions (all of them, or ending with the
        mover's first): its winning move, or None."""
        self.tick()
        board = self.board
        mbit = 1 << (board.ply & 1)
        obit = 3 ^ mbit
        if found and found[-1][1] & mbit:
            return found[-1][0]
        if n <= 1:
            return None
        pos = self.pos
        key = pos.key
        known = self.won.get(key)
        if known is not None and known[0] <= n:
            return known[1]
        if self.failed.get(key, 0) >= n:
            return None
        cells = threat_cells(board, found)  # the defender's threats: every one must be blocked
        regions = loop_regions(board, found, cells, obit) if cells else []
        seen: set[int] = set()
        threats: list[tuple[int, int, Move, list[tuple[Move, int]]]] = []
        for order, move in enumerate(self.candidates(board.ply & 1)):
            if regions and cannot_block(board, move, regions):
                continue
            self.tick()  # every move played counts (a large position has many)
            pos.play(move)
            try:
                child = pos.key
                if child in seen:
                    continue
                seen.add(child)
                outcome = board.outcome()
                if outcome is not None:
                    if outcome.winner is not None and outcome.winner != board.turn:
                        self.won[key] = (n, move)
                        return move
                    continue
                if cells and refuted(board, cells, obit):
                    continue
                after = board.completions(stop=obit, new_only=True)
                if not after or after[-1][1] & obit:
                    continue  # no threat, or the defender wins at once
                # more threats (in more cells) leave fewer answers: those first
                threats.append((-len({(m.column, m.row) for m, _ in after}), order, move, after))
            finally:
                pos.pop()
        threats.sort(key=lambda item: item[:2])
        for _, _, move, after in threats:
            pos.play(move)
            try:
                if self.defend(n - 1, after):
                    self.won[key] = (n, move)
                    return move
            finally:
                pos.pop()
        self.failed[key] = n
        return None

    def candidates(self, colour: int) -> list[Move]:
        """The attacker's moves that may make a threat: those whose cell lies
        near an end of one of its tracks whose two ends are close (a loop in
        the making) or, where lines win, far apart across the formation (a
        line in the making).  A guess that keeps the search small; a threat
        elsewhere is missed, never a defence."""
        board = self.board
        x0, y0 = board.frame()
        ends: list[tuple[int, int]] = []
        lines = board.variant.lines_win
        for c, x1, y1, x2, y2 in board.track_ends():
            if c != colour:
                continue
            dx = x1 - x2 if x1 > x2 else x2 - x1
            dy = y1 - y2 if y1 > y2 else y2 - y1
            if dx + dy <= LOOP_SPAN or (lines and max(dx, dy) >= LINE_SPAN):
                ends.append((x1, y1))
                ends.append((x2, y2))
        out = []
        for move in board.legal_moves():
            mx = x0 + move.column
            my = y0 + move.row
            for ex, ey in ends:
                if (mx - ex if mx > ex else ex - mx) + (my - ey if my > ey else ey - my) <= NEAR:
                    out.append(move)
                    break
        return out

    def defend(self, n: int, threats: list[tuple[Move, int]]) -> bool:
        """The defender (the side to move) against ``threats`` (the
        attacker's completions, all of them), the attacker with ``n`` moves
        left: does every answer lose?"""
        self.tick()
        board = self.board
        pos = self.pos
        key = pos.key
        if self.held.get(key, 0) >= n:
            return False
        mbit = 1 << (board.ply & 1)
        abit = 3 ^ mbit
        cells = threat_cells(board, threats)
        regions = loop_regions(board, threats, cells, abit)
        seen: set[int] = set()
        x0, y0 = board.frame()
        moves = []
        for move in board.legal_moves():
            if regions and cannot_block(board, move, regions):
                continue  # it leaves a loop threat standing
            mx = x0 + move.column
            my = y0 + move.row
            moves.append((min(abs(mx - x) + abs(my - y) for x, y, _ in cells), move))
        moves.sort(key=lambda item: item[0])  # the answers near the threats first: they hold
        for _, move in moves:
            self.tick()
            pos.play(move)
            try:
                child = pos.key
                if child in seen:
                    continue
                seen.add(child)
                outcome = board.outcome()
                if outcome is not None:
                    if outcome.winner is not None and outcome.winner == board.turn:
                        continue  # it completed the attacker's track
                    self.held[key] = n
                    return False
                if refuted(board, cells, abit):
                    continue
                # a real answer: the attacker to move again (with one move
                # left, it is taken to hold: that it gave the attacker a new
                # win in one is not looked for)
                if n <= 1 or self.attack(n, board.completions(stop=abit, new_only=True)) is None:
                    self.held[key] = n
                    return False
            finally:
                pos.pop()
        return True
