"""``pbm deliver`` run as Postfix's pipe(8) runs it: the argv of the
``master.cf`` line in the README, the mail on standard input with LF line
ends, a bare environment, a working folder of its own; and what the exit
status tells the mail server."""

from __future__ import annotations

import email
import os
import re
import sqlite3
import time
from pathlib import Path

import pytest

from pbm.server import deliver as delivery
from pbm.server.health import DatabaseLock

from .conftest import SERVER, command_mail, count, pbm, write_config

pytestmark = pytest.mark.integration

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def postfix_argv(config: Path, sender: str, recipient: str) -> list[str]:
    """The README's ``argv=`` of the pipe transport, its macros expanded as
    pipe(8) expands them (``--sender=${sender}`` with ``null_sender=``
    gives ``--sender=`` for a bounce)."""
    line = re.search(r"argv=\S+ (deliver [^\n]+)", README)
    assert line is not None, "the README's master.cf line for the pipe"
    words = line.group(1).replace("${sender}", sender).replace("${recipient}", recipient).split()
    assert words[:3] == ["deliver", "--config", "/etc/pbm/pbm.toml"], words
    return ["deliver", "--config", str(config), *words[3:]]


def postfix_env(home: Path) -> dict[str, str]:
    """What pipe(8) leaves a command: the user's few variables and the
    export_environment (TZ, LANG), no PATH, nothing of the test's."""
    return {"HOME": str(home), "LOGNAME": "pbm", "USER": "pbm", "SHELL": "/bin/sh", "LANG": "C", "TZ": "UTC"}


def lf(raw: bytes) -> bytes:
    return raw.replace(b"\r\n", b"\n")


def deliver(site: Path, raw: bytes, *extra: str, sender: str = "alice@example.org", recipient: str = SERVER,
            config: Path | None = None):
    spool = site / "spool"  # pipe(8) runs the command in Postfix's queue folder, not the server's
    spool.mkdir(exist_ok=True)
    argv = postfix_argv(config or site / "pbm.toml", sender, recipient)
    return pbm(*argv, *extra, cwd=spool, stdin=lf(raw), env=postfix_env(spool))


def handled(site: Path) -> int:
    return count(site / "pbm.sqlite3", "SELECT COUNT(*) FROM handled")


def queued(site: Path) -> int:
    return count(site / "pbm.sqlite3", "SELECT COUNT(*) FROM outbox")


def test_a_mail_is_handled_once_with_its_envelope_and_exit_0(site):
    write_config(site)
    raw = command_mail("alice@example.org", "help")
    done = deliver(site, raw, recipient="pbm+r-x@mail.test")
    assert done.returncode == 0, done.stderr
    assert b"handled; 1 reply queued" in done.stderr
    assert (handled(site), queued(site)) == (1, 1)
    assert list((site / "spool").iterdir()) == []  # nothing written where it ran
    again = deliver(site, raw)  # the mail server delivers it again (a retry after a lost answer)
    assert again.returncode == 0 and b"duplicate" in again.stderr
    assert (handled(site), queued(site)) == (1, 1)
    # the reply went to the sender of the From line, the envelope having been put in front
    conn = sqlite3.connect(site / "pbm.sqlite3")
    recipient, message = conn.execute("SELECT recipient, message FROM outbox").fetchone()
    conn.close()
    assert recipient == "alice@example.org"
    assert email.message_from_bytes(message)["Auto-Submitted"] == "auto-replied"


def test_the_envelope_goes_in_front_as_the_smtp_listener_puts_it(site):
    """A bounce: Postfix passes the null sender as an empty ${sender};
    screening reads the Return-Path we put first and answers nothing."""
    write_config(site)
    bounce = command_mail("alice@example.org", "help")
    done = deliver(site, bounce, sender="")
    assert done.returncode == 0, done.stderr
    assert b"dropped: bounce (empty return path)" in done.stderr
    assert (handled(site), queued(site)) == (1, 0)


def test_local_delivery_s_from_line_is_taken_off(site):
    """local(8) (a .forward or aliases pipe) writes an mbox From line first."""
    write_config(site)
    raw = b"From alice@example.org  Mon Jan  5 10:00:00 2026\n" + lf(command_mail("alice@example.org", "help"))
    done = pbm("deliver", "--config", str(site / "pbm.toml"), cwd=site, stdin=raw)
    assert done.returncode == 0, done.stderr
    assert b"handled; 1 reply queued" in done.stderr


@pytest.mark.parametrize(("raw", "why"), [
    (b"", b"the message is empty"),
    (b"\n\n  \n", b"the message is empty"),
    (b"this is not a mail at all\nreally\n", b"not a mail"),
    (b"From someone  Mon Jan  5 10:00:00 2026\n", b"the message is empty"),
])
def test_what_is_never_a_mail_is_65_and_nothing_is_recorded(site, raw, why):
    write_config(site)
    done = deliver(site, raw)
    assert done.returncode == 65, done.stderr
    assert why in done.stderr
    assert not (site / "pbm.sqlite3").exists() or handled(site) == 0


