"""The daemon against a real Dovecot (IMAP, LMTP) and a real SMTP sink."""

from __future__ import annotations

import logging
import re
import smtplib
import sqlite3
import threading
from datetime import UTC
from email.message import EmailMessage

import pytest

from pbm.app.pipeline import Pipeline
from pbm.config import load_config
from pbm.domain.store import Store
from pbm.server.daemon import Daemon

from .daemon import SERVER, DaemonThread, command_mail, wait_until, write_config
from .servers import crlf, free_port

pytestmark = pytest.mark.integration

LOOP_GAME = ["@0+", "B1\\", "B2/", "A2+", "A3/", "A0\\", "@3+", "@3\\", "B2+"]


def game_mails() -> list[bytes]:
    mails = [
        command_mail("alice@example.org", "signup alice apple"),
        command_mail("bob@example.org", "signup bob banana"),
        command_mail("alice@example.org", "trax challenge alice bob apple"),
    ]
    for i, move in enumerate(LOOP_GAME):
        who, pw = ("alice", "apple") if i % 2 == 0 else ("bob", "banana")
        mails.append(command_mail(f"{who}@example.org", f"trax move 101 {who} {pw} {move}#{i + 1}"))
    return mails


def replies_to(sink, address: str) -> list:
    return [r.message() for r in sink.messages if address in r.rcpt_tos]


def check_game_replies(sink) -> None:
    # 2 welcomes, 2 new-board mails, 9 moves x 2 players
    received = sink.wait_for(2 + 2 + 18, timeout=90)
    assert len(received) == 22
    final = replies_to(sink, "bob@example.org")[-1]
    assert final["Subject"] == "Trax Board 101"
    assert "Game won by alice (white loop)." in final.get_body(("plain",)).get_content()
    # every board mail arrives with its picture, the HTML naming it by Content-ID
    for msg in [r.message() for r in received]:
        if "Board 101" not in str(msg["Subject"]):
            continue
        # (the last, with the game's record attached, is multipart/mixed around that)
        assert msg.get_content_type() in ("multipart/alternative", "multipart/mixed")
        assert msg.get_body(("plain",)) is not None
        png = next(p for p in msg.walk() if p.get_content_type() == "image/png")
        assert png.get_content()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f'src="cid:{png["Content-ID"].strip("<>")}"' in msg.get_body(("html",)).get_content()
    record = next(p for p in final.walk() if p.get_content_disposition() == "attachment")
    assert record.get_filename() == "trax-101.txt" and "9. B2+" in record.get_content()
    for r in received:
        msg = r.message()
        assert msg["Auto-Submitted"] == "auto-replied"
        assert msg["In-Reply-To"]
        assert re.fullmatch(r"pbm-bounce\+[0-9]+-[a-z2-7]{16}@mail\.test", r.mail_from)  # its own bounce address


def test_a_whole_game_by_mail_through_dovecot(tmp_path, dovecot, mail_user, sink):
    path = write_config(tmp_path, dovecot=dovecot, user=mail_user, sink=sink)
    with DaemonThread(path):
        for raw in game_mails():
            dovecot.deliver(mail_user.name, raw)
            # one at a time, as players would: each move needs the previous one
            before = len(sink.messages)
            wait_until(lambda n=before: len(sink.messages) > n, what="a reply")
        check_game_replies(sink)
        wait_until(lambda: dovecot.count(mail_user.name, mail_user.password, "pbm/processed") == 12,
                   what="processed mail")
    assert dovecot.count(mail_user.name, mail_user.password, "INBOX") == 0
    assert dovecot.count(mail_user.name, mail_user.password, "pbm/failed") == 0


def test_polling_without_idle_finds_the_mail(tmp_path, dovecot, mail_user, sink):
    path = write_config(tmp_path, dovecot=dovecot, user=mail_user, sink=sink, idle=False, poll_seconds=0.3)
    with DaemonThread(path):
        dovecot.deliver(mail_user.name, command_mail("carol@example.org", "help"))
        sink.wait_for(1, timeout=30)
        wait_until(lambda: dovecot.count(mail_user.name, mail_user.password, "pbm/processed") == 1)


