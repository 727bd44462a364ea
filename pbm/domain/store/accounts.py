"""The store's account tables: users, their addresses, per-game preferences,
login state and one-time codes, vacations and broadcasts."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from pbm.languages import DEFAULT

from ..times import stamp
from .connection import StoreBase
from .records import Address, Code, LoginFailures, Preference, User, Vacation

DEFAULT_PREFERENCE: dict[str, Any] = {"accepting": True, "game_limit": None, "seeking": 0}


class AccountTables(StoreBase):
    # ------------------------------------------------------------------
    # users and addresses

    def find_user(self, key: str) -> User | None:
        """The account whose case-folded userid is ``key`` (deleted ones too)."""
        return self._kept(("user key", key), lambda: self._one_as(User, "SELECT * FROM users WHERE key = ?", (key,)))

    def user_by_id(self, user_id: int) -> User:
        user = self._kept(("user", user_id),
                          lambda: self._one_as(User, "SELECT * FROM users WHERE id = ?", (user_id,)))
        assert user is not None, user_id
        return user

    def create_user(self, userid: str, key: str, password_hash: str, addresses: list[str], now: datetime,
                    confirmed: Iterable[str] = (), language: str | None = None) -> User:
        """A new account; ``language``: the one it is answered in (None: not chosen)."""
        user_id = self._insert("users", {"userid": userid, "key": key, "password_hash": password_hash,
                                         "created_at": stamp(now), "language": language})
        self.replace_addresses(user_id, addresses, confirmed)
        return self.user_by_id(user_id)

    def all_users(self) -> list[User]:
        """Every account that is not deleted."""
        return self._all_as(User, "SELECT * FROM users WHERE deleted_at IS NULL ORDER BY key")

    def addresses_of(self, user_id: int) -> list[str]:
        rows = self._all("SELECT address FROM addresses WHERE user_id = ? ORDER BY position", (user_id,))
        return [r["address"] for r in rows]

    def address_rows(self, user_id: int) -> list[Address]:
        return self._all_as(Address, "SELECT * FROM addresses WHERE user_id = ? ORDER BY position", (user_id,))

    def confirmed_addresses(self, user_id: int) -> list[str]:
        def read() -> tuple[str, ...]:
            rows = self._all(
                "SELECT address FROM addresses WHERE user_id = ? AND confirmed = 1 ORDER BY position", (user_id,)
            )
            return tuple(r["address"] for r in rows)
        return list(self._kept(("confirmed", user_id), read))

    def replace_addresses(self, user_id: int, addresses: list[str], confirmed: Iterable[str] = ()) -> None:
        """The user's addresses become ``addresses`` in that order (a repeat,
        in any case, is left out).  An address the user had confirmed stays
        confirmed, and so does one in ``confirmed``; every other starts
        unconfirmed (it gets no mail but its confirmation)."""
        keep = {a.lower() for a in self.confirmed_addresses(user_id)} | {a.lower() for a in confirmed}
        self._run("DELETE FROM addresses WHERE user_id = ?", (user_id,))
        seen: list[str] = []
        for address in addresses:
            if address.lower() not in (a.lower() for a in seen):
                seen.append(address)
        if seen:
            self.db.table("addresses").insert_all(
                {"user_id": user_id, "position": position, "address": address,
                 "confirmed": int(address.lower() in keep)}
                for position, address in enumerate(seen)
            )

    def set_confirmed(self, user_id: int, address: str) -> int:
        return self._run(
            "UPDATE addresses SET confirmed = 1 WHERE user_id = ? AND lower(address) = lower(?)", (user_id, address)
        ).rowcount

    def set_password_hash(self, user_id: int, password_hash: str) -> None:
        self._update("users", "id", user_id, {"password_hash": password_hash})

    def set_pictures(self, user_id: int, on: bool) -> None:
        self._update("users", "id", user_id, {"pictures": int(on)})

    def set_open_challenges(self, user_id: int, on: bool) -> None:
        self._update("users", "id", user_id, {"open_challenges": int(on)})

    def set_language(self, user_id: int, language: str) -> None:
        self._update("users", "id", user_id, {"language": language})

    def users_with_address(self, address: str) -> list[User]:
        """The accounts that have ``address`` (any case), confirmed or not."""
        return list(self._kept(("with address", address.lower()), lambda: tuple(self._all_as(
            User,
            "SELECT DISTINCT u.* FROM users u JOIN addresses a ON a.user_id = u.id WHERE lower(a.address) = lower(?)",
            (address,),
        ))))

    def addresses_without_pictures(self, addresses: Iterable[str]) -> set[str]:
        """Those of ``addresses`` (as given) that belong to a live account
        whose player turned board pictures off."""
        wanted = {a.lower(): a for a in addresses}
        if not wanted:
            return set()
        marks = ", ".join("?" * len(wanted))

        def read() -> frozenset[str]:
            rows = self._all(
                "SELECT DISTINCT lower(a.address) AS address FROM addresses a JOIN users u ON u.id = a.user_id "
                f"WHERE u.pictures = 0 AND u.deleted_at IS NULL AND lower(a.address) IN ({marks})",
                tuple(wanted),
            )
            return frozenset(r["address"] for r in rows)
        return {wanted[a] for a in self._kept(("no pictures", frozenset(wanted)), read)}

    def languages_of(self, addresses: Iterable[str]) -> dict[str, str]:
        """The language each of ``addresses`` is answered in, by the address
        lowercased: its live account's (of an address several accounts
        share, the oldest account's that chose one), else English (an
        address of no account, or of one that chose none)."""
        found = dict.fromkeys((a.lower() for a in addresses), DEFAULT)
        if not found:
            return found
        marks = ", ".join("?" * len(found))

        def read() -> tuple[tuple[str, str], ...]:
            rows = self._all(
                "SELECT lower(a.address) AS address, u.language FROM addresses a JOIN users u ON u.id = a.user_id "
                f"WHERE u.language IS NOT NULL AND u.deleted_at IS NULL AND lower(a.address) IN ({marks}) "
                "ORDER BY u.id DESC",
                tuple(found),
            )
            return tuple((r["address"], r["language"]) for r in rows)
        for address, language in self._kept(("languages", frozenset(found)), read):
            found[address] = language  # the oldest account last, so its language stands
        return found

    def set_signed_off(self, user_id: int, signed_off: bool) -> None:
        self._update("users", "id", user_id, {"signed_off": int(signed_off)})

    def delete_user(self, user_id: int, now: datetime) -> None:
        """Close an account; the row stays so that old boards keep their players."""
        for table in ("queued", "submitted", "addresses", "watchers"):
            self.db.table(table).delete_where("user_id = ?", [user_id])
        self._update("users", "id", user_id, {"deleted_at": stamp(now), "password_hash": "", "signed_off": 1})

    # ------------------------------------------------------------------
    # login state and one-time codes

    def login_failures(self, sender: str, user_id: int) -> LoginFailures | None:
        """The wrong passwords in a row from ``sender`` for the user, and the block they earned."""
        key = sender.lower()
        return self._kept(("login failures", key, user_id), lambda: self._one_as(
            LoginFailures, "SELECT * FROM login_failures WHERE sender = ? AND user_id = ?", (key, user_id)))

    def login_failures_of(self, user_id: int) -> list[LoginFailures]:
        return self._all_as(LoginFailures, "SELECT * FROM login_failures WHERE user_id = ? ORDER BY sender",
                            (user_id,))

    def record_login_failure(self, sender: str, user_id: int, blocked_until: datetime | None) -> int:
        """One more wrong password from ``sender`` for the user; the count in a row after it."""
        self._run(
            "INSERT INTO login_failures (sender, user_id, failures) VALUES (?, ?, 1) "
            "ON CONFLICT (sender, user_id) DO UPDATE SET failures = failures + 1",
            (sender.lower(), user_id),
        )
        if blocked_until is not None:
            self.block_login(sender, user_id, blocked_until)
        row = self.login_failures(sender, user_id)
        assert row is not None
        return row.failures

    def block_login(self, sender: str, user_id: int, until: datetime) -> None:
        self._run("UPDATE login_failures SET blocked_until = ? WHERE sender = ? AND user_id = ?",
                  (stamp(until), sender.lower(), user_id))

    def note_block_told(self, sender: str, user_id: int, now: datetime) -> None:
        self._run("UPDATE login_failures SET noticed_at = ? WHERE sender = ? AND user_id = ?",
                  (stamp(now), sender.lower(), user_id))

    def last_block_told(self, user_id: int) -> str | None:
        row = self._one("SELECT MAX(noticed_at) AS at FROM login_failures WHERE user_id = ?", (user_id,))
        return row["at"] if row else None

    def clear_login_failures(self, user_id: int, sender: str | None = None) -> None:
        """A right password from ``sender`` (or, with none, the operator) ends the count."""
        if sender is None:
            self._run("DELETE FROM login_failures WHERE user_id = ?", (user_id,))
        else:
            self._run("DELETE FROM login_failures WHERE sender = ? AND user_id = ?", (sender.lower(), user_id))

    def set_operator_lock(self, user_id: int, locked: bool) -> None:
        self._update("users", "id", user_id, {"operator_locked": int(locked)})

    def add_code(self, user_id: int, kind: str, address: str | None, code_hash: str, now: datetime,
                 expires: datetime) -> int:
        return self._insert("codes", {"user_id": user_id, "kind": kind, "address": address, "code_hash": code_hash,
                                      "created_at": stamp(now), "expires_at": stamp(expires)})

    def live_codes(self, kind: str, now: datetime, user_id: int | None = None) -> list[Code]:
        if user_id is None:
            return self._all_as(Code, "SELECT * FROM codes WHERE kind = ? AND used_at IS NULL AND expires_at > ? "
                                "ORDER BY id", (kind, stamp(now)))
        return self._all_as(Code, "SELECT * FROM codes WHERE kind = ? AND used_at IS NULL AND expires_at > ? "
                            "AND user_id = ? ORDER BY id", (kind, stamp(now), user_id))

    def use_code(self, code_id: int, now: datetime) -> None:
        self._update("codes", "id", code_id, {"used_at": stamp(now)})

    # ------------------------------------------------------------------
    # per-game preferences

    def preference(self, user_id: int, game: str) -> Preference:
        found = self._one_as(Preference, "SELECT * FROM preferences WHERE user_id = ? AND game = ?", (user_id, game))
        return found or Preference(user_id, game, **DEFAULT_PREFERENCE)

    def set_preference(self, user_id: int, game: str, **values: Any) -> None:
        row = dataclasses.asdict(dataclasses.replace(self.preference(user_id, game), **values))
        self._upsert("preferences", row, pk=("user_id", "game"))

    def preferences_of_game(self, game: str) -> dict[int, Preference]:
        return {r.user_id: r for r in self._all_as(Preference, "SELECT * FROM preferences WHERE game = ?", (game,))}

    # ------------------------------------------------------------------
    # vacations and broadcasts

    def vacations_of(self, user_id: int) -> list[Vacation]:
        return self._all_as(Vacation, "SELECT * FROM vacations WHERE user_id = ? ORDER BY starts_at", (user_id,))

    def add_vacation(self, user_id: int, starts: datetime, ends: datetime) -> int:
        return self._insert("vacations", {"user_id": user_id, "starts_at": stamp(starts), "ends_at": stamp(ends)})

    def end_vacation(self, vacation_id: int, at: datetime) -> None:
        self._update("vacations", "id", vacation_id, {"ends_at": stamp(at)})

    def record_broadcast(self, user_id: int, now: datetime) -> None:
        self._insert("broadcasts", {"user_id": user_id, "sent_at": stamp(now)})

    def broadcasts_since(self, user_id: int, since: datetime) -> int:
        return self._count("SELECT COUNT(*) FROM broadcasts WHERE user_id = ? AND sent_at >= ?",
                           (user_id, stamp(since)))
