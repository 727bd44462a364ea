"""The store's tournament tables: events, entrants and pairings."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..times import stamp
from .connection import StoreBase
from .records import EntrantListing, Pairing, TournamentRecord


class TournamentTables(StoreBase):
    # ------------------------------------------------------------------
    # tournaments

    def create_tournament(self, **fields: Any) -> int:
        return self._insert("tournaments", fields)

    def tournament(self, key: str) -> TournamentRecord | None:
        return self._one_as(TournamentRecord, "SELECT * FROM tournaments WHERE key = ?", (key,))

    def tournament_by_id(self, tournament_id: int) -> TournamentRecord:
        row = self._one_as(TournamentRecord, "SELECT * FROM tournaments WHERE id = ?", (tournament_id,))
        assert row is not None, tournament_id
        return row

    def tournaments_of_game(self, game: str) -> list[TournamentRecord]:
        return self._all_as(
            TournamentRecord, "SELECT * FROM tournaments WHERE game = ? ORDER BY created_at, id", (game,))

    def tournaments_of_user(self, user_id: int) -> list[TournamentRecord]:
        """The tournaments a user entered (withdrawn or not) or directs, newest first."""
        return self._all_as(TournamentRecord,
            "SELECT * FROM tournaments WHERE director_id = ? OR id IN "
            "(SELECT tournament_id FROM entrants WHERE user_id = ?) ORDER BY created_at DESC, id DESC",
            (user_id, user_id),
        )

    def current_tournaments(self) -> list[TournamentRecord]:
        """Tournaments open for entry or running, every game type, oldest first."""
        return self._all_as(
            TournamentRecord, "SELECT * FROM tournaments WHERE status IN ('open', 'running') ORDER BY created_at, id")

    def tournaments_due(self, day: str) -> list[TournamentRecord]:
        """Open tournaments whose start date has come."""
        return self._all_as(TournamentRecord,
            "SELECT * FROM tournaments WHERE status = 'open' AND start_date IS NOT NULL AND start_date <= ?",
            (day,),
        )

    def tournaments_running(self, fmt: str) -> list[TournamentRecord]:
        return self._all_as(
            TournamentRecord, "SELECT * FROM tournaments WHERE status = 'running' AND format = ?", (fmt,))

    def update_tournament(self, tournament_id: int, **fields: Any) -> None:
        self._update("tournaments", "id", tournament_id, fields)

    def entrants(self, tournament_id: int) -> list[EntrantListing]:
        """Everyone who entered (withdrawn ones too), in the order they joined."""
        return self._all_as(
            EntrantListing, "SELECT e.*, u.userid, u.key FROM entrants e JOIN users u ON u.id = e.user_id "
            "WHERE e.tournament_id = ? ORDER BY e.joined_at, u.key",
            (tournament_id,),
        )

    def add_entrant(self, tournament_id: int, user_id: int, now: datetime) -> None:
        self._insert("entrants", {"tournament_id": tournament_id, "user_id": user_id, "joined_at": stamp(now)})

    def remove_entrant(self, tournament_id: int, user_id: int) -> int:
        return self._run(
            "DELETE FROM entrants WHERE tournament_id = ? AND user_id = ?", (tournament_id, user_id)
        ).rowcount

    def update_entrant(self, tournament_id: int, user_id: int, **fields: Any) -> None:
        self.db.table("entrants").update((tournament_id, user_id), fields)

    def add_pairing(self, **fields: Any) -> int:
        return self._insert("pairings", fields)

    def pairings(self, tournament_id: int) -> list[Pairing]:
        return self._all_as(Pairing, "SELECT * FROM pairings WHERE tournament_id = ? ORDER BY id", (tournament_id,))

    def pairing_of_board(self, board: int) -> Pairing | None:
        return self._one_as(Pairing, "SELECT * FROM pairings WHERE board = ?", (board,))

    def update_pairing(self, pairing_id: int, **fields: Any) -> None:
        self._update("pairings", "id", pairing_id, fields)

