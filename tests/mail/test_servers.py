"""The mail test servers themselves, against the real Dovecot and aiosmtpd:
delivery over LMTP, reading and appending over IMAP, a restart that keeps
the mail, and the SMTP sink (envelope and bytes, down and up again on the
same port, refusals, AUTH)."""

from __future__ import annotations

import email.utils
import smtplib
import socket

import pytest

from tests.mail.servers import Dovecot, MailServerError, Sink

pytestmark = pytest.mark.integration


def make_mail(subject: str, body: str = "hello\n", to: str = "game@mail.test") -> bytes:
    return (
        f"From: Alice <alice@example.org>\n"
        f"To: {to}\n"
        f"Subject: {subject}\n"
        f"Message-ID: {email.utils.make_msgid(domain='example.org')}\n"
        f"\n{body}"
    ).encode()


def test_lmtp_delivery_reads_back_over_imap(dovecot, mail_user):
    for i in range(3):
        dovecot.deliver(mail_user.name, make_mail(f"move {i}", ".dot line\n", mail_user.address),
                        mail_from="alice@example.org")
    assert dovecot.count(mail_user.name, mail_user.password, "INBOX") == 3
    raws = dovecot.messages(mail_user.name, mail_user.password, "INBOX")
    assert len(raws) == 3
    for i, raw in enumerate(raws):
        assert raw.startswith(b"Return-Path: <alice@example.org>\r\n")
        assert f"Delivered-To: {mail_user.address}\r\n".encode() in raw
        assert b"\r\nReceived: from " in raw
        assert f"\r\nSubject: move {i}\r\n".encode() in raw
        assert raw.endswith(b"\r\n\r\n.dot line\r\n")   # dot-stuffing undone, CRLF
    # messages() peeks: nothing was marked \Seen.
    assert [flags for _, flags, _ in dovecot.fetch(mail_user.name, mail_user.password)] == [
        frozenset()] * 3
    assert dovecot.status(mail_user.name, mail_user.password)["UNSEEN"] == 3


def test_delivery_to_full_address_and_unknown_user(dovecot, mail_user):
    dovecot.deliver_many(mail_user.address, [make_mail("a"), make_mail("b")])
    assert dovecot.count(mail_user.name, mail_user.password) == 2
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        dovecot.deliver("nosuchuser", make_mail("lost"))


def test_append_into_new_folder(dovecot, mail_user):
    user, password = mail_user.name, mail_user.password
    assert dovecot.messages(user, password, "pbm/processed") == []
    assert dovecot.count(user, password, "pbm/processed") == 0
    uid = dovecot.append(user, password, "pbm/processed", make_mail("appended"), flags="\\Seen")
    assert uid == 1
    assert dovecot.append(user, password, "pbm/processed", make_mail("second")) == 2
    assert dovecot.mailboxes(user, password) == ["INBOX", "pbm/processed"]
    got = dovecot.fetch(user, password, "pbm/processed")
    assert [(u, f) for u, f, _ in got] == [(1, frozenset({"\\Seen"})), (2, frozenset())]
    assert b"Subject: appended\r\n" in got[0][2]
    assert dovecot.count(user, password, "INBOX") == 0


def test_mailboxes_of_a_new_user(dovecot, mail_user):
    assert dovecot.mailboxes(mail_user.name, mail_user.password) == ["INBOX"]
    dovecot.create(mail_user.name, mail_user.password, "Sent Items")
    dovecot.create(mail_user.name, mail_user.password, "Sent Items")   # exists: no error
    assert dovecot.mailboxes(mail_user.name, mail_user.password) == ["INBOX", "Sent Items"]


def test_restart_keeps_mail(dovecot, mail_user):
    dovecot.deliver(mail_user.name, make_mail("before restart"))
    ports = dovecot.imap_port, dovecot.lmtp_port
    dovecot.restart()
    assert (dovecot.imap_port, dovecot.lmtp_port) == ports
    dovecot.deliver(mail_user.name, make_mail("after restart"))
    raws = dovecot.messages(mail_user.name, mail_user.password)
    assert [b"Subject: before restart\r\n" in raws[0], b"Subject: after restart\r\n" in raws[1]] \
        == [True, True]


