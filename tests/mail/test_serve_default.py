"""The README's first command: ``pbm serve`` on its embedded default.

The embedded default listens on 127.0.0.1:2525 (tests/test_config.py checks
that); here the server runs on the default in everything but the port, a
free one given in a config file of one line, so that the test never meets
another program (or another test run) on 2525."""

from __future__ import annotations

import signal
import smtplib
import socket
import subprocess
import sys
import time
from dataclasses import replace
from email.message import EmailMessage

from pbm.config import load_config

from .daemon import wait_until
from .servers import free_port


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
        msg = EmailMessage()
        msg["From"] = "you@example.org"
        msg["To"] = "pbm@localhost"
        msg["Subject"] = "help"
        msg["Message-ID"] = "<readme-help@example.org>"
        msg.set_content("")
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
            smtp.send_message(msg)
        new = tmp_path / "outbox-maildir" / "new"
        wait_until(lambda: new.is_dir() and any(new.iterdir()), timeout=30, what="a reply in the Maildir")
        reply = next(new.iterdir()).read_bytes()
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
    assert "stopped: 1 mails handled, 0 failed" in log
    assert (tmp_path / "pbm.sqlite3").is_file()
