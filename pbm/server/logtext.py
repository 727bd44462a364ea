"""Log lines with text a mail brought: one line each, of bounded length.

A mail's summary (its commands as the log keeps them), its key, its sender
or an error it caused can each be many kilobytes long, and hold line breaks
a sender put there.  Every log call of the intakes and the daemon that
carries such text passes it through :func:`line`: the line is made when it
is logged (not at all when its level is off), its control characters are
written as escapes (``\\n``: one line stays one line), and a line longer
than :data:`MOST` characters loses its middle, where a marker says how many
characters were cut.  The head (the mail's key, its sender) and the tail
(the outcome) stay.  What the database keeps is never cut: only the log.
"""

from __future__ import annotations

#: The longest log line made from a mail, in characters, the marker included.
MOST = 1000

# C0 controls and DEL as escapes (the tab too: a line's fields are read by blanks)
_ESCAPES = {code: f"\\x{code:02x}" for code in (*range(0x20), 0x7F)}
_ESCAPES.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})


def cut(text: str, most: int = MOST) -> str:
    """``text`` on one line, at most ``most`` characters: when longer, its
    middle is replaced by `` [... N characters cut ...] ``."""
    text = text.translate(_ESCAPES)
    if len(text) <= most:
        return text
    # the marker's length, with as many digits as the longest count it may say
    width = len(f" [... {len(text)} characters cut ...] ")
    keep = max(most - width, 0)
    head = keep * 2 // 3
    tail = keep - head
    marker = f" [... {len(text) - keep} characters cut ...] "
    return text[:head] + marker + (text[len(text) - tail:] if tail else "")


class _Line:
    """A log line made from a ``%`` format and its arguments when logged."""

    __slots__ = ("args", "fmt", "most")

    def __init__(self, fmt: str, args: tuple[object, ...], most: int) -> None:
        self.fmt = fmt
        self.args = args
        self.most = most

    def __str__(self) -> str:
        try:
            text = self.fmt % self.args
        except (TypeError, ValueError):  # a wrong format must not lose the line
            text = " ".join([self.fmt, *map(repr, self.args)])
        return cut(text, self.most)

    def __repr__(self) -> str:
        return repr(str(self))


def line(fmt: str, *args: object, most: int = MOST) -> _Line:
    """A log line of at most ``most`` characters, for ``log.info("%s",
    line("%s: %s", key, summary))``: formatted and cut only when logged."""
    return _Line(fmt, args, most)


__all__ = ["MOST", "cut", "line"]
