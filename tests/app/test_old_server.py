"""The conversation as players of the old server and tournament directors
expect it, through the real pipeline: the old server's forms and subjects,
observers who chat, directors who are told."""

from __future__ import annotations

import pytest

from .conftest import flat, is_error, text_of, to_of
from .test_tournaments import boards, create, finish_board, pw, send, start

A, B, C = "alice@example.org", "bob@example.org", "carol@example.org"


@pytest.fixture
def three(players):
    players.send(C, "signup carol cherry")
    return players


def subjects(replies) -> list[str]:
    return [str(m["Subject"]) for m in replies]


def test_a_game_written_only_in_the_old_servers_forms(three):
    mail = three
    new = mail.send(A, "trax chall alice bob apple", "Good luck!")
    assert subjects(new) == ["New Trax Board 101 alice"] * 2
    assert "alice writes:" in text_of(new[0]) and "Good luck!" in text_of(new[0])
    # the old order of subscribe, and its abbreviation
    (sub,) = mail.send(C, "trax sub carol cherry 101")
    assert not is_error(sub) and "you now get the mail of board 101" in flat(sub)
    # moves with the ** flag, under the old aliases
    played = mail.send(A, "trax board 101 alice apple @0/ **", "Here goes")
    assert subjects(played) == ["Trax Board 101 bob **"] * 3
    assert sorted(to_of(m) for m in played) == [A, B, C]
    assert "alice writes:" in text_of(played[0])
    played = mail.send(B, "trax mvoe 101 bob banana B1+**#2")
    assert subjects(played) == ["Trax Board 101 alice"] * 3
    played = mail.send(A, "trax qmove 101 alice apple A2\\")
    assert subjects(played) == ["Trax Board 101 bob"] * 3
    (queued,) = mail.send(A, "trax boardq 101 alice apple C1+")
    assert queued["Subject"] == "Trax Board 101 queued"
    (preview,) = mail.send(C, "trax prev new @0/ B1+")
    assert preview["Subject"] == "Trax preview new"
    (shown,) = mail.send(C, "trax show 101")
    assert shown["Subject"] == "Summary of Trax Board 101"
    assert "Observers: carol" in text_of(shown)
    (table,) = mail.send(C, "trax ratings")
    assert table["Subject"] == "Trax Standings"
    resigned = mail.send(B, "trax resign 101 bob banana **")
    assert subjects(resigned) == ["Trax Board 101"] * 3
    assert "Game won by alice (bob resigned)." in text_of(resigned[0])
    (gone,) = mail.send(C, "trax unsub carol cherry 101")
    assert "you no longer get the mail of board 101" in flat(gone)


def test_subjects_of_chat_broadcast_and_errors(three):
    mail = three
    mail.send(A, "trax challenge alice bob apple")
    chat = mail.send(B, "trax chat 101 bob banana", "Nice weather for Trax.")
    assert subjects(chat) == ["Trax chat 101 bob"] * 2
    assert "bob writes, to the players and observers of Trax board 101:" in flat(chat[0])
    sent = mail.send(A, "broadcast alice apple", "Club night on Friday.")
    assert "Broadcast from alice via PBM Server" in subjects(sent)
    (board_error,) = mail.send(B, "trax move 101 bob banana @0+")
    assert board_error["Subject"] == "Trax Board 101 Error"
    assert "Your command:  trax move 101 bob ******** @0+" in text_of(board_error)
    assert "Trax board 101" in text_of(board_error)  # the board re-printed
    (plain_error,) = mail.send(B, "trax challenge bob nobody_here banana")
    assert plain_error["Subject"] == "Trax error"
    assert "Your command:  trax challenge bob nobody_here ********" in text_of(plain_error)


def test_an_observer_may_chat_and_a_stranger_is_told_why_not(three):
    mail = three
    mail.send(A, "trax challenge alice bob apple")
    mail.send("dave@example.org", "signup dave damson")
    (refused,) = mail.send(C, "trax chat 101 carol cherry", "Hello?")
    assert is_error(refused)
    assert "carol is neither a player nor an observer of board 101" in flat(refused)
    assert "wrong userid or password" not in flat(refused)
    mail.send(C, "trax subscribe 101 carol cherry")
    chat = mail.send(C, "trax chat 101 carol cherry", "Go alice!")
    assert subjects(chat) == ["Trax chat 101 carol"] * 3
    assert sorted(to_of(m) for m in chat) == [A, B, C]
    assert "carol writes" in flat(chat[0]) and "Go alice!" in text_of(chat[0])
    # someone who only follows results may not chat
    mail.send("dave@example.org", "trax notify dave damson 101")
    (notified,) = mail.send("dave@example.org", "trax chat 101 dave damson", "Hi")
    assert "dave is neither a player nor an observer of board 101" in flat(notified)
    # a wrong password is still just that
    (wrong,) = mail.send(C, "trax chat 101 carol plum", "Hi")
    assert "wrong userid or password" in flat(wrong)


