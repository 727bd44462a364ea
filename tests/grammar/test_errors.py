"""Every way a command can be written wrongly: the message says what was wrong
in plain words and carries the usage line of the command."""

import re

import pytest

from pbm.app.compose import Renderer
from pbm.grammar import REGISTRY, CommandError, parse_command, usage

WORDS = Renderer()  # the words of a refusal, as a reply shows them

MASK = "********"
MOVE = usage("move")
CHALLENGE = usage("challenge")
CREATE = usage("tournament create")


def error_of(line: str) -> CommandError:
    with pytest.raises(CommandError) as caught:
        parse_command(line)
    return caught.value


# (line, words the reason must contain, usage line or None)
CASES = [
    # --- counting words
    ("trax move", ["trax move needs 4 words after it, but none was given"], MOVE),
    ("trax move 101", ["only 1 was given"], MOVE),
    ("trax move 101 alice s3cret", ["trax move needs 4 words after it, but only 3 were given"], MOVE),
    ("trax move 101 alice s3cret B2/ C3+", ["trax move takes 4 words after it, but 5 were given"], MOVE),
    ("signup alice", ["signup needs at least 2 words after it"], usage("signup")),
    # (the words beyond are never quoted: a userid and password typed by habit)
    ("list everything", ["list takes no words after it, but 1 was given"], "list"),
    (
        "trax standings all of them",
        ["takes no words after it, but 3 were given"],
        usage("standings"),
    ),
    (
        "trax record 101 102",
        ["trax record takes 1 word after it, but 2 were given"],
        usage("record"),
    ),
    (
        "trax limit alice s3cret 3 4",
        ["trax limit takes at most 3 words after it, but 4 were given"],
        usage("limit"),
    ),
    ("all show alice bob", ["all show takes one userid"], usage("all show")),
    # --- userids
    (
        "trax show al:ice",
        ["al:ice is not a valid userid", "no blanks, quotes, colons, # or control"],
        usage("show"),
    ),
    ('trax show "alice"', ["is not a valid userid", "quotes"], usage("show")),
    ("trax show ‘alice’", ["is not a valid userid", "quotes"], usage("show")),
    ("trax show alice#3", ["alice#3 is not a valid userid", "#"], usage("show")),
    ("trax games -alice", ["-alice is not a valid userid", "does not begin with -"], usage("games")),
    ("trax games " + "a" * 33, ["is not a valid userid", "at most 32 characters"], usage("games")),
    ("trax games ١٠١", ["is not a valid userid", "not just digits"], usage("games")),
    ("trax games new", ["new is not a valid userid", "words of the commands, not userids"], usage("games")),
    ("signup 1234 s3cret", ["the userid is not valid", "not just digits"], usage("signup")),
    ("signup all s3cret", ["the userid is not valid", "not userids"], usage("signup")),
    ("trax move 101 al'ice s3cret B2/", ["the userid is not valid", "quotes"], MOVE),
    (
        "message alice s3cret bob ca:rol",
        ["the 2nd recipient (a userid) is not valid", "colons"],
        usage("message"),
    ),
    (
        "trax tournament withdraw ETC alice s3cret 42",
        ["the player (a userid) is not valid", "digits"],
        usage("tournament withdraw"),
    ),
    ("trax challenge alice 42", ["the second userid is not valid: a userid is not just digits"], CHALLENGE),
    # --- passwords
    ("signup alice s3:cret", ["the password is not valid", "colons"], usage("signup")),
    ("signup alice -s3cret", ["the password is not valid", "does not begin with -"], usage("signup")),
    ("signup alice " + "p" * 65, ["the password is not valid", "at most 64 characters"], usage("signup")),
    (
        "signup alice alice@example.org",
        ["the password is not valid", "looks like an e-mail address", "is the password missing?"],
        usage("signup"),
    ),
    (
        "change password alice old new@example.org",
        ["the new password is not valid", "e-mail address"],
        usage("change password"),
    ),
    ('change password alice o"ld new', ["the old password is not valid", "quotes"], usage("change password")),
    # --- boards
    ("trax record 99", ["99 is not a valid board number: a board number is at least 101"], usage("record")),
    ("trax record one", ["one is not a valid board number", "boards are numbered from 101"], usage("record")),
    ("trax record 1234567890123", ["far too large"], usage("record")),
    ("trax move 1o1 alice s3cret B2/", ["the board number is not valid", "numbered from 101"], MOVE),
    ("trax show 101#", ["101# is not a valid board", "after # comes a move number"], usage("show")),
    (
        "trax show 101#x",
        ["101#x is not a valid board", "move number after # is a whole number"],
        usage("show"),
    ),
    ("trax show 100", ["100 is not a valid board", "at least 101"], usage("show")),
    (
        "trax subscribe 12 alice s3cret",
        ["the board number is not valid", "or all for every board"],
        usage("subscribe"),
    ),
    ("trax notify alice s3cret 101 x", ["the 2nd board number is not valid"], usage("notify")),
    ("trax showas alice s3cret 101 50", ["the 2nd board is not valid", "at least 101"], usage("showas")),
    ("trax preview 5 B2/", ["5 is not a valid board (or new)"], usage("preview")),
    (
        "trax tournament result ETC alice s3cret A3 draw",
        ["the board number is not valid"],
        usage("tournament result"),
    ),
    # --- moves (a word that reads as no move in a command with a password: UNREAD_CASES)
    (
        "trax queue 101 alice s3cret B2/ C3+",
        ["a queued line takes turns", "ends with one of your own moves", "2 moves were given"],
        usage("queue"),
    ),
    ("trax preview new B2/ hello", ["hello is not Trax notation"], usage("preview")),
    ("trax preview new undo", ["only tiles can be given here, not undo"], usage("preview")),
    ("trax preview new", ["needs at least 2 words"], usage("preview")),
    # --- selections
    ("trax show alice next bob", ["next goes at the end"], usage("show")),
    ("trax show 101 active", ["active picks among a user's boards; name the user before it"], usage("show")),
    ("trax show next", ["name a board or a userid to show"], usage("show")),
    (
        "trax showas alice s3cret inactive",
        ["inactive cannot be used here; the choices are all, active, next"],
        usage("showas"),
    ),
    ("trax showas alice s3cret 101 next", ["give boards or next, not both"], usage("showas")),
    ("all show alice all", ["all cannot be used here; the choices are next, active"], usage("all show")),
    ("trax games all alice", ["all goes at the end"], usage("games")),
    # --- numbers
    ("vacation alice s3cret soon", ["the number of days is not valid", "whole number"], usage("vacation")),
    (
        "vacation alice s3cret 0",
        ["the number of days is not valid: a number of days is at least 1"],
        usage("vacation"),
    ),
    ("vacation alice s3cret 400", ["a number of days is at most 365"], usage("vacation")),
    ("set alice s3cret pictures", ["say what pictures is to be: on or off"], usage("set")),
    ("set alice s3cret pictures maybe", ["pictures is on or off"], usage("set")),
    ("set alice s3cret colour red", ["there is no setting called that; the settings are pictures"], usage("set")),
    ("trax limit alice s3cret -1", ["the limit is not valid"], usage("limit")),
    ("trax seek alice s3cret 1000", ["a number of opponents is at most 999"], usage("seek")),
    # --- addresses
    (
        "signup alice s3cret alice.example.org",
        ["the 1st e-mail address is not valid", "name@example.org"],
        usage("signup"),
    ),
    ("add alice s3cret a@example.org b@", ["the 2nd e-mail address is not valid"], usage("add")),
    (
        "change address alice s3cret " + " ".join(f"a{i}@example.org" for i in range(6)),
        ["at most 5 addresses, but 6 were given"],
        usage("change address"),
    ),
    # --- options
    (
        "trax challenge alice bob -rated",
        [
            "-rated is not an option of trax challenge (did you mean -unrated?)",
            "the options are --nagtime=D, --forfeittime=D, --totaltime=D, -unrated",
        ],
        CHALLENGE,
    ),
    (
        "trax challenge alice bob --colour=white",
        ["--colour=white is not an option of trax challenge; the options"],
        CHALLENGE,
    ),
    (
        "trax challenge alice bob pw carol",
        [("the 4th word after trax challenge is not an option: options begin with - and come after the two "
          "userids and the password")],
        CHALLENGE,
    ),
    (
        "trax challenge alice -unrated",
        [("the second userid is missing: options go at the end, after the two userids")],
        CHALLENGE,
    ),
    ("trax challenge --nagtime=3 alice bob", ["the first userid is missing"], CHALLENGE),
    ("trax challenge alice bob -unrated --UNRATED", ["the option -unrated is given twice"], CHALLENGE),
    ("trax challenge alice bob -nagtime=1 --nagtime=2", ["the option --nagtime=D is given twice"], CHALLENGE),
    ("trax challenge alice bob -unrated=yes", ["the option -unrated takes no value"], CHALLENGE),
    ("trax challenge alice bob --nagtime", ["the option --nagtime needs a value: --nagtime=D"], CHALLENGE),
    ("trax challenge alice bob --nagtime=", ["the option --nagtime= needs a value"], CHALLENGE),
    (
        "trax challenge alice bob --nagtime=soon",
        ["--nagtime=soon: a time is a number of days, like 3 or 1.5"],
        CHALLENGE,
    ),
    ("trax challenge alice bob --forfeittime=0", ["a time is more than 0 days"], CHALLENGE),
    ("trax challenge alice bob --totaltime=nan", ["a time is a number of days"], CHALLENGE),
    ("trax challenge alice bob --totaltime=5000", ["a time is at most 3650 days"], CHALLENGE),
    (
        "trax challenge alice bob --nagtime=7 --forfeittime=7",
        ["the nag time must be shorter than the forfeit"],
        CHALLENGE,
    ),
    (
        "trax tournament create ETC alice s3cret swiss",
        [("the 4th word after trax tournament create is not an option"), "after NAME USERID PASSWORD"],
        CREATE,
    ),
    (
        "trax tournament create ETC alice -format=swiss",
        ["the password is missing: options go at the end"],
        CREATE,
    ),
    (
        "trax tournament create ETC alice s3cret -format=ladder",
        ["roundrobin, double, swiss, knockout, pools"],
        CREATE,
    ),
    ("trax tournament create ETC alice s3cret -rounds=5", ["-rounds is for -format=swiss"], CREATE),
    (
        "trax tournament create ETC alice s3cret -format=swiss -rounds=0",
        ["a number of rounds is at least 1"],
        CREATE,
    ),
    ("trax tournament create ETC alice s3cret -poolsize=6", ["-poolsize is for -format=pools"], CREATE),
    (
        "trax tournament create ETC alice s3cret -format=roundrobin -advance=2",
        ["-advance is for -format=pools"],
        CREATE,
    ),
    (
        "trax tournament create ETC alice s3cret -format=pools -poolsize=4 -advance=4",
        ["-advance must be smaller than -poolsize"],
        CREATE,
    ),
    ("trax tournament create ETC alice s3cret -maxplayers=1", ["a number of players is at least 2"], CREATE),
    ("trax tournament create ETC alice s3cret -start=15.1.2026", ["a date is written YYYY-MM-DD"], CREATE),
    ("trax tournament create ETC alice s3cret -start=2026-02-30", ["that date does not exist"], CREATE),
    (
        "trax tournament create ETC alice s3cret -nagtime=2 -forfeittime=1",
        ["nag time must be shorter"],
        CREATE,
    ),
    (
        "trax tournament create ETC alice s3cret -formt=swiss",
        ["(did you mean -format=roundrobin|double"],
        CREATE,
    ),
    # --- tournament names and results
    (
        "trax tournament show ETC-26",
        ["ETC-26 is not a valid tournament name", "letters, digits and _"],
        usage("tournament show"),
    ),
    ("trax tournament show 2026", ["beginning with a letter"], usage("tournament show")),
    ("trax tournament show " + "E" * 21, ["at most 20 characters"], usage("tournament show")),
    (
        "trax tournament join E:T alice s3cret",
        ["the tournament name is not valid"],
        usage("tournament join"),
    ),
    (
        "trax tournament result ETC alice s3cret 101 won",
        ["the result is white, black or draw"],
        usage("tournament result"),
    ),
]


