"""A deliberately naive Trax referee used to cross-check the engine.

It shares no code with ``pbm.trax``: tiles are described by the colours of
their four edges, every forced play is found by rescanning the whole board,
forced cells are filled in an order the caller chooses (to show the order
does not matter), and wins are found by walking every track from end to end.
Slow and obviously right is the point.
"""

from __future__ import annotations

import random

# (dx, dy) for top, right, bottom, left
STEPS = ((0, -1), (1, 0), (0, 1), (-1, 0))
OPP = (2, 3, 0, 1)

# A tile is a 4-tuple of edge colours, "w" or "b", in the order top, right, bottom, left.
TILES = {
    ("w", "b", "w", "b"): "+",
    ("b", "w", "b", "w"): "+",
    ("w", "b", "b", "w"): "/",
    ("b", "w", "w", "b"): "/",
    ("w", "w", "b", "b"): "\\",
    ("b", "b", "w", "w"): "\\",
}


def letters(n: int) -> str:
    if n == 0:
        return "@"
    s = ""
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(65 + r) + s
    return s


class Illegal(Exception):
    pass


class Referee:
    def __init__(self, max_size: int | None = None, lines_win: bool = True):
        self.tiles: dict[tuple[int, int], tuple[str, ...]] = {}
        self.max_size = max_size
        self.lines_win = lines_win
        self.ply = 0
        self.result: tuple[str | None, str] | None = None

    def copy(self) -> Referee:
        r = Referee(self.max_size, self.lines_win)
        r.tiles = dict(self.tiles)
        r.ply = self.ply
        r.result = self.result
        return r

    def bbox(self):
        xs = [x for x, _ in self.tiles]
        ys = [y for _, y in self.tiles]
        return min(xs), max(xs), min(ys), max(ys)

    def entering(self, tiles, cell):
        """{direction: colour} of track ends entering an empty cell."""
        x, y = cell
        out = {}
        for d, (dx, dy) in enumerate(STEPS):
            t = tiles.get((x + dx, y + dy))
            if t is not None:
                out[d] = t[OPP[d]]
        return out

    def fits(self, tiles, cell, tile):
        return all(tile[d] == c for d, c in self.entering(tiles, cell).items())

    def settle(self, tiles, rng: random.Random):
        """Fill forced cells in random order; raise Illegal on three ends."""
        while True:
            empties = {
                (x + dx, y + dy)
                for (x, y) in tiles
                for dx, dy in STEPS
                if (x + dx, y + dy) not in tiles
            }
            forced = []
            for cell in sorted(empties):
                ent = self.entering(tiles, cell)
                for colour in "wb":
                    n = sum(1 for c in ent.values() if c == colour)
                    if n >= 3:
                        raise Illegal(cell)
                    if n == 2:
                        forced.append(cell)
            if not forced:
                return
            cell = rng.choice(forced)
            ent = self.entering(tiles, cell)
            options = [t for t in TILES if all(t[d] == c for d, c in ent.items())]
            assert len(options) == 1, (cell, ent, options)
            tiles[cell] = options[0]

    def try_turn(self, cell, tile, rng=None):
        """The tiles after the turn, or None if the turn is illegal."""
        rng = rng or random.Random(0)
        tiles = dict(self.tiles)
        tiles[cell] = tile
        try:
            self.settle(tiles, rng)
        except Illegal:
            return None
        return tiles

    def candidates(self):
        """(notation, cell, tile) for each fitting placement in size limits."""
        if not self.tiles:
            return [("@0+", (0, 0), ("w", "b", "w", "b")), ("@0/", (0, 0), ("w", "b", "b", "w"))]
        minx, maxx, miny, maxy = self.bbox()
        out = []
        for y in range(miny - 1, maxy + 2):
            for x in range(minx - 1, maxx + 2):
                if (x, y) in self.tiles:
                    continue
                if not self.entering(self.tiles, (x, y)):
                    continue
                if self.max_size is not None:
                    if max(maxx, x) - min(minx, x) + 1 > self.max_size:
                        continue
                    if max(maxy, y) - min(miny, y) + 1 > self.max_size:
                        continue
                for tile, sym in TILES.items():
                    if self.fits(self.tiles, (x, y), tile):
                        name = f"{letters(x - minx + 1)}{y - miny + 1}{sym}"
                        out.append((name, (x, y), tile))
        return out

    def legal_moves(self, rng=None):
        if self.result is not None:
            return set()
        return {name for name, cell, tile in self.candidates() if self.try_turn(cell, tile, rng) is not None}

    def play(self, notation: str, rng=None):
        for name, cell, tile in self.candidates():
            if name == notation:
                after = self.try_turn(cell, tile, rng)
                if after is None:
                    raise Illegal(notation)
                placed = set(after) - set(self.tiles)
                self.tiles = after
                self.ply += 1
                self.result = self.judge(placed)
                return
        raise Illegal(notation)

    def judge(self, placed):
        """Walk every track through a placed tile; loops and lines decide."""
        minx, maxx, miny, maxy = self.bbox()
        wins = {}
        for cell in placed:
            tile = self.tiles[cell]
            for colour in "wb":
                kind = self.walk(cell, tile, colour, (minx, maxx, miny, maxy))
                if kind == "loop":
                    wins[colour] = "loop"
                elif kind == "line" and self.lines_win:
                    wins.setdefault(colour, "line")
        if not wins:
            if self.max_size is not None and not self.legal_after():
                return (None, "draw")
            return None
        mover = "w" if self.ply % 2 == 1 else "b"
        winner = mover if mover in wins else ("b" if mover == "w" else "w")
        return ({"w": "white", "b": "black"}[winner], wins[winner])

    def legal_after(self):
        return any(self.try_turn(cell, tile) is not None for _, cell, tile in self.candidates())

    def walk(self, cell, tile, colour, box):
        dirs = [d for d in range(4) if tile[d] == colour]
        exits = []
        for start in dirs:
            x, y = cell
            d = start
            while True:
                dx, dy = STEPS[d]
                nxt = (x + dx, y + dy)
                t = self.tiles.get(nxt)
                if t is None:
                    exits.append(((x, y), d))
                    break
                if nxt == cell:
                    return "loop"
                came = OPP[d]
                d = next(e for e in range(4) if e != came and t[e] == colour)
                x, y = nxt
        (c1, d1), (c2, d2) = exits
        minx, maxx, miny, maxy = box

        def side(c, d):
            x, y = c
            if d == 3 and x == minx:
                return "L"
            if d == 1 and x == maxx:
                return "R"
            if d == 0 and y == miny:
                return "T"
            if d == 2 and y == maxy:
                return "B"
            return None

        sides = {side(c1, d1), side(c2, d2)}
        if sides == {"L", "R"} and maxx - minx + 1 >= 8:
            return "line"
        if sides == {"T", "B"} and maxy - miny + 1 >= 8:
            return "line"
        return None
