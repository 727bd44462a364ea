"""Replies composed: Jinja2 templates to text, text to mail.

Every word the server mails is in the templates (``templates/`` at the top
of the repository, shipped in the wheel as the package data
``pbm.templates`` and read through :mod:`importlib.resources`, so an
installed server finds them wherever it runs).  A template renders to a
first line ``Subject: ...``, a blank line, and the body::

    Subject: Trax Board {{ board.number }} {{ board.to_move }}

    It is {{ board.to_move }}'s turn.

A refusal of any layer carries a code and params, never a sentence:
:meth:`Renderer.words` words it from ``templates/errors/reasons/`` (one macro
per code), the one place that does, and the error templates show those words
as ``message``.

Templates are named by audience and case: ``replies/board.txt``,
``errors/not-your-turn.txt``, ``help/commands/move.txt``.  Undefined values
are errors (``StrictUndefined``), so a template mistake aborts the whole
transaction instead of mailing a half-filled reply.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, fields
from datetime import datetime
from email.utils import format_datetime
from functools import partial
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any, Protocol

from jinja2 import Environment, FunctionLoader, StrictUndefined, pass_context
from jinja2.runtime import Context, Macro

from pbm.config import ComputerConfig, Config
from pbm.grammar import REGISTRY, usage
from pbm.languages import DEFAULT
from pbm.trax import VARIANTS, Board, TraxError
from pbm.trax.picture import board_png
from pbm.trax.picture import picture_size as picture_pixels
from pbm.trax.render import DiagramWords, tile_diagram
from pbm.trax.render import render as render_board

from .catalogs import moment, number, translations
from .messages import Attachment, Content, Head, Outgoing, content_bytes, copy_bytes
from .request import CodeFor, Combined, Reply, TokenFor
from .widths import NO_END, NO_START, asian, columns, cut, index_at, joins_tight, pieces

#: A Message-ID that a reply may name in In-Reply-To and References:
#: printable ASCII with one "@" and no blank, quote or angle bracket inside.
MESSAGE_ID = re.compile(r"<[!#-;=?A-~]+@[!#-;=?A-~]+>")

#: The templates, wherever the package is installed.
TEMPLATES: Traversable = files("pbm").joinpath("templates")

#: The folder of the words of refusals: one macro per code, in files by layer.
REASONS = "errors/reasons"


class Refusal(Protocol):
    """What is worded from ``templates/errors/reasons/``: a refusal of any
    layer (``TraxError``, ``Problem``, ``CommandError``, ``PbmError``),
    its ``code`` naming the macro (``not-your-turn``: ``not_your_turn``)
    and its ``params`` the macro's arguments."""

    @property
    def code(self) -> str: ...

    @property
    def params(self) -> Any: ...


#: How many board pictures a composer keeps (one per board state; a turn's
#: board mail, the show that follows it and the error a late move gets all
#: draw the same state).
PICTURE_CACHE = 64


@dataclass(frozen=True)
class Picture:
    """A board picture ready to attach: the PNG, its Content-ID (without the
    angle brackets), its alt text and size, and its base64 lines."""

    cid: str
    png: bytes
    alt: str
    width: int  # as the HTML part shows it, in CSS pixels (the PNG has more)
    height: int
    base64: str
    marked: bool = False  # the last turn is outlined
    forced: bool = False  # ... and it forced tiles
    won: bool = False  # a winning loop or line is highlighted
    drawn: bool = False  # the LuckyTrax tile drawn is shown under the board, its places ringed


#: The pictures of mail are drawn this many times larger than the look's
#: sizes, and the HTML part shows them at the look's sizes: sharp on the
#: screens of phones, which have two or three device pixels a CSS pixel.
MAIL_ZOOM = 2
#: The HTML part shows a board's picture at most this many CSS pixels
#: tall (smaller than its size if need be: ten rows of cells), so that on
#: a phone the next step stands on the first screen under it, even under
#: an error's words.
PICTURE_MAX_HEIGHT = 360


@dataclass(frozen=True)
class Card:
    """A board as the HTML part shows it: its picture (a board past the
    mail's share of pictures keeps its text), and from the template's
    context where the board was shown, the board's view, its status and
    next step in words (the text part's own, from ``partials/status.txt`` and ``partials/next-step.txt``:
    the next step's first paragraph as ``step``, the others as ``more``, its
    command line apart) and the rest of that context (the mover's comment,
    the web address)."""

    picture: Picture
    view: dict[str, Any]
    status: str
    step: str
    more: str
    command: str | None
    context: dict[str, Any]


