"""Properties over many random positions: the computer only ever plays
legal moves, the hash of a position does not depend on how it was reached,
and what the search proves (with its table, its skipping of duplicate
positions and the engine's quick answers) is what a plain minimax finds."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbm.ai import WIN, WON, greedy_move, level_one, level_two, random_move
from pbm.ai.zobrist import Position, tiles_hash
from pbm.trax import Board

from .helpers import FACES, VARIANTS, plain, random_position, searched


def allowed(board: Board, face: int | None) -> set[str]:
    if face is not None:
        return {str(m) for m in board.placements(face)} or {"pass"}
    return {str(m) for m in board.legal_moves()}


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_search_plays_only_legal_moves(variant):
    """Hundreds of positions per game type (thousands in all): each of a
    few random games taken back move by move, every position searched for
    a few dozen nodes."""
    rng = random.Random(variant)
    checked = 0
    seed = 0
    while checked < 300:
        board = random_position(variant, seed, rng.randrange(10, 60), quiet=seed % 3 != 0)
        seed += 1
        while board.ply:
            if board.outcome() is None:
                face = rng.choice(FACES) if board.variant.drawn else None
                _, result = searched(board, nodes=25, face=face, seed=seed)
                assert str(result.move) in allowed(board, face), (board.moves, face, result)
                checked += 1
            board.pop()


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_light_players_play_only_legal_moves(variant):
    """Levels 1 and 2 and the benchmark's players, move after move."""
    rng = random.Random(variant + "light")
    played = 0
    games = 4 if variant == "pointtrax" else 12  # PointTrax's scoring moves make level 2 slow
    for seed in range(games):
        board = random_position(variant, seed, rng.randrange(1, 30))
        for _ in range(6):
            if board.outcome() is not None:
                break
            face = rng.choice(FACES) if board.variant.drawn else None
            options = allowed(board, face)
            for player in (level_one, level_two):
                move, reason = player(board, face, rng)
                assert str(move) in options
                assert reason.kind in ("wins", "blocks", "threatens", "builds", "random")
            assert str(random_move(board, face, rng)) in options
            move = greedy_move(board, face, rng)
            assert str(move) in options
            board.play(move)
            played += 1
    assert played >= games


@settings(max_examples=40)
@given(seed=st.integers(0, 10**9), variant=st.sampled_from(VARIANTS), plies=st.integers(1, 70))
def test_the_hash_kept_in_step_is_the_hash_worked_out_afresh(seed, variant, plies):
    board = random_position(variant, seed, plies, quiet=False)
    moves = list(board.moves)
    fresh = Board(board.variant)
    position = Position(fresh)
    keys = [position.key]
    for move in moves:
        position.play(move)
        keys.append(position.key)
        assert position.key == Position(Board.replay(fresh.moves, board.variant)).key
    for _ in moves:
        position.pop()
        keys.pop()
        assert position.key == keys[-1]
    assert position.key == Position(Board(board.variant)).key


def test_the_hash_names_the_position_not_the_way_to_it():
    # the same tiles by two move orders (the formation grew left one way)
    one = Board.replay(["@0/", "A0+", "@2+"])
    other = Board.replay(["@0/", "@1+", "B0+"])
    assert sorted(one.cells()) == sorted(other.cells())
    assert Position(one).key == Position(other).key
    assert tiles_hash(one) == tiles_hash(other)
    # ... and a different side to move or different tiles differ
    three = Board.replay(["@0/", "A0+", "@2+", "A0+"])
    assert Position(three).key != Position(one).key
    assert Position(Board.replay(["@0/", "A0+"])).key != Position(Board.replay(["@0/", "A0/"])).key


@settings(max_examples=60)
@given(seed=st.integers(0, 10**9), variant=st.sampled_from(("trax", "8x8trax", "looptrax", "minitrax")),
       plies=st.integers(1, 14))
def test_what_the_search_proves_plain_minimax_finds(seed, variant, plies):
    board = random_position(variant, seed, plies)
    if board.outcome() is not None:
        return
    _, result = searched(board, nodes=100_000, max_depth=2)
    assert result.depth == 2 or result.proven
    value = plain(board, 2)
    if value > 0:  # a win within two plies (in MiniTrax the other side may have no quiet reply)
        assert result.score >= WON
    if value < 0:  # every move lets the other side win at once
        assert result.score <= -WON
    if result.score >= WON:
        assert plain(board, min(WIN - result.score, 3)) > 0 or WIN - result.score > 3
    if result.score <= -WON and WIN + result.score <= 2:
        assert plain(board, WIN + result.score) < 0


@settings(max_examples=25)
@given(seed=st.integers(0, 10**9), plies=st.integers(2, 7))
def test_minitrax_search_and_plain_minimax_agree_on_small_trees(seed, plies):
    """MiniTrax has at most nine tiles: the search can look to the end, and
    so can the plain minimax (the ending decides as the engine says)."""
    board = random_position("minitrax", seed, plies)
    if board.outcome() is not None:
        return
    depth = 9 - board.tile_count + 1
    _, result = searched(board, nodes=200_000, max_depth=depth)
    value = plain(board, depth)
    assert (result.score > 0) == (value > 0) or not result.proven
    if result.proven and abs(result.score) >= WON:
        assert (result.score > 0) == (value > 0)
        assert value != 0
