"""The recorded session (every command of the language, a whole game, the
help pages, a tournament round, errors, the clock work) once more with
every reader's language German, then Japanese: every mail the server writes
is checked as its reader gets it.

- no line of a text part wider than 78 columns as a terminal shows them
  (wide characters count two);
- no placeholder left unfilled (``%(name)s``, ``%s``, ``{{``);
- nothing left in English: no line of prose that the English session wrote
  word for word (the commands to copy, userids, moves and the ASCII board
  are the same in every language, and are not prose);
- the commands and the board stay ASCII: every line of the English text
  that a player copies (indented command lines) is in the translation too.

Set ``PBM_DUMP_SESSION=FOLDER`` to have each language's mails written to
``FOLDER/LANG.txt`` for a translator to read."""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pbm.app.pipeline import Pipeline
from pbm.domain.store import Store
from tests.prose import english_prose
from tests.widths import columns

from .conftest import Clock, Mailbox
from .test_recorded_session import Recorder, session

PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]\b|\{\{|\}\}|\{%")
#: A line a player copies: a command indented in the text (the copy-ready
#: command line and the examples).
COMMAND = re.compile(r"^ {2,}(?:trax|luckytrax|pointtrax|minitrax|looptrax|8x8trax|signup|set|help|all) [ -~]*$")


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("style", "script", "title")  # the title is the subject: English

    def handle_endtag(self, tag):
        self._skip -= tag in ("style", "script", "title")

    def handle_data(self, data):
        if not self._skip:
            self.lines.extend(line.strip() for line in data.splitlines() if line.strip())


def readable(msg) -> tuple[list[str], list[str]]:
    """The lines of a mail's text part, and the text of its HTML part."""
    plain = msg.get_body(("plain",))
    html = msg.get_body(("html",))
    text = plain.get_content().splitlines() if plain is not None else []
    parsed = _Text()
    if html is not None:
        parsed.feed(html.get_content())
    return text, parsed.lines


def run_session(mail: Mailbox, monkeypatch, language: str) -> list:
    """The session with every recipient reading ``language``: each mail
    sent, in order."""
    monkeypatch.setattr(Pipeline, "languages_of", lambda self, addresses: {a.lower(): language for a in addresses})
    mail.sent.clear()
    session(Recorder(mail))
    return list(mail.sent)


@pytest.mark.slow
@pytest.mark.parametrize("language", ["de", "ja"])
def test_the_whole_session_reads_in_each_language(players, monkeypatch, tmp_path, language):
    players.sent.clear()
    session(Recorder(players))
    english_mails = list(players.sent)
    prose: set[str] = set()
    english_commands: set[str] = set()
    for msg in english_mails:
        text, html = readable(msg)
        prose.update(" ".join(line.split()) for line in text + html if english_prose(line))
        english_commands.update(line for line in text if COMMAND.match(line) and "  " not in line.strip()
                                and not english_prose(line))

    store = Store(tmp_path / "translated.sqlite3")
    fresh = Mailbox(Pipeline(store, players.pipeline.config), Clock())
    fresh.send("alice@example.org", "signup alice apple")
    fresh.send("bob@example.org", "signup bob banana")
    mails = run_session(fresh, monkeypatch, language)
    assert len(mails) == len(english_mails)  # the same mails, each in the reader's language

    dump = os.environ.get("PBM_DUMP_SESSION")
    if dump:
        Path(dump).mkdir(parents=True, exist_ok=True)
        Path(dump, f"{language}.txt").write_text("".join(
            f"==== {m['To']} | {m['Subject']}\n" + "\n".join(readable(m)[0]) + "\n" for m in mails))

    wide, unfilled, english, copied = [], [], [], []
    commands: set[str] = set()
    for msg in mails:
        text, html = readable(msg)
        where = f"{msg['To']} | {msg['Subject']}"
        wide += [f"{where}: {line}" for line in text if columns(line) > 78]
        unfilled += [f"{where}: {line}" for line in text + html if PLACEHOLDER.search(line)]
        english += [f"{where}: {line}" for line in text + html if " ".join(line.split()) in prose]
        commands.update(line for line in text if COMMAND.match(line) and "  " not in line.strip())
    store.close()
    copied = sorted(english_commands - commands)
    assert not wide, "\n".join(wide[:20])
    assert not unfilled, "\n".join(unfilled[:20])
    assert not english, f"{len(english)} lines still in English:\n" + "\n".join(english[:40])
    assert not copied, "commands to copy lost in translation:\n" + "\n".join(copied[:20])
