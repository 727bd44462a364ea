"""A whole mail -> its commands, and the body as a comment to relay."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from pbm.secret import MASK

from .command import Command, passwords_of
from .parse import looks_like_command, parse_command, placed
from .registry import GAMES
from .spec import CommandError, shorten
from .subject import clean_line, decode_subject
from .words import Problem, WordProblem, WrittenMove, read_board, read_move

MAX_COMMANDS = 100
MAX_COMMENT_LENGTH = 4000
SHORTENED = " [...]"

_SIGNATURE = re.compile(r"--\s*")
_ORIGINAL = re.compile(
    r"\s*(?:-{3,}\s*(?:original message|ursprüngliche nachricht|message d'origine|mensaje original)\s*-{3,}"
    r"|_{10,}|-{5,}\s*forwarded message\s*-{5,})\s*",
    re.IGNORECASE,
)
_ATTRIBUTION = re.compile(
    r".*(?:wrote|writes|schrieb|a écrit|escribió|ha escrito|skrev|scrisse|schreef|napisał|kirjoitti)\s*:\s*$"
    r"|^\s*(?:on|am|le|el|den|op|il)\s.*:\s*$",
    re.IGNORECASE,
)
_ATTRIBUTION_START = re.compile(r"\s*(?:on|am|le|el|den|op|il)\s", re.IGNORECASE)
# The subjects of our own board mails ("Re: Trax Board 123 bob" is a reply, not a command).
_BOARD_MAIL = re.compile(
    rf"(?:new |nag: )?(?:{'|'.join(GAMES)}) (?:board \d+(?: \S+)?(?: \*\*)?|error)", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class MailCommands(Sequence[Command | CommandError]):
    """The commands of one mail, in order: each a :class:`Command`, or the
    :class:`CommandError` its line gave.  A sequence, so ``for item in ...``
    and ``len()`` work.

    ``source`` says where they came from: ``"subject"`` (the subject was the
    command; the body is its ``comment``), ``"multiple"`` (subject
    ``multiple``: one command a body line), ``"body"`` (the subject was no
    command but the body began with commands; the text after them is the
    ``comment``) or ``"none"`` (no command anywhere; no items).
    """

    items: tuple[Command | CommandError, ...] = ()
    source: str = "none"
    comment: str = ""

    @overload
    def __getitem__(self, index: int) -> Command | CommandError: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Command | CommandError, ...]: ...
    def __getitem__(self, index: int | slice) -> Command | CommandError | tuple[Command | CommandError, ...]:
        return self.items[index]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Command | CommandError]:
        return iter(self.items)

    @property
    def commands(self) -> tuple[Command, ...]:
        return tuple(i for i in self.items if isinstance(i, Command))

    @property
    def errors(self) -> tuple[CommandError, ...]:
        return tuple(i for i in self.items if isinstance(i, CommandError))


def _is_quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


def _is_signature(line: str) -> bool:
    return bool(_SIGNATURE.fullmatch(line))


def _body_lines(body: str) -> list[str]:
    """The body's lines, ending before the signature (``-- ``) or a quoted
    original ("-----Original Message-----"), line breaks normalised."""
    lines = body.splitlines()
    for i, line in enumerate(lines):
        if _is_signature(line) or _ORIGINAL.fullmatch(line):
            return lines[:i]
    return lines


def _attribution_lines(lines: list[str], quote_at: int) -> int:
    """How many lines before ``quote_at`` (a quoted line) are the "On ...
    wrote:" line introducing it (0, 1 or 2 for one wrapped over two lines);
    blank lines in between count too."""
    i = quote_at
    while i > 0 and not lines[i - 1].strip():
        i -= 1
    if i == 0 or not _ATTRIBUTION.match(lines[i - 1]):
        return 0
    i -= 1
    if i > 0 and not _ATTRIBUTION_START.match(lines[i]) and _ATTRIBUTION_START.match(lines[i - 1]):
        i -= 1
    return quote_at - i


def comment_text(body: str, *, max_length: int = MAX_COMMENT_LENGTH) -> str:
    """The body as a comment to relay: up to the signature (a ``-- `` line)
    or the first quoted block (``>`` lines, with the "On ... wrote:" line
    before it), trailing blanks and blank lines at both ends removed, control
    characters dropped, NFC-normalised; at most ``max_length`` characters (a shortened
    comment ends with `` [...]``)."""
    lines = _body_lines(body)
    for i, line in enumerate(lines):
        if _is_quoted(line):
            lines = lines[: i - _attribution_lines(lines, i)]
            break
    kept = [
        "".join(ch for ch in unicodedata.normalize("NFC", line) if ch.isprintable() or ch == "\t").rstrip()
        for line in lines
    ]
    text = "\n".join(kept).strip("\n")
    if len(text) > max_length:
        if max_length <= len(SHORTENED):
            return text[:max_length].rstrip()
        text = text[: max_length - len(SHORTENED)].rstrip() + SHORTENED
    return text


def _command_lines(body: str) -> list[tuple[int, str]]:
    """The body's lines that can hold commands, with their line numbers:
    up to the signature, without blank lines, quoted lines, and the "On ...
    wrote:" lines introducing quotes."""
    lines = _body_lines(body)
    skip: set[int] = set()
    for i, line in enumerate(lines):
        if _is_quoted(line):
            skip.add(i)
            skip.update(range(i - _attribution_lines(lines, i), i))
    return [(i, clean_line(line)) for i, line in enumerate(lines) if i not in skip and line.strip()]


