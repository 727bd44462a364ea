"""What boards learn and share: a :class:`Knowledge` object, owned explicitly.

A frontier cell's legality answer depends on nothing but the cells it read,
and a tile's answer on nothing but the cells its forced chain reaches: the
keys of the cells it forces (which tile goes there) and the colours entering
their neighbours (whether the chain goes on, or meets three ends of one
colour).  A :class:`Knowledge` keeps a decision tree over those readings,
learnt from the boards it is used on (:meth:`~.legality.Legality._learn`),
and the :class:`~.moves.Move` objects it hands out, one per column, row and
tile (a Move is immutable, so every board that shares the knowledge hands
out the same object instead of making one per legal move per turn).

Nothing of it is kept at module level.  A :class:`~pbm.trax.Board` made
without one makes its own; the boards made from it (``copy``, ``after``,
``replay`` with ``knowledge=``) share it, and a caller that makes many
boards (a search, a benchmark, a server's worker) passes one to all of
them.  It holds for every game type (the size limit is applied apart).

Thread safety: boards in several threads may share one.  Its tables are
only read, added to (one ``dict`` operation at a time) and emptied when
they grow large; the tree's nodes are numbered from a count that is never
reset (``next()`` on it is atomic), so a board learning in one thread while
another empties the tree can only write entries nobody reads, never one
under a live key.  Two threads may learn the same answer twice; both are
right.

Pickled, a knowledge comes back empty (it is a cache; a board sent to
another process learns there); copied (``copy.copy``, ``copy.deepcopy``) it
is the same object, shared.
"""

from __future__ import annotations

import itertools
from typing import TypeAlias

from .moves import Move
from .tiles import DELTA, STRIDE, SYMBOL, E, N, S, W

#: Room for a node's number below a reading in a key of the tree.
IDENT_BITS = 40
#: Entries the tree holds at most before it is emptied (some 5 MB).
LEARN_LIMIT = 1 << 15
#: How many steps of a forced chain the tree learns; farther chains are
#: played out where they are met.
LEARN_STEPS = 3
#: Move objects (and tuples of them) kept at most before the tables are emptied.
SHARED_LIMIT = 1 << 14

_DELTAS = (DELTA[N], DELTA[E], DELTA[S], DELTA[W])

#: A legality answer for one frontier cell: (the legal tiles in symbol
#: order, the farthest it read in steps, the tiles' bits).
Entry: TypeAlias = tuple[tuple[int, ...], int, int]

#: A tile tried at a cell while learning: the tile, how many steps away its
#: answer read (negated when the turn is illegal), and the cells each step
#: of its chain forced.
Played: TypeAlias = tuple[int, int, list[list[int]]]


class Node:
    """What is known of a frontier cell's legality when some tiles are not
    decided by what was read so far: the legal tiles among those decided,
    how far their answers read (steps), their bits, the tiles not decided
    yet, and for those the cells to read next (offsets from the cell: the
    cells their chains force at the next step, whose keys say which tile
    goes there, then those cells' other neighbours, of which only the
    colours entering count).  ``full`` is None when the chains run farther
    than is worth learning: the pending tiles are then played out where they
    are met.  ``ident`` numbers the node: what is known after the next
    reading is under ``reading << IDENT_BITS | ident``."""

    __slots__ = ("colours", "full", "ident", "mask", "pending", "reach", "tiles")

    def __init__(self, knowledge: Knowledge, tiles: tuple[int, ...], reach: int, mask: int,
                 pending: tuple[int, ...], full: tuple[int, ...] | None, colours: tuple[int, ...]) -> None:
        shared = knowledge.shared
        self.tiles = shared(tiles)
        self.reach = reach
        self.mask = mask
        self.pending = shared(pending)
        self.full = None if full is None else shared(full)
        self.colours = shared(colours)
        knowledge.learnt += 1
        self.ident = next(knowledge.idents)