def test_a_mail_over_the_size_limit_is_answered_and_is_0(site):
    """Decided: the pipeline answers a mail too large with a short reply (as
    it does for IMAP); the mail server has nothing to bounce."""
    write_config(site, "[limits]", "max_message_bytes = 2000")
    done = deliver(site, command_mail("alice@example.org", "help", "x" * 5000))
    assert done.returncode == 0, done.stderr
    assert b"handled; 1 reply queued" in done.stderr
    assert count(site / "pbm.sqlite3", "SELECT COUNT(*) FROM handled WHERE summary = 'too large'") == 1


def test_a_database_locked_past_the_timeout_is_75_then_the_mail_is_handled_on_the_retry(site):
    write_config(site)
    assert deliver(site, command_mail("bob@example.org", "help")).returncode == 0
    before = (handled(site), queued(site))
    holder = sqlite3.connect(site / "pbm.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another connection holds the write lock
    holder.execute("INSERT INTO daily_counts (kind, key, day, n) VALUES ('test', 'x', '2026-01-01', 1)")
    raw = command_mail("alice@example.org", "help")
    try:
        started = time.monotonic()
        done = deliver(site, raw, "--timeout", "1")
        waited = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert done.returncode == 75, done.stderr
    assert b"the database stayed busy for 1 s" in done.stderr
    assert 1.0 <= waited < 30
    assert (handled(site), queued(site)) == before  # nothing of it was committed
    retry = deliver(site, raw, "--timeout", "1")
    assert retry.returncode == 0, retry.stderr
    assert (handled(site), queued(site)) == (before[0] + 1, before[1] + 1)


def test_an_internal_error_is_75(site):
    write_config(site, name="pbm.toml")
    path = site / "pbm.toml"
    path.write_text(path.read_text().replace('database = "pbm.sqlite3"', 'database = "gone/pbm.sqlite3"'))
    done = deliver(site, command_mail("alice@example.org", "help"))
    assert done.returncode == 75
    assert b"could not be handled now" in done.stderr and b"try again later" in done.stderr


def test_a_bad_configuration_or_command_line_keeps_the_mail_at_the_mail_server(site):
    (site / "pbm.toml").write_text("[server]\nadress = 'pbm@mail.test'\n")
    done = deliver(site, command_mail("alice@example.org", "help"))
    assert done.returncode == 75 and b"adress" in done.stderr
    write_config(site)
    wrong = pbm("deliver", "--config", str(site / "pbm.toml"), "--sendr=x@y.z", cwd=site,
                stdin=command_mail("alice@example.org", "help"))
    assert wrong.returncode == 75 and b"--sendr" in wrong.stderr


def test_send_sends_the_replies_through_the_relay_when_no_daemon_runs(site, sink):
    write_config(site, sink=sink)
    done = deliver(site, command_mail("alice@example.org", "help"), "--send")
    assert done.returncode == 0, done.stderr
    assert b"1 sent through the relay" in done.stderr
    (received,) = sink.wait_for(1)
    assert received.rcpt_tos == ["alice@example.org"]
    assert count(site / "pbm.sqlite3", "SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL") == 0
    # with a daemon holding the database, it is the daemon's to send
    lock = DatabaseLock(site / "pbm.sqlite3")
    lock.acquire()
    try:
        later = deliver(site, command_mail("bob@example.org", "help"), "--send")
    finally:
        lock.release()
    assert later.returncode == 0, later.stderr
    assert b"a daemon is running" in later.stderr
    time.sleep(0.2)
    assert len(sink.messages) == 1
    assert count(site / "pbm.sqlite3", "SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL") == 1


def test_the_sysexits_codes_are_the_ones_postfix_reads():
    """EX_DATAERR and EX_TEMPFAIL as sysexits.h has them (os.EX_*)."""
    assert (delivery.EX_OK, delivery.EX_DATAERR, delivery.EX_TEMPFAIL) == (os.EX_OK, os.EX_DATAERR, os.EX_TEMPFAIL)


def test_the_envelope_headers_are_the_smtp_listener_s():
    raw = b"From: alice@example.org\nSubject: help\n\n"
    assert delivery.with_envelope(raw, "alice@example.org", ["pbm+r-x@mail.test"]) == (
        b"Return-Path: <alice@example.org>\r\nDelivered-To: pbm+r-x@mail.test\r\n" + raw)
    assert delivery.with_envelope(raw, "", []) == b"Return-Path: <>\r\n" + raw  # a bounce
    assert delivery.with_envelope(raw, None, ["pbm@mail.test"]) == b"Delivered-To: pbm@mail.test\r\n" + raw
