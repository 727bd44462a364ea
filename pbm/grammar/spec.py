"""What the registry knows about a command, and the reader its parser uses.

A :class:`CommandSpec` holds a command's name, scope, usage, summary, where
its passwords stand and its argument parser.  The parser gets a
:class:`Reader` over the words after the command name and returns the
command's arguments (a frozen dataclass).  The reader reports every mistake as
a :class:`CommandError` carrying the usage line, and it
never quotes a password back: in a command that carries one, only boards,
moves, addresses and option names are ever quoted; other words are named by
their role (``role="recipient", nth=2``: "the 2nd recipient").  One mistake
is not the reader's to report: a word in a move's place that is no move, in
a command with a password, is kept as an :class:`UnreadMove` for the handler
to refuse, by name, once the sender logged in.
"""

from __future__ import annotations

import difflib
import enum
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

from pbm.secret import MASK, Secret
from pbm.trax import VARIANTS, TraxError

from .refusals import Refused
from .words import Problem, UserId, WordProblem, fold, is_board_number

T = TypeVar("T")

_OPTION = re.compile(r"--?([A-Za-z][A-Za-z0-9_-]*)(?:=(.*))?", re.DOTALL)
_QUOTE_LIMIT = 40


class CommandError(Refused):
    """A line that is not a command, or a command written wrongly.

    ``code`` and ``params`` say what was wrong (:mod:`.refusals`; the
    application words them); ``usage`` is the usage line of the command
    being parsed (``None`` when the command word itself was not recognised:
    then the words suggest ``help``); ``text`` is the command as it may be
    quoted back to the sender, passwords already replaced by ``********``
    (``None`` when there is nothing safe to quote).  ``name`` and ``game``
    identify the command when it was recognised.

    No part of the error (``str``, ``repr``, attributes) contains a password.
    """

    def __init__(
        self,
        code: str,
        params: dict[str, Any] | None = None,
        *,
        usage: str | None = None,
        text: str | None = None,
        name: str | None = None,
        game: str | None = None,
    ) -> None:
        super().__init__(code, params)
        self.usage = usage
        self.text = text
        self.name = name
        self.game = game


class Scope(enum.Enum):
    ACCOUNT = "account"  # no game type before it: ``signup alice secret``
    GAME = "game"  # a game type first: ``trax move 101 alice secret B2/``
    EITHER = "either"  # both: ``help`` and ``trax help``


@dataclass(frozen=True, slots=True)
class Option:
    """An option such as ``--nagtime=D``: its ``name``, the ``field`` of the
    arguments it sets, and how its value is read (``None`` for a flag).
    ``-name`` and ``--name`` are the same option; names ignore case."""

    name: str
    field: str
    read: Callable[[str], object] | None = None
    spelled: str = ""  # as the usage line writes it: "--nagtime=D"

    def __str__(self) -> str:
        return self.spelled or f"-{self.name}"


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """One command of the language.

    ``arguments`` is the usage line after the command name (upper case for
    what the player fills in); ``secret_positions`` are the indexes, among
    the words after the name, of the passwords; ``parse`` reads those words.
    What it does, in a line, is said in ``templates/help/_summaries.txt``.
    """

    name: str
    scope: Scope
    arguments: str
    parse: Callable[[Reader], object]  # returns the command's arguments (a frozen dataclass)
    secret_positions: tuple[int, ...] = ()
    aliases: tuple[str, ...] = ()
    options: tuple[Option, ...] = ()
    shortest: int | None = None  # the old server took any start of the name this long or longer
    drawn_arguments: str | None = None  # the usage in a game whose tile is drawn (LuckyTrax: a cell)

    @property
    def abbreviations(self) -> tuple[str, ...]:
        """The shortened names the old server took (``chall`` ... ``challeng``)."""
        if self.shortest is None:
            return ()
        return tuple(self.name[:n] for n in range(self.shortest, len(self.name)))

    def usage(self, game: str | None = None) -> str:
        """The usage line; for a game command ``game`` fills in the game type
        (``<game>`` when it is ``None``); in a game type whose tile is drawn
        for the player, ``drawn_arguments`` when the command has them."""
        arguments = self.arguments
        if game and self.drawn_arguments and game.lower() in VARIANTS and VARIANTS[game.lower()].drawn:
            arguments = self.drawn_arguments
        if self.scope is Scope.GAME:
            head = f"{game or '<game>'} {self.name}"
        elif self.scope is Scope.EITHER and game:
            head = f"{game} {self.name}"
        else:
            head = self.name
        return f"{head} {arguments}".rstrip()

    @property
    def is_game_command(self) -> bool:
        return self.scope is not Scope.ACCOUNT

    @property
    def takes_password(self) -> bool:
        return bool(self.secret_positions)

    def redact(self, words: Sequence[str]) -> list[str]:
        """The words after the name with the passwords replaced by
        ``********`` (by position; an option, which begins with ``-``, is
        never a password)."""
        return [MASK if i in self.secret_positions and not w.startswith("-") else w for i, w in enumerate(words)]


