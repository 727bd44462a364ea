"""The rules: forced plays, wins, the outcome, the game types' endings.

:class:`Rules`, the layer of :class:`~pbm.trax.Board` above
:class:`~.legality.Legality`, holds the game type and the board's options
and applies them:

* **Forced plays** (:meth:`Rules._run`): a chosen tile and every tile it
  forces, placed one after another; a chain that brings three ends of one
  colour into a cell makes the turn illegal, and it is taken back.
* **Wins**: a loop is recognised when a path's two ends meet, a line by
  where the two ends of a path the turn joined lie (:meth:`Rules._lines`).
* **A limited area** (``8x8trax``, ``minitrax``): a chosen tile may not make
  the formation wider or taller than ``max_size``.  How the game ends when
  the area runs out is the board's ``ending``: ``"draw"`` (no legal turn
  left: a draw) or ``"lastloses"`` (no legal turn left that completes no
  loop and no line: the player who placed the last tile loses, so the side
  to move wins, reason ``"lasttile"``).  Both are decided lazily in
  :meth:`Rules.outcome`, once per position: ``"lastloses"`` plays each
  legal turn on the board's own dictionaries, looks for a loop or a line
  and takes it back, stopping at the first quiet one.
* **LuckyTrax**: the server draws the face of each turn;
  :meth:`Rules.placements` lists the legal turns that place that face, and
  when there are none the player passes (the move :data:`~.moves.PASS`).
  The engine cannot know the draw, so :meth:`Rules.legal_moves` never lists
  a pass.
* **PointTrax**: a completed loop scores its owner (its colour) one point
  per tile the loop's track runs through, and stays on the board; a
  completed line scores its tiles the same way and clears the playing area.
  The position after that turn still shows the line; the board notes that
  a reset is due, and the next move puts the old area aside in its undo log
  and starts a fresh one with ``@0+`` or ``@0/`` (so that taking it back
  brings the old area back exactly).  After a turn that scored, a player
  with at least the target score and more points than the other wins
  (reason ``"points"``); with equal scores play goes on until they differ.
  Loops and lines never end the game by themselves.

The game types beyond plain Trax cost the others nothing on the way through
a turn and the legal-move list.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import IllegalMoveError
from .knowledge import Entry, Knowledge
from .legality import Legality
from .moves import LastTurn, Move, Scored, WinningTrack
from .outcome import Outcome
from .position import FIRST, GREW_DOWN, GREW_RIGHT
from .tiles import BLACK, COLOUR_NAMES, DELTA, FORCE, STRIDE, SYMBOL, WHITE, E, N, S, W
from .variants import ENDINGS, Variant, get_variant

_DELTAS = (DELTA[N], DELTA[E], DELTA[S], DELTA[W])

#: A path joined by a turn: its two open ends (edge ids) and its colour.
Link = tuple[int, int, int]


@dataclass(slots=True)
class Area:
    """A playing area put aside when a PointTrax line cleared it."""

    tiles: dict[int, int]
    ends: dict[int, int]
    keys: dict[int, int]
    bbox: tuple[int, int, int, int]
    legal: dict[int, Entry]
    far: set[int]


@dataclass(slots=True)
class Extra:
    """What a LuckyTrax or PointTrax turn changed beyond the tiles: the
    scores, whether a reset was due and how many areas were cleared before
    it, the area it put aside (the first turn of a new area), and what it
    scored."""

    scores: tuple[int, int]
    reset_due: bool
    areas: int
    area: Area | None = None
    scored: tuple[Scored, ...] = ()


class Rules(Legality):
    """Legality, with the game type, the board's options, and the rules
    that follow from them.

    ``variant`` is the game type (see :mod:`.variants`).  Two options set a
    board's own rules; ``None`` takes the game type's default:

    ``ending``
        For a limited area only (``8x8trax``: ``"draw"`` by default,
        ``minitrax``: ``"lastloses"``): how the game ends when the area runs
        out (see :mod:`.variants`).  ``ValueError`` for an unlimited game type.
    ``points``
        For PointTrax only: the target score (25 by default, at least 1).
        ``ValueError`` for any other game type.

    ``knowledge`` is the :class:`~.knowledge.Knowledge` the board learns
    legality into and takes its Move objects from; a new one when left out.
    """

    __slots__ = (
        "_end_cache",
        "_ending",
        "_extras",
        "_lastloses",
        "_lines_win",
        "_outcome",
        "_points",
        "_reset_due",
        "_scores",
        "_special",
        "variant",
    )

    def __init__(self, variant: str | Variant = "trax", *, ending: str | None = None,
                 points: int | None = None, knowledge: Knowledge | None = None) -> None:
        v = get_variant(variant)
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
        super().__init__(knowledge, v.max_size)
        self.variant = v
        self._ending = ending
        self._points = points
        self._lastloses = ending == "lastloses"
        self._lines_win = v.lines_win
        # LuckyTrax and PointTrax turns go through _play_special; the other
        # game types never look at what they need
        self._special = v.drawn or v.points is not None
        # LuckyTrax and PointTrax: what each turn changed beyond the tiles
        self._extras: dict[int, Extra] = {}
        self._outcome: Outcome | None = None
        # the ending of a limited area is decided once per position
        # (Position._version)
        self._end_cache: tuple[int, Outcome | None] = (-1, None)
        # PointTrax: white's and black's scores, and whether the next move
        # starts a fresh area (the plies after which the area was cleared
        # are Position._areas)
        self._scores = [0, 0]
        self._reset_due = False

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
    # a turn: the chosen tile and the tiles it forces

    def _new_links(self) -> list[Link] | None:
        """A list to collect the paths a turn joins when a line is possible
        (lines win and the formation is at least 8 wide or tall), else None."""
        if self._lines_win and (self._maxx - self._minx >= 7 or self._maxy - self._miny >= 7):
            return []
        return None

    def _play_tile(self, cell: int, tile: int, move: Move | None) -> tuple[int, list[Link] | None]:
        """Place ``tile`` at ``cell`` (the chosen tile) and all it forces, and
        log the turn (``move`` is its Move when one is at hand; none is made
        for it).  Returns the colours (bits) whose loops it closed and the
        paths it joined (None when no line is possible).  Raises
        :class:`IllegalMoveError` with the board unchanged."""
        old_bbox = (self._minx, self._maxx, self._miny, self._maxy)
        y, x = divmod(cell, STRIDE)
        if not self._tiles:
            flags = FIRST
            column = row = 0
            self._minx = self._maxx = x
            self._miny = self._maxy = y
        else:
            flags = 0
            column = x - self._minx + 1
            row = y - self._miny + 1
            if x < self._minx:
                self._minx = x
            elif x > self._maxx:
                self._maxx = x
                flags = GREW_RIGHT
            if y < self._miny:
                self._miny = y
            elif y > self._maxy:
                self._maxy = y
                flags |= GREW_DOWN
            limit = self._limit
            if limit is not None and (self._maxx - self._minx >= limit or self._maxy - self._miny >= limit):
                self._minx, self._maxx, self._miny, self._maxy = old_bbox
                resolved = move if move is not None else self._move_for(cell, tile)
                raise IllegalMoveError("too-large", {"move": str(resolved), "limit": limit,
                                                     "variant": self.variant.name, "title": self.variant.title})
        links = self._new_links()
        placed: list[int] = []
        bad, loops = self._run(cell, tile, placed, links)
        if bad is not None:
            self._unrun(len(placed))
            self._minx, self._maxx, self._miny, self._maxy = old_bbox
            where = self.cell_name(bad)
            resolved = move if move is not None else self._move_for(cell, tile)
            raise IllegalMoveError("three-ends", {"move": str(resolved), "cell": where})
        self._record(((column << 22 | row) << 4 | flags) << 4 | tile, len(placed), move)
        if self._legal:
            self._forget_near(placed)
        return loops, links

    def _run(self, cell: int, tile: int, placed: list[int], links: list[Link] | None) -> tuple[int | None, int]:
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

    def _settle_wins(self, loops: int, links: list[Link] | None) -> None:
        wins = loops
        if links:
            for colour in self._lines(links):
                wins |= 1 << colour
        if not wins:
            return
        mover = WHITE if self._ply % 2 == 1 else BLACK
        winner = mover if wins >> mover & 1 else 1 - mover
        self._outcome = Outcome(COLOUR_NAMES[winner], "loop" if loops >> winner & 1 else "line")

    def _lines(self, links: list[Link] | None) -> set[int]:
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
    # the outcome

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

    def is_over(self) -> bool:
        return self.outcome() is not None

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

    def winning_track(self) -> WinningTrack | None:
        """The track that won a game ended by a loop or a line (see
        :class:`~.moves.WinningTrack`); None while undecided, for a draw and
        for the other endings (the last tile, points).

        A win always runs through a tile of the last turn, so the tracks of
        the winner's colour through those tiles are followed until one closes
        on itself (a loop) or leaves the formation through two opposite
        outermost edges of a formation at least 8 wide or tall (a line, the
        rule :meth:`_spans` applies when the turn is played)."""
        outcome = self._outcome
        if outcome is None or outcome.reason not in ("loop", "line") or not self._ply:
            return None
        assert outcome.winner is not None
        colour = COLOUR_NAMES.index(outcome.winner)
        loop = outcome.reason == "loop"
        for _, cells in self._tracks_through(self._last_cells(), colour, loop, not loop):
            return WinningTrack(outcome.winner, outcome.reason, self._notation_cells(cells))
        return None

    def last_turn(self) -> LastTurn | None:
        """The last turn's move, chosen tile and forced tiles (see
        :class:`~.moves.LastTurn`; a pass has no tile); None before the
        first move."""
        if not self._ply:
            return None
        move = self._last_move()
        placed = self._last_cells()
        if not placed:
            return LastTurn(move, None, ())
        chosen, *forced = (self._placed_move(cell) for cell in placed)
        return LastTurn(move, chosen, tuple(forced))

    # ------------------------------------------------------------------
    # legal moves

    def legal_moves(self) -> list[Move]:
        """Every distinct cell+symbol whose whole turn is legal, in reading
        order (row, then column, then ``+ / \\``); empty once the game is over.
        The first move (``@0+``, ``@0/``) on an empty board or when a
        PointTrax reset is due.  Never a pass: the engine does not know the
        tile a LuckyTrax player drew (see :meth:`placements`)."""
        if self._outcome is not None:
            return []
        knowledge = self._knowledge
        if not self._tiles or self._reset_due:
            return [knowledge.move(0, 0, 5), knowledge.move(0, 0, 9)]
        if self._lastloses and self.outcome() is not None:
            return []
        # Cells are y * STRIDE + x, so sorted cells are in reading order, and
        # the answers list the tiles in + / \ order.  The Moves of a cell are
        # shared, found by the cell's offset from @0 and the tiles' bits.
        base = (self._miny - 1) * STRIDE + self._minx - 1
        cache = self._legal
        get = cache.get
        answer = self._answer
        shared = knowledge.move_sets.get
        out: list[Move] = []
        for cell in (sorted(self._keys) if self._limit is None else self._frontier()):
            entry = get(cell)
            if entry is None:
                entry = cache[cell] = answer(cell)
                if entry[1] >= 3:
                    self._far.add(cell)
            moves = shared((cell - base) << 13 | entry[2])
            if moves is None:
                moves = knowledge.moves_at(cell - base, entry[2], entry[0])
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
            return [self._knowledge.move(0, 0, 5 if SYMBOL[face] == "+" else 9)]
        return [move for move in self.legal_moves() if move.tile == face]

    # ------------------------------------------------------------------
    # PointTrax

    def _score(self, extra: Extra, loops: int, links: list[Link] | None) -> None:
        """Score what the turn just played completed: each loop and line its
        owner's tiles; a line clears the area (the reset is due), a score at
        the target with more points than the other wins."""
        lines = self._lines(links)
        if not loops and not lines:
            return
        placed = self._last_cells()
        scored = []
        for colour in (WHITE, BLACK):
            closed = bool(loops >> colour & 1)
            if closed or colour in lines:
                for kind, cells in self._tracks_through(placed, colour, closed, colour in lines):
                    scored.append(Scored(COLOUR_NAMES[colour], kind, len(cells), self._notation_cells(cells)))
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

    def _clear_area(self) -> Area:
        """Put the playing area aside and start an empty one; returns what
        :meth:`_restore_area` needs to bring it back."""
        area = Area(self._tiles, self._ends, self._keys, (self._minx, self._maxx, self._miny, self._maxy),
                    self._legal, self._far)
        self._tiles, self._ends, self._keys, self._legal, self._far = {}, {}, {}, {}, set()
        self._minx = self._maxx = self._miny = self._maxy = 0
        return area

    def _restore_area(self, area: Area) -> None:
        self._tiles, self._ends, self._keys = area.tiles, area.ends, area.keys
        self._minx, self._maxx, self._miny, self._maxy = area.bbox
        self._legal, self._far = area.legal, area.far
