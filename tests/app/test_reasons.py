"""The words of refusals: every code of every layer has its macro (issue 29).

A refusal carries a code and params; ``templates/errors/reasons/`` words
each code (one macro), and :meth:`Renderer.words` is the one place that
turns one into the sentence a reply shows.  These tests fail on a code
without a macro, a macro without a code, a code raised that no table
holds, a table's code that nothing raises, and a macro that cannot word
the params a raise site gives it.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from pbm.app.compose import Renderer
from pbm.app.refusals import EVERY_CODE, LAYERS
from pbm.domain import refusals as domain_refusals
from pbm.grammar.refusals import AFTER, NOUNS
from pbm.grammar.words import Problem
from pbm.trax import CODES as ENGINE_CODES
from pbm.trax import Board, TraxError

ROOT = Path(__file__).resolve().parents[2] / "pbm"
#: The folders of each layer's modules, by the name LAYERS gives it (the
#: server's web view refuses a request with the application's codes).
FOLDERS = {"engine": ("trax",), "grammar": ("grammar",), "domain": ("domain",), "app": ("app", "server")}
#: What makes a refusal: its classes, and the reader's ``fail``.
MAKERS = {"TraxError", "NotationError", "IllegalMoveError", "Problem", "WordProblem", "CommandError", "Refused",
          "fail", "PageError", "NotFound", "BadRequest", "NotHere"} | {
    name for name, value in vars(domain_refusals).items()
    if isinstance(value, type) and issubclass(value, domain_refusals.PbmError)}

RENDERER = Renderer()

#: A value for each param a raise site names, to word its code with.
SAMPLES: dict[str, Any] = {
    "address": "bob@example.org", "after": "userids", "board": 101, "boards": ("ETC26-A1", "ETC26-A2"),
    "cap": 5, "cell": "B2", "cells": ("B2", "C3"), "choices": ("next", "active"), "computer": "computer",
    "count": 7, "date": "2026-01-15", "days": 3, "digest": True, "direction": "left", "director": "carol",
    "endings": ("draw", "lastloses"), "entrants": 1, "formats": ("swiss", "pools"),
    "entries": (("white", "top"), ("black", "left")),
    "exactly": False, "extra": 2, "first": "tournament", "format": "swiss", "fresh_area": False, "game": "trax",
    "given": 3, "guess": "join", "label": "trax move", "last_column": "B", "last_row": 2, "least": 1, "left": 2,
    "length": 1500, "limit": 10, "limited": ("8x8trax", "minitrax"), "lines": 30, "most": 5, "move": "B2/",
    "moves": 4, "name": "ETC26", "need": 2, "next": 5, "nth": 2, "number": 3, "option": "-poolsize",
    "options": ("-format=F", "-rounds=N"), "ply": 4, "problem": Problem("days-form"), "refused": "not-notation",
    "role": "move", "scored": ("pointtrax",), "selection": "next", "sender": "x@example.org",
    "setting": "pictures", "settings": ("pictures", "digest"), "shown": 3, "status": "open", "symbol": "/",
    "title": "Trax", "to_move": "bob", "topic": "commands", "type": "int", "until": "2026-01-15 07:00 UTC",
    "used": "C3/", "userid": "alice", "value": "on", "values": ("on", "off"), "variant": "trax", "wanted": 3,
    "what": "days", "whole": True, "word": "B2x", "words": ("resign", "propose"), "tournament": "Autumn",
    "reason": "Request Entity Too Large", "languages": ("en", "de", "ja"), "command": "signup",
}
#: Where a code takes a param of that name in a sense of its own.
OVERRIDES: dict[tuple[str, str], Any] = {("time-too-short", "name"): "forfeit time"}


def _name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def raise_sites() -> list[tuple[str, str, str, ast.Call]]:
    """Every call that makes a refusal with a code written out: (layer,
    where, code, the call)."""
    sites = []
    for layer, folders in FOLDERS.items():
        for path in sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and _name(node) in MAKERS and node.args:
                    code = node.args[0]
                    if isinstance(code, ast.Constant) and isinstance(code.value, str):
                        sites.append((layer, f"{path.relative_to(ROOT)}:{node.lineno}", code.value, node))
    return sites


SITES = raise_sites()


def test_the_layers_keep_codes_of_their_own_in_kebab_case():
    seen: set[str] = set()
    for layer, codes in LAYERS.items():
        assert codes, layer
        assert not codes & seen, f"{layer}: {sorted(codes & seen)} in two layers"
        seen |= codes
        assert all(c == c.lower() and " " not in c and "_" not in c and c.strip("-") == c for c in codes), layer
    assert seen == EVERY_CODE


def test_every_code_has_a_macro_and_every_macro_a_code():
    macros = set(RENDERER.reasons())
    assert sorted(EVERY_CODE - macros) == [], "codes without words"
    assert sorted(macros - EVERY_CODE) == ["in-replay"], "words without a code"


def test_a_code_without_words_fails_loudly():
    with pytest.raises(KeyError, match="no-such-code"):
        RENDERER.words(domain_refusals.PbmError("no-such-code"))


def test_there_are_raise_sites_of_every_layer():
    layers = {layer for layer, *_ in SITES}
    assert layers == set(FOLDERS) and len(SITES) > 150


@pytest.mark.parametrize(("layer", "where", "code"), [site[:3] for site in SITES], ids=[s[1] for s in SITES])
def test_every_code_raised_is_one_of_its_layers(layer, where, code):
    assert code in LAYERS[layer], f"{where}: {code} is not in the {layer}'s CODES"


@pytest.mark.parametrize("layer", sorted(FOLDERS))
def test_every_code_of_a_layer_is_raised_in_it(layer):
    written: set[str] = set()
    for path in (p for folder in FOLDERS[layer] for p in (ROOT / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                written.add(node.value)
    unused = LAYERS[layer] - {code for code in written if code in LAYERS[layer]}
    assert sorted(unused) == []


def _params(code: str, call: ast.Call) -> dict[str, Any] | None:
    """The params of a raise site, with sample values; None when the site
    builds them in a way this test does not read (``exc.params``)."""
    if len(call.args) < 2:
        return {}
    given = call.args[1]
    if not isinstance(given, ast.Dict) or any(not isinstance(k, ast.Constant) for k in given.keys):
        return None
    params = {}
    for key in given.keys:
        assert isinstance(key, ast.Constant)
        assert key.value in SAMPLES, f"no sample value for the param {key.value!r}"
        params[key.value] = OVERRIDES.get((code, key.value), SAMPLES[key.value])
    return params


#: The raise sites whose params are written out (the others build them:
#: ``test_built_params_are_worded_as_before`` words those codes).
READ_SITES = [site for site in SITES if _params(site[2], site[3]) is not None]


def test_only_a_few_sites_build_their_params():
    assert 0 < len(SITES) - len(READ_SITES) <= 8


@pytest.mark.parametrize(("where", "code", "call"), [site[1:] for site in READ_SITES],
                         ids=[s[1] for s in READ_SITES])
def test_every_raise_site_is_worded_by_its_macro(where, code, call):
    params = _params(code, call)
    assert params is not None
    text = RENDERER.words(domain_refusals.PbmError(code, params))
    assert text and text == text.strip() and "\n" not in text, where


def test_the_things_params_name_are_all_worded():
    for role in NOUNS:
        assert RENDERER.words("not-digits", what=role).startswith("a ")
    for after in AFTER:
        assert "come after" in RENDERER.words("not-an-option", word="-x", after=after)


def test_an_engine_refusal_in_a_replay_is_worded_with_the_move_that_failed():
    with pytest.raises(TraxError) as refused:
        Board.replay(["@0/", "A1+"])
    assert refused.value.code in ENGINE_CODES
    assert RENDERER.words(refused.value) == "move 2 (A1+): A1 already holds a tile; choose an empty cell"


#: The params of the codes that no raise site writes out as a dict (the
#: site builds them, or picks its code from two): worded here instead.
BUILT: dict[str, dict[str, Any]] = {
    "ambiguous": {"move": "A1U", "cell": "A1"},
    "no-curve": {"move": "B1C", "cell": "B1", "entries": (("white", "left"), ("white", "right"))},
    "no-straight": {"move": "B1S", "cell": "B1", "entries": (("black", "right"), ("white", "left"))},
    "no-such-turn": {"move": "A1L", "cell": "A1", "direction": "left"},
    "which-curve": {"move": "A1C", "cell": "A1"},
    "game-command": {"name": "move", "games": ("trax", "8x8trax", "minitrax")},
    "not-game-command": {"name": "signup", "word": "trax"},
    "only-pages": {},
    "nag-not-first": {"nag_days": 3, "forfeit_days": 2.5},
    "time-too-short": {"name": "total time", "floor": 1, "days": 0.5},
    "no-help-topic": {"words": ("notaton", "xyzzy"), "guesses": ("notation", None), "game": None,
                      "topics": ("commands", "tutorial"), "games": ("trax", "minitrax")},
}


def test_every_code_is_worded_by_a_raise_site_here_or_by_its_built_params():
    written = {code for _, _, code, call in SITES if _params(code, call) is not None}
    assert sorted(EVERY_CODE - written - set(BUILT)) == []
    for code, params in BUILT.items():
        text = RENDERER.words(code, **params)
        assert text and text == text.strip() and "\n" not in text, code


@pytest.mark.parametrize(("code", "params", "words"), [
    ("time-too-short", {"name": "total time", "floor": 1, "days": 0.5},
     "the total time is at least 1 day on this server, not 0.5"),
    ("nag-not-first", {"nag_days": 3, "forfeit_days": 2.5},
     "the nag time (3 days) must be shorter than the forfeit time (2.5 days)"),
    ("game-command", {"name": "move", "games": ("trax", "8x8trax", "minitrax")},
     "move is a game command: put the game type (trax, 8x8trax or minitrax) first"),
    ("no-help-topic", BUILT["no-help-topic"],
     "there is no help on notaton (did you mean help notation?) or xyzzy. The topics are commands, "
     "tutorial, a game type for its rules (trax, minitrax), and the name of any command, as in help "
     "move or help change password"),
])
def test_built_params_are_worded_as_before(code, params, words):
    assert RENDERER.words(code, **params) == words


#: Every code with params to word it with: from its raise sites, or BUILT.
EVERY_WORDING = sorted({(code, tuple(sorted(_params(code, call).items()))) for _, _, code, call in READ_SITES
                        if not _params(code, call) or all(isinstance(v, (str, int, float, tuple, bool)) or v is None
                                                          for v in _params(code, call).values())}
                       | {(code, tuple(sorted(params.items()))) for code, params in BUILT.items()},
                       key=repr)


@pytest.mark.parametrize("language", ["de", "ja"])
def test_every_code_is_worded_in_each_language(language):
    """Every refusal reads in German and Japanese: one line, no placeholder
    left, not the English words (the userids, moves and commands a
    sentence names stay as they are)."""
    translated = Renderer(language)
    untranslated = []
    for code, items in EVERY_WORDING:
        params = dict(items)
        english = RENDERER.words(code, **params)
        text = translated.words(code, **params)
        assert text and text == text.strip() and "\n" not in text, (code, text)
        assert "%(" not in text and "{{" not in text, (code, text)
        if text == english:
            untranslated.append(f"{code}: {english}")
    assert not untranslated, f"{len(untranslated)} in English:\n" + "\n".join(untranslated)
