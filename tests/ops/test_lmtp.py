"""The listener speaking LMTP (``[listen] protocol = "lmtp"``), over TCP and
over a unix socket, as Postfix's lmtp client uses it: a status for each
recipient."""

from __future__ import annotations

import smtplib
import socket
import stat

import pytest

from pbm.config import load_config
from tests.mail.daemon import DaemonThread, wait_until
from tests.mail.servers import free_port

from .conftest import SERVER, command_mail, count, write_config

pytestmark = pytest.mark.integration


def lmtp_config(site, sink, *, socket_path=None, port=None):
    where = [f'socket = "{socket_path}"'] if socket_path else [f"port = {port}"]
    return write_config(site, "[listen]", "enabled = true", 'protocol = "lmtp"', *where, sink=sink)


def test_lmtp_over_tcp_answers_each_recipient(site, sink):
    port = free_port()
    with DaemonThread(lmtp_config(site, sink, port=port)):
        client = smtplib.LMTP("127.0.0.1", port, timeout=10)
        try:
            code, _ = client.ehlo()  # smtplib.LMTP sends LHLO
            assert code == 250
            assert client.docmd("EHLO", "me")[0] == 500  # not an LMTP command
            assert client.mail("alice@example.org")[0] == 250
            assert client.rcpt(SERVER)[0] == 250
            code, why = client.rcpt("someone@elsewhere.test")
            assert code == 550 and b"No such recipient" in why
            assert client.data(command_mail("alice@example.org", "help"))[0] == 250  # one recipient: one status
            refused = client.sendmail("bob@example.org", [SERVER, "someone@elsewhere.test"],
                                      command_mail("bob@example.org", "help"))
        finally:
            client.quit()
        assert list(refused) == ["someone@elsewhere.test"] and refused["someone@elsewhere.test"][0] == 550
        replies = sink.wait_for(2)
        assert sorted(r.rcpt_tos[0] for r in replies) == ["alice@example.org", "bob@example.org"]


def test_lmtp_over_a_unix_socket_gives_a_status_line_per_recipient(site, sink, short_dir):
    path = short_dir / "lmtp.sock"
    path.touch()  # a file that is no socket is left alone: the bind then fails
    with pytest.raises(OSError), DaemonThread(lmtp_config(site, sink, socket_path=path)):
        pass
    path.unlink()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dead:  # a socket left by a daemon that died
        dead.bind(str(path))
    assert stat.S_ISSOCK(path.stat().st_mode)
    config = lmtp_config(site, sink, socket_path=path)
    assert load_config(config).listen.socket == path
    with DaemonThread(config):
        assert stat.S_ISSOCK(path.stat().st_mode) and stat.S_IMODE(path.stat().st_mode) == 0o666
        raw = command_mail("bob@example.org", "help").replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(10)
            conn.connect(str(path))
            stream = conn.makefile("rwb")

            def say(line: bytes) -> None:
                stream.write(line + b"\r\n")
                stream.flush()

            def answer() -> bytes:
                lines = [stream.readline()]
                while lines[-1][3:4] == b"-":
                    lines.append(stream.readline())
                return lines[-1]

            assert answer().startswith(b"220")
            say(b"LHLO client.test")
            assert answer().startswith(b"250")
            say(b"MAIL FROM:<bob@example.org>")
            assert answer().startswith(b"250")
            say(b"RCPT TO:<pbm@mail.test>")
            assert answer().startswith(b"250")
            say(b"RCPT TO:<nobody@mail.test>")
            assert answer().startswith(b"550")
            say(b"RCPT TO:<pbm+r-tag@mail.test>")
            assert answer().startswith(b"250")
            say(b"DATA")
            assert answer().startswith(b"354")
            stream.write(raw + b".\r\n")
            stream.flush()
            statuses = [stream.readline(), stream.readline()]  # one for each recipient accepted
            assert all(s.startswith(b"250 ") for s in statuses), statuses
            say(b"QUIT")
            assert answer().startswith(b"221")
        sink.wait_for(1)
        # handled once for both recipients
        wait_until(lambda: count(site / "pbm.sqlite3", "SELECT COUNT(*) FROM handled") == 1, what="the record")
    assert len(sink.messages) == 1
