"""Passwords never show: not in str(), repr() or redacted() of a command,
not in its arguments' repr, not in any error about it."""

import dataclasses
import unicodedata

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from pbm.app.compose import Renderer
from pbm.grammar import (
    REGISTRY,
    Command,
    CommandError,
    LooseLine,
    Password,
    ReplyLine,
    parse_command,
    parse_mail_commands,
    parse_reply,
)
from pbm.grammar.parse import placed
from pbm.grammar.words import is_board_word, looks_like_address

from .test_commands import ACCOUNT_CASES, GAME_CASES, TOURNAMENT_CASES

MASK = "********"

# Everything a password may hold: printable, no blanks, quotes or colons; not "-" first.
PASSWORD_CHARS = st.characters(
    blacklist_categories=("Cc", "Cs", "Co", "Cn", "Cf", "Zs", "Zl", "Zp", "Pi", "Pf"),
    blacklist_characters="\"'`:\ufffd",  # U+FFFD stands for bytes that could not be read: never a password
)
passwords = st.text(PASSWORD_CHARS, min_size=1, max_size=64).filter(
    lambda p: not p.startswith("-") and p.isprintable() and p == " ".join(p.split()) and set(p) != {"*"}
    and not looks_like_address(p)  # a new password may not look like an address (the grammar refuses it)
)

WORDS = Renderer()  # the words of a refusal, as a reply shows them

WITH_PASSWORD = [
    (("" if REGISTRY[name].scope.value == "account" else "trax ") + line, name)
    for line, name, _ in ACCOUNT_CASES + GAME_CASES + TOURNAMENT_CASES
    # a code is letters and digits only; a challenge may come without a password
    if REGISTRY[name].takes_password and name != "confirm address" and "s3cret" in line
]


def test_a_confirmation_code_is_masked_like_a_password():
    command = parse_command("confirm address k7qmx-2d9pa")
    assert "K7QMX" not in everything_shown(command).upper()
    assert command.redacted() == "confirm address " + MASK

WRONG = [
    "trax move 1o1 alice {pw} B2/",
    "trax move 101 alice {pw}",
    "trax move 101 alice {pw} B2/ C3+",
    "trax resign 101 alice {pw} extra words",
    "trax move 101 al:ice {pw} B2/",
    "signup alice {pw} not-an-address",
    "signup alice {pw} a@example.org b@example.org c@example.org d@example.org e@example.org f@example.org",
    "trax tournament create ETC alice {pw} -bogus",
    "trax tournament create ETC alice {pw} swiss",
    "trax tournament create ETC alice {pw} -rounds=3",
    "trax tournament result ETC alice {pw} 101 won",
    "trax queue 101 alice {pw} B2/ C3+",
    "message alice {pw} bob ca:rol",
    "vacation alice {pw} soon",
    "change password alice {pw} bad:new",
    "change password alice bad:old {pw}",
    "trax moev 101 alice {pw} B2/",
    "move 101 alice {pw} B2/",
    "trax signup alice {pw}",
    "trax showas alice {pw} 101 next",
    "trax showas alice {pw} 99",
    "trax notify alice {pw} 101 x",
    "trax limit alice {pw} lots",
]


def everything_shown(command_or_error) -> str:
    """Every text a log line, a reply or a debugger could show of it."""
    if isinstance(command_or_error, CommandError):
        e = command_or_error
        return "\n".join(map(str, [e, repr(e), e.params, WORDS.words(e), e.usage, e.text, e.args]))
    c = command_or_error
    return "\n".join([str(c), repr(c), c.redacted(), repr(c.args), str(c.args), repr(dataclasses.asdict(c))])


@pytest.mark.parametrize("line, name", WITH_PASSWORD)
@settings(max_examples=25)
@given(password=passwords)
@example(password="s3cret")
@example(password="ALICE")
def test_a_parsed_command_never_shows_its_password(line, name, password):
    reference = parse_command(line.replace("s3cret", "Zq9Zq9Zq9"))
    assume(password not in everything_shown(reference) and password.lower() not in line.lower())
    command = parse_command(line.replace("s3cret", password))
    assert command.name == name
    assert password not in everything_shown(command)
    assert MASK in command.redacted()
    assert command.text == command.redacted()  # the only copy is the Password in args
    # Passwords are read NFC-normalised, as typed (the server compares them NFKC-normalised).
    assert [p.reveal() for p in passwords_in(command.args)][:1] == [unicodedata.normalize("NFC", password)]


