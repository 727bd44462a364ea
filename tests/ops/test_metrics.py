"""``/metrics`` and ``/healthz`` of a running daemon, on its metrics
listener (``[metrics]``), read as Prometheus and a load balancer read them,
and not on the public web view; ``/healthz`` with no daemon; a metrics port
that is taken; the ``[metrics]`` section; the IMAP reconnect counter."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import smtplib
import socket
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from prometheus_client import REGISTRY as GLOBAL
from prometheus_client.parser import text_string_to_metric_families

from pbm.config import ConfigError, ImapConfig, load_config
from pbm.domain.store import Store
from pbm.secret import Secret
from pbm.server import metrics
from pbm.server.checkconfig import check
from pbm.server.inbox import Inbox
from pbm.server.web import MetricsView
from tests.mail.daemon import DaemonThread, wait_until
from tests.mail.servers import free_port

from .conftest import SERVER, command_mail, write_config

pytestmark = pytest.mark.integration


def fetch(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """(sample name, sorted labels) -> value, for every sample of the page."""
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    status, headers, body = fetch(f"http://127.0.0.1:{port}/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain; version=0.0.4")
    return samples(body.decode())


def value(found, name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def metrics_section(port: int, *more: str) -> list[str]:
    return ["[metrics]", f"port = {port}", *more, ""]


def test_a_running_daemon_s_metrics_and_health_on_their_own_port_not_the_web_s(site, sink):
    port, web, own = free_port(), free_port(), free_port()
    config = write_config(site, *metrics_section(own), sink=sink, listen_port=port, web_port=web)
    with DaemonThread(config):
        before = scrape(own)
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
            smtp.sendmail("alice@example.org", [SERVER], command_mail("alice@example.org", "help"))
            smtp.sendmail("bob@example.org", [SERVER], command_mail("bob@example.org", "trax move 101"))
            automatic = command_mail("bob@example.org", "help", Auto_Submitted="auto-replied")
            smtp.sendmail("bob@example.org", [SERVER], automatic)
        sink.wait_for(2)
        wait_until(lambda: value(scrape(own), "pbm_replies_total", outcome="sent")
                   >= value(before, "pbm_replies_total", outcome="sent") + 2, what="the replies counted")
        after = scrape(own)
        status, headers, body = fetch(f"http://127.0.0.1:{own}/healthz")
        on_the_web = [fetch(f"http://127.0.0.1:{web}{path}") for path in ("/metrics", "/healthz")]
        elsewhere = fetch(f"http://127.0.0.1:{own}/boards/101")

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("pbm_mails_total", source="smtp", outcome="handled") == 2
    assert grew("pbm_mails_total", source="smtp", outcome="dropped") == 1
    assert grew("pbm_commands_total", command="help", outcome="done") == 1
    assert grew("pbm_commands_total", command="move", outcome="unreadable") == 1
    assert grew("pbm_reply_latency_seconds_count") == 2
    assert grew("pbm_reply_latency_seconds_bucket", le="+Inf") == 2
    assert value(after, "pbm_outbox_depth") == 0 and value(after, "pbm_outbox_oldest_seconds") == 0
    assert ("pbm_imap_reconnects_total", ()) in after and ("pbm_failed_mail", ()) in after
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    assert headers["Cache-Control"] == "no-store"
    report = json.loads(body)
    assert report["status"] == "ok" and report["daemon"]["pid"] == os.getpid()
    assert report["outbox_depth"] == 0 and report["last_mail_at"] is not None
    # the public web view answers neither (its own 404 page); the metrics listener nothing else
    assert [page[0] for page in on_the_web] == [404, 404]
    assert all(b"pbm_" not in page[2] and b"outbox_depth" not in page[2] for page in on_the_web)
    assert elsewhere[0] == 404


def test_the_daemon_serves_metrics_with_the_web_view_off(site):
    own = free_port()
    config = write_config(site, *metrics_section(own))  # no listener, no web view: the pipe route
    with DaemonThread(config) as daemon:
        status, _, body = fetch(f"http://127.0.0.1:{own}/healthz")
        assert daemon.daemon is not None and daemon.daemon.web is None
        assert ("pbm_outbox_depth", ()) in scrape(own)
    assert status == 200 and json.loads(body)["status"] == "ok"
    with pytest.raises(OSError):  # it stopped listening with the daemon
        fetch(f"http://127.0.0.1:{own}/healthz")


def test_metrics_off_means_no_listener(site):
    own = free_port()
    config = write_config(site, *metrics_section(own, "enabled = false"))
    with DaemonThread(config) as daemon:
        assert daemon.daemon is not None and daemon.daemon.metrics_view is None
        with pytest.raises(OSError):
            fetch(f"http://127.0.0.1:{own}/healthz")


def test_a_metrics_port_that_is_taken_is_logged_and_the_mail_goes_on(site, sink, caplog):
    port, own = free_port(), free_port()
    config = write_config(site, *metrics_section(own), sink=sink, listen_port=port)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", own))
        taken.listen()
        findings = {f.what: f for f in check(str(config))}
        with caplog.at_level(logging.ERROR, logger="pbm.daemon"), DaemonThread(config) as daemon:
            with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
                smtp.sendmail("alice@example.org", [SERVER], command_mail("alice@example.org", "help"))
            sink.wait_for(1)
            assert daemon.daemon is not None and daemon.daemon.metrics_view is None
    assert f"no metrics and health: cannot listen on 127.0.0.1:{own}" in caplog.text
    finding = findings["metrics listener"]  # a warning: the daemon runs, without its metrics
    assert finding.ok and finding.warning and f"something else listens on 127.0.0.1:{own}" in finding.detail
    assert "without /metrics and /healthz" in finding.detail
    assert finding.line().startswith("warn  metrics listener: ")


def test_check_config_looks_at_the_metrics_port(site):
    web = free_port()
    same = write_config(site, *metrics_section(web), web_port=web, name="same.toml")
    finding = {f.what: f for f in check(str(same))}["metrics listener"]  # a mistake in the file
    assert not finding.ok and "is the port of the web view too" in finding.detail
    assert finding.line().startswith("FAIL  metrics listener: ")
    listener = write_config(site, *metrics_section(web, 'host = "0.0.0.0"'), listen_port=web, name="smtp.toml")
    finding = {f.what: f for f in check(str(listener))}["metrics listener"]
    assert not finding.ok and f"0.0.0.0:{web} is the port of the SMTP listener too" in finding.detail
    free = free_port()
    fine = write_config(site, *metrics_section(free), web_port=web, name="fine.toml")
    finding = {f.what: f for f in check(str(fine))}["metrics listener"]
    assert finding.ok and not finding.warning and f"127.0.0.1:{free} is free" in finding.detail
    off = write_config(site, *metrics_section(free, "enabled = false"), name="off.toml")
    assert "metrics listener" not in {f.what for f in check(str(off))}


def test_healthz_with_no_daemon_is_503_and_pbm_web_answers_neither(site):
    config = load_config(write_config(site, *metrics_section(free_port())))
    Store(config.server.database).close()

    async def ask() -> tuple[int, dict, bytes]:
        view = MetricsView(config)
        await view.start()
        try:
            return await asyncio.to_thread(fetch, f"http://127.0.0.1:{view.port}/healthz")
        finally:
            await view.stop()

    status, headers, body = asyncio.run(ask())
    assert status == 503 and headers["Cache-Control"] == "no-store"
    report = json.loads(body)
    assert report["status"] == "unhealthy" and report["daemon"] is None

    web = free_port()
    path = write_config(site, web_port=web, name="web.toml")
    server = subprocess.Popen([sys.executable, "-m", "pbm", "web", "--config", str(path)], cwd=site,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: _answers(web), timeout=30, what="pbm web")
        pages = [fetch(f"http://127.0.0.1:{web}{p}")[0] for p in ("/healthz", "/metrics")]
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(30)
    assert pages == [404, 404]


def _answers(port: int) -> bool:
    try:
        return fetch(f"http://127.0.0.1:{port}/site.css")[0] == 200
    except OSError:
        return False


def test_the_metrics_section_is_on_and_on_the_loopback_address_by_default(tmp_path):
    assert load_config(None).metrics == load_config(write_config(tmp_path)).metrics
    m = load_config(None).metrics
    assert (m.enabled, m.host, m.port) == (True, "127.0.0.1", 9180)
    read = load_config(write_config(tmp_path, "[metrics]", "enabled = false", 'host = "::1"', "port = 9999"))
    assert (read.metrics.enabled, read.metrics.host, read.metrics.port) == (False, "::1", 9999)


@pytest.mark.parametrize(("line", "says"), [
    ("port = 0", "[metrics] port must be between 1 and 65535, got 0"),
    ("port = 65536", "[metrics] port must be between 1 and 65535, got 65536"),
    ('port = "9180"', "[metrics] port must be an integer, got '9180'"),
    ("port = 9180.0", "[metrics] port must be an integer, got 9180.0"),
    ("port = true", "[metrics] port must be an integer, got true"),
    ('enabled = "yes"', "[metrics] enabled must be true or false, got 'yes'"),
    ('host = ""', "[metrics] host must not be empty"),
    ("prot = 9180", "[metrics] unknown key 'prot'; did you mean 'port'?"),
])
def test_a_bad_metrics_value_is_refused_with_the_key_named(tmp_path, line, says):
    with pytest.raises(ConfigError) as info:
        load_config(write_config(tmp_path, "[metrics]", line))
    assert str(info.value).endswith(says) and info.value.section == "metrics"


def test_an_imap_session_in_trouble_is_counted_as_a_reconnect():
    closed = free_port()
    config = ImapConfig(host="127.0.0.1", port=closed, username="pbm", password=Secret("x"), tls="none")
    before = metrics.IMAP_RECONNECTS._value.get()

    async def main() -> None:
        stop = asyncio.Event()
        inbox = Inbox(config, handle=_never, stop=stop)
        task = asyncio.ensure_future(inbox.run())
        await asyncio.sleep(0.3)
        stop.set()
        await asyncio.wait_for(task, 10)

    asyncio.run(main())
    assert metrics.IMAP_RECONNECTS._value.get() == before + 1
    assert b"pbm_imap_reconnects_total" in metrics.generate_latest(metrics.REGISTRY)


async def _never(mails):
    raise AssertionError("no mail comes from a closed port")


def test_the_metrics_registry_is_our_own():
    names = {m.name for m in metrics.REGISTRY.collect()}
    assert {"pbm_mails", "pbm_commands", "pbm_replies", "pbm_reply_latency_seconds", "pbm_outbox_depth",
            "pbm_imap_reconnects"} <= names
    assert not names & {m.name for m in GLOBAL.collect()}
