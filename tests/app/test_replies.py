"""Playing by pressing Reply, the daily digest, the record at the end, and
bounces that stop a clock, through the real pipeline."""

from __future__ import annotations

import re
from datetime import timedelta
from email import policy
from email.parser import BytesParser

import pytest

from pbm.app.pipeline import Pipeline
from pbm.config import load_config
from pbm.domain.reply_tokens import lookup
from pbm.domain.store import Store
from pbm.trax import Board
from tests.ticks import tick_mails

from .conftest import Clock, Mailbox, flat, is_error, server_config, text_of, to_of
from .replies import client_reply

A, B, C = "alice@example.org", "bob@example.org", "carol@example.org"
#: A won Trax game from the recorded games: white closes a loop on move 11.
LOOP_GAME = ["@0+", "@1+", "B0/", "C1/", "B0/", "B0/", "B0+", "D4+", "C1\\", "D6\\", "A2+"]


def parsed(msg, keys=None):
    """A message the clock work made, as a mail program reads it (with
    ``keys``, its secrets written in, as the outbox sends it)."""
    raw = keys.unseal(bytes(msg), str(msg["To"])) if keys is not None else bytes(msg)
    return BytesParser(policy=policy.default).parsebytes(raw)


def mine(replies, address: str):
    """The copy of a board mail that went to ``address``."""
    (msg,) = [m for m in replies if to_of(m) == address]
    return msg


def reply(mail: Mailbox, original, sender: str, first_lines: str, **kw):
    return mail.deliver(client_reply(original, sender, first_lines, when=mail.clock.now, **kw))


def moves_of(mail: Mailbox, number: int = 101) -> list[str]:
    return mail.pipeline.store.board(number).moves.split()


def test_a_whole_game_played_by_pressing_reply(players):
    mail = players
    new = mail.send(A, "trax challenge alice bob apple")
    latest = {A: mine(new, A), B: mine(new, B)}
    for n, move in enumerate(LOOP_GAME, start=1):
        player = A if n % 2 else B
        comment = f"Move {n}, as I see it." if n == 3 else ""
        replies = reply(mail, latest[player], player, f"{move}\n{comment}".strip())
        assert not is_error(replies[0]), text_of(replies[0])
        assert moves_of(mail) == LOOP_GAME[:n]
        latest = {A: mine(replies, A), B: mine(replies, B)}
        if n == 3:
            assert "alice writes:" in text_of(replies[0]) and "Move 3, as I see it." in text_of(replies[0])
            assert "Alice" not in text_of(replies[0]).split("alice writes:")[1].split("****")[2]  # no signature
            assert "wrote:" not in text_of(replies[0])  # nor the quote
    assert mail.pipeline.store.board(101).status == "finished"
    assert "Game won by alice (white loop)." in text_of(latest[A])
    # each board mail named its token only in its own Message-ID
    for msg in new:
        assert re.fullmatch(r"<r-\d+-[a-z2-7]{32}@pbm\.test>", str(msg["Message-ID"]))
    tokens = [r["token_hash"] for r in mail.pipeline.store.db.query("SELECT token_hash FROM reply_tokens")]
    assert tokens and all(len(t) == 64 for t in tokens)  # stored hashed only


def test_board_mails_say_how_to_reply(players):
    (alice, _) = players.send(A, "trax challenge alice bob apple")
    assert "reply to this mail with the move on the first line" in flat(alice)


def test_a_stolen_token_from_another_address_changes_nothing(players):
    mail = players
    new = mail.send(A, "trax challenge alice bob apple")
    (refused,) = reply(mail, mine(new, A), "mallory@example.net", "@0+")
    assert to_of(refused) == "mallory@example.net" and is_error(refused)
    assert "it comes from mallory@example.net, which is not one of alice's addresses" in flat(refused)
    assert moves_of(mail) == []
    # bob's own copy is bob's: it cannot move for alice either
    (refused,) = reply(mail, mine(new, B), B, "@0+")
    assert "it is not your turn on board 101" in flat(refused)
    assert moves_of(mail) == []


def test_a_replayed_and_a_stale_token(players):
    mail = players
    new = mail.send(A, "trax challenge alice bob apple")
    first = mine(new, A)
    reply(mail, first, A, "@0/")
    # the same reply again (a new mail, the same board mail answered): the board has moved on
    (again,) = reply(mail, first, A, "@0/")
    assert again["Subject"] == "Trax Board 101 Error"
    assert "the mail you answered showed board 101 after move 0" in flat(again)
    assert "Trax board 101" in text_of(again)  # with the board as it stands
    # and with another move: refused too, nothing changes
    (other,) = reply(mail, first, A, "@0+")
    assert is_error(other) and moves_of(mail) == ["@0/"]
    # a token used once cannot play a different move even at the same move count (after an undo)
    replies = mail.send(B, "trax move 101 bob banana B1+")
    stale_for_alice = mine(replies, A)
    mail.send(A, "trax move 101 alice apple A2\\")
    (late,) = reply(mail, stale_for_alice, A, "C1/")
    assert "has moved on to move 3" in flat(late)
    assert moves_of(mail) == ["@0/", "B1+", "A2\\"]


