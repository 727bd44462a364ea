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
from datetime import UTC, datetime
from functools import cache, lru_cache
from gettext import NullTranslations
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from babel.dates import format_datetime
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
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


#: How a moment and a day read in each language (Babel's date patterns);
#: English keeps the old server's ``2026-03-01 12:10 UTC`` and
#: ``2026-03-01``.  Always UTC: the server knows no player's time zone, and
#: one zone named keeps two players' mails comparable.
MOMENT_PATTERNS = {"de": "d. MMMM y, HH:mm 'UTC'", "ja": "y年M月d日 HH:mm 'UTC'"}
DAY_PATTERNS = {"de": "d. MMMM y", "ja": "y年M月d日"}
#: The forms of a moment and of a day as views hand them to the templates.
MOMENT_FORM, DAY_FORM = "%Y-%m-%d %H:%M UTC", "%Y-%m-%d"


@lru_cache(maxsize=4096)
def _read(text: str) -> tuple[datetime, str] | None:
    """A moment or a day as views write them, and which form it had (kept
    for the last few thousand: a board mail shows five, and strptime was a
    tenth of rendering one)."""
    for form in (MOMENT_FORM, DAY_FORM):
        try:
            return datetime.strptime(text, form).replace(tzinfo=UTC), form
        except ValueError:
            continue
    return None


def moment(value: datetime | str | None, language: str) -> str:
    """A moment (or a day) as a reply in ``language`` shows it: ``value``
    is a :class:`datetime`, a time as :func:`pbm.domain.times.shown` wrote
    it or a day as ``2026-03-01``.  Anything else is shown as it is; English
    as the old server wrote it."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        value, form = value.astimezone(UTC), MOMENT_FORM
    else:
        read = _read(value)
        if read is None:
            return value
        value, form = read
    pattern = (MOMENT_PATTERNS if form == MOMENT_FORM else DAY_PATTERNS).get(language)
    if pattern is None:
        return value.strftime(form)
    return format_datetime(value, pattern, tzinfo=UTC, locale=language)


def number(value: float, language: str) -> str:
    """A number of days, points or seconds as a reply in ``language``
    writes it: ``2.5`` in English (as ``%g`` does), ``2,5`` in German."""
    if language == DEFAULT:
        return f"{value:g}"
    return format_decimal(value, format="0.###", locale=language)
