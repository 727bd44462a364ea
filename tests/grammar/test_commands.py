"""The command grammar: every command parses from a realistic subject line."""

import datetime

import pytest

from pbm.app.compose import Renderer
from pbm.grammar import (
    GAMES,
    REGISTRY,
    AddressesArgs,
    AllShowArgs,
    BoardArgs,
    BoardLoginArgs,
    BoardRef,
    ChallengeArgs,
    ChangePasswordArgs,
    CodeArgs,
    Command,
    CommandError,
    GamesArgs,
    HelpArgs,
    LimitArgs,
    LoginArgs,
    MessageArgs,
    MoveArgs,
    NoArgs,
    NotifyArgs,
    Password,
    PreviewArgs,
    QueueArgs,
    Scope,
    SeekArgs,
    SetArgs,
    ShowArgs,
    ShowAsArgs,
    SignupArgs,
    SubscribeArgs,
    TournamentArgs,
    TournamentCreateArgs,
    TournamentLoginArgs,
    TournamentName,
    TournamentResultArgs,
    TournamentWithdrawArgs,
    UserId,
    UseridArgs,
    VacationArgs,
    WrittenMove,
    decode_subject,
    parse_command,
    parse_mail_commands,
    usage,
)
from pbm.terms import BoardTerms
from pbm.trax import parse_notation

ALICE = UserId.of("alice")
BOB = UserId.of("bob")
PW = Password("s3cret")


def from_subject(subject: str) -> Command:
    """The one command a mail with this subject (and no body) carries."""
    parsed = parse_mail_commands(subject, "")
    assert parsed.source == "subject"
    (command,) = parsed
    assert isinstance(command, Command), command
    return command


def tile(text: str, number: int | None = None) -> WrittenMove:
    return WrittenMove(notation=parse_notation(text), number=number)


# --- account commands ---------------------------------------------------------------------

ACCOUNT_CASES = [
    ("help", "help", HelpArgs()),
    ("HELP Commands  Tutorial", "help", HelpArgs(("commands", "tutorial"))),
    ("help move move", "help", HelpArgs(("move",))),
    ("signup alice s3cret", "signup", SignupArgs(ALICE, PW)),
    (
        "SignUp Alice s3cret alice@example.org <a2@example.net>,",
        "signup",
        SignupArgs(ALICE, PW, ("alice@example.org", "a2@example.net")),
    ),
    ("add alice s3cret home@example.org", "add", AddressesArgs(ALICE, PW, ("home@example.org",))),
    (
        "change password alice s3cret n3w-pass",
        "change password",
        ChangePasswordArgs(ALICE, PW, Password("n3w-pass")),
    ),
    (
        "CHANGE ADDRESS alice s3cret a@example.org b@example.org",
        "change address",
        AddressesArgs(ALICE, PW, ("a@example.org", "b@example.org")),
    ),
    ("signoff alice s3cret", "signoff", LoginArgs(ALICE, PW)),
    ("delete alice s3cret", "delete", LoginArgs(ALICE, PW)),
    ("list", "list", NoArgs()),
    ("message alice s3cret bob Carol bob", "message", MessageArgs(ALICE, PW, (BOB, UserId.of("carol")))),
    ("broadcast alice s3cret", "broadcast", LoginArgs(ALICE, PW)),
    ("all show alice", "all show", AllShowArgs(ALICE)),
    ("All Show alice NEXT", "all show", AllShowArgs(ALICE, "next")),
    ("all show alice active", "all show", AllShowArgs(ALICE, "active")),
    ("password reset alice", "password reset", UseridArgs(ALICE)),
    ("confirm address k7qmx-2d9pa", "confirm address", CodeArgs(Password("K7QMX2D9PA"))),
    ("vacation alice s3cret 14", "vacation", VacationArgs(ALICE, PW, 14)),
    ("vacation alice s3cret OFF", "vacation", VacationArgs(ALICE, PW, None)),
    ("set alice s3cret", "set", SetArgs(ALICE, PW)),
    ("set alice s3cret pictures off", "set", SetArgs(ALICE, PW, "pictures", "off")),
    ("SET alice s3cret Pictures ON", "set", SetArgs(ALICE, PW, "pictures", "on")),
    ("set alice s3cret language DE", "set", SetArgs(ALICE, PW, "language", "de")),
    ("signup alice s3cret language=ja", "signup", SignupArgs(ALICE, PW, (), "ja")),
    (
        "signup alice s3cret a@example.org Language=DE b@example.org",
        "signup",
        SignupArgs(ALICE, PW, ("a@example.org", "b@example.org"), "de"),
    ),
    ("signup alice s3cret -language=en", "signup", SignupArgs(ALICE, PW, (), "en")),
]