def test_reply_words_and_a_bad_first_line(players):
    mail = players
    new = mail.send(A, "trax challenge alice bob apple")
    replies = reply(mail, mine(new, A), A, "@0/")
    (shown,) = reply(mail, mine(replies, B), B, "show")
    assert shown["Subject"] == "Summary of Trax Board 101"
    offered = reply(mail, mine(replies, B), B, "draw")
    assert "bob offers a draw." in flat(offered[0])
    (bad,) = reply(mail, mine(offered, A), A, "Thanks for the game!")
    assert is_error(bad) and "Your command: Thanks (in your reply)" in flat(bad)
    assert "the first line of your reply: your move (C3/)" in flat(bad)
    accepted = reply(mail, mine(offered, A), A, "accept")
    assert "Game drawn by agreement." in flat(accepted[0])


def test_a_reply_whose_first_line_is_a_command_is_read_as_one(players):
    mail = players
    new = mail.send(A, "trax challenge alice bob apple")
    replies = reply(mail, mine(new, A), A, "trax move 101 alice apple @0+")
    assert "alice played @0+" in flat(replies[0])


def test_with_reply_moves_off_a_reply_is_no_command(tmp_path):
    path = tmp_path / "pbm.toml"
    server_config(tmp_path)
    path.write_text(path.read_text().replace('name = "Trax PBM"\n', 'name = "Trax PBM"\nreply_moves = false\n'))
    from pbm.config import load_config

    config = load_config(path)
    store = Store(config.server.database)
    mail = Mailbox(Pipeline(store, config), Clock())
    mail.send(A, "signup alice apple")
    mail.send(B, "signup bob banana")
    new = mail.send(A, "trax challenge alice bob apple")
    assert not str(mine(new, A)["Message-ID"]).startswith("<r-")
    assert "reply to this mail" not in flat(new[0])
    (answer,) = reply(mail, mine(new, A), A, "@0+")
    assert "found none" in flat(answer) and moves_of(mail) == []
    store.close()


def test_a_subaddress_reply_to_carries_the_token(tmp_path):
    path = tmp_path / "pbm.toml"
    server_config(tmp_path)
    path.write_text(path.read_text().replace('name = "Trax PBM"\n',
                                             'name = "Trax PBM"\nreply_subaddress = true\n'))
    from pbm.config import load_config

    store = Store(load_config(path).server.database)
    mail = Mailbox(Pipeline(store, load_config(path)), Clock())
    mail.send(A, "signup alice apple")
    mail.send(B, "signup bob banana")
    new = mail.send(A, "trax challenge alice bob apple")
    reply_to = str(mine(new, A)["Reply-To"])
    token = str(mine(new, A)["Message-ID"])[3:].partition("@")[0]
    assert reply_to == f"pbm+r-{token}@pbm.test"
    # a reply that names no mail, sent to that address, is read for the token it is addressed to
    raw = client_reply(mine(new, A), A, "@0/", when=mail.clock.now, to=reply_to)
    raw = re.sub(rb"(?m)^(In-Reply-To|References): .*\r?\n", b"", raw)
    replies = mail.deliver(raw)
    assert "alice played @0/" in flat(replies[0])
    store.close()


def test_tokens_are_unguessable_and_bound_to_a_player(players):
    mail = players
    new = mail.send(A, "trax challenge alice bob apple")
    store = mail.pipeline.store
    ids = {to_of(m): str(m["Message-ID"])[3:].partition("@")[0] for m in new}
    assert ids[A] != ids[B]
    rows = {r["user_id"]: r for r in store.db.query("SELECT * FROM reply_tokens")}
    alice, bob = store.find_user("alice").id, store.find_user("bob").id
    ctx = mail.pipeline.context(mail.clock.now)
    assert lookup(ctx, ids[A]).user_id == alice and lookup(ctx, ids[B]).user_id == bob
    assert set(rows) == {alice, bob}
    # the secret is what counts: the right number with another secret is no token
    number, _, secret = ids[A].partition("-")
    assert lookup(ctx, f"{number}-{'a' * 32}") is None
    assert lookup(ctx, f"{int(number) + 100}-{secret}") is None


# ----------------------------------------------------------------------------
# the digest


