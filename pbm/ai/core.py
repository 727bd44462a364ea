# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The computer's hot core: a Trax search at C speed (when compiled).

A port of the contest-style engine ``bench/crival/trax.c`` (read its header
comment for the ideas) to Cython's pure-Python mode: this file runs as it
is, as plain Python, and compiled by Cython (``cythonize -i -3`` with
``boundscheck=False, wraparound=False, cdivision=True``, the directives of
the first line) it runs within a small factor of the C program, with the
same results either way (:data:`compiled` tells which one runs).  It plays
the game type "trax" (plain Trax) only and imports nothing of pbm: plain
values in, plain values out.

    core = Core()
    core.setup(ply, [(x, y, tile), ...])   # area coordinates, white masks
    core.think(budget, seed)  -> (x, y, tile, depth, nodes, score, seconds)
    core.legal()              -> the rows of the C program's ``legal``

The rules: a tile must match every track that enters its cell; every empty
cell that then has two entries of one colour is filled at once (forced), and
so on; a turn that brings three entries of one colour into an empty cell is
illegal.  A loop is a track closing on itself; a line is a track whose two
ends lie on opposite outermost edges of a formation at least 8 wide (or
tall).  A turn completing both colours is won by its mover.

The board: flat arrays of SZ x SZ cells (the formation kept away from the
rim: :meth:`Core.setup` shifts the area when it comes near, and a turn that
would come within two cells of the rim is refused) of tiles and of the entry
keys of empty cells, and, for every open track end (an edge id), the edge of
the track's other end, so that a join or a loop is found without walking a
track.  Every write goes to an undo log that taking a turn back replays
backwards.

The search: negamax alpha-beta with principal-variation windows and
iterative deepening in CPU time (and wall time, when asked); a
Zobrist-keyed transposition table (a depth-preferred and an always-replace
slot); killer and history move ordering; every node plays each of its turns
once (generation, deduplication by position and wins in one in one pass);
the other side's winning turns are threats: only the moves after which no
threat cell still wins are searched (forced blocks, extended by a ply), and
at the horizon a side under threat searches its blocks (quiescence).  At the
root a threat-space search looks for a win by threats alone.  The
evaluation reads the open tracks: attacks (ends two steps apart), pairs of
attacks, nearer and farther shapes, line progress.

Zobrist keys are 64-bit: compiled, ``unsigned long long`` arithmetic wraps;
as Python every product and sum is masked to 64 bits, so that both give the
same keys.  Integer division only ever sees operands that are not negative.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import _cython_shim as cython
else:
    try:
        import cython
    except ImportError:  # no Cython: the same code runs as plain Python
        from . import _cython_shim as cython

#: Whether this module runs compiled by Cython (else as plain Python).
compiled = bool(cython.compiled)

#: The score of a win in one for the side to move (a win in n plies scores
#: ``WIN_SCORE - n``; a win by threats alone found at the root scores
#: ``WIN_SCORE - 1000``); the negative for a loss.
WIN_SCORE = 1000000

# The board: SZ x SZ cells, cell (x, y) at y * SZ + x.
SHIFT = cython.declare(cython.const[cython.int], 8)
SZ = cython.declare(cython.const[cython.int], 256)
SZMASK = cython.declare(cython.const[cython.int], 255)
CELLS = cython.declare(cython.const[cython.int], 65536)
MARGIN = cython.declare(cython.const[cython.int], 64)
RIM = cython.declare(cython.const[cython.int], 3)  # a turn's chosen cell keeps this far from the rim
MAXPLY = cython.declare(cython.const[cython.int], 128)
MAXCHAIN = cython.declare(cython.const[cython.int], 4096)
NFRAMES = cython.declare(cython.const[cython.int], 600)
LOGSIZE = cython.declare(cython.const[cython.int], 1 << 18)
STACKMOVES = cython.declare(cython.const[cython.int], 1 << 16)
MAXTRACKS = cython.declare(cython.const[cython.int], 8192)
HBITS = cython.declare(cython.const[cython.int], 19)  # history: cell << 3 | tile >> 1
DBITS = cython.declare(cython.const[cython.int], 12)
NTHREATS = cython.declare(cython.const[cython.int], 64)

WIN = cython.declare(cython.const[cython.int], 1000000)
WON = cython.declare(cython.const[cython.int], 1000000 - 1000)
INF = cython.declare(cython.const[cython.int], 1000000 + 1)
QMAX = cython.declare(cython.const[cython.int], 10)
EXACT = cython.declare(cython.const[cython.int], 0)
LOWER = cython.declare(cython.const[cython.int], 1)
UPPER = cython.declare(cython.const[cython.int], 2)
HISTORY_CAP = cython.declare(cython.const[cython.int], 1 << 26)
# the clocks are read every CLOCK_MASK + 1 nodes (as Python, a node takes milliseconds)
CLOCK_MASK = cython.declare(cython.const[cython.int], 1023 if cython.compiled else 0)

# the evaluation
ATTACK = cython.declare(cython.const[cython.int], 40)
ATTACK_PAIR = cython.declare(cython.const[cython.int], 60)
NEAR = cython.declare(cython.const[cython.int], 12)
TEMPO = cython.declare(cython.const[cython.int], 35)

MASK64 = cython.declare(cython.ulonglong, 0xFFFFFFFFFFFFFFFF)
GOLDEN = cython.declare(cython.ulonglong, 0x9E3779B97F4A7C15)
MIX1 = cython.declare(cython.ulonglong, 0xBF58476D1CE4E5B9)
MIX2 = cython.declare(cython.ulonglong, 0x94D049BB133111EB)
SIDE_KEY = cython.declare(cython.ulonglong, 0x5BD1E9955BD1E995)
SEED_MUL = cython.declare(cython.ulonglong, 0x2545F4914F6CDD1D)

#: The six tiles (white masks: bit 0 north, 1 east, 2 south, 3 west).
TILES = (5, 10, 9, 6, 3, 12)
_FAR = (0, 0, 0, 14, 5, 2)
_LINE_NEED = (0, 90, 40, 18, 7, 3)


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _mix(z: cython.ulonglong) -> cython.ulonglong:
    """splitmix64's finaliser."""
    z = (z + GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * MIX1) & MASK64
    z = ((z ^ (z >> 27)) * MIX2) & MASK64
    return z ^ (z >> 31)


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _zob(c: cython.int, t: cython.int) -> cython.ulonglong:
    return _mix((c << 4) | t)


def _zeros(code: str, count: int) -> array[int]:
    return array(code, bytes(array(code).itemsize * count))


