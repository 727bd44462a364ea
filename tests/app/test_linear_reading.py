"""Reading one mail costs work in proportion to its size, whatever it holds.

Not timings: each test compares the cost *per byte* of an input with that of
an input ten times as long, measured the same way in the same run (the
better of several tries, the small input repeated so both take about as
long).  Linear work gives a ratio near 1; work that grows with the square
of the size gives about 10.  The bound, 4, leaves room for a noisy machine.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage

import pytest

from pbm.app.pipeline import Pipeline
from pbm.app.reading import body_text, html_to_text
from pbm.domain.store import Store
from pbm.grammar import parse_mail_commands

from .conftest import server_config

SMALL = 20_000
LIMIT = 4.0

#: Bodies that cost the old regular expression the square of their length, and a few ordinary ones.
HTML = {
    "unterminated <": "<",
    "unterminated <script": "<script",
    "unterminated <style": "<style",
    "script tags never closed": "<script>",
    "closed script tags": "<script>x</script>",
    "broken tags": "<scr<scr<",
    "ordinary markup": "<p>trax show 101<br>thanks &amp; bye</p>",
}

#: Bodies for the command reader.
TEXT = {
    "command lines": "trax show 101\n",
    "quoted lines": "> trax move 101 alice apple @0+\n",
    "one long line": "x",
    "blank lines": "\n",
}


def per_byte(work: Callable[[str], object], text: str, times: int) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(times):
            work(text)
        best = min(best, time.process_time() - start)
    return best / (times * len(text))


def ratio(work: Callable[[str], object], unit: str) -> float:
    small = unit * (SMALL // len(unit))
    big = unit * (10 * SMALL // len(unit))
    return per_byte(work, big, 1) / per_byte(work, small, 10)


@pytest.mark.parametrize("unit", HTML.values(), ids=HTML.keys())
def test_html_is_made_text_in_linear_time(unit):
    assert ratio(html_to_text, unit) < LIMIT


@pytest.mark.parametrize("unit", TEXT.values(), ids=TEXT.keys())
def test_commands_are_read_from_a_body_in_linear_time(unit):
    assert ratio(lambda body: parse_mail_commands("multiple", body), unit) < LIMIT


def html_mail(body: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "eve@example.org"
    msg["To"] = "pbm@pbm.test"
    msg["Subject"] = "hello"
    msg.set_content(body, subtype="html")
    return msg


@pytest.mark.parametrize("unit", ["<script", "<", "<p>trax show 101</p>"], ids=["<script", "<", "markup"])
def test_a_whole_html_mail_is_read_in_linear_time(unit):
    assert ratio(lambda body: body_text(html_mail(body)), unit) < LIMIT


def test_the_pipeline_handles_a_hostile_html_mail_in_linear_time(tmp_path):
    config = server_config(tmp_path, "replies_per_sender_per_day = 100000")
    store = Store(config.server.database)
    pipeline = Pipeline(store, config)
    now = datetime(2026, 3, 1, tzinfo=UTC)
    sent = 0

    def handle(body: str) -> None:
        nonlocal sent, now
        sent += 1
        now += timedelta(seconds=1)
        msg = html_mail(body)
        msg["Message-ID"] = f"<hostile-{sent}@example.org>"
        result = pipeline.handle(bytes(msg), now=now)
        assert result.status == "handled" and len(result.replies) == 1

    try:
        assert ratio(handle, "<script") < LIMIT
    finally:
        store.close()


def test_only_the_first_part_of_a_long_body_is_read():
    body = "trax show 101\n" * 20_000  # 280,000 characters
    msg = EmailMessage()
    msg.set_content(body)
    text = body_text(msg)
    assert len(text) < len(body) and body.startswith(text)
