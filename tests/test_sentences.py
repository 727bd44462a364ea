"""Every sentence a player reads lives in a template (issue 29).

This test reads every module under ``pbm/`` with :mod:`ast` and fails on a
string in the code that reads as a sentence, unless it is text that no
player reads.  The words players read (replies, notices, refusals, help,
the web view, the board's diagrams) are in ``templates/``, where a
translation can reach them; the code carries codes, params and data.

The rule, precisely:

- **What is read**: every string constant, and every f-string taken whole,
  each of its replacement fields standing as a *placeholder* (the constant
  parts of an f-string are not read again on their own).
- **A sentence**: a run of three or more tokens, one blank apart, each a
  *word* (ASCII letters only, at least one of them lower-case) or a
  placeholder, at least two of them words.  ``"there is no board {n}"``
  is one; ``"BOARD USERID PASSWORD"``, ``"help move"``, ``"{a} {b}"`` and
  ``"trax-%d"`` are not.
- **Not read** (text that no player reads):

  - docstrings, and strings standing alone as a statement (the notes on
    attributes);
  - the arguments of a logging call (a method ``debug``, ``info``,
    ``warning``, ``error``, ``exception``, ``critical`` or ``log`` called
    on ``log``, ``logger`` or ``logging``): the operator's log;
  - the message of an ``assert``, and the arguments of an exception of
    :data:`PROGRAMMING_ERRORS`: a bug, or a wrong configuration, told to
    the operator or a developer, never a player (the refusals a player is
    told, ``PbmError`` and its kin, carry codes: ``tests/app/test_reasons.py``);
  - SQL: a string that begins (after blanks) with an SQL keyword of
    :data:`SQL` or with an SQL comment ``--``;
  - the modules of :data:`OPERATOR_MODULES`, each for the reason given
    there: what they print goes to the operator's terminal or log, or to
    a mail server, not to a player;
  - a line that ends with the comment ``# for the operator``: text for
    the operator's record of what became of a mail (``Result.reason``,
    its summary in the ``handled`` table and the log), never mailed.

SMTP and LMTP responses (``pbm/server/listener.py``) reach the mail server
that hands us a mail, not a player; a player may see one quoted in a
bounce, but worded by that player's own mail server, in its language, and
in the enhanced status code that matters more than its text (RFC 3463):
they stay English in the code, by RFC 5321 custom, and the module is listed
below.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "pbm"

#: Exceptions whose message is a bug or a wrong configuration, for the
#: operator or a developer: never a player's refusal.
PROGRAMMING_ERRORS = frozenset({
    "ValueError", "TypeError", "RuntimeError", "KeyError", "AssertionError", "NotImplementedError",
    "LookupError", "IndexError", "AttributeError", "OSError",
    "ConfigError",  # pbm/config: a wrong configuration file, told by pbm check-config and at start
    "BackupError",  # pbm backup and pbm restore, the operator's commands
    "PairingError",  # a tournament that cannot be paired: a crash the operator sees, never a reply
    "OperationalError",  # sqlite3's, raised as SQLite raises it
})

#: What an SQL statement begins with.
SQL = ("SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "ALTER", "DROP", "WITH", "PRAGMA", "REPLACE", "BEGIN",
       "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "--")

#: Logging methods, and the names loggers go by.
LOG_METHODS = frozenset({"debug", "info", "warning", "error", "exception", "critical", "log"})
LOGGERS = frozenset({"log", "logger", "logging"})

#: The pragma of a line that holds text for the operator's record.
OPERATOR_PRAGMA = "# for the operator"

#: Modules whose text goes to the operator (or a mail server), not to a
#: player, and why.
OPERATOR_MODULES = {
    "pbm/server/cli.py": "the command line: its help and what it prints are for the operator's terminal",
    "pbm/server/ops.py": "the operator's commands (backup, restore, deliver's options, the unit file)",
    "pbm/server/checkconfig.py": "pbm check-config: a report on the configuration, to the operator",
    "pbm/server/health.py": "pbm status and /healthz: the daemon's health, to the operator and a monitor",
    "pbm/server/metrics.py": "the Prometheus metrics' help texts, read by the operator's monitoring",
    "pbm/server/deliver.py": "pbm deliver: its exit notes go to the mail server's log, for its operator",
    "pbm/server/daemon.py": "the daemon: what it notes of failed mail goes to the log and the operator",
    "pbm/server/listener.py": "SMTP/LMTP responses, to the sending mail server (see the docstring)",
    "pbm/server/logtext.py": "the marker of a cut log line",
    "pbm/server/inbox.py": "the IMAP intake: where a mail came from, for the operator's record",
    "pbm/server/systemd.py": "the systemd unit file and readiness notes, for the operator",
    "pbm/domain/store/migrations.py": "the names of migrations and SQL comments, for the operator",
    "pbm/domain/store/backup.py": "pbm backup and pbm restore: what they find wrong, to the operator",
    "pbm/config/__init__.py": "the configuration file: what is wrong in it (ConfigError), to the operator",
    "pbm/config/reading.py": "the configuration file: what is wrong in it (ConfigError), to the operator",
    "pbm/app/screening.py": ("the subjects and names of automatic mail it recognises (data, matched against mail "
                             "that comes in), and why a mail was dropped unanswered (the operator's record)"),
}

_TOKEN_WORD = re.compile(r"[A-Za-z]*[a-z][A-Za-z]*")
PLACEHOLDER = "\x00"


def is_sentence(text: str) -> bool:
    """Does ``text`` hold a sentence (see the module docstring)?"""
    run = words = 0
    for token in text.split(" "):
        if token == PLACEHOLDER or _TOKEN_WORD.fullmatch(token):
            run += 1
            words += token != PLACEHOLDER
            if run >= 3 and words >= 2:
                return True
        else:
            run = words = 0
    return False


def _text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else PLACEHOLDER for v in node.values)
    return None


def _called(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _not_read(tree: ast.AST) -> set[int]:
    """The ids of the nodes whose text no player reads (not counting SQL,
    modules and pragmas)."""
    skip: set[int] = set()

    def all_of(node: ast.AST) -> None:
        skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            skip.add(id(node.value))  # a docstring, or a note standing alone
        elif isinstance(node, ast.JoinedStr):
            skip.update(id(n) for n in ast.walk(node) if n is not node)
        elif isinstance(node, ast.Assert) and node.msg is not None:
            all_of(node.msg)
        elif isinstance(node, ast.Call):
            func = node.func
            logging_call = (isinstance(func, ast.Attribute) and func.attr in LOG_METHODS
                            and isinstance(func.value, ast.Name) and func.value.id in LOGGERS)
            if logging_call or _called(node) in PROGRAMMING_ERRORS:
                for arg in [*node.args, *(k.value for k in node.keywords)]:
                    all_of(arg)
    return skip


def sentences(path: Path) -> list[str]:
    """The sentences in the code of ``path`` that a player might read."""
    source = path.read_text(encoding="utf-8")
    lines = source.split("\n")
    tree = ast.parse(source)
    skip = _not_read(tree)
    found = []
    for node in ast.walk(tree):
        text = _text(node)
        if text is None or id(node) in skip or not is_sentence(text):
            continue
        if text.lstrip().startswith(SQL):
            continue
        span = lines[node.lineno - 1:(node.end_lineno or node.lineno)]
        if any(line.rstrip().endswith(OPERATOR_PRAGMA) for line in span):
            continue
        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
        found.append(f"{where}:{node.lineno}: {text.replace(PLACEHOLDER, '{}')[:90]!r}")
    return found


ALL_MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "templates" not in p.parts)
#: The modules read: every one but the operator's.
MODULES = [p for p in ALL_MODULES if str(p.relative_to(ROOT)) not in OPERATOR_MODULES]


def test_the_operator_modules_exist_and_are_the_only_ones_left_out():
    for name in OPERATOR_MODULES:
        assert (ROOT / name).is_file(), name
    assert len(MODULES) == len(ALL_MODULES) - len(OPERATOR_MODULES) > 80


def test_the_operator_modules_do_hold_sentences():
    """An exemption that no longer exempts anything is dropped from the list."""
    for name in OPERATOR_MODULES:
        assert sentences(ROOT / name), f"{name} holds no sentence: take it off OPERATOR_MODULES"


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(ROOT)) for p in MODULES])
def test_no_sentence_a_player_reads_is_in_the_code(path):
    assert sentences(path) == []


@pytest.mark.parametrize(("text", "expected"), [
    ("there is no board \x00", True),
    ("wrong userid or password", True),
    ("\x00 has signed off and takes no new games", True),
    ("BOARD USERID PASSWORD", False),
    ("help move", False),
    ("\x00 \x00 \x00", False),
    ("trax-%d", False),
    ("board \x00 is", True),
    ("o = white, # = black", False),
])
def test_what_reads_as_a_sentence(text, expected):
    assert is_sentence(text) is expected


def test_the_pragma_and_the_exemptions_are_read_as_documented(tmp_path):
    module = tmp_path / "pbm" / "example.py"
    module.parent.mkdir()
    module.write_text(
        '"""A docstring is not read by players."""\n'
        'import logging\n'
        'log = logging.getLogger("x")\n'
        'def f(n):\n'
        '    """Nor is this one."""\n'
        '    log.info("the operator reads %s in the log", n)\n'
        '    assert n, "a developer reads this one"\n'
        '    if n < 0:\n'
        '        raise ValueError(f"a negative number of boards: {n}")\n'
        '    reason = "over the daily limit of mails"  # for the operator\n'
        '    sql = "SELECT number FROM boards WHERE it is so"\n'
        '    return f"there is no board {n}", reason, sql\n',
        encoding="utf-8")
    assert sentences(module) == ["example.py:12: 'there is no board {}'"]
