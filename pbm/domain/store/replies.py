"""The store's tables for playing by reply: reply tokens and the boards of a
digest, the digest setting, delivery reports (bounces) and the clock holds
they start."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from ..times import stamp
from .connection import StoreBase
from .records import BounceSummary, DigestBoard, Hold, Leave, ReplyToken, SentReply, User


class ReplyTables(StoreBase):
    # ------------------------------------------------------------------
    # reply tokens

    def add_reply_token(self, token_hash: str, user_id: int, board: int | None, ply: int | None,
                        now: datetime) -> int:
        rowid = self._run(
            "INSERT INTO reply_tokens (token_hash, user_id, board, ply, created_at) VALUES (?, ?, ?, ?, ?)",
            (token_hash, user_id, board, ply, stamp(now)),
        ).lastrowid
        assert rowid is not None
        return rowid

    def reply_token(self, token_id: int) -> ReplyToken | None:
        return self._one_as(ReplyToken, "SELECT * FROM reply_tokens WHERE id = ?", (token_id,))

    def use_reply_token(self, token_id: int, move: str, now: datetime) -> None:
        self._run("UPDATE reply_tokens SET used_at = ?, used_for = ? WHERE id = ?", (stamp(now), move, token_id))

    def add_digest_boards(self, token_id: int, boards: Iterable[tuple[int, int]]) -> None:
        for board, ply in boards:
            self._run("INSERT INTO digest_boards (token_id, board, ply) VALUES (?, ?, ?)", (token_id, board, ply))

    def digest_boards(self, token_id: int) -> list[DigestBoard]:
        return self._all_as(DigestBoard, "SELECT * FROM digest_boards WHERE token_id = ? ORDER BY board", (token_id,))

    def use_digest_board(self, token_id: int, board: int, move: str) -> None:
        self._run("UPDATE digest_boards SET used_for = ? WHERE token_id = ? AND board = ?", (move, token_id, board))

    # ------------------------------------------------------------------
    # the digest

    def set_digest(self, user_id: int, hour: int | None) -> None:
        self._update("users", "id", user_id, {"digest_hour": hour})

    def digest_users(self) -> list[User]:
        """Every live account that takes a daily digest."""
        return self._all_as(
            User, "SELECT * FROM users WHERE digest_hour IS NOT NULL AND deleted_at IS NULL ORDER BY id")

    def mark_digest_sent(self, user_id: int, day: str) -> None:
        self._update("users", "id", user_id, {"digest_sent": day})

    # ------------------------------------------------------------------
    # delivery reports and holds

    def outbox_row(self, reply_id: int) -> SentReply | None:
        """A queued or sent reply, without its bytes."""
        return self._one_as(
            SentReply, "SELECT id, message_key, recipient, created_at, sent_at FROM outbox WHERE id = ?",
                         (reply_id,))

    def probes_since(self, address: str, since: datetime) -> int:
        """Probes queued to ``address`` since then."""
        return self._count("SELECT COUNT(*) FROM outbox WHERE message_key = ? AND created_at >= ?",
                           ("probe:" + address.lower(), stamp(since)))

    def record_bounce(self, address: str, user_id: int | None, message_id: str | None, action: str,
                      status: str | None, now: datetime) -> None:
        self._insert("bounces", {"address": address.lower(), "user_id": user_id, "message_id": message_id,
                                 "action": action, "status": status, "reported_at": stamp(now)})

    def bounce_summary(self) -> list[BounceSummary]:
        """Per address: reports by kind, the last one, and whether a hold is open."""
        return self._all_as(
            BounceSummary, "SELECT b.address AS address, u.userid AS userid, COUNT(*) AS reports, "
            "SUM(b.action = 'failed') AS failed, MAX(b.reported_at) AS last_at, "
            "(SELECT status FROM bounces b2 WHERE b2.address = b.address ORDER BY b2.id DESC LIMIT 1) AS last_status, "
            "(SELECT MAX(h.ends_at) FROM mail_holds h WHERE lower(h.address) = b.address) AS held_until "
            "FROM bounces b LEFT JOIN users u ON u.id = b.user_id GROUP BY b.address ORDER BY last_at DESC"
        )

    def any_hold(self, now: datetime) -> bool:
        """Is any player's clock held at ``now``?  (Answered from an index;
        almost always no.)"""
        last = self._kept(("last hold",), lambda: (self._one("SELECT MAX(ends_at) AS at FROM mail_holds") or {})
                          .get("at"))
        return last is not None and last > stamp(now)

    def hold_of(self, user_id: int, now: datetime) -> Hold | None:
        """The player's hold under way at ``now``, if any."""
        return self._one_as(Hold, "SELECT * FROM mail_holds WHERE user_id = ? AND starts_at <= ? AND ends_at > ? "
                         "ORDER BY ends_at DESC LIMIT 1", (user_id, stamp(now), stamp(now)))

    def last_hold_start(self, user_id: int) -> str | None:
        row = self._one("SELECT MAX(starts_at) AS at FROM mail_holds WHERE user_id = ?", (user_id,))
        return row["at"] if row else None

    def start_hold(self, user_id: int, address: str, now: datetime, until: datetime) -> None:
        self._insert("mail_holds", {"user_id": user_id, "address": address.lower(), "starts_at": stamp(now),
                                    "ends_at": stamp(until)})

    def end_holds(self, user_id: int, now: datetime) -> int:
        """A hold under way ends now."""
        return self._run("UPDATE mail_holds SET ends_at = ? WHERE user_id = ? AND ends_at > ?",
                         (stamp(now), user_id, stamp(now))).rowcount

    def leave_of(self, user_id: int) -> list[Leave]:
        """A player's vacations and mail holds, with the kind of each
        (``vacation``, ``hold``), in one read: the clocks ask for both on
        every board mail."""
        return list(self._kept(("leave", user_id), lambda: tuple(self._all_as(
            Leave, "SELECT starts_at, ends_at, 'vacation' AS kind FROM vacations WHERE user_id = ? "
            "UNION ALL SELECT starts_at, ends_at, 'hold' AS kind FROM mail_holds WHERE user_id = ? "
            "ORDER BY starts_at",
            (user_id, user_id),
        ))))

    def holds_of(self, user_id: int) -> list[Hold]:
        return self._all_as(Hold, "SELECT * FROM mail_holds WHERE user_id = ? ORDER BY starts_at", (user_id,))
