"""The clock work's mail as messages, for tests that read it."""

from __future__ import annotations

from datetime import datetime
from email.message import Message

from pbm.app.pipeline import Pipeline
from pbm.app.ticker import run_tick


def tick_mails(pipeline: Pipeline, now: datetime, *, dry_run: bool = False) -> list[Message]:
    """:func:`pbm.app.ticker.run_tick`, its copies read back as messages."""
    return [copy.message for copy in run_tick(pipeline, now, dry_run=dry_run)]