@pytest.mark.parametrize("line, fragments, expected_usage", CASES)
def test_every_mistake_is_explained_with_the_usage_line(line, fragments, expected_usage):
    error = error_of(line)
    for fragment in fragments:
        assert fragment in WORDS.words(error)
    assert error.usage == expected_usage
    assert str(error).startswith(error.code)  # the code and params, for logs: no sentence
    assert error.name in REGISTRY


def test_every_command_with_arguments_complains_when_they_are_missing():
    for name, spec in REGISTRY.items():
        if not spec.arguments[:1].isupper():  # nothing required
            continue
        prefix = "trax " if spec.is_game_command else ""
        error = error_of(prefix + name)
        assert "needs" in WORDS.words(error) and "none was given" in WORDS.words(error), name
        assert error.usage == usage(name, game="trax"), name


# --- the command word itself ---------------------------------------------------------------

WORD_CASES = [
    ("", ["there is no command here; send help commands for the list of commands"], None, None),
    ("  \t ", ["there is no command here"], None, None),
    # a word in the name's place that reads as no word of the language may be a password: named by its place
    ("hello there", ["the first word is not a command; send help commands for the list of commands"], None,
     "******** ..."),
    (
        "shwo 101",
        ["shwo is not a command (did you mean trax show?); send help commands for the list of commands"],
        None,
        "shwo ...",
    ),
    ("sigup alice s3cret", ["sigup is not a command (did you mean signup?)"], None, "sigup ..."),
    ("trax shwo 101", ["shwo is not a trax command (did you mean show?)"], None, "trax shwo ..."),
    ("castle", ["castle is not a command; send help"], None, "castle"),  # alone: no login in the line
    ("101 show", ["101 is not a command; send help"], None, "101 ..."),
    ("trax B2/ 101", ["B2/ is not a trax command; send trax help"], None, "trax B2/ ..."),
    ("trax apple 101 alice", ["the word after trax is not a trax command; send trax help"], None, "trax ******** ..."),
    ("trx show 101", ["trx is not a command (did you mean trax?)"], None, "trx ..."),
    (
        "trax moev 101 alice s3cret B2/",
        [("moev is not a trax command (did you mean move?); send trax help commands for the list of commands")],
        None,
        "trax moev ...",
    ),
    ("LoopTrax castle", ["castle is not a looptrax command; send looptrax help"], None, "LoopTrax castle"),
    ("LoopTrax castle 101", ["the word after looptrax is not a looptrax command"], None, "LoopTrax ******** ..."),
    ("trax", ["trax needs a command after it, as in trax show 101; send trax help"], None, None),
    ("8X8TRAX", ["8X8TRAX needs a command after it, as in 8x8trax show 101"], None, None),
    (
        "move 101 alice s3cret B2/",
        ["move is a game command: put the game type (trax, 8x8trax, looptrax, minitrax, luckytrax or pointtrax) first"],
        "<game> move BOARD USERID PASSWORD MOVE[#N]",
        "move ...",
    ),
    ("tournament list", ["tournament list is a game command"], "<game> tournament list", "tournament ..."),
    (
        "trax signup alice s3cret",
        ["signup is not a game command: leave out trax"],
        usage("signup"),
        "trax signup ...",
    ),
    (
        "trax change password alice a b",
        ["change password is not a game command"],
        usage("change password"),
        "trax change ...",
    ),
    (
        "change passwort alice a b",
        [
            (
                "change is followed by one of: password, address (did you mean change "
                "password?); send help commands for more"
            )
        ],
        None,
        "change passwort ...",
    ),
    ("change", ["change is followed by one of: password, address; send help"], None, "change"),
    ("password alice", ["password is followed by one of: reset"], None, "password ********"),
    ("change pasword alice", ["(did you mean change password?)"], None, "change pasword ..."),
    ("all games alice", ["all is followed by one of: show"], None, "all games ..."),
    (
        "trax tournament",
        [
            (
                "trax tournament is followed by one of: create, join, leave, start, show, list, "
                "add, withdraw, result, pair, announce; send trax help tournaments"
            )
        ],
        None,
        "trax tournament",
    ),
    (
        "trax tournament jion ETC alice s3cret",
        ["(did you mean trax tournament join?)"],
        None,
        "trax tournament jion ...",
    ),
]


