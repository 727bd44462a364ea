"""The values inside commands: userids, passwords, boards, moves, names.

Each ``read_*`` function turns one word into a value or raises
:class:`Problem`, whose code and params say what is wrong *without the word*
(the caller decides whether the word may be quoted back: a password never is).
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from dataclasses import dataclass, field

from pbm.secret import Secret
from pbm.trax import NotationError, parse_notation
from pbm.trax.notation import NewNotation, OldNotation

from .refusals import Refused

USERID_MAX_LENGTH = 32
PASSWORD_MAX_LENGTH = 64
TOURNAMENT_NAME_MAX_LENGTH = 20
FIRST_BOARD = 101

#: Words the commands use in the places where userids or boards can stand.
RESERVED_WORDS = frozenset({"all", "active", "inactive", "next", "new"})
#: The words a ``move`` command accepts instead of a move.
MOVE_WORDS = ("resign", "propose", "undo", "accept", "reject")

_ASCII_DIGITS = re.compile(r"[0-9]+")
_QUOTES = frozenset("\"'`")
_TOURNAMENT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_ADDRESS = re.compile(r"[^@\s\"'<>(),;:\[\]]+@[^@\s\"'<>(),;:\[\]]+\.[^@\s\"'<>(),;:\[\]]+")
_NUMBER_DIGITS = 9  # no board, move number or count needs more
#: The old server's "see my comment" flag, which players add to a command.
COMMENT_FLAG = "**"
_USERID_MARKS = frozenset("_.-")
#: What stands for bytes that could not be read as text.
UNREADABLE = "\ufffd"


class Problem(Refused):
    """What is wrong with a word: a code and params that do not hold it."""


class WordProblem(Problem):
    """A word that is no move (``not-a-move``): ``problem``, the engine's
    refusal of it, names the word (``B2x is not Trax notation``), so the
    reader quotes it only where the word may be quoted back; ``words``:
    the words a move command takes instead (empty where it takes none)."""

    def names_whole(self, word: str) -> bool:
        """Does the engine's refusal name ``word`` as it stands (no ``#N``
        or ``**`` cut from it)?"""
        problem = self.params["problem"]
        return isinstance(problem, NotationError) and problem.params.get("move") == word


def _is_quote(ch: str) -> bool:
    return ch in _QUOTES or unicodedata.category(ch) in ("Pi", "Pf")


def _bad_character(word: str, extra: str = "") -> bool:
    """Blanks, quotes, colons, control characters (and any of ``extra``)."""
    return any(
        ch.isspace() or _is_quote(ch) or ch == ":" or ch in extra or not ch.isprintable() for ch in word
    )


def fold(word: str) -> str:
    """The case-insensitive key of a name: NFKC-normalised, case-folded."""
    return unicodedata.normalize("NFKC", word).casefold()


@dataclass(frozen=True, slots=True)
class UserId:
    """A userid: ``typed`` as the player wrote it, ``key`` for comparing.

    Two userids are equal when their keys are (case does not matter)."""

    typed: str = field(compare=False)
    key: str

    @classmethod
    def of(cls, word: str) -> UserId:
        return cls(word, fold(word))

    def __str__(self) -> str:
        return self.typed

    def __repr__(self) -> str:
        return f"UserId({self.typed!r})"


@dataclass(frozen=True, slots=True)
class TournamentName:
    """A tournament's name: ``typed`` as written, ``key`` for comparing."""

    typed: str = field(compare=False)
    key: str

    @classmethod
    def of(cls, word: str) -> TournamentName:
        return cls(word, fold(word))

    def __str__(self) -> str:
        return self.typed

    def __repr__(self) -> str:
        return f"TournamentName({self.typed!r})"


class Password(Secret):
    """A password (or a one-time code) as typed in a command: the server's
    one secret wrapper, under the name the commands use."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class BoardRef:
    """A board number, optionally ``#N``: the board as it was after move N."""

    number: int | str  # a str is a tournament board's name
    after: int | None = None

    def __str__(self) -> str:
        return str(self.number) if self.after is None else f"{self.number}#{self.after}"


