"""The store's mail tables: mail handled, the outbox of replies, mail that
failed, the per-sender daily counts, and the operator's counts."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any, TypeVar

from ..times import stamp
from .connection import StoreBase
from .records import FailedMail, FailedMailEntry, QueuedReply, SenderDay

T = TypeVar("T")

def _thousands(items: Sequence[T]) -> Iterator[Sequence[T]]:
    """``items`` a thousand at a time: a statement's bound values stay well
    under SQLite's limit (32,766)."""
    for start in range(0, len(items), 1000):
        yield items[start:start + 1000]


class MailTables(StoreBase):
    # ------------------------------------------------------------------
    # handled mail and the outbox

    def was_handled(self, key: str) -> bool:
        return self._one("SELECT 1 AS x FROM handled WHERE message_key = ?", (key,)) is not None

    def record_handled(self, key: str, sender: str | None, summary: str, outcome: str, now: datetime) -> None:
        self._run(
            "INSERT INTO handled (message_key, sender, summary, outcome, handled_at) VALUES (?, ?, ?, ?, ?)",
            (key, sender, summary, outcome, stamp(now)),
        )

    def queue_reply(self, key: str | None, recipient: str, message: bytes, now: datetime,
                    message_id: str | None = None) -> int:
        rowid = self._run(
            "INSERT INTO outbox (message_key, recipient, message, created_at, next_attempt_at, message_id) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (key, recipient, message, stamp(now), stamp(now), message_id),
        ).lastrowid
        assert rowid is not None
        return rowid

    def queue_replies(self, key: str | None, copies: Sequence[tuple[str, bytes, str]], now: datetime) -> None:
        """Queue the copies (recipient, bytes, Message-ID) of the replies to
        one mail, in their order, in one statement (per thousand copies:
        SQLite binds at most 32,766 values to one)."""
        at = stamp(now)
        for chunk in _thousands(copies):
            rows = ", ".join(["(?, ?, ?, ?, ?, ?)"] * len(chunk))
            values = tuple(v for to, data, message_id in chunk for v in (key, to, data, at, at, message_id))
            self._run("INSERT INTO outbox (message_key, recipient, message, created_at, next_attempt_at, message_id) "
                      f"VALUES {rows}", values)

    def unsent_replies(self, limit: int = 100, *, due: datetime | None = None,
                       from_id: int = 0) -> list[QueuedReply]:
        """Replies not sent yet, oldest first; with ``due``, only the oldest
        ones up to the first whose next attempt is still to come, so that a
        reply never overtakes an older one that is waiting for a retry.
        ``from_id``: the caller knows every older reply is settled (saves
        scanning the sent ones)."""
        rows = self._all_as(
            QueuedReply,
            "SELECT * FROM outbox WHERE id >= ? AND sent_at IS NULL AND refused_at IS NULL ORDER BY id LIMIT ?",
            (from_id, limit),
        )
        if due is None:
            return rows
        now = stamp(due)
        ready = []
        for row in rows:
            if (row.next_attempt_at or "") > now:
                break
            ready.append(row)
        return ready

    def unsent_of(self, ids: Iterable[int]) -> list[QueuedReply]:
        """Those of the replies ``ids`` not sent or refused yet, oldest first
        (the outbox's sent journal names them), however long the queue."""
        rows: list[QueuedReply] = []
        for chunk in _thousands(sorted(set(ids))):
            rows += self._all_as(QueuedReply, "SELECT * FROM outbox WHERE sent_at IS NULL AND refused_at IS NULL "
                                 f"AND id IN ({', '.join('?' * len(chunk))}) ORDER BY id", tuple(chunk))
        return rows

    def count_unsent(self) -> int:
        return self._count("SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL AND refused_at IS NULL")

    def mark_refused(self, reply_id: int, error: str, now: datetime) -> None:
        self._run(
            "UPDATE outbox SET refused_at = ?, last_error = ?, attempts = attempts + 1 WHERE id = ?",
            (stamp(now), error[:500], reply_id),
        )

    def mark_sent(self, reply_id: int, now: datetime) -> None:
        """Sent: its bytes are dropped (what is kept matches a bounce to it)."""
        self._run("UPDATE outbox SET sent_at = ?, message = x'' WHERE id = ?", (stamp(now), reply_id))

    def purge_sent(self, before: datetime) -> int:
        """Delete the replies sent, or refused, before ``before``; how many."""
        when = stamp(before)
        return self._run("DELETE FROM outbox WHERE (sent_at IS NOT NULL AND sent_at < ?) "
                         "OR (refused_at IS NOT NULL AND refused_at < ?)", (when, when)).rowcount

    def postpone_unsent(self, error: str, next_attempt: datetime) -> None:
        """The relay failed: every unsent reply waits until ``next_attempt``
        (all of them, so that replies keep their order)."""
        self._run(
            "UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ? "
            "WHERE sent_at IS NULL AND refused_at IS NULL",
            (error[:500], stamp(next_attempt)),
        )

    def record_failed_mail(self, source: str, raw: bytes, error: str, now: datetime) -> int:
        return self._insert("failed_mail", {"source": source, "raw": raw, "error": error[:2000],
                                            "failed_at": stamp(now)})

    # ------------------------------------------------------------------
    # abuse limits

    def count_sender_mail(self, sender: str, day: str) -> SenderDay:
        """Count one more mail from ``sender`` on ``day``; the row after it
        (one statement: the upsert returns it)."""
        row = self._one_as(SenderDay, "INSERT INTO sender_days (sender, day, mails) VALUES (?, ?, 1) "
                           "ON CONFLICT (sender, day) DO UPDATE SET mails = mails + 1 RETURNING *",
                           (sender.lower(), day))
        assert row is not None
        return row

    def count_sender_failure(self, sender: str, day: str) -> int:
        """One more wrong password from ``sender`` on ``day`` (for any userid); the count after it."""
        key = sender.lower()
        self._run(
            "INSERT INTO sender_days (sender, day, mails, failed_logins) VALUES (?, ?, 0, 1) "
            "ON CONFLICT (sender, day) DO UPDATE SET failed_logins = failed_logins + 1",
            (key, day),
        )
        return self.sender_failures(sender, day)

    def sender_failures(self, sender: str, day: str) -> int:
        row = self._one("SELECT failed_logins FROM sender_days WHERE sender = ? AND day = ?", (sender.lower(), day))
        return int(row["failed_logins"]) if row else 0

    def daily_count(self, kind: str, key: str, day: str) -> int:
        row = self._one("SELECT n FROM daily_counts WHERE kind = ? AND key = ? AND day = ?", (kind, key.lower(), day))
        return int(row["n"]) if row else 0

    def add_daily_count(self, kind: str, key: str, day: str, n: int = 1) -> int:
        """Count ``n`` more of ``kind`` for ``key`` on ``day``; the count after it."""
        self._run(
            "INSERT INTO daily_counts (kind, key, day, n) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (kind, key, day) DO UPDATE SET n = n + excluded.n",
            (kind, key.lower(), day, n),
        )
        return self.daily_count(kind, key, day)

    def mark_sender_noticed(self, sender: str, day: str) -> None:
        self._run("UPDATE sender_days SET noticed = 1 WHERE sender = ? AND day = ?", (sender.lower(), day))


    # ------------------------------------------------------------------
    # operator tools

    def failed_mail(self) -> list[FailedMailEntry]:
        return self._all_as(FailedMailEntry, "SELECT id, source, length(raw) AS size, error, failed_at, retried_at "
                         "FROM failed_mail ORDER BY id")

    def failed_mail_raw(self, failed_id: int) -> FailedMail | None:
        return self._one_as(FailedMail, "SELECT * FROM failed_mail WHERE id = ?", (failed_id,))

    def mark_failed_retried(self, failed_id: int, now: datetime) -> None:
        self._run("UPDATE failed_mail SET retried_at = ? WHERE id = ?", (stamp(now), failed_id))

    def stats(self) -> dict[str, Any]:
        one = self._count
        outcomes = {r["kind"]: r["n"] for r in self._all(
            "SELECT CASE WHEN outcome LIKE 'dropped%' THEN 'dropped' ELSE outcome END AS kind, COUNT(*) AS n "
            "FROM handled GROUP BY kind")}
        return {
            "handled": outcomes,
            "failed": one("SELECT COUNT(*) FROM failed_mail WHERE retried_at IS NULL"),
            "queue": one("SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL AND refused_at IS NULL"),
            "refused": one("SELECT COUNT(*) FROM outbox WHERE refused_at IS NOT NULL"),
            "sent": one("SELECT COUNT(*) FROM outbox WHERE sent_at IS NOT NULL"),
            "users": one("SELECT COUNT(*) FROM users WHERE deleted_at IS NULL"),
            "active_boards": {r["game"]: r["n"] for r in self._all(
                "SELECT game, COUNT(*) AS n FROM boards WHERE status = 'active' GROUP BY game")},
            "finished_boards": one("SELECT COUNT(*) FROM boards WHERE status = 'finished'"),
            "tournaments_running": one("SELECT COUNT(*) FROM tournaments WHERE status = 'running'"),
        }