@pytest.mark.parametrize("line, fragments, expected_usage, quoted", WORD_CASES)
def test_an_unknown_command_word_is_explained_and_points_to_help(line, fragments, expected_usage, quoted):
    error = error_of(line)
    for fragment in fragments:
        assert fragment in WORDS.words(error)
    assert error.usage == expected_usage
    assert error.text == quoted
    if expected_usage is None:
        assert "help" in WORDS.words(error)


def test_an_overlong_line_is_refused_unread():
    error = error_of("trax show " + "alice " * 300)
    assert "this line is 1809 characters long, too long for a command (at most 1000)" in WORDS.words(error)
    assert error.usage is None and error.text is None


def test_a_long_wrong_word_is_shortened_in_the_message():
    error = error_of("-" + "x" * 199)
    assert "-" + "x" * 36 + "... is not a command" in WORDS.words(error)


def test_an_error_knows_its_command_and_game():
    error = error_of("LoopTrax move 101 al:ice s3cret B2/")
    assert (error.name, error.game) == ("move", "looptrax")
    assert error.usage == "looptrax move BOARD USERID PASSWORD MOVE[#N]"
    # a command with a password is quoted by meaning: the board read well, the
    # rest is masked (a word in the wrong place could be a misplaced password)
    assert error.text == "LoopTrax move 101 ******** ******** ********"


