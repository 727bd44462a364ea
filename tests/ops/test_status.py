"""``pbm status`` before, while and after a daemon runs; the lock that
keeps a second daemon off the database; a stale heartbeat."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from pbm.config import load_config
from pbm.domain.store import Store
from pbm.server import health
from pbm.server.health import DatabaseLock
from tests.mail.daemon import wait_until

from .conftest import command_mail, count, pbm, write_config

pytestmark = pytest.mark.integration


def test_status_says_whether_the_daemon_runs(site):
    config = write_config(site)  # the pipe route: no intake of its own
    before = pbm("status", "--config", str(config), cwd=site)
    assert before.returncode == 1
    assert b"daemon:         not running" in before.stdout and b"there is no database yet" in before.stdout
    assert not (site / "pbm.sqlite3").exists()  # asking made none
    assert pbm("deliver", "--config", str(config), cwd=site,
               stdin=command_mail("alice@example.org", "help")).returncode == 0
    server = subprocess.Popen([sys.executable, "-m", "pbm", "serve", "--config", str(config)], cwd=site,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: health.holder(site / "pbm.sqlite3") is not None, timeout=30, what="the daemon's lock")
        wait_until(lambda: count(site / "pbm.sqlite3", "SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL") == 0,
                   timeout=30, what="the daemon sending the reply pbm deliver queued")
        during = pbm("status", "--config", str(config), cwd=site)
        quiet = pbm("status", "--config", str(config), "--quiet", cwd=site)
        second = pbm("serve", "--config", str(config), cwd=site)  # a second daemon on the same database
        server.send_signal(signal.SIGTERM)
        out, _ = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(30)
    assert server.returncode == 0, out.decode()
    assert during.returncode == 0, during.stdout
    text = during.stdout.decode()
    assert f"daemon:         running (pid {server.pid}, since " in text
    assert "last mail:      20" in text and "outbox:         0 replies to send" in text  # the daemon sent it
    assert "healthy:        yes" in text
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, b"", b"")
    assert second.returncode == 1 and f"pbm serve (pid {server.pid}) is using the database".encode() in second.stderr
    after = pbm("status", "--config", str(config), cwd=site)
    assert after.returncode == 1 and b"not running" in after.stdout and b"healthy:        no" in after.stdout


def test_a_heartbeat_older_than_half_a_minute_is_not_healthy(site):
    config = load_config(write_config(site))
    lock = DatabaseLock(config.server.database)
    lock.acquire()
    try:
        lock.beat()
        assert health.check(config).healthy is False  # no database yet: not healthy either
        Store(config.server.database).close()
        fresh = health.check(config)
        assert fresh.healthy and fresh.daemon is not None and fresh.daemon["pid"] == os.getpid()
        old = time.time() - health.STALE_SECONDS - 5
        os.utime(health.lock_path(config.server.database), (old, old))
        stale = health.check(config)
        assert not stale.healthy
        assert any("STALE" in line for line in stale.lines())
        assert stale.as_json()["status"] == "unhealthy"
    finally:
        lock.release()
    assert health.holder(config.server.database) is None
