"""pbm.ai.core, the computer's hot core (the C engine bench/crival/trax.c
ported to Cython's pure-Python mode): its rules agree with pbm.trax turn by
turn; its move is always legal, takes a win in one, blocks a threat, and
comes even when the wall clock is all but gone; and the module as plain
Python answers exactly as the imported one (compiled, when it is)."""

from __future__ import annotations

import importlib.util
import os
import random
import shutil
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

import pytest

from pbm.ai import core
from pbm.trax import Board, Move

from .helpers import THREATS, WINS, random_position
from .test_tactics import DOUBLE_THREATS as TACTICS_DOUBLE_THREATS

GAMES = Path(__file__).resolve().parent.parent / "data" / "human-games.tsv"
SOURCE = Path(core.__file__).with_name("core.py")

DOUBLE_THREATS = TACTICS_DOUBLE_THREATS[:2]  # black makes two threats no block stops


def human_games() -> list[list[str]]:
    rows = [line.split("\t") for line in GAMES.read_text().splitlines() if line and not line.startswith("#")]
    return [row[4].split() for row in rows if row[1] == "Trax"]


def tiles(board: Board) -> list[tuple[int, int, int]]:
    """The board's tiles in area coordinates, as bench/crival.py sends them."""
    x0, y0 = board.frame()
    return [(x0 + column, y0 + row, tile) for column, row, tile in board.cells()]


def set_up(board: Board, engine: core.Core | None = None) -> core.Core:
    engine = engine or core.Core(tt_bits=12)
    engine.setup(board.ply, tiles(board))
    return engine


def to_move(board: Board, x: int, y: int, tile: int) -> Move:
    """pbm's legal move placing ``tile`` at area ``(x, y)`` (the test fails
    when there is none)."""
    x0, y0 = board.frame()
    found = [m for m in board.legal_moves() if (m.column, m.row, m.tile) == (x - x0, y - y0, tile)]
    assert found, f"no legal move {tile} at ({x}, {y}) after {' '.join(str(m) for m in board.moves)}"
    return found[0]


def winning(board: Board) -> set[str]:
    me = 1 << (board.ply & 1)
    return {str(move) for move, bits in board.completions() if bits & me}


