"""Widths of reply lines as a terminal shows them, for the tests that check
the 78 columns: East Asian wide and fullwidth characters count two,
combining marks and other zero-width characters none, the rest one.

Written here from ``unicodedata`` on its own, not imported from
:mod:`pbm.app.widths`, so that the tests measure the server's lines by a
count of their own."""

from __future__ import annotations

import unicodedata


def columns(line: str) -> int:
    """How many columns ``line`` takes in a terminal."""
    total = 0
    for char in line:
        if unicodedata.category(char) in ("Mn", "Me", "Cf"):
            continue
        total += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return total