@pytest.mark.parametrize("subject, name, args", ACCOUNT_CASES)
def test_every_account_command_parses_from_a_subject(subject, name, args):
    command = from_subject(f"Re:  {subject}  ")
    assert command.name == name
    assert command.game is None
    assert command.args == args


def test_vacation_off_is_a_property_of_the_arguments():
    assert parse_command("vacation alice s3cret off").args.off
    assert not parse_command("vacation alice s3cret 3").args.off


# --- game commands ------------------------------------------------------------------------

GAME_CASES = [
    ("help", "help", HelpArgs()),
    ("challenge alice bob", "challenge", ChallengeArgs(ALICE, BOB)),
    ("challenge alice bob s3cret -unrated", "challenge", ChallengeArgs(ALICE, BOB, PW, BoardTerms(rated=False))),
    (
        "challenge alice bob --nagtime=2 -forfeittime=10.5 --TotalTime=60 -unrated",
        "challenge",
        ChallengeArgs(ALICE, BOB, terms=BoardTerms(nag_days=2.0, forfeit_days=10.5, total_days=60.0, rated=False)),
    ),
    (
        "challenge alice bob --unrated -nagtime=0,5",
        "challenge",
        ChallengeArgs(ALICE, BOB, terms=BoardTerms(nag_days=0.5, rated=False)),
    ),
    ("move 101 alice s3cret B2/", "move", MoveArgs(101, ALICE, PW, tile("B2/"))),
    ("move 101 alice s3cret b2/#5", "move", MoveArgs(101, ALICE, PW, tile("B2/", 5))),
    ("move 101 alice s3cret @0+", "move", MoveArgs(101, ALICE, PW, tile("@0+"))),
    ("move 101 alice s3cret A1S", "move", MoveArgs(101, ALICE, PW, tile("A1S"))),
    ("move 101 alice s3cret 1au#12", "move", MoveArgs(101, ALICE, PW, tile("1AU", 12))),
    ("move 101 alice s3cret C3\\", "move", MoveArgs(101, ALICE, PW, tile("C3\\"))),
    *[
        (f"move 101 alice s3cret {word.upper()}", "move", MoveArgs(101, ALICE, PW, WrittenMove(word=word)))
        for word in ("resign", "propose", "undo", "accept", "reject")
    ],
    (
        "move 101 alice s3cret Propose#9",
        "move",
        MoveArgs(101, ALICE, PW, WrittenMove(word="propose", number=9)),
    ),
    ("queue 101 alice s3cret B2/", "queue", QueueArgs(101, ALICE, PW, (tile("B2/"),))),
    (
        "queue 101 alice s3cret B2/ C3+ B2/",
        "queue",
        QueueArgs(101, ALICE, PW, (tile("B2/"), tile("C3+"), tile("B2/"))),
    ),
    ("resign 101 alice s3cret", "resign", BoardLoginArgs(101, ALICE, PW)),
    ("chat 101 alice s3cret", "chat", BoardLoginArgs(101, ALICE, PW)),
    ("submit 101 alice s3cret B2/#4", "submit", MoveArgs(101, ALICE, PW, tile("B2/", 4))),
    ("confirm 101 alice s3cret", "confirm", BoardLoginArgs(101, ALICE, PW)),
    ("preview 101 B2/ C3+", "preview", PreviewArgs(BoardRef(101), (tile("B2/"), tile("C3+")))),
    ("preview 101#6 B2/", "preview", PreviewArgs(BoardRef(101, 6), (tile("B2/"),))),
    ("preview NEW @0/ a1s", "preview", PreviewArgs(None, (tile("@0/"), tile("A1S")))),
    ("show 101", "show", ShowArgs((BoardRef(101),))),
    ("show 101#0 102#7 101#0", "show", ShowArgs((BoardRef(101, 0), BoardRef(102, 7)))),
    ("show alice", "show", ShowArgs((), (ALICE,))),
    ("show Alice BOB alice Inactive", "show", ShowArgs((), (ALICE, BOB), "inactive")),
    ("show 101 alice next", "show", ShowArgs((BoardRef(101),), (ALICE,), "next")),
    ("show alice all", "show", ShowArgs((), (ALICE,), "all")),
    ("show alice active", "show", ShowArgs((), (ALICE,), "active")),
    ("showas alice s3cret", "showas", ShowAsArgs(ALICE, PW)),
    ("showas alice s3cret 101 102", "showas", ShowAsArgs(ALICE, PW, (BoardRef(101), BoardRef(102)))),
    ("showas alice s3cret next", "showas", ShowAsArgs(ALICE, PW, (), "next")),
    ("games", "games", GamesArgs()),
    ("games alice bob", "games", GamesArgs((ALICE, BOB))),
    ("games all", "games", GamesArgs((), "all")),
    ("games alice inactive", "games", GamesArgs((ALICE,), "inactive")),
    ("standings", "standings", NoArgs()),
    ("Ratings", "standings", NoArgs()),
    ("history", "history", NoArgs()),
    ("subscribe 101 alice s3cret", "subscribe", SubscribeArgs(101, ALICE, PW)),
    ("subscribe ALL alice s3cret", "subscribe", SubscribeArgs("all", ALICE, PW)),
    ("unsubscribe 101 alice s3cret", "unsubscribe", SubscribeArgs(101, ALICE, PW)),
    ("unsubscribe all alice s3cret", "unsubscribe", SubscribeArgs("all", ALICE, PW)),
    ("notify alice s3cret", "notify", NotifyArgs(ALICE, PW)),
    ("notify alice s3cret 101 102 101", "notify", NotifyArgs(ALICE, PW, (101, 102))),
    ("accept alice s3cret", "accept", LoginArgs(ALICE, PW)),
    ("reject alice s3cret", "reject", LoginArgs(ALICE, PW)),
    ("limit alice s3cret", "limit", LimitArgs(ALICE, PW)),
    ("limit alice s3cret 12", "limit", LimitArgs(ALICE, PW, 12)),
    ("seek alice s3cret", "seek", SeekArgs(ALICE, PW)),
    ("seek alice s3cret 3", "seek", SeekArgs(ALICE, PW, 3)),
    ("record 101", "record", BoardArgs(101)),
    ("hint 101 alice s3cret", "hint", BoardLoginArgs(101, ALICE, PW)),
    ("analyze 101", "analyze", BoardArgs(101)),
    ("analyse 101", "analyze", BoardArgs(101)),
]

