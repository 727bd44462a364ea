"""The one error of the command grammar."""

from __future__ import annotations


class CommandError(ValueError):
    """A line that is not a command, or a command written wrongly.

    ``reason`` says in plain words what was wrong; ``usage`` is the usage line
    of the command being parsed (``None`` when the command word itself was not
    recognised: then the reason suggests ``help``); ``text`` is the command as
    it may be quoted back to the sender, passwords already replaced by
    ``********`` (``None`` when there is nothing safe to quote).  ``name`` and
    ``game`` identify the command when it was recognised.

    No part of the error (``str``, ``repr``, attributes) contains a password.
    """

    def __init__(
        self,
        reason: str,
        *,
        usage: str | None = None,
        text: str | None = None,
        name: str | None = None,
        game: str | None = None,
    ) -> None:
        self.reason = reason
        self.usage = usage
        self.text = text
        self.name = name
        self.game = game
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """The reason followed by the usage line, as one line of text."""
        if self.usage is None:
            return self.reason
        return f"{self.reason}; usage: {self.usage}"

    def __str__(self) -> str:
        return self.message