def test_games_for_a_name_with_no_games_is_no_error(three):
    (none,) = three.send(C, "trax games zed")
    assert not is_error(none)
    assert "No Trax games for zed." in flat(none)
    three.send(A, "trax challenge alice bob apple")
    (some,) = three.send(C, "trax games alice zed")
    assert "101" in text_of(some) and "No Trax games for zed." in flat(some)
    (carols,) = three.send(C, "trax games carol")
    assert "No Trax games for carol." in flat(carols)


# ----------------------------------------------------------------------------
# tournament directors


@pytest.fixture
def club(mail):
    for name in ["ann", "ben", "cat", "dan", "eve", "dir"]:
        send(mail, name, f"signup {name} {pw(name)}")
    return mail


def test_the_director_hears_of_every_entry_and_leaving(club):
    send(club, "dir", f"trax tournament create CUP dir {pw('dir')}")
    joined = send(club, "ann", f"trax tournament join CUP ann {pw('ann')}")
    assert sorted(to_of(m) for m in joined) == ["ann@example.org", "dir@example.org"]
    to_director = next(m for m in joined if to_of(m) == "dir@example.org")
    assert "ann has entered CUP, the tournament you direct; it has 1 player now." in flat(to_director)
    left = send(club, "ann", f"trax tournament leave CUP ann {pw('ann')}")
    to_director = next(m for m in left if to_of(m) == "dir@example.org")
    assert "ann has left CUP, the tournament you direct; it has 0 players now." in flat(to_director)
    # the director entering their own event hears it once
    own = send(club, "dir", f"trax tournament join CUP dir {pw('dir')}")
    assert [to_of(m) for m in own] == ["dir@example.org"]


def test_a_round_mail_lists_every_pairing_and_the_bye(club):
    create(club, "ODD", "-format=swiss", "-rounds=2", players=["ann", "ben", "cat", "dan", "eve"])
    started = start(club, "ODD")
    mail = next(m for m in started if "ODD: started" in str(m["Subject"]) and to_of(m) == "dir@example.org")
    text = text_of(mail)
    listing = text[text.index("The games now paired"):text.index("ODD (trax")]
    games = boards(club, "ODD")
    assert len(games) == 2
    rows = [line.split() for line in listing.splitlines()[2:] if line.strip()]
    assert sorted(rows[:2]) == sorted([[g["label"], str(g["number"]), g["white"], g["black"]] for g in games])
    (bye,) = rows[2:]
    paired = {p for g in games for p in (g["white"], g["black"])}
    assert bye[0] == "bye" and bye[1] not in paired and bye[2:] == ["(1", "point)"]


def test_a_knockout_names_its_winner_and_tie_breaks_only_when_they_decide(club):
    create(club, "KO", "-format=knockout", players=["ann", "ben", "cat", "dan"])
    start(club, "KO")
    for g in boards(club, "KO"):
        finish_board(club, g, "white")
    (final,) = boards(club, "KO")
    replies = finish_board(club, final, "black")
    last = next(m for m in replies if "KO: final table" in str(m["Subject"]))
    assert f"KO is over. {final['black']} won it." in flat(last)
    # a round robin where nobody ties: no tie-break line
    create(club, "RR", "-format=roundrobin", players=["ann", "ben", "cat"])
    start(club, "RR")
    for g in boards(club, "RR"):
        replies = finish_board(club, g, "white" if g["white"] < g["black"] else "black")
    final_table = next(m for m in replies if "RR: final table" in str(m["Subject"]))
    assert "tie-breaks" not in flat(final_table)
    assert "won it" not in flat(final_table)


def test_a_tie_no_tie_break_parts_is_not_said_to_be_broken_and_counts_agree_in_number(club):
    """(A tie a tie-break parts, ben and dan in test_tournaments' round robin,
    keeps the line: its golden file shows it.)"""
    create(club, "TIE", "-format=roundrobin", players=["ann", "ben", "cat"])
    start(club, "TIE")
    shown = text_of(club.send("x@example.org", "trax tournament show TIE")[0])
    assert "0 of 3 games finished" in shown
    results = {frozenset(("ann", "ben")): "ann", frozenset(("ben", "cat")): "ben", frozenset(("cat", "ann")): "cat"}
    for g in boards(club, "TIE"):
        winner = results[frozenset((g["white"], g["black"]))]
        replies = finish_board(club, g, "white" if winner == g["white"] else "black")
    final_table = next(m for m in replies if "TIE: final table" in str(m["Subject"]))
    # all three on one point: the tie-breaks could not part them, so no line says they did
    assert "Place" in text_of(final_table) and "1-3" in text_of(final_table)
    assert "tie-breaks" not in flat(final_table)
