"""Every refusal of the engine carries a stable code and its facts (issue 29).

``code`` (one of ``pbm.trax.CODES``) and ``params`` are all a refusal
carries; the application words it from its template
(``templates/errors/reasons/engine.txt``), and the words are what a player
read before the engine stopped carrying sentences."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

import pbm.trax
from pbm.app.compose import Renderer
from pbm.trax import CODES, Board, IllegalMoveError, NotationError, TraxError, parse_notation

ENGINE = Path(pbm.trax.__file__).resolve().parent
WORDS = Renderer()
HOW = "moves look like B2/, @0+ or C3\\ (or, in the old notation, A1S or B2R)"
THREE_ENDS = ["@0/", "B1+", "C1/", "C2\\", "@1+", "A2/", "A3/", "D3\\"]
LOOP = ["@0+", "B1\\", "B2/", "A2+", "A3/", "A0\\", "@3+", "@3\\", "B2+"]
NO_FIT = ["@0/", "A2\\", "@2\\", "B3/", "B4+", "A0/", "C5/", "@3/", "A1+", "C1/", "C0/"]
NO_STRAIGHT = ["@0+", "A2/", "A3+", "@3+", "@3+", "@3/", "E3/", "E2+", "E4/", "A2+", "A1+", "D0\\", "C1/", "A1+"]

# (game type, moves before, the move refused, error class, code, params, message)
CASES = [
    ("trax", [], 5, NotationError, "not-text", {"type": "int"}, "a move must be text, not int"),
    ("trax", [], " ", NotationError, "no-move", {}, f"no move given; {HOW}"),
    ("trax", [], "A01+", NotationError, "leading-zero", {"move": "A01+"},
     f"A01+ is not Trax notation: a row number has no leading zero; {HOW}"),
    ("trax", [], "B2x", NotationError, "not-notation", {"move": "B2x"}, f"B2x is not Trax notation; {HOW}"),
    ("trax", [], "A0S", NotationError, "old-row-zero", {"move": "A0S"},
     f"A0S: in the old notation rows are counted from 1 after the move; {HOW}"),
    ("trax", [], "pass", IllegalMoveError, "no-pass", {"variant": "trax", "title": "Trax"},
     "a turn cannot be passed in Trax: a pass is only for LuckyTrax, when the tile drawn fits nowhere"),
    ("trax", [], "A1+", IllegalMoveError, "first-move", {"move": "A1+", "fresh_area": False},
     "A1+ cannot start a game: the first move is @0+ or @0/ (the first tile fixes which way up the board is)"),
    ("pointtrax", ["@0+", "B1+", "C1+", "D1+", "E1+", "F1+", "G1+", "H1+"], "@0\\", IllegalMoveError,
     "first-move", {"move": "@0\\", "fresh_area": True},
     "@0\\ cannot start the fresh area (a line cleared the last one): the first move is @0+ or @0/ "
     "(the first tile fixes which way up the board is)"),
    ("trax", [], "B2S", IllegalMoveError, "first-move-old", {"move": "B2S", "fresh_area": False},
     "B2S cannot start a game: in the old notation the first move is A1S or A1C"),
    ("trax", ["@0/"], "Z9+", IllegalMoveError, "off-board", {"cell": "Z9", "last_column": "B", "last_row": 2},
     "Z9 is off the board: in this position columns run from @ to B and rows from 0 to 2"),
    ("trax", ["@0/"], "A1+", IllegalMoveError, "occupied", {"cell": "A1"},
     "A1 already holds a tile; choose an empty cell"),
    ("trax", ["@0/"], "@0+", IllegalMoveError, "not-touching", {"cell": "@0"},
     "@0 does not touch the tiles in play; a tile must share an edge with one"),
    ("trax", NO_FIT, "B5\\", IllegalMoveError, "no-fit",
     {"move": "B5\\", "symbol": "\\", "cell": "B5", "entries": (("black", "top"), ("white", "right"))},
     "B5\\ does not fit: neither colouring of \\ matches the tracks entering B5 (black from the top, white "
     "from the right); colours must join like to like"),
    ("trax", NO_STRAIGHT, "B1S", IllegalMoveError, "no-straight",
     {"move": "B1S", "cell": "B1", "entries": (("black", "right"), ("white", "left"))},
     "B1S: no straight fits at that cell (black from the right, white from the left)"),
    ("trax", ["@0/"], "A1C", IllegalMoveError, "which-curve", {"move": "A1C", "cell": "A1"},
     "A1C: two curves fit there; say which way the track turns with U, D, L or R"),
    ("trax", ["@0/"], "A1L", IllegalMoveError, "no-such-turn", {"move": "A1L", "cell": "A1", "direction": "left"},
     "A1L: no curve there turns a track left"),
    ("trax", LOOP, "A1+", IllegalMoveError, "game-over", {}, "the game is over; no more moves can be played"),
    ("minitrax", ["@0/", "B1+", "C1+"], "D1+", IllegalMoveError, "too-large",
     {"move": "D1+", "limit": 3, "variant": "minitrax", "title": "MiniTrax"},
     "D1+ would make the formation larger than 3x3, which MiniTrax does not allow"),
    ("trax", THREE_ENDS, "B3\\", IllegalMoveError, "three-ends", {"move": "B3\\", "cell": "C2"},
     "B3\\ is an illegal turn: its forced tiles would bring three track ends of one colour into C2; "
     "the board is unchanged, choose another move"),
]


@pytest.mark.parametrize(("variant", "before", "move", "kind", "code", "params", "message"), CASES,
                         ids=[f"{case[4]}-{case[2]}" for case in CASES])
def test_a_refusal_carries_its_code_its_facts_and_is_worded_as_before(variant, before, move, kind, code, params,
                                                                      message):
    board = Board.replay(before, variant)
    fingerprint = board.fingerprint()
    with pytest.raises(kind) as refused:
        board.play(move)
    error = refused.value
    assert (error.code, error.params, WORDS.words(error)) == (code, params, message)
    assert board.fingerprint() == fingerprint


def test_taking_back_nothing_is_refused_with_a_code():
    with pytest.raises(IllegalMoveError) as refused:
        Board().pop()
    assert (refused.value.code, refused.value.params, WORDS.words(refused.value)) == (
        "nothing-to-undo", {}, "there is no move to take back")


def test_parse_notation_alone_carries_the_codes_too():
    with pytest.raises(NotationError) as refused:
        parse_notation("B2x")
    assert (refused.value.code, refused.value.params) == ("not-notation", {"move": "B2x"})


def test_a_refusal_in_a_replay_keeps_its_code_and_adds_the_move_number_and_text():
    with pytest.raises(IllegalMoveError) as refused:
        Board.replay(["@0/", "Z9+"])
    error = refused.value
    assert error.code == "off-board"
    assert error.params == {"cell": "Z9", "last_column": "B", "last_row": 2, "number": 2, "given": "Z9+"}
    assert WORDS.words(error) == ("move 2 (Z9+): Z9 is off the board: in this position columns run from @ "
                                  "to B and rows from 0 to 2")


def test_str_shows_the_code_and_params_not_a_sentence():
    with pytest.raises(IllegalMoveError) as refused:
        Board.replay(["@0/"]).play("Z9+")
    assert str(refused.value) == "off-board cell='Z9' last_column='B' last_row=2"


def test_params_are_plain_values_and_refusals_pickle_with_them():
    def plain(value):
        if isinstance(value, tuple):
            return all(plain(item) for item in value)
        return value is None or isinstance(value, (str, int, bool))

    for variant, before, move, *_ in CASES:
        try:
            Board.replay(before, variant).play(move)
        except TraxError as error:
            assert all(isinstance(key, str) and plain(value) for key, value in error.params.items())
            again = pickle.loads(pickle.dumps(error))
            assert (type(again), str(again), again.code, again.params, WORDS.words(again)) == (
                type(error), str(error), error.code, error.params, WORDS.words(error))


def _engine_errors(path: Path) -> list[ast.Call]:
    """The calls that make an engine error in ``path``."""
    names = {"TraxError", "NotationError", "IllegalMoveError"}
    calls = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            func = node.exc.func
            if (isinstance(func, ast.Name) and func.id in names) or (
                    isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "type"):
                calls.append(node.exc)
    return calls


def test_every_refusal_the_engine_raises_names_a_known_code_and_every_code_is_used():
    used = set()
    for path in sorted(ENGINE.glob("*.py")):
        for call in _engine_errors(path):
            code = call.args[0] if call.args else None
            where = f"{path.name}:{call.lineno}"
            assert code is not None, f"{where}: a refusal without a code"
            if isinstance(code, ast.Constant):
                assert code.value in CODES, where
                used.add(code.value)
            else:  # a refusal raised again, with the code it had (Board.replay)
                assert ast.unparse(code) == "exc.code", where
    assert used == CODES
    assert all(code == code.lower() and " " not in code and "_" not in code for code in CODES)
