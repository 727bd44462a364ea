"""``pbm check-config FILE``: is this configuration one the server can run on?

The file is read as ``pbm serve`` reads it (every key, type and value, the
passwords from the environment); then the servers it names are asked, each
within a timeout: the IMAP server (connect, STARTTLS or TLS as configured,
login, select the mailbox) and the SMTP relay (connect, EHLO, STARTTLS,
login), and the places the daemon writes and listens are looked at.  Each
check is one line, ``ok`` or ``FAIL``, saying in plain words what was found
or what is wrong and what to change.  Nothing is sent and nothing is
written.
"""

from __future__ import annotations

import imaplib
import os
import smtplib
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pbm.config import Config, ConfigError, ImapConfig, SmtpConfig, load_config, tls_context

from .health import holder
from .systemd import RUNTIME_DIRECTORY

TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True)
class Finding:
    """One check: ``ok`` or not; a ``warning`` is ok (the server runs) but
    says what it will run without."""

    ok: bool
    what: str
    detail: str
    warning: bool = False

    def line(self) -> str:
        mark = "FAIL" if not self.ok else "warn" if self.warning else "ok  "
        return f"{mark}  {self.what}: {self.detail}"


def _network_words(exc: BaseException, host: str, port: int, timeout: float) -> str:
    """A connection's failure in plain words."""
    where = f"{host}:{port}"
    if isinstance(exc, socket.gaierror):
        return f"the host name {host!r} cannot be resolved ({exc.strerror})"
    if isinstance(exc, ConnectionRefusedError):
        return f"nothing listens at {where} (connection refused): check host and port, and that the server runs"
    if isinstance(exc, TimeoutError):
        return f"no answer from {where} within {timeout:g} s: a firewall, or the wrong host or port"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return (f"the certificate of {host} is not trusted ({exc.verify_message}): use the name the "
                f"certificate is for, or name the authority that signed it in ca_file")
    if isinstance(exc, ssl.SSLError):
        return (f"TLS with {where} failed ({exc.reason or exc}): is tls right for this port "
                f"(\"ssl\" for 993 and 465, \"starttls\" for 143 and 587)?")
    if isinstance(exc, OSError):
        return f"cannot connect to {where}: {exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}"


def _text(data: object) -> str:
    """An IMAP answer's text."""
    if isinstance(data, list | tuple):
        return " ".join(_text(d) for d in data if d)
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return str(data)


def check_imap(cfg: ImapConfig, timeout: float = TIMEOUT_SECONDS) -> Finding:
    what = f"IMAP {cfg.host}:{cfg.port}"
    imap: imaplib.IMAP4 | None = None
    try:
        if cfg.tls == "ssl":
            imap = imaplib.IMAP4_SSL(cfg.host, cfg.port, ssl_context=tls_context(cfg.ca_file), timeout=timeout)
        else:
            imap = imaplib.IMAP4(cfg.host, cfg.port, timeout=timeout)
        if cfg.tls == "starttls":
            if "STARTTLS" not in imap.capabilities:
                return Finding(False, what, 'the server does not offer STARTTLS, so the login would go in plain '
                                            'text: use tls = "ssl" (port 993) if it has it, or "none" only on '
                                            'a network you trust')
            imap.starttls(ssl_context=tls_context(cfg.ca_file))
        try:
            imap.login(cfg.username, cfg.password.reveal())
        except imaplib.IMAP4.error as exc:
            return Finding(False, what, f"the server refused the login of {cfg.username!r} ({_text(exc.args)}): "
                                        f"check username and password")
        status, data = imap.select(_quoted_mailbox(cfg.mailbox), readonly=True)
        if status != "OK":
            return Finding(False, what, f"logged in, but the mailbox {cfg.mailbox!r} cannot be opened "
                                        f"({_text(data)}): check mailbox")
        count = _text(data).strip() or "?"
        return Finding(True, what, f"logged in as {cfg.username!r} ({cfg.tls}); {cfg.mailbox!r} holds {count} "
                                   f"message(s)")
    except (OSError, imaplib.IMAP4.error) as exc:
        if isinstance(exc, imaplib.IMAP4.error):
            return Finding(False, what, f"the server answered what an IMAP server should not ({exc})")
        return Finding(False, what, _network_words(exc, cfg.host, cfg.port, timeout))
    finally:
        if imap is not None:
            try:
                imap.logout()
            except (OSError, imaplib.IMAP4.error):
                pass