@dataclass(frozen=True)
class Block:
    """A stretch of a reply's text as the HTML part shows it: ``lead``, the
    first paragraph of a mail (what happened); ``para``, a paragraph;
    ``facts``, lines of ``Label:   value`` (label and value in ``rows``);
    ``command``, a command line to copy; ``table``, the columns of a text
    table (its heading the first of ``rows``); ``pre``, lines kept as they
    are (diagrams), wrapped on a narrow screen; ``heading``, ``note``
    (indented prose) and ``rule``."""

    kind: str
    text: str = ""
    rows: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class Text:
    """A rendered reply: its subject and text body, and for the HTML part the
    body again in ``pieces`` (text, or the card that shows a board, or the
    picture that stands there)."""

    subject: str
    body: str
    pieces: tuple[str | Card | Picture, ...] = ()

    @property
    def pictures(self) -> tuple[Picture, ...]:
        found = (p.picture if isinstance(p, Card) else p for p in self.pieces)
        return tuple(p for p in found if isinstance(p, Picture))


#: The widest line a reply may have (RFC 5322 recommends 78).
WIDTH = 78


def fill(words: list[str], width: int, first: str = "", rest: str = "") -> list[str]:
    """``words`` laid out greedily in lines of at most ``width`` columns,
    the first line after ``first``, the others after ``rest``; a word too
    long for a whole line is cut to fill the line it starts on (as
    textwrap does, without its regular expressions: replies fold many
    lines).  Columns as a terminal shows them (:mod:`pbm.app.widths`):
    Japanese takes two a character and breaks between characters too,
    following its rules of line breaking."""
    if "".join([first, rest, *words]).isascii():
        return _fill(words, width, first, rest)
    return _fill_wide(words, width, first, rest)


def _fill(words: list[str], width: int, first: str, rest: str) -> list[str]:
    """:func:`fill` for ASCII, where a character is a column (the fast
    path: most replies are all ASCII)."""
    lines: list[str] = []
    line, indent, empty = first, first, True
    for word in words:
        while True:
            gap = 0 if empty else 1
            if len(line) + gap + len(word) <= width:
                line = line + " " + word if gap else line + word
                empty = False
                break
            if len(word) > width - len(indent):  # fits on no line: fill this one with its start
                room = width - len(line) - gap
                if room > 0:
                    line = line + " " * gap + word[:room]
                    word = word[room:]
            lines.append(line)
            line, indent, empty = rest, rest, True
    lines.append(line)
    return lines


def _units(words: list[str]) -> list[tuple[str, bool, int, int]]:
    """The pieces a line of ``words`` may break between, each with whether a
    blank goes before it on the same line (the first of each word's pieces),
    its columns, and for the first of a phrase the phrase's columns (else 0).

    A word beginning with Japanese punctuation no line may begin with (a
    lone "。") stays with the word before it, as does one after a word that
    ends with an opening bracket (a lone "「").  A phrase is two or more
    pieces with blanks between them and no East Asian character next to
    those blanks: in Japanese, a command or a name of several words
    (``trax move 101 bob PASSWORD B2/``), which goes whole to the next line
    when it fits there."""
    units: list[tuple[str, bool]] = []
    for word in words:
        parts = pieces(word)
        after, before = parts[0][0], units[-1][0][-1] if units else ""
        if units and ((after in NO_START and asian(after)) or (before in NO_END and asian(before))):
            units[-1] = (units[-1][0] + " " + parts[0], units[-1][1])
        else:
            units.append((parts[0], True))
        units.extend((part, False) for part in parts[1:])
    out: list[tuple[str, bool, int, int]] = []
    span, joined = 0, False  # the columns from this piece to its phrase's end; the next in it?
    for i in range(len(units) - 1, -1, -1):
        text, blank = units[i]
        size = columns(text)
        span = size + (1 + span if joined else 0)
        tight = blank and i > 0 and not asian(text[0]) and not asian(units[i - 1][0][-1])
        out.append((text, blank, size, span if joined and not tight else 0))
        joined = tight
    out.reverse()
    return out


def _fill_wide(words: list[str], width: int, first: str, rest: str) -> list[str]:
    """:func:`fill` for text that is not all ASCII: measured in columns,
    broken between the pieces of :func:`pbm.app.widths.pieces` too."""
    lines: list[str] = []
    line, used, empty = first, columns(first), True
    start, indent = used, columns(rest)  # the columns of this line's indent, of the next lines'
    for text, blank, size, phrase in _units(words):
        if phrase and not empty and used + 1 + phrase > width and phrase <= width - indent:
            lines.append(line)  # the phrase goes whole to the next line
            line, used, empty = rest, indent, True
            start = used
        while True:
            gap = 1 if blank and not empty else 0
            if used + gap + size <= width:
                line = line + " " + text if gap else line + text
                used, empty = used + gap + size, False
                break
            if size > width - start:  # fits on no line: fill this one with its start
                head, tail = cut(text, width - used - gap)
                if not head and empty:  # not even its first character fits: it goes anyway
                    head, tail = text[:1], text[1:]
                if head:
                    line = line + " " * gap + head
                    text, size = tail, columns(tail)
                    if not text:
                        empty = False
                        break
            lines.append(line)
            line, used, empty = rest, indent, True
            start = used
    lines.append(line)
    return lines