# (line, the word that is no move, words of its refusal naming it, words of it naming its place alone)
UNREAD_CASES = [
    (
        "trax move 101 alice s3cret B2x", "B2x",
        ["B2x is not Trax notation", "moves look like B2/", "instead of a move you may write resign, propose, undo"],
        ["the move is not Trax notation", "instead of a move you may write resign, propose, undo"],
    ),
    ("trax move 101 alice s3cret A01/", "A01/", ["A01/ is not Trax notation", "leading zero"],
     ["the move is not Trax notation", "leading zero"]),
    ("trax move 101 alice s3cret B2/#", "B2/#",
     ["B2/# is not a valid move: after # comes the number the move would have"],
     ["the move is not valid: after # comes the number the move would have, as in B2/#5"]),
    ("trax move 101 alice s3cret B2/#0", "B2/#0", ["B2/#0 is not a valid move", "at least 1"],
     ["the move is not valid", "at least 1"]),
    ("trax move 101 alice s3cret B2/#five", "B2/#five", ["B2/#five is not a valid move", "written in digits"],
     ["the move is not valid", "is a whole number written in digits"]),
    ("trax submit 101 alice s3cret XYZ", "XYZ", ["XYZ is not Trax notation"], ["the move is not Trax notation"]),
    ("luckytrax move 101 alice s3cret C3x", "C3x", ["C3x is not Trax notation"],
     ["the move is not Trax notation"]),
    ("trax queue 101 alice s3cret B2/#3", "B2/#3", ["B2/#3 is not a valid move: these moves carry no #N"],
     ["the 1st move is not valid: these moves carry no #N"]),
    ("trax queue 101 alice s3cret resign", "resign",
     ["resign is not a valid move: only tiles can be given here, not resign"],
     ["the 1st move is not valid: only tiles can be given here, not ********"]),
    ("trax queue 101 alice s3cret B2/ C3x D4+", "C3x", ["C3x is not Trax notation"],
     ["the 2nd move is not Trax notation"]),
]


