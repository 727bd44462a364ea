"""Real mail servers for integration tests and benchmarks, on 127.0.0.1 only.

``Dovecot`` runs a private Dovecot (IMAP and LMTP) from a temporary
directory; ``Sink`` is an aiosmtpd SMTP server in its own thread that keeps
every message it receives.  Both are synchronous to use, so tests and
benchmarks need no event loop of their own::

    from tests.mail.servers import Dovecot, Sink

    with Dovecot() as dovecot:
        dovecot.add_user("game", "secret")
        dovecot.deliver("game", b"Subject: hi\\r\\n\\r\\nhello\\r\\n")
        assert dovecot.count("game", "secret", "INBOX") == 1

    with Sink() as sink:
        ...  # send mail to sink.host:sink.port
        mail_from, rcpt_tos, content = sink.wait_for(1)[0]

Gotchas built in: the directory and its parents must be world-searchable
(Dovecot's helpers run as ``dovecot``/``dovenull``, so pytest's 0700
``tmp_path`` does not work), unix socket paths stay under 108 bytes,
``ssl = no`` with the imaps port 0 unless it has ``TestCertificates``,
``first_valid_uid = 1``, and the home
directory belongs to the mail uid.  Everything listens on 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import email
import email.message
import email.policy
import grp
import imaplib
import os
import pwd
import re
import shutil
import signal
import smtplib
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple, Self

from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

HOST = "127.0.0.1"
DOMAIN = "mail.test"
SOCKET_TIMEOUT = 10.0   # seconds, every socket these helpers open
START_TIMEOUT = 10.0    # seconds for Dovecot to answer after it was spawned
STOP_TIMEOUT = 10.0     # seconds for Dovecot to exit after SIGTERM

_CRLF_RE = re.compile(rb"\r?\n")
_LIST_RE = re.compile(rb'^\((?P<flags>[^)]*)\) (?:"(?:[^"\\]|\\.)*"|NIL) (?P<name>.+)$')
_APPENDUID_RE = re.compile(rb"\[APPENDUID \d+ (\d+)\]")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def crlf(raw: bytes) -> bytes:
    """``raw`` with every line ending made CRLF, as SMTP and IMAP want."""
    return _CRLF_RE.sub(b"\r\n", raw)


def quote_mailbox(name: str) -> str:
    """An IMAP quoted string for a mailbox name (ASCII names only)."""
    if not name.isascii() or "\r" in name or "\n" in name:
        raise ValueError(f"mailbox names must be ASCII on one line: {name!r}")
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _unquote(name: bytes) -> str:
    text = name.decode("ascii", "replace")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = re.sub(r"\\(.)", r"\1", text[1:-1])
    return text


def _tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return f"({path} could not be read)"
    return "\n".join(text.splitlines()[-lines:]) or f"({path} is empty)"


class MailServerError(RuntimeError):
    """A test mail server did not start, or an IMAP command was refused."""


class Dovecot:
    """A private Dovecot (IMAP and LMTP on 127.0.0.1) in a temporary directory.

    The directory (``path``) holds the configuration, the users file, the
    log (``log_path``) and the mail (``home/USER/Maildir``).  Users log in
    with plain passwords; mail for ``USER@mail.test`` goes to USER.
    Construct, then ``start()``; or use it as a context manager (started on
    entry, closed on exit).  Everything is synchronous and bounded by
    timeouts.
    """

    host = HOST
    domain = DOMAIN

    def __init__(self, *, parent: str = "/tmp", binary: str | None = None,
                 certificates: TestCertificates | None = None,
                 imap_capability: str | None = None) -> None:
        self.binary = binary or shutil.which("dovecot") or "/usr/sbin/dovecot"
        # with certificates: STARTTLS on imap_port and TLS from the start on
        # imaps_port (plain logins stay allowed, as the other tests use them)
        self.certificates = certificates
        # what IMAP offers after login instead of Dovecot's own list, to
        # stand in for a server without MOVE or UIDPLUS
        self.imap_capability = imap_capability
        # Short, world-searchable: Dovecot's helpers run as other users, and
        # unix socket paths in base_dir must stay under 108 bytes.
        self.path = Path(tempfile.mkdtemp(prefix="dc", dir=parent))
        os.chmod(self.path, 0o755)
        self.imap_port = free_port()
        self.lmtp_port = free_port()
        self.imaps_port = free_port() if certificates is not None else 0
        self._process: subprocess.Popen[bytes] | None = None
        self.log_path = self.path / "dovecot.log"
        # One passwd-file per user: Dovecot looks at a passwd-file at most
        # once a second, so a user appended to a shared file is unknown for
        # up to a second; a new file is read at its first lookup.
        self.users_path = self.path / "users"
        self.users_path.mkdir(mode=0o755)
        self._setup()

    # -- configuration ----------------------------------------------------

    def _setup(self) -> None:
        if os.geteuid() == 0:
            mail_uid = pwd.getpwnam("dovecot").pw_uid
            mail_gid = grp.getgrnam("dovecot").gr_gid
            users = ("dovenull", "dovecot", "dovecot")
            extra = ""
        else:
            # Unprivileged: every Dovecot process runs as the current user,
            # and the login processes cannot chroot.
            mail_uid, mail_gid = os.getuid(), os.getgid()
            me = pwd.getpwuid(mail_uid).pw_name
            users = (me, me, grp.getgrgid(mail_gid).gr_name)
            extra = (
                "service imap-login {\n  chroot =\n}\n"
                "service anvil {\n  chroot =\n}\n"
                "service auth {\n  user = $default_internal_user\n}\n"
                "service auth-worker {\n  user = $default_internal_user\n}\n"
            )
        self.mail_uid, self.mail_gid = mail_uid, mail_gid
        for sub in ("run", "state"):
            (self.path / sub).mkdir(mode=0o755)
        home = self.path / "home"
        home.mkdir(mode=0o755)
        os.chown(home, mail_uid, mail_gid)
        d = self.path
        if self.certificates is None:
            options = ["ssl = no"]
        else:
            options = ["ssl = yes", f"ssl_cert = <{self.certificates.cert_file}",
                       f"ssl_key = <{self.certificates.key_file}"]
        if self.imap_capability is not None:
            options.append(f"imap_capability = {self.imap_capability}")
        settings = "\n".join(options)
        config = f"""\