@pytest.mark.parametrize("template", WRONG)
@settings(max_examples=25)
@given(password=passwords)
@example(password="s3cret")
@example(password="ALICE")
def test_an_error_never_shows_the_password(template, password):
    reference = parse_error(template.format(pw="Zq9Zq9Zq9"))
    assume(password not in everything_shown(reference) and password not in template)
    error = parse_error(template.format(pw=password))
    assert password not in everything_shown(error)


#: Commands whose move is no move: parsed, the word kept for the handler
#: (issue 30); the password in its place, twice, or in the move's place.
UNREAD = [
    "trax move 101 alice {pw} B2x",
    "trax move 101 alice {pw} B2/#0",
    "trax move 101 alice {pw} {pw}",
    "trax move 101 alice B2/ {pw}",
    "trax submit 101 alice {pw} XYZ",
    "luckytrax move 101 alice {pw} C3x",
    "trax queue 101 alice {pw} B2x C3+ {pw}",
    "trax queue 101 alice {pw} resign",
]


@pytest.mark.parametrize("template", UNREAD)
@settings(max_examples=25)
@given(password=passwords)
@example(password="s3cret")
@example(password="B2x")
@example(password="B2")
def test_a_word_that_is_no_move_never_shows_the_password(template, password):
    """Not in the command as the log has it; and where the password stands
    in its place (the only way its sender can log in, see
    tests/app/test_echoes.py), not in the quoted command nor the refusal
    he gets once logged in either (``naming_unread``, ``unread_refusal``)."""
    in_place = template.split()[4] == "{pw}"

    def shown(pw: str) -> str:
        command = parse_command(template.format(pw=pw))
        if not in_place:
            return everything_shown(command)
        refused = command.unread_refusal()
        return "\n".join([everything_shown(command), command.naming_unread(), str(refused), repr(refused),
                          WORDS.words(refused) if refused else ""])

    assume(password not in shown("Zq9Zq9Zq9") and password not in template)
    # a password that reads as a move (resign) is that move where a move stands, as before
    assume(not placed(password))
    try:
        text = shown(password)
    except CommandError:  # the password does not read as one here: refused as before
        return
    assert password not in text


def passwords_in(args) -> list[Password]:
    return [v for v in vars_of(args) if isinstance(v, Password)]


def vars_of(args) -> list:
    return [getattr(args, f.name) for f in dataclasses.fields(args)]


def parse_error(line: str) -> CommandError:
    with pytest.raises(CommandError) as caught:
        parse_command(line)
    return caught.value


@pytest.mark.parametrize(
    "line, secret",
    [
        ("signup alice se:cret", "se:cret"),
        ("signup alice -secret", "-secret"),
        ("signup alice " + "secret" * 20, "secret" * 20),
        ("signup alice secret@example.org", "secret@example.org"),
        ('trax move 101 alice se"cret B2/', 'se"cret'),
        ("change password alice se:cret other", "se:cret"),
        ("change password alice other se:cret", "se:cret"),
    ],
)
def test_an_invalid_password_is_not_quoted_back_either(line, secret):
    error = parse_error(line)
    assert secret not in everything_shown(error)
    assert "password is not valid" in WORDS.words(error)


@pytest.mark.parametrize(
    "line",
    [
        "signoff 1234 alice",  # userid and password swapped: the userid slot holds the password
        "trax move 101 12345 alice B2/",
        "trax tournament withdraw ETC alice pw 9999",
    ],
)
def test_userids_are_named_not_quoted_in_commands_with_a_password(line):
    error = parse_error(line)
    for word in line.split()[1:]:
        if word.isdigit() and word not in ("101",):
            assert word not in WORDS.words(error)


@given(password=passwords)
def test_a_password_never_shows_in_a_mail_parse(password):
    def shown(pw: str) -> str:
        subject = f"Re: trax move 101 alice {pw} B2/"
        parsed = parse_mail_commands(subject, f"trax move 101 alice {pw} B2x\n")
        multiple = parse_mail_commands("multiple", f"trax move 101 alice {pw} B2x\ntrax show 102\n")
        return (
            "\n".join(everything_shown(item) for item in (*parsed, *multiple)) + repr(parsed) + repr(multiple)
        )

    assume(password not in shown("Zq9Zq9Zq9"))
    assert password not in shown(password)


