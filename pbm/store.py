"""Storage: the only module that talks to SQLite (through sqlite-utils).

Every state change happens inside :meth:`Store.atomic`; the pipeline wraps a
whole mail (its commands, the record that it was handled, and its rendered
replies) in one such block, so a crash leaves either all of it or none.
Function names say what they read or write.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import deque
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Iterator

from sqlite_utils import Database
from sqlite_utils.utils import dedupe_keys

from .migrations import MIGRATIONS

Row = dict[str, Any]


def is_busy(exc: BaseException) -> bool:
    """Did SQLite give up waiting for another connection's lock?"""
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


BUSY_TIMEOUT_SECONDS = 5.0

# One lock per database file for the write transactions of this process.
# The daemon writes through two connections (pipeline and outbox).  SQLite's
# own busy handler makes a waiting writer sleep 1, 2, 5, 10 ... ms between
# tries, and a writer that commits and begins again at once (the pipeline
# going through a batch of mail) kept the outbox from marking what it sent
# until the batch was over.  This lock hands the write lock over in the order
# it was asked for, the moment it is free.  Other processes (an operator's
# `pbm` command) still meet SQLite's busy timeout.


class FairLock:
    """A lock taken in the order it was asked for (first come, first
    served), with a timeout."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._held = False
        self._waiters: deque[threading.Lock] = deque()

    def acquire(self, timeout: float) -> bool:
        with self._mutex:
            if not self._held:
                self._held = True
                return True
            gate = threading.Lock()
            gate.acquire()
            self._waiters.append(gate)
        if gate.acquire(timeout=timeout):
            return True  # handed over by release()
        with self._mutex:
            try:
                self._waiters.remove(gate)
                return False
            except ValueError:
                pass  # handed over while timing out
        gate.acquire()
        return True

    def release(self) -> None:
        with self._mutex:
            if self._waiters:
                self._waiters.popleft().release()  # still held: by the next in line
            else:
                self._held = False


_writers: dict[str, FairLock] = {}
_writers_guard = threading.Lock()


def _writer_lock(path: str) -> FairLock:
    key = str(Path(path).resolve())
    with _writers_guard:
        return _writers.setdefault(key, FairLock())


def _keys(cursor: sqlite3.Cursor) -> list[str]:
    """Column names of a result, a repeated name made unique as sqlite-utils
    does (``id``, ``id_2``)."""
    keys = [d[0] for d in cursor.description]
    return keys if len(set(keys)) == len(keys) else list(dedupe_keys(keys))


def stamp(now: datetime) -> str:
    """Times are stored as ISO 8601 text in UTC (whole seconds unless the
    time has a fraction: retry times do)."""
    return now.isoformat(timespec="seconds" if not now.microsecond else "microseconds")


class Store:
    def __init__(self, path: str | Path) -> None:
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.db = Database(conn)
        self.db.execute("PRAGMA foreign_keys = ON")
        if str(path) != ":memory:":
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")
        self.db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
        # an in-memory database is private to its connection: no lock to share
        self._writer = FairLock() if str(path) == ":memory:" else _writer_lock(str(path))
        self.migrate()

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------------
    # schema

    def schema_version(self) -> int:
        if "schema_migrations" not in self.db.table_names():
            return 0
        row = self.db.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
        return row[0] or 0

    def migrate(self) -> list[int]:
        """Apply pending migrations; return the numbers applied."""
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations "
            "(version INTEGER PRIMARY KEY, description TEXT NOT NULL)"
        )
        done = self.schema_version()
        applied = []
        for number, description, script in MIGRATIONS:
            if number <= done:
                continue
            self.db.conn.executescript(
                "BEGIN;\n"
                + script
                + f"\nINSERT INTO schema_migrations VALUES ({number}, {self.db.quote(description)});\nCOMMIT;"
            )
            applied.append(number)
        return applied

    @contextmanager
    def atomic(self) -> Iterator["Store"]:
        """One transaction (a savepoint when nested).  The outermost one is
        BEGIN IMMEDIATE: the daemon's outbox writes through a connection of
        its own, and a deferred transaction that read first could not take
        the write lock after the other connection committed (SQLITE_BUSY
        without waiting); IMMEDIATE waits for the lock (busy_timeout).
        Connections of this process to the same file first take a thread
        lock (see ``_writers``), so they do not poll for each other."""
        conn = self.db.conn
        if conn.in_transaction:
            with self.db.atomic():
                yield self
            return
        if not self._writer.acquire(timeout=BUSY_TIMEOUT_SECONDS):
            raise sqlite3.OperationalError("database is locked (by another connection of this process)")
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield self
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            else:
                try:
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
        finally:
            self._writer.release()

    # Reads go straight to the connection: sqlite-utils' query() wraps every
    # statement in a savepoint of its own (to undo a statement that turns out
    # not to return rows), which tripled the statements of a move command.
    # Every caller here passes a SELECT.

    def _one(self, sql: str, params: tuple | dict = ()) -> Row | None:
        cur = self.db.conn.execute(sql, params)
        row = cur.fetchone()
        return None if row is None else dict(zip(_keys(cur), row))

    def _all(self, sql: str, params: tuple | dict = ()) -> list[Row]:
        cur = self.db.conn.execute(sql, params)
        keys = _keys(cur)
        return [dict(zip(keys, row)) for row in cur]

    # ------------------------------------------------------------------
    # users and addresses

    def find_user(self, key: str) -> Row | None:
        """The account whose case-folded userid is ``key`` (deleted ones too)."""
        return self._one("SELECT * FROM users WHERE key = ?", (key,))

    def user_by_id(self, user_id: int) -> Row:
        row = self._one("SELECT * FROM users WHERE id = ?", (user_id,))
        assert row is not None, user_id
        return row

    def create_user(self, userid: str, key: str, password_hash: str, addresses: list[str], now: datetime) -> Row:
        cur = self.db.execute(
            "INSERT INTO users (userid, key, password_hash, created_at) VALUES (?, ?, ?, ?)",
            (userid, key, password_hash, stamp(now)),
        )
        self.replace_addresses(cur.lastrowid, addresses)
        return self.user_by_id(cur.lastrowid)

    def addresses_of(self, user_id: int) -> list[str]:
        rows = self._all("SELECT address FROM addresses WHERE user_id = ? ORDER BY position", (user_id,))
        return [r["address"] for r in rows]

    def replace_addresses(self, user_id: int, addresses: list[str]) -> None:
        self.db.execute("DELETE FROM addresses WHERE user_id = ?", (user_id,))
        seen: list[str] = []
        for address in addresses:
            if address.lower() not in (a.lower() for a in seen):
                seen.append(address)
        for position, address in enumerate(seen):
            self.db.execute(
                "INSERT INTO addresses (user_id, position, address) VALUES (?, ?, ?)",
                (user_id, position, address),
            )

    def set_password_hash(self, user_id: int, password_hash: str) -> None:
        self.db.execute("UPDATE users SET password_hash = ? WHERE id = ?", (password_hash, user_id))

    def set_signed_off(self, user_id: int, signed_off: bool) -> None:
        self.db.execute("UPDATE users SET signed_off = ? WHERE id = ?", (int(signed_off), user_id))

    def delete_user(self, user_id: int, now: datetime) -> None:
        """Close an account; the row stays so that old boards keep their players."""
        self.db.execute("DELETE FROM queued WHERE user_id = ?", (user_id,))
        self.db.execute("DELETE FROM submitted WHERE user_id = ?", (user_id,))
        self.db.execute("DELETE FROM addresses WHERE user_id = ?", (user_id,))
        self.db.execute("DELETE FROM watchers WHERE user_id = ?", (user_id,))
        self.db.execute(
            "UPDATE users SET deleted_at = ?, password_hash = '', signed_off = 1 WHERE id = ?",
            (stamp(now), user_id),
        )

    def all_users(self) -> list[Row]:
        """Every account that is not deleted."""
        return self._all("SELECT * FROM users WHERE deleted_at IS NULL ORDER BY key")

    # ------------------------------------------------------------------
    # per-game preferences

    def preference(self, user_id: int, game: str) -> Row:
        row = self._one("SELECT * FROM preferences WHERE user_id = ? AND game = ?", (user_id, game))
        return row or {"user_id": user_id, "game": game, "accepting": 1, "game_limit": None, "seeking": 0}

    def set_preference(self, user_id: int, game: str, **values: Any) -> None:
        row = self.preference(user_id, game)
        row.update(values)
        self.db.execute(
            "INSERT OR REPLACE INTO preferences (user_id, game, accepting, game_limit, seeking) "
            "VALUES (:user_id, :game, :accepting, :game_limit, :seeking)",
            row,
        )

    # ------------------------------------------------------------------
    # boards and moves

    def create_board(self, **fields: Any) -> int:
        columns = ", ".join(fields)
        marks = ", ".join(f":{k}" for k in fields)
        cur = self.db.execute(f"INSERT INTO boards ({columns}) VALUES ({marks})", fields)
        return cur.lastrowid

    def board(self, number: int) -> Row | None:
        return self._one("SELECT * FROM boards WHERE number = ?", (number,))

    def update_board(self, number: int, **fields: Any) -> None:
        sets = ", ".join(f"{k} = :{k}" for k in fields)
        self.db.execute(f"UPDATE boards SET {sets} WHERE number = :number", {**fields, "number": number})

    def boards_of(self, user_ids: list[int], game: str | None = None) -> list[Row]:
        """Boards where any of these users plays, newest last."""
        if not user_ids:
            return []
        marks = ", ".join("?" for _ in user_ids)
        sql = f"SELECT * FROM boards WHERE (white_id IN ({marks}) OR black_id IN ({marks}))"
        params: list[Any] = [*user_ids, *user_ids]
        if game is not None:
            sql += " AND game = ?"
            params.append(game)
        return self._all(sql + " ORDER BY number", tuple(params))

    def boards_of_game(self, game: str) -> list[Row]:
        return self._all("SELECT * FROM boards WHERE game = ? ORDER BY number", (game,))

    def count_active(self, user_id: int, game: str) -> int:
        row = self.db.execute(
            "SELECT COUNT(*) FROM boards WHERE status = 'active' AND game = ? AND (white_id = ? OR black_id = ?)",
            (game, user_id, user_id),
        ).fetchone()
        return row[0]

    def active_counts(self) -> dict[str, int]:
        rows = self._all("SELECT game, COUNT(*) AS n FROM boards WHERE status = 'active' GROUP BY game")
        return {r["game"]: r["n"] for r in rows}

    def record_move(self, board: int, ply: int, move: str, user_id: int, auto: bool, now: datetime) -> None:
        self.db.execute(
            "INSERT INTO moves (board, ply, move, user_id, auto, played_at) VALUES (?, ?, ?, ?, ?, ?)",
            (board, ply, move, user_id, int(auto), stamp(now)),
        )

    def delete_moves_from(self, board: int, ply: int) -> None:
        self.db.execute("DELETE FROM moves WHERE board = ? AND ply >= ?", (board, ply))

    def moves_of(self, board: int) -> list[Row]:
        return self._all("SELECT * FROM moves WHERE board = ? ORDER BY ply", (board,))

    # ------------------------------------------------------------------
    # queued and submitted moves

    def queued(self, board: int, user_id: int) -> str | None:
        row = self._one("SELECT line FROM queued WHERE board = ? AND user_id = ?", (board, user_id))
        return row["line"] if row else None

    def set_queued(self, board: int, user_id: int, line: str | None) -> None:
        self.db.execute("DELETE FROM queued WHERE board = ? AND user_id = ?", (board, user_id))
        if line:
            self.db.execute("INSERT INTO queued (board, user_id, line) VALUES (?, ?, ?)", (board, user_id, line))

    def submitted(self, board: int, user_id: int) -> Row | None:
        return self._one("SELECT * FROM submitted WHERE board = ? AND user_id = ?", (board, user_id))

    def set_submitted(self, board: int, user_id: int, move: str | None, ply: int = 0) -> None:
        self.db.execute("DELETE FROM submitted WHERE board = ? AND user_id = ?", (board, user_id))
        if move:
            self.db.execute(
                "INSERT INTO submitted (board, user_id, move, ply) VALUES (?, ?, ?, ?)",
                (board, user_id, move, ply),
            )

    def clear_pending_moves(self, board: int) -> None:
        self.db.execute("DELETE FROM queued WHERE board = ?", (board,))
        self.db.execute("DELETE FROM submitted WHERE board = ?", (board,))

    # ------------------------------------------------------------------
    # observers

    def add_watch(self, user_id: int, game: str, board: int | None, kind: str) -> bool:
        cur = self.db.execute(
            "INSERT OR IGNORE INTO watchers (user_id, game, board, kind) VALUES (?, ?, ?, ?)",
            (user_id, game, board, kind),
        )
        return cur.rowcount > 0

    def remove_watch(self, user_id: int, game: str, board: int | None) -> int:
        cur = self.db.execute(
            "DELETE FROM watchers WHERE user_id = ? AND game = ? AND IFNULL(board, 0) = IFNULL(?, 0)",
            (user_id, game, board),
        )
        return cur.rowcount

    def watchers_of(self, board: int, game: str) -> list[Row]:
        """Observers of a board: subscribed to it, or to every board of its game."""
        return self._all(
            "SELECT DISTINCT user_id, kind FROM watchers WHERE game = ? AND (board = ? OR board IS NULL)",
            (game, board),
        )

    def auto_subscriptions(self, game: str) -> list[Row]:
        return self._all("SELECT user_id, kind FROM watchers WHERE game = ? AND board IS NULL", (game,))

    # ------------------------------------------------------------------
    # handled mail and the outbox

    def was_handled(self, key: str) -> bool:
        return self._one("SELECT 1 AS x FROM handled WHERE message_key = ?", (key,)) is not None

    def record_handled(self, key: str, sender: str | None, summary: str, outcome: str, now: datetime) -> None:
        self.db.execute(
            "INSERT INTO handled (message_key, sender, summary, outcome, handled_at) VALUES (?, ?, ?, ?, ?)",
            (key, sender, summary, outcome, stamp(now)),
        )

    def queue_reply(self, key: str | None, recipient: str, message: bytes, now: datetime) -> int:
        cur = self.db.execute(
            "INSERT INTO outbox (message_key, recipient, message, created_at, next_attempt_at) VALUES (?, ?, ?, ?, ?)",
            (key, recipient, message, stamp(now), stamp(now)),
        )
        return cur.lastrowid

    def unsent_replies(self, limit: int = 100, *, due: datetime | None = None, from_id: int = 0) -> list[Row]:
        """Replies not sent yet, oldest first; with ``due``, only the oldest
        ones up to the first whose next attempt is still to come, so that a
        reply never overtakes an older one that is waiting for a retry.
        ``from_id``: the caller knows every older reply is settled (saves
        scanning the sent ones)."""
        rows = self._all(
            "SELECT * FROM outbox WHERE id >= ? AND sent_at IS NULL AND refused_at IS NULL ORDER BY id LIMIT ?",
            (from_id, limit),
        )
        if due is None:
            return rows
        now = stamp(due)
        ready = []
        for row in rows:
            if row["next_attempt_at"] > now:
                break
            ready.append(row)
        return ready

    def count_unsent(self) -> int:
        return self.db.execute(
            "SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL AND refused_at IS NULL"
        ).fetchone()[0]

    def mark_refused(self, reply_id: int, error: str, now: datetime) -> None:
        self.db.execute(
            "UPDATE outbox SET refused_at = ?, last_error = ?, attempts = attempts + 1 WHERE id = ?",
            (stamp(now), error[:500], reply_id),
        )

    def mark_sent(self, reply_id: int, now: datetime) -> None:
        self.db.execute("UPDATE outbox SET sent_at = ? WHERE id = ?", (stamp(now), reply_id))

    def postpone_unsent(self, error: str, next_attempt: datetime) -> None:
        """The relay failed: every unsent reply waits until ``next_attempt``
        (all of them, so that replies keep their order)."""
        self.db.execute(
            "UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ? "
            "WHERE sent_at IS NULL AND refused_at IS NULL",
            (error[:500], stamp(next_attempt)),
        )

    def record_failed_mail(self, source: str, raw: bytes, error: str, now: datetime) -> int:
        cur = self.db.execute(
            "INSERT INTO failed_mail (source, raw, error, failed_at) VALUES (?, ?, ?, ?)",
            (source, raw, error[:2000], stamp(now)),
        )
        return cur.lastrowid

    # ------------------------------------------------------------------
    # clocks: active boards, vacations

    def active_boards(self) -> list[Row]:
        return self._all("SELECT * FROM boards WHERE status = 'active' ORDER BY number")

    def vacations_of(self, user_id: int) -> list[Row]:
        return self._all("SELECT * FROM vacations WHERE user_id = ? ORDER BY starts_at", (user_id,))

    def add_vacation(self, user_id: int, starts: datetime, ends: datetime) -> int:
        cur = self.db.execute(
            "INSERT INTO vacations (user_id, starts_at, ends_at) VALUES (?, ?, ?)",
            (user_id, stamp(starts), stamp(ends)),
        )
        return cur.lastrowid

    def end_vacation(self, vacation_id: int, at: datetime) -> None:
        self.db.execute("UPDATE vacations SET ends_at = ? WHERE id = ?", (stamp(at), vacation_id))

    # ------------------------------------------------------------------
    # ratings

    def rating(self, user_id: int, game: str) -> Row | None:
        return self._one("SELECT * FROM ratings WHERE user_id = ? AND game = ?", (user_id, game))

    def save_rating(self, user_id: int, game: str, rating: float, result: str, now: datetime) -> None:
        """Store a new rating after a game whose ``result`` (win, loss, draw)
        this player had."""
        column = {"win": "wins", "loss": "losses", "draw": "draws"}[result]
        self.db.execute(
            "INSERT INTO ratings (user_id, game, rating) VALUES (?, ?, ?) "
            "ON CONFLICT (user_id, game) DO NOTHING",
            (user_id, game, rating),
        )
        self.db.execute(
            f"UPDATE ratings SET rating = ?, games = games + 1, {column} = {column} + 1, last_game_at = ? "
            "WHERE user_id = ? AND game = ?",
            (rating, stamp(now), user_id, game),
        )

    def ratings_of_game(self, game: str) -> list[Row]:
        """Rated players of a game type with their userids (deleted ones left out)."""
        return self._all(
            "SELECT r.*, u.userid, u.key FROM ratings r JOIN users u ON u.id = r.user_id "
            "WHERE r.game = ? AND u.deleted_at IS NULL",
            (game,),
        )

    def rated_games(self, game: str) -> list[Row]:
        """Finished rated games of a game type, in the order they ended."""
        return self._all(
            "SELECT b.*, w.userid AS white_userid, k.userid AS black_userid, "
            "(SELECT COUNT(*) FROM moves m WHERE m.board = b.number) AS ply "
            "FROM boards b JOIN users w ON w.id = b.white_id JOIN users k ON k.id = b.black_id "
            "WHERE b.game = ? AND b.status = 'finished' AND b.white_after IS NOT NULL "
            "ORDER BY b.finished_at, b.number",
            (game,),
        )

    def active_players(self, game: str) -> dict[int, int]:
        """Number of active boards of a game type per player."""
        rows = self._all(
            "SELECT id, COUNT(*) AS n FROM (SELECT white_id AS id FROM boards WHERE status = 'active' AND game = ? "
            "UNION ALL SELECT black_id FROM boards WHERE status = 'active' AND game = ?) GROUP BY id",
            (game, game),
        )
        return {r["id"]: r["n"] for r in rows}

    def preferences_of_game(self, game: str) -> dict[int, Row]:
        return {r["user_id"]: r for r in self._all("SELECT * FROM preferences WHERE game = ?", (game,))}

    # ------------------------------------------------------------------
    # tournaments

    def board_by_label(self, label: str) -> Row | None:
        return self._one("SELECT * FROM boards WHERE lower(label) = lower(?)", (label,))

    def create_tournament(self, **fields: Any) -> int:
        columns = ", ".join(fields)
        marks = ", ".join(f":{k}" for k in fields)
        return self.db.execute(f"INSERT INTO tournaments ({columns}) VALUES ({marks})", fields).lastrowid

    def tournament(self, key: str) -> Row | None:
        return self._one("SELECT * FROM tournaments WHERE key = ?", (key,))

    def tournament_by_id(self, tournament_id: int) -> Row:
        row = self._one("SELECT * FROM tournaments WHERE id = ?", (tournament_id,))
        assert row is not None, tournament_id
        return row

    def tournaments_of_game(self, game: str) -> list[Row]:
        return self._all("SELECT * FROM tournaments WHERE game = ? ORDER BY created_at, id", (game,))

    def tournaments_due(self, day: str) -> list[Row]:
        """Open tournaments whose start date has come."""
        return self._all(
            "SELECT * FROM tournaments WHERE status = 'open' AND start_date IS NOT NULL AND start_date <= ?",
            (day,),
        )

    def tournaments_running(self, fmt: str) -> list[Row]:
        return self._all("SELECT * FROM tournaments WHERE status = 'running' AND format = ?", (fmt,))

    def update_tournament(self, tournament_id: int, **fields: Any) -> None:
        sets = ", ".join(f"{k} = :{k}" for k in fields)
        self.db.execute(f"UPDATE tournaments SET {sets} WHERE id = :id", {**fields, "id": tournament_id})

    def entrants(self, tournament_id: int) -> list[Row]:
        """Everyone who entered (withdrawn ones too), in the order they joined."""
        return self._all(
            "SELECT e.*, u.userid, u.key FROM entrants e JOIN users u ON u.id = e.user_id "
            "WHERE e.tournament_id = ? ORDER BY e.joined_at, u.key",
            (tournament_id,),
        )

    def add_entrant(self, tournament_id: int, user_id: int, now: datetime) -> None:
        self.db.execute(
            "INSERT INTO entrants (tournament_id, user_id, joined_at) VALUES (?, ?, ?)",
            (tournament_id, user_id, stamp(now)),
        )

    def remove_entrant(self, tournament_id: int, user_id: int) -> int:
        return self.db.execute(
            "DELETE FROM entrants WHERE tournament_id = ? AND user_id = ?", (tournament_id, user_id)
        ).rowcount

    def update_entrant(self, tournament_id: int, user_id: int, **fields: Any) -> None:
        sets = ", ".join(f"{k} = :{k}" for k in fields)
        self.db.execute(
            f"UPDATE entrants SET {sets} WHERE tournament_id = :tid AND user_id = :uid",
            {**fields, "tid": tournament_id, "uid": user_id},
        )

    def add_pairing(self, **fields: Any) -> int:
        columns = ", ".join(fields)
        marks = ", ".join(f":{k}" for k in fields)
        return self.db.execute(f"INSERT INTO pairings ({columns}) VALUES ({marks})", fields).lastrowid

    def pairings(self, tournament_id: int) -> list[Row]:
        return self._all("SELECT * FROM pairings WHERE tournament_id = ? ORDER BY id", (tournament_id,))

    def pairing_of_board(self, board: int) -> Row | None:
        return self._one("SELECT * FROM pairings WHERE board = ?", (board,))

    def update_pairing(self, pairing_id: int, **fields: Any) -> None:
        sets = ", ".join(f"{k} = :{k}" for k in fields)
        self.db.execute(f"UPDATE pairings SET {sets} WHERE id = :id", {**fields, "id": pairing_id})

    # ------------------------------------------------------------------
    # account security: failed logins, locks, codes, confirmed addresses

    def set_login_state(self, user_id: int, failed_logins: int, locked_until: datetime | None) -> None:
        self.db.execute(
            "UPDATE users SET failed_logins = ?, locked_until = ? WHERE id = ?",
            (failed_logins, stamp(locked_until) if locked_until else None, user_id),
        )

    def set_operator_lock(self, user_id: int, locked: bool) -> None:
        self.db.execute("UPDATE users SET operator_locked = ? WHERE id = ?", (int(locked), user_id))

    def confirmed_addresses(self, user_id: int) -> list[str]:
        rows = self._all(
            "SELECT address FROM addresses WHERE user_id = ? AND confirmed = 1 ORDER BY position", (user_id,)
        )
        return [r["address"] for r in rows]

    def address_rows(self, user_id: int) -> list[Row]:
        return self._all("SELECT * FROM addresses WHERE user_id = ? ORDER BY position", (user_id,))

    def set_confirmed(self, user_id: int, address: str) -> int:
        return self.db.execute(
            "UPDATE addresses SET confirmed = 1 WHERE user_id = ? AND lower(address) = lower(?)", (user_id, address)
        ).rowcount

    def set_unconfirmed(self, user_id: int, addresses: list[str]) -> None:
        for address in addresses:
            self.db.execute(
                "UPDATE addresses SET confirmed = 0 WHERE user_id = ? AND lower(address) = lower(?)",
                (user_id, address),
            )

    def add_code(self, user_id: int, kind: str, address: str | None, code_hash: str, now: datetime,
                 expires: datetime) -> int:
        return self.db.execute(
            "INSERT INTO codes (user_id, kind, address, code_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
            (user_id, kind, address, code_hash, stamp(now), stamp(expires)),
        ).lastrowid

    def live_codes(self, kind: str, now: datetime, user_id: int | None = None) -> list[Row]:
        sql = "SELECT * FROM codes WHERE kind = ? AND used_at IS NULL AND expires_at > ?"
        params: list[Any] = [kind, stamp(now)]
        if user_id is not None:
            sql += " AND user_id = ?"
            params.append(user_id)
        return self._all(sql + " ORDER BY id", tuple(params))

    def use_code(self, code_id: int, now: datetime) -> None:
        self.db.execute("UPDATE codes SET used_at = ? WHERE id = ?", (stamp(now), code_id))

    # ------------------------------------------------------------------
    # abuse limits

    def count_sender_mail(self, sender: str, day: str) -> Row:
        """Count one more mail from ``sender`` on ``day``; the row after it."""
        key = sender.lower()
        self.db.execute(
            "INSERT INTO sender_days (sender, day, mails) VALUES (?, ?, 1) "
            "ON CONFLICT (sender, day) DO UPDATE SET mails = mails + 1",
            (key, day),
        )
        row = self._one("SELECT * FROM sender_days WHERE sender = ? AND day = ?", (key, day))
        assert row is not None
        return row

    def mark_sender_noticed(self, sender: str, day: str) -> None:
        self.db.execute("UPDATE sender_days SET noticed = 1 WHERE sender = ? AND day = ?", (sender.lower(), day))

    def record_broadcast(self, user_id: int, now: datetime) -> None:
        self.db.execute("INSERT INTO broadcasts (user_id, sent_at) VALUES (?, ?)", (user_id, stamp(now)))

    def broadcasts_since(self, user_id: int, since: datetime) -> int:
        return self.db.execute(
            "SELECT COUNT(*) FROM broadcasts WHERE user_id = ? AND sent_at >= ?", (user_id, stamp(since))
        ).fetchone()[0]

    # ------------------------------------------------------------------
    # operator tools

    def failed_mail(self) -> list[Row]:
        return self._all("SELECT id, source, length(raw) AS size, error, failed_at, retried_at FROM failed_mail ORDER BY id")

    def failed_mail_raw(self, failed_id: int) -> Row | None:
        return self._one("SELECT * FROM failed_mail WHERE id = ?", (failed_id,))

    def mark_failed_retried(self, failed_id: int, now: datetime) -> None:
        self.db.execute("UPDATE failed_mail SET retried_at = ? WHERE id = ?", (stamp(now), failed_id))

    def stats(self) -> dict[str, Any]:
        one = lambda sql: self.db.execute(sql).fetchone()[0]  # noqa: E731
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
