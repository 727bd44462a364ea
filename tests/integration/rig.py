"""The real mail path on loopback: two Postfixes, OpenDKIM, OpenDMARC, a
DNS server of our own, the players' Dovecot, and ``pbm serve`` behind it.

::

    player --SMTP--> provider Postfix (127.0.0.1:provider.port)
                       OpenDKIM signs mail From players.test (key "p1")
                       sends from 127.0.0.2
           --SMTP--> server Postfix (127.0.0.1:server.port, "port 25", mx.server.test)
                       OpenDKIM verifies (and signs server.test for pbm's own mail),
                       OpenDMARC checks DMARC and SPF, both write
                       Authentication-Results: mx.server.test; ...
           --LMTP--> pbm serve ([listen] protocol = "lmtp")   (or the pipe to pbm deliver)
    pbm's replies --SMTP--> server Postfix --SMTP--> provider Postfix --LMTP--> Dovecot

Everything runs from folders under ``/tmp`` (world-searchable: Postfix's
and Dovecot's helpers run as their own users), on 127.0.0.x ports, and is
stopped by :meth:`Rig.close`; no system service is used or started.

DNS without the real DNS: :class:`DnsServer`, a few dozen lines answering
TXT questions from a dict (the DKIM keys, the DMARC and SPF records), on
port 53 of an address of its own in 127/8 (``resolv.conf`` has no port, and
OpenDMARC has no option naming a name server: it asks the system's
resolver).  OpenDMARC runs in a mount namespace of its own (``unshare -m``)
where a ``resolv.conf`` naming it is bind-mounted over ``/etc/resolv.conf``,
so the machine's own file is never touched.  OpenDKIM reads the same
records from its ``TestDNSData`` file (its Unbound resolver, pointed at
the DNS server, died under load: see :func:`opendkim`).  Postfix itself
asks no DNS (``smtp_dns_support_level = disabled``, transports to numeric
addresses).
"""

from __future__ import annotations

import json
import os
import pwd
import random
import re
import shutil
import signal
import socket
import socketserver
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tests.mail.servers import Dovecot, MailServerError, free_port

HOST = "127.0.0.1"
#: The players' provider sends from this address (so that the server's
#: milters see a stranger, as from the internet, and SPF can name it).
PROVIDER_OUT = "127.0.0.2"
#: A forger connects to the server's port 25 straight, from here.
FORGER_OUT = "127.0.0.3"
PLAYERS = "players.test"
SERVER_DOMAIN = "server.test"
AUTHSERV = "mx.server.test"
PBM_ADDRESS = f"pbm@{SERVER_DOMAIN}"
BOUNCE_ADDRESS = f"pbm-bounce@{SERVER_DOMAIN}"
START_TIMEOUT = 20.0