#: The blanks a line is cut at into words: ASCII's (a no-break space and
#: the ideographic space belong to the text, and stay).
_BLANKS = re.compile(r"[ \t\n\r\f\v]+")


def _words(text: str) -> list[str]:
    """``text``'s words, cut at ASCII blanks."""
    return [word for word in _BLANKS.split(text) if word]


def wrap(text: str, width: int = WIDTH, hang: int = 0) -> str:
    """Each line of ``text`` folded at blanks to at most ``width`` columns;
    a continuation keeps the line's own indent plus ``hang`` blanks, under
    the text after a label padded to the hang (``"Ending:    when ..."``,
    whose blanks are kept).  A word longer than a whole line (an address, a
    URL) is cut where it must be.  Japanese is folded between characters
    too, in columns (see :func:`fill`)."""
    text = str(text)
    # all ASCII (most replies): a character is a column, words are cut at any blank
    measure, fold, words = (len, _fill, str.split) if text.isascii() else (columns, _fill_wide, _words)
    out: list[str] = []
    for line in text.split("\n"):
        if measure(line) <= width:
            out.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip(" "))]
        at = index_at(line, len(indent) + hang) if hang else None  # where the label ends
        if at and line[at - 1] == " " and line[at: at + 1] not in ("", " "):  # the label keeps its blanks
            out += fold(words(line[at:]), width, line[:at], indent + " " * hang)
        else:
            out += fold(words(line), width, indent, indent + " " * hang)
    return "\n".join(out)


def _join(lines: list[str]) -> str:
    """A paragraph's lines as one: a blank between them, except between
    two wide characters (Japanese broken across lines has no blank)."""
    joined = lines[0]
    for line in lines[1:]:
        joined += line if joins_tight(joined[-1], line[0]) else " " + line
    return joined


def reflow(text: str, width: int = WIDTH) -> str:
    """Prose made to fit: each paragraph (lines with no indent, up to a
    blank or an indented line) joined and folded again at ``width``; indented
    lines (examples, commands to copy) stay as they are, folded only when
    too long.  Japanese lines join without a blank and fold between
    characters, in columns (see :func:`fill`)."""
    text = str(text)
    wide = not text.isascii()
    out: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if not paragraph:
            return
        if wide:
            joined = _join(paragraph)
            out.extend([joined] if columns(joined) <= width else _fill_wide(_words(joined), width, "", ""))
        else:
            joined = " ".join(paragraph)
            out.extend([joined] if len(joined) <= width else _fill(joined.split(), width, "", ""))
        paragraph.clear()

    for line in text.split("\n"):
        if not line.strip():
            flush()
            out.append("")
        elif line[0] == " ":
            flush()
            out.append(wrap(line, width, hang=2))
        else:
            paragraph.append(line.strip())
    flush()
    return "\n".join(out)


def table(header: Sequence[str], rows: Iterable[Sequence[object]], align: str = "", *, lead: int = 1,
          indent: int = 0, width: int = WIDTH) -> str:
    """Rows of cells in columns as wide as their widest cell, two blanks
    apart (``align``: a ``<`` or ``>`` per column; left when not said),
    counted as a terminal shows them (a Japanese character two columns).

    A table too wide for ``width`` keeps its first ``lead`` columns aligned
    and lets each row run on: a cell that does not fit on the line goes to
    the next one, under the first cell after the lead (the heading names
    those columns in one run, "White / Black / Status")."""
    header = [str(h) for h in header]
    body = [[str(c) for c in row] for row in rows]
    size: Callable[[str], int] = len
    if not ("".join(header) + "".join(map("".join, body))).isascii():
        size = columns
    count = len(header)
    widths = [max([size(header[i]), *(size(r[i]) for r in body)]) for i in range(count)]
    sides = (align + "<" * count)[:count]
    pad = " " * indent

    def cell(i: int, text: str) -> str:
        return text.rjust(widths[i]) if sides[i] == ">" else text.ljust(widths[i])

    if size is columns:
        def cell(i: int, text: str) -> str:  # padded to its columns, not its characters
            room = widths[i] - columns(text) + len(text)
            return text.rjust(room) if sides[i] == ">" else text.ljust(room)

    if indent + sum(widths) + 2 * (count - 1) <= width:
        lines = ["  ".join(cell(i, c) for i, c in enumerate(row)) for row in [list(header), *body]]
        return "\n".join(pad + line.rstrip() for line in lines)
    start = indent + sum(widths[:lead]) + 2 * lead
    out = [pad + "  ".join([*(cell(i, header[i]) for i in range(lead)), " / ".join(header[lead:])])]
    for row in body:
        line = pad + "  ".join(cell(i, row[i]) for i in range(lead))
        for text in row[lead:]:
            if size(line) + 2 + size(text) <= width:
                line = f"{line}  {text}"
            else:  # on the next line, under the run-on columns (or further left if need be)
                out.append(line.rstrip())
                line = " " * min(start, max(width - size(text), 0)) + text
        out.append(line.rstrip())
    return "\n".join(out)


