"""The README's examples are what the code really does."""

import re
from functools import partial
from pathlib import Path

import pytest

from pbm.app.compose import Renderer
from pbm.trax import Board, IllegalMoveError, NotationError
from pbm.trax.render import render as render_plain

#: Diagrams as mail draws them: with the words of templates/partials/diagram-words.txt.
render = partial(render_plain, words=Renderer().diagram_words)

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def code_block_after(heading_text: str) -> str:
    start = README.index(heading_text)
    match = re.search(r"```\n(.*?)```", README[start:], re.S)
    return match.group(1).rstrip("\n")


def test_the_readme_full_diagram_is_what_render_draws():
    board = Board.replay(["@0/", "A2+"])
    assert code_block_after("The **full** style") == render(board, "full")


def test_the_readme_compact_diagram_is_what_render_draws():
    board = Board.replay(["@0/", "A2+"])
    assert code_block_after("The **compact** style") == render(board, "compact")


def test_the_readme_error_examples_are_the_engine_messages():
    board = Board.replay(["@0/", "B1+", "C1/", "C2\\", "@1+", "A2/", "A3/", "D3\\"])
    flat = " ".join(README.split())
    with pytest.raises(IllegalMoveError) as illegal:
        board.play("B3\\")
    words = Renderer()  # the engine's refusals as a reply words them
    assert words.words(illegal.value) in flat
    with pytest.raises(NotationError) as notation:
        board.play("B2x")
    assert words.words(notation.value) in flat