class Knowledge:
    """The legality answers boards learn, and the Move objects they share.

    ``answers`` is the decision tree: its root is keyed by a frontier cell's
    entry key and which colours enter its neighbours (``key << 8 | sig``,
    which decides every tile that forces nothing); a :class:`Node` says
    which cells to read next for the tiles still undecided, and what is
    known after reading them is under the reading (with a leading 1 bit)
    shifted above the node's number: an :data:`Entry`, or another Node.
    ``limit`` bounds it: past that many entries (or nodes made) it is
    emptied, and learnt again from the positions met next.

    >>> from pbm.trax import Board
    >>> shared = Knowledge()
    >>> board = Board("trax", knowledge=shared)
    >>> board.copy().knowledge is shared
    True
    """

    __slots__ = ("__weakref__", "answers", "idents", "learnt", "limit", "move_sets", "moves", "same", "tuples")

    def __init__(self, limit: int = LEARN_LIMIT) -> None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"the limit of a knowledge is a whole number of at least 1, not {limit!r}")
        self.limit = limit
        self.answers: dict[int, Entry | Node] = {}
        # the answers and tuples the tree holds, one object for equal ones
        self.same: dict[Entry, Entry] = {}
        self.tuples: dict[tuple[int, ...], tuple[int, ...]] = {}
        # the nodes made since the tree was last emptied, and their numbers
        # (never reset)
        self.learnt = 0
        self.idents = itertools.count(1)
        # the shared Moves, by column, row and tile, and tuples of them by
        # cell offset and tiles
        self.moves: dict[int, Move] = {}
        self.move_sets: dict[int, tuple[Move, ...]] = {}

    def __repr__(self) -> str:
        return f"Knowledge(limit={self.limit}, answers={len(self.answers)}, moves={len(self.moves)})"

    def __reduce__(self) -> tuple[type[Knowledge], tuple[int]]:
        return (Knowledge, (self.limit,))

    def __copy__(self) -> Knowledge:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Knowledge:
        return self

    # ------------------------------------------------------------------
    # the tree of learnt answers

    def forget(self) -> None:
        """Empty the tree of learnt answers (when it grows large; the
        benchmark and the tests start from an empty one)."""
        self.answers.clear()
        self.same.clear()
        self.tuples.clear()
        self.learnt = 0

    def full(self) -> bool:
        """Has the tree grown to its limit (so that it is emptied before
        anything more is learnt)?"""
        return self.learnt >= self.limit or len(self.answers) >= self.limit

    def shared(self, numbers: tuple[int, ...]) -> tuple[int, ...]:
        """One tuple for all equal tuples the tree holds."""
        return self.tuples.setdefault(numbers, numbers)

    def node(self, cell: int, played: list[Played], step: int) -> Entry | Node:
        """What is known once the cells the chains force up to ``step``
        steps from ``cell`` have been read: the tiles whose answers read no
        farther than ``step + 1`` steps are decided; the answer when all are."""
        decided = [(tile, steps) for tile, steps, _ in played if abs(steps) <= step + 1]
        pending = tuple(tile for tile, steps, _ in played if abs(steps) > step + 1)
        legal = tuple(tile for tile, steps in decided if steps > 0)
        reach = max([1] + [abs(steps) for _, steps in decided])
        mask = sum(1 << tile for tile in legal)
        if not pending:
            answer = (self.shared(legal), reach, mask)
            return self.same.setdefault(answer, answer)
        if step >= LEARN_STEPS:
            return Node(self, legal, reach, mask, pending, None, ())
        # the cells the undecided chains force at the next step (each of
        # them runs farther, so forced some), then their other neighbours
        forced: set[int] = set()
        for _, steps, levels in played:
            if abs(steps) > step + 1:
                forced.update(levels[step])
        around = {c + d for c in forced for d in _DELTAS} - forced - {cell}
        return Node(self, legal, reach, mask, pending, tuple(sorted(c - cell for c in forced)),
                    tuple(sorted(c - cell for c in around)))

    # ------------------------------------------------------------------
    # shared Move objects

    def move(self, column: int, row: int, tile: int) -> Move:
        """The (shared) Move placing ``tile`` at ``column``, ``row``."""
        key = (column << 24 | row) << 4 | tile
        moves = self.moves
        move = moves.get(key)
        if move is None:
            if len(moves) >= SHARED_LIMIT:
                moves.clear()
            move = moves[key] = Move(column, row, SYMBOL[tile], tile)
        return move

    def moves_at(self, offset: int, mask: int, tiles: tuple[int, ...]) -> tuple[Move, ...]:
        """The (shared) Moves placing each of ``tiles`` (whose bits are
        ``mask``) at the cell ``offset`` from ``@0`` (``row * STRIDE +
        column``)."""
        key = offset << 13 | mask
        sets = self.move_sets
        moves = sets.get(key)
        if moves is None:
            if len(sets) >= SHARED_LIMIT:
                sets.clear()
            row, column = divmod(offset, STRIDE)
            moves = sets[key] = tuple(self.move(column, row, t) for t in tiles)
        return moves
