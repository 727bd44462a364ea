"""``pbm process`` and ``pbm exec``: the real command line, a real SQLite file."""

from __future__ import annotations

import mailbox
import re
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbm.config import load_config
from pbm.domain.seals import Keyring
from pbm.domain.store import Store

from ..app.conftest import is_error
from ..app.replies import delivery_report


def run(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pbm", *args], cwd=cwd, input=stdin, capture_output=True, timeout=60
    )


@pytest.fixture
def site(tmp_path):
    (tmp_path / "pbm.toml").write_text('[server]\naddress = "pbm@pbm.test"\ndatabase = "game.sqlite3"\n')
    return tmp_path


def mail(subject: str, sender: str = "alice@example.org", mid: str = "<m1@example.org>") -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "pbm@pbm.test"
    msg["Subject"] = subject
    msg["Message-ID"] = mid
    msg.set_content("From the start, a line that needs quoting in mbox.\n")
    return bytes(msg)


def replies_in(stdout: bytes, tmp_path: Path) -> list:
    path = tmp_path / "out.mbox"
    path.write_bytes(stdout)
    box = mailbox.mbox(str(path))
    try:
        return list(box)
    finally:
        box.close()


def test_process_handles_a_message_file_and_prints_the_replies_as_mbox(site):
    (site / "signup.eml").write_bytes(mail("signup alice apple"))
    done = run("process", "--config", "pbm.toml", "signup.eml", cwd=site)
    assert done.returncode == 0, done.stderr
    replies = replies_in(done.stdout, site)
    assert len(replies) == 1
    assert replies[0]["Subject"] == "Welcome to Trax PBM, alice"
    assert b"apple" not in done.stdout
    assert b"handled" in done.stderr
    store = Store(site / "game.sqlite3")
    assert store.find_user("alice") is not None
    assert len(store.unsent_replies()) == 1
    store.close()


def test_process_reads_standard_input_and_a_second_delivery_is_a_duplicate(site):
    raw = mail("signup alice apple")
    first = run("process", "--config", "pbm.toml", "-", cwd=site, stdin=raw)
    second = run("process", "--config", "pbm.toml", "-", cwd=site, stdin=raw)
    assert first.returncode == second.returncode == 0
    assert replies_in(second.stdout, site) == []
    assert b"duplicate" in second.stderr


def test_dry_run_prints_the_replies_but_changes_nothing(site):
    done = run("process", "--config", "pbm.toml", "--dry-run", "-", cwd=site, stdin=mail("signup alice apple"))
    assert done.returncode == 0
    assert len(replies_in(done.stdout, site)) == 1
    store = Store(site / "game.sqlite3")
    assert store.find_user("alice") is None
    assert store.unsent_replies() == []
    store.close()


def test_exec_runs_a_command_typed_by_the_operator(site):
    run("exec", "--config", "pbm.toml", "--from", "alice@example.org", "signup alice apple", cwd=site, stdin=b"")
    run("exec", "--config", "pbm.toml", "--from", "bob@example.org", "signup bob banana", cwd=site, stdin=b"")
    done = run("exec", "--config", "pbm.toml", "--from", "op@example.org", "trax challenge alice bob apple", cwd=site,
               stdin=b"Good luck to you both\n")
    assert done.returncode == 0, done.stderr
    replies = replies_in(done.stdout, site)
    assert {r["To"] for r in replies} == {"alice@example.org", "bob@example.org", "op@example.org"}
    text = message_from_bytes(replies[0].as_bytes(), policy=policy.default).get_body(("plain",)).get_content()
    assert "Good luck to you both" in text


def test_a_dropped_mail_is_still_a_success(site):
    raw = mail("help", sender="pbm@pbm.test")
    done = run("process", "--config", "pbm.toml", "-", cwd=site, stdin=raw)
    assert done.returncode == 0
    assert b"dropped" in done.stderr


def test_a_bad_config_is_a_clear_failure(site):
    (site / "bad.toml").write_text("[server]\nadress = 'x@y.z'\n")
    done = run("process", "--config", "bad.toml", "-", cwd=site, stdin=mail("help"))
    assert done.returncode == 2
    assert b"adress" in done.stderr and b"address" in done.stderr


@pytest.mark.parametrize("command", [["serve"], ["process", "-"]])
def test_a_database_that_cannot_be_used_is_one_line_not_a_traceback(site, command):
    (site / "game.sqlite3").write_bytes(b"not a database, " * 400)
    done = run(*command, "--config", "pbm.toml", cwd=site, stdin=mail("help"))
    assert done.returncode == 1
    assert done.stderr.decode().splitlines() == [
        "pbm: the database named in the configuration (pbm.toml) cannot be used: file is not a database"]


def test_a_missing_message_file_is_a_failure(site):
    done = run("process", "--config", "pbm.toml", "nothere.eml", cwd=site)
    assert done.returncode != 0
    assert b"nothere.eml" in done.stderr