instance_name = pbmtest-{self.imap_port}
base_dir = {d}/run
state_dir = {d}/state
protocols = imap lmtp
listen = {HOST}
hostname = {DOMAIN}
postmaster_address = postmaster@{DOMAIN}
log_path = {self.log_path}
info_log_path = {self.log_path}
{settings}
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_username_format = %Ln
auth_failure_delay = 0
default_login_user = {users[0]}
default_internal_user = {users[1]}
default_internal_group = {users[2]}
first_valid_uid = 1
mail_max_userip_connections = 100
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%Ln {self.users_path}/%Ln
}}
userdb {{
  driver = static
  args = uid={mail_uid} gid={mail_gid} home={d}/home/%Ln
}}
mail_location = maildir:~/Maildir
namespace inbox {{
  inbox = yes
  separator = /
}}
service imap-login {{
  inet_listener imap {{
    address = {HOST}
    port = {self.imap_port}
  }}
  inet_listener imaps {{
    address = {HOST}
    port = {self.imaps_port}
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = {HOST}
    port = {self.lmtp_port}
  }}
}}
{extra}"""
        self.config_path = d / "dovecot.conf"
        self.config_path.write_text(config, encoding="utf-8")
        os.chmod(self.config_path, 0o644)

    def add_user(self, name: str, password: str) -> None:
        """Add a user while Dovecot runs (usable at once, no restart).  Names
        are lower-cased, as Dovecot looks them up; mail for
        ``name@mail.test`` is delivered to this user."""
        for value in (name, password):
            if not value or any(c in value for c in ":\r\n\0"):
                raise ValueError(f"names and passwords may not be empty or hold ':' or line breaks: {value!r}")
        name = name.lower()   # Dovecot looks users up by %Ln
        if "/" in name or name.startswith("."):
            raise ValueError(f"user names may not hold '/' or start with '.': {name!r}")
        path = self.users_path / name
        tmp = self.users_path / f".{name}.tmp"
        tmp.write_text(f"{name}:{{PLAIN}}{password}::::::\n", encoding="utf-8")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)   # Dovecot never sees half a file

    def address(self, user: str) -> str:
        """The mail address delivered to ``user``."""
        return user if "@" in user else f"{user}@{DOMAIN}"

    # -- process ----------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self, timeout: float = START_TIMEOUT) -> None:
        """Spawn ``dovecot -F`` and wait until IMAP and LMTP answer."""
        if self.running:
            return
        self._reap()
        with open(self.path / "stderr.log", "ab") as stderr:
            self._process = subprocess.Popen(
                [self.binary, "-F", "-c", str(self.config_path)],
                stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        try:
            self._wait_greeting(self.imap_port, b"* OK", deadline)
            self._wait_greeting(self.lmtp_port, b"220 ", deadline)
        except MailServerError as e:
            self.stop()
            raise MailServerError(
                f"{e}\n--- {self.log_path} (tail) ---\n{_tail(self.log_path)}"
                f"\n--- stderr ---\n{_tail(self.path / 'stderr.log')}"
            ) from None

    def _wait_greeting(self, port: int, greeting: bytes, deadline: float) -> None:
        last = "no attempt"
        while True:
            assert self._process is not None
            code = self._process.poll()
            if code is not None:
                raise MailServerError(f"dovecot exited with status {code} while starting")
            try:
                with socket.create_connection((HOST, port), timeout=1.0) as s:
                    line = s.makefile("rb").readline(1000)
                if line.startswith(greeting):
                    return
                last = f"greeting {line!r}"
            except OSError as e:
                last = repr(e)
            if time.monotonic() > deadline:
                raise MailServerError(f"dovecot did not answer on port {port} in time ({last})")
            time.sleep(0.01)

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """SIGTERM and wait (about a second); SIGKILL if it takes too long."""
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait(timeout)
        self._process = None

    def _reap(self) -> None:
        if self._process is not None and self._process.poll() is not None:
            self._process = None

    def restart(self) -> None:
        """Stop and start again, same ports, same mail."""
        self.stop()
        self.start()

    def close(self) -> None:
        """Stop and remove the directory (mail, log and all)."""
        try:
            self.stop()
        finally:
            shutil.rmtree(self.path, ignore_errors=True)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def log(self) -> str:
        """Dovecot's log so far (for failure messages)."""
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    # -- LMTP -------------------------------------------------------------

    def deliver(self, user: str, raw: bytes, *, mail_from: str = "sender@example.org") -> None:
        """Deliver one message to ``user`` (a user name, or a full address)
        over LMTP, as an MTA would.  Dovecot adds Return-Path, Delivered-To
        and Received.  Raises smtplib errors when refused."""
        self.deliver_many(user, [raw], mail_from=mail_from)

    def deliver_many(self, user: str, raws: Iterable[bytes], *,
                     mail_from: str = "sender@example.org") -> int:
        """Deliver several messages to ``user`` on one LMTP connection, one
        transaction each; returns how many."""
        n = 0
        with smtplib.LMTP(HOST, self.lmtp_port, timeout=SOCKET_TIMEOUT) as lmtp:
            for raw in raws:
                lmtp.sendmail(mail_from, [self.address(user)], crlf(raw))
                n += 1
        return n

    # -- IMAP -------------------------------------------------------------

    @contextmanager
    def imap(self, user: str, password: str) -> Iterator[imaplib.IMAP4]:
        """A logged-in stdlib ``imaplib`` connection, logged out afterwards."""
        conn = imaplib.IMAP4(HOST, self.imap_port, timeout=SOCKET_TIMEOUT)
        try:
            conn.login(user, password)
            yield conn
        finally:
            try:
                conn.logout()
            except (OSError, imaplib.IMAP4.error):
                conn.shutdown()

    def append(self, user: str, password: str, mailbox: str, raw: bytes,
               *, flags: str = "") -> int | None:
        """APPEND ``raw`` to ``mailbox`` (created when missing); returns the
        new message's UID."""
        uids = self.append_many(user, password, mailbox, [raw], flags=flags)
        return uids[0]

    def append_many(self, user: str, password: str, mailbox: str, raws: Iterable[bytes],
                    *, flags: str = "") -> list[int | None]:
        """APPEND several messages on one connection; returns their UIDs."""
        box = quote_mailbox(mailbox)
        flag_list = f"({flags})" if flags else None
        uids: list[int | None] = []
        with self.imap(user, password) as conn:
            created = False
            for raw in raws:
                typ, data = conn.append(box, flag_list, None, crlf(raw))
                if typ != "OK" and not created and b"TRYCREATE" in b" ".join(
                        d for d in data if isinstance(d, bytes)):
                    self._check(conn.create(box), "CREATE", mailbox)
                    created = True
                    typ, data = conn.append(box, flag_list, None, crlf(raw))
                self._check((typ, data), "APPEND", mailbox)
                m = _APPENDUID_RE.search(data[0] or b"")
                uids.append(int(m.group(1)) if m else None)
        return uids

    def create(self, user: str, password: str, mailbox: str) -> None:
        """Create a mailbox (no error when it exists)."""
        with self.imap(user, password) as conn:
            typ, data = conn.create(quote_mailbox(mailbox))
            if typ != "OK" and b"ALREADYEXISTS" not in (data[0] or b""):
                self._check((typ, data), "CREATE", mailbox)

    @staticmethod
    def _check(result: tuple[str, list[Any]], command: str, mailbox: str) -> list[Any]:
        typ, data = result
        if typ != "OK":
            raise MailServerError(f"IMAP {command} {mailbox!r} answered {typ} {data!r}")
        return data

    def messages(self, user: str, password: str, mailbox: str = "INBOX") -> list[bytes]:
        """The raw messages in ``mailbox`` in order (CRLF line endings), read
        without setting \\Seen; [] when the mailbox does not exist."""
        return [raw for _, _, raw in self.fetch(user, password, mailbox)]

    def fetch(self, user: str, password: str,
              mailbox: str = "INBOX") -> list[tuple[int, frozenset[str], bytes]]:
        """(UID, flags, raw message) of every message in ``mailbox``, by UID,
        read only (\\Recent, which depends on the session, is left out);
        [] when the mailbox does not exist."""
        with self.imap(user, password) as conn:
            typ, _ = conn.select(quote_mailbox(mailbox), readonly=True)
            if typ != "OK":
                return []
            typ, data = conn.uid("FETCH", "1:*", "(UID FLAGS BODY.PEEK[])")
            self._check((typ, data), "FETCH", mailbox)
            result = []
            for item in data:
                if not isinstance(item, tuple):
                    continue   # b")" closing a literal, or None when empty
                head, raw = item
                uid = re.search(rb"\bUID (\d+)", head)
                flags = re.search(rb"\bFLAGS \(([^)]*)\)", head)
                result.append((
                    int(uid.group(1)) if uid else 0,
                    frozenset(flags.group(1).decode().split()) - {"\\Recent"} if flags else frozenset(),
                    bytes(raw),
                ))
            result.sort(key=lambda r: r[0])
            return result

    def status(self, user: str, password: str, mailbox: str = "INBOX") -> dict[str, int] | None:
        """STATUS of ``mailbox``: MESSAGES, UNSEEN, UIDNEXT, UIDVALIDITY;
        None when it does not exist."""
        with self.imap(user, password) as conn:
            typ, data = conn.status(quote_mailbox(mailbox), "(MESSAGES UNSEEN UIDNEXT UIDVALIDITY)")
            if typ != "OK":
                return None
            m = re.search(rb"\(([^)]*)\)\s*$", data[0])
            words = m.group(1).split() if m else []
            return {k.decode(): int(v) for k, v in zip(words[::2], words[1::2])}

    def count(self, user: str, password: str, mailbox: str = "INBOX") -> int:
        """How many messages ``mailbox`` holds; 0 when it does not exist."""
        status = self.status(user, password, mailbox)
        return status["MESSAGES"] if status else 0

    def mailboxes(self, user: str, password: str) -> list[str]:
        """The names of the user's selectable mailboxes (INBOX first, then
        sorted); a parent that only exists as a path (\\Noselect) is left out."""
        with self.imap(user, password) as conn:
            data = self._check(conn.list('""', "*"), "LIST", "*")
        names = []
        for item in data:
            if isinstance(item, tuple):   # a name sent as a literal
                names.append(item[1].decode("ascii", "replace"))
                continue
            if not item:
                continue
            m = _LIST_RE.match(item)
            if m and not {b"\\noselect", b"\\nonexistent"} & set(m.group("flags").lower().split()):
                names.append(_unquote(m.group("name")))
        return sorted(names, key=lambda n: (n != "INBOX", n))


