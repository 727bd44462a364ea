"""The translations of the templates' words: gettext catalogs, one per
language, managed with Babel.

The catalogs are ``pbm/locale/LANG/LC_MESSAGES/pbm.po`` (under version
control, written by translators; ``pbm/locale/pbm.pot`` is the template
``pybabel extract`` makes from the templates and the code, see the README).
A wheel carries each one compiled (``pbm.mo``, made by the build: see
``setup.py``); a source checkout that has no ``.mo``, or an older one than
its ``.po``, has the ``.po`` compiled in memory at first use, so a
translator sees a change without a build.  English is the language the
templates are written in: it needs no catalog.
"""

from __future__ import annotations

import io
from functools import cache
from gettext import NullTranslations
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

from pbm.languages import DEFAULT, LANGUAGES

#: The gettext domain of pbm's catalogs.
DOMAIN = "pbm"
#: Where the catalogs are, wherever the package is installed.
LOCALE: Traversable = files("pbm").joinpath("locale")


def catalog_path(language: str, suffix: str) -> Traversable:
    return LOCALE.joinpath(language, "LC_MESSAGES", f"{DOMAIN}.{suffix}")


@cache
def translations(language: str) -> NullTranslations:
    """The translations of ``language`` (read once): none for English, the
    compiled catalog when it is there and not older than its source, else
    the source compiled here.  ``KeyError`` for a language pbm has not."""
    if language not in LANGUAGES:
        raise KeyError(f"no replies in {language!r}: the languages are {', '.join(LANGUAGES)}")
    if language == DEFAULT:
        return NullTranslations()
    source, compiled = catalog_path(language, "po"), catalog_path(language, "mo")
    if compiled.is_file() and not _older(compiled, source):
        return Translations(io.BytesIO(compiled.read_bytes()), domain=DOMAIN)
    return Translations(io.BytesIO(compile_po(source.read_bytes(), language)), domain=DOMAIN)


def compile_po(data: bytes, language: str) -> bytes:
    """A ``.po`` file's bytes compiled to a ``.mo`` file's (fuzzy entries
    left out, as ``pybabel compile`` does)."""
    catalog = read_po(io.BytesIO(data), locale=language, domain=DOMAIN)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def _older(compiled: Traversable, source: Traversable) -> bool:
    """Is the compiled catalog older than its source (a checkout where a
    translator changed the .po since the last build)?"""
    if not (isinstance(compiled, Path) and isinstance(source, Path) and source.is_file()):
        return False  # a package in an archive: its .mo was made from its .po
    return compiled.stat().st_mtime < source.stat().st_mtime
