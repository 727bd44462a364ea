"""A parsed command."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from pbm.secret import MASK

from .refusals import Refused
from .registry import REGISTRY
from .spec import CommandSpec, UnreadMove
from .words import Password


@dataclass(frozen=True, slots=True, repr=False)
class Command:
    """One command, parsed: ``name`` is its registry name (also for an alias:
    ``trax ratings`` has the name ``standings``), ``game`` the game type in
    lower case (``None`` for an account command), ``args`` its arguments (a
    frozen dataclass per command, see ``REGISTRY[name].parse``) and ``text``
    the command as typed, blanks collapsed and passwords already replaced by
    ``********``: the only copy of a password is the :class:`Password` in
    ``args``, so neither ``str()``, ``repr()``, ``dataclasses.asdict()`` nor a
    stored ``text`` can give it away.
    """

    name: str
    game: str | None
    args: Any
    text: str

    @property
    def spec(self) -> CommandSpec:
        return REGISTRY[self.name]

    def redacted(self) -> str:
        """The command text with every password replaced by ``********``
        (``text`` itself for a parsed command; a command made by hand is
        masked here by position and by the passwords in its ``args``)."""
        words = self.text.split()
        spec = REGISTRY.get(self.name)
        if spec is not None:  # by position: a word that merely equals the password stays
            start = (1 if self.game else 0) + len(self.name.split())
            words[start:] = spec.redact(words[start:])
            return " ".join(words)
        secrets = {p.reveal() for p in passwords_of(self.args)}
        return " ".join(MASK if w in secrets else w for w in words)

    def name_only(self) -> str:
        """The command's name as typed, every word after it masked: how a
        command whose sender could not log in is quoted and logged (its
        words may stand in the wrong places, a password among them)."""
        words = self.text.split()
        start = (1 if self.game else 0) + len(self.name.split())
        return " ".join([*words[:start], *(MASK for _ in words[start:])])

    def unread(self) -> tuple[UnreadMove, ...]:
        """The words in a move's place that read as no move (see
        :class:`~pbm.grammar.spec.UnreadMove`), in the order written."""
        return unread_of(self.args)

    def unread_refusal(self) -> Refused | None:
        """Why the first unread move is no move (naming it unless it holds
        a password of the line), or None when every move read."""
        unread = self.unread()
        return unread[0].refusal(passwords_of(self.args)) if unread else None

    def naming_unread(self) -> str:
        """The command as the reply to its sender quotes it once he logged
        in and was refused for a word that is no move: passwords masked,
        and each such word shown, unless it holds a password of the line
        (never in the log, which keeps :meth:`redacted`)."""
        words = self.redacted().split()
        start = (1 if self.game else 0) + len(self.name.split())
        secrets = passwords_of(self.args)
        for move in self.unread():
            if move.shown(secrets) and start + move.index < len(words):
                words[start + move.index] = move.reveal()
        return " ".join(words)

    def __str__(self) -> str:
        return self.redacted()

    def __repr__(self) -> str:
        return f"Command({self.redacted()!r})"


def passwords_of(args: object) -> list[Password]:
    if not dataclasses.is_dataclass(args):
        return []
    return [v for f in dataclasses.fields(args) if isinstance(v := getattr(args, f.name), Password)]


def unread_of(args: object) -> tuple[UnreadMove, ...]:
    """The unread moves among ``args``' fields (one, or a tuple of them)."""
    if not dataclasses.is_dataclass(args):
        return ()
    found: list[UnreadMove] = []
    for f in dataclasses.fields(args):
        value = getattr(args, f.name)
        found += [v for v in (value if isinstance(value, tuple) else (value,)) if isinstance(v, UnreadMove)]
    return tuple(found)