def test_the_password_object_hides_itself():
    password = Password("hunter2")
    assert str(password) == MASK and repr(password) == f"Password('{MASK}')"
    assert f"{password}" == MASK
    assert password.reveal() == "hunter2"
    assert password == Password("hunter2") and password != Password("hunter3")
    assert password != "hunter2"
    assert len({password, Password("hunter2")}) == 1


def test_redaction_masks_every_password_of_change_password():
    command = parse_command("change password alice oldpw newpw")
    assert command.redacted() == f"change password alice {MASK} {MASK}"
    assert repr(command) == f"Command('change password alice {MASK} {MASK}')"
    assert str(command) == command.redacted()


def test_redaction_masks_by_position_so_it_tells_nothing_about_other_words():
    command = parse_command("trax move 101 alice 101 B2/")
    assert command.redacted() == f"trax move 101 alice {MASK} B2/"


def test_a_command_made_by_hand_is_redacted_from_its_arguments():
    parsed = parse_command("trax resign 101 alice hunter2")
    by_hand = Command("resign", "trax", parsed.args, "trax   resign 101 alice hunter2")
    assert by_hand.redacted() == f"trax resign 101 alice {MASK}"
    unknown = Command("castle", None, parsed.args, "castle hunter2 now")
    assert unknown.redacted() == f"castle {MASK} now"


# --- issue 28: passwords typed where the grammar has no place for them ---------------------------

def shown_of(line: str) -> str:
    """Everything a reply, log or summary could show of a line that is no command."""
    try:
        command = parse_command(line)
    except CommandError as error:
        return everything_shown(error)
    return everything_shown(command)


@settings(max_examples=60)
@given(password=passwords)
@example(password="s3cret")
@example(password="PW")
def test_a_password_after_the_userid_of_password_reset_is_masked(password):
    assume(password not in shown_of("password reset alice Zq9Zq9Zq9") and password.lower() != "alice")
    assume(not placed(password))  # a password that is a board number cannot be told from one
    for line in (f"password reset alice {password}", f"password reset {password} alice"):
        error = parse_error(line)
        assert password not in everything_shown(error)
        assert error.text == f"password reset {MASK} {MASK}"
        assert "takes the userid alone, no password" in WORDS.words(error)
    # a new password after it as well
    error = parse_error(f"password reset alice {password} other")
    assert password not in everything_shown(error) and error.text == f"password reset {MASK} {MASK} {MASK}"
    # the userid alone is quoted as before
    assert parse_command("password reset alice").text == "password reset alice"


@pytest.mark.parametrize(
    "line, quoted",
    [
        ("list apple", f"list {MASK}"),
        ("trax standings alice apple", f"trax standings {MASK} {MASK}"),
        ("trax record 101 alice apple", f"trax record 101 {MASK} {MASK}"),
        ("trax record apple 101", f"trax record {MASK} {MASK}"),
        ("trax history apple", f"trax history {MASK}"),
        ("trax tournament list alice apple", f"trax tournament list {MASK} {MASK}"),
        ("trax tournament show ETC alice apple", f"trax tournament show {MASK} {MASK} {MASK}"),
        ("all show alice apple", f"all show {MASK} {MASK}"),
        ("password reset apple alice", f"password reset {MASK} {MASK}"),
    ],
)
def test_words_a_command_has_no_place_for_are_masked(line, quoted):
    """A command without a password that holds more words than it takes is
    quoted as one with a password: its userid and a password typed by habit
    may stand in any order, so only board numbers are shown."""
    error = parse_error(line)
    assert error.text == quoted
    assert "apple" not in everything_shown(error)