#: A line of facts: a label, a colon and at least two blanks, the value.
_FACT = re.compile(r"([A-Z\u3040-\u30ff\u4e00-\u9fff][^:：]{0,24})(?::  +|： +)(\S.*)")  # Japanese labels too
#: The longest first paragraph shown large, as what happened.
LEAD_CHARS = 200


def _columns(lines: list[str]) -> tuple[tuple[str, ...], ...]:
    """The cells of a text table (lines of three or more columns set two
    blanks apart, as many in each line), or none."""
    cells = tuple(tuple(re.split(r" {2,}", line.strip())) for line in lines)
    if len(cells) < 2 or len(cells[0]) < 3 or any(len(row) != len(cells[0]) for row in cells):
        return ()
    return cells


def blocks(text: str, *, lead: bool = False) -> tuple[Block, ...]:
    """A reply's text as the HTML part shows it (see :class:`Block`): the
    paragraphs the text part folded joined again (a line of capitals alone
    a heading, not one of Japanese), ``Label:   value`` lines (with the lines that continue a
    value under it) as facts, an indented line after a line that ends in a
    colon as a command to copy (the templates bring in what to send so),
    other indented prose as a note, indented lines, tables and diagrams kept
    as they are; a short first paragraph a ``lead`` if asked."""
    out: list[Block] = []

    def add(kind: str, lines: list[str]) -> None:
        nonlocal lead
        joined = _join([line.strip() for line in lines if line.strip()] or [""])
        if kind == "para" and len(lines) == 1 and joined.isupper() and columns(joined) == len(joined):
            out.append(Block("heading", joined))
        elif kind == "para":
            out.append(Block("lead" if lead and len(joined) <= LEAD_CHARS else "para", joined))
        elif kind == "facts":
            rows: list[list[str]] = []
            for line in lines:
                found = _FACT.fullmatch(line)
                if found:
                    rows.append([found[1], found[2]])
                else:
                    rows[-1][1] += " " + line.strip()
            out.append(Block("facts", rows=tuple((label, value) for label, value in rows)))
        elif kind == "command":
            out.extend(Block("command", line.strip()) for line in lines)
        elif kind == "pre" and all(set(line.strip()) <= set("=-") for line in lines):
            out.append(Block("rule"))
        elif kind == "pre" and (cells := _columns(lines)):
            out.append(Block("table", rows=cells))
        elif kind == "pre" and all(re.fullmatch(r" +[\w(\"'].*", line) and "  " not in line.strip()
                                   for line in lines):
            out.append(Block("note", joined))
        else:
            out.append(Block("pre", "\n".join(lines)))
        lead = False

    for chunk in re.split(r"\n[ \t]*\n", text.strip("\n")):
        lines = chunk.rstrip().split("\n")
        if not chunk.strip():
            continue
        kind, before = "", ""
        run: list[str] = []
        for line in lines:
            if _FACT.fullmatch(line) or (kind == "facts" and line.startswith("   ")):
                this = "facts"
            elif (line.startswith("  ") and before.endswith((":", "："))  # a Japanese colon too
                  and ": " not in line and "  " not in line.strip()):
                this = "command"
            elif kind == "para" and ": " in run[0] and len(line) - len(line.lstrip(" ")) == run[0].index(": ") + 2:
                this = "para"  # "The right form: ..." folded under its value
            elif line.startswith(" ") or "  " in line.strip() or set(line.strip()) <= set("=-|+"):
                this = "pre"
            else:
                this = "para"
            if this != kind and run:
                add(kind, run)
                run = []
            kind, before = this, line
            run.append(line)
        add(kind, run)
    return tuple(out)


@dataclass
class _Collector:
    """The boards a reply's templates asked to picture, while it renders
    (each with the LuckyTrax tile drawn, and for a board's view the context
    it was shown in)."""

    nonce: str = field(default_factory=lambda: secrets.token_hex(6))
    boards: list[tuple[Board, int | None]] = field(default_factory=list)
    contexts: list[dict[str, Any] | None] = field(default_factory=list)

    def marker(self, index: int) -> str:
        return f"\x00{self.nonce}:{index}\x00"

    @property
    def end(self) -> str:
        return f"\x00{self.nonce}:end\x00"