def _parse_lines(lines: Sequence[str], max_commands: int) -> list[Command | CommandError]:
    items: list[Command | CommandError] = []
    for line in lines[:max_commands]:
        try:
            items.append(parse_command(line))
        except CommandError as error:
            items.append(error)
    if len(lines) > max_commands:
        extra = len(lines) - max_commands
        items.append(CommandError("too-many-lines", {"lines": len(lines), "most": max_commands, "extra": extra}))
    return items


def _is_command(line: str) -> bool:
    """A line after the first in a body read as commands: a command, or
    meant as one (it begins with a game type); otherwise the comment begins."""
    if line.split(" ", 1)[0].lower() in GAMES:
        return True
    try:
        parse_command(line)
    except CommandError:
        return False
    return True


def is_board_mail_subject(subject: str) -> bool:
    """Is this (decoded) subject one of our board mails' (``Trax Board 123 bob``)?"""
    return bool(_BOARD_MAIL.fullmatch(subject))


def parse_mail_commands(
    subject: str,
    body: str,
    *,
    max_commands: int = MAX_COMMANDS,
    max_comment_length: int = MAX_COMMENT_LENGTH,
) -> MailCommands:
    """The commands of a mail, from its raw Subject header and its text body.

    - Subject ``multiple``: every body line is a command (blank and quoted
      lines skipped, up to the signature).
    - A subject that is a command: that command; the body is its comment.
    - Otherwise, if the body's first line is (meant as) a command: the body
      is read as commands up to the first line that is no command, and the
      rest is the comment (for mail from phones and web forms).
    - Otherwise a subject meant as a command gives its error (and, as the
      command failed, no comment); anything else gives no commands
      (``source == "none"``).

    At most ``max_commands`` lines are read; an error item at the end
    reports the rest.  Never raises for any text.
    """
    line = decode_subject(subject)
    body = body if isinstance(body, str) else ""
    if line.lower() == "multiple":
        lines = [text for _, text in _command_lines(body)]
        if not lines:
            error = CommandError("multiple-empty")
            return MailCommands((error,), "multiple")
        return MailCommands(tuple(_parse_lines(lines, max_commands)), "multiple")
    try:
        command = parse_command(line)
    except CommandError as error:
        subject_error = error
    else:
        comment = _mask_passwords(comment_text(body, max_length=max_comment_length), [command])
        return MailCommands((command,), "subject", comment)

    numbered = _command_lines(body)
    if numbered and numbered[0][1].lower() == "multiple":
        numbered = numbered[1:]
    if numbered and looks_like_command(numbered[0][1]):
        lines = [numbered[0][1]]
        comment_from = None
        for number, text in numbered[1:]:
            if not _is_command(text):
                comment_from = number
                break
            lines.append(text)
        items = tuple(_parse_lines(lines, max_commands))
        comment = ""
        if comment_from is not None:
            rest = _body_lines(body)[comment_from:]
            comment = _mask_passwords(comment_text("\n".join(rest), max_length=max_comment_length), items)
        return MailCommands(items, "body", comment)

    if line and looks_like_command(line) and not is_board_mail_subject(line):
        return MailCommands((subject_error,), "subject")  # a failed command relays nothing
    return MailCommands()


