"""TLS to the IMAP server and to the relay: ``tls = "ssl"`` and
``"starttls"`` against a real Dovecot and a real aiosmtpd sink that hold a
certificate from a throwaway authority (``ca_file``), and what happens when
the certificate is not trusted or TLS is not on offer: nothing goes over the
wire in plain text, the daemon says why in its log, and no mail or reply is
lost."""

from __future__ import annotations

import logging
import secrets
import shutil
import smtplib
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import MailUser
from .daemon import SERVER, DaemonThread, command_mail, wait_until, write_config
from .servers import Dovecot, Sink, TestCertificates, free_port

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def certificates() -> Iterator[TestCertificates]:
    directory = Path(tempfile.mkdtemp(prefix="pbmtls", dir="/tmp"))
    try:
        yield TestCertificates(directory)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="module")
def tls_dovecot(certificates: TestCertificates) -> Iterator[Dovecot]:
    """A Dovecot of its own that offers STARTTLS on ``imap_port`` and TLS
    from the start on ``imaps_port``."""
    with Dovecot(certificates=certificates) as server:
        yield server


@pytest.fixture
def tls_user(tls_dovecot: Dovecot) -> MailUser:
    user = MailUser(name="t" + secrets.token_hex(3), password="secret-pw")
    tls_dovecot.add_user(user.name, user.password)
    return user


def logins(dovecot: Dovecot, user: MailUser) -> list[str]:
    """Dovecot's log lines of the user's IMAP logins."""
    return [line for line in dovecot.log().splitlines() if "Login:" in line and f"user=<{user.name}>" in line]


def warnings_about(caplog, logger: str, text: str) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == logger and r.levelno >= logging.WARNING and text in r.getMessage()]


@pytest.mark.parametrize("imap_tls", ["ssl", "starttls"])
@pytest.mark.parametrize("smtp_tls", ["ssl", "starttls"])
def test_a_command_and_its_reply_over_tls(tmp_path, certificates, tls_dovecot, tls_user, imap_tls, smtp_tls):
    with Sink(tls_context=certificates.server_context(), implicit_tls=smtp_tls == "ssl") as sink:
        sink.start()
        path = write_config(tmp_path, dovecot=tls_dovecot, user=tls_user, sink=sink,
                            imap_tls=imap_tls, smtp_tls=smtp_tls, ca_file=certificates.ca_file)
        with DaemonThread(path):
            tls_dovecot.deliver(tls_user.name, command_mail("carol@example.org", "help"))
            [reply] = sink.wait_for(1, timeout=30)
            daemon_logins = logins(tls_dovecot, tls_user)  # before the test logs in (in plain text) below
            wait_until(lambda: tls_dovecot.count(tls_user.name, tls_user.password, "pbm/processed") == 1,
                       what="the mail in the processed folder")
    assert reply.rcpt_tos == ["carol@example.org"]
    assert reply.mail_from.startswith("pbm-bounce+") and reply.mail_from.endswith("@mail.test")
    assert reply.tls, "the reply went to the relay in plain text"
    assert "help" in str(reply.message()["Subject"]).lower()
    assert daemon_logins, "the daemon never logged in"
    assert all(", TLS," in line for line in daemon_logins), daemon_logins


def expect_no_imap_login(tmp_path, caplog, dovecot: Dovecot, user: MailUser, imap_tls: str, warning: str) -> None:
    """The daemon warns (``warning`` in the message), never logs in, and
    the mail waits in the inbox."""
    caplog.set_level(logging.WARNING, logger="pbm")
    path = write_config(tmp_path, dovecot=dovecot, user=user, imap_tls=imap_tls)  # no ca_file
    dovecot.deliver(user.name, command_mail("carol@example.org", "help"))
    with DaemonThread(path):
        wait_until(lambda: warnings_about(caplog, "pbm.inbox", warning), timeout=30, what=f"a warning: {warning}")
    assert logins(dovecot, user) == []
    assert dovecot.count(user.name, user.password, "INBOX") == 1


