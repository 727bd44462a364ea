"""A value that never shows itself: passwords in commands and in the config.

A leaf module (it imports nothing of pbm), so that every layer may use it:
the command grammar wraps the passwords and reset codes players type, the
configuration the passwords of the IMAP server and the relay.
"""

from __future__ import annotations

import hmac

MASK = "********"


class Secret:
    """A secret kept exactly as given.

    ``str()`` gives ``********`` and ``repr()`` ``Secret('********')`` (the
    class's own name for a subclass); :meth:`reveal` gives the text, for
    checking it or handing it to the server it belongs to, nothing else.
    Deliberately not a dataclass, so ``dataclasses.asdict`` keeps it wrapped.
    Equality compares in constant time.
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Secret):
            return NotImplemented
        return hmac.compare_digest(
            self._value.encode("utf-8", "surrogatepass"), other._value.encode("utf-8", "surrogatepass")
        )

    def __hash__(self) -> int:
        return hash((Secret, self._value))

    def __str__(self) -> str:
        return MASK

    def __repr__(self) -> str:
        return f"{type(self).__name__}({MASK!r})"

    def __reduce__(self) -> tuple[type[Secret], tuple[str]]:  # pickling keeps the value; printing never does
        return (type(self), (self._value,))


class UnreadSecret(Secret):
    """A secret that was not read (a password in an environment variable,
    for a command that never connects to the server it is for): it has no
    value, and asking for it is a programming error."""

    __slots__ = ()

    def reveal(self) -> str:
        raise RuntimeError(f"the secret in ${self._value} was not read: this command does not connect")
