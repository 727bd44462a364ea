"""The store's tables of the computer's help to players: hints (one a
turn, on boards against the computer's two lower levels) and the analyses
of finished games queued for its workers (migration 15)."""

from __future__ import annotations

from datetime import datetime

from ..times import stamp
from .connection import StoreBase
from .records import Analysis, Hint


class CoachingTables(StoreBase):
    # ------------------------------------------------------------------
    # hints

    def hint(self, board: int, ply: int) -> Hint | None:
        return self._one_as(Hint, "SELECT * FROM hints WHERE board = ? AND ply = ?", (board, ply))

    def save_hint(self, board: int, ply: int, move: str, reason: str | None, cells: tuple[str, ...],
                  now: datetime) -> None:
        self._run("INSERT INTO hints (board, ply, move, reason, cells, given_at) VALUES (?, ?, ?, ?, ?, ?)",
                  (board, ply, move, reason, " ".join(cells), stamp(now)))

    # ------------------------------------------------------------------
    # analyses

    def queue_analysis(self, board: int, address: str, requester: str, language: str | None,
                       now: datetime) -> int:
        return self._insert("analyses", {"board": board, "address": address.lower(), "requester": requester,
                                         "language": language, "queued_at": stamp(now)})

    def open_analysis(self, board: int, address: str) -> Analysis | None:
        """The analysis of ``board`` queued for ``address`` and not sent yet."""
        return self._one_as(Analysis, "SELECT * FROM analyses WHERE board = ? AND address = ? AND done_at IS NULL",
                            (board, address.lower()))

    def analyses_asked_since(self, address: str, since: datetime) -> int:
        """How many analyses ``address`` asked for since ``since``."""
        return self._count("SELECT COUNT(*) FROM analyses WHERE address = ? AND queued_at >= ?",
                           (address.lower(), stamp(since)))

    def open_analyses(self, limit: int, *, besides: tuple[int, ...] = (),
                      per_requester: int | None = None) -> list[Analysis]:
        """Analyses not done yet, except those with an id in ``besides`` (in
        hand already), taken in turns by requester like the computer's jobs
        (:meth:`~.computer_jobs.ComputerTables.open_computer_jobs`)."""
        marks = ", ".join("?" for _ in besides)
        skip = f" AND id NOT IN ({marks})" if besides else ""
        return self._all_as(
            Analysis, "SELECT id, board, address, requester, language, queued_at, started_at, attempts, done_at, "
            "outcome FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY requester ORDER BY id) AS place "
            f"FROM analyses WHERE done_at IS NULL{skip}) WHERE place <= ? ORDER BY place, id LIMIT ?",
            (*besides, limit if per_requester is None else per_requester, limit))

    def analysis(self, analysis_id: int) -> Analysis | None:
        return self._one_as(Analysis, "SELECT * FROM analyses WHERE id = ?", (analysis_id,))

    def start_analysis(self, analysis_id: int, now: datetime) -> None:
        self._run("UPDATE analyses SET started_at = ?, attempts = attempts + 1 WHERE id = ?",
                  (stamp(now), analysis_id))

    def finish_analysis(self, analysis_id: int, outcome: str, now: datetime) -> None:
        self._run("UPDATE analyses SET done_at = ?, outcome = ? WHERE id = ? AND done_at IS NULL",
                  (stamp(now), outcome, analysis_id))
