"""The README's first command: ``pbm serve`` on its embedded default.

The embedded default listens on 127.0.0.1:2525 (tests/test_config.py checks
that); here the server runs on the default in everything but the port, a
free one given in a config file of one line, so that the test never meets
another program (or another test run) on 2525."""

from __future__ import annotations

import re
import signal
import smtplib
import socket
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbm.config import load_config

from .daemon import wait_until
from .servers import free_port

pytestmark = pytest.mark.integration

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_example(port: int) -> str:
    """The README's smtplib example, sending to ``port``."""
    found = re.search(r"\.venv/bin/python -c '\n(.*?)'\n", README.read_text(encoding="utf-8"), re.DOTALL)
    assert found, "the README has its smtplib example"
    code = textwrap.dedent(found.group(1))
    assert '"127.0.0.1", 2525' in code
    return code.replace('"127.0.0.1", 2525', f'"127.0.0.1", {port}')


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_serve_on_the_default_answers_help_into_a_local_maildir_and_stops_on_sigterm(tmp_path, monkeypatch):
    port = free_port()
    config = tmp_path / "port.toml"
    config.write_text(f"[listen]\nport = {port}\n")
    monkeypatch.chdir(tmp_path)
    default = load_config(None)
    assert load_config(config) == replace(default, listen=replace(default.listen, port=port), source=config)
    server = subprocess.Popen([sys.executable, "-m", "pbm", "serve", "--config", str(config)], cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: port_open(port), timeout=30, what="the listener")
        # the README's own example, twice: two mails, two replies
        for _ in range(2):
            subprocess.run([sys.executable, "-c", readme_example(port)], check=True, timeout=30)
        # the same mail twice: the second is a duplicate, logged with its real sender
        msg = EmailMessage()
        msg["From"] = "you@example.org"
        msg["To"] = "pbm@localhost"
        msg["Subject"] = "help"
        msg["Message-ID"] = "<readme-help@example.org>"
        msg.set_content("")
        for _ in range(2):
            with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
                smtp.send_message(msg)
        new = tmp_path / "outbox-maildir" / "new"
        wait_until(lambda: new.is_dir() and len(list(new.iterdir())) >= 3, timeout=30, what="replies in the Maildir")
        replies = [path.read_bytes() for path in new.iterdir()]
        assert len(replies) == 3
        for reply in replies:
            assert b"Subject: Trax PBM help" in reply
            assert b"To: you@example.org" in reply
        time.sleep(0.2)
        server.send_signal(signal.SIGTERM)
        out, _ = server.communicate(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate(timeout=30)
    assert server.returncode == 0
    log = out.decode()
    assert "<readme-help@example.org> from=you@example.org via=smtp cmd='help' -> handled, 1 replies," in log
    assert ("<readme-help@example.org> from=you@example.org via=smtp cmd='' -> duplicate (the Message-ID of a mail "
            "handled before), 0 replies," in log)
    assert "stopped: 4 mails handled, 0 failed" in log
    assert (tmp_path / "pbm.sqlite3").is_file()
