"""Property tests of the game types beyond trax, 8x8trax and looptrax (and
of the endings of a limited area): random games from seeds hypothesis
picks (derandomized, see tests/conftest.py), checked against invariants and
against brute force."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm.trax import PASS, Board, Outcome
from pbm.trax.tiles import SYMBOL

FACES = (5, 10, 9, 6, 3, 12)
ALL = ("trax", "8x8trax", "looptrax", "minitrax", "luckytrax", "pointtrax")
SEEDS = st.integers(0, 2**32 - 1)

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play_random_turn(board: Board, rng: random.Random, quiet: bool = False) -> None:
    """One random turn: in LuckyTrax a random face and a random placement of
    it, or a pass; elsewhere a random legal move.  With ``quiet``, a move
    that decides the game only when every move does."""
    if board.variant.drawn:
        options = board.placements(rng.choice(FACES))
        board.play(rng.choice(options) if options else PASS)
        return
    options = board.legal_moves()
    rng.shuffle(options)
    if quiet:
        for move in options:
            board.play(move)
            if board.outcome() is None:
                return
            board.pop()
    board.play(options[0])


def random_game(variant: str, seed: int, length: int, quiet: bool = False, **options) -> Board:
    rng = random.Random(seed)
    board = Board(variant, **options)
    while board.ply < length and board.outcome() is None:
        play_random_turn(board, rng, quiet)
    return board


# ----------------------------------------------------------------------
# every game type: undo and replay


@FAST
@given(st.sampled_from(ALL), SEEDS, st.integers(0, 60))
def test_undo_and_replay_round_trip_in_every_game_type(variant, seed, length):
    options = {"points": 12} if variant == "pointtrax" else {}
    board = random_game(variant, seed, length, **options)
    moves = list(board.moves)
    replayed = Board.replay([str(m) for m in moves], variant, **options)
    assert replayed.fingerprint() == board.fingerprint()
    assert replayed.outcome() == board.outcome()
    assert replayed.scores == board.scores and replayed.areas == board.areas
    assert board.copy().fingerprint() == board.fingerprint()
    earlier = [board.after(n).fingerprint() for n in range(len(moves))]
    for n in reversed(range(len(moves))):
        assert board.pop() == moves[n]
        assert board.fingerprint() == earlier[n]
        assert board.legal_moves() == Board.replay(moves[:n], variant, **options).legal_moves()
    assert board.ply == 0 and board.tile_count == 0 and board.scores == {"white": 0, "black": 0}


# ----------------------------------------------------------------------
# MiniTrax


@FAST
@given(SEEDS, st.sampled_from(("draw", "lastloses")))
def test_minitrax_never_grows_past_3x3(seed, ending):
    rng = random.Random(seed)
    board = Board("minitrax", ending=ending)
    while board.outcome() is None:
        for move in board.legal_moves():  # every legal turn stays inside 3x3
            board.play(move)
            assert board.width <= 3 and board.height <= 3
            board.pop()
        play_random_turn(board, rng)
        assert board.width <= 3 and board.height <= 3
        assert board.tile_count <= 9
    outcome = board.outcome()
    assert outcome.reason in ({"loop", "lasttile"} if ending == "lastloses" else {"loop", "draw"})


# ----------------------------------------------------------------------
# the endings: decided exactly when brute force says so


def brute_force_ending(board: Board) -> Outcome | None:
    """What the board's ending says, found by playing every legal turn on a
    copy under the draw ending (whose legal moves are all the legal turns
    while any is left) and looking at what it completed."""
    if board.tile_count == 0:
        return None
    twin = Board.replay(board.moves, board.variant, ending="draw")
    legal = twin.legal_moves()
    if board.ending == "draw":
        return None if legal else Outcome(None, "draw")
    for move in legal:
        twin.play(move)
        outcome = twin.outcome()
        twin.pop()
        if outcome is None or outcome.reason == "draw":
            return None  # a quiet turn
    return Outcome(board.turn, "lasttile")


@SLOW
@given(st.sampled_from(("minitrax", "8x8trax")), st.sampled_from(("draw", "lastloses")), SEEDS)
def test_the_ending_is_decided_exactly_when_no_legal_quiet_turn_is_left(variant, ending, seed):
    rng = random.Random(seed)
    board = Board(variant, ending=ending)
    while True:
        outcome = board.outcome()
        if outcome is not None and outcome.reason in ("loop", "line"):
            break
        assert outcome == brute_force_ending(board), [str(m) for m in board.moves]
        if outcome is not None:
            assert board.legal_moves() == [] and board.winning_track() is None
            break
        play_random_turn(board, rng, quiet=True)


# ----------------------------------------------------------------------
# LuckyTrax


@FAST
@given(SEEDS, st.integers(1, 80))
def test_a_lucky_turn_places_the_drawn_face_or_passes_when_it_fits_nowhere(seed, length):
    rng = random.Random(seed)
    board = Board("luckytrax")
    while board.ply < length and board.outcome() is None:
        face = rng.choice(FACES)
        options = board.placements(face)
        if board.tile_count:
            assert options == [m for m in board.legal_moves() if m.tile == face]
            assert sorted(map(str, board.legal_moves())) == sorted(
                str(m) for f in FACES for m in board.placements(f))
        tiles = board.tile_count
        if not options:
            assert all(m.tile != face for m in board.legal_moves())
            assert board.play("pass") == PASS
            assert board.tile_count == tiles and board.last_turn().placed is None
            continue
        move = rng.choice(options)
        assert board.play(move) == move
        placed = board.last_turn().placed
        if tiles:
            assert placed.tile == face
        else:  # the first tile: the face turned to fit @0+ or @0/
            assert SYMBOL[face] == "+" if placed.symbol == "+" else SYMBOL[face] != "+"
    assert all(not m.is_pass for m in board.legal_moves())


# ----------------------------------------------------------------------
# PointTrax


#: Lines from a fresh area: eight straights across (a black line) or down
#: (a white line).
ACROSS = ["@0+", "B1+", "C1+", "D1+", "E1+", "F1+", "G1+", "H1+"]
DOWN = ["@0+", "A2+", "A3+", "A4+", "A5+", "A6+", "A7+", "A8+"]


def point_game_turns(board: Board, rng: random.Random):
    """Turns of a PointTrax game (each yields after a move): random moves,
    and in a fresh area now and then a straight line, so that areas are
    cleared often."""
    while True:
        if (board.tile_count == 0 or board.reset_due) and rng.random() < 0.6:
            for move in rng.choice((ACROSS, DOWN)):
                if board.outcome() is not None:
                    return
                board.play(move)
                yield
        else:
            board.play(rng.choice(board.legal_moves()))
            yield


@FAST
@given(SEEDS, st.integers(1, 60))
def test_point_trax_scores_resets_and_the_winner(seed, target):
    rng = random.Random(seed)
    board = Board("pointtrax", points=target)
    turns = point_game_turns(board, rng)
    while board.outcome() is None and board.ply < 150:
        before = board.scores
        reset = board.reset_due
        next(turns)
        after = board.scores
        # scores never go down, and rise by exactly what the turn scored
        gained = {"white": 0, "black": 0}
        for track in board.last_scored():
            gained[track.colour] += track.tiles
            assert track.tiles == len(track.cells) >= 4
        assert after == {c: before[c] + gained[c] for c in before}
        if reset:  # the turn started a fresh area: its first tile, alone
            assert board.tile_count == 1 and board.width == board.height == 1
            assert str(board.moves[-1]) in ("@0+", "@0/")
        if board.reset_due:
            assert any(t.kind == "line" for t in board.last_scored())
            assert board.areas[-1] == board.ply
            assert [str(m) for m in board.legal_moves()] == ["@0+", "@0/"]
        outcome = board.outcome()
        high = max(after.values())
        if outcome is None:
            # nobody has both reached the target and more points
            assert high < target or after["white"] == after["black"]
        else:
            assert outcome.reason == "points"
            assert after[outcome.winner] == high >= target
            assert after["white"] != after["black"]
            assert not board.reset_due
    replayed = Board.replay([str(m) for m in board.moves], "pointtrax", points=target)
    assert replayed.scores == board.scores and replayed.areas == board.areas
    assert replayed.fingerprint() == board.fingerprint()
    # the first to the target with more points: no earlier position was won
    assert all(board.after(n).outcome() is None for n in range(board.ply))
    # and undo brings back every earlier position's scores and areas
    for n in reversed(range(board.ply)):
        board.pop()
        if n % 7 == 0:
            earlier = board.after(n)
            assert (board.scores, board.areas, board.reset_due) == (earlier.scores, earlier.areas, earlier.reset_due)
