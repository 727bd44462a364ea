"""Text measured as a terminal shows it, and where a line of it may break.

A reply's lines are at most 78 *columns*, not characters: East Asian wide
and fullwidth characters (``unicodedata.east_asian_width`` "W" or "F": kana,
kanji, fullwidth forms, most emoji) take two columns, combining marks and
other zero-width characters none, everything else one (an ``ü`` one, as it
is one character precomposed).  Characters that are "A" (ambiguous) count
one, as a terminal set for Western text shows them.

Japanese is written without blanks, so a line of it may break between
characters; :func:`pieces` cuts a word (text without blanks) at those
places, following the basic rules of Japanese line breaking (kinsoku, JIS X
4051): no line begins with closing punctuation, a small kana or a prolonged
sound mark (:data:`NO_START`) and none ends with an opening bracket
(:data:`NO_END`).  A run of characters that are neither wide nor halfwidth
(ASCII words, moves like ``B2/``, userids, German words) is never broken
inside.

Pure functions on strings, for :mod:`pbm.app.compose`'s fold; ASCII text
is measured by ``len`` (one test, no loop).
"""

from __future__ import annotations

import unicodedata

#: Characters no line may begin with: closing brackets and quotes, the
#: punctuation that follows what it marks, small kana, the prolonged sound
#: mark, iteration marks, the ellipses (their halfwidth forms and ASCII's
#: own closing punctuation too, where they stand next to Japanese).
NO_START = frozenset(
    "）」』】〕〉》］｝〙〗〛｠)]}”’"  # closing brackets and quotes
    "、。，．,.：；:;！？!?‼⁇⁈⁉・"  # punctuation
    "ーヽヾゝゞ々〻〜～゛゜…‥"  # prolonged sound, iteration, wave dash, ellipses
    "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ"  # small kana
    "ㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ"  # small katakana for Ainu
    "｡｣､･ｰｧｨｩｪｫｬｭｮｯ"  # halfwidth forms
)
#: Characters no line may end with: opening brackets and quotes.
NO_END = frozenset("（「『【〔〈《［｛〘〖〚｟([{“‘｢")


class _Widths(dict[str, int]):
    """Columns per character, worked out once per character met."""

    def __missing__(self, char: str) -> int:
        self[char] = width = _width(char)
        return width


def _width(char: str) -> int:
    if unicodedata.category(char) in ("Mn", "Me", "Cf") and char != "\u00ad":
        return 0  # combining marks, joiners, variation selectors (a soft hyphen shows)
    if "\u1160" <= char <= "\u11ff":
        return 0  # Hangul vowels and final consonants: they join the syllable before
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


_WIDTHS = _Widths()


def columns(text: str) -> int:
    """How many columns ``text`` (one line) takes in a terminal."""
    if text.isascii():
        return len(text)
    return sum(map(_WIDTHS.__getitem__, text))


class _Breaks(dict[str, bool]):
    """Per character: may a line break next to it (wide and halfwidth
    characters: Japanese, Chinese, fullwidth forms)?"""

    def __missing__(self, char: str) -> bool:
        self[char] = free = unicodedata.east_asian_width(char) in ("W", "F", "H")
        return free


_BREAKS = _Breaks()


def pieces(word: str) -> list[str]:
    """``word`` (text without blanks) cut at each place a line may break
    inside it: next to a wide or halfwidth character, unless the next piece
    would begin with a character of :data:`NO_START`, this one end with one
    of :data:`NO_END`, or a zero-width mark would leave its character.  Runs
    of other characters (``B2/``, ``alice``, ``Zügen``) stay whole; the
    pieces joined are ``word``."""
    if word.isascii():
        return [word]
    out: list[str] = []
    start = 0
    before = word[0]
    for i in range(1, len(word)):
        char = word[i]
        if ((_BREAKS[before] or _BREAKS[char]) and char not in NO_START and before not in NO_END
                and _WIDTHS[char]):
            out.append(word[start:i])
            start = i
        before = char
    out.append(word[start:])
    return out


def cut(text: str, room: int) -> tuple[str, str]:
    """``text`` cut in two where its start fills at most ``room`` columns,
    without parting a character from the zero-width marks after it."""
    if room <= 0:
        return "", text
    if text.isascii():
        return text[:room], text[room:]
    used = 0
    for i, char in enumerate(text):
        used += _WIDTHS[char]
        if used > room:
            return text[:i], text[i:]
    return text, ""


def index_at(text: str, column: int) -> int | None:
    """Where in ``text`` the character at ``column`` begins (the length of
    the start that fills exactly ``column`` columns), or None when no
    character begins there."""
    if text.isascii():
        return column if column <= len(text) else None
    used = 0
    for i, char in enumerate(text):
        if used == column and _WIDTHS[char]:
            return i
        if used > column:
            return None
        used += _WIDTHS[char]
    return len(text) if used == column else None


def asian(char: str) -> bool:
    """Whether ``char`` is East Asian wide, fullwidth or halfwidth (kana,
    kanji, fullwidth and halfwidth forms, most emoji): a line may break
    next to it, and no blank stands for the break."""
    return _BREAKS[char]


def joins_tight(before: str, after: str) -> bool:
    """Whether a line ending in ``before`` and the next beginning with
    ``after`` join without a blank when a paragraph is joined again: both
    East Asian (Japanese broken across lines has no blank to restore), as
    browsers do (CSS Text 3, segment breaks)."""
    return _BREAKS[before] and _BREAKS[after]
