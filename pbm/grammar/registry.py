"""Every command of the language, by name: ``REGISTRY["move"]``.

Handlers are looked up by the same name (``Command.name``).  Names of more
than one word (``change password``, ``tournament create``) are written with
single blanks; aliases (``ratings`` for ``standings``) have as many words as
the name they stand for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from pbm.trax import VARIANTS

from .account_commands import ACCOUNT_SPECS
from .game_commands import GAME_SPECS
from .spec import CommandSpec, Scope
from .tournament_commands import TOURNAMENT_SPECS

#: The game types, as the first word of a game command (any case).
GAMES: tuple[str, ...] = tuple(VARIANTS)

REGISTRY: Mapping[str, CommandSpec] = MappingProxyType(
    {spec.name: spec for spec in (*ACCOUNT_SPECS, *GAME_SPECS, *TOURNAMENT_SPECS)}
)


def _phrases() -> dict[str, CommandSpec]:
    """Every name and alias, words joined by single blanks -> its command."""
    table: dict[str, CommandSpec] = {}
    for spec in REGISTRY.values():
        for phrase in (spec.name, *spec.aliases, *spec.abbreviations):
            assert len(phrase.split(" ")) == len(spec.name.split(" ")), f"alias {phrase!r} of {spec.name!r}"
            assert phrase not in table, f"{phrase!r} is defined twice"
            table[phrase] = spec
    return table


#: Every name and alias of a command (``"ratings"``, ``"change password"``)
#: -> its command; the help topics read the same table.
PHRASES: Mapping[str, CommandSpec] = MappingProxyType(_phrases())


def _scope_phrases(game: bool) -> dict[tuple[str, ...], CommandSpec]:
    """The phrases that may follow a game type (``game``) or stand alone, as word tuples."""
    return {
        tuple(phrase.split(" ")): spec
        for phrase, spec in PHRASES.items()
        if spec.scope is Scope.EITHER or (spec.scope is Scope.GAME) == game
    }


ACCOUNT_PHRASES = _scope_phrases(game=False)
GAME_PHRASES = _scope_phrases(game=True)
LONGEST_NAME = max(len(words) for words in (*ACCOUNT_PHRASES, *GAME_PHRASES))

#: Every word a command can begin with (after the game type, if any).
COMMAND_WORDS = frozenset(words[0] for words in (*ACCOUNT_PHRASES, *GAME_PHRASES))


def find_spec(words: Sequence[str], *, game: bool) -> tuple[CommandSpec, int] | None:
    """The command the words begin with (longest name first), and how many
    words its name takes; ``None`` if they begin with no command."""
    table = GAME_PHRASES if game else ACCOUNT_PHRASES
    lowered = tuple(w.lower() for w in words[:LONGEST_NAME])
    for n in range(len(lowered), 0, -1):
        spec = table.get(lowered[:n])
        if spec is not None:
            return spec, n
    return None


def continuations(first: str, *, game: bool) -> list[str]:
    """The words that may follow ``first`` in a name of several words
    (``change`` -> ``password``, ``address``)."""
    table = GAME_PHRASES if game else ACCOUNT_PHRASES
    return [words[1] for words in table if len(words) > 1 and words[0] == first]


def usage(name: str, game: str | None = "trax") -> str:
    """The usage line of the command ``name``; for a game command ``game``
    fills in the game type (``None``: ``<game>``).  ``help`` is shown in its
    plain form.  ``KeyError`` for an unknown name."""
    spec = REGISTRY[name]
    return spec.usage(game if spec.scope is Scope.GAME else None)