def shorten(word: str) -> str:
    return word if len(word) <= _QUOTE_LIMIT else word[: _QUOTE_LIMIT - 3] + "..."


def word_refusal(word: str, role: str, problem: Problem, *, quote: bool, nth: int | None = None) -> Refused:
    """The refusal of a word ``problem`` says is wrong: quoting the word
    (``quote``), or naming it by its ``role`` alone (``nth`` counts it
    among several: "the 2nd recipient")."""
    if isinstance(problem, WordProblem):  # the engine's refusal names the word
        if quote:
            return Refused(problem.code, problem.params)
        # the word is not quoted: the engine's code alone, and whether it named the word whole
        return Refused("role-not-a-move", {"role": role, "nth": nth, "refused": problem.params["problem"].code,
                                           "words": problem.params["words"], "whole": problem.names_whole(word)})
    if quote:
        return Refused("word-not-valid", {"word": shorten(word), "role": role, "problem": problem})
    return Refused("role-not-valid", {"role": role, "nth": nth, "problem": problem})


def scrub(value: Any, words: Iterable[str]) -> Any:
    """``value`` (a param: a string, a tuple, a refusal) with each of
    ``words`` that stands in it as a word of its own replaced by
    ``********``: the last line of defence against a refusal that quotes
    a password."""
    if isinstance(value, tuple):
        return tuple(scrub(item, words) for item in value)
    if isinstance(value, Refused | TraxError):
        return type(value)(value.code, {key: scrub(item, words) for key, item in value.params.items()})
    if not isinstance(value, str):
        return value
    for word in words:
        if word:
            value = re.sub(rf"(?<![^\s\"'(\[]){re.escape(word)}(?![^\s\"'),.;:\]])", MASK, value)
    return value


def holds_secret(word: str, secrets: Iterable[Secret]) -> bool:
    """Does ``word`` hold one of ``secrets``, or a piece of one (compared
    NFKC-normalised and case-folded, as a password is checked)?"""
    key = fold(word)
    return any((s := fold(secret.reveal())) and (s in key or key in s) for secret in secrets)


class UnreadMove(Secret):
    """A word in a move's place that reads as no move (``B2x``), in a
    command that carries a password (:meth:`Reader.keep_unread`).

    The grammar does not refuse it: the word may be a password typed in
    the wrong place, and a command is quoted before its sender logged in.
    It is kept like a password (``str()`` and ``repr()`` mask it, and the
    command's text holds ``********`` in its place, so the log never shows
    it); the handler refuses it once the login succeeded, with
    :meth:`refusal`, which names the word unless it holds one of the
    line's passwords.  ``problem`` is what the reader found wrong,
    ``role`` and ``nth`` name its place, ``index`` is its place among the
    words after the command's name.
    """

    __slots__ = ("index", "nth", "problem", "role")

    def __init__(self, word: str, problem: Problem, *, role: str, nth: int | None, index: int) -> None:
        super().__init__(word)
        self.problem = problem
        self.role = role
        self.nth = nth
        self.index = index

    def shown(self, secrets: Iterable[Secret]) -> bool:
        """May the word be quoted back to the sender, who logged in with
        ``secrets`` (the passwords of the line)?  Not when it holds one."""
        return not holds_secret(self.reveal(), secrets)

    def refusal(self, secrets: Iterable[Secret]) -> Refused:
        """Why the word is no move: naming it when it may be shown (see
        :meth:`shown`), else by its role, as a word that might be a
        password is."""
        secrets = tuple(secrets)
        shown = self.shown(secrets)
        refused = word_refusal(self.reveal(), self.role, self.problem, quote=shown, nth=self.nth)
        hidden = [s.reveal() for s in secrets] + ([] if shown else [self.reveal()])
        return Refused(refused.code, {key: scrub(value, hidden) for key, value in refused.params.items()})

    def __reduce__(self) -> Any:  # pickling keeps it whole; printing never shows it
        return (_unread_move, (self.reveal(), self.problem, self.role, self.nth, self.index))


def _unread_move(word: str, problem: Problem, role: str, nth: int | None, index: int) -> UnreadMove:
    return UnreadMove(word, problem, role=role, nth=nth, index=index)


