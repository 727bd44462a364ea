"""The systemd unit (``contrib/pbm.service``, ``pbm install-service``) read
key by key, checked by ``systemd-analyze verify`` when this machine has it,
and the daemon's readiness told over ``$NOTIFY_SOCKET`` as systemd hears it."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from pbm.server import systemd

from .conftest import pbm, write_config

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
CONTRIB = ROOT / "contrib" / "pbm.service"


def parse_unit(text: str) -> dict[str, dict[str, list[str]]]:
    """[section] -> key -> values (a key may be given more than once), as
    systemd reads a unit: comments and blank lines skipped, no key outside
    a section, every line a header or KEY=VALUE."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            current = sections.setdefault(stripped[1:-1], defaultdict(list))
            continue
        assert current is not None and "=" in stripped, f"line {number} is no KEY=VALUE in a section: {line!r}"
        key, _, value = stripped.partition("=")
        assert key == key.strip() and key.isidentifier(), f"line {number}: {key!r}"
        current[key].append(value)
    return sections


def one(unit: dict[str, dict[str, list[str]]], section: str, key: str) -> str:
    values = unit[section][key]
    assert len(values) == 1, (section, key, values)
    return values[0]


def check_unit(text: str, program: str, config: str, user: str = "pbm") -> None:
    unit = parse_unit(text)
    assert set(unit) == {"Unit", "Service", "Install"}
    assert one(unit, "Service", "ExecStart") == f"{program} serve --config {config}"
    expected = {
        "Type": "notify", "NotifyAccess": "main", "Restart": "on-failure", "User": user, "Group": user,
        "StateDirectory": "pbm", "RuntimeDirectory": "pbm", "WorkingDirectory": "/var/lib/pbm",
        "NoNewPrivileges": "yes", "ProtectSystem": "strict", "PrivateTmp": "yes", "PrivateDevices": "yes",
        "ProtectKernelTunables": "yes", "ProtectKernelModules": "yes", "ProtectControlGroups": "yes",
        "RestrictAddressFamilies": "AF_UNIX AF_INET AF_INET6", "LockPersonality": "yes",
        "CapabilityBoundingSet": "", "KillMode": "mixed",
    }
    assert {k: one(unit, "Service", k) for k in expected} == expected
    assert one(unit, "Service", "ProtectHome") in ("yes", "read-only")
    assert "@system-service" in unit["Service"]["SystemCallFilter"]
    assert "DynamicUser" not in unit["Service"]  # a real user: Postfix's pipe runs pbm deliver as it
    assert one(unit, "Install", "WantedBy") == "multi-user.target"
    assert one(unit, "Unit", "After") == "network-online.target"


def test_the_shipped_unit_is_what_install_service_writes_with_its_default_paths():
    text = CONTRIB.read_text(encoding="utf-8")
    check_unit(text, "/opt/pbm/bin/pbm", "/etc/pbm/pbm.toml")
    assert text == systemd.unit(["/opt/pbm/bin/pbm"])


def test_the_parser_of_these_tests_refuses_what_systemd_would_not_read():
    with pytest.raises(AssertionError):
        parse_unit("Type=notify\n[Service]\n")
    with pytest.raises(AssertionError):
        parse_unit("[Service]\nType notify\n")


def test_install_service_writes_the_unit_with_this_machine_s_paths(site):
    config = write_config(site)  # the database in the site's folder: outside /var/lib/pbm
    out = site / "pbm.service"
    done = pbm("install-service", "--user", "trax", "--config", str(config), "--output", str(out), cwd=site)
    assert done.returncode == 0, done.stderr
    program = str(Path(sys.executable).parent / "pbm")
    text = out.read_text(encoding="utf-8")
    check_unit(text, program, str(config), user="trax")
    assert parse_unit(text)["Service"]["ReadWritePaths"] == [str(site.resolve())]
    assert b"ReadWritePaths" in done.stderr and b"daemon-reload" in done.stderr
    printed = pbm("install-service", "--config", str(config), "--output", "-", cwd=site)
    assert printed.returncode == 0 and printed.stdout.decode().startswith("# pbm:")


def test_systemd_analyze_verifies_the_unit_when_this_machine_has_it(site):
    """With systemd-analyze (Debian's systemd package) the unit is verified
    as systemd would load it, ExecStart's program included; without it, the
    unit still has to read as the tests' parser reads it."""
    config = write_config(site)
    out = site / "pbm.service"
    assert pbm("install-service", "--config", str(config), "--output", str(out), cwd=site).returncode == 0
    check_unit(out.read_text(encoding="utf-8"), str(Path(sys.executable).parent / "pbm"), str(config))
    tool = shutil.which("systemd-analyze")
    if tool is None:
        return
    done = subprocess.run([tool, "verify", str(out)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr.strip() == "", done.stderr
    # the tool does complain, about a key it does not know and a program that is not there
    (site / "bad.service").write_text(out.read_text().replace("ExecStart=", "Exec=").replace("Type=notify",
                                                                                          "Type=notify\nFooBar=1"))
    bad = subprocess.run([tool, "verify", str(site / "bad.service")], capture_output=True, text=True, timeout=60)
    assert "FooBar" in bad.stderr


def test_notify_sends_one_datagram_to_the_socket_systemd_names(short_dir):
    path = short_dir / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(str(path))
        listener.settimeout(5)
        assert systemd.notify("READY=1", {"NOTIFY_SOCKET": str(path)}) is True
        assert listener.recv(4096) == b"READY=1"
        abstract = f"@pbm-test-{os.getpid()}"
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as other:
            other.bind("\0" + abstract[1:])
            other.settimeout(5)
            assert systemd.notify("STOPPING=1", {"NOTIFY_SOCKET": abstract}) is True
            assert other.recv(4096) == b"STOPPING=1"
    assert systemd.notify("READY=1", {}) is False
    assert systemd.notify("READY=1", {"NOTIFY_SOCKET": str(short_dir / "gone")}) is False


def test_pbm_serve_tells_systemd_it_is_ready_once_it_listens_and_when_it_stops(site, short_dir):
    """As systemd runs it (Type=notify): READY=1 once the intakes listen,
    STOPPING=1 on SIGTERM, exit 0; with no intake of its own it still
    serves (mail comes by pbm deliver) and says so."""
    config = write_config(site)  # no listener, no IMAP: the pipe route
    path = short_dir / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(str(path))
        listener.settimeout(60)
        env = {**os.environ, "NOTIFY_SOCKET": str(path)}
        server = subprocess.Popen([sys.executable, "-m", "pbm", "serve", "--config", str(config)], cwd=site,
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            assert listener.recv(4096) == b"READY=1"
            server.send_signal(signal.SIGTERM)
            assert listener.recv(4096) == b"STOPPING=1"
            out, _ = server.communicate(timeout=60)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait(30)
    assert server.returncode == 0, out.decode()
    assert b"mail must come by pbm deliver" in out and b"Traceback" not in out
