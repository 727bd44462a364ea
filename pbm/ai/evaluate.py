"""The static evaluation: how promising a quiet Trax position is.

The search calls it only where neither side can complete a loop or a line
with its next move (the search itself deals with those: a win in one, or a
threat that must be blocked), so it looks one step further: at the *open
tracks* (:meth:`pbm.trax.Board.track_ends`), each a colour and the two
empty cells its ends enter.

Loops
    A track whose two ends enter cells close together is a loop in the
    making.  Ends one step apart (side by side, the *edge* shape) usually
    give a win in one; in a quiet position something blocks them, but one
    tile may unblock them.  Two steps apart is the shape every Trax attack
    is built from: the *L* (ends in diagonal cells: a tile in either corner
    turns the track towards the other end) and the *cave* (ends two cells
    apart in a row or column, an empty cell between them).  One move turns
    either into a threat, and two such shapes, or one that a single tile
    turns into two threats, win.  Farther ends count for less.  Each track
    scores :data:`LOOP` by the steps between its end cells.
Lines
    In the game types where lines win, a track whose ends are far apart
    across the formation is a line in the making; it scores :data:`LINE` by
    the number of columns (or rows) between its end cells.  An end that
    leaves through the outermost edge is *open*: the track can still be
    drawn out to the edge there, which a line needs, so a track scores its
    full line value only when both its ends are open, half otherwise.
Tempo
    The side to move can act on its shapes first, so its own count
    :data:`TEMPO` times (a percentage) those of the other side.
Points
    In PointTrax each point scored is worth :data:`POINT`.

Scores are from the point of view of the side to move, in the units the
search uses (a win is :data:`pbm.ai.search.WIN`, far beyond any of these).
"""

from __future__ import annotations

from pbm.trax import Board

#: LOOP[d]: the value of a track whose two end cells are d steps apart (d >= len: nothing).
LOOP = (0, 30, 50, 18, 7, 3, 1)
#: LINE[s]: the value of a track with s columns (or rows) between its end cells (s >= len: the last).
LINE = (0, 0, 0, 0, 2, 5, 12, 28, 45, 45)
#: The side to move's shapes count this many percent of the other side's.
TEMPO = 150
#: PointTrax: the value of one point scored.
POINT = 40

_WHITE, _BLACK = 0, 1


def shape_values(board: Board) -> tuple[int, int]:
    """The loop and line shapes of white and of black (without tempo)."""
    totals = [0, 0]
    loop = LOOP
    loop_len = len(loop)
    lines = board.variant.lines_win
    if lines:
        line = LINE
        line_last = len(line) - 1
        x0, y0 = board.frame()
        left, top = x0, y0
        right, bottom = x0 + board.width + 1, y0 + board.height + 1
    for colour, x1, y1, x2, y2 in board.track_ends():
        dx = x1 - x2 if x1 > x2 else x2 - x1
        dy = y1 - y2 if y1 > y2 else y2 - y1
        d = dx + dy
        value = loop[d] if d < loop_len else 0
        if lines:
            s = (dx if dx > dy else dy) - 1
            if s >= 4:
                worth = line[s if s < line_last else line_last]
                if dx >= dy:
                    open_ends = (x1 in (left, right)) + (x2 in (left, right))
                else:
                    open_ends = (y1 in (top, bottom)) + (y2 in (top, bottom))
                value += worth if open_ends == 2 else worth // 2
        totals[colour] += value
    return totals[_WHITE], totals[_BLACK]


def evaluate(board: Board) -> int:
    """The value of a quiet position for the side to move."""
    white, black = shape_values(board)
    if board.ply & 1:
        mine, theirs = black, white
    else:
        mine, theirs = white, black
    value = mine * TEMPO // 100 - theirs
    if board.points is not None:
        scores = board.scores
        diff = scores["white"] - scores["black"]
        value += POINT * (diff if not board.ply & 1 else -diff)
    return value
