"""A whole mail: the subject's command and its comment, multiple bodies,
commands in the body, the cap, and comment trimming."""

import pytest

from pbm.app.compose import Renderer
from pbm.grammar import (
    MAX_COMMANDS,
    Command,
    CommandError,
    MailCommands,
    comment_text,
    is_board_mail_subject,
    parse_mail_commands,
)

WORDS = Renderer()  # the words of a refusal, as a reply shows them


def names(parsed: MailCommands) -> list[str]:
    return [item.name if isinstance(item, Command) else f"error: {WORDS.words(item)}" for item in parsed]


# --- the subject ---------------------------------------------------------------------------


def test_a_subject_command_is_the_only_command_and_the_body_its_comment():
    parsed = parse_mail_commands(
        "Re: trax move 101 alice pw B2/#5",
        "Your move, Bob!\ntrax show 102\n\n-- \nAlice\n",
    )
    assert parsed.source == "subject"
    assert names(parsed) == ["move"]
    assert parsed.comment == "Your move, Bob!\ntrax show 102"


def test_a_wrong_subject_command_gives_its_error_and_relays_nothing():
    parsed = parse_mail_commands("trax move 101 alice pw B2/ C3+", "gg\n")
    assert parsed.source == "subject"
    (error,) = parsed
    assert isinstance(error, CommandError)
    assert "trax move takes 4 words after it, but 5 were given" in WORDS.words(error)
    assert parsed.comment == ""


def test_a_subject_command_whose_move_is_no_move_is_a_command_for_the_handler_to_refuse():
    """(Its sender logs in first: see tests/app/test_echoes.py; a refused
    command relays no comment.)"""
    parsed = parse_mail_commands("trax move 101 alice pw B2x", "gg\n")
    (command,) = parsed
    assert isinstance(command, Command) and command.text == "trax move 101 alice ******** ********"
    assert command.unread_refusal() is not None


def test_a_password_in_a_command_pasted_into_the_body_is_masked_in_the_comment():
    parsed = parse_mail_commands(
        "trax move 101 alice hunter2 B2/",
        "Here:\nTRAX move 101 alice hunter2 B2/\nhunter2 is what I call my cat\n",
    )
    # In prose the word stays: masking it would tell the opponent which word the password is.
    assert parsed.comment == "Here:\nTRAX move 101 alice ******** B2/\nhunter2 is what I call my cat"


def test_a_mail_with_no_command_anywhere_gives_nothing():
    parsed = parse_mail_commands("Hello", "How do I play?\n")
    assert parsed == MailCommands()
    assert parsed.source == "none" and len(parsed) == 0 and list(parsed) == [] and parsed.comment == ""


def test_an_empty_mail_gives_nothing():
    assert parse_mail_commands("", "").source == "none"


def test_a_reply_to_a_board_mail_without_a_command_gives_nothing():
    parsed = parse_mail_commands("Re: Trax Board 123 bob **", "Nice move.\n")
    assert parsed.source == "none"


@pytest.mark.parametrize(
    "subject",
    [
        "Trax Board 123 bob",
        "New LoopTrax Board 123 alice",
        "Nag: 8x8Trax Board 7 bob",
        "Trax Board 123",
        "Trax Board 123 Error",
        "Trax error",
        "Trax Board 123 bob **",
    ],
)
def test_our_own_board_mail_subjects_are_recognised(subject):
    assert is_board_mail_subject(subject)
    assert not is_board_mail_subject("trax show 123")


def test_a_subject_meant_as_a_command_with_nothing_in_the_body_is_an_error():
    parsed = parse_mail_commands("Delete my account please", "Thanks\n")
    assert parsed.source == "subject"
    assert WORDS.words(parsed[0]) == "delete takes 2 words after it, but 3 were given"
    # a command that carries a password, unread: only its name is quoted back
    assert parsed[0].text == "Delete ******** ******** ********"


# --- multiple ------------------------------------------------------------------------------


def test_multiple_reads_every_body_line_as_a_command():
    body = (
        "trax show 101\n"
        "\n"
        "   TRAX   move 101 alice pw B2/#7  \r\n"
        "> trax resign 101 alice pw\n"
        "castle\n"
        "help\n"
        "-- \n"
        "trax resign 101 alice pw\n"
    )
    parsed = parse_mail_commands("Multiple", body)
    assert parsed.source == "multiple"
    assert names(parsed)[:2] == ["show", "move"]
    assert isinstance(parsed[2], CommandError) and "castle is not a command" in WORDS.words(parsed[2])
    assert names(parsed)[3] == "help"
    assert len(parsed) == 4
    assert parsed.comment == ""
    assert [c.name for c in parsed.commands] == ["show", "move", "help"]
    assert len(parsed.errors) == 1


def test_multiple_skips_a_quoted_reply_and_the_line_introducing_it():
    body = "trax show 101\n\nOn Mon, 5 Jan 2026 at 10:00, Bob <bob@example.org> wrote:\n> trax show 102\n"
    assert names(parse_mail_commands("Re: multiple", body)) == ["show"]


def test_multiple_stops_at_an_outlook_original_message():
    body = "trax show 101\n-----Original Message-----\nFrom: bob\ntrax show 102\n"
    assert names(parse_mail_commands("multiple", body)) == ["show"]


def test_multiple_with_an_empty_body_says_so():
    (error,) = parse_mail_commands("multiple", "\n\n-- \nAlice\n")
    assert "the subject is multiple, but the body has no command lines" in WORDS.words(error)


