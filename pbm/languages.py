"""The languages pbm answers its players in, and the one a mail asks for.

A leaf like :mod:`pbm.terms`: it imports nothing of pbm, so the grammar
(``set ... language de``, ``signup ... language=de``), the domain (an
account's ``language``, :meth:`~pbm.domain.store.Store.languages_of`) and
the application (the catalogs, the composer) share one list.

An account's language is a code of :data:`LANGUAGES` or ``None`` (not
chosen), which reads as :data:`DEFAULT`.  A new account with no language
given takes the one its signup mail asks for (:func:`asked_by_mail`).
"""

from __future__ import annotations

#: The languages replies are written in, as ISO 639-1 codes; the first is
#: the templates' own and every player's until he chooses another.
LANGUAGES: tuple[str, ...] = ("en", "de", "ja")
#: The language of a player who chose none.
DEFAULT = LANGUAGES[0]

#: How much of a header is read: more is no language list anyone sends.
_MOST_READ = 1000


def supported(tag: str) -> str | None:
    """The language of :data:`LANGUAGES` a language tag (``de``,
    ``ja-JP``, ``EN-gb``) names, by its primary subtag; None for any other
    (``fr``, ``*``, ``i-klingon``, nonsense)."""
    primary = tag.strip().partition("-")[0].lower()
    return primary if primary in LANGUAGES else None


def _weight(params: list[str]) -> float:
    """The q-value of an Accept-Language entry's parameters (1 when it has
    none; 0, not acceptable, when it is unreadable)."""
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "q":
            try:
                q = float(value.strip())
            except ValueError:
                return 0.0
            return q if 0.0 <= q <= 1.0 else 0.0
    return 1.0


def from_accept_language(value: str) -> str | None:
    """The supported language an ``Accept-Language`` value (RFC 9110,
    12.5.4) prefers: the entries by q-value, highest first (in the order
    written where equal), the first that names one of :data:`LANGUAGES`;
    an entry with q=0 is one the sender does not want.  ``ja-JP,
    en;q=0.5`` gives ``ja``; ``fr, de;q=0.8`` gives ``de``."""
    entries: list[tuple[float, int, str]] = []
    for place, entry in enumerate(value[:_MOST_READ].split(",")):
        tag, *params = entry.split(";")
        q = _weight(params)
        language = supported(tag)
        if language is not None and q > 0:
            entries.append((-q, place, language))
    return min(entries)[2] if entries else None


def from_content_language(value: str) -> str | None:
    """The first language of a ``Content-Language`` value (a list of tags,
    RFC 9110, 8.5) that is one of :data:`LANGUAGES`."""
    for tag in value[:_MOST_READ].split(","):
        language = supported(tag)
        if language is not None:
            return language
    return None


def asked_by_mail(content_language: str, accept_language: str) -> str | None:
    """The language a mail's headers ask for: the one its
    ``Content-Language`` names (the language its sender writes in), else
    the one its ``Accept-Language`` prefers; None when neither names one
    of :data:`LANGUAGES` (or the mail has neither: ``""``)."""
    return from_content_language(content_language) or from_accept_language(accept_language)
