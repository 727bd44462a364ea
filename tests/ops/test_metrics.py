"""``/metrics`` and ``/healthz`` of a running daemon's web view, read as
Prometheus and a load balancer read them; ``/healthz`` of a web view with
no daemon; the IMAP reconnect counter."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import smtplib
import subprocess
import sys
import urllib.error
import urllib.request

from prometheus_client import REGISTRY as GLOBAL
from prometheus_client.parser import text_string_to_metric_families

from pbm.config import ImapConfig
from pbm.secret import Secret
from pbm.server import metrics
from pbm.server.inbox import Inbox
from tests.mail.daemon import DaemonThread, wait_until
from tests.mail.servers import free_port

from .conftest import SERVER, command_mail, write_config


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


def test_a_running_daemon_s_metrics_and_health(site, sink):
    port, web = free_port(), free_port()
    config = write_config(site, sink=sink, listen_port=port, web_port=web)
    with DaemonThread(config):
        before = scrape(web)
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
            smtp.sendmail("alice@example.org", [SERVER], command_mail("alice@example.org", "help"))
            smtp.sendmail("bob@example.org", [SERVER], command_mail("bob@example.org", "trax move 101"))
            automatic = command_mail("bob@example.org", "help", Auto_Submitted="auto-replied")
            smtp.sendmail("bob@example.org", [SERVER], automatic)
        sink.wait_for(2)
        wait_until(lambda: value(scrape(web), "pbm_replies_total", outcome="sent")
                   >= value(before, "pbm_replies_total", outcome="sent") + 2, what="the replies counted")
        after = scrape(web)
        status, headers, body = fetch(f"http://127.0.0.1:{web}/healthz")

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
    report = json.loads(body)
    assert report["status"] == "ok" and report["daemon"]["pid"] == os.getpid()
    assert report["outbox_depth"] == 0 and report["last_mail_at"] is not None


def test_healthz_of_a_web_view_with_no_daemon_is_503(site):
    web = free_port()
    config = write_config(site, web_port=web)
    server = subprocess.Popen([sys.executable, "-m", "pbm", "web", "--config", str(config)], cwd=site,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: _answers(web), timeout=30, what="pbm web")
        status, headers, body = fetch(f"http://127.0.0.1:{web}/healthz")
        page = scrape(web)
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(30)
    assert status == 503 and headers["Cache-Control"] == "no-store"
    report = json.loads(body)
    assert report["status"] == "unhealthy" and report["daemon"] is None
    assert value(page, "pbm_outbox_depth") == 0


def _answers(port: int) -> bool:
    try:
        return fetch(f"http://127.0.0.1:{port}/site.css")[0] == 200
    except OSError:
        return False


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
