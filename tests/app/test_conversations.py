"""Whole games played by mail through the real pipeline and a real SQLite file."""

from __future__ import annotations

import pytest

from .conftest import flat, is_error, text_of, to_of

LOOP_GAME = ["@0+", "B1\\", "B2/", "A2+", "A3/", "A0\\", "@3+", "@3\\", "B2+"]
LINE_GAME = ["@0+", "B1+", "C1+", "D1+", "E1+", "F1+", "G1+", "H1+"]


def play_moves(mail, board: int, moves: list[str], *, numbered: bool = True):
    """Alternate alice (white) and bob (black); return the replies of the last move."""
    replies = []
    for i, move in enumerate(moves):
        who, password = ("alice", "apple") if i % 2 == 0 else ("bob", "banana")
        guard = f"#{i + 1}" if numbered else ""
        replies = mail.send(f"{who}@example.org", f"trax move {board} {who} {password} {move}{guard}")
        assert replies, move
        assert not is_error(replies[0]), text_of(replies[0])
    return replies


def test_signup_welcomes_the_player_without_echoing_the_password(mail):
    replies = mail.send("alice@example.org", "signup alice apple")
    assert len(replies) == 1
    assert replies[0]["Subject"] == "Welcome to Trax PBM, alice"
    assert to_of(replies[0]) == "alice@example.org"
    assert "apple" not in replies[0].as_string()
    assert replies[0]["Auto-Submitted"] == "auto-replied"
    assert replies[0]["In-Reply-To"]


def test_a_taken_userid_is_refused(players):
    replies = players.send("mallory@example.org", "signup ALICE pear")
    assert "Error" in replies[0]["Subject"] or "error" in replies[0]["Subject"]
    assert "taken" in text_of(replies[0])
    assert "pear" not in replies[0].as_string()


def test_challenge_opens_board_101_and_tells_both_players(players):
    replies = players.send("carol@example.org", "trax challenge alice bob apple")
    assert sorted(to_of(r) for r in replies) == ["alice@example.org", "bob@example.org", "carol@example.org"]
    assert replies[0]["Subject"] == "New Trax Board 101 alice"
    body = text_of(replies[0])
    assert "White (o): alice" in body and "Black (#): bob" in body
    assert "It is alice's turn (white)." in body