def test_tick_does_the_clock_work_as_of_the_time_given(site):
    def execute(sender: str, command: str, now: str) -> None:
        done = run("exec", "--config", "pbm.toml", "--now", now, "--from", sender, command, cwd=site, stdin=b"")
        assert done.returncode == 0, done.stderr

    execute("alice@example.org", "signup alice apple", "2026-05-01T09:00:00")
    execute("bob@example.org", "signup bob banana", "2026-05-01T09:00:00")
    execute("alice@example.org", "trax challenge alice bob apple", "2026-05-01T10:00:00")
    early = run("tick", "--config", "pbm.toml", "--now", "2026-05-08T09:59:00", cwd=site)
    assert early.returncode == 0, early.stderr
    assert replies_in(early.stdout, site) == []
    assert b"0 mails" in early.stderr
    # a dry run shows the reminder and keeps nothing, so the real run sends it again
    dry = run("tick", "--config", "pbm.toml", "--dry-run", "--now", "2026-05-08T10:00:00Z", cwd=site)
    assert [r["Subject"] for r in replies_in(dry.stdout, site)] == ["Nag: Trax Board 101 alice"]
    due = run("tick", "--config", "pbm.toml", "--now", "2026-05-08T10:00:00+00:00", cwd=site)
    assert [(r["To"], r["Subject"]) for r in replies_in(due.stdout, site)] == [
        ("alice@example.org", "Nag: Trax Board 101 alice")]
    assert b"1 mail" in due.stderr
    again = run("tick", "--config", "pbm.toml", "--now", "2026-05-08T10:00:00", cwd=site)
    assert replies_in(again.stdout, site) == []
    store = Store(site / "game.sqlite3")
    assert [r.recipient for r in store.unsent_replies() if b"Nag:" in r.message] == ["alice@example.org"]
    store.close()


def test_operator_tools_failed_mail_list_and_retry(site):
    store = Store(site / "game.sqlite3")
    with store.atomic():
        store.record_failed_mail("smtp", mail("signup carol cherry", sender="carol@example.org"),
                                 "Traceback ...\nRuntimeError: disk on fire", datetime(2026, 5, 1, tzinfo=UTC))
    store.close()
    listed = run("failed", "list", "--config", "pbm.toml", cwd=site)
    assert listed.returncode == 0, listed.stderr
    assert b"1  2026-05-01T00:00:00+00:00  smtp" in listed.stdout and b"RuntimeError: disk on fire" in listed.stdout
    assert b"waiting" in listed.stdout
    retried = run("failed", "retry", "1", "--config", "pbm.toml", cwd=site)
    assert retried.returncode == 0, retried.stderr
    assert [r["Subject"] for r in replies_in(retried.stdout, site)] == ["Welcome to Trax PBM, carol"]
    assert b"retried" in run("failed", "list", "--config", "pbm.toml", cwd=site).stdout
    missing = run("failed", "retry", "7", "--config", "pbm.toml", cwd=site)
    assert missing.returncode == 1 and b"no failed mail 7" in missing.stderr


def test_operator_tools_user_show_lock_unlock_and_stats(site):
    def execute(sender: str, command: str):
        done = run("exec", "--config", "pbm.toml", "--from", sender, command, cwd=site, stdin=b"")
        assert done.returncode == 0, done.stderr
        return replies_in(done.stdout, site)

    execute("alice@example.org", "signup alice apple alice@example.org home@example.net")
    execute("bob@example.org", "signup bob banana")
    execute("alice@example.org", "trax challenge alice bob apple")
    shown = run("user", "show", "ALICE", "--config", "pbm.toml", cwd=site)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout.decode()
    assert "userid:        alice" in out
    assert "address:       alice@example.org\n" in out
    assert "address:       home@example.net (waiting for confirmation)" in out
    assert "locked:        no" in out and "active: 101" in out
    assert "apple" not in out and "scrypt" not in out
    assert run("user", "lock", "alice", "--config", "pbm.toml", cwd=site).returncode == 0
    refused = execute("alice@example.org", "trax limit alice apple 3")
    plain = next(p for p in refused[0].walk() if p.get_content_type() == "text/plain")
    assert "locked by the server's operator" in plain.get_payload(decode=True).decode()
    unlocked = run("user", "unlock", "alice", "--config", "pbm.toml", cwd=site)
    assert b"locked:        no" in unlocked.stdout
    assert not is_error(execute("alice@example.org", "trax limit alice apple 3")[0])
    assert run("user", "show", "nobody", "--config", "pbm.toml", cwd=site).returncode == 1
    stats = run("stats", "--config", "pbm.toml", cwd=site)
    assert stats.returncode == 0, stats.stderr
    text = stats.stdout.decode()
    assert "mail handled:     5 (handled 5)" in text
    assert "users:            2" in text
    assert "active boards:    1 (trax 1)" in text
    assert re.search(r"replies: +0 sent, \d+ in the queue, 0 refused", text)


