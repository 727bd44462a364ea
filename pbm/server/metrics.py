"""The daemon's metrics, for Prometheus (``/metrics`` on the daemon's
metrics listener, ``[metrics] host`` and ``port``: :class:`.web.MetricsView`).

The metric objects live in a registry of their own (:data:`REGISTRY`, not
prometheus-client's global one, so that nothing else a library registers
ends up in the page); the daemon, the inbox and the outbox update them as
they work (one counter increment each: no lock of ours, no database
access).  The gauges of the reply queue are read from the database when
the page is asked for (:func:`exposition`).  Counters are per process, so
only the daemon serves them (``pbm web`` does not serve this page).
"""

from __future__ import annotations

from datetime import datetime

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import generate_latest

from pbm.domain.store import Store
from pbm.domain.times import when

REGISTRY = CollectorRegistry(auto_describe=True)
#: What :func:`generate_latest` writes: the text format every Prometheus reads.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

MAILS = Counter("pbm_mails", "Mails taken in, by intake (smtp, lmtp, imap) and what became of them "
                "(handled, duplicate, dropped, failed)", ["source", "outcome"], registry=REGISTRY)
COMMANDS = Counter("pbm_commands", "Commands of mails handled, by command and outcome "
                   "(done, refused: an error reply, unreadable: no command)", ["command", "outcome"],
                   registry=REGISTRY)
REPLIES = Counter("pbm_replies", "Replies settled by the outbox (sent, refused for good by the relay), "
                  "and relay attempts that failed (failed)", ["outcome"], registry=REGISTRY)
REPLY_LATENCY = Histogram("pbm_reply_latency_seconds", "From a reply's queueing to its sending (whole seconds)",
                          buckets=(1, 2, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600), registry=REGISTRY)
IMAP_RECONNECTS = Counter("pbm_imap_reconnects", "IMAP sessions that ended in trouble and were tried again",
                          registry=REGISTRY)
OUTBOX_DEPTH = Gauge("pbm_outbox_depth", "Replies queued and not sent yet", registry=REGISTRY)
OUTBOX_OLDEST = Gauge("pbm_outbox_oldest_seconds", "How long the oldest reply not sent yet has waited "
                      "(0 with none)", registry=REGISTRY)
FAILED_MAIL = Gauge("pbm_failed_mail", "Mail that crashed the pipeline, waiting for the operator",
                    registry=REGISTRY)
STARTED = Gauge("pbm_start_time_seconds", "When this process started (Unix time)", registry=REGISTRY)
STARTED.set_to_current_time()


def mail(source: str, outcome: str) -> None:
    MAILS.labels(source, outcome).inc()


def commands(tally: list[tuple[str, str]]) -> None:
    for name, outcome in tally:
        COMMANDS.labels(name, outcome).inc()


def reply_settled(outcome: str, queued_at: str | None, now: datetime) -> None:
    """A reply sent (its wait observed), refused, or a failed attempt."""
    REPLIES.labels(outcome).inc()
    if outcome == "sent" and queued_at:
        REPLY_LATENCY.observe(max(0.0, (now - when(queued_at)).total_seconds()))


def exposition(store: Store, now: datetime) -> tuple[bytes, str]:
    """The metrics page (Prometheus text format) and its content type, the
    queue's gauges read from ``store`` first."""
    counts = store.health_counts()
    OUTBOX_DEPTH.set(counts["queue"])
    oldest = counts["oldest_unsent_at"]
    OUTBOX_OLDEST.set(max(0.0, (now - when(oldest)).total_seconds()) if oldest else 0.0)
    FAILED_MAIL.set(counts["failed"])
    return generate_latest(REGISTRY), CONTENT_TYPE
