"""bench/strength.py and its players: the figures it prints, the budgets it
reads, and the rival engine (bench/rival.py) finding what a Trax player must
find.  Searches are cut by a clock that counts, so they take the same
nodes on every machine."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import pytest

from pbm.trax import Board

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import rival  # noqa: E402
import strength  # noqa: E402

# positions of tests/ai/test_tactics.py: black makes two threats no block
# stops; the side to move faces a threat only these moves stop
DOUBLE_THREATS = [
    ("@0/ A2+ B1/ B0+ C1/ A4+ A0/", {"C4\\"}),
    ("@0+ A0\\ @1/ B3\\ C3\\ D2\\ C4\\", {"D1/"}),
]
BLOCKS = [
    ("@0/ A0+ @1\\ B0\\ C2\\ B0+ A5+ @5+", {"A6+", "A6/", "B6+", "B6\\"}),
    ("@0+ A2\\ B2/ @2+ D2+ A3/ B4+ D3+", {"E2+", "E2/", "E3+", "E3\\"}),
]


class Ticks:
    """A clock that moves one step each time it is read."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_player_names():
    for name in ("1", "4", "random", "greedy", "rival", "deep3", "deep12", "4@v0.1.0", "3@main", "2@f80cd15"):
        assert strength.player(name) == name
    for name in ("5", "deep", "deep0", "rivals", "@v0.1.0", "4@", "x"):
        with pytest.raises(argparse.ArgumentTypeError):
            strength.player(name)


def test_budgets_by_player_name():
    budgets = strength.parse_budgets("4=1,rival=4", ("4", "rival"))
    assert budgets["4"] == 1.0 and budgets["rival"] == 4.0
    budgets = strength.parse_budgets("", ("4@v0.1.0", "rival", "deep3"))
    assert budgets["4@v0.1.0"] == budgets["4"] == budgets["rival"]
    assert "deep3" not in budgets
    assert strength.parse_budgets("4@v0.1.0=0.5", ("4@v0.1.0",))["4@v0.1.0"] == 0.5
    with pytest.raises(ValueError):
        strength.parse_budgets("4=0")


def test_the_wilson_interval():
    low, high = strength.wilson(1.0, 30)
    assert high == 1.0 and 0.88 < low < 0.89  # a clean sweep still has a lower bound
    low, high = strength.wilson(0.5, 100)
    assert low == pytest.approx(0.404, abs=0.001) and high == pytest.approx(0.596, abs=0.001)
    assert strength.elo(0.5) == 0 and strength.elo(1.0) == math.inf
    assert strength.elo(0.75) == pytest.approx(190.8, abs=0.1)
    assert strength.show_elo(-0.3) == "+0"


def test_a_tally_counts_draws_half():
    games = [strength.Played(0, "4", "rival", "4", 20, "loop", ()),
             strength.Played(1, "rival", "4", None, 200, "plies", ()),
             strength.Played(2, "4", "rival", "rival", 30, "line", ())]
    assert strength.tally("4", "rival", games) == (1, 1, 1, [1.0, 0.5, 0.0])


def choose(moves: str, nodes: float = 400.0) -> str:
    board = Board.replay(moves.split())
    before = board.fingerprint()
    move = rival.choose(board, nodes, seed=1, clock=Ticks())
    assert board.fingerprint() == before  # the board is given back as it was
    return str(move)


def test_the_rival_takes_a_win_in_one():
    for moves, winning in DOUBLE_THREATS:
        board = Board.replay(moves.split())
        board.play(next(iter(winning)))
        # any white move: black then has a threat left to close
        board.play(board.legal_moves()[0])
        played = " ".join(str(m) for m in board.moves)
        after = Board.replay(played.split())
        after.play(choose(played))
        outcome = after.outcome()
        assert outcome is not None and outcome.winner == "black"


def test_the_rival_blocks_a_threat():
    for moves, blocks in BLOCKS:
        assert choose(moves) in blocks


def test_the_rival_makes_the_double_threat():
    for moves, winning in DOUBLE_THREATS:
        assert choose(moves, 2000.0) in winning


def test_a_short_match_is_played_and_summed_up(capsys):
    assert strength.main(["rival", "greedy", "--games", "2", "--budget", "rival=0.05", "--quiet",
                          "--json", "-"]) == 0
    out = capsys.readouterr().out
    assert "rival: " in out and "Wilson" in out
    figures = out[out.index("{\n"):]
    import json

    data = json.loads(figures)
    assert data["games"] == 2 and data["wins"] + data["draws"] + data["losses"] == 2
    assert set(data["times"]) == {"rival", "greedy"}