@settings(max_examples=60)
@given(password=passwords)
@example(password="apple")
@example(password="hunter2")
def test_a_password_in_the_command_words_place_is_named_by_its_place(password):
    for template in ("trax {pw} 101 alice", "{pw} 101 alice", "trax move {pw}", "password {pw}",
                     "change {pw} alice"):
        line = template.format(pw=password)
        assume(password not in shown_of(template.format(pw="Zq9Zq9Zq9")))
        try:
            error = parse_error(line)
        except BaseException:  # the password is itself a command's name ("show"): a command, not an error
            continue
        if password in everything_shown(error):
            # quoted only as a word of the language, or as a misspelt name ("did you mean ...?")
            assert placed(password) or "(did you mean" in WORDS.words(error), (line, WORDS.words(error), error.text)


def test_an_unknown_word_is_named_by_its_place():
    error = parse_error("trax apple 101 alice")
    assert WORDS.words(error).startswith("the word after trax is not a trax command")
    assert error.text == f"trax {MASK} ..."
    error = parse_error("trax move apple")
    assert "apple" not in everything_shown(error) and error.text == f"trax move {MASK}"
    # a misspelt name is still quoted, with the name it is close to
    assert WORDS.words(parse_error("trax moev 101 alice s3cret B2/")).startswith("moev is not a trax command")


def reply_shown(body: str, *, digest: bool) -> str:
    read = parse_reply(body, digest=digest)
    return "\n".join(everything_shown(line) if isinstance(line, CommandError) else repr(line)
                     for line in read.lines) + "\n" + read.comment


DIGEST_LINES = ("101 bob {pw} A0+", "101 A0+ bob {pw}", "{pw} A0+", "trax move 101 bob {pw} A0+")


@settings(max_examples=60)
@given(password=passwords)
@example(password="PW")
@example(password="hunter2")
def test_a_digest_line_with_a_login_is_refused_with_the_login_masked(password):
    assume(not placed(password) and password.lower() not in ("101", "bob", "a0+"))
    assume(not is_board_word(password))  # "Ab-1 A0+" is a move on a tournament board, no login
    assume(all(password not in reply_shown(line.format(pw="Zq9Zq9Zq9") + "\n", digest=True) for line in DIGEST_LINES))
    for line in (template.format(pw=password) for template in DIGEST_LINES):
        (error,) = parse_reply(line + "\n", digest=True).lines
        assert isinstance(error, CommandError)
        assert password not in reply_shown(line + "\n", digest=True)
    (error,) = parse_reply(f"101 bob {password} A0+\n", digest=True).lines
    assert isinstance(error, CommandError)
    assert error.text == f"101 {MASK} {MASK} A0+"
    assert "a board and a move, nothing else" in WORDS.words(error)


@settings(max_examples=60)
@given(password=passwords)
@example(password="apple")
def test_words_after_the_move_of_a_reply_are_never_relayed(password):
    assume(password not in reply_shown("C3/ alice Zq9Zq9Zq9\n", digest=False) + "Good luck!")
    read = parse_reply(f"C3/ alice {password}\nGood luck!\n\nOn Monday bob wrote:\n> Trax board 101\n")
    (line,) = read.lines
    assert isinstance(line, ReplyLine) and str(line.move) == "C3/" and line.text == "C3/"
    assert read.comment == "Good luck!"
    assert password not in reply_shown(f"C3/ alice {password}\n", digest=False)
    assert parse_reply(f"resign alice {password}").comment == ""


@settings(max_examples=60)
@given(password=passwords)
@example(password="apple")
def test_a_login_before_the_move_of_a_reply_is_masked(password):
    assume(not placed(password) and password.lower() != "alice")
    assume(password not in reply_shown("alice Zq9Zq9Zq9 C3/\n", digest=False)
           + reply_shown("101 Zq9Zq9Zq9 C3/\n", digest=True))
    # the move after it is the line's move if the board takes it (a LooseLine): the login is masked
    (line,) = parse_reply(f"alice {password} C3/\n").lines
    assert isinstance(line, LooseLine) and line.text == f"{MASK} {MASK} C3/"
    assert [str(m) for m in line.moves] == ["C3/"]
    assert password not in reply_shown(f"alice {password} C3/\n", digest=False)
    assert password not in reply_shown(f"101 {password} C3/\n", digest=True)
    # prose with no move in it is quoted as before: it holds no login
    (prose,) = parse_reply("Thanks for the game!\n").lines
    assert isinstance(prose, CommandError) and WORDS.words(prose).startswith("Thanks is no move")