def _quoted_mailbox(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def check_smtp(cfg: SmtpConfig, timeout: float = TIMEOUT_SECONDS) -> Finding:
    what = f"SMTP relay {cfg.host}:{cfg.port}"
    smtp: smtplib.SMTP | None = None
    try:
        if cfg.tls == "ssl":
            smtp = smtplib.SMTP_SSL(cfg.host, cfg.port, timeout=timeout, context=tls_context(cfg.ca_file))
        else:
            smtp = smtplib.SMTP(cfg.host, cfg.port, timeout=timeout)
        code, answer = smtp.ehlo()
        if code != 250:
            return Finding(False, what, f"the relay does not take EHLO ({code} {_text(answer)})")
        if cfg.tls == "starttls":
            if not smtp.has_extn("starttls"):
                return Finding(False, what, 'the relay does not offer STARTTLS, so replies would go in plain '
                                            'text: use tls = "ssl" (port 465) if it has it, or "none" only '
                                            'for a relay on this machine or a network you trust')
            smtp.starttls(context=tls_context(cfg.ca_file))
            smtp.ehlo()
        if cfg.username:
            if not smtp.has_extn("auth"):
                return Finding(False, what, "the relay offers no login (AUTH), but username is set: remove "
                                            "username, or use the relay's submission port (587, with STARTTLS)")
            try:
                smtp.login(cfg.username, cfg.password.reveal() if cfg.password else "")
            except smtplib.SMTPAuthenticationError as exc:
                return Finding(False, what, f"the relay refused the login of {cfg.username!r} ({exc.smtp_code}): "
                                            f"check username and password")
        login = f", logged in as {cfg.username!r}" if cfg.username else ", no login"
        return Finding(True, what, f"the relay answers ({cfg.tls}{login})")
    except smtplib.SMTPServerDisconnected as exc:
        return Finding(False, what, f"the relay closed the connection ({exc}): is tls right for this port?")
    except smtplib.SMTPException as exc:
        return Finding(False, what, f"the relay answered an error: {exc}")
    except OSError as exc:
        return Finding(False, what, _network_words(exc, cfg.host, cfg.port, timeout))
    finally:
        if smtp is not None:
            try:
                smtp.quit()
            except (OSError, smtplib.SMTPException):
                smtp.close()


def _writable_folder(path: Path, what: str, role: str) -> Finding:
    """The folder ``path`` goes in exists (or can be made) and can be written."""
    folder = path if path.is_dir() else path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if os.access(folder, os.W_OK | os.X_OK):
        return Finding(True, what, f"{path} ({role})")
    return Finding(False, what, f"{folder} cannot be written by this user, and {role} goes there ({path}); "
                                f"run as the server's user, or choose another folder")


def _bindable(host: str, port: int, what: str) -> Finding:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            if exc.errno == 98:  # EADDRINUSE
                return Finding(False, what, f"something else listens on {host}:{port} already: choose another port")
            return Finding(False, what, f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    return Finding(True, what, f"{host}:{port} is free")


def check_places(config: Config) -> list[Finding]:
    """Where the daemon writes, and where it listens (when no daemon runs:
    a running one holds its ports itself)."""
    found = [_writable_folder(config.server.database, "database", "the database")]
    if config.smtp is None:
        found.append(_writable_folder(config.outbox.maildir, "outbox", "the replies (no [smtp] relay)"))
    if holder(config.server.database) is not None:
        found.append(Finding(True, "daemon", "a daemon is running on this database: its ports are not checked"))
        return found
    listen = config.listen
    if listen.enabled:
        name = f"{listen.protocol.upper()} listener"
        if listen.socket is not None and not listen.socket.parent.exists() \
                and listen.socket.parent == RUNTIME_DIRECTORY:
            found.append(Finding(True, name, f"{listen.socket} (the unix socket; systemd makes "
                                             f"{RUNTIME_DIRECTORY} when the service starts)"))
        elif listen.socket is not None:
            found.append(_writable_folder(listen.socket, name, "the unix socket"))
        else:
            found.append(_bindable(listen.host, listen.port, name))
    if config.web.enabled:
        found.append(_bindable(config.web.host, config.web.port, "web view"))
    if config.metrics.enabled:
        found.append(_metrics_port(config))
    return found


def _same_address(one: str, other: str) -> bool:
    """Would listening on both hosts at one port collide?"""
    return one == other or bool({one, other} & {"0.0.0.0", "::", ""})


def _metrics_port(config: Config) -> Finding:
    """The metrics listener's port: not another listener's of the daemon
    (a mistake in the file), and free (taken by another program, the daemon
    runs on without its metrics: a warning)."""
    what, m = "metrics listener", config.metrics
    others = []
    if config.web.enabled:
        others.append(("the web view", config.web.host, config.web.port))
    if config.listen.enabled and config.listen.socket is None:
        others.append((f"the {config.listen.protocol.upper()} listener", config.listen.host, config.listen.port))
    for name, host, port in others:
        if port == m.port and _same_address(host, m.host):
            return Finding(False, what, f"{m.host}:{m.port} is the port of {name} too: choose another "
                                        f"[metrics] port")
    found = _bindable(m.host, m.port, what)
    if found.ok:
        return found
    return Finding(True, what, f"{found.detail} (the daemon would run, without /metrics and /healthz)",
                   warning=True)


def check(path: str | None, *, timeout: float = TIMEOUT_SECONDS,
          imap: Callable[[ImapConfig, float], Finding] = check_imap,
          smtp: Callable[[SmtpConfig, float], Finding] = check_smtp) -> list[Finding]:
    """Every check of the configuration at ``path``; the file's own error
    alone when it cannot be read."""
    try:
        config = load_config(path)
    except ConfigError as exc:
        return [Finding(False, "configuration", str(exc))]
    except OSError as exc:
        return [Finding(False, "configuration", f"cannot be read: {exc.strerror or exc} ({path})")]
    found = [Finding(True, "configuration", f"{path or 'the built-in defaults'} reads well")]
    if config.imap is not None:
        found.append(imap(config.imap, timeout))
    if config.smtp is not None:
        found.append(smtp(config.smtp, timeout))
    if config.imap is None and not config.listen.enabled:
        found.append(Finding(True, "intake", "no [imap] and [listen] off: mail must come by pbm deliver"))
    found += check_places(config)
    return found
