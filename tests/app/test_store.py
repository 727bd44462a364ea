"""Storage: migrations, numbering, and all-or-nothing handling of a mail."""

from datetime import UTC, datetime

import pytest

from pbm.domain.passwords import VerifiedPasswords, hash_password
from pbm.domain.positions import Positions
from pbm.domain.store import Store
from pbm.domain.store.migrations import MIGRATIONS
from pbm.trax import Board


def test_migrations_apply_once_and_are_recorded(tmp_path):
    path = tmp_path / "db.sqlite3"
    store = Store(path)
    assert store.schema_version() == len(MIGRATIONS)
    store.close()
    again = Store(path)
    assert again.migrate() == []
    assert again.schema_version() == len(MIGRATIONS)
    again.close()


def test_migration_numbers_run_from_one_without_gaps():
    assert [n for n, _, _ in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))


def test_board_numbers_start_at_101(players, store):
    players.send("alice@example.org", "trax challenge alice bob apple")
    players.send("alice@example.org", "looptrax challenge alice bob apple")
    assert store.board(101).game == "trax"
    assert store.board(102).game == "looptrax"


def test_passwords_are_stored_hashed_with_a_salt(players, store):
    alice = store.find_user("alice")
    bob = store.find_user("bob")
    assert "apple" not in alice.password_hash
    assert alice.password_hash.startswith("scrypt$")
    players.send("carol@example.org", "signup carol apple")
    carol = store.find_user("carol")
    assert carol.password_hash != alice.password_hash  # same password, other salt
    assert bob.password_hash != alice.password_hash


def test_a_failure_while_rendering_rolls_back_the_whole_mail(players, store, monkeypatch):
    players.send("alice@example.org", "trax challenge alice bob apple")
    renderer = players.pipeline.composer.renderer

    def broken(name, **context):
        raise RuntimeError("template trouble")

    monkeypatch.setattr(renderer, "render", broken)
    before = len(store.unsent_replies(limit=1000))
    with pytest.raises(RuntimeError):
        players.send("alice@example.org", "trax move 101 alice apple @0/")
    assert store.board(101).moves == ""
    assert store.moves_of(101) == []
    assert len(store.unsent_replies(limit=1000)) == before
    monkeypatch.undo()
    # nothing of the failed mail was kept, so the command sent again is played normally
    replies = players.send("alice@example.org", "trax move 101 alice apple @0/")
    assert replies[0]["Subject"] == "Trax Board 101 bob"


def test_the_password_cache_answers_like_scrypt_and_forgets_changed_passwords():
    cache = VerifiedPasswords(size=2)
    stored = hash_password("apple")
    assert cache.check("apple", stored) and cache.check("apple", stored)
    assert not cache.check("pear", stored)
    assert not cache.check("apple", "")
    changed = hash_password("apple")  # same password, new salt: a new entry
    assert cache.check("apple", changed)
    assert len(cache.known) == 2
    assert all(b"apple" not in token for token in cache.known)


def test_kept_positions_are_used_only_when_the_stored_moves_match():
    positions = Positions(size=2)
    board = Board.replay(["@0/", "B1+"])
    positions.keep(101, board, "@0/ B1+")
    assert positions.take(101, "@0/ B1+", "trax") is board
    assert positions.take(101, "@0/ B1+", "trax") is not board  # handed out once, then replayed
    positions.keep(101, board, "@0/ B1+")
    other = positions.take(101, "@0/", "trax")  # the database says otherwise: replay
    assert other is not board and [str(m) for m in other.moves] == ["@0/"]
    for n in (1, 2, 3):
        positions.keep(n, Board(), "")
    assert list(positions.kept) == [2, 3]


def test_a_failed_command_does_not_leave_its_position_behind(players, store):
    players.send("alice@example.org", "trax challenge alice bob apple")
    players.send("alice@example.org", "trax move 101 alice apple @0/")
    players.send("bob@example.org", "trax move 101 bob banana B1+")
    # an illegal move (the board object is not changed by it) and a stale one
    players.send("alice@example.org", "trax move 101 alice apple Z9+")
    players.send("alice@example.org", "trax move 101 alice apple C1/#7")
    replies = players.send("alice@example.org", "trax move 101 alice apple C1/#3")
    assert replies[0]["Subject"] == "Trax Board 101 bob"
    assert store.board(101).moves == "@0/ B1+ C1/"
    kept = players.pipeline.positions.kept[101]
    assert kept[0] == "@0/ B1+ C1/"


def test_a_reply_never_overtakes_an_older_one_waiting_for_a_retry(store, clock):
    from datetime import timedelta

    first = store.queue_reply("<a@x>", "alice@example.org", b"one", clock.now)
    store.postpone_unsent("relay down", clock.now + timedelta(seconds=30))
    store.queue_reply("<b@x>", "alice@example.org", b"two", clock.now + timedelta(seconds=1))
    assert store.unsent_replies(due=clock.now + timedelta(seconds=2)) == []
    ready = store.unsent_replies(due=clock.now + timedelta(seconds=31))
    assert [r.id for r in ready] == [first, first + 1]


def test_the_unsent_replies_a_journal_names_are_found_behind_any_backlog(tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    now = datetime(2026, 11, 27, tzinfo=UTC)
    with store.atomic():
        store.queue_replies("<k@x>", [(f"p{i}@example.org", b"x", f"<{i}@x>") for i in range(2500)], now)
        store.db.conn.execute("UPDATE outbox SET sent_at = ? WHERE id = 2400", ("2026-11-27T00:00:01",))
    named = {5, 2400, 2499, 2500, 9999}  # one sent already, one that never was
    assert [row.id for row in store.unsent_of(named)] == [5, 2499, 2500]
    store.close()
