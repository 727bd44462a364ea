"""``pbm check-config`` against the real Dovecot and sink, a wrong password,
a missing mailbox, closed ports and a file with a mistake in it."""

from __future__ import annotations

import pytest

from pbm.server.checkconfig import check
from tests.mail.servers import free_port

from .conftest import pbm, write_config

pytestmark = pytest.mark.integration


def imap_section(host: str, port: int, user: str, password: str, mailbox: str = "INBOX") -> list[str]:
    return ["[imap]", f'host = "{host}"', f"port = {port}", f'username = "{user}"', f'password = "{password}"',
            'tls = "none"', f'mailbox = "{mailbox}"']


def by_what(findings) -> dict[str, tuple[bool, str]]:
    return {f.what.split(" ")[0]: (f.ok, f.detail) for f in findings}


def test_a_good_configuration_logs_in_to_both_servers(site, dovecot, mail_user, sink):
    config = write_config(site, *imap_section(dovecot.host, dovecot.imap_port, mail_user.name, mail_user.password),
                          sink=sink)
    done = pbm("check-config", str(config), cwd=site)
    assert done.returncode == 0, done.stdout
    out = done.stdout.decode()
    assert f"ok    IMAP {dovecot.host}:{dovecot.imap_port}: logged in as '{mail_user.name}'" in out
    assert f"ok    SMTP relay {sink.host}:{sink.port}: the relay answers" in out
    assert "ok    database:" in out and out.rstrip().endswith("all good")
    assert "FAIL" not in out
    assert sink.messages == []  # nothing was sent


def test_missing_mailbox_and_wrong_password_are_said_in_plain_words(site, dovecot, mail_user):
    missing = write_config(site, *imap_section(dovecot.host, dovecot.imap_port, mail_user.name,
                                               mail_user.password, mailbox="pbm/nowhere"), name="missing.toml")
    ok, detail = by_what(check(str(missing), timeout=5))["IMAP"]
    assert not ok and "the mailbox 'pbm/nowhere' cannot be opened" in detail
    # last of the tests on this Dovecot: after a failed login it makes the next ones from 127.0.0.1 wait
    wrong = write_config(site, *imap_section(dovecot.host, dovecot.imap_port, mail_user.name, "not-it"))
    ok, detail = by_what(check(str(wrong), timeout=5))["IMAP"]
    assert not ok and f"refused the login of '{mail_user.name}'" in detail and "check username and password" in detail
    assert "not-it" not in detail


def test_closed_ports_say_that_nothing_listens_and_the_exit_status_is_1(site):
    imap_port, smtp_port = free_port(), free_port()
    lines = imap_section("127.0.0.1", imap_port, "someone", "secret")
    lines += ["", "[smtp]", 'host = "127.0.0.1"', f"port = {smtp_port}", 'tls = "none"']
    config = write_config(site, *lines)
    done = pbm("check-config", str(config), "--timeout", "3", cwd=site)
    assert done.returncode == 1
    out = done.stdout.decode()
    assert f"FAIL  IMAP 127.0.0.1:{imap_port}: nothing listens at 127.0.0.1:{imap_port} (connection refused)" in out
    assert f"FAIL  SMTP relay 127.0.0.1:{smtp_port}: nothing listens at 127.0.0.1:{smtp_port}" in out
    assert out.rstrip().endswith("2 problems found")


def test_a_mistake_in_the_file_is_named_by_section_and_key(site):
    (site / "pbm.toml").write_text('[listen]\nprotocol = "lmpt"\n')
    done = pbm("check-config", str(site / "pbm.toml"), cwd=site)
    assert done.returncode == 1
    assert b"FAIL  configuration:" in done.stdout and b"[listen] protocol" in done.stdout
    assert b"did you mean 'lmtp'?" in done.stdout


def test_a_port_already_taken_is_found(site, sink):
    config = write_config(site, "[listen]", "enabled = true", f"port = {sink.port}")
    found = by_what(check(str(config)))
    ok, detail = found["SMTP"]  # the SMTP listener
    assert not ok and f"something else listens on 127.0.0.1:{sink.port}" in detail
    assert found["database"][0]


def test_the_lmtp_socket_of_the_readme_is_fine_before_systemd_made_its_folder(site):
    config = write_config(site, "[listen]", 'protocol = "lmtp"', 'socket = "/run/pbm/lmtp.sock"')
    ok, detail = by_what(check(str(config)))["LMTP"]
    assert ok and "/run/pbm/lmtp.sock" in detail
