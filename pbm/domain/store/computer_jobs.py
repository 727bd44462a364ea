"""The store's tables of the computer opponent: its account, the jobs the
boards queue for it (filled by triggers, see migration 11), and the ratings
of games against it."""

from __future__ import annotations

from datetime import datetime

from ..times import stamp
from .connection import StoreBase
from .records import ComputerJob, ComputerRating, ComputerRatingEntry, PlayerJob, User


class ComputerTables(StoreBase):
    def computer_account(self) -> User | None:
        """The computer's account (the first made, should there be more)."""
        return self._one_as(User, "SELECT * FROM users WHERE computer = 1 AND deleted_at IS NULL ORDER BY id LIMIT 1")

    def mark_computer(self, user_id: int) -> None:
        self._run("UPDATE users SET computer = 1 WHERE id = ?", (user_id,))

    # ------------------------------------------------------------------
    # jobs

    def open_computer_jobs(self, limit: int, *, besides: tuple[int, ...] = (),
                           per_player: int | None = None) -> list[PlayerJob]:
        """Jobs not done yet, except those with an id in ``besides`` (in
        hand already), each with ``player``: the person the computer plays
        on the job's board.  Taken in turns by player: every player's
        oldest job first (the oldest of those first), then every player's
        second, and so on, so that one player's many jobs never stand
        before another's first; ``per_player``: at most that many of each
        player's (their oldest)."""
        marks = ", ".join("?" for _ in besides)
        skip = f" AND j.id NOT IN ({marks})" if besides else ""
        player = "CASE WHEN w.computer = 1 THEN b.black_id ELSE b.white_id END"
        return self._all_as(
            PlayerJob, f"SELECT * FROM (SELECT j.*, {player} AS player, "
            f"ROW_NUMBER() OVER (PARTITION BY {player} ORDER BY j.id) AS place "
            "FROM computer_jobs j JOIN boards b ON b.number = j.board JOIN users w ON w.id = b.white_id "
            f"WHERE j.done_at IS NULL{skip}) WHERE place <= ? ORDER BY place, id LIMIT ?",
            (*besides, limit if per_player is None else per_player, limit))

    def computer_games_of(self, user_id: int) -> int:
        """The active boards a person plays against the computer (of every
        game type, tournaments too)."""
        return self._count(
            "SELECT COUNT(*) FROM boards b JOIN users w ON w.id = b.white_id JOIN users k ON k.id = b.black_id "
            "WHERE b.status = 'active' "
            "AND ((b.white_id = ? AND k.computer = 1) OR (b.black_id = ? AND w.computer = 1))",
            (user_id, user_id))

    def computer_job(self, job_id: int) -> ComputerJob | None:
        return self._one_as(ComputerJob, "SELECT * FROM computer_jobs WHERE id = ?", (job_id,))

    def start_computer_job(self, job_id: int, now: datetime) -> None:
        self._run("UPDATE computer_jobs SET started_at = ?, attempts = attempts + 1 WHERE id = ?",
                  (stamp(now), job_id))

    def finish_computer_job(self, job_id: int, outcome: str, now: datetime) -> None:
        self._run("UPDATE computer_jobs SET done_at = ?, outcome = ? WHERE id = ? AND done_at IS NULL",
                  (stamp(now), outcome, job_id))

    def computer_jobs_of(self, board: int) -> list[ComputerJob]:
        return self._all_as(ComputerJob, "SELECT * FROM computer_jobs WHERE board = ? ORDER BY id", (board,))

    # ------------------------------------------------------------------
    # ratings against the computer

    def computer_rating(self, user_id: int, game: str) -> ComputerRating | None:
        return self._one_as(
            ComputerRating, "SELECT * FROM computer_ratings WHERE user_id = ? AND game = ?", (user_id, game))

    def save_computer_rating(self, user_id: int, game: str, rating: float, result: str, now: datetime) -> None:
        """A finished game against the computer: the new rating, and the
        result counted (``win``, ``draw`` or ``loss``)."""
        assert result in ("win", "draw", "loss"), result
        column = {"win": "wins", "draw": "draws", "loss": "losses"}[result]
        self._run(
            "INSERT INTO computer_ratings (user_id, game, rating, games, wins, draws, losses, updated_at) "
            "VALUES (?, ?, ?, 1, ?, ?, ?, ?) ON CONFLICT (user_id, game) DO UPDATE SET rating = excluded.rating, "
            f"games = games + 1, {column} = {column} + 1, updated_at = excluded.updated_at",
            (user_id, game, rating, int(result == "win"), int(result == "draw"), int(result == "loss"), stamp(now)),
        )

    def computer_ratings_of(self, user_id: int) -> list[ComputerRating]:
        return self._all_as(
            ComputerRating, "SELECT * FROM computer_ratings WHERE user_id = ? ORDER BY game", (user_id,))

    def computer_ratings_of_game(self, game: str) -> list[ComputerRatingEntry]:
        """Everyone's rating against the computer in a game type, best first."""
        return self._all_as(
            ComputerRatingEntry, "SELECT c.*, u.userid FROM computer_ratings c JOIN users u ON u.id = c.user_id "
                         "WHERE c.game = ? AND u.deleted_at IS NULL ORDER BY c.rating DESC, u.key", (game,))