def _mask_passwords(comment: str, items: Sequence[Command | CommandError]) -> str:
    """The comment with the commands' passwords masked in the lines that
    look like commands (people paste the command into the body too, and the
    comment goes to the opponent).  Prose is left alone: a masked word there
    would tell the reader which word the password is."""
    secrets = [
        re.escape(p.reveal()) for item in items if isinstance(item, Command) for p in passwords_of(item.args)
    ]
    if not secrets:
        return comment
    pattern = re.compile(rf"(?<!\S)(?:{'|'.join(secrets)})(?!\S)")
    return "\n".join(
        pattern.sub(MASK, line) if looks_like_command(line) else line for line in comment.split("\n")
    )


# ----------------------------------------------------------------------------
# replies to board mails

#: What a reply's first line may hold instead of a tile, and the move word
#: each stands for (``show`` asks for the board).
REPLY_WORDS = {"resign": "resign", "draw": "propose", "propose": "propose", "accept": "accept",
               "reject": "reject", "undo": "undo", "show": "show"}

#: The words a reply may hold instead of a move, as the mails name them
#: (``propose`` is read too, but ``draw`` is the reply's word for it).
REPLY_WORDS_NAMED = ("resign", "draw", "accept", "reject", "undo", "show")

#: What may stand around a move written in a sentence ("(B0/)", "B0/!").
_AROUND = "\"'([{<>}]),.;:!?"


@dataclass(frozen=True, slots=True)
class ReplyLine:
    """One line of a reply: the board it names (a digest's lines begin with
    one; None for a reply to a board mail), and the move or ``show``."""

    text: str  # the line as it may be quoted back (it holds no password)
    board: int | str | None
    move: WrittenMove | None  # None: show


@dataclass(frozen=True, slots=True)
class LooseLine:
    """The first line of a reply to a board mail that is not a move but
    names tiles in its words ("Nice one! I will play B0/ now"): which of
    ``moves`` it means, if any, only the board can tell (the one of them
    that is legal there), which is not the grammar's business.  ``text``
    is the line as it may be quoted back: its moves, the other words
    masked (they may be a login typed by habit, ``alice PASSWORD C3/``)."""

    text: str
    board: int | str | None
    moves: tuple[WrittenMove, ...]


@dataclass(frozen=True, slots=True)
class ReplyBody:
    """A reply read: its lines (each a :class:`ReplyLine`, a
    :class:`LooseLine` whose move the board decides, or the
    :class:`CommandError` of a line that is neither) and the comment."""

    lines: tuple[ReplyLine | LooseLine | CommandError, ...]
    comment: str


def _reads_as_move(word: str, *, cells: bool) -> bool:
    try:
        read_move(REPLY_WORDS.get(word.lower(), word), cells=cells)
    except Problem:
        return False
    return True


def _masked_line(words: Sequence[str], *, cells: bool) -> str:
    """A reply line as it may be quoted back: the words that read as a
    board, a move or a word of the language; the rest masked (a userid and
    password typed by habit, ``101 bob PASSWORD A0+``)."""
    return " ".join(
        shorten(w) if placed(w) or _reads_as_move(w, cells=cells) else MASK for w in words
    )


def _tiles_in(words: Sequence[str], *, cells: bool) -> tuple[WrittenMove, ...]:
    """The words of a sentence that read as tiles (or, with ``cells``, as
    cells), stripped of the punctuation around them; each once."""
    found: list[WrittenMove] = []
    for word in words:
        try:
            move = read_move(word.strip(_AROUND), words=False, cells=cells)
        except Problem:
            continue
        if move not in found:
            found.append(move)
    return tuple(found)