def test_commands_that_read_the_database_need_no_mail_server_password(site):
    """An [imap] password in an environment variable that is not set stops
    pbm serve (it would connect), and no command that only reads or writes
    the database."""
    (site / "pbm.toml").write_text(
        '[server]\naddress = "pbm@pbm.test"\ndatabase = "game.sqlite3"\n'
        '[imap]\nhost = "imap.example.org"\nusername = "pbm"\npassword_env = "PBM_TEST_UNSET_PASSWORD"\n'
        '[smtp]\nhost = "smtp.example.org"\nusername = "pbm"\npassword_env = "PBM_TEST_UNSET_PASSWORD"\n')
    done = run("exec", "--config", "pbm.toml", "--from", "alice@example.org", "signup alice apple", cwd=site)
    assert done.returncode == 0, done.stderr
    for args in (("stats",), ("user", "show", "alice"), ("failed", "list"), ("tick",)):
        shown = run(*args, "--config", "pbm.toml", cwd=site)
        assert shown.returncode == 0, (args, shown.stderr)
        assert b"PBM_TEST_UNSET_PASSWORD" not in shown.stderr
    served = run("serve", "--config", "pbm.toml", cwd=site)
    assert served.returncode == 2
    assert b"password_env names PBM_TEST_UNSET_PASSWORD, which is not set" in served.stderr


def test_operator_tools_list_the_addresses_that_bounce(site):
    assert run("bounces", "--config", "pbm.toml", cwd=site).stdout.decode().strip() == "no delivery reports"
    run("exec", "--config", "pbm.toml", "--from", "alice@example.org", "signup alice apple", cwd=site)
    run("exec", "--config", "pbm.toml", "--from", "bob@example.org", "signup bob banana", cwd=site)
    run("exec", "--config", "pbm.toml", "--from", "alice@example.org", "trax challenge alice bob apple", cwd=site)
    config = load_config(site / "pbm.toml")
    keys = Keyring.of(config)

    def bounce_last(where: str) -> subprocess.CompletedProcess:
        """A report that the last reply queued to bob (``where``) bounced,
        sent back to that reply's own bounce address."""
        store = Store(site / "game.sqlite3")
        try:
            row = list(store.db.query(f"SELECT * FROM outbox WHERE recipient = 'bob@example.org' {where}"))[-1]
        finally:
            store.close()
        original = message_from_bytes(row["message"], policy=policy.default)
        back = keys.bounce_address(config.server.envelope_address, row["id"], "bob@example.org")
        return run("process", "--config", "pbm.toml", "-", cwd=site,
                   stdin=delivery_report(original, when=datetime.now(UTC), to=back))

    done = bounce_last("")
    assert done.returncode == 0 and b"dropped:" in done.stderr and b"1 reply" in done.stderr  # the probe
    assert "no clock stopped" in run("bounces", "--config", "pbm.toml", cwd=site).stdout.decode()
    bounce_last("AND message_key LIKE 'probe:%'")
    shown = run("bounces", "--config", "pbm.toml", cwd=site).stdout.decode()
    assert shown.startswith("bob@example.org  (bob)  2 report(s), 2 failed;") and "clock stopped until" in shown


@pytest.mark.parametrize(("args", "says"), [
    (("tick", "--now", "garbage"), "'garbage' is no moment"),
    (("exec", "--from", "alice@example.org", "--now", "2026-13-45", "help"), "is no moment"),
    (("user",), "the following arguments are required"),
    (("failed", "retry", "x"), "invalid int value"),
    (("backup", "no/such/folder/copy.sqlite3"), "there is no folder no/such/folder"),
    (("nosuchcommand",), "invalid choice"),
])
def test_a_bad_argument_is_one_line_and_status_two(site, args, says):
    if args[0] == "backup":
        run("exec", "--config", "pbm.toml", "--from", "alice@example.org", "help", cwd=site)
    done = run(*args[:1], "--config", "pbm.toml", *args[1:], cwd=site) if args[0] != "nosuchcommand" else \
        run(*args, cwd=site)
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert says in err and "Traceback" not in err
    assert err.count("\n") == 1 and "the right form" in err, err
    assert done.stdout == b""


def test_backup_into_a_folder_names_the_copy_for_the_moment(site):
    run("exec", "--config", "pbm.toml", "--from", "alice@example.org", "help", cwd=site)
    (site / "backups").mkdir()
    done = run("backup", "--config", "pbm.toml", "backups", cwd=site)
    assert done.returncode == 0, done.stderr
    (copy,) = (site / "backups").iterdir()
    assert re.fullmatch(r"pbm-\d{8}T\d{6}Z\.sqlite3", copy.name)
    with sqlite3.connect(copy) as db:  # a whole database, with the help mail in it
        assert db.execute("SELECT count(*) FROM handled").fetchone()[0] == 1
