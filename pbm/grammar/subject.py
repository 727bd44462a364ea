"""From a raw Subject header to the command line it carries."""

from __future__ import annotations

import re
import unicodedata
from email import policy

#: Longer raw subjects are cut before decoding (no command is nearly as long).
MAX_RAW_SUBJECT = 8000

# Reply and forward markers of the common mail programs, in several languages,
# with an optional counter (Re[2]:, Re(2):, Re^2:); a colon may follow a blank
# (French style) and may be full width.  Also a [list-tag] and "(fwd)".
_PREFIX = re.compile(
    r"""
    (?: (?: re | aw | sv | vs | antw | antwort | r[ée]f | rif | odp | ynt
          | fw | fwd | wg | tr | rv | enc | vl | fs | doorst )
        \s* (?: \[\d{1,4}\] | \(\d{1,4}\) | \^\d{1,4} )? \s* [:：]
      | \[ [^\[\]]{0,60} \]
    ) \s*
    """,
    re.IGNORECASE | re.VERBOSE,
)
_SUFFIX = re.compile(r"\s*\((?:fwd|fw)\)$", re.IGNORECASE)
_FOLD = re.compile(r"\r?\n(?=[ \t])")
_ESCAPED = re.compile("[\udc80-\udcff]")  # the bytes an 8-bit header kept as surrogate escapes


def clean_line(text: str) -> str:
    """NFC-normalised text on one line: every kind of blank (line breaks,
    tabs, no-break spaces ...) becomes one space, control and invisible
    format characters go, and blanks at the ends are dropped."""
    text = unicodedata.normalize("NFC", text)
    out = []
    for ch in text:
        if ch.isspace():
            out.append(" ")
        elif unicodedata.category(ch)[0] != "C":
            out.append(ch)
    return " ".join("".join(out).split())


def strip_prefixes(text: str) -> str:
    """``Re: Fwd: [list] Re[2]: trax show 101`` -> ``trax show 101``."""
    while True:
        match = _PREFIX.match(text)
        if not match or match.end() == 0:
            break
        text = text[match.end() :]
    return _SUFFIX.sub("", text)


def decode_subject(raw: str) -> str:
    """The command line in a Subject header, as raw as it came.

    RFC 2047 encoded words are decoded (leniently: bad encodings and unknown
    charsets give replacement characters, never an error), folded lines are
    unfolded, blanks collapsed, reply/forward prefixes stripped.  Case is kept
    (passwords depend on it).  Never raises.
    """
    if not isinstance(raw, str):
        raw = "" if raw is None else str(raw)
    raw = _FOLD.sub("", raw[:MAX_RAW_SUBJECT])
    if _ESCAPED.search(raw):  # raw 8-bit bytes (SMTPUTF8 mail), kept by the parser as escapes: UTF-8
        raw = raw.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    if raw.isascii() and "=?" not in raw:
        decoded = raw  # nothing to decode (most subjects): the header parser costs more than the rest
    else:
        try:
            decoded = str(policy.default.header_factory("subject", raw))
        except Exception:
            decoded = raw
    return strip_prefixes(clean_line(decoded))
