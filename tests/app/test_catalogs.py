"""The translation catalogs (pbm/locale): complete, their placeholders the
templates' own, current with the templates, and read by the renderer."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from pbm.app.catalogs import catalog_path, compile_po, translations
from pbm.app.compose import Renderer
from pbm.languages import LANGUAGES

ROOT = Path(__file__).resolve().parent.parent.parent
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")
TRANSLATED = [language for language in LANGUAGES if language != "en"]


def catalog(language: str):
    with catalog_path(language, "po").open("rb") as f:
        return read_po(f, locale=language)


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_is_translated_with_the_same_placeholders(language):
    messages = [m for m in catalog(language) if m.id]
    assert len(messages) > 20
    for message in messages:
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strings) and "fuzzy" not in message.flags, f"{language}: {ids[0]!r} is not translated"
        wanted = set(PLACEHOLDER.findall(ids[-1])) | set(PLACEHOLDER.findall(ids[0]))
        for string in strings:
            found = set(PLACEHOLDER.findall(string))
            # a singular form may leave out the count its language does not need
            assert found <= wanted and wanted - found <= {"num"}, f"{language}: {ids[0]!r} -> {string!r}"


def test_the_template_of_the_catalogs_is_current():
    """pybabel extract, run now over the templates and the code, finds the
    messages the catalogs have: a new or changed sentence was extracted."""
    pybabel = Path(sys.executable).parent / "pybabel"
    out = ROOT / "build-test-pbm.pot"
    try:
        done = subprocess.run([str(pybabel), "extract", "-F", "babel.cfg", "-o", str(out), "--no-location", "."],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        with out.open("rb") as f:
            extracted = {m.id for m in read_po(f) if m.id}
    finally:
        out.unlink(missing_ok=True)
    for language in TRANSLATED:
        assert {m.id for m in catalog(language) if m.id} == extracted, language


def test_a_catalog_compiles_and_translates():
    data = compile_po(catalog_path("de", "po").read_bytes(), "de")
    assert data[:4] in (b"\xde\x12\x04\x95", b"\x95\x04\x12\xde")  # a .mo file's magic number
    assert translations("de").gettext("white") == "Weiß"
    assert translations("ja").gettext("black") == "黒"
    assert translations("en").gettext("white") == "white"
    with pytest.raises(KeyError):
        translations("fr")


@pytest.mark.parametrize(("language", "said"), [("en", "It is bob's turn (black)."),
                                                ("de", "bob ist am Zug (Schwarz)."),
                                                ("ja", "bob の手番です（黒）。")])
def test_the_renderer_speaks_its_language(language, said):
    view = {"trial": False, "after": None, "finished": False, "to_move": "bob", "to_move_colour": "black",
            "winner": None, "white": "alice", "black": "bob", "ratings": None, "rating_apart": None}
    assert Renderer(language).partial("partials/status.txt", view=view, computer=None).strip() == said