ETC = TournamentName.of("ETC26")

TOURNAMENT_CASES = [
    ("tournament create ETC26 alice s3cret", "tournament create", TournamentCreateArgs(ETC, ALICE, PW)),
    (
        (
            "Tournament Create ETC26 alice s3cret -format=Pools -poolsize=7 --advance=3 --nagtime=1 "
            "-forfeittime=7 -UNRATED -maxplayers=40 -start=2026-01-15"
        ),
        "tournament create",
        TournamentCreateArgs(
            ETC,
            ALICE,
            PW,
            format="pools",
            pool_size=7,
            advance=3,
            max_players=40,
            start=datetime.date(2026, 1, 15),
            terms=BoardTerms(nag_days=1.0, forfeit_days=7.0, rated=False),
        ),
    ),
    (
        "tournament create ETC26 alice s3cret -format=swiss -rounds=7",
        "tournament create",
        TournamentCreateArgs(ETC, ALICE, PW, format="swiss", rounds=7),
    ),
    *[
        (
            f"tournament create ETC26 alice s3cret -format={f}",
            "tournament create",
            TournamentCreateArgs(ETC, ALICE, PW, format=f),
        )
        for f in ("roundrobin", "double", "knockout")
    ],
    *[
        (f"tournament {verb} etc26 alice s3cret", f"tournament {verb}", TournamentLoginArgs(ETC, ALICE, PW))
        for verb in ("join", "leave", "start", "pair", "announce")
    ],
    ("tournament show ETC26", "tournament show", TournamentArgs(ETC)),
    ("tournament list", "tournament list", NoArgs()),
    (
        "tournament withdraw ETC26 alice s3cret Bob",
        "tournament withdraw",
        TournamentWithdrawArgs(ETC, ALICE, PW, BOB),
    ),
    (
        "tournament add ETC26 alice s3cret Bob",
        "tournament add",
        TournamentWithdrawArgs(ETC, ALICE, PW, BOB),
    ),
    (
        "tournament result ETC26 alice s3cret 123 White",
        "tournament result",
        TournamentResultArgs(ETC, ALICE, PW, 123, "white"),
    ),
    (
        "tournament result ETC26 alice s3cret 123 draw",
        "tournament result",
        TournamentResultArgs(ETC, ALICE, PW, 123, "draw"),
    ),
]