class Reader:
    """The words after a command's name, read by role.

    The reader notes what each word was read as: a password (``secrets``),
    a userid (``userids``), or something else that read well (``safe``:
    boards, moves, numbers, addresses, options, keywords), and which words
    the command has no place for (``unplaced``: the words beyond the most
    it takes).  A command that carries a password is quoted back by that
    meaning, not by position: a password is masked wherever it stood; and
    when the command cannot be read, only its name and the words that read
    well as something other than a userid or password are shown, since a
    word in the wrong place may be a password.  A command without a
    password that holds words it has no place for (``password reset alice
    PW``: a password typed by habit) is quoted the same way: its words are
    never named, and only those that read as boards are shown.
    """

    def __init__(self, spec: CommandSpec, game: str | None, head: Sequence[str], words: Sequence[str]) -> None:
        self.spec = spec
        self.game = game
        self.head = tuple(head)  # the game type and the command's name, as typed
        self.label = " ".join(w.lower() for w in head)  # "trax move"
        self.words = tuple(words)
        self.secrets: set[int] = set()
        self.userids: set[int] = set()
        self.safe: set[int] = set()
        self.unplaced: set[int] = set()  # words the command has no place for (a password typed by habit?)
        self.unread: set[int] = set()  # words in a move's place that read as no move (see keep_unread)

    def __len__(self) -> int:
        return len(self.words)

    def _note(self, index: int, value: object) -> None:
        if isinstance(value, Secret):
            self.secrets.add(index)
        elif isinstance(value, UserId):
            self.userids.add(index)
        else:
            self.safe.add(index)

    def redacted(self) -> str:
        """The command once read: every password masked (where the reader
        found one, and where the usage line has one)."""
        hidden = self.secrets | self.unread | (set(self.spec.secret_positions) - self.safe - self.userids)
        return " ".join([*self.head, *(MASK if i in hidden else w for i, w in enumerate(self.words))])

    @property
    def text(self) -> str:
        """The command as an error quotes it: for a command with a password,
        the words that read well as neither userid nor password, the rest
        masked; for a command without one that holds words it has no place
        for (``password reset alice PW``), the same, and the words that name
        boards (its userid and password may stand in any order); any other
        command as typed."""
        if not self.spec.takes_password and not self.unplaced:
            return " ".join([*self.head, *self.words])
        shown = self.safe if self.spec.takes_password else self.safe | {
            i for i, w in enumerate(self.words) if i not in self.unplaced and is_board_number(w)}
        return " ".join([*self.head, *(w if i in shown else MASK for i, w in enumerate(self.words))])

    # --- failing ------------------------------------------------------------------

    def fail(self, code: str, params: dict[str, Any] | None = None) -> NoReturn:
        """Refuse the command: ``code`` and ``params`` say why (see
        :mod:`.refusals`)."""
        raise CommandError(
            code,
            {key: self._scrub(value) for key, value in (params or {}).items()},
            usage=self.spec.usage(self.game),
            text=self.text,
            name=self.spec.name,
            game=self.game,
        )

    def _scrub(self, value: Any) -> Any:
        """The last line of defence: a word standing where a password stands,
        or read as one, never appears in a param (nor in a refusal a param
        holds, nor in a tuple), even if some refusal tried to quote it."""
        places = set(self.spec.secret_positions) - self.safe - self.userids
        return scrub(value, [self.words[i] for i in sorted(self.secrets | self.unread | places) if i < len(self.words)])

    def beyond(self, start: int, end: int | None = None) -> None:
        """Words ``start`` .. ``end`` (default: the end) have no place in the
        command: they are masked when it is quoted, and never named."""
        self.unplaced.update(range(start, len(self.words) if end is None else end))

    def may_quote(self) -> bool:
        """A word is quoted back only in a command that carries no password:
        in one that does, a word in the wrong place may be the password."""
        return not self.spec.takes_password

    # --- counting -------------------------------------------------------------------

    def expect(self, minimum: int, maximum: int | None = None) -> None:
        """Fail unless there are ``minimum`` to ``maximum`` words (None: no limit)."""
        n = len(self.words)
        if n < minimum:
            self.fail("too-few-words", {"label": self.label, "least": minimum, "exactly": maximum == minimum,
                                        "given": n})
        if maximum is not None and n > maximum:
            # the words beyond are not quoted, in any command: a userid and password typed by habit
            self.beyond(maximum)
            if maximum == 0:
                self.fail("no-words-wanted", {"label": self.label, "given": n})
            self.fail("too-many-words", {"label": self.label, "most": maximum, "exactly": maximum == minimum,
                                         "given": n})

    # --- one word by role -----------------------------------------------------------

    def read(self, index: int, role: str, reader: Callable[[str], T], *, quote: bool | None = None) -> T:
        """Read word ``index`` with ``reader``; on a problem, fail naming the
        word (when it may be quoted) or its ``role`` (one of
        :data:`~pbm.grammar.refusals.NOUNS`)."""
        word = self.words[index]
        try:
            value = reader(word)
        except Problem as problem:
            if quote is None or not self.may_quote():
                quote = self.may_quote()
            if index in self.spec.secret_positions:
                quote = False
            self._fail_word(word, role, problem, quote)
        self._note(index, value)
        return value

    def read_each(
        self,
        start: int,
        role: str,
        reader: Callable[[str], T],
        *,
        quote: bool | None = None,
        stop: int | None = None,
        unique: bool = True,
        skip: Collection[int] = (),
    ) -> tuple[T, ...]:
        """Read words ``start`` .. ``stop`` (default: the end) each with
        ``reader``, but those at the indexes in ``skip`` (read as something
        else); with ``unique``, repeats are dropped (the first stays)."""
        out: list[T] = []
        end = len(self.words) if stop is None else stop
        places = [i for i in range(start, end) if i not in skip]
        for nth, i in enumerate(places, 1):
            try:
                value = reader(self.words[i])
            except Problem as problem:
                may = self.may_quote() and quote is not False and i not in self.spec.secret_positions
                self._fail_word(self.words[i], role, problem, may, nth)
            self._note(i, value)
            if not unique or value not in out:
                out.append(value)
        return tuple(out)

    def _fail_word(self, word: str, role: str, problem: Problem, quote: bool, nth: int | None = None) -> NoReturn:
        """Fail for a word ``reader`` refused: quoting it, or naming it by its
        role (``nth`` counts it among several: "the 2nd recipient")."""
        refused = word_refusal(word, role, problem, quote=quote, nth=nth)
        self.fail(refused.code, refused.params)

    def keep_unread(self, index: int, role: str, reader: Callable[[str], T], *,
                    nth: int | None = None) -> T | UnreadMove:
        """Read word ``index`` (a move) with ``reader``; in a command that
        carries a password, a word that reads as no move is not refused
        here but kept as an :class:`UnreadMove`, masked in the command's
        text, for the handler to refuse once its sender logged in (before,
        naming it might show a password typed in the move's place).  In a
        command without a password, it fails naming the word, as
        :meth:`read` does."""
        if not self.spec.takes_password:
            return self.read(index, role, reader, quote=True)
        word = self.words[index]
        try:
            value = reader(word)
        except Problem as problem:
            self.unread.add(index)
            return UnreadMove(word, problem, role=role, nth=nth, index=index)
        self._note(index, value)
        return value

    def keyword(self, index: int) -> str:
        """Word ``index`` in lower case, to compare with a keyword of the
        command (see :meth:`accept`)."""
        return self.words[index].lower()

    def accept(self, index: int) -> str:
        """Word ``index`` is a keyword of the command (``all``, ``off``, a
        result ...): it may be quoted back.  Returns it in lower case."""
        self.safe.add(index)
        return self.keyword(index)

    # --- options --------------------------------------------------------------------

    def options(self, start: int, after: str) -> dict[str, Any]:
        """Read the spec's options from word ``start`` on; every word there
        must be one.  ``after`` names what the options follow (one of
        :data:`~pbm.grammar.refusals.AFTER`).
        Returns field -> value for the options given (flags -> True); the
        values' types differ by field, as the arguments' dataclass declares."""
        known = {o.name: o for o in self.spec.options}
        found: dict[str, Any] = {}
        for i in range(start, len(self.words)):
            word = self.words[i]
            match = _OPTION.fullmatch(word)
            if not match:
                if self.may_quote():
                    self.fail("not-an-option", {"word": shorten(word), "after": after})
                self.fail("nth-not-an-option", {"nth": i + 1, "label": self.label, "after": after})
            name, value = match.group(1).lower(), match.group(2)
            self.safe.add(i)  # options begin with "-", which no userid or password does
            option = known.get(name)
            if option is None:
                hint = difflib.get_close_matches(name, list(known), n=1, cutoff=0.7)
                self.fail("unknown-option", {"word": shorten(word), "label": self.label,
                                             "guess": str(known[hint[0]]) if hint else None,
                                             "options": tuple(str(o) for o in self.spec.options)})
            if option.field in found:
                self.fail("option-twice", {"option": str(option)})
            if option.read is None:
                if value is not None:
                    self.fail("option-no-value", {"name": option.name})
                found[option.field] = True
                continue
            if not value:
                self.fail("option-needs-value", {"word": shorten(word), "option": str(option)})
            try:
                found[option.field] = option.read(value)
            except Problem as problem:
                self.fail("option-value", {"word": shorten(word), "problem": problem})
        return found

    def positionals_before_options(self, roles: Sequence[str], after: str) -> None:
        """Fail if one of the first words, which must be the ``roles``, begins
        with ``-`` (the player left a word out before the options)."""
        for i, role in enumerate(roles):
            if i < len(self.words) and self.words[i].startswith("-"):
                self.fail("role-missing", {"role": role, "after": after})
