"""Help by mail: which templates answer ``help`` and ``<game> help``.

The words are in ``templates/help/``; this module only decides which of
those texts a player asked for, and gives the templates the one thing they
cannot make themselves (real board positions for the diagrams).

>>> resolve_topics([], None)
['help/index.txt']
>>> resolve_topics([], "looptrax")
['help/looptrax.txt']
>>> resolve_topics(["Change-Password", "notation"], None)
['help/commands/change-password.txt', 'help/notation.txt']

The words after ``help`` are read left to right:

1. a command name of several words, written with blanks or dashes
   (``change password``, ``change-password``, ``tournament create``),
   longest first;
2. a topic (``commands``, ``tutorial``, ``trax`` ..., see :data:`TOPICS`),
   or one of a few other spellings of one (:data:`TOPIC_ALIASES`).  Topics
   win over commands: ``ratings`` is the topic, not the alias of
   ``standings``;
3. a command name or alias of one word (``move``, ``standings``);
4. one word of longer command names (``change``, ``reset``,
   ``create``): every command with that word in its name.

Anything else raises :class:`UnknownTopicError`, whose message lists the
topics and, where one is close, the word the player probably meant.
Case does not matter, and a topic asked twice is answered once.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from pbm.grammar import GAMES, PHRASES, REGISTRY
from pbm.trax import Board

#: Topic name -> template.  The game types are topics too (their rules).
TOPICS: Mapping[str, str] = MappingProxyType(
    {
        "index": "help/index.txt",
        "commands": "help/commands.txt",
        "tutorial": "help/tutorial.txt",
        "trax": "help/trax.txt",
        "8x8trax": "help/8x8trax.txt",
        "looptrax": "help/looptrax.txt",
        "minitrax": "help/minitrax.txt",
        "luckytrax": "help/luckytrax.txt",
        "pointtrax": "help/pointtrax.txt",
        "rules": "help/trax.txt",  # the rules of the game type asked about, see resolve_topics
        "notation": "help/notation.txt",
        "reply": "help/reply.txt",
        "computer": "help/computer.txt",
        "ratings": "help/ratings.txt",
        "tournaments": "help/tournaments.txt",
    }
)

#: Other spellings of topics (not listed to players, but understood).
TOPIC_ALIASES: Mapping[str, str] = MappingProxyType(
    {
        "topics": "index",
        "command": "commands",
        "rule": "rules",
        "rating": "ratings",
        "elo": "ratings",
        "tournament": "tournaments",
    }
)

#: The topics offered in messages (the rest are the game types and "rules").
LISTED_TOPICS = ("commands", "tutorial", "trax", "notation", "ratings", "tournaments")

#: A short real opening, drawn in the rules and the notation help.
EXAMPLE_MOVES = ("@0/", "B1+", "A2\\")
#: The same opening and a reply that forces a tile (B0\ forces one at A1).
FORCED_MOVES = (*EXAMPLE_MOVES, "B0\\")


class UnknownTopicError(ValueError):
    """Help was asked on words that are no topic and no command.

    ``words`` are the words not understood, ``suggestions`` maps each of them
    that resembles a topic or command to it.  ``params`` are the facts the
    refusal ``no-help-topic`` is worded from, for the reply.
    """

    def __init__(self, words: Sequence[str], suggestions: Mapping[str, str], game: str | None = None) -> None:
        self.words = tuple(words)
        self.suggestions = dict(suggestions)
        self.game = game
        super().__init__("no-help-topic", self.words)

    @property
    def params(self) -> dict[str, object]:
        """The words, the guess for each (None: no guess), the game type, the
        topics listed and the game types."""
        return {"words": self.words, "guesses": tuple(self.suggestions.get(w) for w in self.words),
                "game": self.game, "topics": tuple(t for t in LISTED_TOPICS if t not in GAMES), "games": GAMES}


def command_template(name: str) -> str:
    """The help template of the command ``name`` (``change password`` ->
    ``help/commands/change-password.txt``)."""
    return f"help/commands/{name.replace(' ', '-')}.txt"


def game_template(game: str) -> str:
    """The rules template of a game type."""
    _check_game(game)
    return TOPICS[game]


def resolve_topics(words: Sequence[str], game: str | None) -> list[str]:
    """The templates that answer ``help WORDS`` (``game`` None) or
    ``<game> help WORDS``, in the order asked, without repeats.

    No words: the index for plain ``help``, the game type's rules for
    ``<game> help``.  ``rules`` means the rules of ``game`` (trax when none
    was named).  Raises :class:`UnknownTopicError` for words that name no
    topic and no command.
    """
    _check_game(game)
    parts = [part for word in words for part in word.lower().split("-") if part]
    if not parts:
        return [game_template(game) if game else TOPICS["index"]]

    found: list[str] = []
    unknown: list[str] = []
    i = 0
    while i < len(parts):
        n, names = _match(parts, i)
        if n:
            found.extend(names)
            i += n
            continue
        word = parts[i]
        i += 1
        topic = TOPIC_ALIASES.get(word, word)
        if topic == "rules":
            found.append(game_template(game or "trax"))
        elif topic in TOPICS:
            found.append(TOPICS[topic])
        elif word in _COMMAND_PHRASES:
            found.append(command_template(_COMMAND_PHRASES[word]))
        elif word in _NAME_WORDS:
            found.extend(command_template(name) for name in _NAME_WORDS[word])
        elif word not in unknown:
            unknown.append(word)
    if unknown:
        raise UnknownTopicError(unknown, _suggestions(unknown), game)
    return list(dict.fromkeys(found))


def help_context(game: str | None, server: Any) -> dict[str, Any]:
    """The context for every help template: the ``game`` asked about (None
    for plain ``help``), the ``server`` (``.name``, ``.address``), and the
    positions the diagrams show: ``example_board`` (after ``@0/ B1+ A2\\``)
    and ``forced_board`` (then ``B0\\``, which forces a tile)."""
    variant = _check_game(game) or "trax"
    return {
        "game": game,
        "server": server,
        "example_board": Board.replay(list(EXAMPLE_MOVES), variant),
        "forced_board": Board.replay(list(FORCED_MOVES), variant),
    }


# --- internals -------------------------------------------------------------------------


def _check_game(game: str | None) -> str | None:
    if game is not None and game not in GAMES:
        raise ValueError(f"unknown game type {game!r}; the game types are {', '.join(GAMES)}")
    return game


#: Every command name and alias (words joined by blanks) -> the name.
_COMMAND_PHRASES = {phrase: spec.name for phrase, spec in PHRASES.items()}
_LONGEST = max(len(phrase.split(" ")) for phrase in _COMMAND_PHRASES)


def _name_words() -> dict[str, tuple[str, ...]]:
    """Each word of a command name of several words -> those names."""
    table: dict[str, list[str]] = {}
    for name in REGISTRY:
        words = name.split(" ")
        if len(words) > 1:
            for word in words:
                table.setdefault(word, []).append(name)
    return {word: tuple(names) for word, names in table.items()}


_NAME_WORDS = _name_words()


def _match(parts: Sequence[str], i: int) -> tuple[int, list[str]]:
    """A command name of two or more words at ``parts[i]``: how many words
    it takes and its template; (0, []) if there is none."""
    for n in range(min(_LONGEST, len(parts) - i), 1, -1):
        name = _COMMAND_PHRASES.get(" ".join(parts[i : i + n]))
        if name is not None:
            return n, [command_template(name)]
    return 0, []


def _suggestions(words: Sequence[str]) -> dict[str, str]:
    candidates = sorted({*TOPICS, *TOPIC_ALIASES, *_COMMAND_PHRASES, *_NAME_WORDS} - {"rule"})
    out: dict[str, str] = {}
    for word in words:
        close = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
        if close:
            guess = close[0]
            out[word] = TOPIC_ALIASES.get(guess, guess)
    return out


__all__ = [
    "EXAMPLE_MOVES",
    "FORCED_MOVES",
    "LISTED_TOPICS",
    "TOPICS",
    "TOPIC_ALIASES",
    "UnknownTopicError",
    "command_template",
    "game_template",
    "help_context",
    "resolve_topics",
]
