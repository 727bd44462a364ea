"""Property tests: random legal games, checked against invariants and against
the naive referee in ``reference.py``."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm.trax import Board, TraxError, column_letters, parse_notation

from .reference import TILES as REF_TILES
from .reference import Referee

VARIANTS = st.sampled_from(["trax", "8x8trax", "looptrax"])
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def games(draw, max_moves=40):
    """A board after a random legal game (possibly finished)."""
    variant = draw(VARIANTS)
    length = draw(st.integers(min_value=0, max_value=max_moves))
    board = Board(variant)
    for _ in range(length):
        moves = board.legal_moves()
        if not moves:
            break
        board.play(moves[draw(st.integers(0, len(moves) - 1))])
    return board


@FAST
@given(games())
def test_pop_restores_the_exact_position_after_every_move(board):
    moves = list(board.moves)
    fingerprints = [b.fingerprint() for b in (board.after(n) for n in range(len(moves)))]
    for n in reversed(range(len(moves))):
        assert board.pop() == moves[n]
        assert board.fingerprint() == fingerprints[n]
    assert board.tile_count == 0


@FAST
@given(games(), st.randoms(use_true_random=False))
def test_every_listed_move_plays_and_every_other_placement_raises(board, rnd):
    legal = board.legal_moves()
    assert len(set(legal)) == len(legal)
    before = board.fingerprint()
    for move in rnd.sample(legal, min(len(legal), 12)):
        played = board.play(str(move))
        assert played == move
        board.pop()
        assert board.fingerprint() == before
    # every cell of the area around the formation, every symbol
    legal_names = {str(m) for m in legal}
    names = [
        f"{column_letters(c)}{r}{s}"
        for c in range(board.width + 2)
        for r in range(board.height + 2)
        for s in "+/\\"
    ]
    for name in rnd.sample(names, min(len(names), 40)):
        if name in legal_names:
            continue
        try:
            board.play(name)
        except TraxError:
            assert board.fingerprint() == before
        else:
            raise AssertionError(f"{name} played but is not in legal_moves()")


@FAST
@given(games())
def test_notation_round_trips(board):
    replayed = Board(board.variant.name)
    for move in board.moves:
        text = str(move)
        assert str(parse_notation(text)) == text
        assert str(parse_notation(text.lower())) == text
        assert replayed.parse_move(text) == move
        replayed.play(text.lower())
    assert replayed.fingerprint() == board.fingerprint()
    for move in board.legal_moves():
        assert str(board.parse_move(str(move))) == str(move)


def referee_for(board: Board) -> Referee:
    return Referee(max_size=board.variant.max_size, lines_win=board.variant.lines_win)


def engine_tiles(board: Board):
    """The engine's tiles as the referee draws them: {(x, y): edge colours}."""
    out = {}
    for col, row, mask in board.cells():
        out[(col, row)] = tuple("w" if mask >> d & 1 else "b" for d in range(4))
    return out


def normalised(tiles):
    minx = min(x for x, _ in tiles)
    miny = min(y for _, y in tiles)
    return {(x - minx + 1, y - miny + 1): t for (x, y), t in tiles.items()}


@SLOW
@given(games(max_moves=30), st.integers(0, 2**32 - 1))
def test_the_naive_referee_agrees_on_every_turn_and_the_result(board, seed):
    rng = random.Random(seed)
    ref = referee_for(board)
    replay = Board(board.variant.name)
    for move in board.moves:
        # forced tiles filled in a random order give the same position
        ref.play(str(move), rng)
        replay.play(move)
        assert normalised(ref.tiles) == engine_tiles(replay)
        outcome = replay.outcome()
        assert ref.result == (None if outcome is None else (outcome.winner, outcome.reason))
    assert ref.legal_moves(rng) == {str(m) for m in board.legal_moves()}


@SLOW
@given(games(max_moves=25), st.lists(st.integers(0, 2**32 - 1), min_size=3, max_size=3))
def test_the_order_of_forced_plays_does_not_change_any_turn(board, seeds):
    ref = referee_for(board)
    for move in board.moves:
        ref.play(str(move))
    for name, cell, tile in ref.candidates():
        results = set()
        for seed in seeds:
            after = ref.try_turn(cell, tile, random.Random(seed))
            results.add(None if after is None else frozenset(after.items()))
        assert len(results) == 1, name


def test_the_referee_knows_the_six_tiles():
    assert sorted(REF_TILES.values()) == sorted("++//\\\\")


def test_the_referee_reads_the_recorded_wins_as_the_engine_does():
    from .test_recorded_games import GAMES

    checked = 0
    for param in GAMES:
        variant, result, moves = param.values
        if result == "none" or len(moves) > 45:
            continue
        board = Board.replay(moves, variant)
        ref = referee_for(board)
        for move in moves:
            ref.play(move.upper())
        outcome = board.outcome()
        assert ref.result == (outcome.winner, outcome.reason), param.id
        checked += 1
    assert checked >= 40


@FAST
@given(VARIANTS, st.lists(st.integers(0, 10**6), min_size=1, max_size=80))
def test_legal_moves_stay_right_through_any_mix_of_plays_and_undos(variant, choices):
    # legality results are kept between turns; a fresh board computes them anew
    board = Board(variant)
    for choice in choices:
        moves = board.legal_moves()
        if moves and (choice % 4 or board.ply == 0):
            board.play(moves[choice % len(moves)])
        elif board.ply:
            board.pop()
        fresh = Board.replay(board.moves, variant)
        assert board.legal_moves() == fresh.legal_moves()
        assert board.outcome() == fresh.outcome()