def test_a_whole_game_through_the_smtp_listener(tmp_path, sink):
    port = free_port()
    path = write_config(tmp_path, sink=sink, listen_port=port)
    with DaemonThread(path):
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
            for raw in game_mails():
                smtp.sendmail("player@example.org", [SERVER], raw)
        check_game_replies(sink)


def test_a_hostile_html_mail_does_not_hold_up_a_bystanders_help(tmp_path, sink):
    """900 KB of unterminated <script tags (the old reader took minutes on
    it, and every other player waited); a bystander's help sent while it is
    in hand is answered at once, and so is the hostile mail."""
    port = free_port()
    path = write_config(tmp_path, sink=sink, listen_port=port)
    hostile = EmailMessage()
    hostile["From"], hostile["To"], hostile["Subject"] = "eve@example.org", SERVER, "hello"
    hostile.set_content("<script" * 130_000, subtype="html", cte="quoted-printable")
    with DaemonThread(path):
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as eve, \
                smtplib.SMTP("127.0.0.1", port, timeout=30) as bob:
            sending = threading.Thread(target=eve.sendmail, args=("eve@example.org", [SERVER], crlf(bytes(hostile))))
            sending.start()
            bob.sendmail("bob@example.org", [SERVER], command_mail("bob@example.org", "help"))
            wait_until(lambda: any("bob@example.org" in m.rcpt_tos for m in sink.messages), timeout=10,
                       what="the bystander's help")
            sending.join(timeout=30)
            assert not sending.is_alive()
        wait_until(lambda: len(sink.messages) == 2, timeout=10, what="the reply to the hostile mail")
    assert {m.rcpt_tos[0] for m in sink.messages} == {"bob@example.org", "eve@example.org"}


def test_raw_utf8_subjects_through_the_listener_keep_their_passwords_apart(tmp_path, sink):
    """SMTPUTF8 mail: a subject in raw UTF-8 bytes is read as UTF-8, so two
    passwords that differ only outside ASCII are two passwords."""
    port = free_port()
    path = write_config(tmp_path, sink=sink, listen_port=port)

    def raw(subject: str, n: int) -> bytes:
        return (f"From: alice@example.org\r\nTo: {SERVER}\r\nMessage-ID: <utf8-{n}@example.org>\r\n"
                f"Subject: {subject}\r\n\r\nhello\r\n").encode()

    with DaemonThread(path):
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
            for n, subject in enumerate(["signup alice pässwörd日本", "trax limit alice pÿsswÿrd丸丸 5",
                                         "trax limit alice pässwörd日本 5"]):
                smtp.sendmail("alice@example.org", [SERVER], raw(subject, n), mail_options=["SMTPUTF8"])
        replies = sink.wait_for(3)
    subjects = [str(r.message()["Subject"]) for r in replies]
    assert subjects[0].startswith("Welcome") and subjects[1] == "Trax error" and subjects[2] == "Trax limit"


def test_an_empty_envelope_sender_is_a_bounce_whatever_return_path_the_mail_carries(tmp_path, sink):
    port = free_port()
    path = write_config(tmp_path, sink=sink, listen_port=port)
    bounce = b"Return-Path: <alice@example.org>\r\n" + crlf(command_mail("alice@example.org", "help"))
    with DaemonThread(path) as daemon, smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.sendmail("", [SERVER], bounce)
        smtp.sendmail("alice@example.org", [SERVER], crlf(command_mail("alice@example.org", "help")))
        sink.wait_for(1)
        assert daemon.daemon.handled == 2
    assert [m.rcpt_tos for m in sink.messages] == [["alice@example.org"]]


def test_a_full_disk_is_a_temporary_failure_that_shows_nothing_of_the_server(tmp_path, sink, monkeypatch):
    port = free_port()
    path = write_config(tmp_path, sink=sink, listen_port=port)

    def full(self, raw):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Daemon, "_handle_waiting", full)
    monkeypatch.setattr(Daemon, "_record_failed", lambda self, raw, error: full(self, raw))
    with DaemonThread(path), smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp, \
            pytest.raises(smtplib.SMTPDataError) as refused:
        smtp.sendmail("alice@example.org", [SERVER], crlf(command_mail("alice@example.org", "help")))
    assert refused.value.smtp_code == 452
    assert b"OperationalError" not in refused.value.smtp_error and b"database" not in refused.value.smtp_error


