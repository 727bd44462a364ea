"""What the grammar refuses, as data: a code and its params, never a sentence.

A word that does not read (:class:`~pbm.grammar.words.Problem`) and a line
that is no command (:class:`~pbm.grammar.spec.CommandError`) each carry a
``code`` (kebab-case, one of :data:`CODES`) and ``params``, the facts it is
about: the words as they may be quoted back (never a password), numbers,
the names of the choices, and for a refusal that stands on another (a word
that is no move because the engine cannot read it) that refusal itself.
The application words them from ``templates/errors/reasons/commands.txt``
(one macro per code); ``str()`` shows the code and params, for logs and
debugging.

Some params name a thing rather than word it (the template words them):

- ``role``: the place of a word in its command, ``what``: what a number
  counts (:data:`NOUNS`);
- ``after``: what a command's options come after (:data:`AFTER`);
- ``nth``: which of several words of one role (1, 2, ...), or None.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Every code a refusal of the grammar carries.
CODES = frozenset({
    # a word (Problem): userids, passwords, numbers, boards, moves, times, names, addresses
    "userid-too-long", "userid-characters", "userid-dash", "userid-digits", "userid-reserved",
    "userid-unreadable", "new-userid-script", "password-too-long", "password-characters", "password-dash",
    "password-address", "password-unreadable", "not-digits", "number-far-too-large", "number-too-small",
    "number-too-large", "board-form", "board-hash-empty", "move-unnumbered", "move-hash-empty", "tiles-only",
    "not-a-move", "days-form", "days-positive", "days-too-many", "date-form", "date-missing",
    "tournament-name-too-long", "tournament-name-form", "address-form", "code-form", "ending-values",
    "board-or-all", "formats",
    # a command's words (CommandError from the reader)
    "too-few-words", "no-words-wanted", "too-many-words", "role-not-a-move", "word-not-valid", "role-not-valid",
    "not-an-option", "nth-not-an-option", "unknown-option", "option-twice", "option-no-value",
    "option-needs-value", "option-value", "role-missing",
    # a command's own rules
    "too-many-addresses", "selection-here", "selection-last", "all-show-one", "reset-no-password",
    "no-such-setting", "setting-value-missing", "setting-value", "setting-nothing-after",
    "language-value", "language-form", "nag-before-forfeit",
    "ending-for-limited", "points-for-scored", "queue-odd", "show-what", "selection-needs-user",
    "boards-or-selection", "rounds-swiss", "pools-only", "advance-smaller", "result-values",
    # a line (parse_command) and a mail (parse_mail_commands, parse_reply)
    "no-command", "line-too-long", "game-alone", "not-game-command", "game-command", "followed-by",
    "unknown-command", "too-many-lines", "multiple-empty", "digest-line", "reply-no-board", "reply-no-move",
    "reply-login-first", "reply-not-a-move", "reply-empty",
})

#: The names of the things a ``role`` or ``what`` param names (the
#: template words each).
NOUNS = frozenset({
    "userid", "password", "first-userid", "second-userid", "old-password", "new-password", "board-number",
    "move", "recipient", "address", "code", "days", "hour", "hour-of-day", "board-or-new", "board", "limit",
    "opponents", "tournament-name", "player", "number", "move-number", "level", "points", "rounds",
    "pool-size", "advancing", "players",
})

#: What a command's options may come after (the ``after`` param).
AFTER = frozenset({"userids", "userids-password", "tournament-login"})


class Refused(ValueError):
    """A refusal of the grammar: ``code`` (one of :data:`CODES`) and
    ``params`` (the facts, plain values, or a refusal it stands on)."""

    def __init__(self, code: str, params: Mapping[str, Any] | None = None) -> None:
        self.code = code
        self.params: dict[str, Any] = dict(params) if params else {}
        super().__init__(code, self.params)

    def __str__(self) -> str:
        return " ".join([self.code, *(f"{key}={value!r}" for key, value in self.params.items())])

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"