class TestCertificates:
    """A throwaway certificate authority (made by trustme) and a server
    certificate it signed for 127.0.0.1 and localhost, as PEM files in
    ``directory``: ``ca_file`` is what a client trusts (pbm's ``ca_file``),
    ``cert_file`` and ``key_file`` are the server's (Dovecot's ``ssl_cert``
    and ``ssl_key``); ``server_context()`` serves them (the sink's)."""

    __test__ = False  # not a pytest class

    def __init__(self, directory: Path) -> None:
        import trustme  # a test dependency; only the TLS tests need it

        ca = trustme.CA()
        self._server = ca.issue_cert(HOST, "localhost")
        directory.mkdir(parents=True, exist_ok=True)
        self.ca_file = directory / "ca.pem"
        self.cert_file = directory / "server-cert.pem"
        self.key_file = directory / "server-key.pem"
        ca.cert_pem.write_to_path(str(self.ca_file))
        self.cert_file.write_bytes(b"".join(pem.bytes() for pem in self._server.cert_chain_pems))
        self._server.private_key_pem.write_to_path(str(self.key_file))
        for path in (self.ca_file, self.cert_file, self.key_file):
            os.chmod(path, 0o644)  # Dovecot reads them as another user

    def server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self._server.configure_cert(context)
        return context