def test_the_number_of_command_lines_is_capped_and_the_excess_reported():
    parsed = parse_mail_commands("multiple", "trax show 101\n" * 7, max_commands=5)
    assert names(parsed)[:5] == ["show"] * 5
    assert len(parsed) == 6
    assert WORDS.words(parsed[5]) == (
        "this mail has 7 command lines, more than the 5 one mail may carry: the first 5 were read, "
        "the last 2 ignored; send the rest in another mail"
    )


def test_the_default_cap_is_one_hundred():
    assert MAX_COMMANDS == 100
    parsed = parse_mail_commands("multiple", "trax history\n" * 101)
    assert len(parsed.commands) == 100 and len(parsed.errors) == 1


# --- commands in the body ------------------------------------------------------------------


def test_a_phone_mail_with_the_command_in_the_body_works_like_multiple():
    parsed = parse_mail_commands("", "trax move 101 alice pw B2/\n")
    assert parsed.source == "body"
    assert names(parsed) == ["move"]


def test_a_reply_to_a_board_mail_with_commands_in_the_body():
    body = (
        "\n"
        "trax move 101 alice pw B2/#7\n"
        "trax show 102\n"
        "Good game so far!\n"
        "trax show 103\n"
        "\n"
        "On Tue, Bob wrote:\n"
        "> Trax Board 101 alice\n"
    )
    parsed = parse_mail_commands("Re: Trax Board 101 alice", body)
    assert parsed.source == "body"
    assert names(parsed) == ["move", "show"]
    assert parsed.comment == "Good game so far!\ntrax show 103"


def test_a_wrong_command_in_the_body_is_reported_when_it_names_a_game():
    parsed = parse_mail_commands("Hi", "trax move 101 alice pw B2/\ntrax moev 101 alice pw C3+\nthanks\n")
    assert names(parsed)[0] == "move"
    assert "moev is not a trax command" in WORDS.words(parsed[1])
    assert parsed.comment == "thanks"


def test_a_first_body_line_meant_as_a_command_gives_its_error():
    parsed = parse_mail_commands("Hello", "signup alice\n")
    assert parsed.source == "body"
    assert "signup needs at least 2 words" in WORDS.words(parsed[0])


def test_a_first_body_line_multiple_is_skipped():
    parsed = parse_mail_commands("", "multiple\ntrax show 101\ntrax show 102\n")
    assert names(parsed) == ["show", "show"]


def test_the_body_beats_a_wrong_subject():
    parsed = parse_mail_commands("Re: Trax Board 101 alice", "trax resign 101 alice pw\n")
    assert names(parsed) == ["resign"]


def test_the_body_commands_are_capped_too():
    parsed = parse_mail_commands("", "trax show 101\n" * 4, max_commands=3)
    assert len(parsed.commands) == 3
    assert "this mail has 4 command lines" in WORDS.words(parsed.errors[0])


def test_a_comment_after_body_commands_has_pasted_passwords_masked():
    parsed = parse_mail_commands("", "trax resign 101 alice hunter2\nSorry.\n\nresign hunter2 B2x\n")
    assert parsed.comment == "Sorry.\n\nresign ******** B2x"


# --- comments ------------------------------------------------------------------------------


def test_a_comment_stops_at_the_signature():
    assert comment_text("Good game!\n-- \nAlice\nhttp://example.org\n") == "Good game!"


def test_a_signature_line_without_its_trailing_blank_counts_too():
    assert comment_text("Good game!\n--\nAlice\n") == "Good game!"


def test_a_comment_stops_at_the_first_quoted_block_with_its_attribution():
    body = (
        "Nice.\n\nThanks!\n\nOn Mon, 5 Jan 2026, Bob <bob@example.org> wrote:\n\n> old text\n> more\n\nafter"
    )
    assert comment_text(body) == "Nice.\n\nThanks!"


def test_an_attribution_wrapped_over_two_lines_is_dropped_whole():
    body = "Nice.\nOn Mon, 5 Jan 2026 at 10:00, Bob Smith\n<bob@example.org> wrote:\n> old\n"
    assert comment_text(body) == "Nice."


@pytest.mark.parametrize(
    "line",
    [
        "Am 05.01.2026 um 10:00 schrieb Bob:",
        "Le 5 janv. 2026, Bob a écrit :",
        "El lun, Bob escribió:",
        "Bob wrote:",
    ],
)
def test_attributions_in_several_languages_are_dropped(line):
    assert comment_text(f"Danke.\n{line}\n> alt\n") == "Danke."


def test_a_line_ending_in_a_colon_that_introduces_no_quote_is_kept():
    assert comment_text("My plan:\nplay B2/\n") == "My plan:\nplay B2/"


def test_a_top_posted_comment_before_an_outlook_original_is_kept():
    body = "See you.\n\n-----Original Message-----\nFrom: Bob\n> x\n"
    assert comment_text(body) == "See you."


def test_a_comment_loses_trailing_blanks_and_blank_lines_at_both_ends():
    assert comment_text("\n\n  Hello   \r\n\r\n  world\t \n\n\n") == "  Hello\n\n  world"


def test_a_comment_loses_control_characters_but_keeps_tabs():
    assert comment_text("a\x07b\tc\x1b[0m") == "ab\tc[0m"


def test_a_long_comment_is_shortened_to_the_limit():
    text = comment_text("word " * 1000, max_length=50)
    assert len(text) <= 50
    assert text.endswith(" [...]")
    assert comment_text("short", max_length=50) == "short"
    assert comment_text("abcdefgh", max_length=3) == "abc"


def test_an_empty_body_is_an_empty_comment():
    assert comment_text("") == ""
    assert comment_text("> only a quote\n") == ""
