"""One command line -> one :class:`Command` (or a :class:`CommandError`)."""

from __future__ import annotations

import difflib

from pbm.secret import MASK

from .command import Command
from .registry import (
    ACCOUNT_PHRASES,
    COMMAND_WORDS,
    GAME_PHRASES,
    GAMES,
    continuations,
    find_spec,
)
from .spec import CommandError, Reader, shorten
from .subject import clean_line
from .words import RESERVED_WORDS, Problem, is_board_number, read_move

#: Longer lines are refused unread (a mail line is at most 998 characters).
MAX_COMMAND_LENGTH = 1000

def parse_command(text: str) -> Command:
    """Parse one command line (a decoded subject, or a body line).

    Keywords and game types may be in any case; blanks of any kind and number
    separate words.  Raises :class:`CommandError` saying what was wrong (a
    code and params), with the usage line of the command when it was
    recognised.
    """
    line = clean_line(text)
    if not line:
        raise CommandError("no-command")
    if len(line) > MAX_COMMAND_LENGTH:
        raise CommandError("line-too-long", {"length": len(line), "most": MAX_COMMAND_LENGTH})
    # the old server's "see my comment" flag, a word of asterisks, is no part of the command
    words = [w for w in line.split(" ") if not (len(w) >= 2 and w.strip("*") == "")]
    if not words:
        raise CommandError("no-command")
    game = words[0].lower() if words[0].lower() in GAMES else None
    rest = words[1:] if game else words
    if game and not rest:
        raise CommandError("game-alone", {"word": words[0], "game": game}, game=game)
    found = find_spec(rest, game=game is not None)
    if found is None:
        raise _unknown(words, game)
    spec, n = found
    head = len(words) - len(rest) + n
    reader = Reader(spec, game, words[:head], words[head:])
    args = spec.parse(reader)
    # The text kept is redacted at once: the Password in the arguments is the only copy.
    return Command(spec.name, game, args, reader.redacted())


def looks_like_command(line: str) -> bool:
    """Does the line begin with a game type or a command word?  (Whether or
    not the rest is right: such a line is meant as a command.)"""
    words = clean_line(line).split(" ", 1)
    return words[0].lower() in GAMES or words[0].lower() in COMMAND_WORDS


def placed(word: str) -> bool:
    """Does a word the grammar did not expect still read as a word of the
    language (a game type, a command's word, a keyword, an option, a board
    number or a move), so that it may be quoted back?  Any other word in the place
    of a command's name may be a password (``trax apple 101 alice``)."""
    lowered = word.lower()
    if lowered in GAMES or lowered in COMMAND_WORDS or lowered in RESERVED_WORDS or is_board_number(word):
        return True
    if word.startswith("-"):  # no password begins with "-"
        return True
    try:
        read_move(word)
    except Problem:
        return False
    return True


def _unknown(words: list[str], game: str | None) -> CommandError:
    """The error for a line whose command is not recognised.

    The word standing where the name should be is quoted when it reads as
    a word of the language, as a misspelt name (a "did you mean" is found
    for it: ``moev``), or when it is all the line holds after the game type
    (``trax bogus``: there is no login in such a line); any other word is
    named by its place and masked, since the line may hold a userid and
    its password in the wrong places (``trax apple 101 alice``)."""
    rest = words[1:] if game else words
    first = rest[0].lower()
    consumed = len(words) - len(rest) + 1
    masked: set[int] = set()

    def quoted(n: int) -> str:
        shown = " ".join(MASK if i in masked else shorten(w) for i, w in enumerate(words[:n]))
        return shown + (" ..." if len(words) > n else "")

    # A command of the other scope: "trax signup ..." or "move 101 ...".
    other = find_spec(rest, game=game is None)
    if other is not None:
        spec, _ = other
        code, params = ("not-game-command", {"name": spec.name, "word": words[0]}) if game else \
            ("game-command", {"name": spec.name, "games": GAMES})
        return CommandError(code, params, usage=spec.usage(None), text=quoted(consumed), name=spec.name, game=game)

    # The first word of a longer name: "change passwort", "trax tournament jion".
    follow = continuations(first, game=game is not None)
    if follow:
        second = rest[1].lower() if len(rest) > 1 else None
        hint = difflib.get_close_matches(second, follow, n=1, cutoff=0.7) if second else []
        if second is not None and not hint and not placed(rest[1]):
            masked.add(consumed)  # "password PW": never quoted
        topic = "tournaments" if first == "tournament" else "commands"
        return CommandError(
            "followed-by",
            {"game": game, "first": first, "choices": tuple(follow), "guess": hint[0] if hint else None,
             "topic": topic},
            text=quoted(consumed + 1 if second else consumed),
            game=game,
        )

    # suggest the commands' own names, not the old server's abbreviations and aliases
    account_words = {w[0] for w, spec in ACCOUNT_PHRASES.items() if " ".join(w) == spec.name}
    game_words = {w[0] for w, spec in GAME_PHRASES.items() if " ".join(w) == spec.name}
    candidates = game_words if game else account_words | game_words | set(GAMES)
    hint = difflib.get_close_matches(first, sorted(candidates), n=1, cutoff=0.7)
    guess = None
    if hint:
        needs_game = not game and hint[0] not in account_words and hint[0] not in GAMES
        guess = f"trax {hint[0]}" if needs_game else hint[0]
    named: str | None = shorten(rest[0])  # None: not quoted, named by its place
    if not hint and not placed(rest[0]) and len(rest) > 1:
        masked.add(consumed - 1)
        named = None
    return CommandError(
        "unknown-command",
        {"word": named, "game": game, "guess": guess},
        text=quoted(consumed),
        game=game,
    )


__all__ = ["MAX_COMMAND_LENGTH", "looks_like_command", "parse_command", "placed"]