class _Envelope(NamedTuple):
    mail_from: str
    rcpt_tos: list[str]
    content: bytes


class Received(_Envelope):
    """One message the sink took: ``(mail_from, rcpt_tos, content)``, the
    envelope and the bytes of DATA (CRLF line endings, dot-stuffing undone).
    ``login`` is the AUTH user name when the client logged in, else None
    (an attribute, not part of the tuple); ``tls`` is whether the message
    came over an encrypted connection."""

    login: str | None = None
    tls: bool = False

    @classmethod
    def make(cls, mail_from: str, rcpt_tos: list[str], content: bytes,
             login: str | None = None, *, tls: bool = False) -> Received:
        received = cls(mail_from, rcpt_tos, content)
        received.login = login
        received.tls = tls
        return received

    def message(self) -> email.message.EmailMessage:
        """The content parsed with the modern ``email`` policy."""
        msg = email.message_from_bytes(self.content, policy=email.policy.default)
        assert isinstance(msg, email.message.EmailMessage)
        return msg


class _SinkHandler:
    def __init__(self, sink: Sink) -> None:
        self.sink = sink

    async def handle_MAIL(self, server: SMTP, session: Session, envelope: Envelope,
                          address: str, mail_options: list[str]) -> str:
        if self.sink.username is not None and not session.authenticated:
            return "530 5.7.0 Authentication required"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_EHLO(self, server: SMTP, session: Session, envelope: Envelope, hostname: str,
                          responses: list[str]) -> list[str]:
        session.host_name = hostname
        if self.sink.pipelining:  # aiosmtpd reads commands in order as they come: it can take them pipelined
            responses.insert(1, "250-PIPELINING")
        return responses

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        tls = server.transport is not None and server.transport.get_extra_info("ssl_object") is not None
        return self.sink._take(envelope, session, tls=tls)


