"""Secrets at rest: the database, and so its backups, hold no reply token
and no one-time code a player could use, only their hashes; a queued mail
holds seals that only the server's key (a file of its own) turns into the
secret, for its own recipient alone; sent mail is dropped, then purged."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

from pbm.domain.store import Store
from pbm.domain.store.backup import backup
from tests.ticks import tick_mails

from .conftest import Mailbox, text_of, to_of

A, B = "alice@example.org", "bob@example.org"
TOKEN = re.compile(r"<r-\d+-([a-z2-7]{32})@")
CODE = re.compile(r"\b([A-Z2-9]{5}-[A-Z2-9]{5})\b")


def secrets_mailed(mail: Mailbox) -> set[str]:
    found: set[str] = set()
    for m in mail.sent:
        found.update(TOKEN.findall(str(m["Message-ID"])))
        found.update(CODE.findall(str(m["Subject"])) + CODE.findall(text_of(m)))
    return found


def everything_stored(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.glob("pbm.sqlite3*") if p.suffix != ".key")


def test_no_token_or_code_the_players_got_is_in_the_database_or_a_backup(players: Mailbox, tmp_path):
    mail = players
    mail.send(A, "trax challenge alice bob apple")
    mail.send(A, "trax move 101 alice apple @0+")
    mail.send("carol@example.org", "signup carol cherry", verified=False)  # a confirmation code
    mail.send(A, "password reset alice")  # a reset code
    mail.send(A, "add alice apple alice@home.example.net")  # another confirmation code
    found = secrets_mailed(mail)
    assert len([s for s in found if len(s) == 32]) >= 3 and len([s for s in found if "-" in s]) >= 3
    store: Store = mail.pipeline.store
    store.db.conn.execute("PRAGMA wal_checkpoint(FULL)")
    stored = everything_stored(tmp_path)
    assert stored and not [s for s in found if s.encode() in stored or s.lower().encode() in stored]
    copy = tmp_path / "copy.sqlite3"
    backup(tmp_path / "pbm.sqlite3", copy)
    assert copy.stat().st_mode & 0o777 == 0o600
    assert not [s for s in found if s.encode() in copy.read_bytes()]
    assert (tmp_path / "pbm.sqlite3.key").stat().st_mode & 0o777 == 0o600


def test_a_seal_copied_into_a_mail_to_someone_else_reveals_nothing(players: Mailbox):
    """Someone who read a queued mail's seal (a stolen backup) and has it
    mailed to himself gets a secret that matches nothing."""
    mail = players
    mail.send(A, "trax challenge alice bob apple")
    (row,) = mail.pipeline.store.db.execute(
        "SELECT message FROM outbox WHERE recipient = ? ORDER BY id DESC LIMIT 1", (B,)).fetchall()
    seal = re.search(rb"pbmsealt[a-z2-7]{16}", row[0]).group(0).decode()
    got = mail.pipeline.keys.unseal(f"Message-ID: <r-1-{seal}@pbm.test>".encode(), "mallory@evil.test")
    real = mail.pipeline.keys.unseal(f"Message-ID: <r-1-{seal}@pbm.test>".encode(), B)
    assert got != real and b"pbmseal" not in got


def test_sent_mail_keeps_no_bytes_and_is_purged_after_a_week(players: Mailbox):
    mail = players
    mail.send(A, "help")
    store = mail.pipeline.store
    ids = [r.id for r in store.unsent_replies()]
    with store.atomic():
        for reply_id in ids:
            store.mark_sent(reply_id, mail.clock.now)
    sizes = store.db.execute("SELECT length(message) FROM outbox WHERE sent_at IS NOT NULL").fetchall()
    assert sizes and all(size == 0 for (size,) in sizes)
    tick_mails(mail.pipeline, mail.clock.now + timedelta(days=6))
    assert store.db.execute("SELECT COUNT(*) FROM outbox WHERE sent_at IS NOT NULL").fetchone()[0] == len(ids)
    tick_mails(mail.pipeline, mail.clock.now + timedelta(days=8))
    assert store.db.execute("SELECT COUNT(*) FROM outbox WHERE sent_at IS NOT NULL").fetchone()[0] == 0
    assert to_of(mail.sent[-1]) == A