_collecting: ContextVar[_Collector | None] = ContextVar("pbm_pictures", default=None)


def _template(name: str) -> Traversable:
    return TEMPLATES.joinpath(*name.split("/"))


class Renderer:
    """Renders the templates (read once each, then kept) in one language:
    their words through that language's catalog (:mod:`.catalogs`;
    Jinja's i18n extension, ``{% trans %}`` and ``_()``)."""

    def __init__(self, language: str = DEFAULT, **globals_: Any) -> None:
        self.language = language
        self.env = self._environment(html=False, language=language)
        self.env.globals.update(usage=usage, registry=REGISTRY, picture=self._picture,
                                picture_end=self._picture_end, table=table, variants=VARIANTS,
                                computer=ComputerConfig(), reason=self.words, **globals_)
        self.env.filters["diagram"] = self._diagram
        self.env.filters["tile_diagram"] = tile_diagram
        self.env.filters["wrap"] = wrap
        self.env.filters["reflow"] = reflow
        self.env.globals["language"] = language
        self.html = self._environment(html=True, language=language)  # the HTML part: every value escaped
        self.html.globals["language"] = language
        self._reasons: dict[str, Macro] | None = None
        self._diagram_words: DiagramWords | None = None

    @classmethod
    def _environment(cls, *, html: bool, language: str) -> Environment:
        env = Environment(
            loader=FunctionLoader(cls._source),
            undefined=StrictUndefined,
            keep_trailing_newline=not html,
            trim_blocks=True,
            lstrip_blocks=True,
            autoescape=html,
            auto_reload=False,  # templates are read once: no look at every include per reply
            # the words through the catalog; the HTML part's lists of facts
            extensions=["jinja2.ext.i18n", *(["jinja2.ext.do"] if html else [])],
        )
        # sentences joined with blanks as their language has them (none in Japanese)
        env.filters["sentences"] = lambda parts: _join([p for p in parts if p] or [""])
        env.install_gettext_translations(translations(language), newstyle=True)  # type: ignore[attr-defined]
        env.filters["when"] = partial(moment, language=language)  # a moment as the language writes it
        env.filters["number"] = partial(number, language=language)  # 2.5, 2,5
        return env

    @staticmethod
    @pass_context
    def _picture(context: Context, board: Board | dict[str, Any]) -> str:
        """``{{ picture(view) }}`` in a template: where the board's picture
        stands in the HTML part (the text part leaves the line out), in
        place of the text up to ``{{ picture_end() }}`` (which must follow);
        for a board's view, the HTML part shows the board there as a card,
        from the context it was shown in."""
        collector = _collecting.get()
        if collector is None:
            return ""
        if isinstance(board, dict):
            collector.boards.append((board["board"], board.get("draw")))
            collector.contexts.append({**context.get_all(), "view": board})
        else:
            collector.boards.append((board, None))
            collector.contexts.append(None)
        return collector.marker(len(collector.boards) - 1)

    @staticmethod
    def _picture_end() -> str:
        """``{{ picture_end() }}``: where the board a ``picture`` began ends
        (the HTML part shows the board as a card up to here; the text part
        leaves the line out)."""
        collector = _collecting.get()
        return "" if collector is None else collector.end

    @contextmanager
    def collecting(self) -> Iterator[_Collector]:
        """Renders inside the block note the boards they picture."""
        collector = _Collector()
        token = _collecting.set(collector)
        try:
            yield collector
        finally:
            _collecting.reset(token)

    def html_page(self, subject: str, pieces: Iterable[str | Card | Picture], *, whole: str | None = None,
                  **context: Any) -> str:
        """The HTML part: the text as paragraphs, facts and boxes
        (:func:`blocks`), each board as a card, the pictures; or with
        ``whole``, that text as it is, in one block."""
        parts: list[dict[str, Any]] = [{"blocks": (Block("pre", whole),)}] if whole is not None else []
        first = True
        for piece in pieces:
            if isinstance(piece, str):
                parts.append({"blocks": blocks(piece, lead=first)})
            elif isinstance(piece, Card):
                parts.append({"card": piece})
            else:
                parts.append({"picture": piece})
            first = False
        return self.html.get_template("html/mail.html").render(subject=subject, parts=parts, **context)

    def card(self, picture: Picture, context: dict[str, Any]) -> Card:
        """The card of a board shown with ``context`` (see :class:`Card`)."""
        status = _join([line.strip() for line in self.partial("partials/status.txt", **context).split("\n")
                        if line.strip()] or [""])
        paragraphs: list[list[str]] = [[]]
        command = None
        for line in self.partial("partials/next-step.txt", **context).strip("\n").split("\n"):
            if line.startswith("  ") and line.strip():
                command = line.strip()
            elif line.strip():
                paragraphs[-1].append(line.strip())
            elif paragraphs[-1]:
                paragraphs.append([])
        step, *more = [_join(p) for p in paragraphs if p] or [""]
        return Card(picture, context["view"], status, step, _join(more) if more else "", command, context)

    @staticmethod
    def _source(name: str) -> str | None:
        path = _template(name)
        return path.read_text(encoding="utf-8") if path.is_file() else None

    @staticmethod
    def exists(name: str) -> bool:
        return _template(name).is_file()

    def partial(self, name: str, **context: Any) -> str:
        """A template with no subject of its own, rendered."""
        return self.env.get_template(name).render(**context)

    @property
    def diagram_words(self) -> DiagramWords:
        """The words of board diagrams, from ``partials/diagram-words.txt``."""
        if self._diagram_words is None:
            module = self.env.get_template("partials/diagram-words.txt").module

            def worded(name: str) -> Callable[..., str]:
                macro = getattr(module, name)
                return lambda *args: str(macro(*args))

            self._diagram_words = DiagramWords(*(worded(f.name) for f in fields(DiagramWords)))
        return self._diagram_words

    def _diagram(self, board: Board, style: str = "auto", highlight_last: bool = False, hint: bool = True) -> str:
        """``{{ board | diagram }}``: the board drawn as text, its words from the templates."""
        return render_board(board, style, highlight_last=highlight_last, hint=hint, words=self.diagram_words)

    def reasons(self) -> dict[str, Macro]:
        """Every code's macro, from every file of ``templates/errors/reasons/``
        (read once); a code worded twice is an error."""
        if self._reasons is None:
            found: dict[str, Macro] = {}
            for path in sorted(TEMPLATES.joinpath(*REASONS.split("/")).iterdir(), key=lambda p: p.name):
                if not path.name.endswith(".txt"):
                    continue
                module = self.env.get_template(f"{REASONS}/{path.name}").module
                for name, macro in vars(module).items():
                    if isinstance(macro, Macro) and not name.startswith("_"):
                        code = name.replace("_", "-")
                        if code in found:
                            raise ValueError(f"the refusal {code} is worded twice in {REASONS}")
                        found[code] = macro
            self._reasons = found
        return self._reasons

    def words(self, refusal: Refusal | str, **changes: Any) -> str:
        """The words of a refusal: the macro of its code called with its
        params (``changes`` put in place of some of them; a code alone is
        worded with ``changes`` for its params).  A code without
        a macro, a param the macro does not take or one it lacks fails
        loudly.  A refusal of the engine met replaying a list of moves
        (``number`` and ``given`` in its params) is worded by ``in-replay``
        around the words of what went wrong."""
        code, given = (refusal, {}) if isinstance(refusal, str) else (refusal.code, refusal.params)
        params = {**given, **changes}
        macro = self.reasons().get(code)
        if macro is None:
            raise KeyError(f"no words for the refusal {code!r} in {REASONS}")
        if isinstance(refusal, TraxError) and "given" in params and "number" in params:
            number, given = params.pop("number"), params.pop("given")
            return str(self.reasons()["in-replay"](number=number, given=given, reason=str(macro(**params))))
        return str(macro(**params))

    def render(self, name: str, **context: Any) -> Text:
        """The template ``name`` rendered with ``context``; a ``refusal``
        in it is worded as its ``message`` (the error replies show it)."""
        refusal = context.get("refusal")
        if refusal is not None:
            context = {**context, "message": self.words(refusal)}
        text = self.env.get_template(name).render(**context)
        first, _, body = text.partition("\n")
        if not first.startswith("Subject:"):
            raise ValueError(f"template {name} must begin with a 'Subject:' line")
        subject = " ".join(first[len("Subject:"):].split())
        body = body.lstrip("\n").rstrip() + "\n"
        return Text(subject, body)