def _world_dir(prefix: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    os.chmod(path, 0o755)
    return path


def _wait_port(port: int, what: str, deadline: float, process: subprocess.Popen[bytes] | None = None,
               host: str = HOST) -> None:
    while True:
        if process is not None and process.poll() is not None:
            raise MailServerError(f"{what} exited with status {process.returncode} while starting")
        try:
            with socket.create_connection((host, port), timeout=1.0):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise MailServerError(f"{what} did not listen on {host}:{port} in time") from None
            time.sleep(0.05)


def _alive(pid: int) -> bool:
    """Is ``pid`` running (a zombie nobody reaped yet is not: a master that
    ``postfix start`` put in the background is not our child)?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


# -- DNS ---------------------------------------------------------------------


def _dns_answer(query: bytes, records: Mapping[str, list[str]]) -> bytes | None:
    """The answer to one DNS query (RFC 1035): TXT records from ``records``
    (name without the final dot, lower case), NOERROR with no answer for a
    name we know asked for another type, NXDOMAIN for any other name."""
    if len(query) < 12:
        return None
    ident, flags, qdcount = struct.unpack("!HHH", query[:6])
    if qdcount != 1:
        return None
    labels, at = [], 12
    while at < len(query) and query[at]:
        n = query[at]
        labels.append(query[at + 1:at + 1 + n].decode("ascii", "replace"))
        at += 1 + n
    at += 1
    if at + 4 > len(query):
        return None
    qtype, _qclass = struct.unpack("!HH", query[at:at + 4])
    question = query[12:at + 4]
    name = ".".join(labels).lower()
    known = name in records or any(r.endswith("." + name) for r in records)
    answers = []
    if qtype in (16, 255) and name in records:  # TXT, ANY
        for text in records[name]:
            data = text.encode("ascii")
            rdata = b"".join(bytes([len(data[i:i + 255])]) + data[i:i + 255] for i in range(0, len(data), 255))
            answers.append(struct.pack("!HHHIH", 0xC00C, 16, 1, 60, len(rdata)) + rdata)
    rcode = 0 if known else 3
    head = struct.pack("!HHHHHH", ident, 0x8480 | (flags & 0x0100) | rcode, 1, len(answers), 0, 0)
    return head + question + b"".join(answers)


class DnsServer:
    """An authoritative-looking DNS server for the test domains' TXT records,
    on UDP and TCP port 53 of ``address`` (a loopback address of its own)."""

    def __init__(self, records: dict[str, list[str]], address: str | None = None) -> None:
        self.records = records
        self.address = address or f"127.53.{random.randrange(1, 255)}.{random.randrange(1, 255)}"
        records_ref = self.records

        class Udp(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                data, sock = self.request
                answer = _dns_answer(data, records_ref)
                if answer is not None:
                    sock.sendto(answer, self.client_address)

        class Tcp(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                size = self.rfile.read(2)
                if len(size) == 2:
                    answer = _dns_answer(self.rfile.read(struct.unpack("!H", size)[0]), records_ref)
                    if answer is not None:
                        self.wfile.write(struct.pack("!H", len(answer)) + answer)

        socketserver.ThreadingUDPServer.allow_reuse_address = True
        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self._servers = [socketserver.ThreadingUDPServer((self.address, 53), Udp),
                         socketserver.ThreadingTCPServer((self.address, 53), Tcp)]
        for server in self._servers:
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, name="dns", daemon=True).start()

    def close(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()


# -- keys ---------------------------------------------------------------------


@dataclass(frozen=True)
class DkimKey:
    domain: str
    selector: str
    private: Path
    record: str  # the TXT record's text: v=DKIM1; h=sha256; k=rsa; p=...

    @property
    def name(self) -> str:
        return f"{self.selector}._domainkey.{self.domain}"


def make_key(folder: Path, domain: str, selector: str) -> DkimKey:
    """A DKIM key pair made by ``opendkim-genkey`` (2048 bits, as providers
    want), and the TXT record that publishes it."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["opendkim-genkey", "-b", "2048", "-h", "sha256", "-d", domain, "-s", selector,
                    "-D", str(folder)], check=True, capture_output=True)
    zone = (folder / f"{selector}.txt").read_text()
    record = "".join(re.findall(r'"([^"]*)"', zone))
    return DkimKey(domain, selector, folder / f"{selector}.private", record)


# -- the milters ---------------------------------------------------------------


