"""Storage: migrations, numbering, and all-or-nothing handling of a mail."""

import pytest

from pbm.migrations import MIGRATIONS
from pbm.store import Store


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
    players.send("alice@example.org", "trax challenge alice bob")
    players.send("alice@example.org", "looptrax challenge alice bob")
    assert store.board(101)["game"] == "trax"
    assert store.board(102)["game"] == "looptrax"


def test_passwords_are_stored_hashed_with_a_salt(players, store):
    alice = store.find_user("alice")
    bob = store.find_user("bob")
    assert "apple" not in alice["password_hash"]
    assert alice["password_hash"].startswith("scrypt$")
    players.send("carol@example.org", "signup carol apple")
    carol = store.find_user("carol")
    assert carol["password_hash"] != alice["password_hash"]  # same password, other salt
    assert bob["password_hash"] != alice["password_hash"]


def test_a_failure_while_rendering_rolls_back_the_whole_mail(players, store, monkeypatch):
    players.send("alice@example.org", "trax challenge alice bob")
    renderer = players.pipeline.renderer

    def broken(name, **context):
        raise RuntimeError("template trouble")

    monkeypatch.setattr(renderer, "render", broken)
    before = len(store.unsent_replies(limit=1000))
    with pytest.raises(RuntimeError):
        players.send("alice@example.org", "trax move 101 alice apple @0/")
    assert store.board(101)["moves"] == ""
    assert store.moves_of(101) == []
    assert len(store.unsent_replies(limit=1000)) == before
    monkeypatch.undo()
    # nothing of the failed mail was kept, so the command sent again is played normally
    replies = players.send("alice@example.org", "trax move 101 alice apple @0/")
    assert replies[0]["Subject"] == "Trax Board 101 bob"


def test_the_password_cache_answers_like_scrypt_and_forgets_changed_passwords():
    from pbm.passwords import VerifiedPasswords, hash_password

    cache = VerifiedPasswords(size=2)
    stored = hash_password("apple")
    assert cache.check("apple", stored) and cache.check("apple", stored)
    assert not cache.check("pear", stored)
    assert not cache.check("apple", "")
    changed = hash_password("apple")  # same password, new salt: a new entry
    assert cache.check("apple", changed)
    assert len(cache.known) == 2
    assert all(b"apple" not in token for token in cache.known)