class Composer:
    """Turns replies into mail from the server: each rendered once per
    language its recipients read, then one message per recipient (with the
    board pictures for those who want them)."""

    def __init__(self, config: Config, renderer: Renderer | None = None) -> None:
        self.config = config
        self.renderer = self._dressed(renderer or Renderer())  # English, the templates' own language
        self._renderers = {self.renderer.language: self.renderer}
        self._pictures: OrderedDict[tuple[str, str, int | None, str], Picture] = OrderedDict()
        self._count = 0
        self._room = config.limits.pictures_per_mail  # pictures the mail being composed may still carry

    def _dressed(self, renderer: Renderer) -> Renderer:
        renderer.env.globals["web_url"] = self.config.web.base_url  # board and tournament mails link their pages
        renderer.env.globals["computer"] = self.config.computer  # help computer tells its levels and budgets
        return renderer

    def renderer_for(self, language: str) -> Renderer:
        """The renderer of ``language`` (made at first use, then kept)."""
        found = self._renderers.get(language)
        if found is None:
            found = self._renderers[language] = self._dressed(Renderer(language))
        return found

    @property
    def domain(self) -> str:
        """The domain of our Message-IDs."""
        return self.config.server.address.rpartition("@")[2] or "localhost"

    def message_id(self, now: datetime) -> str:
        """A Message-ID of ours: the moment, a count and a random part, so
        that the ones made later sort later (the outbox's index of them
        grows at its end) and no two are alike."""
        self._count += 1
        return f"<{now:%Y%m%d%H%M%S}.{self._count}.{secrets.token_hex(5)}@{self.domain}>"

    def text(self, reply: Reply, language: str = DEFAULT) -> Text:
        """The reply rendered in ``language``, its body at most ``[limits]
        max_reply_bytes`` long (what is cut is said in a note at the end),
        with the pictures of the boards it shows (when the server draws
        them)."""
        server = self.config.server
        renderer = self.renderer_for(language)
        with renderer.collecting() as collector:
            if isinstance(reply, Combined):
                parts = [renderer.render(p.template, **{"server": server, **p.context}) for p in reply.parts]
                text = renderer.render(reply.template, server=server, parts=parts)
            else:
                text = renderer.render(reply.template, **{"server": server, **reply.context})
        # the templates keep to the width; what a player wrote (a comment of
        # one long line, a long address) is folded here, the last word on it
        text = Text(text.subject, wrap(text.body))
        return self._place_pictures(self._cut(text, renderer), collector, renderer)

    def _place_pictures(self, text: Text, collector: _Collector, renderer: Renderer) -> Text:
        """The text part without the picture markers; the pieces of the HTML
        part (none when the server sends no HTML): the text, with each board
        that has its picture shown as a card in place of its text (or a
        picture alone where a template asked for one)."""
        # a marker stands on a line of its own (the text part drops the line);
        # one made with another nonce is text a player wrote: it stays
        lines = text.body.split("\n")
        markers = {collector.marker(i): i for i in range(len(collector.boards))}
        plain = "\n".join(line for line in lines if line not in markers and line != collector.end)
        if not self.config.server.pictures:
            return Text(text.subject, plain)
        # the pictures and the HTML copy of the text count against the
        # reply's size cap too: boards past it are shown in their text
        budget = self.config.limits.max_reply_bytes - 2 * len(plain.encode("utf-8"))
        pieces: list[str | Card | Picture] = []
        chunk: list[str] = []
        in_card = False
        for line in lines:
            if line == collector.end:
                in_card = False
                continue
            index = markers.get(line)
            if index is None:
                if not in_card:
                    chunk.append(line)
                continue
            if budget < 0 or self._room <= 0:
                continue  # past the size cap, or the mail's share of pictures: the board in text
            picture = self.picture(*collector.boards[index], renderer=renderer)
            budget -= len(picture.base64)
            if budget < 0:
                continue
            self._room -= 1
            if "".join(chunk).strip():
                pieces.append("\n".join(chunk) + "\n")
            chunk = []
            context = collector.contexts[index]
            pieces.append(renderer.card(picture, context) if context is not None else picture)
            in_card = True
        if "".join(chunk).strip():
            pieces.append("\n".join(chunk))
        return Text(text.subject, plain, tuple(pieces))

    def picture(self, board: Board, draw: int | None = None, *, renderer: Renderer | None = None) -> Picture:
        """The picture of ``board`` as it stands (with the LuckyTrax tile
        ``draw`` drawn for the player to move), drawn once per board state
        (its alt text in the language of ``renderer``)."""
        renderer = renderer or self.renderer
        key = (board.variant.name, " ".join(str(m) for m in board.moves), draw, renderer.language)
        found = self._pictures.get(key)
        if found is not None:
            self._pictures.move_to_end(key)
            return found
        png = board_png(board, zoom=MAIL_ZOOM) if draw is None else board_png(board, draw=draw, zoom=MAIL_ZOOM)
        digest = hashlib.sha256(png).hexdigest()[:20]
        last = board.last_turn()
        alt = " ".join(renderer.partial("html/picture-alt.txt", board=board).split())
        width, height = picture_pixels(board, draw=draw)  # CSS pixels: the PNG has MAIL_ZOOM times as many
        if height > PICTURE_MAX_HEIGHT:
            width, height = width * PICTURE_MAX_HEIGHT // height, PICTURE_MAX_HEIGHT
        picture = Picture(
            cid=f"board-{board.ply}-{digest}@{self.domain}", png=png, alt=alt, width=width, height=height,
            base64=base64.encodebytes(png).decode("ascii"), marked=last is not None,
            forced=bool(last and last.forced), won=board.winning_track() is not None, drawn=draw is not None,
        )
        self._pictures[key] = picture
        if len(self._pictures) > PICTURE_CACHE:
            self._pictures.popitem(last=False)
        return picture

    def _cut(self, text: Text, renderer: Renderer) -> Text:
        limit = self.config.limits.max_reply_bytes
        data = text.body.encode("utf-8")
        if len(data) <= limit:
            return text
        note = renderer.partial("partials/cut.txt", size=len(data), limit=limit)
        kept = data[: limit - len(note.encode("utf-8"))].decode("utf-8", "ignore")
        kept = kept[: kept.rfind("\n") + 1] if "\n" in kept else kept
        return Text(text.subject, kept + note)

    def compose(self, replies: list[Reply], key: str, now: datetime,
                without_pictures: Callable[[Iterable[str]], set[str]] | None = None,
                issue_token: Callable[[TokenFor, str], str] | None = None,
                languages: Callable[[Iterable[str]], Mapping[str, str]] | None = None) -> list[Outgoing]:
        """The copies of ``replies`` to the mail ``key`` (a Message-ID they
        answer, when it is one).  ``without_pictures`` names, of a reply's
        recipients, those whose players turned pictures off; ``languages``
        gives the language each recipient reads (by lowercased address;
        English for one not named); ``issue_token``
        makes (and stores) a reply token for a recipient's copy, which then
        carries it in its Message-ID (and Reply-To, with subaddresses); a
        copy that carries a confirmation code has it in its Message-ID
        (``<c-ID-CODE@domain>``).  Tokens and codes stand sealed in the
        messages (:mod:`pbm.domain.seals`)."""
        server = self.config.server
        in_reply_to = key if MESSAGE_ID.fullmatch(key) and "=?" not in key else None
        self._room = self.config.limits.pictures_per_mail
        out = []
        for reply in replies:
            files = []
            if reply.record is not None:  # the game's record: its keywords are the format's, in English
                record = self.renderer.render("replies/record.txt", **{"server": server, **reply.context})
                files.append((reply.record, wrap(record.body)))
            recipients = list(dict.fromkeys(reply.to))
            spoken = languages(recipients) if languages is not None else {}
            plain_only: set[str] | None = None  # asked for only when there is an HTML part
            made: dict[str, tuple[Text, Content, Content | None]] = {}
            wires: dict[tuple[str, bool], bytes] = {}  # each content made into bytes once for every copy
            for recipient in recipients:
                language = spoken.get(recipient.lower(), DEFAULT)
                if language not in made:
                    made[language] = self._contents(reply, language, files)
                text, plain_content, pictured_content = made[language]
                if pictured_content is not None and plain_only is None:
                    plain_only = without_pictures(recipients) if without_pictures is not None else set()
                pictured = pictured_content is not None and recipient not in (plain_only or ())
                wire = wires.get((language, pictured))
                if wire is None:
                    content = pictured_content if pictured and pictured_content else plain_content
                    wire = wires[(language, pictured)] = content_bytes(content)
                message_id, reply_to = self.message_id(now), None
                wanted = reply.tokens.get(recipient)
                if isinstance(wanted, CodeFor):
                    message_id = f"<c-{wanted.code_id}-{wanted.seal}@{self.domain}>"
                elif wanted is not None and issue_token is not None and server.reply_moves:
                    token = issue_token(wanted, recipient)
                    message_id = f"<r-{token}@{self.domain}>"
                    if server.reply_subaddress:
                        local, _, domain = server.address.rpartition("@")
                        reply_to = f"{local}+r-{token}@{domain}"
                head = Head((server.name, server.address), recipient, text.subject, format_datetime(now),
                            message_id, in_reply_to=in_reply_to, reply_to=reply_to)
                out.append(Outgoing(recipient, message_id, copy_bytes(head, wire)))
        return out

    def _contents(self, reply: Reply, language: str, files: list[tuple[str, str]]
                  ) -> tuple[Text, Content, Content | None]:
        """A reply in one language: its text, and what its message says in
        text alone and with the HTML part (None when the server sends
        none)."""
        server = self.config.server
        text = self.text(reply, language)
        plain = Content(text.body, files=files)
        if not text.pieces:
            return text, plain, None
        renderer = self.renderer_for(language)
        pictures = text.pictures
        html = renderer.html_page(text.subject, text.pieces, server=server, web_url=self.config.web.base_url)
        if len(html) > self.config.limits.max_reply_bytes:  # a long reply: its text as it is, no cards
            html = renderer.html_page(text.subject, (), whole=text.body, server=server,
                                      web_url=self.config.web.base_url)
            pictures = ()
        attachments = [Attachment("image/png", p.base64, cid=p.cid, filename=f"trax-{p.cid.split('@')[0]}.png")
                       for p in pictures]
        return text, plain, Content(text.body, html, attachments, files)
