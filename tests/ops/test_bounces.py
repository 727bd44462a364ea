"""Bounces through the ways a mail server hands mail over: Postfix's pipe
to ``pbm deliver`` (empty envelope sender, the tagged bounce address as
recipient) and LMTP.  A report to the bounce address of one of our mails,
its tag checked, asks for a probe; a forged one does nothing."""

from __future__ import annotations

import smtplib
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from email import message_from_bytes, policy

import pytest

from pbm.config import load_config
from pbm.domain.seals import Keyring
from tests.app.replies import delivery_report
from tests.mail.daemon import DaemonThread, wait_until
from tests.mail.servers import free_port

from .conftest import SERVER, command_mail, pbm, write_config
from .test_deliver import deliver

pytestmark = pytest.mark.integration

B = "bob@example.org"


def _seed(site) -> None:
    for sender, command in (("alice@example.org", "signup alice apple"), (B, "signup bob banana"),
                            ("alice@example.org", "trax challenge alice bob apple")):
        done = pbm("exec", "--config", "pbm.toml", "--from", sender, command, cwd=site, stdin=b"")
        assert done.returncode == 0, done.stderr


def _last_to_bob(site) -> tuple[int, bytes]:
    with closing(sqlite3.connect(site / "pbm.sqlite3")) as db:
        return db.execute("SELECT id, message FROM outbox WHERE recipient = ? ORDER BY id DESC LIMIT 1",
                          (B,)).fetchone()


def _probes(site) -> int:
    with closing(sqlite3.connect(site / "pbm.sqlite3")) as db:
        return db.execute("SELECT COUNT(*) FROM outbox WHERE message_key LIKE 'probe:%'").fetchone()[0]


def test_a_report_piped_to_pbm_deliver_counts_only_at_its_own_bounce_address(site):
    write_config(site)
    _seed(site)
    config = load_config(site / "pbm.toml")
    number, message = _last_to_bob(site)
    original = message_from_bytes(message, policy=policy.default)
    back = Keyring.of(config).bounce_address(config.server.envelope_address, number, B)
    # forged: to the server's own address, naming our Message-ID; to a bounce address with a wrong tag
    forged = back.replace(back.partition("-")[2].partition("@")[0][-4:], "aaaa")
    for to in (SERVER, forged):
        done = deliver(site, delivery_report(original, when=datetime.now(UTC), to=to), sender="", recipient=to)
        assert done.returncode == 0 and b"dropped" in done.stderr, done.stderr
    assert _probes(site) == 0
    done = deliver(site, delivery_report(original, when=datetime.now(UTC), to=back), sender="", recipient=back)
    assert done.returncode == 0 and b"1 reply queued" in done.stderr, done.stderr
    assert _probes(site) == 1


def test_a_report_over_lmtp_to_a_bounce_address_is_taken_and_probed(site, sink):
    port = free_port()
    path = write_config(site, "[listen]", "enabled = true", 'protocol = "lmtp"', f"port = {port}", sink=sink)
    _seed(site)
    config = load_config(path)
    number, message = _last_to_bob(site)
    back = Keyring.of(config).bounce_address(config.server.envelope_address, number, B)
    report = delivery_report(message_from_bytes(message, policy=policy.default), when=datetime.now(UTC), to=back)
    with DaemonThread(path):
        client = smtplib.LMTP("127.0.0.1", port, timeout=10)
        try:
            client.ehlo()
            assert client.sendmail("", [back], report) == {}  # the bounce address is ours: taken
            assert client.sendmail("", [SERVER], command_mail("x@example.org", "help")) == {}
        finally:
            client.quit()
        wait_until(lambda: _probes(site) == 1, timeout=30, what="the probe")
        wait_until(lambda: any(B in r.rcpt_tos and "checking that mail reaches bob" in str(r.message()["Subject"])
                               for r in sink.messages), timeout=30, what="the probe sent")
