"""What the server calls: requests and answers as plain values that travel
to a worker process, every level and game type, budgets, reasons."""

from __future__ import annotations

import multiprocessing
import pickle
import re
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from pbm.ai import DEFAULT_BUDGETS, LEVELS, MAX_BUDGET, REASON_KINDS, Choice, Reason, ThinkRequest, explain, think
from pbm.trax import Board

from .helpers import VARIANTS, random_position

CELL = re.compile(r"^(@|[A-Z]+)(\d+)$")


def request_for(board: Board, level: int, **options: object) -> ThinkRequest:
    return ThinkRequest(board.variant.name, tuple(str(m) for m in board.moves), level=level, **options)


def test_defaults_are_a_constant_the_server_can_override():
    assert DEFAULT_BUDGETS == {3: 1.0, 4: 8.0}
    assert DEFAULT_BUDGETS[4] <= MAX_BUDGET <= 10.0
    assert LEVELS == (1, 2, 3, 4)
    assert ThinkRequest("trax", level=4).seconds() == DEFAULT_BUDGETS[4]
    assert ThinkRequest("trax", level=3, budget=0.25).seconds() == 0.25
    assert ThinkRequest("trax", level=4, budget=60).seconds() == MAX_BUDGET  # never more than the cap


def test_a_request_refuses_what_is_not_one():
    with pytest.raises(ValueError, match="level"):
        ThinkRequest("trax", level=5)
    with pytest.raises(ValueError, match="budget"):
        ThinkRequest("trax", budget=0)
    with pytest.raises(ValueError):
        think(ThinkRequest("chess", ("@0/",), level=2))
    with pytest.raises(ValueError, match="over"):
        # both colours complete a track; white, the mover, wins (the rules' example)
        think(ThinkRequest("trax", tuple(["@0+", "B1\\", "B2/", "A2+", "A3/", "A0\\", "@3+", "@3\\", "B2+"]), level=2))


def test_the_request_and_the_answer_pickle():
    request = ThinkRequest("pointtrax", ("@0/", "B1+"), level=3, budget=0.1, seed=7, points=10)
    assert pickle.loads(pickle.dumps(request)) == request
    assert request.moves == ("@0/", "B1+")
    choice = Choice("A0/", 2, 100, 5, 0.1, Reason("builds", ("A1", "B2")))
    assert pickle.loads(pickle.dumps(choice)) == choice


def test_think_runs_in_a_worker_process():
    board = random_position("trax", 5, 12)
    requests = [request_for(board, level, budget=0.2, seed=3) for level in (2, 3)]
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        answers = list(pool.map(think, requests))
    legal = {str(m) for m in board.legal_moves()}
    for choice in answers:
        assert isinstance(choice, Choice)
        assert choice.move in legal
        assert choice.reason is not None and choice.reason.kind in REASON_KINDS
    assert answers[0].move == think(requests[0]).move  # level 2 with a seed: the same move in any process


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_every_game_type(variant, level):
    board = random_position(variant, 17, 14)
    face = 9 if board.variant.drawn else None
    choice = think(request_for(board, level, budget=0.05, seed=1, face=face))
    if face is not None:
        allowed = {str(m) for m in board.placements(face)} or {"pass"}
    else:
        allowed = {str(m) for m in board.legal_moves()}
    assert choice.move in allowed
    board.play(choice.move)
    # the budget bounds the search; the bound here is loose (a busy machine
    # stretches wall time) but catches a search that ignores its budget
    assert choice.seconds < 0.05 + 1.0
    assert choice.reason is not None and choice.reason.kind in REASON_KINDS
    for cell in choice.reason.cells:
        match = CELL.match(cell)
        assert match, cell
        assert int(match.group(2)) <= board.height + 1


def test_an_only_move_comes_back_at_once():
    # the first LuckyTrax tile: the drawn face leaves a single placement
    for face, only in ((10, "@0+"), (3, "@0/")):
        start = time.process_time()
        choice = think(ThinkRequest("luckytrax", (), level=4, face=face))
        assert time.process_time() - start < 0.1
        assert choice.move == only and choice.depth == 0 and choice.nodes == 0


def test_a_face_that_fits_nowhere_is_passed(monkeypatch):
    board = random_position("luckytrax", 4, 12)
    monkeypatch.setattr(Board, "placements", lambda self, face: [])
    for level in LEVELS:
        choice = think(request_for(board, level, face=6, budget=8))
        assert choice.move == "pass" and choice.nodes == 0
        assert choice.reason == Reason("random")


