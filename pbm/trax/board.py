"""The Trax board: placement, forced plays, wins, undo and legal moves.

Design notes (speed matters: the server replays games and the benchmarks run
playouts and the counting check):

* Tiles live in a dict ``cell -> white mask`` (see :mod:`.tiles`); a
  neighbour is one integer addition away.  The dict keeps the order tiles
  were placed in, so the tiles of the last turn are its last entries.
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
* Undo keeps almost nothing: a turn is 16 bytes (its move, how it grew the
  bounding box, how many tiles it placed).  Taking a tile back works out
  everything else from the tiles still there: the entry keys from the
  neighbours, the path ends from the tile's own edges, except where a tile
  joined two paths, whose far end is the one number kept per join.  A
  250-move game keeps a few kilobytes of history; the moves as Move
  objects are made when first asked for.
* Legal moves are decided per frontier cell and kept between turns: an
  answer that read cells up to ``r`` steps away is dropped when a turn
  places (or takes back) a tile within ``r + 1`` steps.  A tile that forces
  nothing is always legal.  The others are decided by what their forced
  chains read, looked up in a decision tree of answers that all boards
  share and learn from the positions they meet (:data:`_ANSWERS`): a chain
  is played out, on a scratch layer, only where what it reads is new.  The
  Moves of the list are made once and shared (:func:`_move`).
* :meth:`Board.count_sequences` plays cell and tile numbers on the board's
  own dictionaries, with no Move objects and no records, and counts the
  last ply from the kept answers.
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

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from .errors import IllegalMoveError, NotationError, TraxError
from .notation import PASS_WORD, NewNotation, OldNotation, column_letters, parse_notation
from .outcome import Outcome
from .render import render
from .tiles import (
    BLACK,
    COLOUR_NAMES,
    COLOURS_IN,
    DELTA,
    DIRECTION_NAMES,
    EDGE_OFFSET,
    FIT_TILES,
    FITS,
    FORCE,
    KEY_OF,
    NEIGHBOURS,
    OPPOSITE,
    ORIGIN,
    PATHS,
    SAFE,
    SIG,
    STRIDE,
    SYMBOL,
    TILE_FOR,
    TILES_OF_SYMBOL,
    TRACKS,
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


# ----------------------------------------------------------------------
# Shared Move objects.  A Move is immutable, so every board hands out the
# same object for the same column, row and tile instead of making one per
# legal move per turn.  The tables are cleared when they grow large.

_MOVES: dict[int, Move] = {}
_MOVE_SETS: dict[int, tuple[Move, ...]] = {}
_SHARED_LIMIT = 1 << 14


def _move(column: int, row: int, tile: int) -> Move:
    """The (shared) Move placing ``tile`` at ``column``, ``row``."""
    key = (column << 24 | row) << 4 | tile
    move = _MOVES.get(key)
    if move is None:
        if len(_MOVES) >= _SHARED_LIMIT:
            _MOVES.clear()
        move = _MOVES[key] = Move(column, row, SYMBOL[tile], tile)
    return move


def _moves_at(offset: int, mask: int, tiles: tuple[int, ...]) -> tuple[Move, ...]:
    """The (shared) Moves placing each of ``tiles`` (whose bits are ``mask``)
    at the cell ``offset`` from ``@0`` (``row * STRIDE + column``)."""
    key = offset << 13 | mask
    moves = _MOVE_SETS.get(key)
    if moves is None:
        if len(_MOVE_SETS) >= _SHARED_LIMIT:
            _MOVE_SETS.clear()
        row, column = divmod(offset, STRIDE)
        moves = _MOVE_SETS[key] = tuple(_move(column, row, t) for t in tiles)
    return moves


# Cell offsets within two steps of a cell, and exactly three steps away: a
# legality answer that read cells up to r steps away is stale once a turn
# places a tile within r + 1 steps (the tile changes its neighbours' keys).
_NEAR = tuple(dy * STRIDE + dx for dy in range(-2, 3) for dx in range(-2, 3) if abs(dx) + abs(dy) <= 2)
_RING3 = tuple(dy * STRIDE + dx for dy in range(-3, 4) for dx in range(-3, 4) if abs(dx) + abs(dy) == 3)
_DELTAS = (DELTA[N], DELTA[E], DELTA[S], DELTA[W])
_SIG_N, _SIG_E, _SIG_S, _SIG_W = SIG
# the area coordinates (see Board.frame) of a cell are its own less the first tile's
_ORIGIN_Y, _ORIGIN_X = divmod(ORIGIN, STRIDE)
#: _BALLS[r]: the cell offsets at most r steps away (for r up to 3).
_BALLS = tuple(
    tuple(dy * STRIDE + dx for dy in range(-r, r + 1) for dx in range(-r, r + 1) if abs(dx) + abs(dy) <= r)
    for r in range(4)
)

# A legality answer for one frontier cell: (the legal tiles in symbol
# order, the farthest it read in steps, the tiles' bits).
_Entry: TypeAlias = tuple[tuple[int, ...], int, int]


class _Node:
    """What is known of a frontier cell's legality when some tiles are not
    decided by what was read so far (see :data:`_ANSWERS`): the legal tiles
    among those decided, how far their answers read (steps), their bits,
    the tiles not decided yet, and for those the cells to read next (offsets
    from the cell: the cells their chains force at the next step, whose keys
    say which tile goes there, then those cells' other neighbours, of which
    only the colours entering count).  ``full`` is None when the chains run
    farther than is worth learning: the pending tiles are then played out
    where they are met.  ``ident`` numbers the node: what is known after the
    next reading is under ``reading << _IDENT_BITS | ident``."""

    __slots__ = ("colours", "full", "ident", "mask", "pending", "reach", "tiles")

    def __init__(self, tiles: tuple[int, ...], reach: int, mask: int, pending: tuple[int, ...],
                 full: tuple[int, ...] | None, colours: tuple[int, ...]) -> None:
        self.tiles = _shared(tiles)
        self.reach = reach
        self.mask = mask
        self.pending = _shared(pending)
        self.full = None if full is None else _shared(full)
        self.colours = _shared(colours)
        _LEARNT[0] += 1
        # numbers are never reused, not even after the tree is emptied, and
        # next() on a count is atomic: a board learning in another thread
        # can only write entries nobody reads, never one under a live key
        self.ident = next(_IDENTS)


# A frontier cell's legality answer depends on nothing but the cells it
# read, and a tile's answer on nothing but the cells its forced chain
# reaches: the keys of the cells it forces (which tile goes there) and the
# colours entering their neighbours (whether the chain goes on, or meets
# three ends of one colour).  _ANSWERS is a decision tree over those
# readings, learnt from the boards it is used on.  Its root is keyed by the
# cell's key and which colours enter its neighbours (``key << 8 | sig``,
# which decides every tile that forces nothing); a _Node says which cells to
# read next for the tiles still undecided, and what is known after reading
# them is under the reading (with a leading 1 bit) shifted above the node's
# number: an answer, or another _Node.  A chain is played out only where its
# readings are met for the first time (or when it runs farther than
# _LEARN_STEPS).  The tree holds for every board and game type (the size
# limit is applied apart) and is emptied when it grows large.  The answers
# themselves are shared tuples (_SAME).
_ANSWERS: dict[int, _Entry | _Node] = {}
_SAME: dict[_Entry, _Entry] = {}
_TUPLES: dict[tuple[int, ...], tuple[int, ...]] = {}
_LEARNT = [0]  # the nodes made since the tree was last emptied
_IDENTS = itertools.count(1)  # numbers the nodes (never reset)
_IDENT_BITS = 40  # room for the numbers below a reading in a key
_LEARN_LIMIT = 1 << 15  # entries (some 5 MB at most)
_LEARN_STEPS = 3


def _shared(numbers: tuple[int, ...]) -> tuple[int, ...]:
    """One tuple for all equal tuples the tree holds."""
    return _TUPLES.setdefault(numbers, numbers)


def _forget_learnt() -> None:
    """Empty the tree of learnt answers (when it grows large; the benchmark
    and the tests start from an empty one)."""
    _ANSWERS.clear()
    _SAME.clear()
    _TUPLES.clear()
    _LEARNT[0] = 0


# A turn as the board keeps it: two unsigned 64-bit words in the machine's
# byte order (so that memoryview.cast("Q") reads them all at once), the move
#   column << 30 | row << 8 | flags << 4 | chosen tile
# and the number of tiles the turn placed.
_RECORD = 16
_NATIVE: Literal["little", "big"] = (
    "little" if memoryview(bytes((1, 0, 0, 0, 0, 0, 0, 0))).cast("Q")[0] == 1 else "big"
)
_COORD_MASK = (1 << 22) - 1
_GREW_RIGHT = 1  # the chosen tile widened the formation to the right
_GREW_DOWN = 2  # ... or made it taller at the bottom
_FIRST = 4  # the first tile of the game or of a fresh PointTrax area
_PASSED = 8  # a LuckyTrax pass


@dataclass(slots=True)
class _Area:
    """A playing area put aside when a PointTrax line cleared it."""

    tiles: dict[int, int]
    ends: dict[int, int]
    keys: dict[int, int]
    bbox: tuple[int, int, int, int]
    legal: dict[int, _Entry]
    far: set[int]


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

    __slots__ = (
        "__weakref__",
        "_areas",
        "_elog",
        "_end_cache",
        "_ending",
        "_ends",
        "_extras",
        "_far",
        "_keys",
        "_lastloses",
        "_legal",
        "_limit",
        "_lines_win",
        "_log",
        "_maxx",
        "_maxy",
        "_minx",
        "_miny",
        "_movelist",
        "_outcome",
        "_ply",
        "_points",
        "_reset_due",
        "_scores",
        "_special",
        "_tiles",
        "_version",
        "variant",
    )

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
        self._limit = v.max_size
        self._lines_win = v.lines_win
        # LuckyTrax and PointTrax turns go through _play_special; the other
        # game types never look at what they need
        self._special = v.drawn or v.points is not None
        self._tiles: dict[int, int] = {}
        self._ends: dict[int, int] = {}
        # frontier: empty cell touching the formation -> its entry key
        self._keys: dict[int, int] = {}
        self._minx = self._maxx = self._miny = self._maxy = 0
        # each turn in _RECORD bytes, the number of turns, and the far ends
        # of the paths each placed tile joined, in the order they were
        # joined; the moves as Move objects are made when first asked for
        # (see moves) and kept in step from then on
        self._log = bytearray()
        self._ply = 0
        self._movelist: list[Move] | None = None
        self._elog: list[int] = []
        # LuckyTrax and PointTrax: what each turn changed beyond the tiles
        self._extras: dict[int, _Extra] = {}
        self._outcome: Outcome | None = None
        # Counts every play and pop, so that a position is known again: the
        # ending of a limited area is decided once per position.
        self._version = 0
        self._end_cache: tuple[int, Outcome | None] = (-1, None)
        # The legal tiles of each frontier cell, kept between turns, and the
        # cells among them whose answers read three or more steps away.
        self._legal: dict[int, _Entry] = {}
        self._far: set[int] = set()
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
        if not 0 <= n <= self._ply:
            raise ValueError(f"there is no move {n}; this game has {self._ply} moves")
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
        if not self._ply:
            return ()
        extra = self._extras.get(self._ply - 1)
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
        if self._movelist is None:
            view = memoryview(self._log)
            try:
                words = view.cast("Q").tolist()
            finally:
                view.release()
            self._movelist = [_recorded(code) for code in words[::2]]
        return tuple(self._movelist)

    @property
    def ply(self) -> int:
        """Number of moves played so far."""
        return self._ply

    @property
    def turn(self) -> str:
        """The colour to move: ``"white"`` or ``"black"``."""
        return "white" if self._ply % 2 == 0 else "black"

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

    def _last_cells(self) -> list[int]:
        """The cells the last turn placed, in the order it placed them (the
        last entries of the tiles dict)."""
        if not self._ply:
            return []
        count = int.from_bytes(self._log[-8:], _NATIVE)
        out: list[int] = []
        if count:
            newest = reversed(self._tiles)
            for _ in range(count):
                out.append(next(newest))
            out.reverse()
        return out

    def _record(self, code: int, count: int, move: Move) -> None:
        """Keep a turn: its move (as ``code``, see ``_RECORD``) and the
        number of tiles it placed."""
        self._log += code.to_bytes(8, _NATIVE) + count.to_bytes(8, _NATIVE)
        self._ply += 1
        self._version += 1
        if self._movelist is not None:
            self._movelist.append(move)

    def last_placed(self) -> list[tuple[int, int]]:
        """Cells (column, row) placed by the last turn, the chosen one first,
        then the tiles it forced; empty before the first move and after a
        pass."""
        out = []
        for cell in self._last_cells():
            y, x = divmod(cell, STRIDE)
            out.append((x - self._minx + 1, y - self._miny + 1))
        return out

    def last_turn(self) -> LastTurn | None:
        """The last turn's move, chosen tile and forced tiles (see
        :class:`LastTurn`; a pass has no tile); None before the first move."""
        if not self._ply:
            return None
        made = self._movelist
        move = made[-1] if made is not None else _recorded(int.from_bytes(self._log[-16:-8], _NATIVE))
        placed = self._last_cells()
        if not placed:
            return LastTurn(move, None, ())
        chosen, *forced = (self._placed_move(cell) for cell in placed)
        return LastTurn(move, chosen, tuple(forced))

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
        if outcome is None or outcome.reason not in ("loop", "line") or not self._ply:
            return None
        colour = COLOUR_NAMES.index(outcome.winner)
        width = self._maxx - self._minx + 1
        height = self._maxy - self._miny + 1
        tiles = self._tiles
        seen: set[int] = set()
        for start in self._last_cells():
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
            self._ply,
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
            cached, ended = self._end_cache
            if cached != self._version:
                ended = self._decide_ending()
                self._end_cache = (self._version, ended)
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
        taken back at once; nothing else (the legality answers, the move
        list) notices."""
        old_bbox = (self._minx, self._maxx, self._miny, self._maxy)
        y, x = divmod(cell, STRIDE)
        self._minx, self._maxx = min(self._minx, x), max(self._maxx, x)
        self._miny, self._maxy = min(self._miny, y), max(self._maxy, y)
        links = self._new_links()
        placed: list[int] = []
        try:
            bad, loops = self._run(cell, tile, placed, links)
            assert bad is None, "only legal turns are tried"
            return not loops and not self._lines(links)
        finally:
            self._unrun(len(placed))
            self._minx, self._maxx, self._miny, self._maxy = old_bbox

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
        return self._parse(text)[2]

    def _parse(self, text: str | Move) -> tuple[int, int, Move]:
        """:meth:`parse_move`, with the cell and tile it resolves to (0 and 0
        for a pass)."""
        if self._reset_due:
            saved = self._clear_area()
            self._reset_due = False
            try:
                return self._parse(text)
            finally:
                self._restore_area(saved)
                self._reset_due = True
        if isinstance(text, Move):
            if text.symbol == PASS_SYMBOL:
                return 0, 0, self._pass()
            spec: NewNotation | OldNotation = NewNotation(text.column, text.row, text.symbol)
        else:
            try:
                spec = parse_notation(text)
            except NotationError:
                if isinstance(text, str) and text.strip().lower() == PASS_WORD:
                    return 0, 0, self._pass()
                raise
        if isinstance(spec, NewNotation):
            cell, tile = self._resolve_new(spec)
        else:
            cell, tile = self._resolve_old(spec)
        return cell, tile, self._move_for(cell, tile)

    def _pass(self) -> Move:
        if not self.variant.drawn:
            raise IllegalMoveError(
                f"a turn cannot be passed in {self.variant.title}: a pass is only for LuckyTrax, "
                "when the tile drawn fits nowhere"
            )
        return PASS

    def _move_for(self, cell: int, tile: int) -> Move:
        if not self._tiles:
            return _move(0, 0, tile)
        y, x = divmod(cell, STRIDE)
        return _move(x - self._minx + 1, y - self._miny + 1, tile)

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
        if self._outcome is not None or (self._ending is not None and self.outcome() is not None):
            raise IllegalMoveError("the game is over; no more moves can be played")
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
                        resolved = move if move.tile == tile else _move(column, row, tile)
                        loops, links = self._play_tile(cell, tile, resolved)
                        if loops or links:
                            self._settle_wins(loops, links)
                        return resolved
        cell, tile, resolved = self._parse(move)
        loops, links = self._play_tile(cell, tile, resolved)
        if loops or links:
            self._settle_wins(loops, links)
        return resolved

    def _play_special(self, move: str | Move) -> Move:
        """:meth:`play` in LuckyTrax and PointTrax: passes, scores and the
        fresh areas, each logged with the turn for :meth:`pop`."""
        cell, tile, resolved = self._parse(move)
        extra = _Extra((self._scores[WHITE], self._scores[BLACK]), self._reset_due, len(self._areas))
        if resolved.symbol == PASS_SYMBOL:
            self._extras[self._ply] = extra
            self._record(_PASSED << 4, 0, resolved)
            return resolved
        if self._reset_due:
            extra.area = self._clear_area()
            self._reset_due = False
        try:
            loops, links = self._play_tile(cell, tile, resolved)
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
        return resolved

    def _new_links(self) -> list[_Link] | None:
        """A list to collect the paths a turn joins when a line is possible
        (lines win and the formation is at least 8 wide or tall), else None."""
        if self._lines_win and (self._maxx - self._minx >= 7 or self._maxy - self._miny >= 7):
            return []
        return None

    def _play_tile(self, cell: int, tile: int, resolved: Move) -> tuple[int, list[_Link] | None]:
        """Place ``tile`` at ``cell`` (the chosen tile of ``resolved``) and
        all it forces, and log the turn.  Returns the colours (bits) whose
        loops it closed and the paths it joined (None when no line is
        possible).  Raises :class:`IllegalMoveError` with the board
        unchanged."""
        old_bbox = (self._minx, self._maxx, self._miny, self._maxy)
        y, x = divmod(cell, STRIDE)
        if not self._tiles:
            flags = _FIRST
            self._minx = self._maxx = x
            self._miny = self._maxy = y
        else:
            flags = 0
            if x < self._minx:
                self._minx = x
            elif x > self._maxx:
                self._maxx = x
                flags = _GREW_RIGHT
            if y < self._miny:
                self._miny = y
            elif y > self._maxy:
                self._maxy = y
                flags |= _GREW_DOWN
            limit = self._limit
            if limit is not None and (self._maxx - self._minx >= limit or self._maxy - self._miny >= limit):
                self._minx, self._maxx, self._miny, self._maxy = old_bbox
                raise IllegalMoveError(
                    f"{resolved} would make the formation larger than {limit}x{limit}, "
                    f"which {self.variant.title} does not allow"
                )
        links = self._new_links()
        placed: list[int] = []
        bad, loops = self._run(cell, tile, placed, links)
        if bad is not None:
            self._unrun(len(placed))
            self._minx, self._maxx, self._miny, self._maxy = old_bbox
            raise IllegalMoveError(
                f"{resolved} is an illegal turn: its forced tiles would bring three track ends "
                f"of one colour into {self.cell_name(bad)}; the board is unchanged, choose another move"
            )
        self._record(((resolved.column << 22 | resolved.row) << 4 | flags) << 4 | tile, len(placed), resolved)
        if self._legal:
            self._forget_near(placed)
        return loops, links

    def _run(self, cell: int, tile: int, placed: list[int], links: list[_Link] | None) -> tuple[int | None, int]:
        """Place the chosen tile and all forced ones (appending their cells
        to ``placed``).  Returns a cell with three same-coloured ends (an
        illegal turn: the caller takes back what was placed) or None, and
        the colours (bits) whose loops closed."""
        tiles = self._tiles
        keys = self._keys
        place = self._place
        loops = place(cell, tile, links)
        placed.append(cell)
        stack = [cell]
        while stack:
            p = stack.pop()
            for step in _DELTAS:
                n = p + step
                if n in tiles:
                    continue
                f = FORCE[keys[n]]
                if f:
                    if f < 0:
                        return n, loops
                    loops |= place(n, f, links)
                    placed.append(n)
                    stack.append(n)
        return None, loops

    def _place(self, cell: int, tile: int, links: list[_Link] | None) -> int:
        """Put one tile down: its cell leaves the frontier, its empty
        neighbours hear its ends, and its paths join the paths they touch.
        Returns the colours (bits) of the loops it closed."""
        tiles = self._tiles
        keys = self._keys
        tiles[cell] = tile
        keys.pop(cell, None)  # the first tile of an area was in no frontier
        kget = keys.get
        occupied = 0
        for step, bits, direction in NEIGHBOURS[tile]:
            n = cell + step
            if n in tiles:
                occupied |= direction
            else:
                keys[n] = kget(n, 0) | bits
        ends = self._ends
        loops = 0
        base = 2 * cell
        for _, oa, _, ob, abit, bbit, colour in TRACKS[tile]:
            ea = base + oa
            eb = base + ob
            if occupied & abit:
                fa = ends.pop(ea)
                if occupied & bbit:
                    fb = ends.pop(eb)
                    self._elog.append(fa)
                    if fa == eb:  # the path came back: a loop
                        loops |= colour
                        continue
                else:
                    fb = eb
            elif occupied & bbit:
                fa = ea
                fb = ends.pop(eb)
            else:
                fa = ea
                fb = eb
            ends[fa] = fb
            ends[fb] = fa
            if links is not None:
                links.append((fa, fb, colour >> 1))
        return loops

    def _unrun(self, count: int) -> list[int]:
        """Take back the last ``count`` tiles placed, newest first; returns
        their cells."""
        tiles = self._tiles
        keys = self._keys
        ends = self._ends
        elog = self._elog
        removed = []
        for _ in range(count):
            cell, tile = tiles.popitem()
            removed.append(cell)
            occupied = 0
            for step, bits, direction in NEIGHBOURS[tile]:
                n = cell + step
                if n in tiles:
                    occupied |= direction
                else:
                    k = keys[n] - bits
                    if k:
                        keys[n] = k
                    else:
                        del keys[n]
            if occupied:
                keys[cell] = KEY_OF[tile][occupied]
            base = 2 * cell
            black, white = TRACKS[tile][1], TRACKS[tile][0]
            for _, oa, _, ob, abit, bbit, _ in (black, white):
                ea = base + oa
                eb = base + ob
                if occupied & abit:
                    if occupied & bbit:
                        fa = elog.pop()
                        if fa == eb:
                            ends[ea] = eb
                            ends[eb] = ea
                        else:
                            fb = ends.pop(fa)
                            ends[fa] = ea
                            ends[ea] = fa
                            ends[fb] = eb
                            ends[eb] = fb
                    else:
                        fa = ends.pop(eb)
                        ends[fa] = ea
                        ends[ea] = fa
                elif occupied & bbit:
                    fb = ends.pop(ea)
                    ends[fb] = eb
                    ends[eb] = fb
                else:
                    del ends[ea]
                    del ends[eb]
        return removed

    def _settle_wins(self, loops: int, links: list[_Link] | None) -> None:
        wins = loops
        if links:
            for colour in self._lines(links):
                wins |= 1 << colour
        if not wins:
            return
        mover = WHITE if self._ply % 2 == 1 else BLACK
        winner = mover if wins >> mover & 1 else 1 - mover
        self._outcome = Outcome(COLOUR_NAMES[winner], "loop" if loops >> winner & 1 else "line")

    def _lines(self, links: list[_Link] | None) -> set[int]:
        """The colours of the paths a turn joined (``links``) that are lines
        now that it is over (none where lines do not count)."""
        lines: set[int] = set()
        if not links or not self._lines_win:
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

    def _score(self, extra: _Extra, loops: int, links: list[_Link] | None) -> None:
        """Score what the turn just played completed: each loop and line its
        owner's tiles; a line clears the area (the reset is due), a score at
        the target with more points than the other wins."""
        lines = self._lines(links)
        if not loops and not lines:
            return
        closed = {colour for colour in (WHITE, BLACK) if loops >> colour & 1}
        scored = self._completed(self._last_cells(), closed, lines)
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
            self._areas.append(self._ply)

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
                     self._legal, self._far)
        self._tiles, self._ends, self._keys, self._legal, self._far = {}, {}, {}, {}, set()
        self._minx = self._maxx = self._miny = self._maxy = 0
        return area

    def _restore_area(self, area: _Area) -> None:
        self._tiles, self._ends, self._keys = area.tiles, area.ends, area.keys
        self._minx, self._maxx, self._miny, self._maxy = area.bbox
        self._legal, self._far = area.legal, area.far

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
        if not self._ply:
            raise IllegalMoveError("there is no move to take back")
        log = self._log
        code = int.from_bytes(log[-16:-8], _NATIVE)
        count = int.from_bytes(log[-8:], _NATIVE)
        del log[-_RECORD:]
        self._ply -= 1
        self._version += 1
        if self._movelist is not None:
            self._movelist.pop()
        if count:
            removed = self._unrun(count)
            flags = code >> 4 & 15
            if flags & _FIRST:
                self._minx = self._maxx = self._miny = self._maxy = 0
            else:
                # the chosen tile (placed first, taken back last) grew the
                # box by at most one step each way: column 0 or row 0 grew
                # it left or up, the flags say right or down
                y, x = divmod(removed[-1], STRIDE)
                if not code >> 30 & _COORD_MASK:
                    self._minx = x + 1
                elif flags & _GREW_RIGHT:
                    self._maxx = x - 1
                if not code >> 8 & _COORD_MASK:
                    self._miny = y + 1
                elif flags & _GREW_DOWN:
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
        return _recorded(code)

    # ------------------------------------------------------------------
    # legal moves

    def _forget_near(self, cells: list[int]) -> None:
        """Drop the legality answers a change at ``cells`` (tiles placed or
        taken back) may have made stale."""
        cache = self._legal
        drop = cache.pop
        get = cache.get
        for c in cells:
            for offset in _NEAR:
                drop(c + offset, None)
            for offset in _RING3:
                entry = get(c + offset)
                if entry is not None and entry[1] >= 2:
                    del cache[c + offset]
        if self._far:
            self._forget_far(cells, None)

    def _forget_near_keeping(self, cells: list[int], kept: list[tuple[int, _Entry]]) -> None:
        """:meth:`_forget_near`, keeping what it drops in ``kept`` (the
        counting check puts it back when it takes the move back)."""
        cache = self._legal
        drop = cache.pop
        get = cache.get
        keep = kept.append
        for c in cells:
            for offset in _NEAR:
                entry = drop(c + offset, None)
                if entry is not None:
                    keep((c + offset, entry))
            for offset in _RING3:
                q = c + offset
                entry = get(q)
                if entry is not None and entry[1] >= 2:
                    del cache[q]
                    keep((q, entry))
        if self._far:
            self._forget_far(cells, kept)

    def _near(self, cells: list[int]) -> set[int]:
        """The cells whose kept answers :meth:`_forget_near` would drop for
        a change at ``cells``."""
        cache = self._legal
        get = cache.get
        near = {c + offset for c in cells for offset in _NEAR}
        for c in cells:
            for offset in _RING3:
                entry = get(c + offset)
                if entry is not None and entry[1] >= 2:
                    near.add(c + offset)
        if self._far:
            where = [divmod(c, STRIDE) for c in cells]
            for cell in self._far:
                entry = get(cell)
                if entry is not None and entry[1] >= 3:
                    y, x = divmod(cell, STRIDE)
                    reach = entry[1] + 1
                    for cy, cx in where:
                        if abs(cx - x) + abs(cy - y) <= reach:
                            near.add(cell)
                            break
        return near

    def _forget_far(self, cells: list[int], kept: list[tuple[int, _Entry]] | None) -> None:
        """Drop the answers that read three or more steps away and lie
        within their reach (plus one) of ``cells``."""
        cache = self._legal
        far = self._far
        where = [divmod(c, STRIDE) for c in cells]
        for cell in list(far):
            entry = cache.get(cell)
            if entry is None or entry[1] < 3:
                far.discard(cell)
                continue
            reach = entry[1] + 1
            y, x = divmod(cell, STRIDE)
            for cy, cx in where:
                if abs(cx - x) + abs(cy - y) <= reach:
                    del cache[cell]
                    far.discard(cell)
                    if kept is not None:
                        kept.append((cell, entry))
                    break

    def _entry(self, cell: int) -> _Entry:
        entry = self._legal.get(cell)
        return self._evaluate(cell) if entry is None else entry

    def _evaluate(self, cell: int) -> _Entry:
        """:meth:`_answer`, kept."""
        entry = self._answer(cell)
        self._legal[cell] = entry
        if entry[1] >= 3:
            self._far.add(cell)
        return entry

    def _answer(self, cell: int) -> _Entry:
        """Decide which tiles that fit the frontier ``cell`` are legal turns:
        looked up in the tree of learnt answers (:data:`_ANSWERS`), reading
        only what the forced chains reach, or learnt (:meth:`_learn`)."""
        kget = self._keys.get
        known = _ANSWERS.get(self._keys[cell] << 8 | _SIG_N[kget(cell - STRIDE, 0)] | _SIG_E[kget(cell + 1, 0)]
                             | _SIG_S[kget(cell + STRIDE, 0)] | _SIG_W[kget(cell - 1, 0)])
        while isinstance(known, _Node):
            full = known.full
            if full is None:
                return self._play_out(cell, known)
            seen = 1
            for offset in full:
                seen = seen << 8 | kget(cell + offset, 0)
            for offset in known.colours:
                seen = seen << 2 | COLOURS_IN[kget(cell + offset, 0)]
            known = _ANSWERS.get(seen << _IDENT_BITS | known.ident)
        return self._learn(cell) if known is None else known

    def _play_out(self, cell: int, node: _Node) -> _Entry:
        """The answer at ``cell`` when ``node`` leaves tiles whose chains run
        too far to learn: those are played out here."""
        reach = node.reach
        mask = node.mask
        legal = []
        for tile in FIT_TILES[self._keys[cell]]:
            if mask >> tile & 1:
                legal.append(tile)
            elif tile in node.pending:
                steps = self._chain(cell, tile)[0]
                if steps > 0:
                    legal.append(tile)
                    mask |= 1 << tile
                reach = max(reach, abs(steps))
        return (tuple(legal), reach, mask)

    def _learn(self, cell: int) -> _Entry:
        """Work out which tiles are legal at ``cell`` by playing their chains,
        and add to :data:`_ANSWERS` what this position teaches along its
        path: at each step, the tiles decided by what was read so far and
        the cells to read next for the others."""
        keys = self._keys
        kget = keys.get
        k = keys[cell]
        sig = (_SIG_N[kget(cell - STRIDE, 0)] | _SIG_E[kget(cell + 1, 0)]
               | _SIG_S[kget(cell + STRIDE, 0)] | _SIG_W[kget(cell - 1, 0)])
        safe = SAFE[sig]
        played: list[tuple[int, int, list[list[int]]]] = []
        for tile in FIT_TILES[k]:
            if safe >> tile & 1:
                played.append((tile, 1, []))
            else:
                steps, levels = self._chain(cell, tile)
                played.append((tile, steps, levels))
        if _LEARNT[0] >= _LEARN_LIMIT or len(_ANSWERS) >= _LEARN_LIMIT:
            _forget_learnt()
        key = k << 8 | sig
        step = 0
        known = _ANSWERS.get(key)
        if known is None:
            known = _ANSWERS[key] = self._node(cell, played, step)
        while isinstance(known, _Node) and known.full is not None:
            seen = 1
            for offset in known.full:
                seen = seen << 8 | kget(cell + offset, 0)
            for offset in known.colours:
                seen = seen << 2 | COLOURS_IN[kget(cell + offset, 0)]
            key = seen << _IDENT_BITS | known.ident
            step += 1
            child = _ANSWERS.get(key)
            if child is None:
                child = _ANSWERS[key] = self._node(cell, played, step)
            known = child
        legal = tuple(tile for tile, steps, _ in played if steps > 0)
        mask = sum(1 << tile for tile in legal)
        return (legal, max(abs(steps) for _, steps, _ in played), mask)

    @staticmethod
    def _node(cell: int, played: list[tuple[int, int, list[list[int]]]], step: int) -> _Entry | _Node:
        """What is known once the cells the chains force up to ``step``
        steps from ``cell`` have been read: the tiles whose answers read no
        farther than ``step + 1`` steps are decided; the answer when all are."""
        decided = [(tile, steps) for tile, steps, _ in played if abs(steps) <= step + 1]
        pending = tuple(tile for tile, steps, _ in played if abs(steps) > step + 1)
        legal = tuple(tile for tile, steps in decided if steps > 0)
        reach = max([1] + [abs(steps) for _, steps in decided])
        mask = sum(1 << tile for tile in legal)
        if not pending:
            answer = (_shared(legal), reach, mask)
            return _SAME.setdefault(answer, answer)
        if step >= _LEARN_STEPS:
            return _Node(legal, reach, mask, pending, None, ())
        # the cells the undecided chains force at the next step (each of
        # them runs farther, so forced some), then their other neighbours
        forced: set[int] = set()
        for _, steps, levels in played:
            if abs(steps) > step + 1:
                forced.update(levels[step])
        around = {c + d for c in forced for d in _DELTAS} - forced - {cell}
        return _Node(legal, reach, mask, pending, tuple(sorted(c - cell for c in forced)),
                     tuple(sorted(c - cell for c in around)))

    def _chain(self, cell: int, tile: int) -> tuple[int, list[list[int]]]:
        """Play the forced chain of ``tile`` at ``cell`` on a scratch layer of
        entry keys, one step away from the cell after another.  Returns how
        many steps away the answer read (one more than the farthest forced
        tile), negated when the turn is illegal (three ends of one colour
        meet), and the cells each step forced.

        Cells forced at the same step lie at the same parity, so none of them
        touches another: each step's tiles can go down in any order."""
        tiles = self._tiles
        kget = self._keys.get
        scratch: dict[int, int] = {}
        level = []
        for step, bits, _ in NEIGHBOURS[tile]:
            n = cell + step
            if n not in tiles:
                k = kget(n, 0) | bits
                scratch[n] = k
                if FORCE[k]:
                    level.append(n)
        placed = {cell}
        levels: list[list[int]] = []
        depth = 1
        while level:
            following = []
            went: list[int] = []
            levels.append(went)
            for p in level:
                if p in placed:
                    continue
                f = FORCE[scratch[p]]
                if f < 0:
                    return -depth, levels
                placed.add(p)
                went.append(p)
                for step, bits, _ in NEIGHBOURS[f]:
                    n = p + step
                    if n in tiles or n in placed:
                        continue
                    known = scratch.get(n)
                    k = (kget(n, 0) if known is None else known) | bits
                    scratch[n] = k
                    if FORCE[k]:
                        following.append(n)
            level = following
            depth += 1
        return depth, levels

    def _turn_is_legal(self, cell: int, tile: int) -> bool:
        """Would placing ``tile`` at the empty frontier ``cell`` be a legal
        turn?  (Fitting and size limits are the caller's business.)"""
        return tile in self._entry(cell)[0]

    def _frontier(self) -> list[int]:
        """The frontier cells a chosen tile may go into (within the size
        limit), in reading order."""
        keys = self._keys
        limit = self._limit
        if limit is None:
            return sorted(keys)
        lo_x, hi_x = self._maxx - limit + 1, self._minx + limit - 1
        lo_y, hi_y = self._maxy - limit + 1, self._miny + limit - 1
        return sorted(c for c in keys if lo_x <= c % STRIDE <= hi_x and lo_y <= c // STRIDE <= hi_y)

    def _candidates(self) -> Iterator[tuple[int, int, str]]:
        """(cell, tile, symbol) for every fitting placement within the size
        limit, legal or not, in reading order."""
        keys = self._keys
        for cell in self._frontier():
            for sym, tile in FITS[keys[cell]]:
                yield cell, tile, sym

    def _any_legal(self) -> bool:
        entry = self._entry
        return any(entry(cell)[0] for cell in self._frontier())

    def legal_moves(self) -> list[Move]:
        """Every distinct cell+symbol whose whole turn is legal, in reading
        order (row, then column, then ``+ / \\``); empty once the game is over.
        The first move (``@0+``, ``@0/``) on an empty board or when a
        PointTrax reset is due.  Never a pass: the engine does not know the
        tile a LuckyTrax player drew (see :meth:`placements`)."""
        if self._outcome is not None:
            return []
        if not self._tiles or self._reset_due:
            return [_move(0, 0, 5), _move(0, 0, 9)]
        if self._lastloses and self.outcome() is not None:
            return []
        # Cells are y * STRIDE + x, so sorted cells are in reading order, and
        # the answers list the tiles in + / \ order.  The Moves of a cell are
        # shared, found by the cell's offset from @0 and the tiles' bits.
        base = (self._miny - 1) * STRIDE + self._minx - 1
        cache = self._legal
        get = cache.get
        answer = self._answer
        shared = _MOVE_SETS.get
        out: list[Move] = []
        for cell in (sorted(self._keys) if self._limit is None else self._frontier()):
            entry = get(cell)
            if entry is None:
                entry = cache[cell] = answer(cell)
                if entry[1] >= 3:
                    self._far.add(cell)
            moves = shared((cell - base) << 13 | entry[2])
            if moves is None:
                moves = _moves_at(cell - base, entry[2], entry[0])
            out.extend(moves)
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
            return [_move(0, 0, 5)] if SYMBOL[face] == "+" else [_move(0, 0, 9)]
        return [move for move in self.legal_moves() if move.tile == face]

    # ------------------------------------------------------------------
    # for a search (pbm.ai)
    #
    # A search plays and takes back many thousands of turns and wants to
    # know, cheaply, where things are and which turns win.  These methods
    # read the position in *area coordinates*: ``(x, y)``, x to the right
    # and y down, counted from the first tile of the playing area.  Unlike
    # notation coordinates, which move whenever the formation grows left or
    # up, they name the same cell for as long as the area lasts (a whole
    # game but in PointTrax, where a line starts a fresh area).

    def frame(self) -> tuple[int, int]:
        """The area coordinates of column 0, row 0 (the empty cell left of
        and above the formation): a move's cell is at ``(x0 + column, y0 +
        row)``, a tile of :meth:`cells` at ``(x0 + column, y0 + row)``.
        ``(0, 0)`` before the first tile (which goes to ``(0, 0)``).  While
        a PointTrax reset is due it is the frame of the area the position
        still shows; the next move starts a fresh area at ``(0, 0)``."""
        if not self._tiles:
            return (0, 0)
        return (self._minx - 1 - _ORIGIN_X, self._miny - 1 - _ORIGIN_Y)

    def last_tiles(self) -> list[tuple[int, int, int]]:
        """``(x, y, tile)`` in area coordinates of every tile the last turn
        placed, the chosen one first (``[]`` before the first move and after
        a pass).  A search keeps a hash of the position up to date with it."""
        tiles = self._tiles
        out = []
        for cell in self._last_cells():
            y, x = divmod(cell, STRIDE)
            out.append((x - _ORIGIN_X, y - _ORIGIN_Y, tiles[cell]))
        return out

    def track_ends(self) -> list[tuple[int, int, int, int, int]]:
        """Every open track (one whose two ends leave the formation) as
        ``(colour, x1, y1, x2, y2)``: ``WHITE`` (0) or ``BLACK`` (1), and the
        area coordinates of the empty cells its two ends enter.  Closed loops
        are not listed; ``[]`` when the next move starts an area."""
        if self._reset_due:
            return []
        out = []
        for edge, cell, colour, other in self._open_ends():
            if edge < other:
                y, x = divmod(cell, STRIDE)
                oy, ox = divmod(self._end_cell(other)[0], STRIDE)
                out.append((colour, x - _ORIGIN_X, y - _ORIGIN_Y, ox - _ORIGIN_X, oy - _ORIGIN_Y))
        return out

    def _end_cell(self, edge: int) -> tuple[int, int]:
        """The empty cell the open end at ``edge`` enters, and the end's colour."""
        cell = edge >> 1
        tiles = self._tiles
        if edge & 1:  # the left edge of cell: the tile is at cell or left of it
            tile = tiles.get(cell)
            if tile is not None:
                return cell - 1, (tile >> W & 1) ^ 1
            return cell, (tiles[cell - 1] >> E & 1) ^ 1
        tile = tiles.get(cell)
        if tile is not None:
            return cell - STRIDE, (tile >> N & 1) ^ 1
        return cell, (tiles[cell - STRIDE] >> S & 1) ^ 1

    def _open_ends(self) -> Iterator[tuple[int, int, int, int]]:
        """``(edge, empty cell it enters, colour, the track's other end)`` for
        every open end."""
        end_cell = self._end_cell
        for edge, other in self._ends.items():
            cell, colour = end_cell(edge)
            yield edge, cell, colour, other

    def completions(self, stop: int = 0, new_only: bool = False) -> list[tuple[Move, int]]:
        """The legal moves that complete a loop or a line, each with the
        colours it completes (bit 0 white, bit 1 black; both when it closes
        tracks of both colours).

        Either side may play any legal move, so this answers for both: the
        side to move wins at once with a move that completes its colour (in
        the game types where a loop or a line wins), and a move completing
        only the other colour hands that side the game.  In PointTrax it
        lists the moves that score.  ``[]`` once the game is over and when
        the next move starts an area.

        ``stop`` (colour bits) asks for less: the moves that may complete
        those colours are tried first, and the answer ends with the first
        move found that completes one of them (a search that finds a win in
        one needs no more).  Without it the answer is every such move; the
        order is otherwise that of :meth:`legal_moves`, cell by cell.

        ``new_only`` asks only for the completions the last turn made
        possible: the moves whose forced tiles would come near the tiles it
        placed or reach a track it changed (a line that the formation's
        growth makes possible runs through the tiles that made it grow).
        That is every completion, and every colour a move completes, that
        the position before the last turn did not have: all of them when
        that position had none the last turn left standing, which a search
        knows (it has checked them).

        It gives what playing every legal move would show, but plays few of
        them: a loop needs the turn's tiles to reach both ends of one track
        of its colour; a line needs them to reach, on each side, the
        outermost edge or an end whose track's other end lies on that
        side's outermost edge.  The test is made first on the cells within
        the reach the legality answers already know (a turn's forced tiles
        lie no farther from its chosen tile), then on the cells each
        remaining turn's chain takes (worked out on a scratch layer, as
        legality is), and only the turns that pass both are played, on the
        board's own dictionaries, and taken back at once."""
        if self._outcome is not None or not self._tiles or self._reset_due:
            return []
        moves = self.legal_moves()
        if not moves:
            return []
        changed: set[int] | None = None
        recent: list[tuple[int, int]] = []
        if new_only:
            placed = self._last_cells()
            if not placed:
                return []  # a pass changed nothing
            if len(placed) < len(self._tiles):  # else the area's first turn: look at everything
                changed = self._changed_ends(placed)
                recent = [divmod(cell, STRIDE) for cell in placed]
        # the rectangle around the last turn's tiles (how near a cell is to
        # them is measured to it: never farther than the nearest tile)
        if recent:
            top_r = min(py for py, _ in recent)
            bottom_r = max(py for py, _ in recent)
            left_r = min(px for _, px in recent)
            right_r = max(px for _, px in recent)
        else:
            top_r = bottom_r = left_r = right_r = 0
        legal = self._legal
        minx, maxx, miny, maxy = self._minx, self._maxx, self._miny, self._maxy
        base = (miny - 1) * STRIDE + minx - 1
        wide = tall = False
        if self._lines_win:
            wide = maxx - minx >= 6
            tall = maxy - miny >= 6
        # the cell each open end enters and its colour, by edge
        tiles = self._tiles
        where: dict[int, tuple[int, int]] = {}
        for edge in self._ends:
            cell = edge >> 1
            tile = tiles.get(cell)
            if edge & 1:  # the left edge of cell
                if tile is None:
                    where[edge] = (cell, (tiles[cell - 1] >> E & 1) ^ 1)
                else:
                    where[edge] = (cell - 1, (tile >> W & 1) ^ 1)
            elif tile is None:
                where[edge] = (cell, (tiles[cell - STRIDE] >> S & 1) ^ 1)
            else:
                where[edge] = (cell - STRIDE, (tile >> N & 1) ^ 1)
        # the frontier cells of the legal moves with how far their forced
        # tiles may reach, and the moves at each
        reach = 1
        cells: dict[int, list[Move]] = {}
        for move in moves:
            cell = base + move.row * STRIDE + move.column
            at = cells.get(cell)
            if at is None:
                cells[cell] = [move]
                r = legal[cell][1]
                if r > reach:
                    reach = r
            else:
                at.append(move)
        span = 2 * (reach - 1)
        # tracks whose ends are close enough for a turn to join them
        # (nearest first), and the ends whose track's other end is on an
        # outermost edge, by cell (the side: 0 left, 1 right, 2 top, 3
        # bottom); each marked when the last turn changed its track
        pairs: list[tuple[int, int, int, int, int, int, bool]] = []
        hot: dict[int, list[tuple[int, int, bool]]] = {}
        ends_at: dict[int, list[tuple[int, int, bool]]] = {}  # cell -> (colour, other end's cell, changed)
        left, right, top, bottom = minx - 1, maxx + 1, miny - 1, maxy + 1
        for edge, other in self._ends.items():
            a, colour = where[edge]
            b = where[other][0]
            ay, ax = divmod(a, STRIDE)
            by, bx = divmod(b, STRIDE)
            new = changed is None or edge in changed
            ends_at.setdefault(a, []).append((colour, b, new))
            if edge < other:
                d = abs(ay - by) + abs(ax - bx)
                if d <= span:
                    pairs.append((d, colour, ay, ax, by, bx, new))
            if wide:
                if bx == left:
                    hot.setdefault(a, []).append((0, colour, new))
                elif bx == right:
                    hot.setdefault(a, []).append((1, colour, new))
            if tall:
                if by == top:
                    hot.setdefault(a, []).append((2, colour, new))
                elif by == bottom:
                    hot.setdefault(a, []).append((3, colour, new))
        pairs.sort()
        # what the last turn changed (everything when asked for all)
        pairs_new = pairs if changed is None else [pair for pair in pairs if pair[6]]
        hot_new = [divmod(h, STRIDE) for h, found in hot.items() if any(new for _, _, new in found)]
        first: list[int] = []
        later: list[int] = []
        for cell in cells:
            far = legal[cell][1] - 1
            cy, cx = divmod(cell, STRIDE)
            # near: the last turn placed a tile within what the turn reads;
            # elsewhere only the tracks it changed can make a difference
            near = changed is None or (max(0, top_r - cy, cy - bottom_r)
                                       + max(0, left_r - cx, cx - right_r)) <= far + 1
            possible = 0
            if far:
                most = 2 * far
                for d, colour, ay, ax, by, bx, _ in (pairs if near else pairs_new):
                    if d > most:
                        break
                    if abs(cy - ay) + abs(cx - ax) <= far and abs(cy - by) + abs(cx - bx) <= far:
                        possible |= 1 << colour
            line = False
            reached = near
            if not near:
                for hy, hx in hot_new:
                    if abs(cy - hy) + abs(cx - hx) <= far:
                        reached = True
                        break
            if (wide or tall) and reached:
                # sides[colour]: the sides (bits) the turn's tiles may reach,
                # by touching them or by an end whose track runs to them
                touch = ((cx - far <= minx) | (cx + far >= maxx) << 1
                         | (cy - far <= miny) << 2 | (cy + far >= maxy) << 3)
                sides = [touch, touch]
                fresh = near
                if hot:
                    if far < len(_BALLS):
                        for offset in _BALLS[far]:
                            found = hot.get(cell + offset)
                            if found is not None:
                                for side, colour, new in found:
                                    sides[colour] |= 1 << side
                                    fresh = fresh or new
                    else:
                        for h, found in hot.items():
                            hy, hx = divmod(h, STRIDE)
                            if abs(cy - hy) + abs(cx - hx) <= far:
                                for side, colour, new in found:
                                    sides[colour] |= 1 << side
                                    fresh = fresh or new
                if fresh:
                    for colour in (0, 1):
                        n = sides[colour]
                        if (wide and n & 3 == 3) or (tall and n & 12 == 12):
                            possible |= 1 << colour
                            line = True
            if possible:
                (first if possible & stop else later).append(cell if line else -cell)
        # Each turn at those cells: the same tests on the cells its forced
        # tiles take (worked out on a scratch layer, as legality is), then
        # the turn itself, looking for a line only where one may be.
        out: list[tuple[Move, int]] = []
        dry = self._dry_run
        chain = self._chain
        lines = wide or tall
        for signed in first + later:
            cell = signed if signed > 0 else -signed
            for move in cells[cell]:
                region = [cell]
                for level in chain(cell, move.tile)[1]:
                    region.extend(level)
                taken = set(region)
                where_r = [divmod(r, STRIDE) for r in region]
                near = changed is None
                if not near:
                    for ry, rx in where_r:
                        if max(0, top_r - ry, ry - bottom_r) + max(0, left_r - rx, rx - right_r) <= 2:
                            near = True
                            break
                possible = 0
                for r in region:
                    found = ends_at.get(r)
                    if found is not None:
                        for colour, b, new in found:
                            if b in taken and (near or new):
                                possible |= 1 << colour
                line = False
                if lines and signed > 0:
                    ys = [ry for ry, _ in where_r]
                    xs = [rx for _, rx in where_r]
                    touch = ((min(xs) <= minx) | (max(xs) >= maxx) << 1
                             | (min(ys) <= miny) << 2 | (max(ys) >= maxy) << 3)
                    sides = [touch, touch]
                    fresh = near
                    for r in region:
                        found_hot = hot.get(r)
                        if found_hot is not None:
                            for side, colour, new in found_hot:
                                sides[colour] |= 1 << side
                                fresh = fresh or new
                    if fresh:
                        for colour in (0, 1):
                            n = sides[colour]
                            if (wide and n & 3 == 3) or (tall and n & 12 == 12):
                                possible |= 1 << colour
                                line = True
                if not possible:
                    continue
                bits = dry(cell, move.tile, line)
                if bits:
                    out.append((move, bits))
                    if bits & stop:
                        return out
        return out

    def _changed_ends(self, placed: list[int]) -> set[int]:
        """The open ends (edges) of the tracks that run through the tiles at
        ``placed``, found by following each track from them."""
        tiles = self._tiles
        out: set[int] = set()
        walked: set[tuple[int, int]] = set()
        for start in placed:
            tile = tiles[start]
            for colour in (WHITE, BLACK):
                if (start, colour) in walked:
                    continue
                for side in PATHS[tile][colour]:
                    cell = start
                    while True:
                        walked.add((cell, colour))
                        after = cell + DELTA[side]
                        next_tile = tiles.get(after)
                        if next_tile is None:
                            out.add(2 * cell + EDGE_OFFSET[side])
                            break
                        if after == start:
                            break
                        one, other = PATHS[next_tile][colour]
                        side = other if one == OPPOSITE[side] else one
                        cell = after
        return out

    def completes(self, x: int, y: int, tile: int) -> int | None:
        """What the turn placing ``tile`` at area coordinates ``(x, y)`` would
        complete (colour bits as in :meth:`completions`: 0 for nothing), or
        None when that is no legal turn here (the cell is taken or out of
        reach, the tile does not fit, the turn is illegal, the game is over,
        or the next move starts an area)."""
        if self._outcome is not None or not self._tiles or self._reset_due:
            return None
        cell = (y + _ORIGIN_Y) * STRIDE + x + _ORIGIN_X
        key = self._keys.get(cell)
        if key is None or tile not in FIT_TILES[key]:
            return None
        limit = self._limit
        if limit is not None:
            if not (self._maxx - limit + 1 <= x + _ORIGIN_X <= self._minx + limit - 1
                    and self._maxy - limit + 1 <= y + _ORIGIN_Y <= self._miny + limit - 1):
                return None
            if self.outcome() is not None:
                return None
        if tile not in self._entry(cell)[0]:
            return None
        return self._dry_run(cell, tile)

    def _dry_run(self, cell: int, tile: int, lines: bool = True) -> int:
        """Play the legal turn placing ``tile`` at ``cell`` on the board's own
        dictionaries and take it back at once: the colours (bits) of the
        loops and lines (unless ``lines`` is false) it completes.  Nothing
        else (the legality answers, the move list, the history) notices."""
        old_bbox = (self._minx, self._maxx, self._miny, self._maxy)
        y, x = divmod(cell, STRIDE)
        self._minx, self._maxx = min(self._minx, x), max(self._maxx, x)
        self._miny, self._maxy = min(self._miny, y), max(self._maxy, y)
        links = self._new_links() if lines else None
        placed: list[int] = []
        try:
            bad, bits = self._run(cell, tile, placed, links)
            assert bad is None, "only legal turns are tried"
            if links:
                for colour in self._lines(links):
                    bits |= 1 << colour
            return bits
        finally:
            self._unrun(len(placed))
            self._minx, self._maxx, self._miny, self._maxy = old_bbox

    # ------------------------------------------------------------------
    # the counting check

    def count_sequences(self, depth: int) -> int:
        """Number of distinct move sequences of ``depth`` turns from here
        (the counting check: 2, 24, 432, 9568, 246888 from the empty board).

        Trax, LoopTrax and 8x8 Trax (ending ``"draw"``) count on the board's
        own dictionaries (:meth:`_count`); the first move of a game, the
        other game types and endings go through :meth:`play` and
        :meth:`pop`, move by move."""
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

    def _count(self, depth: int, made: list[int]) -> int:
        """:meth:`count_sequences` (``depth`` at least 1) in a position nobody
        has won, with no Move objects and no records: each legal turn is
        played by cell and tile and taken back.  The last ply is counted from
        the legality answers the position keeps, except where the turn
        before it may have changed them: those are answered afresh and not
        kept.  Deeper, the answers a turn made stale are kept aside and put
        back when it is taken back, and those made after it (each call adds
        the cells it answered to ``made``) are dropped."""
        cache = self._legal
        get = cache.get
        evaluate = self._evaluate
        keys = self._keys
        if depth == 1:
            total = 0
            for cell in (keys if self._limit is None else self._frontier()):
                entry = get(cell)
                if entry is None:
                    entry = evaluate(cell)
                    made.append(cell)
                total += len(entry[0])
            return total
        turns = []
        for cell in self._frontier():
            entry = get(cell)
            if entry is None:
                entry = evaluate(cell)
                made.append(cell)
            for tile in entry[0]:
                turns.append((cell, tile))
        total = 0
        far = self._far
        answer = self._answer
        lines_win = self._lines_win
        run = self._run
        for cell, tile in turns:
            minx, maxx, miny, maxy = old_bbox = (self._minx, self._maxx, self._miny, self._maxy)
            y, x = divmod(cell, STRIDE)
            if x < minx:
                self._minx = minx = x
            elif x > maxx:
                self._maxx = maxx = x
            if y < miny:
                self._miny = miny = y
            elif y > maxy:
                self._maxy = maxy = y
            links: list[_Link] | None = [] if lines_win and (maxx - minx >= 7 or maxy - miny >= 7) else None
            placed: list[int] = []
            bad, loops = run(cell, tile, placed, links)
            assert bad is None, "only legal turns are counted"
            if loops or (links and self._lines(links)):
                pass  # a win: no turn follows
            elif depth == 2:
                # The last ply, counted from the kept answers but where the
                # turn may have changed them: those are answered afresh and
                # not kept, so the answers stay as they are.
                near = self._near(placed)
                for q in (keys if self._limit is None else self._frontier()):
                    entry = None if q in near else get(q)
                    total += len(answer(q)[0] if entry is None else entry[0])
            else:
                kept: list[tuple[int, _Entry]] = []
                self._forget_near_keeping(placed, kept)
                answered: list[int] = []
                total += self._count(depth - 1, answered)
                for q in answered:
                    cache.pop(q, None)
                for q, entry in kept:
                    cache[q] = entry
                    if entry[1] >= 3:
                        far.add(q)
            self._unrun(len(placed))
            self._minx, self._maxx, self._miny, self._maxy = old_bbox
        return total


def _recorded(code: int) -> Move:
    """The move of a turn as the board keeps it (see ``_RECORD``)."""
    if code >> 4 & _PASSED:
        return PASS
    return _move(code >> 30 & _COORD_MASK, code >> 8 & _COORD_MASK, code & 15)
