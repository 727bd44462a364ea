"""The store's reads for the operator's health check (``pbm status``, the web
view's ``/healthz`` and ``/metrics``): the last mail handled, the reply
queue, bounces and failed mail.  Each is an indexed look-up or a count of a
small table, cheap enough to ask every few seconds while mail flows."""

from __future__ import annotations

from typing import Any

from .connection import StoreBase


class HealthTables(StoreBase):
    def health_counts(self) -> dict[str, Any]:
        """``last_key``/``last_at``: the last mail handled (None before the
        first); ``queue``: replies not sent yet; ``oldest_unsent_at``: when
        the oldest of them was queued; ``bounces``: delivery reports
        received; ``held``: players whose clock a bounce stopped;
        ``failed``: failed mail waiting for the operator; ``schema``."""
        last = self._one("SELECT message_key, handled_at FROM handled ORDER BY rowid DESC LIMIT 1")
        unsent = self._one("SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM outbox "
                           "WHERE sent_at IS NULL AND refused_at IS NULL")
        assert unsent is not None
        return {
            "last_key": last["message_key"] if last else None,
            "last_at": last["handled_at"] if last else None,
            "queue": int(unsent["n"]),
            "oldest_unsent_at": unsent["oldest"],
            "bounces": self._count("SELECT COUNT(*) FROM bounces"),
            "held": self._count("SELECT COUNT(*) FROM mail_holds WHERE ends_at > strftime('%Y-%m-%dT%H:%M:%S+00:00', "
                                "'now')"),
            "failed": self._count("SELECT COUNT(*) FROM failed_mail WHERE retried_at IS NULL"),
            "schema": self.schema_version(),
        }