def _loose(error: CommandError, words: Sequence[str], board: int | str | None, *, digest: bool,
           cells: bool) -> LooseLine | CommandError:
    """A board mail's reply line whose first word is no move: a
    :class:`LooseLine` when later words name tiles, else ``error``."""
    moves = () if digest else _tiles_in(words[1:], cells=cells)
    if not moves:
        return error
    return LooseLine(_masked_line(words, cells=cells), board, moves)


def _reply_line(line: str, *, digest: bool, cells: bool) -> ReplyLine | LooseLine | CommandError:
    """One line of a reply read as a move.  A word that could be a
    password is never quoted: a digest's line of more than a board and a
    move is quoted with only its boards and moves; a line whose first word
    is no move but a later one is (``alice PASSWORD C3/``) names the first
    by its place.  Words after the move are no part of it (see
    :func:`parse_reply`)."""
    words = [w for w in line.split(" ") if not (len(w) >= 2 and w.strip("*") == "")]
    board: int | str | None = None
    if digest:
        if len(words) != 2:
            return CommandError("digest-line", text=_masked_line(words, cells=cells) if words else None)
        try:
            board = read_board(words[0])
        except Problem as problem:
            named = shorten(words[0]) if placed(words[0]) else None  # None: "the first word"
            text = _masked_line(words, cells=cells)
            return CommandError("reply-no-board", {"word": named, "problem": problem}, text=text)
        words = words[1:]
    if not words:
        return CommandError("reply-no-move", text=None)
    word = words[0]
    shown = " ".join(shorten(w) for w in ([str(board)] if board is not None else []) + [word])
    meaning = REPLY_WORDS.get(word.lower().partition("#")[0])
    if meaning == "show":
        return ReplyLine(shown, board, None)
    try:
        move = read_move(meaning + word[len(word.partition("#")[0]):] if meaning else word, cells=cells)
    except Problem as problem:
        if isinstance(problem, WordProblem):  # the words a reply takes instead, as the mails name them
            problem = WordProblem(problem.code, {**problem.params, "words": REPLY_WORDS_NAMED})
        if any(_reads_as_move(w, cells=cells) for w in words[1:]) and not placed(word):
            # "alice PASSWORD C3/": the words before the move are a login typed by habit
            head = [str(board)] if board is not None else []
            error = CommandError("reply-login-first", {"digest": digest},
                                 text=_masked_line([*head, *words], cells=cells))
        else:
            error = CommandError("reply-not-a-move", {"word": shorten(word), "problem": problem}, text=shown)
        return _loose(error, words, board, digest=digest, cells=cells)
    return ReplyLine(shown, board, move)


def shorten_line(line: str, most: int = 40) -> str:
    return line if len(line) <= most else line[: most - 3] + "..."


def parse_reply(body: str, *, digest: bool = False, cells: bool = False,
                max_lines: int = MAX_COMMANDS, max_comment_length: int = MAX_COMMENT_LENGTH) -> ReplyBody:
    """A reply to a board mail (or, with ``digest``, to a digest): the first
    line the player wrote above the quoted mail is the move (a digest's
    reply has a line ``BOARD MOVE`` for each board, as many as come first);
    the lines after it, quotes and signature cut, are the comment.  Words
    after the move on its own line are ignored (``C3/ alice PASSWORD``: a
    login typed by habit is never relayed).  A first line that begins with
    other words but names tiles ("I will play B0/ now") is a
    :class:`LooseLine`: the board decides which, if any, it means.  With
    ``cells`` a cell alone (LuckyTrax) is a move.  Never raises."""
    body = body if isinstance(body, str) else ""
    lines = _command_lines(body)
    if not lines:
        return ReplyBody((CommandError("reply-empty"),), "")
    read: list[ReplyLine | LooseLine | CommandError] = []
    last = lines[0][0]
    for number, line in lines[:max_lines]:
        item = _reply_line(line, digest=digest, cells=cells)
        if read and isinstance(item, CommandError):
            break  # a digest's moves end at the first line that is none
        read.append(item)
        last = number
        if not digest:
            break
    # Words after the move on its line are ignored: neither played, nor quoted, nor relayed (they
    # are most often the userid and password of the old commands, "C3/ alice PASSWORD").
    comment = comment_text("\n".join(_body_lines(body)[last + 1:]), max_length=max_comment_length)
    return ReplyBody(tuple(read), comment)