def test_failed_mail_is_kept_in_part_and_a_few_a_day_from_one_sender(tmp_path, sink, monkeypatch):
    port = free_port()
    path = write_config(tmp_path, sink=sink, listen_port=port)

    def crash(self, raw):
        raise RuntimeError("a bug")

    monkeypatch.setattr(Daemon, "_handle_waiting", crash)
    big = crlf(command_mail("mallory@evil.test", "help", ("x" * 76 + "\n") * 26_000))  # two megabytes
    with DaemonThread(path), smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.sendmail("mallory@evil.test", [SERVER], big)
        for _ in range(12):
            smtp.sendmail("mallory@evil.test", [SERVER], crlf(command_mail("mallory@evil.test", "help")))
    store = Store(load_config(path).server.database)
    try:
        kept = store.failed_mail()
    finally:
        store.close()
    assert len(kept) == 10  # ten a day from one sender
    assert kept[0].size == 1024 * 1024 and "only the first 1,048,576 of" in kept[0].error


def test_the_daemons_log_never_holds_a_password_in_any_order(tmp_path, sink, caplog):
    port = free_port()
    path = write_config(tmp_path, sink=sink, listen_port=port)
    orders = ["trax move 101 alice Zq7Secret @0+", "trax move 101 Zq7Secret alice @0+",
              "trax move 101 alice @0+ Zq7Secret", "trax move Zq7Secret 101 alice @0+"]
    caplog.set_level(logging.WARNING, logger="mail.log")  # aiosmtpd's own chatter: pbm serve keeps it at WARNING
    with caplog.at_level(logging.DEBUG), DaemonThread(path), \
            smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        for sender, subject in [("alice", "signup alice Zq7Secret"), ("bob", "signup bob pw2"),
                                ("bob", "trax challenge alice bob pw2"), *(("alice", o) for o in orders)]:
            smtp.sendmail(f"{sender}@example.org", [SERVER], crlf(command_mail(f"{sender}@example.org", subject)))
        sink.wait_for(2 + 2 + 2 + 3)  # welcomes, the new board, the move, three refusals
    logged = caplog.text
    assert logged.count("via=smtp") == 3 + len(orders)
    assert "Zq7Secret" not in logged
    assert all("Zq7Secret" not in m.message().as_string() for m in sink.messages)


def test_the_listener_refuses_other_recipients_and_oversized_mail(tmp_path, sink):
    port = free_port()
    path = write_config(tmp_path, sink=sink, listen_port=port)
    path.write_text(path.read_text().replace("[listen]\n", "[listen]\nmax_message_bytes = 2000\n"))
    with DaemonThread(path):
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
            smtp.ehlo()
            code, _ = smtp.docmd("MAIL FROM:<a@example.org>")
            assert code == 250
            code, _ = smtp.docmd("RCPT TO:<someone@else.example>")
            assert code == 550
            smtp.rset()
            try:
                smtp.sendmail("a@example.org", [SERVER], command_mail("a@example.org", "help", "x" * 5000))
            except smtplib.SMTPDataError as exc:
                assert exc.smtp_code == 552
            except smtplib.SMTPSenderRefused as exc:
                assert exc.smtp_code == 552
            else:
                raise AssertionError("oversized mail was accepted")
        assert sink.messages == []


def test_dovecot_restarted_mid_run_loses_nothing(tmp_path, dovecot, mail_user, sink):
    path = write_config(tmp_path, dovecot=dovecot, user=mail_user, sink=sink)
    with DaemonThread(path):
        for i in range(3):
            dovecot.deliver(mail_user.name, command_mail(f"p{i}@example.org", f"signup p{i} pw{i}"))
        sink.wait_for(3, timeout=60)
        dovecot.restart()
        for i in range(3, 6):
            dovecot.deliver(mail_user.name, command_mail(f"p{i}@example.org", f"signup p{i} pw{i}"))
        received = sink.wait_for(6, timeout=90)
        wait_until(lambda: dovecot.count(mail_user.name, mail_user.password, "pbm/processed") == 6,
                   timeout=90, what="all six processed")
    assert sorted(r.rcpt_tos[0] for r in received) == [f"p{i}@example.org" for i in range(6)]


