"""The engine's fast paths against plain ones (issue 20).

The board keeps legality answers between turns, learns them by local
pattern in a tree its knowledge holds (``board.knowledge.answers``, shared by
the boards made from one another or given the same one), takes turns
back from compact records, and counts move sequences on its own
dictionaries.  Each of those is checked here against the slow and obvious
way of getting the same thing: trying every cell and symbol with play and
pop, playing the forced chain of every tile, replaying the moves, and the
plain recursion over ``legal_moves``, ``play`` and ``pop``."""

from __future__ import annotations

import copy
import pickle
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbm.trax import Board, Knowledge, TraxError, column_letters
from pbm.trax.knowledge import LEARN_STEPS
from pbm.trax.tiles import FIT_TILES

from .reference import Referee
from .test_variant_properties import ALL, FAST, SEEDS, SLOW, play_random_turn, random_game

#: The game types whose counting check takes the fast path (the others, and
#: the "lastloses" ending, count through play and pop already).
COUNTED = ("trax", "8x8trax", "looptrax")


def options_for(variant: str) -> dict[str, int]:
    """A low target score, so that PointTrax games clear areas and end."""
    return {"points": 12} if variant == "pointtrax" else {}


def plain_legal_moves(board: Board) -> list[str]:
    """Every cell of the area around the formation and every symbol, tried
    with play and taken back with pop: the legal ones, in reading order."""
    if board.outcome() is not None:
        return []
    if board.tile_count == 0 or board.reset_due:
        return ["@0+", "@0/"]
    before = board.fingerprint()
    out = []
    for row in range(board.height + 2):
        for column in range(board.width + 2):
            for symbol in "+/\\":
                name = f"{column_letters(column)}{row}{symbol}"
                try:
                    board.play(name)
                except TraxError:
                    continue
                board.pop()
                out.append(name)
    assert board.fingerprint() == before
    return out


def plain_count(board: Board, depth: int) -> int:
    """The counting check by the plain recursion: list, play, count, pop."""
    if depth <= 0:
        return 1
    moves = board.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.play(move)
        total += plain_count(board, depth - 1)
        board.pop()
    return total


def chained_answers(board: Board) -> dict[int, tuple[int, ...]]:
    """For every frontier cell, the fitting tiles whose forced chain
    (played out on a scratch layer, no table, no tree) is legal."""
    return {
        cell: tuple(tile for tile in FIT_TILES[key] if board._chain(cell, tile)[0] > 0)
        for cell, key in board._keys.items()
    }


# ----------------------------------------------------------------------
# legal moves


@SLOW
@given(st.sampled_from(ALL), SEEDS, st.integers(0, 45))
def test_legal_moves_are_every_cell_and_symbol_that_plays(variant, seed, length):
    board = random_game(variant, seed, length, **options_for(variant))
    assert [str(m) for m in board.legal_moves()] == plain_legal_moves(board)
    # asked again (answers kept), and on a board that never answered before
    assert [str(m) for m in board.legal_moves()] == plain_legal_moves(board)
    fresh = Board.replay(board.moves, variant, **options_for(variant))
    assert fresh.legal_moves() == board.legal_moves()


@SLOW
@given(st.sampled_from(("trax", "8x8trax", "looptrax")), SEEDS, st.integers(1, 40))
def test_legal_moves_agree_with_the_naive_referee(variant, seed, length):
    board = random_game(variant, seed, length)
    ref = Referee(max_size=board.variant.max_size, lines_win=board.variant.lines_win)
    for move in board.moves:
        ref.play(str(move))
    if board.outcome() is None:
        assert {str(m) for m in board.legal_moves()} == ref.legal_moves()


@FAST
@given(st.sampled_from(ALL), SEEDS, st.integers(1, 60))
def test_every_kept_answer_is_what_the_forced_chains_say(variant, seed, length):
    # the answers the board keeps between turns, whether from the table,
    # the shared tree or a chain played out, are the chains' own verdicts
    rng = random.Random(seed)
    board = Board(variant, **options_for(variant))
    while board.ply < length and board.outcome() is None:
        play_random_turn(board, rng)
        if board.tile_count and not board.reset_due and rng.random() < 0.5:
            board.legal_moves()
            chained = chained_answers(board)
            for cell, entry in board._legal.items():
                assert entry[0] == chained[cell], (board, cell)