def pure_module(name: str = "pbm.ai._core_as_python") -> ModuleType:
    """The source file loaded as plain Python under another name (its
    relative import of the shim still resolves inside pbm.ai)."""
    spec = importlib.util.spec_from_file_location(name, SOURCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


# ----------------------------------------------------------------------
# the rules


def compare_turns(engine: core.Core, board: Board) -> tuple[int, int, int, set[str]]:
    """core.legal() against pbm.trax in ``board``'s position: the same
    turns, the same tiles placed, the same winner and reason; the shortcut
    for a turn that forces nothing agrees with the turn played.  (wins,
    lines, quick turns, the moves that end nothing)."""
    x0, y0 = board.frame()
    theirs = {}
    quiet = set()
    for move in board.legal_moves():
        board.play(move)
        outcome = board.outcome()
        winner = -1 if outcome is None else ("white", "black").index(outcome.winner)
        reason = 0 if outcome is None else 1 if outcome.reason == "loop" else 2
        theirs[(x0 + move.column, y0 + move.row, move.tile)] = (winner, reason, board.last_tiles())
        if outcome is None:
            quiet.add(str(move))
        board.pop()
    mine = {}
    quick = 0
    engine.setup(board.ply, tiles(board))
    for row in engine.legal():
        x, y, tile, shortcut, same_key, winner, reason, count = row[:8]
        placed = [tuple(row[8 + 3 * i : 11 + 3 * i]) for i in range(count)]
        assert len(row) == 8 + 3 * count and placed[0] == (x, y, tile)
        assert same_key == 1
        if shortcut != -2:
            quick += 1
            assert count == 1 and shortcut == winner
        mine[(x, y, tile)] = (winner, reason, placed)
    assert mine == theirs, " ".join(str(m) for m in board.moves)
    wins = sum(1 for winner, _, _ in theirs.values() if winner >= 0)
    lines = sum(1 for _, reason, _ in theirs.values() if reason == 2)
    return wins, lines, quick, quiet


def test_rules_agree_with_pbm_trax_over_random_games():
    """Random games (half of them stretched to make lines) with a fixed
    seed: every position's turns as pbm.trax plays them."""
    rng = random.Random(20240601)
    engine = core.Core(tt_bits=12)
    positions = wins = quick = 0
    for game in range(8):
        board = Board()
        board.play("@0/" if game % 2 else "@0+")
        while board.outcome() is None and board.ply < (40 if game % 2 else 60):
            w, _, q, quiet = compare_turns(engine, board)
            positions, wins, quick = positions + 1, wins + w, quick + q
            moves = board.legal_moves()
            if game % 2:  # stretch: most often a quiet move that widens the formation
                moves = [m for m in moves if str(m) in quiet] or moves
                wider = [m for m in moves if m.column in (0, board.width + 1)]
                moves = wider if wider and rng.random() < 0.9 else moves
            board.play(rng.choice(moves))
    assert positions > 200 and wins > 500 and quick > 3000


def test_rules_agree_with_pbm_trax_over_human_games():
    """Recorded games, every fourth position of each (and its last): the
    turns that end them by a loop or a line are among those compared."""
    engine = core.Core(tt_bits=12)
    positions = wins = lines = 0
    for moves in human_games()[:40]:
        board = Board()
        for number, move in enumerate(moves):
            if number and (number % 4 == 0 or number == len(moves) - 1):
                found = compare_turns(engine, board)
                positions, wins, lines = positions + 1, wins + found[0], lines + found[1]
            board.play(move)
            if board.outcome() is not None:
                break
    assert positions > 150 and wins > 100 and lines >= 10


def test_the_area_shifts_when_the_formation_moves_far():
    """Positions far apart in area coordinates, one after another on one
    Core: the area is shifted and the turns still agree."""
    engine = core.Core(tt_bits=12)
    board = Board.replay(["@0/", "A2+", "@1\\", "C1/", "D2+", "C0+", "B4/"])
    base = tiles(board)
    engine.setup(board.ply, base)
    expected = engine.legal()
    for dx, dy in ((500, -300), (-90, 70), (0, 0), (3, 2)):
        engine.setup(board.ply, [(x + dx, y + dy, t) for x, y, t in base])
        rows = engine.legal()
        assert rows == [shifted(row, dx, dy) for row in expected]


def shifted(row: tuple[int, ...], dx: int, dy: int) -> tuple[int, ...]:
    """A row of core.legal() moved by (dx, dy): the chosen tile and the
    tiles placed."""
    out = list(row)
    out[0] += dx
    out[1] += dy
    for i in range(row[7]):
        out[8 + 3 * i] += dx
        out[9 + 3 * i] += dy
    return tuple(out)


def test_setup_refuses_what_is_no_position():
    engine = core.Core(tt_bits=8)
    with pytest.raises(ValueError, match="no tile"):
        engine.setup(1, [(0, 0, 7)])
    with pytest.raises(ValueError, match="two tiles"):
        engine.setup(2, [(0, 0, 5), (0, 0, 9)])
    with pytest.raises(ValueError, match="too large"):
        engine.setup(2, [(0, 0, 5), (1000, 0, 5)])
    with pytest.raises(ValueError, match="tt_bits"):
        core.Core(tt_bits=40)
    with pytest.raises(ValueError, match="never end"):
        set_up(Board.replay(["@0/"])).think(0, 1)


# ----------------------------------------------------------------------
# the search


def random_positions(count: int, seed: int) -> list[Board]:
    """Random games of 4 to 30 plies in which no move leaves either side a
    win in one (a game stops early when every move would)."""
    rng = random.Random(seed)
    return [random_position("trax", rng.getrandbits(32), rng.randrange(4, 31), calm=True) for _ in range(count)]


def test_the_move_is_always_legal():
    for number, board in enumerate(random_positions(10, seed=7)):
        x, y, tile, depth, nodes, score, seconds = set_up(board).think(0, number, max_nodes=10)
        to_move(board, x, y, tile)
        assert depth >= 0 and 0 <= nodes <= 10 and abs(score) <= core.WIN_SCORE and seconds >= 0


def test_the_first_move():
    for seed in range(4):
        x, y, tile, depth, nodes, *_ = set_up(Board()).think(0.1, seed)
        assert (x, y) == (0, 0) and tile in (5, 9) and depth == nodes == 0
        to_move(Board(), x, y, tile)


@pytest.mark.parametrize("moves", WINS)
def test_a_win_in_one_is_played(moves):
    board = Board.replay(moves.split())
    wins = winning(board)
    assert len(wins) == 1
    x, y, tile, _, _, score, _ = set_up(board).think(0, 1, max_nodes=10)
    assert str(to_move(board, x, y, tile)) in wins and score == core.WIN_SCORE - 1


@pytest.mark.parametrize("moves", THREATS)
def test_a_threat_is_blocked(moves):
    board = Board.replay(moves.split())
    assert not winning(board)
    x, y, tile, *_ = set_up(board).think(0, 3, max_nodes=150)
    board.play(to_move(board, x, y, tile))
    assert board.outcome() is None and not winning(board)


@pytest.mark.skipif(not core.compiled, reason="a search of thousands of nodes: the compiled core's")
@pytest.mark.parametrize(("moves", "best"), DOUBLE_THREATS)
def test_a_double_threat_is_made(moves, best):
    board = Board.replay(moves.split())
    x, y, tile, _, _, score, _ = set_up(board).think(0.5, 1)
    assert str(to_move(board, x, y, tile)) in best and score > 0


def test_a_tiny_wall_still_answers_a_legal_move():
    for number, board in enumerate(random_positions(3, seed=11)):
        x, y, tile, *_ = set_up(board).think(5.0, number, wall=1e-6)
        to_move(board, x, y, tile)
    x, y, tile, *_ = set_up(board).think(1e-6, 2)
    to_move(board, x, y, tile)


def test_a_node_limit_answers_the_same_every_time():
    cut = 0
    for board in random_positions(3, seed=3):
        first = set_up(board).think(0, 5, max_nodes=25)[:6]
        assert set_up(board).think(0, 5, max_nodes=25)[:6] == first
        cut += first[4] == 25  # the search was cut, at exactly that node
    assert cut >= 2


def test_the_source_as_python_answers_as_the_imported_module():
    """The same file run as plain Python: the same rows, and at a node or
    depth limit the same move, depth, nodes and score (from fresh Cores,
    one search after another so that the table and history carry over)."""
    python = pure_module()
    assert not python.compiled
    ours, theirs = core.Core(tt_bits=12), python.Core(tt_bits=12)
    positions = [Board.replay(WINS[0].split()[:5]), Board.replay(THREATS[3].split()), *random_positions(2, seed=5)]
    for number, board in enumerate(positions):
        set_up(board, ours)
        set_up(board, theirs)
        assert ours.legal() == theirs.legal()
        assert ours.think(0, number, max_nodes=15)[:6] == theirs.think(0, number, max_nodes=15)[:6]
    board = Board.replay(["@0/", "A2+", "B1/"])
    set_up(board, ours)
    set_up(board, theirs)
    assert ours.think(0, 9, max_depth=2)[:6] == theirs.think(0, 9, max_depth=2)[:6]


def test_without_cython_the_shim_stands_in(monkeypatch):
    monkeypatch.setitem(sys.modules, "cython", None)  # import cython fails
    python = pure_module("pbm.ai._core_without_cython")
    assert python.cython.__name__ == "pbm.ai._cython_shim" and not python.compiled
    board = Board.replay(THREATS[0].split())
    ours, theirs = set_up(board), set_up(board, python.Core(tt_bits=12))
    assert ours.legal() == theirs.legal()
    assert ours.think(0, 3, max_nodes=15)[:6] == theirs.think(0, 3, max_nodes=15)[:6]


def test_the_core_is_compiled_wherever_the_build_had_a_c_compiler():
    # a silent failure to compile would leave every test here passing on the plain-Python core
    # (and level 4 on the Board's search): where a compiler is, the install must have used it
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    expected = shutil.which(compiler) is not None and not os.environ.get("PBM_PURE")
    assert core.compiled is expected, f"compiler {compiler!r}: run `make core` (or pip install -e . again)"