def test_a_digest_day_with_several_boards(players):
    mail = players
    mail.send(C, "signup carol cherry")
    (done,) = mail.send(B, "set bob banana digest daily 18")
    assert "digest is now daily at 18:00 UTC" in flat(done)
    for opponent, password, address in (("alice", "apple", A), ("carol", "cherry", C)):
        new = mail.send(address, f"trax challenge {opponent} bob {password}")
        assert B in [to_of(m) for m in new]  # a new board is never held back
    played = mail.send(A, "trax move 101 alice apple @0/")
    assert [to_of(m) for m in played] == [A]  # bob's copy waits for the digest
    played = mail.send(C, "trax move 102 carol cherry @0+")
    assert [to_of(m) for m in played] == [C]
    mail.clock.now = mail.clock.now.replace(hour=17, minute=0)
    assert not [m for m in tick_mails(mail.pipeline, mail.clock.now) if "digest" in str(m["Subject"])]
    mail.clock.now += timedelta(hours=1)
    digest = [mail.received(m) for m in tick_mails(mail.pipeline, mail.clock.now) if "digest" in str(m["Subject"])]
    (msg,) = digest
    assert msg["Subject"] == "Trax PBM: your digest, 2 boards to move" and to_of(msg) == B
    text = text_of(msg)
    assert text.index("Board 101:") < text.index("Board 102:")  # 101 waited longer: more urgent
    assert re.fullmatch(r"<r-\d+-[a-z2-7]{32}@pbm\.test>", str(msg["Message-ID"]))
    assert not [m for m in tick_mails(mail.pipeline, mail.clock.now + timedelta(hours=1))
                if "digest" in str(m["Subject"])]  # one a day
    # a reply to the digest moves on both boards
    replies = mail.deliver(client_reply(msg, B, "101 B1+\n102 B1+\nThanks, both!", when=mail.clock.now))
    assert moves_of(mail, 101) == ["@0/", "B1+"] and moves_of(mail, 102) == ["@0+", "B1+"]
    assert "bob writes:" in text_of(mine([r for r in replies if "101" in str(r["Subject"])], A))
    # reminders are never held back for the digest
    mail.send(A, "trax move 101 alice apple A2\\#3")
    nags = tick_mails(mail.pipeline, mail.clock.now + timedelta(days=7, hours=1))
    assert any(str(m["Subject"]).startswith("Nag: Trax Board 101 bob") and to_of(m) == B for m in nags)


def test_games_next_lists_boards_by_urgency(players):
    mail = players
    mail.send(A, "trax challenge alice bob apple --nagtime=5 --forfeittime=10")
    mail.send(A, "trax challenge alice bob apple --nagtime=1 --forfeittime=2")
    (table,) = mail.send(C, "trax games alice next")
    text = text_of(table)
    assert text.index("102") < text.index("101")  # 102 forfeits sooner


@pytest.mark.parametrize("first", ["C3/", "resign"])
def test_a_reply_to_an_observers_copy_does_nothing(players, first):
    mail = players
    mail.send(C, "signup carol cherry")
    mail.send(A, "trax challenge alice bob apple")
    mail.send(C, "trax subscribe 101 carol cherry")
    played = mail.send(A, "trax move 101 alice apple @0/")
    (answer,) = reply(mail, mine(played, C), C, first)
    assert is_error(answer) and moves_of(mail) == ["@0/"]
    assert Board.replay(moves_of(mail)).ply == 1


# --- every mail that says "reply" can be answered by Reply (issue 30) -----------------------------

REPLY_SAYS = "reply to this mail with the move on the first line"
CANNOT = "A reply to this mail cannot play the move"


def carries_token(msg) -> bool:
    return str(msg["Message-ID"]).startswith("<r-")


def test_a_show_asked_by_the_player_to_move_can_be_answered_by_reply(players):
    mail = players
    mail.send(A, "trax challenge alice bob apple")
    (shown,) = mail.send(A, "trax show 101")
    assert carries_token(shown) and REPLY_SAYS in flat(shown)
    replies = reply(mail, shown, A, "@0/")
    assert not is_error(replies[0]) and moves_of(mail) == ["@0/"]
    # the same show asked by the other player, or from an address that is not alice's:
    # no token for alice there, and the mail does not tell her to reply
    for sender in (A, B, C):
        (shown,) = mail.send(sender, "trax show 101")
        if sender == B:  # bob is to move now: his own show carries his token
            assert carries_token(shown) and REPLY_SAYS in flat(shown)
            continue
        assert not carries_token(shown)
        assert REPLY_SAYS not in flat(shown) and CANNOT in flat(shown)
        assert "trax move 101 bob PASSWORD <move>#2" in text_of(shown)
    # a show of two boards carries no token: none of its boards says reply
    mail.send(A, "trax challenge alice bob apple")
    (both,) = mail.send(B, "trax show 101 102")
    assert not carries_token(both) and REPLY_SAYS not in flat(both)