def test_failed_start_shows_the_log():
    server = Dovecot()
    try:
        with socket.socket() as blocker:
            blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            blocker.bind((server.host, server.imap_port))
            blocker.listen()
            with pytest.raises(MailServerError, match=r"(?s)exited.*Address already in use"):
                server.start(timeout=5)
        assert not server.running
    finally:
        server.close()
    assert not server.path.exists()


def test_sink_keeps_envelope_and_bytes(sink):
    raw = b"From: pbm@localhost\r\nTo: bob@example.org\r\nSubject: Trax Board 101 bob\r\n\r\n.x\r\n"
    with smtplib.SMTP(sink.host, sink.port, timeout=10) as client:
        client.sendmail("pbm@localhost", ["bob@example.org", "carol@example.org"], raw)
        client.sendmail("<>", ["dave@example.org"], b"Subject: second\r\n\r\nbody\r\n")
    first, second = sink.wait_for(2)
    assert first == ("pbm@localhost", ["bob@example.org", "carol@example.org"], raw)
    assert first.login is None
    mail_from, rcpt_tos, _ = second
    assert (mail_from, rcpt_tos) == ("<>", ["dave@example.org"])
    assert first.message()["Subject"] == "Trax Board 101 bob"
    assert sink.messages == [first, second]


def test_sink_wait_for_times_out_with_the_count(sink):
    with pytest.raises(AssertionError, match="0 message"):
        sink.wait_for(1, timeout=0.2)


def test_sink_down_and_up_on_the_same_port(sink):
    port = sink.port
    open_client = smtplib.SMTP(sink.host, port, timeout=10)
    try:
        open_client.ehlo()
        sink.stop()
        with pytest.raises(ConnectionRefusedError):
            smtplib.SMTP(sink.host, port, timeout=10)
        # A connection open when the relay went down is dropped, too.
        with pytest.raises((smtplib.SMTPServerDisconnected, ConnectionError)):
            open_client.sendmail("a@example.org", ["b@example.org"], b"Subject: lost\r\n\r\nx\r\n")
    finally:
        open_client.close()
    sink.start()
    assert sink.port == port
    with smtplib.SMTP(sink.host, port, timeout=10) as client:
        client.sendmail("a@example.org", ["b@example.org"], b"Subject: back\r\n\r\nx\r\n")
    assert [m.message()["Subject"] for m in sink.wait_for(1)] == ["back"]


def test_sink_rejects_on_request(sink):
    sink.reject("451 4.3.0 Try again later", times=1)
    with smtplib.SMTP(sink.host, sink.port, timeout=10) as client:
        with pytest.raises(smtplib.SMTPDataError) as refused:
            client.sendmail("a@example.org", ["b@example.org"], b"Subject: 1\r\n\r\nx\r\n")
        assert refused.value.smtp_code == 451
        client.sendmail("a@example.org", ["b@example.org"], b"Subject: 2\r\n\r\nx\r\n")
        sink.reject("554 5.7.1 No")
        with pytest.raises(smtplib.SMTPDataError):
            client.sendmail("a@example.org", ["b@example.org"], b"Subject: 3\r\n\r\nx\r\n")
        sink.accept()
        client.sendmail("a@example.org", ["b@example.org"], b"Subject: 4\r\n\r\nx\r\n")
    assert [m.message()["Subject"] for m in sink.messages] == ["2", "4"]
    assert sink.rejected == 2


def test_sink_with_login():
    with Sink(username="pbm", password="s3cret") as sink:
        with (smtplib.SMTP(sink.host, sink.port, timeout=10) as client,
              pytest.raises(smtplib.SMTPSenderRefused)):
            client.sendmail("a@example.org", ["b@example.org"], b"Subject: no\r\n\r\nx\r\n")
        with (smtplib.SMTP(sink.host, sink.port, timeout=10) as client,
              pytest.raises(smtplib.SMTPAuthenticationError)):
            client.login("pbm", "wrong")
        with smtplib.SMTP(sink.host, sink.port, timeout=10) as client:
            client.login("pbm", "s3cret")
            client.sendmail("a@example.org", ["b@example.org"], b"Subject: yes\r\n\r\nx\r\n")
        (got,) = sink.wait_for(1)
        assert got.login == "pbm"
    assert not sink.running