@pytest.mark.parametrize("game", ["trax", "8x8trax", "LoopTrax"])
@pytest.mark.parametrize("subject, name, args", GAME_CASES + TOURNAMENT_CASES)
def test_every_game_command_parses_from_a_subject_in_every_game_type(game, subject, name, args):
    command = from_subject(f"Fwd: RE: {game}   {subject}")
    assert command.name == name
    assert command.game == game.lower()
    assert command.args == args
    assert command.text == " ".join(f"{game} {subject}".split()).replace("s3cret", "********")


def test_every_registry_entry_is_exercised_by_a_test_case():
    tried = {name for _, name, _ in ACCOUNT_CASES + GAME_CASES + TOURNAMENT_CASES}
    assert tried == set(REGISTRY)


def test_help_is_both_an_account_and_a_game_command():
    assert parse_command("help").game is None
    assert parse_command("8X8TRAX HELP notation").game == "8x8trax"
    assert parse_command("8x8trax help notation").args == HelpArgs(("notation",))


def test_blanks_of_every_kind_separate_words():
    command = parse_command("\ttrax\u00a0 move  101\t alice s3cret\u3000B2/ ")
    assert command.text == "trax move 101 alice ******** B2/"
    assert command.args == MoveArgs(101, ALICE, PW, tile("B2/"))


def test_invisible_format_characters_from_phones_are_dropped():
    assert parse_command("\ufefftrax show\u200b 101").args == ShowArgs((BoardRef(101),))


def test_userids_keep_the_case_typed_and_compare_without_it():
    args = parse_command("trax challenge ALICE bOb").args
    assert args.white.typed == "ALICE" and args.white.key == "alice"
    assert args.black.typed == "bOb" and args.black.key == "bob"
    assert args.white == ALICE and hash(args.white) == hash(ALICE)
    assert str(args.white) == "ALICE"


def test_userids_are_compared_after_unicode_case_folding():
    assert UserId.of("STRASSE") == UserId.of("straße")
    assert UserId.of("Ｂｏｂ") == BOB  # full-width letters from a phone keyboard


def test_passwords_keep_their_case_exactly():
    args = parse_command("signoff alice S3Cret").args
    assert args.password.reveal() == "S3Cret"
    assert args.password != Password("s3cret")
    assert args.password == Password("S3Cret")


def test_the_move_number_is_split_off_as_an_integer():
    move = parse_command("trax move 101 alice s3cret C3\\#12").args.move
    assert move.number == 12
    assert move.is_tile
    assert str(move.notation) == "C3\\"
    assert str(move) == "C3\\#12"


