"""A password is never shown, in whatever order the words of a command come.

Every command that carries a password is sent through the real pipeline with
alice's real password (a word found nowhere else) in every order of its
words (all orders for up to four words; for more, the password in every
place and every two words swapped).  Neither a reply, nor the line the log
and the handled-mail table keep, nor any table of the database afterwards
holds the password.  The one exception is the grammar's own reading: a
command that names its userid in the password's place and logs in (no
such order exists here, as "alice" is no password).
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from pbm.app.pipeline import Pipeline
from pbm.domain.store import Store
from pbm.grammar import REGISTRY

from ..grammar.test_commands import ACCOUNT_CASES, GAME_CASES, TOURNAMENT_CASES
from .conftest import server_config

SECRET = "Zq7Secret"
#: Commands left out: signup makes an account of whatever stands in its
#: userid's place (a swapped password becomes a userid by the grammar's own
#: reading); a confirmation code is no password.
LEFT_OUT = {"signup", "confirm address"}


def representative_lines() -> dict[str, str]:
    """One line per command that carries a password, with alice's password in it."""
    out: dict[str, str] = {}
    for line, name, _ in ACCOUNT_CASES + GAME_CASES + TOURNAMENT_CASES:
        spec = REGISTRY[name]
        if not spec.takes_password or name in LEFT_OUT or name in out or "s3cret" not in line:
            continue
        game = "" if spec.scope.value == "account" else "trax "
        out[name] = game + line.replace("s3cret", SECRET).replace("Alice", "alice")
    return out


def orders(words: list[str]) -> list[list[str]]:
    if len(words) <= 4:
        return [list(p) for p in dict.fromkeys(itertools.permutations(words))]
    found: dict[tuple[str, ...], None] = {}
    at = words.index(SECRET) if SECRET in words else 0
    rest = words[:at] + words[at + 1:]
    for i in range(len(words)):
        found[(*rest[:i], SECRET, *rest[i:])] = None
    for i, j in itertools.combinations(range(len(words)), 2):
        swapped = list(words)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        found[tuple(swapped)] = None
    return [list(o) for o in found]


LINES = representative_lines()


def test_every_command_with_a_password_is_tried():
    assert len(LINES) >= 20 and all(SECRET in line for line in LINES.values())


@pytest.fixture
def site(tmp_path):
    """A fresh server for each command (one order may change alice's password or delete her)."""
    config = server_config(tmp_path, "replies_per_sender_per_day = 100000")
    store = Store(config.server.database)
    pipeline = Pipeline(store, config)
    now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    for sender, subject in (("alice@example.org", f"signup alice {SECRET}"), ("bob@example.org", "signup bob pw2"),
                            ("alice@example.org", "trax challenge alice bob")):
        pipeline.exec_command(sender, subject, now=now)
    yield pipeline, now
    store.close()


@pytest.mark.parametrize("name", sorted(LINES))
def test_the_password_is_never_shown_in_any_order(site, name):
    pipeline, start = site
    line = LINES[name]
    spec = REGISTRY[name]
    words = line.split()
    head = (0 if spec.scope.value == "account" else 1) + len(name.split())
    now = start
    for order in orders(words[head:]):
        now += timedelta(hours=2)  # past any lock from the wrong orders before
        subject = " ".join([*words[:head], *order])
        result = pipeline.exec_command("alice@example.org", subject, now=now)
        assert result.status == "handled"
        assert SECRET not in result.summary, subject
        for reply in result.replies:
            text = reply.as_bytes().decode("utf-8", "replace")
            assert SECRET not in text, (subject, text)
    assert tables_holding(pipeline.store, SECRET) == []


#: The old server's aliases, abbreviations and argument order (issue 17).
OLD_FORMS = {
    "mvoe": f"trax mvoe 101 alice {SECRET} @0+",
    "qboard": f"trax qboard 101 alice {SECRET} @0+",
    "chall": f"trax chall alice bob {SECRET}",
    "sub (old order)": f"trax sub alice {SECRET} 101",
    "unsub (old order)": f"trax unsub alice {SECRET} all",
    "move with **": f"trax board 101 alice {SECRET} @0+ **",
}


@pytest.mark.parametrize("name", sorted(OLD_FORMS))
def test_the_password_is_never_shown_in_the_old_servers_forms(site, name):
    pipeline, start = site
    words = OLD_FORMS[name].split()
    now = start
    for order in orders(words[2:]):
        now += timedelta(hours=2)
        subject = " ".join([*words[:2], *order])
        result = pipeline.exec_command("alice@example.org", subject, now=now)
        assert SECRET not in result.summary, subject
        for reply in result.replies:
            assert SECRET not in reply.as_bytes().decode("utf-8", "replace"), subject
    assert tables_holding(pipeline.store, SECRET) == []


#: Issue 28: lines with alice's password where the grammar has no place for
#: it: after the userid of a command that takes none, in the command
#: word's place, in a command of too many words.
NO_PLACE = {
    "password reset": f"password reset alice {SECRET}",
    "password reset, new password": f"password reset alice {SECRET} pear",
    "in the command's place": f"trax {SECRET} 101 alice",
    "in the command's place, no game": f"{SECRET} 101 alice @0+",
    "standings": f"trax standings alice {SECRET}",
    "record": f"trax record 101 alice {SECRET}",
    "all show": f"all show alice {SECRET}",
    "list": f"list alice {SECRET}",
    "tournament list": f"trax tournament list alice {SECRET}",
}


@pytest.mark.parametrize("name", sorted(NO_PLACE))
def test_the_password_is_never_shown_where_no_command_takes_one(site, name):
    pipeline, start = site
    words = NO_PLACE[name].split()
    head = next(i for i, w in enumerate(words) if w in ("alice", "101", SECRET))
    now = start
    for order in orders(words[head:]):
        now += timedelta(hours=2)
        subject = " ".join([*words[:head], *order])
        for body_subject, body in ((subject, ""), ("multiple", subject)):
            result = pipeline.exec_command("alice@example.org", body_subject, body, now=now)
            assert result.status == "handled"
            assert SECRET not in result.summary, subject
            for reply in result.replies:
                assert SECRET not in reply.as_bytes().decode("utf-8", "replace"), subject
    assert tables_holding(pipeline.store, SECRET) == []


def tables_holding(store: Store, secret: str) -> list[tuple[str, str]]:
    """Every value in every table of the database in which ``secret`` stands."""
    found = []
    for table in store.db.table_names():
        for row in store.db.table(table).rows:
            for value in row.values():
                text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
                if secret.lower() in text.lower():
                    found.append((table, text[:200]))
    return found


def test_the_search_of_the_tables_finds_a_word_that_is_there(site):
    pipeline, _ = site
    assert ("users", "bob") in tables_holding(pipeline.store, "bob")