@pytest.mark.parametrize("imap_tls", ["ssl", "starttls"])
def test_an_untrusted_imap_certificate_stops_the_login_and_the_mail_waits(
        tmp_path, caplog, tls_dovecot, tls_user, imap_tls):
    expect_no_imap_login(tmp_path, caplog, tls_dovecot, tls_user, imap_tls, "CERTIFICATE_VERIFY_FAILED")


def test_no_imap_login_in_plain_text_when_starttls_is_not_offered(tmp_path, caplog, dovecot, mail_user):
    """The shared test Dovecot has ``ssl = no``: it offers no STARTTLS."""
    expect_no_imap_login(tmp_path, caplog, dovecot, mail_user, "starttls", "STARTTLS")


def expect_reply_held(tmp_path, caplog, sink: Sink, warning: str, **relay) -> None:
    """A help mail through the listener is handled, but its reply does not
    reach the sink: the outbox warns (``warning`` in the message).  Every
    log record is kept, debug ones too (a caller checks for secrets)."""
    caplog.set_level(logging.DEBUG)
    port = free_port()
    path = write_config(tmp_path, sink=sink, listen_port=port, **relay)
    with DaemonThread(path) as running:
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
            smtp.sendmail("carol@example.org", [SERVER], command_mail("carol@example.org", "help"))
        wait_until(lambda: warnings_about(caplog, "pbm.outbox", warning), timeout=30, what=f"a warning: {warning}")
        assert running.daemon.handled == 1
    assert sink.messages == []


@pytest.mark.parametrize("smtp_tls", ["ssl", "starttls"])
def test_replies_wait_while_the_relay_certificate_is_untrusted(tmp_path, caplog, certificates, smtp_tls):
    """Without ``ca_file`` the relay's certificate is refused and the reply
    stays queued; with it, the same reply goes out once."""
    with Sink(tls_context=certificates.server_context(), implicit_tls=smtp_tls == "ssl") as sink:
        sink.start()
        expect_reply_held(tmp_path, caplog, sink, "CERTIFICATE_VERIFY_FAILED", smtp_tls=smtp_tls)
        trusted = write_config(tmp_path, sink=sink, smtp_tls=smtp_tls, ca_file=certificates.ca_file)
        with DaemonThread(trusted):
            [reply] = sink.wait_for(1, timeout=30)
    assert reply.rcpt_tos == ["carol@example.org"]
    assert reply.tls


def test_no_reply_in_plain_text_when_the_relay_offers_no_starttls(tmp_path, caplog, sink):
    expect_reply_held(tmp_path, caplog, sink, "STARTTLS", smtp_tls="starttls")


def test_the_relay_login_goes_over_starttls_and_a_wrong_password_is_never_logged(tmp_path, caplog, certificates):
    """The usual submission set-up (port 587: STARTTLS, then AUTH): the
    reply goes out logged in; with a wrong password it waits, the log says
    the login failed without quoting the password, and it goes out once the
    password is right."""
    wrong = "wrong-pw-7f3a"
    with Sink(username="relayuser", password="right-pw-2b9c", tls_context=certificates.server_context()) as sink:
        sink.start()
        expect_reply_held(tmp_path, caplog, sink, "SMTPAuthenticationError", smtp_tls="starttls",
                          ca_file=certificates.ca_file, smtp_login=("relayuser", wrong))
        assert wrong not in caplog.text
        right = write_config(tmp_path, sink=sink, smtp_tls="starttls", ca_file=certificates.ca_file,
                             smtp_login=("relayuser", "right-pw-2b9c"))
        with DaemonThread(right):
            [reply] = sink.wait_for(1, timeout=30)
    assert "right-pw-2b9c" not in caplog.text
    assert reply.rcpt_tos == ["carol@example.org"]
    assert (reply.login, reply.tls) == ("relayuser", True)