def test_a_game_played_to_a_white_loop(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    replies = play_moves(players, 101, LOOP_GAME)
    assert {to_of(r) for r in replies} == {"alice@example.org", "bob@example.org"}
    final = replies[0]
    assert final["Subject"] == "Trax Board 101"
    body = text_of(final)
    assert "Game won by alice (white loop)." in body
    assert "B2+" in body
    # the board is finished: no more moves
    late = players.send("bob@example.org", "trax move 101 bob banana @1+")
    assert late[0]["Subject"] == "Trax Board 101 Error"
    assert "finished" in text_of(late[0])


def test_a_game_played_to_a_black_line(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    replies = play_moves(players, 101, LINE_GAME)
    assert "Game won by bob (black line)." in text_of(replies[0])


def test_subjects_name_the_player_to_move_and_mark_comments(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    replies = players.send("alice@example.org", "trax move 101 alice apple @0/", "Good luck!\n-- \nAlice")
    assert replies[0]["Subject"] == "Trax Board 101 bob **"
    body = text_of(replies[0])
    assert "Good luck!" in body and "Alice" not in body.split("Good luck!")[1].split("Started")[0]
    replies = players.send("bob@example.org", "trax move 101 bob banana A0+")
    assert replies[0]["Subject"] == "Trax Board 101 alice"


def test_resignation_ends_the_game(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    play_moves(players, 101, ["@0/", "B1+", "C1/"])
    replies = players.send("bob@example.org", "trax resign 101 bob banana")
    assert "Game won by alice (bob resigned)." in text_of(replies[0])


def test_resigning_before_both_have_moved_cancels_the_game(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    play_moves(players, 101, ["@0/"])
    replies = players.send("bob@example.org", "trax move 101 bob banana resign")
    assert "cancelled" in text_of(replies[0])


def test_a_draw_by_agreement_in_8x8trax(players):
    players.send("alice@example.org", "8x8trax challenge alice bob apple")
    replies = players.send("alice@example.org", "8x8trax move 101 alice apple @0/")
    assert replies[0]["Subject"] == "8x8Trax Board 101 bob"
    replies = players.send("bob@example.org", "8x8trax move 101 bob banana propose")
    assert "bob offers a draw" in text_of(replies[0])
    replies = players.send("alice@example.org", "8x8trax move 101 alice apple accept")
    assert "Game drawn by agreement." in text_of(replies[0])
    assert replies[0]["Subject"] == "8x8Trax Board 101"


def test_an_undo_by_consent_takes_back_the_last_move(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    play_moves(players, 101, ["@0/", "B1+", "C1/"])
    replies = players.send("alice@example.org", "trax move 101 alice apple undo")
    assert "alice asks to take back the last move" in text_of(replies[0])
    replies = players.send("bob@example.org", "trax move 101 bob banana accept")
    body = text_of(replies[0])
    assert "bob agreed to take back C1/." in body
    assert "It is alice's turn (white)." in body
    # move 3 again, with its number
    replies = players.send("alice@example.org", "trax move 101 alice apple A2+#3")
    assert replies[0]["Subject"] == "Trax Board 101 bob"


def test_a_rejected_draw_offer_changes_nothing(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    play_moves(players, 101, ["@0/", "B1+"])
    players.send("alice@example.org", "trax move 101 alice apple propose")
    replies = players.send("bob@example.org", "trax move 101 bob banana reject")
    assert "bob declined the draw offer" in text_of(replies[0])
    assert "It is alice's turn" in text_of(replies[0])


def test_a_stale_move_number_is_rejected(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    play_moves(players, 101, ["@0/", "B1+"])
    replies = players.send("alice@example.org", "trax move 101 alice apple C1/#2")
    assert replies[0]["Subject"] == "Trax Board 101 Error"
    body = flat(replies[0])
    assert "#2 does not match: the next move of board 101 is number 3" in body
    assert "@" in body  # the board is shown
    assert len(replies) == 1 and to_of(replies[0]) == "alice@example.org"


def test_a_move_out_of_turn_is_rejected_with_the_board(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    replies = players.send("bob@example.org", "trax move 101 bob banana @0/")
    body = flat(replies[0])
    assert "it is not your turn on board 101: alice is to move" in body
    assert "White (o): alice" in body
    assert "banana" not in replies[0].as_string()


def test_an_illegal_move_is_rejected_with_the_reason_and_the_board(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    play_moves(players, 101, ["@0/", "B1+", "C1/", "C2\\", "@1+", "A2/", "A3/", "D3\\"])
    replies = players.send("alice@example.org", "trax move 101 alice apple B3\\")
    body = flat(replies[0])
    assert "illegal turn" in body and "three track ends" in body
    assert "Black (#): bob" in body and "It is alice's turn" in body
    assert "Nothing was changed." in body


def test_a_wrong_password_gets_the_same_answer_as_an_unknown_user(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    wrong = players.send("alice@example.org", "trax move 101 alice pear @0/")
    nobody = players.send("alice@example.org", "trax move 101 zoe pear @0/")
    assert "wrong userid or password" in text_of(wrong[0])
    assert text_of(wrong[0]).replace("alice", "X") == text_of(nobody[0]).replace("zoe", "X")
    assert "pear" not in wrong[0].as_string()


def test_a_queued_move_is_played_when_the_turn_comes(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    play_moves(players, 101, ["@0/"])
    # alice queues while bob is to move
    replies = players.send("alice@example.org", "trax queue 101 alice apple C1/")
    assert replies[0]["Subject"] == "Trax Board 101 queued"
    replies = players.send("bob@example.org", "trax move 101 bob banana B1+")
    body = text_of(replies[0])
    assert "alice played C1/ (move 3), a queued move." in body
    assert "C1/    alice (Auto)" in body
    assert "It is bob's turn (black)." in body


def test_a_conditional_queue_follows_the_expected_reply_and_stops_otherwise(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    play_moves(players, 101, ["@0/"])
    players.send("alice@example.org", "trax queue 101 alice apple C1/ A2+ A0+")
    replies = players.send("bob@example.org", "trax move 101 bob banana B1+")
    assert "alice played C1/" in text_of(replies[0])
    # bob answers differently: the rest is cancelled, alice is told privately
    replies = players.send("bob@example.org", "trax move 101 bob banana A2/")
    subjects = {str(r["Subject"]) for r in replies}
    assert "Trax Board 101 queue cancelled" in subjects
    cancelled = next(r for r in replies if "cancelled" in str(r["Subject"]))
    assert to_of(cancelled) == "alice@example.org"
    assert "It is alice's turn" in text_of(replies[0])


def test_submit_shows_the_move_and_confirm_plays_it(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    replies = players.send("alice@example.org", "trax submit 101 alice apple @0/")
    assert len(replies) == 1 and "NOT been played" in text_of(replies[0])
    shown = players.send("carol@example.org", "trax show 101")
    assert "No moves yet." in text_of(shown[0])
    replies = players.send("alice@example.org", "trax confirm 101 alice apple")
    assert replies[0]["Subject"] == "Trax Board 101 bob"


def test_show_board_at_move_n_and_record(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    play_moves(players, 101, ["@0/", "B1+", "C1/"])
    replies = players.send("carol@example.org", "trax show 101#2")
    body = text_of(replies[0])
    assert "Board 101 as it stood after move 2, B1+ by bob; the game now has 3 moves." in body
    assert "C1/" not in body
    record = text_of(players.send("carol@example.org", "trax record 101")[0])
    assert "1. @0/\n2. B1+\n3. C1/" in record
    assert '[White "alice"]' in record


def test_games_table_and_list(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    players.send("alice@example.org", "looptrax challenge bob alice banana")
    table = text_of(players.send("carol@example.org", "trax games")[0])
    assert "101" in table and "alice to move" in table and "102" not in table
    listing = text_of(players.send("carol@example.org", "list")[0])
    assert "trax        1" in listing and "looptrax    1" in listing


def test_observers_get_board_mail_and_notify_gets_only_results(players):
    players.send("carol@example.org", "signup carol cherry")
    players.send("dave@example.org", "signup dave date")
    players.send("alice@example.org", "trax challenge alice bob apple")
    players.send("carol@example.org", "trax subscribe 101 carol cherry")
    players.send("dave@example.org", "trax notify dave date 101")
    replies = play_moves(players, 101, ["@0/"])
    assert {to_of(r) for r in replies} == {"alice@example.org", "bob@example.org", "carol@example.org"}
    replies = players.send("bob@example.org", "trax resign 101 bob banana")
    # before both moved: cancelled, a result, so dave hears of it too
    assert "dave@example.org" in {to_of(r) for r in replies}


def test_a_player_who_rejects_challenges_cannot_be_challenged(players):
    players.send("bob@example.org", "trax reject bob banana")
    replies = players.send("alice@example.org", "trax challenge alice bob apple")
    assert "bob does not accept trax challenges" in text_of(replies[0])
    players.send("bob@example.org", "trax accept bob banana")
    replies = players.send("alice@example.org", "trax challenge alice bob apple")
    assert replies[0]["Subject"] == "New Trax Board 101 alice"


def test_the_limit_of_active_games_is_enforced(players):
    players.send("bob@example.org", "trax limit bob banana 1")
    players.send("alice@example.org", "trax challenge alice bob apple")
    replies = players.send("alice@example.org", "trax challenge alice bob apple")
    assert "bob already plays 1 active trax games, their limit" in text_of(replies[0])


def test_multiple_runs_every_line_and_answers_the_sender_once(players):
    body = "trax challenge alice bob apple\ntrax show 101\ntrax bogus\n"
    replies = players.send("alice@example.org", "multiple", body)
    mine = [r for r in replies if to_of(r) == "alice@example.org"]
    subjects = [str(r["Subject"]) for r in mine]
    assert "Trax PBM: replies to your commands" in subjects
    combined = next(r for r in mine if "replies to your commands" in str(r["Subject"]))
    assert "=== Summary of Trax Board 101 ===" in text_of(combined)
    assert "bogus" in text_of(combined)


def test_a_command_in_the_first_body_line_is_obeyed(players):
    replies = players.send("alice@example.org", "hello", "trax challenge alice bob apple\n")
    assert any(str(r["Subject"]) == "New Trax Board 101 alice" for r in replies)


def test_a_mail_with_no_command_gets_a_pointer_to_help(mail):
    replies = mail.send("someone@example.org", "hello there", "How do I play?")
    assert replies[0]["Subject"] == "Trax error"
    assert 'subject "help"' in text_of(replies[0])


def test_usage_errors_quote_the_command_and_the_right_form(players):
    replies = players.send("alice@example.org", "trax move 101 alice apple")
    body = text_of(replies[0])
    assert "The right form: trax move BOARD USERID PASSWORD MOVE[#N]" in body
    assert "apple" not in replies[0].as_string()


def test_the_same_mail_twice_is_handled_once(players, store):
    players.send("alice@example.org", "trax challenge alice bob apple")
    raw = players.sent  # noqa: F841
    from email.message import EmailMessage

    msg = EmailMessage()
    msg["From"] = "alice@example.org"
    msg["Subject"] = "trax move 101 alice apple @0/"
    msg["Message-ID"] = "<same@player.test>"
    msg.set_content("")
    first = players.deliver(bytes(msg))
    second = players.deliver(bytes(msg))
    assert first and second == []
    assert players.result.status == "duplicate"
    assert store.board(101).moves == "@0/"


@pytest.mark.parametrize(
    "headers",
    [
        {"Auto_Submitted": "auto-replied"},
        {"Precedence": "bulk"},
        {"List_Id": "<trax.lists.example.org>"},
    ],
)
def test_automatic_mail_gets_no_reply(players, headers):
    replies = players.send("alice@example.org", "help", **headers)
    assert replies == []
    assert players.result.status == "dropped"


def test_our_own_mail_looped_back_gets_no_reply(mail):
    assert mail.send("pbm@pbm.test", "help") == []


def test_delete_forfeits_active_games(players):
    players.send("alice@example.org", "trax challenge alice bob apple")
    play_moves(players, 101, ["@0/", "B1+"])
    replies = players.send("bob@example.org", "delete bob banana")
    bodies = [text_of(r) for r in replies]
    assert any("Game won by alice (by forfeit)." in b for b in bodies)
    again = players.send("bob@example.org", "trax show bob")
    assert "there is no user bob" in text_of(again[0])


def test_change_password_then_the_old_one_fails(players):
    players.send("alice@example.org", "change password alice apple pear")
    replies = players.send("alice@example.org", "signoff alice apple")
    assert "wrong userid or password" in text_of(replies[0])
    replies = players.send("alice@example.org", "signoff alice pear")
    assert "signed off" in text_of(replies[0])


def test_message_is_relayed_to_the_recipients(players):
    replies = players.send("alice@example.org", "message alice apple bob", "Fancy a game?")
    relayed = next(r for r in replies if to_of(r) == "bob@example.org")
    assert "Fancy a game?" in text_of(relayed)
    assert "apple" not in relayed.as_string()


def test_preview_shows_a_position_without_storing_it(players):
    replies = players.send("carol@example.org", "trax preview new @0/ B1+")
    body = text_of(replies[0])
    assert "An empty board, then @0/ B1+." in body
    assert "Nothing has been stored." in body


def test_an_encoded_subject_with_a_reply_prefix_and_an_old_notation_move(players, store):
    players.send("alice@example.org", "trax challenge alice bob apple")
    replies = players.send("alice@example.org", "=?utf-8?q?Re=3A_trax_move_101_alice_apple_A1C?=")
    assert replies[0]["Subject"] == "Trax Board 101 bob"
    assert store.board(101).moves == "@0/"


def test_an_html_only_mail_is_read_as_text(players):
    from email.message import EmailMessage

    msg = EmailMessage()
    msg["From"] = "alice@example.org"
    msg["Subject"] = "hello from my phone"
    msg["Message-ID"] = "<html-only@player.test>"
    msg.set_content("<html><body><p>trax challenge alice bob apple</p><p>cheers</p></body></html>", subtype="html")
    replies = players.deliver(bytes(msg))
    assert any(str(r["Subject"]) == "New Trax Board 101 alice" for r in replies)


def test_game_mail_goes_to_every_registered_address_once(players):
    replies = players.send("alice@example.org", "add alice apple alice@work.example.org ALICE@example.org")
    (ask,) = [r for r in replies if to_of(r) == "alice@work.example.org"]
    players.send("alice@work.example.org", "Re: " + str(ask["Subject"]))  # the new address confirms
    players.send("alice@example.org", "trax challenge alice bob apple")
    replies = players.send("alice@example.org", "trax move 101 alice apple @0+")
    assert sorted(to_of(r) for r in replies) == ["alice@example.org", "alice@work.example.org", "bob@example.org"]


def test_help_by_mail_sends_the_index_and_asked_topics(mail):
    replies = mail.send("newbie@example.org", "help")
    assert len(replies) == 1 and "help commands" in text_of(replies[0])
    replies = mail.send("newbie@example.org", "help move notation")
    assert len(replies) == 2
    assert "trax move BOARD USERID PASSWORD MOVE[#N]" in flat(replies[0])
    replies = mail.send("newbie@example.org", "looptrax help")
    assert "loop" in text_of(replies[0]).lower()
    replies = mail.send("newbie@example.org", "help notaton")
    assert "did you mean" in flat(replies[0])