@pytest.mark.parametrize("line, word, named, placed", UNREAD_CASES)
def test_a_word_that_is_no_move_is_kept_for_the_handler_masked(line, word, named, placed):
    """In a command with a password, a word in a move's place that reads
    as no move does not fail the command: it is kept, masked in the text
    (and so in the log), and refused once the sender logged in, named
    unless it holds the password (then by its place, as before)."""
    command = parse_command(line)
    assert command.text == command.redacted() == line.replace("s3cret", MASK).replace(word, MASK)
    assert word not in repr(command) + repr(command.args) + str(command.args)
    assert command.naming_unread() == line.replace("s3cret", MASK)
    refused = command.unread_refusal()
    assert refused is not None
    for fragment in named:
        assert fragment in WORDS.words(refused)
    # the word is the password itself: never named, in the refusal nor in the quoted command
    as_password = parse_command(line.replace("s3cret", word))
    refused = as_password.unread_refusal()
    assert refused is not None and not quotes(WORDS.words(refused) + " " + str(refused), word)
    assert not quotes(as_password.naming_unread(), word)
    for fragment in placed:
        assert fragment in WORDS.words(refused)


def quotes(text: str, word: str) -> bool:
    """Does ``text`` hold ``word`` as a word of its own (not as a piece of
    the template's example ``B2/#5``)?"""
    return re.search(rf"(?<![^\s'(]){re.escape(word)}(?![^\s',)])", text) is not None


@pytest.mark.parametrize("password", ["B2x", "b2X", "xB2xy", "B2", "Ｂ2x"])
def test_a_word_holding_the_password_or_a_piece_of_it_is_not_named(password):
    """Compared as passwords are checked (NFKC, any case), either way round."""
    command = parse_command(f"trax move 101 alice {password} B2x")
    assert "B2x" not in command.naming_unread() and "B2x" not in str(command.unread_refusal())


def test_a_command_without_a_password_names_the_word_at_once():
    error = error_of("trax preview 101 B2x")
    assert WORDS.words(error).startswith("B2x is not Trax notation")