@dataclass(frozen=True, slots=True)
class WrittenMove:
    """A move as written in a command, before any board has seen it.

    Exactly one of ``notation`` (a tile, in the new or old notation),
    ``cell`` (a cell alone, ``C3``: in LuckyTrax the tile is the one drawn)
    and ``word`` (one of :data:`MOVE_WORDS`) is set.  ``number`` is the
    ``#N`` guard: the move is only to be played if it would be move N of the
    game.
    """

    notation: NewNotation | OldNotation | None = None
    word: str | None = None
    number: int | None = None
    cell: str | None = None

    def __post_init__(self) -> None:
        if sum(x is not None for x in (self.notation, self.word, self.cell)) != 1:
            raise ValueError("a WrittenMove is a notation, a cell or a word")

    @property
    def is_tile(self) -> bool:
        """A tile (written in full, or as the cell for the drawn tile), not a word."""
        return self.word is None

    @property
    def text(self) -> str:
        """The move without its ``#N`` guard: the tile, the cell or the word."""
        return str(self.notation or self.cell or self.word)

    def __str__(self) -> str:
        return self.text if self.number is None else f"{self.text}#{self.number}"


# --- readers: one word -> one value, or Problem ------------------------------------------


def read_userid(word: str) -> UserId:
    if len(word) > USERID_MAX_LENGTH:
        raise Problem("userid-too-long", {"most": USERID_MAX_LENGTH})
    if _bad_character(word, "#"):
        raise Problem("userid-characters")
    if word.startswith("-"):
        raise Problem("userid-dash")
    if word.isdecimal():
        raise Problem("userid-digits")
    if fold(word) in RESERVED_WORDS:
        raise Problem("userid-reserved")
    if UNREADABLE in word:
        raise Problem("userid-unreadable")
    return UserId.of(word)


def is_safe_userid(word: str) -> bool:
    """Letters of the Latin script (accented ones too), ASCII digits, ``_``,
    ``.`` and ``-``, beginning with a letter, in their one Unicode form: no
    letters of other scripts that look like Latin ones (Cyrillic а for a),
    no full-width forms, nothing invisible, no encoded words."""
    if not word or not word[0].isalpha() or unicodedata.normalize("NFKC", word) != word:
        return False
    return all(ch in _USERID_MARKS or ch in "0123456789"
               or (ch.isalpha() and unicodedata.name(ch, "").startswith("LATIN ")) for ch in word)


def read_new_userid(word: str) -> UserId:
    """A userid being chosen (signup): besides the rules of every userid,
    only the safe set of :func:`is_safe_userid`, so that no two userids
    look alike."""
    userid = read_userid(word)
    if not is_safe_userid(word):
        raise Problem("new-userid-script")
    return userid


def read_password(word: str, *, new: bool = False) -> Password:
    """A password; ``new`` for one being chosen (signup, change password)."""
    if len(word) > PASSWORD_MAX_LENGTH:
        raise Problem("password-too-long", {"most": PASSWORD_MAX_LENGTH})
    if _bad_character(word):
        raise Problem("password-characters")
    if word.startswith("-"):
        raise Problem("password-dash")
    if new and looks_like_address(word):
        raise Problem("password-address")
    if UNREADABLE in word:
        raise Problem("password-unreadable")
    return Password(word)


def read_number(word: str, *, minimum: int = 0, maximum: int | None = None, what: str = "number") -> int:
    """A whole number written in ASCII digits, within bounds; ``what`` names
    what it counts (one of :data:`~pbm.grammar.refusals.NOUNS`)."""
    if not _ASCII_DIGITS.fullmatch(word):
        raise Problem("not-digits", {"what": what})
    if len(word.lstrip("0")) > _NUMBER_DIGITS:
        raise Problem("number-far-too-large", {"what": what})
    value = int(word)
    if value < minimum:
        raise Problem("number-too-small", {"what": what, "least": minimum})
    if maximum is not None and value > maximum:
        raise Problem("number-too-large", {"what": what, "most": maximum})
    return value


# a tournament board's name: the tournament's name, a hyphen, its place in the event
_BOARD_NAME = re.compile(rf"[A-Za-z][A-Za-z0-9_]{{0,{TOURNAMENT_NAME_MAX_LENGTH - 1}}}-[A-Za-z0-9.]{{1,12}}")


def is_board_word(word: str) -> bool:
    """Does this word name a board (digits or a tournament board's name such
    as ``ETC26-A3``, maybe ``#N``), not a userid?"""
    return bool(re.fullmatch(r"[0-9]+(#.*)?", word)) or bool(_BOARD_NAME.fullmatch(word.partition("#")[0]))


