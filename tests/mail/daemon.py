"""Running the real daemon against the test Dovecot and sink.

``DaemonThread`` runs :class:`pbm.server.daemon.Daemon` in its own thread and event
loop, so a test can deliver mail, wait for replies and stop it without
signals.  ``write_config`` writes the TOML a test daemon (or a ``pbm serve``
subprocess) reads.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from pbm.config import load_config
from pbm.server.daemon import Daemon

from .servers import Dovecot, Sink

SERVER = "pbm@mail.test"
#: The authserv-id of the mail server in front of the test daemon, whose
#: Authentication-Results it trusts (``[security] trusted_authserv_id``).
AUTHSERV = "mx.mail.test"


def write_config(
    directory: Path,
    *,
    dovecot: Dovecot | None = None,
    user=None,
    sink: Sink | None = None,
    listen_port: int | None = None,
    idle: bool = True,
    poll_seconds: float = 1.0,
    imap_tls: str = "none",
    smtp_tls: str = "none",
    ca_file: Path | None = None,
    smtp_login: tuple[str, str] | None = None,
) -> Path:
    """``ca_file`` goes in every section whose ``tls`` is not ``none``; with
    ``imap_tls = "ssl"`` the daemon uses Dovecot's imaps port."""
    lines = ["[server]", f'address = "{SERVER}"', 'database = "pbm.sqlite3"', "",
             "[security]", f'trusted_authserv_id = "{AUTHSERV}"', "",
             "[metrics]", "enabled = false", ""]

    def trust(tls: str) -> list[str]:
        return [f'ca_file = "{ca_file}"'] if ca_file is not None and tls != "none" else []

    if dovecot is not None:
        port = dovecot.imaps_port if imap_tls == "ssl" else dovecot.imap_port
        lines += [
            "[imap]", f'host = "{dovecot.host}"', f"port = {port}", f'username = "{user.name}"',
            f'password = "{user.password}"', f'tls = "{imap_tls}"', *trust(imap_tls),
            f"idle = {'true' if idle else 'false'}", f"poll_interval_seconds = {poll_seconds}", "",
        ]
    if sink is not None:
        login = [f'username = "{smtp_login[0]}"', f'password = "{smtp_login[1]}"'] if smtp_login else []
        lines += ["[smtp]", f'host = "{sink.host}"', f"port = {sink.port}", f'tls = "{smtp_tls}"',
                  *trust(smtp_tls), *login, ""]
    lines += ["[listen]", f"enabled = {'true' if listen_port else 'false'}"]
    if listen_port:
        lines += [f"port = {listen_port}"]
    lines += ["", "[outbox]", "retry_initial_seconds = 0.2", "retry_max_seconds = 1.0", ""]
    path = directory / "pbm.toml"
    path.write_text("\n".join(lines))
    return path


def command_mail(sender: str, subject: str, body: str = "", *, verified: bool = True, **headers: str) -> bytes:
    """A player's mail as it reaches the daemon through its mail server,
    which checked DKIM and DMARC and vouches for the sender
    (``verified``), or, with ``verified=False``, as a forger's arrives."""
    msg = EmailMessage()
    if verified:
        msg["Authentication-Results"] = (f"{AUTHSERV}; dmarc=pass (p=none dis=none) "
                                         f"header.from={sender.rpartition('@')[2]}")
    msg["From"] = sender
    msg["To"] = SERVER
    msg["Subject"] = subject
    msg["Message-ID"] = make_msgid(domain="player.test")
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    return bytes(msg)


def start_server(path: Path, log) -> subprocess.Popen:
    """``pbm serve --config PATH`` in a process of its own (as in
    production, so signals can reach it), its log into the file ``log``."""
    return subprocess.Popen(
        [sys.executable, "-m", "pbm", "serve", "--config", str(path)],
        cwd=path.parent, stdout=log, stderr=subprocess.STDOUT,
    )


def kill_if_running(server: subprocess.Popen) -> None:
    """What a test's ``finally`` does with a ``pbm serve`` it started."""
    if server.poll() is None:
        server.kill()
        server.wait(30)


class DaemonThread:
    def __init__(self, config_path: Path) -> None:
        self.config = load_config(config_path)
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.error: BaseException | None = None
        self.daemon: Daemon | None = None
        self.thread = threading.Thread(target=self._main, name="pbm-daemon", daemon=True)

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)

        async def run() -> None:
            self.daemon = Daemon(self.config)
            await self.daemon.start()
            self.ready.set()
            await self.daemon.run()

        try:
            self.loop.run_until_complete(run())
        except BaseException as exc:  # reported by stop()
            self.error = exc
            self.ready.set()
        finally:
            self.loop.run_until_complete(self.loop.shutdown_default_executor())
            self.loop.close()

    def __enter__(self) -> DaemonThread:
        self.thread.start()
        assert self.ready.wait(30), "the daemon did not start"
        if self.error:
            raise self.error
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        if self.thread.is_alive() and self.daemon is not None:
            self.loop.call_soon_threadsafe(self.daemon.stop.set)
        self.thread.join(60)
        assert not self.thread.is_alive(), "the daemon did not stop"
        if self.error:
            raise self.error


def wait_until(predicate, timeout: float = 60.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