def test_replies_wait_while_the_relay_is_down_then_arrive_once_in_order(tmp_path, sink):
    port = free_port()
    path = write_config(tmp_path, sink=sink, listen_port=port)
    sink.stop()
    with DaemonThread(path) as running:
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
            smtp.sendmail("a@example.org", [SERVER], command_mail("alice@example.org", "signup alice apple"))
            smtp.sendmail("b@example.org", [SERVER], command_mail("bob@example.org", "signup bob banana"))
            challenge = command_mail("alice@example.org", "trax challenge alice bob apple")
            smtp.sendmail("a@example.org", [SERVER], challenge)
            for i, move in enumerate(LOOP_GAME[:4]):
                who, pw = ("alice", "apple") if i % 2 == 0 else ("bob", "banana")
                smtp.sendmail("x@example.org", [SERVER],
                              command_mail(f"{who}@example.org", f"trax move 101 {who} {pw} {move}"))
        store = running.daemon.store
        wait_until(lambda: running.daemon.handled == 7, what="all commands handled")
        wait_until(lambda: running.daemon.outbox.delay > 0.2, what="a failed relay attempt")
        assert sink.messages == []
        sink.start()
        received = sink.wait_for(2 + 2 + 8, timeout=60)
    assert len(received) == 12
    del store
    for player in ("alice@example.org", "bob@example.org"):
        subjects = [str(m["Subject"]) for m in replies_to(sink, player)]
        assert subjects[0].startswith("Welcome")
        assert subjects[1] == "New Trax Board 101 alice"
        # board mails in the order the moves were made
        assert subjects[2:] == ["Trax Board 101 bob", "Trax Board 101 alice", "Trax Board 101 bob",
                                "Trax Board 101 alice"]


def test_automatic_mail_and_our_own_replies_get_no_answer(tmp_path, dovecot, mail_user, sink):
    path = write_config(tmp_path, dovecot=dovecot, user=mail_user, sink=sink)
    bounce = (
        b"From: MAILER-DAEMON@example.org\r\nTo: pbm@mail.test\r\nSubject: Undelivered Mail Returned to Sender\r\n"
        b"Message-ID: <bounce1@example.org>\r\nMIME-Version: 1.0\r\n"
        b"Content-Type: multipart/report; report-type=delivery-status; boundary=XX\r\n\r\n"
        b"--XX\r\nContent-Type: text/plain\r\n\r\nhelp\r\n--XX--\r\n"
    )
    vacation = command_mail("alice@example.org", "Auto: help", "I am away", Auto_Submitted="auto-replied")
    listmail = command_mail("list@lists.example.org", "help", List_Id="<trax.lists.example.org>",
                            Precedence="list")
    own = command_mail(SERVER, "Trax Board 101 alice", "a reply of ours, looped back")
    with DaemonThread(path) as running:
        dovecot.deliver(mail_user.name, bounce, mail_from="")
        dovecot.deliver(mail_user.name, vacation)
        dovecot.deliver(mail_user.name, listmail)
        dovecot.deliver(mail_user.name, own)
        dovecot.deliver(mail_user.name, command_mail("carol@example.org", "help"))  # a real one last
        sink.wait_for(1, timeout=60)
        wait_until(lambda: dovecot.count(mail_user.name, mail_user.password, "pbm/processed") == 5)
        wait_until(lambda: running.daemon.handled == 5)
    assert [r.rcpt_tos for r in sink.messages] == [["carol@example.org"]]


def test_the_daemon_does_the_clock_work_and_sends_the_reminders(tmp_path, sink):
    from datetime import datetime, timedelta


    path = write_config(tmp_path, sink=sink, listen_port=free_port())
    config = load_config(path)
    store = Store(config.server.database)
    pipeline = Pipeline(store, config)
    long_ago = datetime.now(UTC) - timedelta(days=8)
    for sender, subject in (("alice@example.org", "signup alice apple"), ("bob@example.org", "signup bob banana"),
                            ("alice@example.org", "trax challenge alice bob apple")):
        pipeline.exec_command(sender, subject, now=long_ago)
    with store.atomic():  # those went out long ago
        for reply in store.unsent_replies():
            store.mark_sent(reply.id, long_ago)
    store.close()
    with DaemonThread(path):
        (nag,) = sink.wait_for(1, timeout=30)
        assert nag.message()["Subject"] == "Nag: Trax Board 101 alice"
        assert nag.rcpt_tos == ["alice@example.org"]
