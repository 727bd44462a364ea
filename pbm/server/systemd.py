"""systemd: readiness (``sd_notify``) and the service unit.

:func:`notify` sends a state (``READY=1``, ``STOPPING=1``) to the socket
systemd names in ``$NOTIFY_SOCKET`` when it runs the daemon as a
``Type=notify`` service: one datagram, no library.  Without that variable
it does nothing.

:func:`unit` writes the unit ``pbm install-service`` installs (and
``contrib/pbm.service`` is, with its default paths): the daemon as a
dedicated user (the one Postfix's pipe runs ``pbm deliver`` as, so both
reach the same database), its state in ``/var/lib/pbm`` (``StateDirectory``),
its LMTP socket in ``/run/pbm`` (``RuntimeDirectory``), and the sandbox
systemd offers a network daemon that writes only its own folders.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable
from pathlib import Path

STATE_DIRECTORY = Path("/var/lib/pbm")
RUNTIME_DIRECTORY = Path("/run/pbm")


def notify(state: str, environ: dict[str, str] | None = None) -> bool:
    """Tell systemd ``state``; False when not run by systemd (no
    ``$NOTIFY_SOCKET``) or the socket is gone."""
    address = (os.environ if environ is None else environ).get("NOTIFY_SOCKET", "")
    if not address or address[0] not in "/@":
        return False
    if address[0] == "@":  # an abstract socket
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(state.encode())
    except OSError:
        return False
    return True


def _quoted(word: str) -> str:
    """A word of ExecStart, quoted when it needs it (systemd's rules are the shell's, for these)."""
    if word and all(c.isalnum() or c in "/._-+=:@%" for c in word):
        return word
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def unit(command: Iterable[str], *, user: str = "pbm", config: Path = Path("/etc/pbm/pbm.toml"),
         writable: Iterable[Path] = (), home_read_only: bool = False) -> str:
    """The unit file: ``command`` runs ``pbm`` (its words, before
    ``serve``); ``writable``: folders outside ``/var/lib/pbm`` and
    ``/run/pbm`` the daemon writes (the database, the outbox Maildir, the
    socket, when the configuration puts them elsewhere);
    ``home_read_only``: the program lives under ``/home`` or ``/root``,
    which the unit then shows read-only instead of hiding."""
    exec_start = " ".join(_quoted(w) for w in [*command, "serve", "--config", str(config)])
    extra = sorted({str(p) for p in writable})
    lines = [
        "# pbm: the Trax play-by-e-mail server (written by pbm install-service)",
        "[Unit]",
        "Description=pbm, the Trax play-by-e-mail server",
        "After=network-online.target",
        "Wants=network-online.target",
        "",
        "[Service]",
        "Type=notify",
        "NotifyAccess=main",
        f"ExecStart={exec_start}",
        f"User={user}",
        f"Group={user}",
        "# /var/lib/pbm (the database, the outbox Maildir) and /run/pbm (an LMTP socket), owned by the user",
        "StateDirectory=pbm",
        "StateDirectoryMode=0750",
        "RuntimeDirectory=pbm",
        "RuntimeDirectoryMode=0755",
        "WorkingDirectory=/var/lib/pbm",
        "# passwords for password_env (PBM_IMAP_PASSWORD=...), readable by root only",
        "EnvironmentFile=-/etc/pbm/pbm.env",
        "Restart=on-failure",
        "RestartSec=5s",
        "# SIGTERM to the daemon alone: it finishes the mail in hand, sends what it can and stops its workers",
        "KillMode=mixed",
        "TimeoutStopSec=90s",
        "UMask=0027",
        "",
        "# the sandbox: everything read-only but the state folders, no devices, no privileges",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        f"ProtectHome={'read-only' if home_read_only else 'yes'}",
        *(f"ReadWritePaths={p}" for p in extra),
        "PrivateTmp=yes",
        "PrivateDevices=yes",
        "ProtectKernelTunables=yes",
        "ProtectKernelModules=yes",
        "ProtectKernelLogs=yes",
        "ProtectControlGroups=yes",
        "ProtectClock=yes",
        "ProtectHostname=yes",
        "ProtectProc=invisible",
        "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
        "RestrictNamespaces=yes",
        "RestrictRealtime=yes",
        "RestrictSUIDSGID=yes",
        "LockPersonality=yes",
        "CapabilityBoundingSet=",
        "SystemCallArchitectures=native",
        "SystemCallFilter=@system-service",
        "SystemCallFilter=~@privileged",
        "SystemCallErrorNumber=EPERM",
        "",
        "[Install]",
        "WantedBy=multi-user.target",
        "",
    ]
    return "\n".join(lines)


def writable_outside(paths: Iterable[Path]) -> list[Path]:
    """The folders among ``paths``' parents that the unit's own folders do
    not cover (each needs a ``ReadWritePaths=``)."""
    out = []
    for path in paths:
        folder = path.parent.resolve()
        if not any(folder == d or d in folder.parents for d in (STATE_DIRECTORY, RUNTIME_DIRECTORY)):
            out.append(folder)
    return out
