"""The Trax board: the public :class:`Board`, built in layers.

As python-chess builds its ``Board`` on a ``BaseBoard`` that holds only the
placement, :class:`Board` is built on layers that each hold one concern and
know nothing of the layers above them:

=================  ====================  ====================================
module             class                 what it holds
=================  ====================  ====================================
:mod:`.position`   :class:`Position`     the tiles, the grid, the track ends,
                                         the frontier, the record of turns;
                                         placing a tile and taking it back
:mod:`.reading`    :class:`Reading`      a move's notation read against the
                                         position: which cell, which tile
:mod:`.legality`   :class:`Legality`     which turns are legal: forced
                                         chains, the answers kept per cell
:mod:`.rules`      :class:`Rules`        the game type and options, forced
                                         plays, wins, the outcome, the
                                         endings, legal moves, PointTrax
:mod:`.analysis`   :class:`Analysis`     for a search: completions, track
                                         ends; the counting check
:mod:`.board`      :class:`Board`        playing and taking back turns,
                                         making boards from move lists
=================  ====================  ====================================

What boards learn (the legality answers) and the Move objects they hand out
are kept in a :class:`~.knowledge.Knowledge` that each board holds, shared
by the boards made from one another (:meth:`Board.copy`, :meth:`Board.after`)
or passed by the caller (``Board(..., knowledge=)``); nothing is kept at
module level.

Speed matters (the server replays games, the search plays and takes back
many thousands of turns): a turn costs the tiles it places, never a scan of
the board or a walk along a track, and the undo log keeps 16 bytes a turn;
see each layer's notes.  What a mail shows about the last turn
(:meth:`Board.last_turn`) and the track that won (:meth:`Board.winning_track`)
is worked out when asked, once per mail, and nothing of it touches
:meth:`Board.play` or :meth:`Board.pop`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

from .analysis import Analysis
from .errors import IllegalMoveError, NotationError, TraxError
from .knowledge import Knowledge
from .legality import Legality
from .moves import PASS, PASS_SYMBOL, LastTurn, Move, Scored, WinningTrack
from .notation import PASS_WORD, NewNotation, OldNotation, parse_notation
from .outcome import Outcome
from .position import COORD_MASK, FIRST, GREW_DOWN, GREW_RIGHT, NATIVE, ORIGIN_X, ORIGIN_Y, PASSED, RECORD, Position
from .reading import Reading
from .render import render
from .rules import Extra, Rules
from .tiles import BLACK, FIT_TILES, STRIDE, TILE_FOR, WHITE
from .variants import Variant

__all__ = (
    "PASS",
    "PASS_SYMBOL",
    "Analysis",
    "Board",
    "Fingerprint",
    "LastTurn",
    "Legality",
    "Move",
    "Position",
    "Reading",
    "Rules",
    "Scored",
    "WinningTrack",
)

#: What :meth:`Board.fingerprint` returns: tiles, path ends, frontier keys,
#: bounding box, outcome, number of moves, and the scores, the plies after
#: which the area was cleared and whether a reset is due (PointTrax; zeros,
#: ``()`` and False elsewhere).
Fingerprint: TypeAlias = tuple[
    frozenset[tuple[int, int, int]],
    frozenset[tuple[int, int]],
    frozenset[tuple[int, int]],
    tuple[int, int, int, int],
    Outcome | None,
    int,
    tuple[int, int],
    tuple[int, ...],
    bool,
]


class Board(Analysis):
    """A Trax position with its move history.

    ``Board(variant="trax", *, ending=None, points=None, knowledge=None)``:
    ``variant`` is the game type (see :mod:`.variants`); ``ending`` (a
    limited area) and ``points`` (PointTrax) are the board's own rules,
    ``None`` for the game type's default (see :class:`~.rules.Rules`);
    ``knowledge`` the :class:`~.knowledge.Knowledge` it shares, a new one
    when left out.

    >>> b = Board()
    >>> str(b.play("@0/"))
    '@0/'
    >>> b.tile_count
    1
    """

    __slots__ = ()

    # ------------------------------------------------------------------
    # construction

    @classmethod
    def replay(cls, moves: Iterable[str | Move], variant: str | Variant = "trax", *,
               ending: str | None = None, points: int | None = None, knowledge: Knowledge | None = None) -> Board:
        """A board with ``moves`` played in order (either notation, and
        ``pass`` in LuckyTrax), with the options of :class:`Board`.  A move
        refused is refused as the board refused it, with the move's number
        and text added to its params (``number`` and ``given``)."""
        board = cls(variant, ending=ending, points=points, knowledge=knowledge)
        for number, move in enumerate(moves, start=1):
            try:
                board._play(move)
            except TraxError as exc:
                raise type(exc)(exc.code, {**exc.params, "number": number, "given": str(move)}) from None
        return board

    def copy(self) -> Board:
        """An independent board with the same moves and options, sharing
        this one's knowledge."""
        return Board.replay(self.moves, self.variant, ending=self._ending, points=self._points,
                            knowledge=self._knowledge)

    def after(self, n: int) -> Board:
        """The position as it stood after move ``n`` (0 = the empty board),
        with the same options and knowledge."""
        if not 0 <= n <= self._ply:
            raise ValueError(f"there is no move {n}; this game has {self._ply} moves")
        return Board.replay(self.moves[:n], self.variant, ending=self._ending, points=self._points,
                            knowledge=self._knowledge)

    # ------------------------------------------------------------------
    # reading a move

    def parse_move(self, text: str | Move) -> Move:
        """Resolve a move (new or old notation, or a :class:`Move`) in this
        position without playing it.  Raises :class:`NotationError` or
        :class:`IllegalMoveError`; the whole turn is not checked here.

        ``pass`` (or :data:`PASS`) resolves to :data:`PASS` in LuckyTrax and
        is an :class:`IllegalMoveError` elsewhere.  When a PointTrax reset is
        due the move is read against the fresh, empty area."""
        cell, tile = self._read(text)
        if not tile:
            return PASS
        if self._reset_due:
            return self._knowledge.move(0, 0, tile)  # the first tile of the fresh area
        return self._move_for(cell, tile)

    def _read(self, text: str | Move) -> tuple[int, int]:
        """The cell and tile a move resolves to (tile 0 for a pass); when a
        PointTrax reset is due, in the fresh, empty area."""
        if self._reset_due:
            saved = self._clear_area()
            self._reset_due = False
            try:
                return self._read(text)
            finally:
                self._restore_area(saved)
                self._reset_due = True
        if isinstance(text, Move):
            if text.symbol == PASS_SYMBOL:
                return self._pass()
            spec: NewNotation | OldNotation = NewNotation(text.column, text.row, text.symbol)
        else:
            try:
                spec = parse_notation(text)
            except NotationError:
                if isinstance(text, str) and text.strip().lower() == PASS_WORD:
                    return self._pass()
                raise
        if isinstance(spec, NewNotation):
            return self._resolve_new(spec)
        return self._resolve_old(spec)

    def _pass(self) -> tuple[int, int]:
        """A pass read: no cell, no tile (LuckyTrax only)."""
        if not self.variant.drawn:
            raise IllegalMoveError("no-pass", {"variant": self.variant.name, "title": self.variant.title})
        return 0, 0

    # ------------------------------------------------------------------
    # playing and taking back

    def play(self, move: str | Move) -> Move:
        """Play one turn: the chosen tile and every tile it forces.

        Accepts either notation or a :class:`Move`; returns the move as
        recorded (canonical new notation).  On any error the board is left
        exactly as it was.

        In LuckyTrax ``"pass"`` (or :data:`PASS`) is a turn that places
        nothing: the other side is to move.  The engine does not know the
        tile drawn, so it accepts a pass whenever the game goes on; the
        server passes for a player whose drawn face has no
        :meth:`placements`.  In PointTrax, when a reset is due the move is
        the first move of a fresh area (``@0+`` or ``@0/``).
        """
        played = self._play(move)
        return self._last_move() if played is None else played

    def _play(self, move: str | Move) -> Move | None:
        """:meth:`play`, returning the move played when it was at hand (a
        Move given), else None: a replay makes no Move object per move."""
        if self._outcome is not None or (self._ending is not None and self.outcome() is not None):
            raise IllegalMoveError("game-over")
        if self._special:
            return self._play_special(move)
        # A Move that names a frontier cell and a symbol that fits there (a
        # move from legal_moves, say) needs no parsing.
        if type(move) is Move and self._tiles:
            column = move.column
            row = move.row
            if 0 <= column <= self._maxx - self._minx + 2 and 0 <= row <= self._maxy - self._miny + 2:
                cell = (self._miny - 1 + row) * STRIDE + self._minx - 1 + column
                key = self._keys.get(cell)
                if key is not None:
                    tile = TILE_FOR[key].get(move.symbol)
                    if tile is not None:
                        resolved = move if move.tile == tile else self._knowledge.move(column, row, tile)
                        loops, links = self._play_tile(cell, tile, resolved)
                        if loops or links:
                            self._settle_wins(loops, links)
                        return resolved
        cell, tile = self._read(move)
        loops, links = self._play_tile(cell, tile, None)
        if loops or links:
            self._settle_wins(loops, links)
        return None

    def _play_special(self, move: str | Move) -> Move | None:
        """:meth:`_play` in LuckyTrax and PointTrax: passes, scores and the
        fresh areas, each logged with the turn for :meth:`pop`."""
        cell, tile = self._read(move)
        extra = Extra((self._scores[WHITE], self._scores[BLACK]), self._reset_due, len(self._areas))
        if not tile:
            self._extras[self._ply] = extra
            self._record(PASSED << 4, 0, PASS)
            return PASS
        if self._reset_due:
            extra.area = self._clear_area()
            self._reset_due = False
        try:
            loops, links = self._play_tile(cell, tile, None)
        except TraxError:
            if extra.area is not None:
                self._restore_area(extra.area)
                self._reset_due = True
            raise
        self._extras[self._ply - 1] = extra
        if self._points is not None:
            if loops or links:
                self._score(extra, loops, links)
        elif loops or links:
            self._settle_wins(loops, links)
        return None

    def pop(self) -> Move:
        """Take back the last turn (chosen and forced tiles, or a pass) and
        all it changed (a PointTrax score, a cleared area, a fresh one: the
        old area comes back exactly); return its move."""
        if not self._ply:
            raise IllegalMoveError("nothing-to-undo")
        log = self._log
        code = int.from_bytes(log[-16:-8], NATIVE)
        count = int.from_bytes(log[-8:], NATIVE)
        del log[-RECORD:]
        self._ply -= 1
        self._version += 1
        if self._movelist is not None:
            self._movelist.pop()
        if count:
            removed = self._unrun(count)
            flags = code >> 4 & 15
            if flags & FIRST:
                self._minx = self._maxx = self._miny = self._maxy = 0
            else:
                # the chosen tile (placed first, taken back last) grew the
                # box by at most one step each way: column 0 or row 0 grew
                # it left or up, the flags say right or down
                y, x = divmod(removed[-1], STRIDE)
                if not code >> 30 & COORD_MASK:
                    self._minx = x + 1
                elif flags & GREW_RIGHT:
                    self._maxx = x - 1
                if not code >> 8 & COORD_MASK:
                    self._miny = y + 1
                elif flags & GREW_DOWN:
                    self._maxy = y - 1
            if self._legal:
                self._forget_near(removed)
        self._outcome = None
        if self._special:
            extra = self._extras.pop(self._ply)
            if extra.area is not None:
                self._restore_area(extra.area)
            self._scores[:] = extra.scores
            self._reset_due = extra.reset_due
            del self._areas[extra.areas:]
        return self._recorded(code)

    # ------------------------------------------------------------------
    # for a search: the turns that cannot stop a loop

    def loop_cells(self, x: int, y: int, tile: int) -> tuple[int, list[tuple[int, int]]] | None:
        """When the legal turn placing ``tile`` at area coordinates ``(x, y)``
        completes a loop, in a game without a limited area and without
        PointTrax: the colours (bits) of the loops it completes and the cells
        its tiles would fill (area coordinates, the chosen cell first),
        worked out without playing it; None otherwise.

        A turn's forced tiles are decided by what lies at most two cells
        from them, and a loop by the track whose two ends they join, which
        enter two of those cells: so any other turn that places every one of
        its tiles more than two cells from all of these leaves this turn
        legal, with the same tiles, completing the same loop (a search
        knows such a turn does not block it without playing it; see
        :meth:`turn_reach`)."""
        if self._limit is not None or self._special or self._outcome is not None or not self._tiles:
            return None
        cell = (y + ORIGIN_Y) * STRIDE + x + ORIGIN_X
        key = self._keys.get(cell)
        if key is None or tile not in FIT_TILES[key] or tile not in self._entry(cell)[0]:
            return None
        bits = self._dry_run(cell, tile, False)
        if not bits:
            return None
        cells = [(x, y)]
        for level in self._chain(cell, tile)[1]:
            for placed in level:
                py, px = divmod(placed, STRIDE)
                cells.append((px - ORIGIN_X, py - ORIGIN_Y))
        return bits, cells

    def turn_reach(self, move: Move) -> int:
        """At most how many steps (cells across and down) from its chosen cell
        the tiles of the legal move ``move`` lie (0 for a pass, or a move
        that forces nothing; a bound, read from the legality answers the
        board keeps)."""
        if move.is_pass or not self._tiles:
            return 0
        cell = (self._miny - 1 + move.row) * STRIDE + self._minx - 1 + move.column
        return self._entry(cell)[1] - 1

    # ------------------------------------------------------------------
    # the counting check

    def count_sequences(self, depth: int) -> int:
        """Number of distinct move sequences of ``depth`` turns from here
        (the counting check: 2, 24, 432, 9568, 246888 from the empty board).

        Trax, LoopTrax and 8x8 Trax (ending ``"draw"``) count on the board's
        own dictionaries (:meth:`~.analysis.Analysis._count`); the first move
        of a game, the other game types and endings go through :meth:`play`
        and :meth:`pop`, move by move."""
        if depth <= 0:
            return 1
        if self._special or self._lastloses or not self._tiles:
            moves = self.legal_moves()
            if depth == 1:
                return len(moves)
            total = 0
            for move in moves:
                self.play(move)
                total += self.count_sequences(depth - 1)
                self.pop()
            return total
        if self._outcome is not None:
            return 0
        return self._count(depth, [])

    # ------------------------------------------------------------------
    # showing it

    def __repr__(self) -> str:
        moves = " ".join(str(m) for m in self.moves)
        options = ""
        if self._ending is not None:
            options += f", ending={self._ending!r}"
        if self._points is not None:
            options += f", points={self._points!r}"
        return f"Board({self.variant.name!r}{options}, moves={moves!r})"

    def __str__(self) -> str:
        return render(self)

    def fingerprint(self) -> Fingerprint:
        """A hashable description of the whole position (tests, caches)."""
        return (
            frozenset(self.cells()),
            frozenset(self._ends.items()),
            frozenset(self._keys.items()),
            (self._minx, self._maxx, self._miny, self._maxy),
            self._outcome,
            self._ply,
            (self._scores[WHITE], self._scores[BLACK]),
            tuple(self._areas),
            self._reset_due,
        )