def test_luckytrax_without_a_known_face_chooses_among_all_moves():
    board = random_position("luckytrax", 8, 10)
    choice = think(request_for(board, 3, budget=0.1, seed=2))
    assert choice.move in {str(m) for m in board.legal_moves()}


@pytest.mark.parametrize("level,budget", [(3, 0.05), (4, 0.1), (3, 0.3)])
def test_the_search_keeps_to_its_budget(level, budget):
    for seed, plies in ((1, 6), (2, 30), (3, 60)):
        board = random_position("trax", seed, plies, calm=True)
        assert not board.completions()  # nothing to find at once: the search runs
        start = time.process_time()
        choice = think(request_for(board, level, budget=budget, seed=seed))
        used = time.process_time() - start
        assert used <= budget + 0.05, (plies, used)
        assert choice.seconds <= used + 0.001
        if plies < 30 and budget >= 0.3:  # a whole first ply fits (at 0.05 s it does only on fast machines)
            assert choice.depth >= 1


def test_a_seed_makes_the_low_levels_repeatable():
    board = random_position("trax", 21, 16)
    for level in (1, 2):
        first = think(request_for(board, level, seed=5))
        assert all(think(request_for(board, level, seed=5)).move == first.move for _ in range(3))


def test_level_one_tells_why_with_every_kind_over_a_few_games():
    kinds = set()
    for seed in range(12):
        board = random_position("trax", seed, 4 + seed % 6, quiet=True)
        for _ in range(6):
            if board.outcome() is not None:
                break
            choice = think(request_for(board, 1, seed=seed))
            assert choice.reason is not None
            kinds.add(choice.reason.kind)
            board.play(choice.move)
    assert {"wins", "random"} <= kinds
    assert len(kinds) >= 4


def test_reasons_name_cells_of_the_position_shown_after_a_pointtrax_line():
    """A PointTrax line clears the area once the next move is played; the
    position after it still shows the line, and a reason names its cells."""
    board = Board.replay(["@0+", "B1+", "C1+", "D1+", "E1+", "F1+", "G1+"], "pointtrax")
    line = board.parse_move("H1+")
    others = [m for m in board.legal_moves() if m != line][:4]
    reason = explain(board, line, before=others)  # as if those had been threats
    board.play(line)
    assert board.reset_due and board.outcome() is None and board.scores["black"] == 8
    assert reason.kind == "blocks" and reason.cells
    for cell in reason.cells:
        match = CELL.match(cell)
        assert match, cell
        assert 0 <= int(match.group(2)) <= board.height + 1
    assert think(ThinkRequest("pointtrax", tuple(str(m) for m in board.moves), level=2, seed=1)).move in ("@0+", "@0/")


class _Jump:
    """A wall clock whose deadline has passed from the second reading on."""

    def __init__(self) -> None:
        self.read = 0

    def __call__(self) -> float:
        self.read += 1
        return 0.0 if self.read == 1 else 1e9


def test_a_search_out_of_time_before_depth_one_still_blocks_a_threat():
    from pbm.ai import winning_moves

    found = 0
    for seed in range(200):
        board = random_position("trax", seed, 20)
        if board.outcome() is not None or winning_moves(board):
            continue
        threats = [m for m, bits in board.completions() if bits & (2 if board.turn == "white" else 1)]
        if not threats:
            continue
        blocks = []
        for move in board.legal_moves():
            board.play(move)
            if board.outcome() is None and not winning_moves(board):
                blocks.append(str(move))
            board.pop()
        if not blocks:
            continue
        found += 1
        choice = think(request_for(board, 4, budget=5, seed=seed), wall_clock=_Jump())
        assert choice.depth == 0  # no iteration finished by the deadline
        assert choice.move in blocks, (seed, choice.move)
        if found == 5:
            break
    assert found == 5


def test_level_four_searches_on_the_board_when_the_core_refuses_the_position(monkeypatch):
    from pbm.ai import fast

    asked = []

    def refuses(board: Board, *args: object) -> fast.CoreAnswer:
        asked.append(board.ply)
        raise ValueError("the formation is too large: 130 x 3")

    monkeypatch.setattr(fast, "choose", refuses)
    monkeypatch.setattr(fast, "plays", lambda board: True)
    board = random_position("trax", 3, 14, calm=True)
    # the CPU budget alone ends the search (a busy machine's wall clock could end it before depth 1)
    choice = think(request_for(board, 4, budget=0.2, seed=1, book=False), wall_clock=lambda: 0.0)
    assert asked == [board.ply]
    assert choice.move in {str(m) for m in board.legal_moves()} and choice.depth >= 1
