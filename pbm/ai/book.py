"""The opening book: the moves recorded games played from the first
positions of a game, with how those games ended for the player who moved.

The book (``book.txt`` beside this module, package data) is built by
``bench/book.py`` from recorded human games and the computer's own games;
nothing here reads anything else.  It is loaded once, the first time it is
asked for.

Positions are named by :func:`position_key`: the tiles of the formation in
area coordinates (:meth:`pbm.trax.Board.frame`), brought to one of the 8
rotations and reflections of the square (the one whose text sorts first)
and moved to start at ``(0, 0)``, with the side to move.  So a position
reached by another move order, written with other notation (the columns
and rows shift as the formation grows), or turned or mirrored, has the same
key.  A book move is stored as the key of the position it leads to; a
lookup plays each legal move of the actual board and matches the keys, so
what comes back is a legal move in the board's own notation.

:func:`book_move` chooses among the moves with at least
:data:`MIN_GAMES` games and a score for the mover of at least
:data:`MIN_SCORE`, at random, weighted by games times score squared (so the
seed varies the games), and never a move that lets the other side win at
once.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from importlib.resources import files

from pbm.trax import Board, Move

#: The book section each game type reads (8x8 Trax shares the Trax book:
#: its limit does not change the first dozen plies, and a lookup only
#: offers moves legal on the actual board).
SECTIONS = {"trax": "trax", "8x8trax": "trax", "looptrax": "looptrax"}
#: A book move needs at least this many games behind it.
MIN_GAMES = 3
#: ... and at least this score for the mover: (wins + draws / 2 + 1) / (games + 2).
MIN_SCORE = 0.35
#: The file the book is read from (package data of :mod:`pbm.ai`).
BOOK_FILE = "book.txt"

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
#: Directions N, E, S, W are 0 to 3 (:mod:`pbm.trax.tiles`); a tile is a
#: 4-bit mask of its white edges.
_TILE_CHARS = {5: "5", 10: "a", 9: "9", 6: "6", 3: "3", 12: "c"}


def _turn(d: int, quarter: int, mirror: bool) -> int:
    """Where direction ``d`` goes: mirrored left to right first (E and W
    swap), then turned clockwise ``quarter`` times (N to E ...)."""
    if mirror:
        d = (4 - d) % 4
    return (d + quarter) % 4


def transform_tile(tile: int, quarter: int, mirror: bool) -> int:
    """The white mask of ``tile`` turned and mirrored as :func:`transform_cell`."""
    out = 0
    for d in range(4):
        if tile >> d & 1:
            out |= 1 << _turn(d, quarter, mirror)
    return out


def transform_cell(x: int, y: int, quarter: int, mirror: bool) -> tuple[int, int]:
    """Area coordinates (x right, y down) mirrored left to right (when
    ``mirror``), then turned clockwise ``quarter`` quarter turns."""
    if mirror:
        x = -x
    for _ in range(quarter % 4):
        x, y = -y, x
    return x, y


#: The 8 symmetries of the square as (quarter turns, mirrored).
SYMMETRIES = tuple((q, m) for m in (False, True) for q in range(4))


def tiles_key(tiles: list[tuple[int, int, int]]) -> str | None:
    """The text naming a set of ``(x, y, tile)`` whatever its place, turn
    or mirror image (None when it is too wide to name: 36 cells)."""
    best: str | None = None
    for quarter, mirror in SYMMETRIES:
        moved = []
        for x, y, tile in tiles:
            tx, ty = transform_cell(x, y, quarter, mirror)
            moved.append((tx, ty, transform_tile(tile, quarter, mirror)))
        if not moved:
            return ""
        left = min(x for x, _, _ in moved)
        top = min(y for _, y, _ in moved)
        if max(x for x, _, _ in moved) - left >= len(_DIGITS) or max(y for _, y, _ in moved) - top >= len(_DIGITS):
            return None
        text = "".join(_DIGITS[x - left] + _DIGITS[y - top] + _TILE_CHARS[t] for x, y, t in sorted(moved))
        if best is None or text < best:
            best = text
    return best


def board_tiles(board: Board) -> list[tuple[int, int, int]]:
    """The board's tiles in area coordinates."""
    x0, y0 = board.frame()
    return [(x0 + column, y0 + row, tile) for column, row, tile in board.cells()]