def is_board_number(word: str) -> bool:
    """Does this word name a board by its number (``101``, ``101#5``)?  A
    tournament board's name (``ETC26-A3``) is left out: many a password
    looks like one (``Spring-2026``)."""
    return bool(re.fullmatch(r"[0-9]{1,12}(?:#[0-9]{0,12})?", word))


def read_board(word: str) -> int | str:
    """A board number, or the name of a tournament board (returned as typed;
    the server looks it up without regard to case)."""
    if _BOARD_NAME.fullmatch(word):
        return word
    if not _ASCII_DIGITS.fullmatch(word):
        raise Problem("board-form", {"first": FIRST_BOARD})
    return read_number(word, minimum=FIRST_BOARD, what="board-number")


def read_board_ref(word: str) -> BoardRef:
    """``101`` or ``101#5`` (the board as it was after move 5; ``#0`` is empty)."""
    number, hash_sign, after = word.partition("#")
    board = read_board(number)
    if not hash_sign:
        return BoardRef(board)
    if not after:
        raise Problem("board-hash-empty")
    return BoardRef(board, read_number(after, what="move-number"))


#: A cell alone, as a LuckyTrax move names where the drawn tile goes.
_CELL = re.compile(r"([@A-Za-z]{1,3})([0-9]{1,4})")


def read_move(word: str, *, words: bool = True, numbered: bool = True, cells: bool = False) -> WrittenMove:
    """A tile in either notation, or (with ``words``) resign/propose/undo/accept/reject;
    with ``numbered`` a ``#N`` suffix is allowed; with ``cells`` a cell alone
    (``C3``, the drawn tile of LuckyTrax) is a move too.  The old server's "see my
    comment" flag ``**`` may be stuck to the end (``B2/**``): it is ignored."""
    if len(word) > 2 and word.endswith(COMMENT_FLAG):
        word = word.rstrip("*")
    text, hash_sign, after = word.partition("#")
    if len(text) > 2 and text.endswith(COMMENT_FLAG):
        text = text.rstrip("*")
    number = None
    if hash_sign:
        if not numbered:
            raise Problem("move-unnumbered")
        if not after:
            raise Problem("move-hash-empty")
        number = read_number(after, minimum=1, what="move-number")
    lowered = text.lower()
    if cells and _CELL.fullmatch(text):
        return WrittenMove(cell=text.upper(), number=number)
    if lowered in MOVE_WORDS:
        if not words:
            raise Problem("tiles-only", {"word": lowered})
        return WrittenMove(word=lowered, number=number)
    try:
        notation = parse_notation(text)
    except NotationError as exc:
        raise WordProblem("not-a-move", {"problem": exc, "words": MOVE_WORDS if words else ()}) from None
    return WrittenMove(notation=notation, number=number)


def read_days(word: str, *, maximum: float = 3650) -> float:
    """A positive number of days; a decimal point (or comma) is allowed."""
    text = word.replace(",", ".")
    if not re.fullmatch(r"[0-9]{1,6}(\.[0-9]{1,6})?|\.[0-9]{1,6}", text):
        raise Problem("days-form")
    value = float(text)
    if value <= 0:
        raise Problem("days-positive")
    if value > maximum:
        raise Problem("days-too-many", {"most": maximum})
    return value


def read_date(word: str) -> datetime.date:
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", word):
        raise Problem("date-form")
    try:
        return datetime.date.fromisoformat(word)
    except ValueError:
        raise Problem("date-missing") from None


def read_tournament_name(word: str) -> TournamentName:
    if len(word) > TOURNAMENT_NAME_MAX_LENGTH:
        raise Problem("tournament-name-too-long", {"most": TOURNAMENT_NAME_MAX_LENGTH})
    if not _TOURNAMENT_NAME.fullmatch(word):
        raise Problem("tournament-name-form")
    return TournamentName.of(word)


def looks_like_address(word: str) -> bool:
    return bool(_ADDRESS.fullmatch(word))


def read_address(word: str) -> str:
    """An e-mail address; ``<...>`` around it and a comma after it are dropped."""
    text = word.rstrip(",;")
    if text.startswith("<") and text.endswith(">"):
        text = text[1:-1]
    if not looks_like_address(text) or not text.isprintable():
        raise Problem("address-form")
    return text