def test_kept_answers_through_thousands_of_plays_and_undos():
    # A kept answer goes stale only when a turn nearby makes a forced chain
    # run into three ends of one colour, which is rare: many turns, each
    # checked against the chains, with undos and every game type.
    rng = random.Random(2020)
    turns = checked = 0
    while turns < 12000:
        variant = rng.choice(ALL)
        board = Board(variant, **options_for(variant))
        while board.outcome() is None and board.ply < 120 and turns < 12000:
            if board.ply and rng.random() < 0.15:
                board.pop()
            else:
                play_random_turn(board, rng)
            turns += 1
            if board.outcome() is None and board.tile_count and not board.reset_due:
                moves = board.legal_moves()
                chained = chained_answers(board)
                for cell, entry in board._legal.items():
                    if cell in chained:
                        assert entry[0] == chained[cell], (board, cell)
                        checked += 1
                frontier = board._frontier()
                assert len(moves) == sum(len(chained[cell]) for cell in frontier)
    assert checked > 150000


@pytest.mark.parametrize("variant", ["trax", "looptrax", "pointtrax"])
def test_the_shared_tree_gives_what_a_cold_one_learns(variant):
    # the same positions answered with the tree emptied before each, then
    # again with everything it learnt from all of them
    rng = random.Random(20)
    games = [random_game(variant, rng.randrange(2**32), rng.randrange(5, 70), **options_for(variant))
             for _ in range(40)]
    cold = [Board.replay(board.moves, variant, **options_for(variant), knowledge=Knowledge()).legal_moves()
            for board in games]
    shared = Knowledge()
    for board in games:  # the shared knowledge learns from all of them
        Board.replay(board.moves, variant, **options_for(variant), knowledge=shared).legal_moves()
    assert shared.answers
    warm = [Board.replay(board.moves, variant, **options_for(variant), knowledge=shared).legal_moves()
            for board in games]
    assert warm == cold
    for board, moves in zip(games, cold):
        assert moves == board.legal_moves()
        assert [str(m) for m in moves] == plain_legal_moves(board)


def test_the_shared_tree_is_emptied_when_it_grows_large():
    knowledge = Knowledge(limit=5)
    rng = random.Random(3)
    for _ in range(30):
        played = random_game("trax", rng.randrange(2**32), 30)
        board = Board.replay(played.moves, "trax", knowledge=knowledge)
        assert [str(m) for m in board.legal_moves()] == plain_legal_moves(board)
        assert len(knowledge.answers) <= 5 + LEARN_STEPS + 1  # a learn adds one per step


