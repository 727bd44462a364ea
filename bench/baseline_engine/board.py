"""The Trax board: placement, forced plays, wins, undo and legal moves.

Design notes (speed matters: the server replays games and the benchmarks run
playouts):

* Tiles live in a dict ``cell -> white mask`` (see :mod:`.tiles`); a
  neighbour is one integer addition away.
* Forced plays are searched *incrementally*: only the empty neighbours of a
  tile just placed can have become forced, so a turn costs the number of
  tiles it places, never a scan of the board.
* Tracks are kept as a map of open path ends: for every edge where a track
  leaves the formation, the edge where the same track leaves at its other end.
  Joining a tile links at most four ends, closing a loop is recognised when a
  path's two ends meet, and a line is recognised by where the two ends of a
  path lie.  No track is ever walked, so a move on a 200-tile position costs
  what it costs on a 10-tile one.
* The empty cells touching the formation (the *frontier*) are kept up to date
  too, each with its *entry key* (which colour enters from which side), so
  the legal-move list never looks at the inside of the formation and never
  recomputes what a cell's neighbours say.
* Every change is logged per turn, which makes :meth:`Board.pop` exact and
  cheap.
* What a mail shows about the last turn (:meth:`Board.last_turn`) and the
  track that won (:meth:`Board.winning_track`) is worked out when asked, once
  per mail: :meth:`Board.winning_track` is the one place a track is walked,
  and nothing of it touches :meth:`Board.play` or :meth:`Board.pop`.

The game types beyond plain Trax (see :mod:`.variants`) are options of the
same board, and cost the other game types nothing on the way through
:meth:`Board.play`, :meth:`Board.pop` and :meth:`Board.legal_moves`:

* **A limited area** (``8x8trax``, ``minitrax``): a chosen tile may not make
  the formation wider or taller than ``max_size``.  How the game ends when
  the area runs out is the board's ``ending``: ``"draw"`` (no legal turn
  left: a draw) or ``"lastloses"`` (no legal turn left that completes no
  loop and no line: the player who placed the last tile loses, so the side
  to move wins, reason ``"lasttile"``).  Both are decided lazily in
  :meth:`Board.outcome`, once per position: ``"lastloses"`` plays each
  legal turn on the board's own dictionaries, looks for a loop or a line
  and takes it back, stopping at the first quiet one.
* **LuckyTrax**: the server draws the face of each turn;
  :meth:`Board.placements` lists the legal turns that place that face, and
  when there are none the player passes (``Board.play("pass")``, the move
  :data:`PASS`), a turn that places nothing.  The engine cannot know the
  draw, so :meth:`Board.legal_moves` never lists a pass.
* **PointTrax**: a completed loop scores its owner (its colour) one point
  per tile the loop's track runs through, and stays on the board; a
  completed line scores its tiles the same way and clears the playing
  area.  The position after that turn still shows the line; the board
  notes that a reset is due, and the next :meth:`Board.play` stashes the
  old area in its undo log and starts a fresh one with ``@0+`` or ``@0/``
  (so :meth:`Board.pop` brings the old area back exactly).  After a turn
  that scored, a player with at least the target score and more points
  than the other wins (reason ``"points"``); with equal scores play goes
  on until they differ.  Loops and lines never end the game by
  themselves.  Replaying the move list gives the same scores and areas.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeAlias

from .errors import IllegalMoveError, NotationError, TraxError
from .notation import PASS_WORD, NewNotation, OldNotation, column_letters, parse_notation
from .outcome import Outcome
from .render import render
from .tiles import (
    BLACK,
    COLOUR_NAMES,
    CONTRIB,
    DELTA,
    DIRECTION_NAMES,
    EDGE_OFFSET,
    FITS,
    FORCE,
    OPPOSITE,
    ORIGIN,
    PATHS,
    STRIDE,
    SYMBOL,
    TILES_OF_SYMBOL,
    WHITE,
    E,
    N,
    S,
    W,
)
from .variants import ENDINGS, Variant, get_variant

_TURN_LETTER = {N: "U", E: "R", S: "D", W: "L"}
_TURN_WORD = {"U": "up", "D": "down", "L": "left", "R": "right"}

# A path joined by a turn: its two open ends (edge ids) and its colour.
_Link: TypeAlias = tuple[int, int, int]

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

#: The symbol of a pass (:data:`PASS`): no notation symbol, so a pass can
#: never be taken for a tile.
PASS_SYMBOL = "pass"


@dataclass(frozen=True, slots=True)
class Move:
    """A move as recorded: new-notation coordinates (read before the move).

    ``tile`` says which colouring of the symbol was placed; it follows from
    the position, so it takes no part in comparisons.

    A LuckyTrax pass is the move :data:`PASS`: symbol :data:`PASS_SYMBOL`,
    column and row 0, no tile; ``str()`` gives ``"pass"``.
    """

    column: int
    row: int
    symbol: str
    tile: int = field(default=0, compare=False)

    def __str__(self) -> str:
        if self.symbol == PASS_SYMBOL:
            return PASS_WORD
        return f"{column_letters(self.column)}{self.row}{self.symbol}"

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"

    @property
    def is_pass(self) -> bool:
        """Is this a LuckyTrax pass (a turn that places nothing)?"""
        return self.symbol == PASS_SYMBOL

    @property
    def cell(self) -> str:
        """The cell part of the notation, e.g. ``B2`` (``""`` for a pass)."""
        if self.symbol == PASS_SYMBOL:
            return ""
        return f"{column_letters(self.column)}{self.row}"


#: The LuckyTrax pass: a turn that places nothing (see :meth:`Board.play`).
PASS = Move(0, 0, PASS_SYMBOL)


@dataclass(frozen=True, slots=True)
class LastTurn:
    """What the last turn placed, for a mail that shows it.

    ``move`` is the move as recorded (new notation, read before the move).
    ``placed`` is the chosen tile and ``forced`` the tiles it forced, in the
    order they were placed, all written in the coordinates of the position
    *after* the turn (the frame a diagram of the position shows): they differ
    from ``move`` when the move went into column ``@`` or row ``0``.  Each
    carries its ``tile`` (white mask).

    A LuckyTrax pass places nothing: ``move`` is :data:`PASS`, ``placed`` is
    ``None`` and ``forced`` is ``()``.
    """

    move: Move
    placed: Move | None
    forced: tuple[Move, ...]


@dataclass(frozen=True, slots=True)
class WinningTrack:
    """The track that won the game: its colour (``"white"`` or ``"black"``),
    ``kind`` (``"loop"`` or ``"line"``) and its ``cells`` ``(column, row)`` in
    the coordinates of the position (as :meth:`Board.cells` gives them), in
    order along the track.  A loop's cells go once round (the last cell
    touches the first); a line's run from the outermost left edge to the
    right one (or from the top edge to the bottom one)."""

    colour: str
    kind: str
    cells: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class Scored:
    """One track that scored in a PointTrax turn: its owner ``colour``
    (``"white"`` or ``"black"``), ``kind`` (``"loop"`` or ``"line"``), the
    points it scored (``tiles``: the number of tiles its track runs
    through) and those ``cells`` ``(column, row)`` in order along the track,
    in the coordinates of the position after the turn (the position that
    still shows a line that cleared the area)."""

    colour: str
    kind: str
    tiles: int
    cells: tuple[tuple[int, int], ...]


@dataclass(slots=True)
class _Area:
    """A playing area put aside when a PointTrax line cleared it."""

    tiles: dict[int, int]
    ends: dict[int, int]
    keys: dict[int, int]
    bbox: tuple[int, int, int, int]
    lcache: dict[int, tuple[int, tuple[int, ...], tuple[Move, ...]]]
    deps: dict[int, list[int]]


@dataclass(slots=True)
class _Extra:
    """What a LuckyTrax or PointTrax turn changed beyond the tiles: the
    scores, whether a reset was due and how many areas were cleared before
    it, the area it put aside (the first turn of a new area), and what it
    scored."""

    scores: tuple[int, int]
    reset_due: bool
    areas: int
    area: _Area | None = None
    scored: tuple[Scored, ...] = ()


@dataclass(slots=True)
class _Turn:
    """What one turn changed, so that it can be taken back exactly."""

    move: Move
    placed: list[int]
    ends_log: list[tuple[int, int | None]]
    keys_log: list[tuple[int, int | None]]
    bbox: tuple[int, int, int, int]
    outcome: Outcome | None
    extra: _Extra | None = None


class Board:
    """A Trax position with its move history.

    ``variant`` is the game type (see :mod:`.variants`).  Two options set a
    board's own rules; ``None`` takes the game type's default:

    ``ending``
        For a limited area only (``8x8trax``: ``"draw"`` by default,
        ``minitrax``: ``"lastloses"``): how the game ends when the area runs
        out (see :mod:`.variants`).  ``ValueError`` for an unlimited game type.
    ``points``
        For PointTrax only: the target score (25 by default, at least 1).
        ``ValueError`` for any other game type.

    >>> b = Board()
    >>> str(b.play("@0/"))
    '@0/'
    >>> b.tile_count
    1
    """

    def __init__(self, variant: str | Variant = "trax", *, ending: str | None = None,
                 points: int | None = None) -> None:
        self.variant = get_variant(variant)
        v = self.variant
        if v.max_size is None:
            if ending is not None:
                raise ValueError(
                    f"{v.title} has no ending to choose: its formation may grow without limit "
                    "(an ending is for a limited area, as in 8x8 Trax and MiniTrax)"
                )
        else:
            if ending is None:
                ending = v.ending
            elif ending not in ENDINGS:
                raise ValueError(f"unknown ending {ending!r}; the endings are {', '.join(ENDINGS)}")
        if v.points is None:
            if points is not None:
                raise ValueError(f"{v.title} keeps no score: a target score is for PointTrax")
        else:
            if points is None:
                points = v.points
            elif isinstance(points, bool) or not isinstance(points, int) or points < 1:
                raise ValueError(f"the target score must be a whole number of at least 1, not {points!r}")
        self._ending = ending
        self._points = points
        self._lastloses = ending == "lastloses"
        # LuckyTrax and PointTrax turns go through _play_special; the other
        # game types never look at what they need
        self._special = v.drawn or v.points is not None
        self._tiles: dict[int, int] = {}
        self._ends: dict[int, int] = {}
        # frontier: empty cell touching the formation -> its entry key
        self._keys: dict[int, int] = {}
        self._minx = self._maxx = self._miny = self._maxy = 0
        self._turns: list[_Turn] = []
        self._outcome: Outcome | None = None
        # The ending of a limited area, decided once per position: the last
        # turn (by identity: a turn taken back and played again is a new
        # object) and what the ending says after it.
        self._end_cache: tuple[_Turn | None, Outcome | None] = (None, None)
        # The legal placements of each frontier cell, kept between turns.
        # _deps lists, for every cell an answer read (the placement, its
        # forced chains and their empty neighbours), the frontier cells whose
        # answers read it; a turn, or its undo, that places or removes a tile
        # next to such a cell drops those answers.
        self._lcache: dict[int, tuple[int, tuple[int, ...], tuple[Move, ...]]] = {}
        self._deps: dict[int, list[int]] = {}
        # PointTrax: white's and black's scores, the plies after which the
        # area was cleared, and whether the next move starts a fresh area
        self._scores = [0, 0]
        self._areas: list[int] = []
        self._reset_due = False

    # ------------------------------------------------------------------
    # construction helpers

    @classmethod
    def replay(cls, moves: Iterable[str | Move], variant: str | Variant = "trax", *,
               ending: str | None = None, points: int | None = None) -> Board:
        """A board with ``moves`` played in order (either notation, and
        ``pass`` in LuckyTrax), with the options of :class:`Board`."""
        board = cls(variant, ending=ending, points=points)
        for number, move in enumerate(moves, start=1):
            try:
                board.play(move)
            except TraxError as exc:
                raise type(exc)(f"move {number} ({move}): {exc}") from None
        return board

    def copy(self) -> Board:
        """An independent board with the same moves and options."""
        return Board.replay(self.moves, self.variant, ending=self._ending, points=self._points)

    def after(self, n: int) -> Board:
        """The position as it stood after move ``n`` (0 = the empty board),
        with the same options."""
        if not 0 <= n <= len(self._turns):
            raise ValueError(f"there is no move {n}; this game has {len(self._turns)} moves")
        return Board.replay(self.moves[:n], self.variant, ending=self._ending, points=self._points)

    # ------------------------------------------------------------------
    # the board's options and PointTrax's scores

    @property
    def ending(self) -> str | None:
        """``"draw"`` or ``"lastloses"`` for a limited area, else None."""
        return self._ending

    @property
    def points(self) -> int | None:
        """The target score of a PointTrax board, else None."""
        return self._points

    @property
    def scores(self) -> dict[str, int]:
        """``{"white": n, "black": m}``: the points each has scored (always
        zero but in PointTrax)."""
        return {"white": self._scores[WHITE], "black": self._scores[BLACK]}

    def last_scored(self) -> tuple[Scored, ...]:
        """What the last turn scored (PointTrax), each track that scored
        (white's first, then black's); ``()`` when it scored nothing, before
        the first move and in the other game types."""
        if not self._turns:
            return ()
        extra = self._turns[-1].extra
        return () if extra is None else extra.scored

    @property
    def areas(self) -> tuple[int, ...]:
        """The plies after which a PointTrax line cleared the playing area,
        in order (a line that wins the game clears nothing)."""
        return tuple(self._areas)

    @property
    def area(self) -> int:
        """The number of the playing area the position shows: 1, then one
        more for each cleared area whose first move has been played."""
        return len(self._areas) + 1 - self._reset_due

    @property
    def reset_due(self) -> bool:
        """Did the last turn complete a PointTrax line, so that the next move
        starts a fresh area (``@0+`` or ``@0/``)?  The position still shows
        the line until then."""
        return self._reset_due

    # ------------------------------------------------------------------
    # what the position looks like

    @property
    def moves(self) -> tuple[Move, ...]:
        return tuple(t.move for t in self._turns)

    @property
    def ply(self) -> int:
        """Number of moves played so far."""
        return len(self._turns)

    @property
    def turn(self) -> str:
        """The colour to move: ``"white"`` or ``"black"``."""
        return "white" if len(self._turns) % 2 == 0 else "black"

    @property
    def tile_count(self) -> int:
        return len(self._tiles)

    @property
    def width(self) -> int:
        return self._maxx - self._minx + 1 if self._tiles else 0

    @property
    def height(self) -> int:
        return self._maxy - self._miny + 1 if self._tiles else 0

    def tile_at(self, column: int, row: int) -> int | None:
        """The white mask of the tile at notation coordinates, or None."""
        if not self._tiles:
            return None
        return self._tiles.get((self._miny - 1 + row) * STRIDE + self._minx - 1 + column)

    def cells(self) -> Iterator[tuple[int, int, int]]:
        """``(column, row, white mask)`` of every tile, columns and rows from 1."""
        minx, miny = self._minx, self._miny
        for cell, tile in self._tiles.items():
            y, x = divmod(cell, STRIDE)
            yield x - minx + 1, y - miny + 1, tile

    def last_placed(self) -> list[tuple[int, int]]:
        """Cells (column, row) placed by the last turn, the chosen one first,
        then the tiles it forced; empty before the first move and after a
        pass."""
        if not self._turns:
            return []
        out = []
        for cell in self._turns[-1].placed:
            y, x = divmod(cell, STRIDE)
            out.append((x - self._minx + 1, y - self._miny + 1))
        return out

    def last_turn(self) -> LastTurn | None:
        """The last turn's move, chosen tile and forced tiles (see
        :class:`LastTurn`; a pass has no tile); None before the first move."""
        if not self._turns:
            return None
        turn = self._turns[-1]
        if not turn.placed:
            return LastTurn(turn.move, None, ())
        chosen, *forced = (self._placed_move(cell) for cell in turn.placed)
        return LastTurn(turn.move, chosen, tuple(forced))

    def _placed_move(self, cell: int) -> Move:
        """The tile at ``cell`` as a move in the current coordinates."""
        y, x = divmod(cell, STRIDE)
        tile = self._tiles[cell]
        return Move(x - self._minx + 1, y - self._miny + 1, SYMBOL[tile], tile)

    def winning_track(self) -> WinningTrack | None:
        """The track that won a game ended by a loop or a line (see
        :class:`WinningTrack`); None while undecided, for a draw and for the
        other endings (the last tile, points).

        A win always runs through a tile of the last turn, so the tracks of
        the winner's colour through those tiles are followed until one closes
        on itself (a loop) or leaves the formation through two opposite
        outermost edges of a formation at least 8 wide or tall (a line, the
        rule :meth:`_spans` applies when the turn is played)."""
        outcome = self._outcome
        if outcome is None or outcome.reason not in ("loop", "line") or not self._turns:
            return None
        colour = COLOUR_NAMES.index(outcome.winner)
        width = self._maxx - self._minx + 1
        height = self._maxy - self._miny + 1
        tiles = self._tiles
        seen: set[int] = set()
        for start in self._turns[-1].placed:
            if start in seen:
                continue
            seen.add(start)
            one, other = PATHS[tiles[start]][colour]
            ahead, end = self._follow(start, colour, other)
            seen.update(ahead)
            if end is None:
                if outcome.reason == "loop":
                    return self._track(outcome, [start, *ahead])
                continue
            behind, start_end = self._follow(start, colour, one)
            seen.update(behind)
            if (outcome.reason == "line" and start_end is not None
                    and self._spans(start_end, end, width, height)):
                cells = [*reversed(behind), start, *ahead]
                if self._edge_position(start_end) > self._edge_position(end):
                    cells.reverse()  # run it from the left (or top) edge
                return self._track(outcome, cells)
        return None

    def _follow(self, start: int, colour: int, side: int) -> tuple[list[int], int | None]:
        """Walk the ``colour`` track from the tile at ``start`` out through
        its ``side``: the cells it passes, in order, and the edge where it
        leaves the formation, or None when it comes back to ``start``."""
        tiles = self._tiles
        cells: list[int] = []
        cell = start
        while True:
            after = cell + DELTA[side]
            tile = tiles.get(after)
            if tile is None:
                return cells, 2 * cell + EDGE_OFFSET[side]
            if after == start:
                return cells, None
            cells.append(after)
            one, other = PATHS[tile][colour]
            side = other if one == OPPOSITE[side] else one
            cell = after

    @staticmethod
    def _edge_position(edge: int) -> int:
        """How far right a vertical edge lies, or how far down a horizontal one."""
        y, x = divmod(edge // 2, STRIDE)
        return x if edge & 1 else y

    def _track(self, outcome: Outcome, cells: list[int]) -> WinningTrack:
        assert outcome.winner is not None
        minx, miny = self._minx, self._miny
        points = []
        for cell in cells:
            y, x = divmod(cell, STRIDE)
            points.append((x - minx + 1, y - miny + 1))
        return WinningTrack(outcome.winner, outcome.reason, tuple(points))

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
            len(self._turns),
            (self._scores[WHITE], self._scores[BLACK]),
            tuple(self._areas),
            self._reset_due,
        )

    # ------------------------------------------------------------------
    # outcome

    def outcome(self) -> Outcome | None:
        """``None`` while undecided, else who won and how (or a draw).

        A loop, a line or a PointTrax score decides when the turn is played;
        the ending of a limited area (a draw, or the last tile) is decided
        here, at most once per position."""
        if self._outcome is not None:
            return self._outcome
        if self._ending is not None and self._tiles:
            last = self._turns[-1]
            cached, ended = self._end_cache
            if cached is not last:
                ended = self._decide_ending()
                self._end_cache = (last, ended)
            return ended
        return None

    def _decide_ending(self) -> Outcome | None:
        """The ending of a limited area in this position (no loop or line
        has decided the game): ``"draw"``: a draw when the side to move has
        no legal turn; ``"lastloses"``: the side to move wins when it has no
        legal turn that completes nothing."""
        if not self._lastloses:
            return None if self._any_legal() else Outcome(None, "draw")
        legal = self._turn_is_legal
        quiet = self._is_quiet
        for cell, tile, _ in self._candidates():
            if legal(cell, tile) and quiet(cell, tile):
                return None
        return Outcome(self.turn, "lasttile")

    def _is_quiet(self, cell: int, tile: int) -> bool:
        """Does the legal turn placing ``tile`` at ``cell`` complete no loop
        and no line?  The turn is played on the board's own dictionaries and
        taken back at once; nothing else (the legality cache, the move list)
        notices."""
        old_bbox = (self._minx, self._maxx, self._miny, self._maxy)
        y, x = divmod(cell, STRIDE)
        self._minx, self._maxx = min(self._minx, x), max(self._maxx, x)
        self._miny, self._maxy = min(self._miny, y), max(self._maxy, y)
        turn = _Turn(PASS, [], [], [], old_bbox, self._outcome)
        loops: set[int] = set()
        links: list[_Link] = []
        try:
            bad = self._run_turn(cell, tile, turn, loops, links)
            assert bad is None, "only legal turns are tried"
            return not loops and not self._lines(links)
        finally:
            self._undo(turn)

    def is_over(self) -> bool:
        return self.outcome() is not None

    # ------------------------------------------------------------------
    # parsing against the position

    def cell_name(self, cell: int) -> str:
        y, x = divmod(cell, STRIDE)
        return f"{column_letters(x - self._minx + 1)}{y - self._miny + 1}"

    def parse_move(self, text: str | Move) -> Move:
        """Resolve a move (new or old notation, or a :class:`Move`) in this
        position without playing it.  Raises :class:`NotationError` or
        :class:`IllegalMoveError`; the whole turn is not checked here.

        ``pass`` (or :data:`PASS`) resolves to :data:`PASS` in LuckyTrax and
        is an :class:`IllegalMoveError` elsewhere.  When a PointTrax reset is
        due the move is read against the fresh, empty area."""
        if self._reset_due:
            saved = self._clear_area()
            self._reset_due = False
            try:
                return self.parse_move(text)
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
            cell, tile = self._resolve_new(spec)
        else:
            cell, tile = self._resolve_old(spec)
        return self._move_for(cell, tile)

    def _pass(self) -> Move:
        if not self.variant.drawn:
            raise IllegalMoveError(
                f"a turn cannot be passed in {self.variant.title}: a pass is only for LuckyTrax, "
                "when the tile drawn fits nowhere"
            )
        return PASS

    def _move_for(self, cell: int, tile: int) -> Move:
        if not self._tiles:
            return Move(0, 0, SYMBOL[tile], tile)
        y, x = divmod(cell, STRIDE)
        return Move(x - self._minx + 1, y - self._miny + 1, SYMBOL[tile], tile)

    def _check_cell(self, cell: int, shown: str) -> None:
        y, x = divmod(cell, STRIDE)
        if not (self._minx - 1 <= x <= self._maxx + 1 and self._miny - 1 <= y <= self._maxy + 1):
            raise IllegalMoveError(
                f"{shown} is off the board: in this position columns run from @ to "
                f"{column_letters(self.width + 1)} and rows from 0 to {self.height + 1}"
            )
        if cell in self._tiles:
            raise IllegalMoveError(f"{shown} already holds a tile; choose an empty cell")
        if cell not in self._keys:
            raise IllegalMoveError(
                f"{shown} does not touch the tiles in play; a tile must share an edge with one"
            )

    def _describe_entries(self, cell: int) -> str:
        key = self._keys.get(cell, 0)
        parts = []
        for d in (N, E, S, W):
            if key >> d & 1:
                parts.append(f"white from the {DIRECTION_NAMES[d]}")
            elif key >> (d + 4) & 1:
                parts.append(f"black from the {DIRECTION_NAMES[d]}")
        return ", ".join(parts)

    def _what_starts(self) -> str:
        """What a first move starts: a game, or a fresh PointTrax area."""
        return "the fresh area (a line cleared the last one)" if self._areas else "a game"

    def _resolve_new(self, spec: NewNotation) -> tuple[int, int]:
        if not self._tiles:
            if (spec.column, spec.row) != (0, 0) or spec.symbol == "\\":
                raise IllegalMoveError(
                    f"{spec} cannot start {self._what_starts()}: the first move is @0+ or @0/ "
                    "(the first tile fixes which way up the board is)"
                )
            return ORIGIN, TILES_OF_SYMBOL[spec.symbol][0]
        cell = (self._miny - 1 + spec.row) * STRIDE + self._minx - 1 + spec.column
        shown = f"{column_letters(spec.column)}{spec.row}"
        self._check_cell(cell, shown)
        for sym, tile in FITS[self._keys[cell]]:
            if sym == spec.symbol:
                return cell, tile
        raise IllegalMoveError(
            f"{spec} does not fit: neither colouring of {spec.symbol} matches the tracks "
            f"entering {shown} ({self._describe_entries(cell)}); colours must join like to like"
        )

    def _resolve_old(self, spec: OldNotation) -> tuple[int, int]:
        if not self._tiles:
            if (spec.column, spec.row) != (1, 1) or spec.letter not in "SC":
                raise IllegalMoveError(
                    f"{spec} cannot start {self._what_starts()}: in the old notation the first move is A1S or A1C"
                )
            return ORIGIN, (5 if spec.letter == "S" else 9)
        x = self._minx + spec.column - 1
        y = self._miny + spec.row - 1
        tiles = self._tiles
        if spec.column == 1 and spec.row == 1:
            if y * STRIDE + x in tiles:
                if spec.row_first:
                    y -= 1
                else:
                    x -= 1
        elif spec.column == 1:
            if y * STRIDE + x in tiles:
                x -= 1
        elif spec.row == 1 and y * STRIDE + x in tiles:
            y -= 1
        cell = y * STRIDE + x
        self._check_cell(cell, str(spec)[:-1])
        fits = FITS[self._keys[cell]]
        if spec.letter == "S":
            for sym, tile in fits:
                if sym == "+":
                    return cell, tile
            raise IllegalMoveError(
                f"{spec}: no straight fits at that cell ({self._describe_entries(cell)})"
            )
        curves = [tile for sym, tile in fits if sym != "+"]
        if not curves:
            raise IllegalMoveError(f"{spec}: no curve fits at that cell ({self._describe_entries(cell)})")
        if spec.letter == "C":
            if len(curves) == 1:
                return cell, curves[0]
            raise IllegalMoveError(
                f"{spec}: two curves fit there; say which way the track turns with U, D, L or R"
            )
        # U/D/L/R: the curve that turns a track coming from a touching tile
        # that way; when that could be either track, the white one decides.
        key = self._keys[cell]
        white_match: list[int] = []
        any_match: list[int] = []
        for tile in curves:
            for colour, (a, b) in enumerate(PATHS[tile]):
                for come, go in ((a, b), (b, a)):
                    enters = key >> (come + 4 * colour) & 1
                    if enters and _TURN_LETTER[go] == spec.letter:
                        (white_match if colour == WHITE else any_match).append(tile)
        chosen = white_match or any_match
        if len(set(chosen)) == 1:
            return cell, chosen[0]
        if not chosen:
            raise IllegalMoveError(
                f"{spec}: no curve there turns a track {_TURN_WORD[spec.letter]}"
            )
        raise IllegalMoveError(f"{spec} is ambiguous here; write the move in the new notation")

    # ------------------------------------------------------------------
    # playing

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
        if self.outcome() is not None:
            raise IllegalMoveError("the game is over; no more moves can be played")
        if self._special:
            return self._play_special(move)
        resolved = self.parse_move(move)
        loops: set[int] = set()
        links: list[_Link] = []
        self._play_tile(resolved, None, loops, links)
        self._settle_wins(loops, links)
        return resolved

    def _play_special(self, move: str | Move) -> Move:
        """:meth:`play` in LuckyTrax and PointTrax: passes, scores and the
        fresh areas, each logged with the turn for :meth:`pop`."""
        resolved = self.parse_move(move)
        extra = _Extra((self._scores[WHITE], self._scores[BLACK]), self._reset_due, len(self._areas))
        if resolved.symbol == PASS_SYMBOL:
            bbox = (self._minx, self._maxx, self._miny, self._maxy)
            self._turns.append(_Turn(resolved, [], [], [], bbox, self._outcome, extra))
            return resolved
        if self._reset_due:
            extra.area = self._clear_area()
            self._reset_due = False
        loops: set[int] = set()
        links: list[_Link] = []
        try:
            self._play_tile(resolved, extra, loops, links)
        except TraxError:
            if extra.area is not None:
                self._restore_area(extra.area)
                self._reset_due = True
            raise
        if self._points is not None:
            if loops or links:
                self._score(extra, loops, links)
        else:
            self._settle_wins(loops, links)
        return resolved

    def _play_tile(self, resolved: Move, extra: _Extra | None, loops: set[int], links: list[_Link]) -> None:
        """Place the chosen tile of ``resolved`` and all it forces, and log
        the turn; ``loops`` and ``links`` collect what it closed and joined.
        Raises :class:`IllegalMoveError` with the board unchanged."""
        first = not self._tiles
        if first:
            cell = ORIGIN
        else:
            cell = (self._miny - 1 + resolved.row) * STRIDE + self._minx - 1 + resolved.column
        old_bbox = (self._minx, self._maxx, self._miny, self._maxy)
        y, x = divmod(cell, STRIDE)
        if first:
            minx = maxx = x
            miny = maxy = y
        else:
            minx, maxx = min(self._minx, x), max(self._maxx, x)
            miny, maxy = min(self._miny, y), max(self._maxy, y)
            limit = self.variant.max_size
            if limit is not None and (maxx - minx + 1 > limit or maxy - miny + 1 > limit):
                raise IllegalMoveError(
                    f"{resolved} would make the formation larger than {limit}x{limit}, "
                    f"which {self.variant.title} does not allow"
                )
        self._minx, self._maxx, self._miny, self._maxy = minx, maxx, miny, maxy
        turn = _Turn(resolved, [], [], [], old_bbox, self._outcome, extra)
        bad = self._run_turn(cell, resolved.tile, turn, loops, links)
        if bad is not None:
            self._undo(turn)
            raise IllegalMoveError(
                f"{resolved} is an illegal turn: its forced tiles would bring three track ends "
                f"of one colour into {self.cell_name(bad)}; the board is unchanged, choose another move"
            )
        self._turns.append(turn)
        self._forget_legality_near(turn.placed)

    def _place(self, cell: int, tile: int, turn: _Turn, loops: set[int], links: list[_Link]) -> None:
        tiles = self._tiles
        ends = self._ends
        keys = self._keys
        tiles[cell] = tile
        turn.placed.append(cell)
        klog = turn.keys_log
        if cell in keys:
            klog.append((cell, keys.pop(cell)))
        contrib = CONTRIB[tile]
        for d in (N, E, S, W):
            n = cell + DELTA[d]
            if n not in tiles:
                old = keys.get(n)
                klog.append((n, old))
                keys[n] = (old or 0) | contrib[d]
        elog = turn.ends_log
        base = 2 * cell
        for colour, (a, b) in enumerate(PATHS[tile]):
            ea = base + EDGE_OFFSET[a]
            eb = base + EDGE_OFFSET[b]
            if cell + DELTA[a] in tiles:
                fa = ends.pop(ea)
                elog.append((ea, fa))
            else:
                fa = ea
            if cell + DELTA[b] in tiles:
                fb = ends.pop(eb)
                elog.append((eb, fb))
            else:
                fb = eb
            if fa == eb:
                loops.add(colour)
                continue
            elog.append((fa, ends.get(fa)))
            ends[fa] = fb
            elog.append((fb, ends.get(fb)))
            ends[fb] = fa
            links.append((fa, fb, colour))

    def _run_turn(self, cell: int, tile: int, turn: _Turn, loops: set[int], links: list[_Link]) -> int | None:
        """Place the chosen tile and all forced ones.  Returns a cell with
        three same-coloured ends (an illegal turn), else None."""
        tiles = self._tiles
        keys = self._keys
        self._place(cell, tile, turn, loops, links)
        stack = [cell]
        while stack:
            p = stack.pop()
            for d in (N, E, S, W):
                n = p + DELTA[d]
                if n in tiles:
                    continue
                f = FORCE[keys[n]]
                if f:
                    if f < 0:
                        return n
                    self._place(n, f, turn, loops, links)
                    stack.append(n)
        return None

    def _settle_wins(self, loops: set[int], links: list[_Link]) -> None:
        wins = set(loops)
        if self.variant.lines_win and (self._maxx - self._minx >= 7 or self._maxy - self._miny >= 7):
            wins |= self._lines(links)
        if not wins:
            return
        mover = WHITE if len(self._turns) % 2 == 1 else BLACK
        winner = mover if mover in wins else 1 - mover
        self._outcome = Outcome(COLOUR_NAMES[winner], "loop" if winner in loops else "line")

    def _lines(self, links: list[_Link]) -> set[int]:
        """The colours of the paths a turn joined (``links``) that are lines
        now that it is over (none where lines do not count)."""
        lines: set[int] = set()
        if not self.variant.lines_win:
            return lines
        width = self._maxx - self._minx + 1
        height = self._maxy - self._miny + 1
        if width >= 8 or height >= 8:
            ends = self._ends
            for fa, fb, colour in links:
                if colour in lines or ends.get(fa) != fb:
                    continue
                if self._spans(fa, fb, width, height):
                    lines.add(colour)
        return lines

    # ------------------------------------------------------------------
    # PointTrax

    def _score(self, extra: _Extra, loops: set[int], links: list[_Link]) -> None:
        """Score what the turn just played completed: each loop and line its
        owner's tiles; a line clears the area (the reset is due), a score at
        the target with more points than the other wins."""
        lines = self._lines(links)
        if not loops and not lines:
            return
        scored = self._completed(self._turns[-1].placed, loops, lines)
        scores = self._scores
        for track in scored:
            scores[COLOUR_NAMES.index(track.colour)] += track.tiles
        extra.scored = tuple(scored)
        white, black = scores
        assert self._points is not None
        if max(white, black) >= self._points and white != black:
            self._outcome = Outcome("white" if white > black else "black", "points")
        elif lines:
            self._reset_due = True
            self._areas.append(len(self._turns))

    def _completed(self, placed: list[int], loops: set[int], lines: set[int]) -> list[Scored]:
        """The loops of the colours in ``loops`` and the lines of those in
        ``lines`` that run through the ``placed`` tiles, white's first: the
        tracks a turn completed, each walked once."""
        tiles = self._tiles
        width = self._maxx - self._minx + 1
        height = self._maxy - self._miny + 1
        out = []
        for colour in (WHITE, BLACK):
            if colour not in loops and colour not in lines:
                continue
            seen: set[int] = set()
            for start in placed:
                if start in seen:
                    continue
                seen.add(start)
                one, other = PATHS[tiles[start]][colour]
                ahead, end = self._follow(start, colour, other)
                seen.update(ahead)
                if end is None:
                    if colour in loops:
                        out.append(self._scored(colour, "loop", [start, *ahead]))
                    continue
                behind, start_end = self._follow(start, colour, one)
                seen.update(behind)
                if (colour in lines and start_end is not None
                        and self._spans(start_end, end, width, height)):
                    cells = [*reversed(behind), start, *ahead]
                    if self._edge_position(start_end) > self._edge_position(end):
                        cells.reverse()  # run it from the left (or top) edge
                    out.append(self._scored(colour, "line", cells))
        return out

    def _scored(self, colour: int, kind: str, cells: list[int]) -> Scored:
        minx, miny = self._minx, self._miny
        points = []
        for cell in cells:
            y, x = divmod(cell, STRIDE)
            points.append((x - minx + 1, y - miny + 1))
        return Scored(COLOUR_NAMES[colour], kind, len(points), tuple(points))

    def _clear_area(self) -> _Area:
        """Put the playing area aside and start an empty one; returns what
        :meth:`_restore_area` needs to bring it back."""
        area = _Area(self._tiles, self._ends, self._keys, (self._minx, self._maxx, self._miny, self._maxy),
                     self._lcache, self._deps)
        self._tiles, self._ends, self._keys, self._lcache, self._deps = {}, {}, {}, {}, {}
        self._minx = self._maxx = self._miny = self._maxy = 0
        return area

    def _restore_area(self, area: _Area) -> None:
        self._tiles, self._ends, self._keys = area.tiles, area.ends, area.keys
        self._minx, self._maxx, self._miny, self._maxy = area.bbox
        self._lcache, self._deps = area.lcache, area.deps

    def _spans(self, ea: int, eb: int, width: int, height: int) -> bool:
        """Do path ends at edges ea and eb lie on opposite outermost sides?"""
        ca, va = divmod(ea, 2)
        cb, vb = divmod(eb, 2)
        if va != vb:
            return False
        ya, xa = divmod(ca, STRIDE)
        yb, xb = divmod(cb, STRIDE)
        if va:  # vertical edges: left side of cell x
            if width < 8:
                return False
            lo, hi = self._minx, self._maxx + 1
            return (xa == lo and xb == hi) or (xa == hi and xb == lo)
        if height < 8:
            return False
        lo, hi = self._miny, self._maxy + 1
        return (ya == lo and yb == hi) or (ya == hi and yb == lo)

    # ------------------------------------------------------------------
    # undo

    def pop(self) -> Move:
        """Take back the last turn (chosen and forced tiles, or a pass) and
        all it changed (a PointTrax score, a cleared area, a fresh one: the
        old area comes back exactly); return its move."""
        if not self._turns:
            raise IllegalMoveError("there is no move to take back")
        turn = self._turns.pop()
        self._forget_legality_near(turn.placed)
        self._undo(turn)
        extra = turn.extra
        if extra is not None:
            if extra.area is not None:
                self._restore_area(extra.area)
            self._scores[:] = extra.scores
            self._reset_due = extra.reset_due
            del self._areas[extra.areas:]
        return turn.move

    def _undo(self, turn: _Turn) -> None:
        tiles = self._tiles
        for cell in turn.placed:
            del tiles[cell]
        ends = self._ends
        for key, old in reversed(turn.ends_log):
            if old is None:
                ends.pop(key, None)
            else:
                ends[key] = old
        keys = self._keys
        for cell, old in reversed(turn.keys_log):
            if old is None:
                del keys[cell]
            else:
                keys[cell] = old
        self._minx, self._maxx, self._miny, self._maxy = turn.bbox
        self._outcome = turn.outcome
        turn.placed.clear()
        turn.ends_log.clear()
        turn.keys_log.clear()

    # ------------------------------------------------------------------
    # legal moves

    def _forget_legality_near(self, cells: list[int]) -> None:
        deps = self._deps
        cache = self._lcache
        for c in cells:
            for q in (c, c - STRIDE, c + 1, c + STRIDE, c - 1):
                stale = deps.pop(q, None)
                if stale:
                    for key in stale:
                        cache.pop(key, None)

    def _turn_is_legal(self, cell: int, tile: int) -> bool:
        """Would placing ``tile`` at the empty frontier ``cell`` be a legal
        turn?  (Fitting and size limits are the caller's business.)"""
        return tile in self._cell_legality(cell)[1]

    def _cell_legality(self, cell: int) -> tuple[int, tuple[int, ...], tuple[Move, ...]]:
        """(base, legal tiles, their Moves) for a frontier cell, cached.

        ``base`` is the cell id of ``@0`` when the Moves were made; when the
        formation has grown up or left since, the Moves are made anew from
        the tiles without deciding legality again."""
        base = (self._miny - 1) * STRIDE + self._minx - 1
        entry = self._lcache.get(cell)
        if entry is not None:
            if entry[0] == base:
                return entry
            legal_tiles = entry[1]
        else:
            legal: list[int] = []
            region: set[int] = set()
            for _, tile in FITS[self._keys[cell]]:
                ok, reads = self._try_turn(cell, tile)
                region.update(reads)
                if ok:
                    legal.append(tile)
            legal_tiles = tuple(legal)
            deps = self._deps
            for q in region:
                waiting = deps.get(q)
                if waiting is None:
                    deps[q] = [cell]
                else:
                    waiting.append(cell)
        row, col = divmod(cell - base, STRIDE)
        entry = (base, legal_tiles, tuple(Move(col, row, SYMBOL[t], t) for t in legal_tiles))
        self._lcache[cell] = entry
        return entry

    def _try_turn(self, cell: int, tile: int) -> tuple[bool, Iterable[int]]:
        """Legality of a placement and the cells the answer depends on."""
        tiles = self._tiles
        kget = self._keys.get
        contrib = CONTRIB[tile]
        for d in (N, E, S, W):
            n = cell + DELTA[d]
            if n not in tiles and FORCE[kget(n, 0) | contrib[d]]:
                break
        else:  # nothing forced: nothing can go wrong
            return True, (cell, cell - STRIDE, cell + 1, cell + STRIDE, cell - 1)
        # Something is forced: follow the chain on a scratch layer of entry
        # keys.  A tile adds its ends to its neighbours' keys the moment it
        # is placed, so every key read below is complete.
        extra: dict[int, int] = {}
        tiles[cell] = tile
        placed = [cell]
        check = []
        for d in (N, E, S, W):
            n = cell + DELTA[d]
            if n not in tiles:
                extra[n] = kget(n, 0) | contrib[d]
                check.append(n)
        try:
            while check:
                p = check.pop()
                if p in tiles:
                    continue
                f = FORCE[extra[p]]
                if not f:
                    continue
                if f < 0:
                    return False, [*placed, *extra]
                tiles[p] = f
                placed.append(p)
                contrib = CONTRIB[f]
                for d in (N, E, S, W):
                    n = p + DELTA[d]
                    if n not in tiles:
                        k = extra.get(n)
                        extra[n] = (kget(n, 0) if k is None else k) | contrib[d]
                        check.append(n)
            return True, [*placed, *extra]
        finally:
            for c in placed:
                del tiles[c]

    def _candidates(self) -> Iterator[tuple[int, int, str]]:
        """(cell, tile, symbol) for every fitting placement within the size
        limit, legal or not, in reading order."""
        limit = self.variant.max_size
        minx, maxx, miny, maxy = self._minx, self._maxx, self._miny, self._maxy
        keys = self._keys
        for cell in sorted(keys):
            if limit is not None:
                y, x = divmod(cell, STRIDE)
                if max(maxx, x) - min(minx, x) >= limit or max(maxy, y) - min(miny, y) >= limit:
                    continue
            for sym, tile in FITS[keys[cell]]:
                yield cell, tile, sym

    def _any_legal(self) -> bool:
        legal = self._turn_is_legal
        return any(legal(cell, tile) for cell, tile, _ in self._candidates())

    def legal_moves(self) -> list[Move]:
        """Every distinct cell+symbol whose whole turn is legal, in reading
        order (row, then column, then ``+ / \\``); empty once the game is over.
        The first move (``@0+``, ``@0/``) on an empty board or when a
        PointTrax reset is due.  Never a pass: the engine does not know the
        tile a LuckyTrax player drew (see :meth:`placements`)."""
        if self._outcome is not None:
            return []
        if not self._tiles or self._reset_due:
            return [Move(0, 0, "+", 5), Move(0, 0, "/", 9)]
        if self._lastloses and self.outcome() is not None:
            return []
        # Cells are y * STRIDE + x, so sorted cells are in reading order, and
        # FITS lists the symbols in + / \ order.
        keys = self._keys
        if self.variant.max_size is not None:
            cells = sorted({cell for cell, _, _ in self._candidates()})
        else:
            cells = sorted(keys)
        cache = self._lcache.get
        base = (self._miny - 1) * STRIDE + self._minx - 1
        legality = self._cell_legality
        out: list[Move] = []
        for cell in cells:
            entry = cache(cell)
            if entry is None or entry[0] != base:
                entry = legality(cell)
            out.extend(entry[2])
        return out

    def placements(self, face: int) -> list[Move]:
        """LuckyTrax: every legal turn whose chosen tile is ``face`` (a white
        mask: 5, 10, 9, 6, 3 or 12; see :mod:`.tiles`), in reading order;
        empty once the game is over, and when the face fits nowhere (the
        player passes).

        The first tile of a board (or of a fresh PointTrax area) fixes the
        board's orientation, and any face can be turned to match it: a
        straight face (5 or 10) gives ``[@0+]`` and a curve face (9, 6, 3
        or 12) gives ``[@0/]``."""
        if face not in SYMBOL or isinstance(face, bool):
            raise ValueError(f"{face!r} is not a tile face; the faces are the white masks 5, 10, 9, 6, 3 and 12")
        if self.outcome() is not None:
            return []
        if not self._tiles or self._reset_due:
            return [Move(0, 0, "+", 5)] if SYMBOL[face] == "+" else [Move(0, 0, "/", 9)]
        return [move for move in self.legal_moves() if move.tile == face]

    def count_sequences(self, depth: int) -> int:
        """Number of distinct move sequences of ``depth`` turns from here
        (the counting check: 2, 24, 432, 9568, 246888 from the empty board)."""
        moves = self.legal_moves()
        if depth <= 1:
            return len(moves) if depth == 1 else 1
        total = 0
        for move in moves:
            self.play(move)
            total += self.count_sequences(depth - 1)
            self.pop()
        return total