def test_a_mail_whose_copy_to_the_mover_has_no_token_does_not_say_reply(players, tmp_path):
    mail = players
    # a challenge sent from an address that is not alice's: her copy there has no token
    new = mail.send("alice.at.work@example.net", "trax challenge alice bob apple")
    own, other = mine(new, A), mine(new, "alice.at.work@example.net")
    assert carries_token(own) and REPLY_SAYS in flat(own)
    assert not carries_token(other) and REPLY_SAYS not in flat(other) and CANNOT in flat(other)
    # on a server where replies do not move, no mail says reply
    path = tmp_path / "pbm.toml"
    path.write_text(path.read_text().replace('name = "Trax PBM"\n', 'name = "Trax PBM"\nreply_moves = false\n'))
    config = load_config(path)
    store = Store(tmp_path / "off.sqlite3")
    try:
        off = Mailbox(Pipeline(store, config), Clock())
        off.send(A, "signup alice apple")
        off.send(B, "signup bob banana")
        new = off.send(A, "trax challenge alice bob apple")
        assert sorted(to_of(m) for m in new) == [A, B]
        (shown,) = off.send(A, "trax show 101")
        for msg in (*new, shown):
            assert not carries_token(msg) and "reply to this mail" not in flat(msg)
            assert "Fill in the password and the move" in flat(msg)
    finally:
        store.close()


def test_an_error_reply_to_a_reply_shows_the_board_and_can_be_answered(players):
    mail = players
    new = mail.send(A, "trax challenge alice bob apple")
    (error,) = reply(mail, mine(new, A), A, "Nice")
    assert is_error(error) and "Nice is no move" in flat(error)
    assert "Trax board 101" in text_of(error) and carries_token(error)  # the board, and a token
    assert REPLY_SAYS in flat(error)
    # the words a reply takes instead of a move, as the mail's right form names them
    assert "instead of a move you may write resign, draw, accept, reject, undo, show" in flat(error)
    assert "propose" not in flat(error)
    # the error itself is answered by Reply; a move anywhere in the first line is read
    replies = reply(mail, error, A, "Nice one! I will play @0/ now.")
    assert not is_error(replies[0]) and moves_of(mail) == ["@0/"]
    assert "alice played @0/" in flat(mine(replies, B))
    assert "Nice one" not in flat(mine(replies, B))  # the first line is the move, not a comment


def test_a_first_line_naming_moves_plays_the_one_legal_or_says_why_not(players):
    mail = players
    new = mail.send(A, "trax challenge alice bob apple")
    replies = reply(mail, mine(new, A), A, "@0+")
    # two moves named, one legal (A1 holds a tile): that one is played
    replies = reply(mail, mine(replies, B), B, "Hmm, A1+ or rather B1+?")
    assert not is_error(replies[0]) and moves_of(mail) == ["@0+", "B1+"]
    # two legal moves: refused, with the board and a token, nothing played
    (error,) = reply(mail, mine(replies, A), A, "Either C1+ or A2+, you choose")
    assert is_error(error) and "names more than one move that is legal here" in flat(error)
    assert carries_token(error) and "Trax board 101" in text_of(error)
    # none legal: refused too
    (error,) = reply(mail, error, A, "then A1/ or B1/")
    assert "none of the moves your first line names is legal here" in flat(error)
    # a line with no move at all stays "no move"
    (error,) = reply(mail, error, A, "Thinking...")
    assert "Thinking... is no move" in flat(error)
    assert moves_of(mail) == ["@0+", "B1+"]
    replies = reply(mail, error, A, "C1+")
    assert moves_of(mail) == ["@0+", "B1+", "C1+"]


def test_a_reply_to_an_old_board_explains_the_guard_it_carries(players):
    mail = players
    new = mail.send(A, "trax challenge alice bob apple")
    first = mine(new, A)
    reply(mail, first, A, "@0/")
    (late,) = reply(mail, first, A, "@0+")  # no #N typed
    text = flat(late)
    assert "has moved on to move 1" in text
    assert "A reply to a board mail needs no #N: it carries one for you, #1 here" in text
    assert "The #N after a move guards" not in text  # the words for a #N typed are not these
    # a #N typed in a command keeps its own words
    (stale,) = mail.send(A, "trax move 101 alice apple B1+#1")
    assert "The #N after a move guards against old or crossed mails" in flat(stale)
    assert "needs no #N" not in flat(stale)