class Milter:
    """One OpenDKIM or OpenDMARC in the foreground, its config in ``folder``,
    listening on 127.0.0.1:``port``."""

    def __init__(self, name: str, folder: Path, command: list[str]) -> None:
        self.name = name
        self.folder = folder
        self.port = free_port()
        self.command = command
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = folder / f"{name}.log"

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                            start_new_session=True)
        try:
            _wait_port(self.port, self.name, time.monotonic() + START_TIMEOUT, self.process)
        except MailServerError as exc:
            self.stop()
            raise MailServerError(f"{exc}\n{self.log_path.read_text(errors='replace')[-3000:]}") from None

    def terminate(self) -> None:
        """Ask it to stop (libmilter takes seconds to: stop several at once)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


def opendkim(folder: Path, *, mode: str, keys: list[DkimKey], internal: list[str],
             dns_data: dict[str, list[str]] | None = None, authserv: str | None = None) -> Milter:
    """OpenDKIM: signs mail from ``internal`` hosts whose From domain has a
    key in ``keys`` (mode ``s``), verifies the others (mode ``v``), reading
    the public keys from ``dns_data`` (its ``TestDNSData``: OpenDKIM 2.11's
    Unbound resolver pointed at our DNS server with ``ResolverConfiguration``
    said "can't set VBR resolver configuration" under load, and died)."""
    folder.mkdir(parents=True, exist_ok=True)
    milter = Milter("opendkim", folder, [])
    (folder / "keytable").write_text("".join(f"{k.selector}._domainkey.{k.domain} {k.domain}:{k.selector}:{k.private}\n"
                                             for k in keys))
    (folder / "signingtable").write_text("".join(f"*@{k.domain} {k.selector}._domainkey.{k.domain}\n" for k in keys))
    (folder / "internal").write_text("".join(f"{host}\n" for host in internal))
    (folder / "dns").write_text("".join(f"{name} {text}\n" for name, texts in (dns_data or {}).items()
                                        for text in texts))
    lines = [
        "Syslog no",
        "LogWhy yes",
        f"Mode {mode}",
        f"Socket inet:{milter.port}@{HOST}",
        f"PidFile {folder}/opendkim.pid",
        "UMask 007",
        "Canonicalization relaxed/simple",
        "OversignHeaders From",
        f"InternalHosts {folder}/internal",
        f"TestDNSData file:{folder}/dns",
        "RequireSafeKeys no",
        "AlwaysAddARHeader yes",
    ]
    if keys:
        lines += [f"KeyTable file:{folder}/keytable", f"SigningTable refile:{folder}/signingtable"]
    if authserv:
        lines += [f"AuthservID {authserv}"]
    (folder / "opendkim.conf").write_text("\n".join(lines) + "\n")
    milter.command = ["opendkim", "-f", "-x", str(folder / "opendkim.conf")]
    return milter


def opendmarc(folder: Path, *, authserv: str, dns: DnsServer) -> Milter:
    """OpenDMARC: trusts OpenDKIM's results (same authserv-id), checks SPF
    itself, writes ``dmarc=`` results; the DNS it asks is ``dns`` (a
    resolv.conf of its own, in a mount namespace of its own)."""
    folder.mkdir(parents=True, exist_ok=True)
    milter = Milter("opendmarc", folder, [])
    (folder / "resolv.conf").write_text(f"nameserver {dns.address}\noptions timeout:2 attempts:2\n")
    (folder / "ignore").write_text(f"{HOST}\n")  # pbm's own mail, sent from 127.0.0.1
    (folder / "opendmarc.conf").write_text("\n".join([
        f"Socket inet:{milter.port}@{HOST}",
        f"PidFile {folder}/opendmarc.pid",
        f"AuthservID {authserv}",
        f"TrustedAuthservIDs {authserv}",
        f"IgnoreHosts {folder}/ignore",
        "SPFSelfValidate false",
        "SPFIgnoreResults true",
        "RequiredHeaders false",
        "RejectFailures false",
        "FailureReports false",
        "Syslog false",
        "UMask 007",
    ]) + "\n")
    milter.command = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                      'mount --bind "$1" /etc/resolv.conf && exec opendmarc -f -c "$2"', "opendmarc",
                      str(folder / "resolv.conf"), str(folder / "opendmarc.conf")]
    return milter


# -- Postfix -------------------------------------------------------------------

MASTER_CF = """\
{smtp_port}  inet  n  -  n  -  -  smtpd
pickup    unix  n  -  n  60  1  pickup
cleanup   unix  n  -  n  -  0  cleanup
qmgr      unix  n  -  n  300  1  qmgr
tlsmgr    unix  -  -  n  1000?  1  tlsmgr
rewrite   unix  -  -  n  -  -  trivial-rewrite
bounce    unix  -  -  n  -  0  bounce
defer     unix  -  -  n  -  0  bounce
trace     unix  -  -  n  -  0  bounce
verify    unix  -  -  n  -  1  verify
flush     unix  n  -  n  1000?  0  flush
proxymap  unix  -  -  n  -  -  proxymap
proxywrite unix -  -  n  -  1  proxymap
smtp      unix  -  -  n  -  -  smtp
relay     unix  -  -  n  -  -  smtp
showq     unix  n  -  n  -  -  showq
error     unix  -  -  n  -  -  error
retry     unix  -  -  n  -  -  error
discard   unix  -  -  n  -  -  discard
local     unix  -  n  n  -  -  local
virtual   unix  -  n  n  -  -  virtual
lmtp      unix  -  -  n  -  -  lmtp
anvil     unix  -  -  n  -  1  anvil
scache    unix  -  -  n  -  1  scache
postlog   unix-dgram n  -  n  -  1  postlogd
"""


class Postfix:
    """One Postfix instance: ``postfix -c FOLDER``, its own queue, data
    folder, log file (``maillog``) and smtpd port on 127.0.0.1."""

    def __init__(self, name: str, main: dict[str, str], master_extra: str = "",
                 tables: dict[str, str] | None = None) -> None:
        self.name = name
        self.folder = _world_dir(f"pf{name[:3]}")
        self.port = free_port()
        self.log_path = self.folder / "maillog"
        (self.folder / "queue").mkdir(mode=0o755)  # postfix start makes the rest, owned by postfix
        for table, text in (tables or {}).items():
            (self.folder / table).write_text(text)
        settings = {
            "compatibility_level": "3.6",
            "queue_directory": f"{self.folder}/queue",
            "data_directory": f"{self.folder}/data",
            "mail_owner": "postfix",
            "setgid_group": "postdrop",
            "maillog_file": str(self.log_path),
            "maillog_file_prefixes": "/tmp",
            "inet_interfaces": HOST,
            "inet_protocols": "ipv4",
            "mydestination": "",
            "alias_maps": "",
            "alias_database": "",
            "local_recipient_maps": "",
            "smtp_dns_support_level": "disabled",
            "lmtp_dns_support_level": "disabled",
            "smtpd_peername_lookup": "no",
            "biff": "no",
            "notify_classes": "",
            "smtputf8_enable": "no",
            "milter_default_action": "tempfail",
            "in_flow_delay": "0s",  # no pause per mail when the queue lags: the tests measure the chain
            # retries in seconds, not minutes, for the tests
            "queue_run_delay": "1s",
            "minimal_backoff_time": "1s",
            "maximal_backoff_time": "4s",
            "smtp_connect_timeout": "5s",
            "lmtp_connect_timeout": "5s",
            **main,
        }
        (self.folder / "main.cf").write_text("".join(f"{k} = {v}\n" for k, v in settings.items()))
        (self.folder / "master.cf").write_text(MASTER_CF.format(smtp_port=f"{HOST}:{self.port}") + master_extra)

    def postfix(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["postfix", "-c", str(self.folder), *args], capture_output=True, text=True,
                              check=check, timeout=60)

    @property
    def master_pid(self) -> int | None:
        try:
            return int((self.folder / "queue" / "pid" / "master.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    @property
    def running(self) -> bool:
        return self.postfix("status", check=False).returncode == 0

    def start(self) -> None:
        done = self.postfix("start", check=False)
        if done.returncode != 0:
            raise MailServerError(f"postfix {self.name} did not start: {done.stdout}{done.stderr}\n"
                                  f"{self.log()[-3000:]}")
        _wait_port(self.port, f"postfix {self.name}", time.monotonic() + START_TIMEOUT)

    def stop(self) -> None:
        pid = self.master_pid
        self.postfix("stop", check=False)
        deadline = time.monotonic() + 20
        while pid is not None and time.monotonic() < deadline:
            if not _alive(pid):
                return
            time.sleep(0.1)
        if pid is not None:  # stop did not end it: its master (and so its children) by pid
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def restart(self) -> None:
        self.stop()
        self.start()

    def flush(self) -> None:
        """Try every deferred mail now (``postqueue -f``)."""
        subprocess.run(["postqueue", "-c", str(self.folder), "-f"], capture_output=True, timeout=30)

    def queue(self) -> list[dict]:
        """The mail waiting in the queue (``postqueue -j``: one JSON object a
        mail, with its queue name and each recipient's delay reason)."""
        done = subprocess.run(["postqueue", "-c", str(self.folder), "-j"], capture_output=True, text=True,
                              timeout=30)
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def close(self) -> None:
        try:
            self.stop()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


# -- pbm -----------------------------------------------------------------------


@dataclass
class Pbm:
    """``pbm serve`` behind the server's Postfix: its folder (configuration,
    database, key, log) and its LMTP port."""

    folder: Path
    lmtp_port: int
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0
    extra: list[str] = field(default_factory=list)
    pictures: bool = True

    @property
    def config(self) -> Path:
        return self.folder / "pbm.toml"

    @property
    def database(self) -> Path:
        return self.folder / "db" / "pbm.sqlite3"

    def write_config(self, relay_port: int, *, listen: bool = True) -> None:
        (self.folder / "db").mkdir(exist_ok=True)
        lines = [
            "[server]", f'address = "{PBM_ADDRESS}"', 'database = "db/pbm.sqlite3"',
            f"pictures = {'true' if self.pictures else 'false'}", "",
            "[security]", f'trusted_authserv_id = "{AUTHSERV}"', 'key_file = "pbm.key"', "",
            "[smtp]", f'host = "{HOST}"', f"port = {relay_port}", 'tls = "none"', "",
            "[listen]", f"enabled = {'true' if listen else 'false'}", 'protocol = "lmtp"',
            f'host = "{HOST}"', f"port = {self.lmtp_port}", "",
            "[outbox]", "retry_initial_seconds = 0.5", "retry_max_seconds = 2.0", "",
            "[computer]", "enabled = false", "",
            "[metrics]", "enabled = false", "",
            *self.extra,
        ]
        self.config.write_text("\n".join(lines) + "\n")

    def start(self, wait: bool = True, user: str | None = None) -> None:
        """``pbm serve``; as ``user`` (with the system's Python, see
        :data:`UNPRIVILEGED_PBM`), for the pipe, which runs ``pbm deliver``
        as that user on the same database."""
        log = open(self.folder / "serve.log", "ab")  # noqa: SIM115 - the child keeps it
        command = [*(UNPRIVILEGED_PBM if user else [sys.executable, "-m", "pbm"]), "serve", "--config",
                   str(self.config)]
        try:
            self.process = subprocess.Popen(command, cwd=self.folder, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT, user=user)
        finally:
            log.close()
        self.starts += 1
        if wait:
            _wait_port(self.lmtp_port, "pbm serve", time.monotonic() + 60, self.process)
        elif user:  # no listener to wait for: its log says when it serves
            deadline = time.monotonic() + 60
            while "serving" not in self.log():
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise MailServerError(f"pbm serve did not start:\n{self.log()[-3000:]}")
                time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL, as a crash or the OOM killer would."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)
        self.process = None

    def log(self) -> str:
        try:
            return (self.folder / "serve.log").read_text(errors="replace")
        except OSError:
            return ""


# -- the whole rig -----------------------------------------------------------


#: pbm run by another user than root: Postfix's pipe refuses to run a
#: command as root, and the virtualenv's interpreter may live where only
#: root may look (``/root``), so the system's Python (the same 3.11) with
#: this checkout and the virtualenv's packages on its path.
_SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
UNPRIVILEGED_PBM = ["/usr/bin/env", f"PYTHONPATH={Path(__file__).resolve().parents[2]}:{_SITE}",
                    "/usr/bin/python3", "-m", "pbm"]
PIPE_USER = "nobody"


def pipe_transport(config: Path, user: str) -> str:
    """The master.cf lines of Route 2: Postfix's pipe to ``pbm deliver``."""
    return (f"pbm       unix  -       n       n       -       -       pipe\n"
            f"  user={user} null_sender= argv={' '.join(UNPRIVILEGED_PBM)} deliver --config {config}"
            " --sender=${sender} --recipient=${recipient}\n")


class Rig:
    """Everything of the module docstring, started by :meth:`start` and
    stopped by :meth:`close`.  ``delivery`` is ``"lmtp"`` (pbm's LMTP
    listener) or ``"pipe"`` (Postfix's pipe to ``pbm deliver``, pbm serve
    only sending)."""

    def __init__(self, delivery: str = "lmtp", pbm_folder: Path | None = None, spy: bool = False,
                 pictures: bool = True) -> None:
        self.delivery = delivery
        self.spy = spy
        self._own_pbm_folder = pbm_folder is None
        self.base = _world_dir("rig")
        self.keys_dir = self.base / "keys"
        self.player_key = make_key(self.keys_dir / "players", PLAYERS, "p1")
        self.server_key = make_key(self.keys_dir / "server", SERVER_DOMAIN, "mx")
        self.records = {
            self.player_key.name: [self.player_key.record],
            self.server_key.name: [self.server_key.record],
            f"_dmarc.{PLAYERS}": ["v=DMARC1; p=none"],
            PLAYERS: [f"v=spf1 ip4:{PROVIDER_OUT} -all"],
            f"_dmarc.{SERVER_DOMAIN}": [f"v=DMARC1; p=quarantine; rua=mailto:dmarc@{SERVER_DOMAIN}"],
            SERVER_DOMAIN: ["v=spf1 ip4:127.0.0.1 -all"],
        }
        self.dns = DnsServer(self.records)
        self.dovecot = Dovecot()
        self.provider_dkim = opendkim(self.base / "provider-dkim", mode="s", keys=[self.player_key],
                                      internal=[HOST])
        self.server_dkim = opendkim(self.base / "server-dkim", mode="sv", keys=[self.server_key],
                                    internal=[HOST], dns_data=self.records, authserv=AUTHSERV)
        self.server_dmarc = opendmarc(self.base / "server-dmarc", authserv=AUTHSERV, dns=self.dns)
        self.pbm = Pbm(pbm_folder or _world_dir("pbm"), free_port(), pictures=pictures)
        self.mailboxes: set[str] = set()
        self.provider = Postfix("provider", {
            "myhostname": f"smtp.{PLAYERS}",
            "myorigin": PLAYERS,
            "mynetworks": f"{HOST}/32",
            "smtp_bind_address": PROVIDER_OUT,
            "virtual_mailbox_domains": PLAYERS,
            "virtual_mailbox_maps": "texthash:{folder}/mailboxes",
            "virtual_transport": f"lmtp:inet:{HOST}:{self.dovecot.lmtp_port}",
            "transport_maps": "texthash:{folder}/transport",
            "smtpd_milters": f"inet:{HOST}:{self.provider_dkim.port}",
            "non_smtpd_milters": "",
        })
        main = {
            "myhostname": AUTHSERV,
            "myorigin": SERVER_DOMAIN,
            "mynetworks": f"{HOST}/32",
            "virtual_mailbox_domains": SERVER_DOMAIN,
            "virtual_mailbox_maps": "texthash:{folder}/recipients",
            "recipient_delimiter": "+",
            "transport_maps": "texthash:{folder}/transport",
            "header_checks": "regexp:{folder}/header_checks",
            "smtpd_milters": f"inet:{HOST}:{self.server_dkim.port}, inet:{HOST}:{self.server_dmarc.port}",
            "non_smtpd_milters": "",
        }
        if spy:  # a copy of what reaches pbm, headers and all, to the mailbox "spy"
            main["recipient_bcc_maps"] = "texthash:{folder}/spy"
        if delivery == "lmtp":
            main["virtual_transport"] = f"lmtp:inet:{HOST}:{self.pbm.lmtp_port}"
            master_extra = ""
        else:
            main["virtual_transport"] = "pbm"
            main["pbm_destination_recipient_limit"] = "1"
            master_extra = pipe_transport(self.pbm.config, PIPE_USER)
        self.server = Postfix("server", main, master_extra)
        for postfix in (self.provider, self.server):
            text = (postfix.folder / "main.cf").read_text().replace("{folder}", str(postfix.folder))
            (postfix.folder / "main.cf").write_text(text)
        (self.server.folder / "recipients").write_text(f"{PBM_ADDRESS} ok\n{BOUNCE_ADDRESS} ok\n")
        (self.server.folder / "transport").write_text(
            f"{PLAYERS} smtp:[{HOST}]:{self.provider.port}\n"
            "elsewhere.test discard:a domain the tests write From but nobody reads\n")
        (self.server.folder / "header_checks").write_text(
            "/^Authentication-Results:[[:space:]]*" + re.escape(AUTHSERV) + "([[:space:];]|$)/ IGNORE\n")
        (self.provider.folder / "transport").write_text(f"{SERVER_DOMAIN} smtp:[{HOST}]:{self.server.port}\n")
        (self.provider.folder / "mailboxes").write_text("")
        (self.server.folder / "spy").write_text(f"{PBM_ADDRESS} spy@{PLAYERS}\n")
        if spy:
            self.add_player("spy")
        self.pbm.write_config(self.server.port, listen=delivery == "lmtp")
        if delivery == "pipe":  # pbm deliver and pbm serve write the database as that user
            owner = pwd.getpwnam(PIPE_USER)
            for path in (self.pbm.folder, self.pbm.folder / "db", self.pbm.config):
                os.chown(path, owner.pw_uid, owner.pw_gid)

    def add_player(self, name: str) -> str:
        """A mailbox at the provider (and its Dovecot user, password = name);
        returns its address.  Postfix reads the texthash table again only at
        its next start or reload."""
        self.dovecot.add_user(name, name)
        self.mailboxes.add(name)
        (self.provider.folder / "mailboxes").write_text("".join(f"{n}@{PLAYERS} ok\n" for n in sorted(self.mailboxes)))
        return f"{name}@{PLAYERS}"

    def remove_player(self, name: str) -> None:
        """Close a mailbox at the provider (mail to it is refused from the
        provider's next reload on: 550 user unknown)."""
        self.mailboxes.discard(name)
        (self.provider.folder / "mailboxes").write_text("".join(f"{n}@{PLAYERS} ok\n" for n in sorted(self.mailboxes)))

    def milters(self) -> str:
        """Each milter and whether it runs (its exit status when not), for
        failure messages."""
        def state(m: Milter) -> str:
            if m.process is None:
                return "not started"
            return "running" if m.process.poll() is None else f"exited {m.process.returncode}"

        milters = (self.provider_dkim, self.server_dkim, self.server_dmarc)
        return ", ".join(f"{m.folder.name}: {state(m)}" for m in milters)

    def reload_provider(self) -> None:
        self.provider.postfix("reload")
        time.sleep(0.5)  # the smtpd processes that knew the old table exit after their session

    def start(self) -> None:
        self.dovecot.start()
        for milter in (self.provider_dkim, self.server_dkim, self.server_dmarc):
            milter.start()
        self.provider.start()
        self.server.start()
        if self.delivery == "lmtp":
            self.pbm.start()
        else:
            self.pbm.start(wait=False, user=PIPE_USER)

    def close(self) -> None:
        for milter in (self.server_dmarc, self.server_dkim, self.provider_dkim):
            milter.terminate()
        for step in (self.pbm.stop, self.server.close, self.provider.close, self.server_dmarc.stop,
                     self.server_dkim.stop, self.provider_dkim.stop, self.dovecot.close, self.dns.close):
            try:
                step()
            except Exception as exc:  # go on stopping the rest
                print(f"rig: {step} failed: {exc!r}", file=sys.stderr)
        shutil.rmtree(self.base, ignore_errors=True)
        if self._own_pbm_folder:
            shutil.rmtree(self.pbm.folder, ignore_errors=True)

    def __enter__(self) -> Rig:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- looking at mailboxes ------------------------------------------------

    def maildir(self, name: str) -> Path:
        return self.dovecot.path / "home" / name / "Maildir"

    def mail_files(self, name: str) -> Iterator[Path]:
        for sub in ("new", "cur"):
            folder = self.maildir(name) / sub
            if folder.is_dir():
                yield from sorted(folder.iterdir())
