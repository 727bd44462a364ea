"""All 300 recorded human games replay legally and end as recorded."""

import csv
from pathlib import Path

import pytest

from pbm.trax import Board

DATA = Path(__file__).resolve().parent.parent / "data" / "human-games.tsv"
VARIANT = {"Trax": "trax", "Loop Trax": "looptrax", "8x8 Trax": "8x8trax"}


def load_games():
    games = []
    with DATA.open(encoding="utf-8") as f:
        rows = csv.reader((line for line in f if not line.startswith("#")), delimiter="\t")
        for number, variant, _ending, result, moves in rows:
            variant = VARIANT[variant]
            if number == "19":
                variant = "trax"  # recorded as 8x8 but leaves the 8x8 area (see the file's header)
            games.append(pytest.param(variant, result, moves.split(), id=f"game-{number}"))
    return games


GAMES = load_games()


def test_the_file_holds_300_games():
    assert len(GAMES) == 300


@pytest.mark.parametrize("variant, result, moves", GAMES)
def test_recorded_game_replays_with_its_result(variant, result, moves):
    board = Board.replay(moves, variant)
    outcome = board.outcome()
    shown = "none" if outcome is None else f"{outcome.winner}:{outcome.reason}"
    assert shown == result
    # the record is already canonical new notation
    assert [str(m) for m in board.moves] == [m.upper() for m in moves]


def test_game_19_leaves_the_8x8_area():
    _, _, moves = next(p.values for p in GAMES if p.id == "game-19")
    with pytest.raises(ValueError, match="8x8"):
        Board.replay(moves, "8x8trax")
