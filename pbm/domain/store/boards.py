"""The store's game tables: boards and their moves, queued and submitted
moves, observers, and the ratings tables."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..times import stamp
from .connection import StoreBase
from .records import BoardListing, BoardRecord, MoveRecord, Rating, RatingEntry, Submitted, Watcher

# the column of a player's tally that a result adds one to
_TALLY = {
    "win": "UPDATE ratings SET rating = ?, games = games + 1, wins = wins + 1, last_game_at = ? "
           "WHERE user_id = ? AND game = ?",
    "loss": "UPDATE ratings SET rating = ?, games = games + 1, losses = losses + 1, last_game_at = ? "
            "WHERE user_id = ? AND game = ?",
    "draw": "UPDATE ratings SET rating = ?, games = games + 1, draws = draws + 1, last_game_at = ? "
            "WHERE user_id = ? AND game = ?",
}


class BoardTables(StoreBase):
    # ------------------------------------------------------------------
    # boards and moves

    def create_board(self, **fields: Any) -> int:
        """A new board; its number."""
        return self._insert("boards", fields)

    def count_open_challenges(self, user_id: int) -> int:
        """Active boards that wait for this player's consent."""
        return self._count("SELECT COUNT(*) FROM boards WHERE challenged_id = ? AND accepted_at IS NULL "
                           "AND status = 'active'", (user_id,))

    def board(self, number: int) -> BoardRecord | None:
        return self._one_as(BoardRecord, "SELECT * FROM boards WHERE number = ?", (number,))

    def board_by_label(self, label: str) -> BoardRecord | None:
        """A tournament board by its name (any case)."""
        return self._one_as(BoardRecord, "SELECT * FROM boards WHERE lower(label) = lower(?)", (label,))

    def board_label(self, number: int) -> str | None:
        """A tournament board's name."""
        row = self._one("SELECT label FROM boards WHERE number = ?", (number,))
        return row["label"] if row else None

    def update_board(self, number: int, **fields: Any) -> None:
        self._update("boards", "number", number, fields)

    def boards_of(self, user_ids: list[int], game: str | None = None) -> list[BoardRecord]:
        """Boards where any of these users plays, oldest first."""
        if not user_ids:
            return []
        marks = ", ".join("?" for _ in user_ids)
        sql = f"SELECT * FROM boards WHERE (white_id IN ({marks}) OR black_id IN ({marks}))"
        params: list[Any] = [*user_ids, *user_ids]
        if game is not None:
            sql += " AND game = ?"
            params.append(game)
        return self._all_as(BoardRecord, sql + " ORDER BY number", tuple(params))

    def boards_of_game(self, game: str) -> list[BoardRecord]:
        return self._all_as(BoardRecord, "SELECT * FROM boards WHERE game = ? ORDER BY number", (game,))

    def active_boards(self) -> list[BoardRecord]:
        return self._all_as(BoardRecord, "SELECT * FROM boards WHERE status = 'active' ORDER BY number")

    def recent_boards(self, limit: int) -> list[BoardListing]:
        """The boards changed last (a move, a result), newest first, with
        their players' userids (``white_userid``, ``black_userid``)."""
        return self._all_as(
            BoardListing, "SELECT b.*, w.userid AS white_userid, k.userid AS black_userid FROM boards b "
            "JOIN users w ON w.id = b.white_id JOIN users k ON k.id = b.black_id "
            "ORDER BY b.updated_at DESC, b.number DESC LIMIT ?",
            (limit,),
        )

    def player_boards(self, user_id: int) -> list[BoardListing]:
        """Every board a user plays, with both players' userids, newest first."""
        return self._all_as(
            BoardListing, "SELECT b.*, w.userid AS white_userid, k.userid AS black_userid FROM boards b "
            "JOIN users w ON w.id = b.white_id JOIN users k ON k.id = b.black_id "
            "WHERE b.white_id = ? OR b.black_id = ? ORDER BY b.number DESC",
            (user_id, user_id),
        )

    def boards_created_since(self, user_id: int, since: datetime) -> int:
        """Boards outside tournaments made since ``since`` that the user plays."""
        return self._count(
            "SELECT COUNT(*) FROM boards WHERE created_at >= ? AND tournament IS NULL "
            "AND (white_id = ? OR black_id = ?)",
            (stamp(since), user_id, user_id),
        )

    def count_active(self, user_id: int, game: str) -> int:
        return self._count(
            "SELECT COUNT(*) FROM boards WHERE status = 'active' AND game = ? AND (white_id = ? OR black_id = ?)",
            (game, user_id, user_id),
        )

    def active_counts(self) -> dict[str, int]:
        """Active boards per game type."""
        rows = self._all("SELECT game, COUNT(*) AS n FROM boards WHERE status = 'active' GROUP BY game")
        return {r["game"]: r["n"] for r in rows}

    def active_players(self, game: str) -> dict[int, int]:
        """Number of active boards of a game type per player."""
        rows = self._all(
            "SELECT id, COUNT(*) AS n FROM (SELECT white_id AS id FROM boards WHERE status = 'active' AND game = ? "
            "UNION ALL SELECT black_id FROM boards WHERE status = 'active' AND game = ?) GROUP BY id",
            (game, game),
        )
        return {r["id"]: r["n"] for r in rows}

    def record_move(self, board: int, ply: int, move: str, user_id: int, auto: bool, now: datetime) -> None:
        self._run(
            "INSERT INTO moves (board, ply, move, user_id, auto, played_at) VALUES (?, ?, ?, ?, ?, ?)",
            (board, ply, move, user_id, int(auto), stamp(now)),
        )

    def delete_moves_from(self, board: int, ply: int) -> None:
        self._run("DELETE FROM moves WHERE board = ? AND ply >= ?", (board, ply))

    def moves_of(self, board: int) -> list[MoveRecord]:
        return self._all_as(MoveRecord, "SELECT * FROM moves WHERE board = ? ORDER BY ply", (board,))

    # ------------------------------------------------------------------
    # queued and submitted moves

    def queued(self, board: int, user_id: int) -> str | None:
        row = self._one("SELECT line FROM queued WHERE board = ? AND user_id = ?", (board, user_id))
        return row["line"] if row else None

    def set_queued(self, board: int, user_id: int, line: str | None) -> None:
        self._run("DELETE FROM queued WHERE board = ? AND user_id = ?", (board, user_id))
        if line:
            self._run("INSERT INTO queued (board, user_id, line) VALUES (?, ?, ?)", (board, user_id, line))

    def submitted(self, board: int, user_id: int) -> Submitted | None:
        return self._one_as(Submitted, "SELECT * FROM submitted WHERE board = ? AND user_id = ?", (board, user_id))

    def set_submitted(self, board: int, user_id: int, move: str | None, ply: int = 0) -> None:
        self._run("DELETE FROM submitted WHERE board = ? AND user_id = ?", (board, user_id))
        if move:
            self._run("INSERT INTO submitted (board, user_id, move, ply) VALUES (?, ?, ?, ?)",
                      (board, user_id, move, ply))

    def clear_pending_moves(self, board: int) -> None:
        self._run("DELETE FROM queued WHERE board = ?", (board,))
        self._run("DELETE FROM submitted WHERE board = ?", (board,))

    # ------------------------------------------------------------------
    # observers

    def add_watch(self, user_id: int, game: str, board: int | None, kind: str) -> bool:
        cur = self._run(
            "INSERT OR IGNORE INTO watchers (user_id, game, board, kind) VALUES (?, ?, ?, ?)",
            (user_id, game, board, kind),
        )
        return cur.rowcount > 0

    def remove_watch(self, user_id: int, game: str, board: int | None) -> int:
        cur = self._run(
            "DELETE FROM watchers WHERE user_id = ? AND game = ? AND IFNULL(board, 0) = IFNULL(?, 0)",
            (user_id, game, board),
        )
        return cur.rowcount

    def watchers_of(self, board: int, game: str) -> list[Watcher]:
        """Observers of a board: subscribed to it, or to every board of its game."""
        return list(self._kept(("watchers", board, game), lambda: tuple(self._all_as(
            Watcher, "SELECT DISTINCT user_id, kind FROM watchers WHERE game = ? AND (board = ? OR board IS NULL)",
            (game, board),
        ))))

    def auto_subscriptions(self, game: str) -> list[Watcher]:
        return self._all_as(Watcher, "SELECT user_id, kind FROM watchers WHERE game = ? AND board IS NULL", (game,))

    # ------------------------------------------------------------------
    # ratings

    def rating(self, user_id: int, game: str) -> Rating | None:
        return self._one_as(Rating, "SELECT * FROM ratings WHERE user_id = ? AND game = ?", (user_id, game))

    def save_rating(self, user_id: int, game: str, rating: float, result: str, now: datetime) -> None:
        """Store a new rating after a game whose ``result`` (win, loss, draw)
        this player had."""
        self._run(
            "INSERT INTO ratings (user_id, game, rating) VALUES (?, ?, ?) ON CONFLICT (user_id, game) DO NOTHING",
            (user_id, game, rating),
        )
        self._run(_TALLY[result], (rating, stamp(now), user_id, game))

    def ratings_of_game(self, game: str) -> list[RatingEntry]:
        """Rated players of a game type with their userids (deleted ones left out)."""
        return self._all_as(
            RatingEntry, "SELECT r.*, u.userid, u.key FROM ratings r JOIN users u ON u.id = r.user_id "
            "WHERE r.game = ? AND u.deleted_at IS NULL",
            (game,),
        )

    def rated_games(self, game: str) -> list[BoardListing]:
        """Finished rated games of a game type, in the order they ended."""
        return self._all_as(
            BoardListing, "SELECT b.*, w.userid AS white_userid, k.userid AS black_userid "
            "FROM boards b JOIN users w ON w.id = b.white_id JOIN users k ON k.id = b.black_id "
            "WHERE b.game = ? AND b.status = 'finished' AND b.white_after IS NOT NULL "
            "ORDER BY b.finished_at, b.number",
            (game,),
        )
