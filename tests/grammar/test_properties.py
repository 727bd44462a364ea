"""Whatever arrives, the grammar answers with commands or CommandErrors and
nothing else: no other exception, ever."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm.app.compose import Renderer
from pbm.grammar import (
    REGISTRY,
    Command,
    CommandError,
    MailCommands,
    comment_text,
    decode_subject,
    parse_command,
    parse_mail_commands,
)

WORDS = Renderer()  # the words of a refusal, as a reply shows them

VOCABULARY = sorted(
    {word for name in REGISTRY for word in name.split()}
    | {
        "trax",
        "8x8trax",
        "LoopTrax",
        "ratings",
        "multiple",
        "new",
        "all",
        "active",
        "inactive",
        "next",
        "off",
        "101",
        "0",
        "99",
        "101#3",
        "101#",
        "#",
        "alice",
        "Bob",
        "pw",
        "s3cret",
        "a@example.org",
        "B2/",
        "@0+",
        "A1S",
        "1AU",
        "C3\\",
        "B2/#5",
        "B2/#",
        "resign",
        "undo",
        "--nagtime=2",
        "-unrated",
        "-unrated=1",
        "--forfeittime=",
        "-format=swiss",
        "-rounds=3",
        "-poolsize=6",
        "-advance=2",
        "-start=2026-01-15",
        "-maxplayers=8",
        "-x",
        "--",
        "-",
        "white",
        "draw",
        "ETC26",
        "Re:",
        "=?utf-8?q?x?=",
        ":",
        '"',
        "'",
        "\u00a0",
        "\u200b",
        "ß",
        "١٠١",
    }
)

words = st.lists(st.one_of(st.sampled_from(VOCABULARY), st.text(max_size=8)), max_size=12).map(" ".join)


def answered(item) -> None:
    assert isinstance(item, (Command, CommandError))
    str(item), repr(item)  # both must work


@given(st.text())
def test_decode_subject_never_raises_and_gives_one_clean_line(raw):
    text = decode_subject(raw)
    assert text == " ".join(text.split())
    assert text.isprintable()


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["utf-8", "iso-8859-1", "x-bogus", "utf-7", "", "?"]),
            st.sampled_from(["q", "b", "Q", "B", "x", ""]),
            st.text(max_size=20),
        ),
        max_size=4,
    )
)
def test_decode_subject_gives_one_clean_line_for_any_encoded_words(parts):
    raw = " ".join(f"=?{charset}?{encoding}?{payload}?=" for charset, encoding, payload in parts)
    text = decode_subject(raw)
    assert text == " ".join(text.split())
    assert text.isprintable()


@given(words)
def test_parse_command_gives_a_command_or_a_command_error(line):
    try:
        command = parse_command(line)
    except CommandError as error:
        words = WORDS.words(error)
        assert words
        if error.usage is None:
            assert "help" in words or "too long" in words
        return
    answered(command)
    assert command.name in REGISTRY


@given(st.text())
def test_parse_command_gives_a_command_of_the_registry_or_says_why_for_any_text(line):
    try:
        command = parse_command(line)
    except CommandError as error:
        words = WORDS.words(error)
        assert words and "\n" not in words and "\r" not in words
        return
    answered(command)
    assert command.name in REGISTRY
    assert command.text == " ".join(command.text.split())


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), words), st.one_of(st.text(), st.lists(words).map("\n".join)))
def test_parse_mail_commands_never_raises(subject, body):
    parsed = parse_mail_commands(subject, body)
    assert isinstance(parsed, MailCommands)
    assert parsed.source in ("subject", "multiple", "body", "none")
    for item in parsed:
        answered(item)
    if parsed.source == "none":
        assert len(parsed) == 0
    else:
        assert len(parsed) >= 1


@given(st.lists(words, max_size=30).map("\n".join), st.integers(min_value=0, max_value=5))
def test_multiple_never_gives_more_than_the_cap_and_one_report(body, cap):
    parsed = parse_mail_commands("multiple", body, max_commands=cap)
    assert len(parsed) <= cap + 1


@given(st.text(), st.integers(min_value=0, max_value=200))
def test_comment_text_never_raises_and_keeps_to_the_limit(body, limit):
    text = comment_text(body, max_length=limit)
    assert len(text) <= limit
    assert not text.endswith("\n") and not text.startswith("\n")