def position_key(board: Board) -> str | None:
    """The book's name of the board's position: the side to move and the
    tiles up to symmetry (see the module docs); None when there is none
    (a formation too wide)."""
    key = tiles_key(board_tiles(board))
    if key is None:
        return None
    return ("b" if board.ply & 1 else "w") + key


@dataclass(frozen=True, slots=True)
class Entry:
    """A book move: the position it leads to, and the games that played it,
    counted for the player who made it."""

    child: str
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """The mover's score, pulled towards a half by one won and one lost game."""
        return (self.wins + self.draws / 2 + 1) / (self.games + 2)


#: A book: section -> position key -> its moves.
Book = dict[str, dict[str, tuple[Entry, ...]]]


def parse_book(text: str) -> Book:
    """Read the book's text format (written by ``bench/book.py``)::

        # comment
        [trax]
        <position key> <child key>:<wins>/<draws>/<losses> ...

    ``ValueError`` on a line it cannot read."""
    book: Book = {}
    section: dict[str, tuple[Entry, ...]] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = book.setdefault(line[1:-1], {})
            continue
        fields = line.split()
        if section is None or len(fields) < 2:
            raise ValueError(f"book line {number}: not a position and its moves")
        entries = []
        for item in fields[1:]:
            child, _, counts = item.partition(":")
            try:
                wins, draws, losses = (int(n) for n in counts.split("/"))
            except ValueError:
                raise ValueError(f"book line {number}: {item!r} is no move with counts") from None
            entries.append(Entry(child, wins, draws, losses))
        section[fields[0]] = tuple(entries)
    return book


@functools.cache
def load_book() -> Book:
    """The package's book (read once)."""
    return parse_book(files("pbm.ai").joinpath(BOOK_FILE).read_text(encoding="utf-8"))


def covers(game_type: str) -> bool:
    """Does the book have a section for this game type?"""
    section = SECTIONS.get(game_type)
    return section is not None and section in load_book()


def book_moves(board: Board, book: Book | None = None) -> list[tuple[Move, Entry]]:
    """Every book move of the board's position that is legal on the board,
    one move per resulting position, with its entry ([] out of book)."""
    if board.outcome() is not None:
        return []
    section = SECTIONS.get(board.variant.name)
    if section is None or board.points is not None:
        return []
    positions = (load_book() if book is None else book).get(section, {})
    key = position_key(board)
    entries = positions.get(key) if key is not None else None
    if not entries:
        return []
    wanted = {entry.child: entry for entry in entries}
    found: list[tuple[Move, Entry]] = []
    for move in board.legal_moves():
        board.play(move)
        try:
            child = position_key(board)
        finally:
            board.pop()
        entry = wanted.pop(child, None) if child is not None else None
        if entry is not None:
            found.append((move, entry))
            if not wanted:
                break
    return found


def _loses_at_once(board: Board, move: Move) -> bool:
    """Does ``move`` let the other side win with its next move (or lose now)?"""
    mover = board.turn
    board.play(move)
    try:
        outcome = board.outcome()
        if outcome is not None:
            return outcome.winner is not None and outcome.winner != mover
        to_move = 1 << (board.ply & 1)
        found = board.completions(stop=to_move)
        return bool(found) and bool(found[-1][1] & to_move)
    finally:
        board.pop()


def book_move(board: Board, rng: random.Random, book: Book | None = None,
              min_games: int = MIN_GAMES, min_score: float = MIN_SCORE) -> Move | None:
    """A move from the book for the board's position, or None out of book.

    Among the book's moves with at least ``min_games`` games and a score of
    at least ``min_score`` for the mover, one at random weighted by games
    times score squared, never one that lets the other side win at once.
    None also when the side to move can win at once (the search plays
    that), and for the game types the book does not cover."""
    candidates = [(move, entry) for move, entry in book_moves(board, book)
                  if entry.games >= min_games and entry.score >= min_score]
    if not candidates:
        return None
    bit = 1 << (board.ply & 1)
    found = board.completions(stop=bit)
    if found and found[-1][1] & bit:
        return None  # a win in one: not a book matter
    safe = [(move, entry) for move, entry in candidates if not _loses_at_once(board, move)]
    if not safe:
        return None
    weights = [entry.games * entry.score ** 2 for _, entry in safe]
    return rng.choices([move for move, _ in safe], weights=weights)[0]