def test_boards_in_several_threads_share_the_tree_safely():
    # a tiny limit empties the tree again and again while other threads are
    # half way down it; no thread may read an answer another position wrote
    import sys
    import threading

    shared = Knowledge(limit=7)
    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    rng = random.Random(11)
    games = [random_game(v, rng.randrange(2**32), rng.randrange(8, 50), **options_for(v))
             for v in ("trax", "looptrax", "pointtrax") for _ in range(6)]
    expected = [plain_legal_moves(board) for board in games]
    wrong: list[int] = []

    def work(offset: int) -> None:
        for i in range(len(games)):
            k = (i + offset) % len(games)
            board = games[k]
            fresh = Board.replay(board.moves, board.variant.name, **options_for(board.variant.name),
                                 knowledge=shared)
            if [str(m) for m in fresh.legal_moves()] != expected[k]:
                wrong.append(k)

    try:
        threads = [threading.Thread(target=work, args=(n * 5,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old_interval)
    assert wrong == []


@FAST
@given(st.sampled_from(ALL), SEEDS, st.lists(st.integers(0, 10**6), min_size=1, max_size=60))
def test_kept_answers_stay_right_through_any_mix_of_plays_and_undos(variant, seed, choices):
    rng = random.Random(seed)
    board = Board(variant, **options_for(variant))
    for choice in choices:
        if board.outcome() is None and (choice % 4 or board.ply == 0):
            play_random_turn(board, rng)
        elif board.ply:
            board.pop()
        fresh = Board.replay(board.moves, variant, **options_for(variant))
        assert board.legal_moves() == fresh.legal_moves()
        assert board.outcome() == fresh.outcome()
        if board.variant.drawn and board.outcome() is None:
            face = rng.choice((5, 10, 9, 6, 3, 12))
            assert board.placements(face) == fresh.placements(face)


# ----------------------------------------------------------------------
# undo from compact records


@FAST
@given(st.sampled_from(ALL), SEEDS, st.lists(st.integers(0, 10**6), min_size=1, max_size=80))
def test_play_and_pop_in_any_order_give_the_positions_a_replay_gives(variant, seed, choices):
    rng = random.Random(seed)
    board = Board(variant, **options_for(variant))
    for choice in choices:
        if board.outcome() is None and (choice % 3 or board.ply == 0):
            play_random_turn(board, rng)
        elif board.ply:
            board.pop()
        replayed = Board.replay(board.moves, variant, **options_for(variant))
        assert board.fingerprint() == replayed.fingerprint()
        assert board.last_turn() == replayed.last_turn()
        assert board.last_placed() == replayed.last_placed()
        assert board.last_scored() == replayed.last_scored()
        assert (board.scores, board.areas, board.reset_due) == (replayed.scores, replayed.areas, replayed.reset_due)


@pytest.mark.parametrize("variant", ["trax", "looptrax", "luckytrax"])
def test_a_long_game_pops_back_to_the_empty_board_through_every_position(variant):
    rng = random.Random(250)
    board = Board(variant)
    while board.ply < 250:
        board = Board(variant)
        while board.ply < 250:
            options = board.legal_moves()
            rng.shuffle(options)
            for move in options:
                board.play(move)
                if board.outcome() is None:
                    break
                board.pop()
            else:
                break
    moves = board.moves
    assert len(moves) == 250 and Board.replay([str(m) for m in moves], variant).moves == moves
    for n in range(250, 0, -25):
        assert board.fingerprint() == board.after(n).fingerprint()
        for _ in range(25):
            board.pop()
    assert board.ply == 0 and board.tile_count == 0
    assert board.fingerprint() == Board(variant).fingerprint()


def test_kept_answers_and_undo_across_a_pointtrax_area_cleared_by_a_line():
    # a black line clears the area; the answers kept for the old area come
    # back with it when the fresh area's first move is taken back
    rng = random.Random(8)
    board = Board.replay(["@0+", "B1+", "C1+", "D1+", "E1+", "F1+", "G1+"], "pointtrax")
    old_area = board.legal_moves()
    board.play("H1+")
    assert board.reset_due
    while board.ply < 30 and board.outcome() is None:
        assert [str(m) for m in board.legal_moves()] == plain_legal_moves(board)
        play_random_turn(board, rng)
    assert board.areas == (8,)
    for n in range(board.ply - 1, 6, -1):
        board.pop()
        assert board.fingerprint() == board.after(n).fingerprint()
        assert board.legal_moves() == Board.replay(board.moves, "pointtrax").legal_moves()
    assert board.legal_moves() == old_area


def test_an_illegal_turn_leaves_nothing_behind():
    # the chain of B3\ runs into three ends of one colour after placing tiles
    board = Board.replay(["@0/", "B1+", "C1/", "C2\\", "@1+", "A2/", "A3/", "D3\\"])
    before = board.fingerprint()
    board.legal_moves()
    with pytest.raises(TraxError, match=r"^three-ends "):
        board.play("B3\\")
    assert board.fingerprint() == before
    assert board.ply == 8 and board.last_turn() == Board.replay(board.moves).last_turn()
    assert [str(m) for m in board.legal_moves()] == plain_legal_moves(board)


def test_boards_copy_and_pickle():
    board = random_game("pointtrax", 7, 60, points=12)
    for other in (copy.deepcopy(board), pickle.loads(pickle.dumps(board))):
        assert other.fingerprint() == board.fingerprint()
        assert other.moves == board.moves and other.legal_moves() == board.legal_moves()
        if other.ply:
            other.pop()
            assert other.fingerprint() == board.after(board.ply - 1).fingerprint()


# ----------------------------------------------------------------------
# the counting check


@SLOW
@given(st.sampled_from(COUNTED), SEEDS, st.integers(0, 25), st.integers(1, 3))
def test_counting_on_the_board_agrees_with_the_plain_recursion(variant, seed, length, depth):
    board = random_game(variant, seed, length)
    before = board.fingerprint()
    board.legal_moves()  # answers kept before counting must not change it
    assert board.count_sequences(depth) == plain_count(board, depth)
    assert board.fingerprint() == before
    assert board.legal_moves() == Board.replay(board.moves, variant).legal_moves()


@pytest.mark.slow
@pytest.mark.parametrize("variant", COUNTED)
@pytest.mark.parametrize("seed", range(2))
def test_counting_to_depth_four_agrees_with_the_plain_recursion(variant, seed):
    board = random_game(variant, seed, 2 + seed)
    assert board.count_sequences(4) == plain_count(board, 4)


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_counting_from_the_empty_board_agrees_with_the_plain_recursion(depth):
    assert Board().count_sequences(depth) == plain_count(Board(), depth)


def test_counting_an_8x8_board_near_full_counts_only_moves_inside_the_area():
    board = random_game("8x8trax", 11, 40, quiet=True)
    assert board.width == 8 or board.height == 8
    assert board.count_sequences(2) == plain_count(board, 2)


def test_counting_stops_at_a_win():
    # after @0+ B1\ B2/ A2+ A3/ A0\ @3+ @3\ the move B2+ closes a loop
    board = Board.replay(["@0+", "B1\\", "B2/", "A2+", "A3/", "A0\\", "@3+", "@3\\"])
    assert board.count_sequences(2) == plain_count(board, 2)
    board.play("B2+")
    assert board.count_sequences(1) == board.count_sequences(3) == 0
    assert board.count_sequences(0) == 1