def test_old_notation_moves_stay_in_the_old_notation_for_the_board_to_resolve():
    move = parse_command("trax move 101 alice s3cret b2r").args.move
    assert str(move) == "B2R"
    assert move.notation.row_first is False


def test_special_move_words_are_lower_case_and_not_tiles():
    move = parse_command("trax move 101 alice s3cret ReSiGn").args.move
    assert move.word == "resign" and not move.is_tile and str(move) == "resign"


def test_a_board_with_leading_zeros_is_the_same_board():
    assert parse_command("trax record 0101").args == BoardArgs(101)


def test_tournament_names_compare_without_case():
    assert parse_command("trax tournament show etc26").args.name == ETC
    assert parse_command("trax tournament show etc26").args.name.typed == "etc26"


def test_decoded_subject_and_parse_give_the_same_as_parse_mail_commands():
    raw = "=?utf-8?q?Re=3A_trax_move_101_alice_s3cret_B2/=235?="
    assert parse_command(decode_subject(raw)) == from_subject(raw)


#: The summary of each command, from the template that says it.
SUMMARIES = Renderer().env.get_template("help/_summaries.txt").module.summaries

# --- the registry ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_command_has_a_usage_line_and_a_summary(name):
    spec = REGISTRY[name]
    assert spec.name == name
    summary = SUMMARIES[name]  # the template's: help commands shows it under the usage line
    assert summary and summary == summary.strip() and "\n" not in summary
    line = usage(name)
    assert line.startswith(("trax " if spec.scope is Scope.GAME else "") + name)
    assert "\n" not in line and line == line.strip()
    if spec.scope is Scope.GAME:
        assert spec.usage().startswith(f"<game> {name}")
        assert usage(name, game="looptrax").startswith(f"looptrax {name}")
        assert usage(name, game=None).startswith(f"<game> {name}")


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_password_of_a_command_is_named_password_in_its_usage(name):
    spec = REGISTRY[name]
    words = spec.arguments.split()
    # a one-time CODE is as secret as a password
    assert [i for i, w in enumerate(words) if "PASSWORD" in w or w == "CODE"] == list(spec.secret_positions)
    assert spec.takes_password == bool(spec.secret_positions)


def test_the_usage_lines_read_as_the_command_language_says():
    assert usage("move") == "trax move BOARD USERID PASSWORD MOVE[#N]"
    assert usage("move", game="8x8trax") == "8x8trax move BOARD USERID PASSWORD MOVE[#N]"
    assert usage("signup") == "signup USERID PASSWORD [ADDRESS ...] [language=en|de|ja]"
    assert usage("signup", game="looptrax") == "signup USERID PASSWORD [ADDRESS ...] [language=en|de|ja]"
    assert usage("help") == "help [TOPIC ...]"
    assert REGISTRY["help"].usage("trax") == "trax help [TOPIC ...]"
    assert usage("list") == "list"
    assert usage("challenge") == (
        "trax challenge USERID1 USERID2 [PASSWORD] [--nagtime=D] [--forfeittime=D] [--totaltime=D] [-unrated] "
        "[-ending=draw|lastloses] [-points=N] [-level=1..4]"
    )


def test_an_unknown_name_has_no_usage():
    with pytest.raises(KeyError):
        usage("castle")


def test_the_registry_cannot_be_changed_by_accident():
    with pytest.raises(TypeError):
        REGISTRY["castle"] = REGISTRY["move"]  # type: ignore[index]


def test_the_game_types_are_the_engines_variants():
    assert GAMES == ("trax", "8x8trax", "looptrax", "minitrax", "luckytrax", "pointtrax")


def test_game_commands_know_they_are_game_commands():
    assert REGISTRY["move"].is_game_command
    assert REGISTRY["help"].is_game_command
    assert not REGISTRY["signup"].is_game_command


def test_the_package_doctest_runs():
    import doctest

    import pbm.grammar

    assert doctest.testmod(pbm.grammar).failed == 0


def test_parse_errors_are_value_errors():
    assert issubclass(CommandError, ValueError)