@cython.final
@cython.cclass
class Core:
    """One board and one search (its transposition table and history kept
    from one :meth:`think` to the next): see the module's comment."""

    # the board
    T = cython.declare(cython.uchar[::1])  # tile (white mask) or 0
    K = cython.declare(cython.uchar[::1])  # entry key of an empty cell: white dirs | black dirs << 4
    EP = cython.declare(cython.sint[::1])  # open end edge -> the track's other open end
    minx = cython.declare(cython.int)
    maxx = cython.declare(cython.int)
    miny = cython.declare(cython.int)
    maxy = cython.declare(cython.int)
    ntiles = cython.declare(cython.int)
    ply = cython.declare(cython.int)
    H = cython.declare(cython.ulonglong)
    OX = cython.declare(cython.int)  # area (x, y) is cell (y + OY) * SZ + x + OX
    OY = cython.declare(cython.int)
    # the rules' tables
    force = cython.declare(cython.sint[::1])  # [key]: the tile an entry key forces, 0 none, -1 illegal
    fit = cython.declare(cython.sint[::1])  # [key * 4 + i]: the tiles that fit an entry key
    nfit = cython.declare(cython.sint[::1])
    contrib = cython.declare(cython.uchar[::1])  # [tile * 4 + d]: the entry a tile gives its neighbour at d
    dirs = cython.declare(cython.sint[::1])  # [(tile * 2 + colour) * 2 + k]: the directions of a track
    delta = cython.declare(cython.sint[::1])
    edge_off = cython.declare(cython.sint[::1])
    far = cython.declare(cython.sint[::1])
    line_need = cython.declare(cython.sint[::1])
    # the undo log and the frames of the turns played
    log_where = cython.declare(cython.sint[::1])
    log_old = cython.declare(cython.sint[::1])
    ulen = cython.declare(cython.int)
    frames = cython.declare(cython.sint[::1])  # 6 a frame: ulen, minx, maxx, miny, maxy, ntiles
    frame_keys = cython.declare(cython.size_t[::1])
    nframes = cython.declare(cython.int)
    # what the last turn did
    links = cython.declare(cython.sint[::1])  # 3 a link: fa, fb, colour
    nlinks = cython.declare(cython.int)
    placed = cython.declare(cython.sint[::1])
    nplaced = cython.declare(cython.int)
    chain = cython.declare(cython.sint[::1])
    last_wins = cython.declare(cython.int)
    last_loops = cython.declare(cython.int)
    qkey = cython.declare(cython.ulonglong)
    # the transposition table
    tt_key = cython.declare(cython.size_t[::1])
    tt_score = cython.declare(cython.sint[::1])
    tt_move = cython.declare(cython.sint[::1])
    tt_depth = cython.declare(cython.sint[::1])
    tt_flag = cython.declare(cython.uchar[::1])
    tt_age = cython.declare(cython.uchar[::1])
    tt_bits = cython.declare(cython.int)
    tt_pair = cython.declare(cython.ulonglong)  # the index mask of a pair of slots
    age = cython.declare(cython.int)
    # the evaluation
    tracks = cython.declare(cython.sint[::1])  # 5 a track: colour, ax, ay, bx, by
    attacks = cython.declare(cython.sint[::1])  # [(colour * 256 + i) * 4 + k]
    # move generation
    moves = cython.declare(cython.sint[::1])
    scores = cython.declare(cython.sint[::1])
    msp = cython.declare(cython.int)
    threats = cython.declare(cython.sint[::1])  # [sp * 64 + i]: the other side's winning cells
    nthreat = cython.declare(cython.sint[::1])
    dkeys = cython.declare(cython.size_t[::1])
    dstamp = cython.declare(cython.sint[::1])
    stamp = cython.declare(cython.int)
    dcount = cython.declare(cython.int)
    gen_count = cython.declare(cython.int)
    gen_win = cython.declare(cython.int)
    # the search
    nodes = cython.declare(cython.longlong)
    max_nodes = cython.declare(cython.longlong)
    stopped = cython.declare(cython.bint)
    use_clock = cython.declare(cython.bint)
    deadline = cython.declare(cython.double)
    wall_deadline = cython.declare(cython.double)
    killers = cython.declare(cython.sint[::1])
    history = cython.declare(cython.sint[::1])
    focus = cython.declare(cython.sint[::1])
    spots = cython.declare(cython.sint[::1])  # [sp * 64 + i]: the threat search's cells
    found = cython.declare(cython.int)
    out_depth = cython.declare(cython.int)
    out_score = cython.declare(cython.int)
    rng = cython.declare(cython.ulonglong)

    def __init__(self, tt_bits: int = 18) -> None:
        if not 4 <= tt_bits <= 26:
            raise ValueError(f"tt_bits must be from 4 to 26, not {tt_bits}")
        self._tables()
        self.T = _zeros("B", CELLS)
        self.K = _zeros("B", CELLS)
        self.EP = _zeros("i", 2 * CELLS)
        self.log_where = _zeros("i", LOGSIZE)
        self.log_old = _zeros("i", LOGSIZE)
        self.frames = _zeros("i", 6 * NFRAMES)
        self.frame_keys = _zeros("Q", NFRAMES)
        self.links = _zeros("i", 3 * (2 * MAXCHAIN + 8))
        self.placed = _zeros("i", MAXCHAIN + 8)
        self.chain = _zeros("i", MAXCHAIN + 8)
        self.tt_bits = tt_bits
        self.tt_pair = (1 << tt_bits) - 2
        self._clear_tt()
        self.age = 0
        self.tracks = _zeros("i", 5 * MAXTRACKS)
        self.attacks = _zeros("i", 2 * 256 * 4)
        self.moves = _zeros("i", STACKMOVES)
        self.scores = _zeros("i", STACKMOVES)
        self.threats = _zeros("i", (MAXPLY + 8) * NTHREATS)
        self.nthreat = _zeros("i", MAXPLY + 8)
        self.dkeys = _zeros("Q", 1 << DBITS)
        self.dstamp = _zeros("i", 1 << DBITS)
        self.stamp = 0
        self.killers = _zeros("i", (MAXPLY + 8) * 2)
        self.history = _zeros("i", 1 << HBITS)
        self.focus = _zeros("i", 64)
        self.spots = _zeros("i", (MAXPLY + 8) * 64)
        self.OX = SZ // 2
        self.OY = SZ // 2
        self.rng = 1
        self.nodes = 0
        self.max_nodes = 0
        self.stopped = False
        self.use_clock = False
        self.deadline = 0.0
        self.wall_deadline = 0.0
        self.setup(0, [])

    def _tables(self) -> None:
        self.force = _zeros("i", 256)
        self.fit = _zeros("i", 256 * 4)
        self.nfit = _zeros("i", 256)
        for key in range(256):
            wm, bm = key & 15, key >> 4
            nw, nb = wm.bit_count(), bm.bit_count()
            if wm & bm or nw > 2 or nb > 2:
                self.force[key] = -1
            elif nw == 2:
                self.force[key] = wm
            elif nb == 2:
                self.force[key] = 15 ^ bm
            if not wm & bm:
                for tile in TILES:
                    if tile & (wm | bm) == wm:
                        self.fit[key * 4 + self.nfit[key]] = tile
                        self.nfit[key] += 1
        self.dirs = _zeros("i", 16 * 4)
        for tile in range(16):
            for colour in range(2):
                mask = 15 ^ tile if colour else tile
                k = 0
                for d in range(4):
                    if mask >> d & 1 and k < 2:
                        self.dirs[(tile * 2 + colour) * 2 + k] = d
                        k += 1
        opposite = (2, 3, 0, 1)
        self.contrib = _zeros("B", 16 * 4)
        for tile in range(16):
            for d in range(4):
                self.contrib[tile * 4 + d] = 1 << opposite[d] if tile >> d & 1 else 16 << opposite[d]
        self.delta = array("i", (-SZ, 1, SZ, -1))
        self.edge_off = array("i", (0, 3, 2 * SZ, 1))
        self.far = array("i", _FAR)
        self.line_need = array("i", _LINE_NEED)

    def _clear_tt(self) -> None:
        size = 1 << self.tt_bits
        self.tt_key = _zeros("Q", size)
        self.tt_score = _zeros("i", size)
        self.tt_move = _zeros("i", size)
        self.tt_depth = _zeros("i", size)
        self.tt_flag = _zeros("B", size)
        self.tt_age = _zeros("B", size)

    # ------------------------------------------------------------------
    # placing tiles

    @cython.cfunc
    @cython.exceptval(check=False)
    def _place(self, c: cython.int, t: cython.int) -> cython.int:
        """Put one tile down (every write logged); the colour bits of the
        loops it closed."""
        occ: cython.int = 0
        loops: cython.int = 0
        u: cython.int = self.ulen  # the log's end, kept here and stored once
        d: cython.int
        n: cython.int
        colour: cython.int
        a: cython.int
        b: cython.int
        fa: cython.int
        fb: cython.int
        self.log_where[u] = c
        self.log_old[u] = 0
        u += 1
        self.T[c] = t
        self.H ^= _zob(c, t)
        for d in range(4):
            n = c + self.delta[d]
            if self.T[n]:
                occ |= 1 << d
            else:
                self.log_where[u] = CELLS + n
                self.log_old[u] = self.K[n]
                u += 1
                self.K[n] |= self.contrib[t * 4 + d]
        for colour in range(2):
            a = self.dirs[(t * 2 + colour) * 2]
            b = self.dirs[(t * 2 + colour) * 2 + 1]
            fa = 2 * c + self.edge_off[a]
            fb = 2 * c + self.edge_off[b]
            if occ >> a & 1:
                fa = self.EP[fa]
            if occ >> b & 1:
                fb = self.EP[fb]
                if occ >> a & 1 and fa == 2 * c + self.edge_off[b]:
                    loops |= 1 << colour  # both ends were one track's
                    continue
            self.log_where[u] = 2 * CELLS + fa
            self.log_old[u] = self.EP[fa]
            self.log_where[u + 1] = 2 * CELLS + fb
            self.log_old[u + 1] = self.EP[fb]
            u += 2
            self.EP[fa] = fb
            self.EP[fb] = fa
            if self.nlinks < 2 * MAXCHAIN:
                self.links[3 * self.nlinks] = fa
                self.links[3 * self.nlinks + 1] = fb
                self.links[3 * self.nlinks + 2] = colour
                self.nlinks += 1
        self.ulen = u
        return loops

    @cython.cfunc
    @cython.inline
    @cython.exceptval(check=False)
    def _open_edge(self, e: cython.int) -> cython.bint:
        c: cython.int = e >> 1
        o: cython.int = c - 1 if e & 1 else c - SZ
        return (self.T[c] != 0) != (self.T[o] != 0)

    @cython.cfunc
    @cython.inline
    @cython.exceptval(check=False)
    def _end_cell(self, e: cython.int) -> cython.int:
        c: cython.int = e >> 1
        o: cython.int = c - 1 if e & 1 else c - SZ
        return o if self.T[c] else c

    @cython.cfunc
    @cython.exceptval(check=False)
    def _spans(self, ea: cython.int, eb: cython.int) -> cython.bint:
        """Do the edges ``ea`` and ``eb`` lie on opposite outermost edges of
        a formation at least 8 wide (or tall)?"""
        if (ea & 1) != (eb & 1):
            return False
        lo: cython.int
        hi: cython.int
        a: cython.int
        b: cython.int
        if ea & 1:
            if self.maxx - self.minx + 1 < 8:
                return False
            a = (ea >> 1) & SZMASK
            b = (eb >> 1) & SZMASK
            lo = self.minx
            hi = self.maxx + 1
        else:
            if self.maxy - self.miny + 1 < 8:
                return False
            a = ea >> (1 + SHIFT)
            b = eb >> (1 + SHIFT)
            lo = self.miny
            hi = self.maxy + 1
        return (a == lo and b == hi) or (a == hi and b == lo)

    @cython.cfunc
    @cython.exceptval(check=False)
    def _undo(self) -> cython.void:
        self.nframes -= 1
        f: cython.int = 6 * self.nframes
        stop: cython.int = self.frames[f]
        u: cython.int = self.ulen
        where: cython.int
        while u > stop:
            u -= 1
            where = self.log_where[u]
            if where < CELLS:
                self.T[where] = self.log_old[u]
            elif where < 2 * CELLS:
                self.K[where - CELLS] = self.log_old[u]
            else:
                self.EP[where - 2 * CELLS] = self.log_old[u]
        self.ulen = stop
        self.minx = self.frames[f + 1]
        self.maxx = self.frames[f + 2]
        self.miny = self.frames[f + 3]
        self.maxy = self.frames[f + 4]
        self.ntiles = self.frames[f + 5]
        self.H = self.frame_keys[self.nframes]
        self.ply -= 1

    @cython.cfunc
    @cython.exceptval(check=False)
    def _make(self, c: cython.int, t: cython.int) -> cython.int:
        """Play a turn: the tile at c and all it forces.  -1 for an illegal
        turn (the board unchanged), else the winner: 0 none, 1 white, 2
        black (one more than the colour); last_wins holds the completed
        colours."""
        x: cython.int = c & SZMASK
        y: cython.int = c >> SHIFT
        if x < RIM or x >= SZ - RIM or y < RIM or y >= SZ - RIM or self.nframes >= NFRAMES:
            return -1
        f: cython.int = 6 * self.nframes
        self.frames[f] = self.ulen
        self.frames[f + 1] = self.minx
        self.frames[f + 2] = self.maxx
        self.frames[f + 3] = self.miny
        self.frames[f + 4] = self.maxy
        self.frames[f + 5] = self.ntiles
        self.frame_keys[self.nframes] = self.H
        self.nframes += 1
        self.ply += 1
        if not self.ntiles:
            self.minx = self.maxx = x
            self.miny = self.maxy = y
        else:
            if x < self.minx:
                self.minx = x
            elif x > self.maxx:
                self.maxx = x
            if y < self.miny:
                self.miny = y
            elif y > self.maxy:
                self.maxy = y
        self.nlinks = 0
        self.nplaced = 0
        if self.ulen > LOGSIZE - 16:
            self._undo()
            return -1
        loops: cython.int = self._place(c, t)
        self.placed[0] = c
        self.nplaced = 1
        self.chain[0] = c
        sp: cython.int = 1
        p: cython.int
        n: cython.int
        d: cython.int
        fo: cython.int
        while sp:
            sp -= 1
            p = self.chain[sp]
            for d in range(4):
                n = p + self.delta[d]
                if self.T[n]:
                    continue
                fo = self.force[self.K[n]]
                if fo:
                    if fo < 0 or self.nplaced >= MAXCHAIN or self.ulen > LOGSIZE - 16:
                        self._undo()
                        return -1
                    loops |= self._place(n, fo)
                    self.placed[self.nplaced] = n
                    self.nplaced += 1
                    self.chain[sp] = n
                    sp += 1
        self.ntiles += self.nplaced
        self.H ^= SIDE_KEY
        wins: cython.int = loops
        i: cython.int
        fa: cython.int
        fb: cython.int
        colour: cython.int
        if self.maxx - self.minx >= 7 or self.maxy - self.miny >= 7:
            for i in range(self.nlinks):
                fa = self.links[3 * i]
                fb = self.links[3 * i + 1]
                colour = self.links[3 * i + 2]
                if wins >> colour & 1:
                    continue
                if not self._open_edge(fa) or not self._open_edge(fb) or self.EP[fa] != fb:
                    continue
                if self._spans(fa, fb):
                    wins |= 1 << colour
        self.last_wins = wins
        self.last_loops = loops
        if not wins:
            return 0
        mover: cython.int = (self.ply - 1) & 1
        return mover + 1 if wins >> mover & 1 else 2 - mover

    @cython.cfunc
    @cython.exceptval(check=False)
    def _quick(self, c: cython.int, t: cython.int) -> cython.int:
        """A turn that forces nothing, judged without playing it: -2 when the
        tile at c forces a neighbour (or comes near the rim: play it with
        _make), else what _make would return (0, or the winner plus one:
        such a turn can complete only a line) with qkey the position's key
        after it."""
        occ: cython.int = 0
        d: cython.int
        n: cython.int
        x: cython.int = c & SZMASK
        y: cython.int = c >> SHIFT
        if x < RIM or x >= SZ - RIM or y < RIM or y >= SZ - RIM:
            return -2
        for d in range(4):
            n = c + self.delta[d]
            if self.T[n]:
                occ |= 1 << d
            elif self.force[self.K[n] | self.contrib[t * 4 + d]]:
                return -2
        self.qkey = self.H ^ _zob(c, t) ^ SIDE_KEY
        ox: cython.int = self.minx
        ox2: cython.int = self.maxx
        oy: cython.int = self.miny
        oy2: cython.int = self.maxy
        if x < self.minx:
            self.minx = x
        elif x > self.maxx:
            self.maxx = x
        if y < self.miny:
            self.miny = y
        elif y > self.maxy:
            self.maxy = y
        wins: cython.int = 0
        colour: cython.int
        if self.maxx - self.minx >= 7 or self.maxy - self.miny >= 7:
            base: cython.int = 2 * c
            for colour in range(2):
                a: cython.int = self.dirs[(t * 2 + colour) * 2]
                b: cython.int = self.dirs[(t * 2 + colour) * 2 + 1]
                ea: cython.int = base + self.edge_off[a]
                eb: cython.int = base + self.edge_off[b]
                fa: cython.int = self.EP[ea] if occ >> a & 1 else ea
                fb: cython.int = self.EP[eb] if occ >> b & 1 else eb
                if self._spans(fa, fb):
                    wins |= 1 << colour
        self.minx = ox
        self.maxx = ox2
        self.miny = oy
        self.maxy = oy2
        self.last_wins = wins
        self.last_loops = 0
        if not wins:
            return 0
        mover: cython.int = self.ply & 1
        return mover + 1 if wins >> mover & 1 else 2 - mover

    # ------------------------------------------------------------------
    # setting a position up

    def setup(self, ply: int, tiles: Sequence[tuple[int, int, int]]) -> None:
        """The position: ``tiles`` as ``(x, y, tile)`` in pbm's area
        coordinates (white masks), and ``ply`` the number of turns played
        (its parity says who is to move: even white).  ValueError for a
        tile that is no tile, a cell given twice or a formation too large."""
        if ply < 0:
            raise ValueError(f"a ply is not negative: {ply}")
        cells: set[tuple[int, int]] = set()
        for x, y, tile in tiles:
            if tile not in TILES:
                raise ValueError(f"no tile {tile} at ({x}, {y})")
            if (x, y) in cells:
                raise ValueError(f"two tiles at ({x}, {y})")
            cells.add((x, y))
        if tiles:
            lo_x, hi_x = min(x for x, _, _ in tiles), max(x for x, _, _ in tiles)
            lo_y, hi_y = min(y for _, y, _ in tiles), max(y for _, y, _ in tiles)
        else:
            lo_x = hi_x = lo_y = hi_y = 0
        if hi_x - lo_x > SZ - 2 * MARGIN or hi_y - lo_y > SZ - 2 * MARGIN:
            raise ValueError(f"the formation is too large: {hi_x - lo_x + 1} x {hi_y - lo_y + 1}")
        ox, oy = self.OX, self.OY
        if lo_x + ox < MARGIN or hi_x + ox >= SZ - MARGIN or lo_y + oy < MARGIN or hi_y + oy >= SZ - MARGIN:
            # the area nears the rim: shift it (the keys change, so the table goes)
            self.OX = SZ // 2 - ((lo_x + hi_x) >> 1)
            self.OY = SZ // 2 - ((lo_y + hi_y) >> 1)
            self._clear_tt()
        self.T = _zeros("B", CELLS)
        self.K = _zeros("B", CELLS)
        self.ulen = 0
        self.nframes = 0
        self.H = 0
        self.ntiles = 0
        self.minx = self.maxx = self.miny = self.maxy = SZ // 2
        for x, y, tile in tiles:
            c = (y + self.OY) * SZ + x + self.OX
            cx, cy = c & SZMASK, c >> SHIFT
            if not self.ntiles:
                self.minx = self.maxx = cx
                self.miny = self.maxy = cy
            self.minx = min(self.minx, cx)
            self.maxx = max(self.maxx, cx)
            self.miny = min(self.miny, cy)
            self.maxy = max(self.maxy, cy)
            self.nlinks = 0
            self._place(c, tile)
            self.ulen = 0
            self.ntiles += 1
        self.ply = ply
        if ply & 1:
            self.H ^= SIDE_KEY

    # ------------------------------------------------------------------
    # the transposition table

    @cython.cfunc
    @cython.inline
    @cython.exceptval(check=False)
    def _tt_probe(self, key: cython.ulonglong) -> cython.int:
        """The slot holding ``key``, -1 when none does."""
        i: cython.int = key & self.tt_pair
        if self.tt_key[i] == key:
            return i
        if self.tt_key[i + 1] == key:
            return i + 1
        return -1

    @cython.cfunc
    @cython.exceptval(check=False)
    def _tt_store(
        self,
        key: cython.ulonglong,
        depth: cython.int,
        flag: cython.int,
        score: cython.int,
        move: cython.int,
        p: cython.int,
    ) -> cython.void:
        i: cython.int = key & self.tt_pair
        if score >= WON:
            score += p
        elif score <= -WON:
            score -= p
        slot: cython.int = i + 1
        if self.tt_key[i] == key or self.tt_depth[i] <= depth or self.tt_age[i] != self.age:
            slot = i
            if self.tt_key[i] != key and self.tt_key[i]:
                self.tt_key[i + 1] = self.tt_key[i]
                self.tt_score[i + 1] = self.tt_score[i]
                self.tt_move[i + 1] = self.tt_move[i]
                self.tt_depth[i + 1] = self.tt_depth[i]
                self.tt_flag[i + 1] = self.tt_flag[i]
                self.tt_age[i + 1] = self.tt_age[i]
        self.tt_key[slot] = key
        self.tt_score[slot] = score
        self.tt_move[slot] = move
        self.tt_depth[slot] = depth
        self.tt_flag[slot] = flag
        self.tt_age[slot] = self.age

    # ------------------------------------------------------------------
    # the evaluation

    @cython.cfunc
    @cython.exceptval(check=False)
    def _collect_tracks(self) -> cython.int:
        """Every open track, once: its colour and the cells of its two ends."""
        n: cython.int = 0
        x: cython.int
        y: cython.int
        d: cython.int
        c: cython.int
        k: cython.int
        e: cython.int
        o: cython.int
        oc: cython.int
        j: cython.int
        for y in range(self.miny - 1, self.maxy + 2):
            for x in range(self.minx - 1, self.maxx + 2):
                c = y * SZ + x
                k = self.K[c]
                if self.T[c] or not k:
                    continue
                for d in range(4):
                    if not (k >> d) & 17:
                        continue
                    e = 2 * c + self.edge_off[d]
                    o = self.EP[e]
                    if e > o or n >= MAXTRACKS:
                        continue
                    oc = self._end_cell(o)
                    j = 5 * n
                    n += 1
                    self.tracks[j] = 0 if k >> d & 1 else 1
                    self.tracks[j + 1] = x
                    self.tracks[j + 2] = y
                    self.tracks[j + 3] = oc & SZMASK
                    self.tracks[j + 4] = oc >> SHIFT
        return n

    @cython.cfunc
    @cython.exceptval(check=False)
    def _pairs(self, colour: cython.int, count: cython.int) -> cython.int:
        """ATTACK_PAIR for every two attacks of ``colour`` whose ends come
        within two steps."""
        value: cython.int = 0
        i: cython.int
        j: cython.int
        p: cython.int
        q: cython.int
        a: cython.int
        b: cython.int
        best: cython.int
        dd: cython.int
        for i in range(count):
            a = (colour * 256 + i) * 4
            for j in range(i + 1, count):
                b = (colour * 256 + j) * 4
                best = 1 << 20
                for p in range(0, 4, 2):
                    for q in range(0, 4, 2):
                        dd = abs(self.attacks[a + p] - self.attacks[b + q]) + abs(
                            self.attacks[a + p + 1] - self.attacks[b + q + 1]
                        )
                        if dd < best:
                            best = dd
                if best <= 2:
                    value += ATTACK_PAIR
        return value

    @cython.cfunc
    @cython.exceptval(check=False)
    def _evaluate(self) -> cython.int:
        n: cython.int = self._collect_tracks()
        white: cython.int = 0
        black: cython.int = 0
        nat0: cython.int = 0
        nat1: cython.int = 0
        lines: cython.bint = self.maxx - self.minx >= 3 or self.maxy - self.miny >= 3
        left: cython.int = self.minx - 1
        right: cython.int = self.maxx + 1
        top: cython.int = self.miny - 1
        bottom: cython.int = self.maxy + 1
        i: cython.int
        j: cython.int
        colour: cython.int
        ax: cython.int
        ay: cython.int
        bx: cython.int
        by: cython.int
        dx: cython.int
        dy: cython.int
        d: cython.int
        add: cython.int
        need: cython.int
        edges: cython.int
        at: cython.int
        for i in range(n):
            j = 5 * i
            colour = self.tracks[j]
            ax = self.tracks[j + 1]
            ay = self.tracks[j + 2]
            bx = self.tracks[j + 3]
            by = self.tracks[j + 4]
            dx = abs(ax - bx)
            dy = abs(ay - by)
            d = dx + dy
            add = 0
            if d == 2:
                at = -1
                if colour == 0 and nat0 < 256:
                    at = nat0 * 4
                    nat0 += 1
                elif colour == 1 and nat1 < 256:
                    at = (256 + nat1) * 4
                    nat1 += 1
                if at >= 0:
                    self.attacks[at] = ax
                    self.attacks[at + 1] = ay
                    self.attacks[at + 2] = bx
                    self.attacks[at + 3] = by
            elif d == 1:
                add = NEAR
            elif d < 6:
                add = self.far[d]
            if lines:
                if dx >= dy:
                    need = 9 - dx
                    edges = (ax in (left, right)) + (bx in (left, right))
                else:
                    need = 9 - dy
                    edges = (ay in (top, bottom)) + (by in (top, bottom))
                if 0 < need < 6:
                    add += self.line_need[need] * (1 + edges) // 3
            if colour:
                black += add
            else:
                white += add
        white += ATTACK * nat0 + self._pairs(0, nat0)
        black += ATTACK * nat1 + self._pairs(1, nat1)
        if self.ply & 1:
            return black - white + (TEMPO if nat1 else 0)
        return white - black + (TEMPO if nat0 else 0)

    # ------------------------------------------------------------------
    # move generation: every turn played once

    @cython.cfunc
    @cython.exceptval(check=False)
    def _seen_before(self, key: cython.ulonglong) -> cython.bint:
        """Has this generate() made the position ``key`` already?"""
        self.dcount += 1
        if self.dcount > (3 << DBITS) // 4:
            return False  # full: keep every move
        i: cython.int = (key >> 40) & ((1 << DBITS) - 1)
        while self.dstamp[i] == self.stamp:
            if self.dkeys[i] == key:
                return True
            i = (i + 1) & ((1 << DBITS) - 1)
        self.dstamp[i] = self.stamp
        self.dkeys[i] = key
        return False

    @cython.cfunc
    @cython.exceptval(check=False)
    def _generate(self, sp: cython.int) -> cython.bint:
        """The children of the position at search ply ``sp``, into the move
        stack from msp on.  True (gen_win the winning move) when the side to
        move wins in one, else False; gen_count the children that lose no
        game at once, distinct by position; the other side's winning cells
        go to the threats of ``sp``."""
        me: cython.int = self.ply & 1
        n: cython.int = 0
        base: cython.int = self.msp
        tb: cython.int = sp * NTHREATS
        x: cython.int
        y: cython.int
        c: cython.int
        k: cython.int
        i: cython.int
        j: cython.int
        t: cython.int
        r: cython.int
        dup: cython.bint
        key: cython.ulonglong
        self.nthreat[sp] = 0
        self.stamp += 1
        if self.stamp >= 1 << 30:
            self.dstamp = _zeros("i", 1 << DBITS)
            self.stamp = 1
        self.dcount = 0
        for y in range(self.miny - 1, self.maxy + 2):
            for x in range(self.minx - 1, self.maxx + 2):
                c = y * SZ + x
                k = self.K[c]
                if self.T[c] or not k:
                    continue
                for i in range(self.nfit[k]):
                    t = self.fit[k * 4 + i]
                    r = self._quick(c, t)
                    key = self.qkey
                    if r == -2:
                        r = self._make(c, t)
                        if r < 0:
                            continue
                        key = self.H
                        self._undo()
                    if r == me + 1:
                        self.gen_win = (c << 4) | t
                        self.gen_count = n
                        return True
                    if r:
                        dup = False
                        for j in range(self.nthreat[sp]):
                            if self.threats[tb + j] == c:
                                dup = True
                        if not dup and self.nthreat[sp] < NTHREATS:
                            self.threats[tb + self.nthreat[sp]] = c
                            self.nthreat[sp] += 1
                        continue
                    if self._seen_before(key) or base + n >= STACKMOVES:
                        continue
                    self.moves[base + n] = (c << 4) | t
                    self.scores[base + n] = 0
                    n += 1
        self.gen_count = n
        return False

    @cython.cfunc
    @cython.exceptval(check=False)
    def _standing(self, sp: cython.int) -> cython.bint:
        """After a move, does the other side (now to move) still win at one
        of the threat cells of search ply ``sp``?"""
        mover: cython.int = self.ply & 1
        i: cython.int
        j: cython.int
        c: cython.int
        k: cython.int
        r: cython.int
        for i in range(self.nthreat[sp]):
            c = self.threats[sp * NTHREATS + i]
            if self.T[c]:
                continue
            k = self.K[c]
            for j in range(self.nfit[k]):
                r = self._make(c, self.fit[k * 4 + j])
                if r < 0:
                    continue
                self._undo()
                if r == mover + 1:
                    return True
        return False

    @cython.cfunc
    @cython.exceptval(check=False)
    def _blocks(self, sp: cython.int, base: cython.int, n: cython.int) -> cython.int:
        """Keep (in place, in order) the moves from ``base`` after which no
        threat of ply ``sp`` still wins; their number."""
        k: cython.int = 0
        i: cython.int
        m: cython.int
        s: cython.int
        st: cython.bint
        for i in range(base, base + n):
            m = self.moves[i]
            s = self.scores[i]
            if self._make(m >> 4, m & 15) < 0:
                continue
            st = self._standing(sp)
            self._undo()
            if not st:
                self.moves[base + k] = m
                self.scores[base + k] = s
                k += 1
        return k

    @cython.cfunc
    @cython.exceptval(check=False)
    def _any_move(self) -> cython.int:
        """The first legal turn in reading order, 0 when there is none."""
        x: cython.int
        y: cython.int
        c: cython.int
        k: cython.int
        i: cython.int
        for y in range(self.miny - 1, self.maxy + 2):
            for x in range(self.minx - 1, self.maxx + 2):
                c = y * SZ + x
                k = self.K[c]
                if self.T[c] or not k:
                    continue
                for i in range(self.nfit[k]):
                    if self._make(c, self.fit[k * 4 + i]) >= 0:
                        self._undo()
                        return (c << 4) | self.fit[k * 4 + i]
        return 0

    # ------------------------------------------------------------------
    # the search

    @cython.cfunc
    @cython.inline
    @cython.exceptval(check=False)
    def _hindex(self, m: cython.int) -> cython.int:
        return ((m >> 4) << 3) | ((m & 15) >> 1)

    @cython.cfunc
    @cython.exceptval(check=False)
    def _order(
        self, base: cython.int, n: cython.int, ttmove: cython.int, sp: cython.int, nf: cython.int
    ) -> cython.void:
        i: cython.int
        j: cython.int
        m: cython.int
        s: cython.int
        c: cython.int
        x: cython.int
        y: cython.int
        f: cython.int
        d: cython.int
        for i in range(base, base + n):
            m = self.moves[i]
            s = self.history[self._hindex(m)]
            if m == ttmove:
                s += 1 << 30
            elif m == self.killers[2 * sp]:
                s += 1 << 28
            elif m == self.killers[2 * sp + 1]:
                s += 1 << 27
            c = m >> 4
            x = c & SZMASK
            y = c >> SHIFT
            for j in range(nf):
                f = self.focus[j]
                d = abs(x - (f & SZMASK)) + abs(y - (f >> SHIFT))
                if d <= 2:
                    s += (3 - d) << 22
                    break
            self.scores[i] = s

    @cython.cfunc
    @cython.inline
    @cython.exceptval(check=False)
    def _pick(self, i: cython.int, end: cython.int) -> cython.void:
        """Bring the best scored move of ``i`` to ``end`` to ``i``."""
        best: cython.int = i
        j: cython.int
        for j in range(i + 1, end):
            if self.scores[j] > self.scores[best]:
                best = j
        if best != i:
            m: cython.int = self.moves[i]
            s: cython.int = self.scores[i]
            self.moves[i] = self.moves[best]
            self.scores[i] = self.scores[best]
            self.moves[best] = m
            self.scores[best] = s

    @cython.cfunc
    @cython.exceptval(check=False)
    def _focus_cells(self) -> cython.int:
        """The end cells of the closest tracks into focus; their number."""
        n: cython.int = self._collect_tracks()
        m: cython.int = 0
        lim: cython.int
        i: cython.int
        j: cython.int
        for lim in range(2, 5):
            if m >= 8:
                break
            for i in range(n):
                if m >= 8:
                    break
                j = 5 * i
                if abs(self.tracks[j + 1] - self.tracks[j + 3]) + abs(self.tracks[j + 2] - self.tracks[j + 4]) != lim:
                    continue
                self.focus[m] = self.tracks[j + 2] * SZ + self.tracks[j + 1]
                self.focus[m + 1] = self.tracks[j + 4] * SZ + self.tracks[j + 3]
                m += 2
        return m

    @cython.cfunc
    @cython.exceptval(check=False)
    def _focus(self, sp: cython.int, depth: cython.int, threatened: cython.bint) -> cython.int:
        """The cells a node's move ordering favours: the threat cells under
        threat, else (with depth to spare) the ends of the closest tracks."""
        if threatened:
            nf: cython.int = min(self.nthreat[sp], 64)
            j: cython.int
            for j in range(nf):
                self.focus[j] = self.threats[sp * NTHREATS + j]
            return nf
        return self._focus_cells() if depth >= 2 else 0

    @cython.cfunc
    @cython.exceptval(check=False)
    def _late(self) -> cython.bint:
        """Past a deadline (read every CLOCK_MASK + 1 nodes)?"""
        if time.process_time() > self.deadline:
            return True
        return self.wall_deadline > 0.0 and time.monotonic() > self.wall_deadline

    @cython.cfunc
    @cython.inline
    @cython.exceptval(check=False)
    def _count(self) -> cython.bint:
        """Count a node; True when the search must stop (a stopped search
        counts no more)."""
        if self.stopped:
            return True
        self.nodes += 1
        if self.use_clock and (self.nodes & CLOCK_MASK) == 0 and self._late():
            self.stopped = True
        if self.max_nodes and self.nodes >= self.max_nodes:
            self.stopped = True
        return self.stopped

    @cython.cfunc
    @cython.exceptval(check=False)
    def _search(
        self, depth: cython.int, alpha: cython.int, beta: cython.int, sp: cython.int, qply: cython.int
    ) -> cython.int:
        if self._count():
            return 0
        if sp >= MAXPLY - 2:
            return self._evaluate()
        key: cython.ulonglong = self.H
        ttmove: cython.int = 0
        v: cython.int
        e: cython.int = self._tt_probe(key)
        if e >= 0:
            ttmove = self.tt_move[e]
            if self.tt_depth[e] >= depth:
                v = self.tt_score[e]
                if v >= WON:
                    v -= sp
                elif v <= -WON:
                    v += sp
                flag: cython.int = self.tt_flag[e]
                if flag == EXACT or (flag == LOWER and v >= beta) or (flag == UPPER and v <= alpha):
                    return v
        base: cython.int = self.msp
        if self._generate(sp):
            self._tt_store(key, MAXPLY, EXACT, WIN - sp - 1, self.gen_win, sp)
            return WIN - sp - 1
        n: cython.int = self.gen_count
        threatened: cython.bint = self.nthreat[sp] > 0
        if depth <= 0 and not threatened:
            return self._evaluate()
        if depth <= 0 and qply >= QMAX:
            return self._evaluate() - 300
        self.msp += n
        if threatened:
            n = self._blocks(sp, base, n)
            self.msp = base + n
            if not n:
                self.msp = base
                return -(WIN - sp - 2)
        self._order(base, n, ttmove, sp, self._focus(sp, depth, threatened))
        following: cython.int = depth - 1
        nq: cython.int = qply
        if threatened and depth > 0 and sp < 3 * depth + 8:
            following = depth
        if depth <= 0:
            following = 0
            nq = qply + 1
        best: cython.int = -INF
        start_alpha: cython.int = alpha
        best_move: cython.int = 0
        i: cython.int
        m: cython.int
        score: cython.int
        for i in range(n):
            self._pick(base + i, base + n)
            m = self.moves[base + i]
            if self._make(m >> 4, m & 15) < 0:
                continue
            if i == 0:
                score = -self._search(following, -beta, -alpha, sp + 1, nq)
            else:
                score = -self._search(following, -alpha - 1, -alpha, sp + 1, nq)
                if alpha < score < beta and not self.stopped:
                    score = -self._search(following, -beta, -alpha, sp + 1, nq)
            self._undo()
            if self.stopped:
                self.msp = base
                return 0
            if score > best:
                best = score
                best_move = m
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if self.killers[2 * sp] != m:
                            self.killers[2 * sp + 1] = self.killers[2 * sp]
                            self.killers[2 * sp] = m
                        h: cython.int = self._hindex(m)
                        self.history[h] = min(self.history[h] + (depth * depth + 1 if depth > 0 else 1), HISTORY_CAP)
                        break
        self.msp = base
        flag2: cython.int = UPPER if best <= start_alpha else LOWER if best >= beta else EXACT
        self._tt_store(key, depth if depth > 0 else 0, flag2, best, best_move, sp)
        return best

    # ------------------------------------------------------------------
    # threat-space search: win by threats alone

    @cython.cfunc
    @cython.exceptval(check=False)
    def _attack(self, depth: cython.int, sp: cython.int) -> cython.bint:
        """Can the side to move win by making a threat with every move, the
        other side always forced to block, within ``depth`` attacking moves?
        Sound: a win is claimed (found the move) only when every answer
        loses."""
        if self._count() or sp >= MAXPLY - 4:
            return False
        base: cython.int = self.msp
        if self._generate(sp):
            self.found = self.gen_win
            return True
        n: cython.int = self.gen_count
        if self.nthreat[sp] or depth <= 0:
            return False
        self.msp += n
        me: cython.int = self.ply & 1
        result: cython.bint = False
        # only moves near the ends of the mover's close tracks
        nt: cython.int = self._collect_tracks()
        ns: cython.int = 0
        sb: cython.int = sp * 64
        i: cython.int
        j: cython.int
        t: cython.int
        dx: cython.int
        dy: cython.int
        for i in range(nt):
            if ns >= 62:
                break
            t = 5 * i
            if self.tracks[t] != me:
                continue
            dx = abs(self.tracks[t + 1] - self.tracks[t + 3])
            dy = abs(self.tracks[t + 2] - self.tracks[t + 4])
            if dx + dy <= 4 or dx >= 6 or dy >= 6:
                self.spots[sb + ns] = self.tracks[t + 2] * SZ + self.tracks[t + 1]
                self.spots[sb + ns + 1] = self.tracks[t + 4] * SZ + self.tracks[t + 3]
                ns += 2
        m: cython.int
        c: cython.int
        x: cython.int
        y: cython.int
        near: cython.bint
        ab: cython.int
        bn: cython.int
        a: cython.int
        every: cython.bint
        for i in range(n):
            if result or self.stopped:
                break
            m = self.moves[base + i]
            c = m >> 4
            x = c & SZMASK
            y = c >> SHIFT
            near = False
            for j in range(ns):
                if abs(x - (self.spots[sb + j] & SZMASK)) + abs(y - (self.spots[sb + j] >> SHIFT)) <= 2:
                    near = True
                    break
            if not near:
                continue
            if self._make(c, m & 15) < 0:
                continue
            ab = self.msp
            if self._generate(sp + 1):  # gives the other side a win
                self._undo()
                continue
            bn = self.gen_count
            if not self.nthreat[sp + 1]:  # no threat made
                self._undo()
                continue
            self.msp += bn
            every = True
            for j in range(bn):
                if not every or self.stopped:
                    break
                a = self.moves[ab + j]
                if self._make(a >> 4, a & 15) < 0:
                    continue
                if not self._standing(sp + 1) and not self._attack(depth - 1, sp + 2):
                    every = False
                self._undo()
            self.msp = ab
            self._undo()
            if every and not self.stopped:
                result = True
                self.found = m
        self.msp = base
        return result

    # ------------------------------------------------------------------
    # the root

    @cython.cfunc
    @cython.exceptval(check=False)
    def _rnd(self) -> cython.ulonglong:
        self.rng = (self.rng + GOLDEN) & MASK64
        return _mix(self.rng)

    def _forced_root(self, n: int) -> int:
        """The root under threat: keeps the blocks; a move when that decides
        (no block: lost, any move; one block: it), else 0 and the blocks'
        number in gen_count."""
        k = self._blocks(0, 0, n)
        if k == 0:
            self.out_score = -(WIN - 2)
            return self.moves[0] if n else self._any_move()
        self.gen_count = k
        return self.moves[0] if k == 1 else 0

    def _threat_space(self, n: int, start: float, budget: float, wstart: float, wall: float) -> int:
        """A win by threats alone (with a fifth of the time), 0 when none is found."""
        saved, saved_wall = self.deadline, self.wall_deadline
        self.deadline = min(self.deadline, start + budget * 0.2)
        if wall > 0.0:
            self.wall_deadline = min(self.wall_deadline, wstart + wall * 0.2)
        found = 0
        for d in range(1, 6):
            if self.stopped:
                break
            self.msp = n
            if self._attack(d, 0) and not self.stopped:
                self.out_score = WON
                self.out_depth = d
                found = self.found
                break
        # the clocks are read again, with the whole budget; a node limit stands
        self.stopped = self.max_nodes > 0 and self.nodes >= self.max_nodes
        self.deadline, self.wall_deadline = saved, saved_wall
        return found

    @cython.cfunc
    @cython.exceptval(check=False)
    def _iterate(
        self,
        n: cython.int,
        start: cython.double,
        budget: cython.double,
        wstart: cython.double,
        wall: cython.double,
        max_depth: cython.int,
    ) -> cython.int:
        """Iterative deepening over the ``n`` root moves (shuffled and
        ordered); the best move (out_depth and out_score)."""
        i: cython.int
        j: cython.int
        m: cython.int
        s: cython.int
        for i in range(n - 1, 0, -1):
            j = self._rnd() % (i + 1)
            m = self.moves[i]
            s = self.scores[i]
            self.moves[i] = self.moves[j]
            self.scores[i] = self.scores[j]
            self.moves[j] = m
            self.scores[j] = s
        nf: cython.int = self._focus_cells()
        self._order(0, n, 0, 0, nf)
        for i in range(n):
            self._pick(i, n)
        best: cython.int = self.moves[0]
        best_score: cython.int = 0
        depth: cython.int
        alpha: cython.int
        iter_best: cython.int
        score: cython.int
        for depth in range(1, MAXPLY // 2):
            if max_depth and depth > max_depth:
                break
            alpha = -INF
            iter_best = 0
            for i in range(n):
                m = self.moves[i]
                if self._make(m >> 4, m & 15) < 0:
                    continue
                if i == 0:
                    score = -self._search(depth - 1, -INF, INF, 1, 0)
                else:
                    score = -self._search(depth - 1, -alpha - 1, -alpha, 1, 0)
                    if score > alpha and not self.stopped:
                        score = -self._search(depth - 1, -INF, -alpha, 1, 0)
                self._undo()
                if self.stopped:
                    break
                self.scores[i] = score
                if score > alpha:
                    alpha = score
                    iter_best = m
            if self.stopped:
                # the first move searched is the last iteration's best: a
                # move that finished this iteration is as good or better
                if iter_best:
                    best = iter_best
                    best_score = alpha
                break
            # a stable sort by score, best first
            for i in range(1, n):
                m = self.moves[i]
                s = self.scores[i]
                j = i - 1
                while j >= 0 and self.scores[j] < s:
                    self.moves[j + 1] = self.moves[j]
                    self.scores[j + 1] = self.scores[j]
                    j -= 1
                self.moves[j + 1] = m
                self.scores[j + 1] = s
            best = self.moves[0]
            best_score = self.scores[0]
            self.out_depth = depth
            if best_score >= WON or best_score <= -WON:
                break
            if self.use_clock and (
                time.process_time() - start > budget * 0.5 or (wall > 0.0 and time.monotonic() - wstart > wall * 0.5)
            ):
                break
        self.out_score = best_score
        return best

    def _root(self, budget: float, wall: float, max_depth: int) -> int:
        start, wstart = time.process_time(), time.monotonic()
        self.deadline = start + (budget - 0.01 if budget - 0.01 > budget * 0.5 else budget * 0.5)
        self.wall_deadline = wstart + (wall - 0.01 if wall - 0.01 > wall * 0.5 else wall * 0.5) if wall > 0 else 0.0
        self.stopped = False
        self.nodes = 0
        self.msp = 0
        self.age = (self.age + 1) & 255
        self.killers = _zeros("i", (MAXPLY + 8) * 2)
        self._decay_history()
        self.out_depth = self.out_score = 0
        if self._generate(0):
            self.out_score = WIN - 1
            return self.gen_win
        n = self.gen_count
        self.msp = n
        if self.nthreat[0]:
            move = self._forced_root(n)
            if move or self.out_score:
                return move
            n = self.gen_count
        elif n == 0:
            # every move hands the other side the game
            self.out_score = -(WIN - 2)
            return self._any_move()
        else:
            move = self._threat_space(n, start, budget, wstart, wall)
            if move:
                return move
        self.msp = n
        return self._iterate(n, start, budget, wstart, wall, max_depth)

    def _decay_history(self) -> None:
        """Every history score an eighth (they are never negative)."""
        if cython.compiled:
            i: cython.int
            for i in range(1 << HBITS):
                self.history[i] >>= 3
        else:
            self.history = array("i", [v >> 3 for v in self.history])

    # ------------------------------------------------------------------
    # the public face

    def think(
        self, budget: float, seed: int, wall: float = 0.0, max_depth: int = 0, max_nodes: int = 0
    ) -> tuple[int, int, int, int, int, int, float]:
        """The move for the set-up position: ``(x, y, tile, depth, nodes,
        score, cpu_seconds)`` (area coordinates, the depth completed, the
        nodes searched, the score for the side to move: ``WIN_SCORE - n``
        a win in n plies).

        ``budget`` CPU seconds (``time.process_time``) and, when ``wall`` >
        0, as many wall seconds (``time.monotonic``): it stops at whichever
        comes first.  ``max_depth`` and ``max_nodes`` (> 0) stop it after
        that depth or that many nodes; with ``budget`` <= 0 no clock is read
        at all, and a search to a depth or a number of nodes gives the same
        answer every time (for a seed, from a fresh Core: the table and the
        history carry over from one call to the next).  Always a legal move
        (ValueError when the position has none)."""
        t0 = time.process_time()
        if budget <= 0 and max_depth <= 0 and max_nodes <= 0:
            raise ValueError("no budget, no depth and no node limit: the search would never end")
        self.rng = ((seed & 0xFFFFFFFFFFFFFFFF) * SEED_MUL + 1) & 0xFFFFFFFFFFFFFFFF
        self.use_clock = budget > 0
        self.max_nodes = max(max_nodes, 0)
        budget = budget if budget > 0 else 0.0
        wall = wall if wall > 0 else 0.0
        if self.ntiles == 0:
            self.nodes = 0
            return (0, 0, 9 if self._rnd() & 1 else 5, 0, 0, 0, time.process_time() - t0)
        m = self._root(budget, wall, max(max_depth, 0))
        if not m:
            raise ValueError("the position has no legal move")
        c = m >> 4
        return (
            (c & SZMASK) - self.OX,
            (c >> SHIFT) - self.OY,
            m & 15,
            self.out_depth,
            self.nodes,
            self.out_score,
            time.process_time() - t0,
        )

    def bench(self, seconds: float) -> tuple[int, int, float]:
        """``(depth, nodes, cpu_seconds)`` of one search of the set-up
        position (for nodes a second)."""
        _, _, _, depth, nodes, _, spent = self.think(seconds, 0)
        return depth, nodes, spent

    def legal(self) -> list[tuple[int, ...]]:
        """Every legal turn as the C program's ``legal`` prints it, in
        reading order: ``(x, y, tile, quick, same_key, winner, reason,
        count, px, py, pt, ...)``: the chosen tile; what the shortcut for a
        turn that forces nothing says (its winner, -2 when the turn forces)
        and whether its key is that of the turn played (1 or 0); the winner
        (-1 none, 0 white, 1 black) and the reason (0 none, 1 loop, 2
        line); the tiles placed, the chosen one first.  None before the
        first tile."""
        rows: list[tuple[int, ...]] = []
        ox, oy = self.OX, self.OY
        for y in range(self.miny - 1, self.maxy + 2):
            for x in range(self.minx - 1, self.maxx + 2):
                c = y * SZ + x
                k = self.K[c]
                if self.T[c] or not k:
                    continue
                for i in range(self.nfit[k]):
                    t = self.fit[k * 4 + i]
                    q = self._quick(c, t)
                    qkey = self.qkey
                    r = self._make(c, t)
                    if r < 0:
                        continue
                    winner, reason = r - 1, 0
                    if r:
                        reason = 1 if self.last_loops >> winner & 1 else 2
                    row = [
                        x - ox,
                        y - oy,
                        t,
                        q if q < 0 else q - 1,
                        int(q == -2 or qkey == self.H),
                        winner,
                        reason,
                        self.nplaced,
                    ]
                    for j in range(self.nplaced):
                        p = self.placed[j]
                        row += [(p & SZMASK) - ox, (p >> SHIFT) - oy, self.T[p]]
                    rows.append(tuple(row))
                    self._undo()
        return rows