class Sink:
    """An SMTP server (aiosmtpd) on 127.0.0.1 that keeps what it receives.

    It runs in its own thread with its own event loop.  ``stop()`` closes
    the listening socket and every open connection (clients then get
    ConnectionRefusedError); ``start()`` listens again on the same port.
    With ``username`` and ``password`` it offers AUTH PLAIN/LOGIN without
    TLS and refuses MAIL before a login.  With ``tls_context`` (a server
    context, see :class:`TestCertificates`) it offers STARTTLS, or with
    ``implicit_tls`` speaks TLS from the first byte (as on port 465).  ``reject(reply)`` makes it answer
    DATA with that reply (e.g. "451 4.3.0 Try again later") instead of
    keeping the message.  With ``pipelining`` it offers PIPELINING (RFC 2920).
    """

    host = HOST

    def __init__(self, *, port: int | None = None, username: str | None = None,
                 password: str | None = None, tls_context: ssl.SSLContext | None = None,
                 implicit_tls: bool = False, pipelining: bool = False) -> None:
        if implicit_tls and tls_context is None:
            raise ValueError("implicit_tls needs a tls_context")
        self.port = port or free_port()
        self.username = username
        self.password = password
        self.tls_context = tls_context
        self.implicit_tls = implicit_tls
        self.pipelining = pipelining
        self._received: list[Received] = []
        self._cond = threading.Condition()
        self._reject: str | None = None
        self._reject_times: int | None = None
        self.rejected = 0
        self._server: asyncio.base_events.Server | None = None
        self._protocols: set[SMTP] = set()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=f"sink-{self.port}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    def _call(self, coro: Any, timeout: float = SOCKET_TIMEOUT) -> Any:
        if self._loop.is_closed():
            coro.close()
            raise RuntimeError("the sink is closed")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    # -- the SMTP side (in the sink's thread) -----------------------------

    def _authenticate(self, server: SMTP, session: Session, envelope: Envelope,
                      mechanism: str, auth_data: Any) -> AuthResult:
        ok = (isinstance(auth_data, LoginPassword)
              and auth_data.login.decode("utf-8", "replace") == self.username
              and auth_data.password.decode("utf-8", "replace") == self.password)
        return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)

    def _protocol(self) -> SMTP:
        kwargs: dict[str, Any] = {}
        if self.username is not None:
            kwargs.update(authenticator=self._authenticate, auth_require_tls=False)
        if self.tls_context is not None and not self.implicit_tls:
            kwargs.update(tls_context=self.tls_context)
        proto = _TrackedSMTP(self, _SinkHandler(self), hostname=HOST, enable_SMTPUTF8=True,
                             loop=self._loop, **kwargs)
        self._protocols.add(proto)
        return proto

    def _take(self, envelope: Envelope, session: Session, *, tls: bool = False) -> str:
        with self._cond:
            if self._reject is not None:
                reply = self._reject
                self.rejected += 1
                if self._reject_times is not None:
                    self._reject_times -= 1
                    if self._reject_times <= 0:
                        self._reject, self._reject_times = None, None
                return reply
            content = envelope.original_content or b""
            login = None
            if session.authenticated and isinstance(session.auth_data, LoginPassword):
                login = session.auth_data.login.decode("utf-8", "replace")
            self._received.append(Received.make(
                envelope.mail_from or "", list(envelope.rcpt_tos), bytes(content), login, tls=tls))
            self._cond.notify_all()
        return "250 OK"

    async def _start(self) -> None:
        self._server = await self._loop.create_server(
            self._protocol, HOST, self.port, reuse_address=True,
            ssl=self.tls_context if self.implicit_tls else None)

    async def _stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for proto in list(self._protocols):
            if proto.transport is not None:
                proto.transport.close()
        self._protocols.clear()
        if server is not None:
            await server.wait_closed()
        # Let the handler tasks of the closed connections finish.
        for _ in range(5):
            await asyncio.sleep(0)

    # -- the test side ----------------------------------------------------

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> None:
        """Listen (again) on ``port``."""
        if self._server is None:
            self._call(self._start())

    def stop(self) -> None:
        """Close the listening socket and all connections; mail so far is kept."""
        if not self._loop.is_closed():
            self._call(self._stop())

    def close(self) -> None:
        """Stop, end the thread and close the event loop."""
        if self._loop.is_closed():
            return
        try:
            self.stop()
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(SOCKET_TIMEOUT)
            if not self._thread.is_alive():
                self._shutdown_loop()

    def _shutdown_loop(self) -> None:
        loop = self._loop
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def messages(self) -> list[Received]:
        """A copy of the messages received so far, in order."""
        with self._cond:
            return list(self._received)

    def clear(self) -> None:
        with self._cond:
            self._received.clear()

    def wait_for(self, n: int, timeout: float = 30) -> list[Received]:
        """Block until at least ``n`` messages have arrived; returns them all.
        Raises AssertionError (with the count) after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self._received) < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"sink on port {self.port}: {len(self._received)} message(s) "
                        f"after {timeout} s, expected {n}")
                self._cond.wait(min(left, 0.1))
            return list(self._received)

    def reject(self, reply: str = "451 4.3.0 Try again later", times: int | None = None) -> None:
        """Answer DATA with ``reply`` (and keep nothing), ``times`` times or
        until ``accept()``."""
        with self._cond:
            self._reject, self._reject_times = reply, times

    def accept(self) -> None:
        """Keep messages again after ``reject()``."""
        with self._cond:
            self._reject, self._reject_times = None, None


class _TrackedSMTP(SMTP):
    """aiosmtpd's SMTP protocol that leaves the sink's set when closed."""

    def __init__(self, sink: Sink, *args: Any, **kwargs: Any) -> None:
        self._sink = sink
        super().__init__(*args, **kwargs)

    def connection_lost(self, exc: Exception | None) -> None:
        self._sink._protocols.discard(self)
        super().connection_lost(exc)
