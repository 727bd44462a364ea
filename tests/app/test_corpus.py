"""The corpus of real-shaped mail in tests/data/messages/: what the server
does with each one (one table, ``EXPECTED``), and what holds for all of them
(no exception, replies safe to send, nothing echoed, redelivery is a duplicate).

Every message is handled against the same fresh state: alice/apple and
bob/banana signed up, board 101 (alice white, to move) created; with
``setup="moved"`` alice has also played @0+ (bob to move).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import compat32
from email.utils import getaddresses
from pathlib import Path

import pytest

from pbm.app.pipeline import Result
from pbm.app.reading import body_text, header_text
from pbm.domain.store import Store
from pbm.grammar import decode_subject

MESSAGES = Path(__file__).resolve().parents[1] / "data" / "messages"
PADDING = b"@@PADDING@@"

#: Passwords that occur in the corpus: none may ever be in a reply.
SECRETS = ("apple", "banana", "cherry", "daisy", "pear", "pineapple", "crème", "grüneäpfel", "m4llory")


def load(name: str) -> bytes:
    """The raw bytes of a corpus message (the large attachment padded here)."""
    raw = (MESSAGES / name).read_bytes()
    if PADDING in raw:
        line = b"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0"
        raw = raw.replace(PADDING, b"\r\n".join([line] * 40_000))
    return raw


def moves(board: int = 101) -> Callable[[Store], list[str]]:
    def get(store: Store) -> list[str]:
        return [row.move for row in store.moves_of(board)]
    return get


def user_exists(key: str) -> Callable[[Store], bool]:
    return lambda store: store.find_user(key) is not None


@dataclass(frozen=True)
class Expect:
    status: str  # handled | dropped
    to: tuple[str, ...] = ()  # the recipients of the replies, sorted
    subjects: frozenset[str] = frozenset()  # the set of reply subjects
    must: tuple[str, ...] = ()  # phrases in the replies' text (blanks collapsed)
    must_not: tuple[str, ...] = ()  # phrases in none of the replies (headers and text)
    reason: str = ""  # for dropped mail: the start of Result.reason
    setup: str = "board"  # board | moved
    checks: tuple[tuple[Callable[[Store], object], object], ...] = field(default=())


def subjects(*names: str) -> frozenset[str]:
    return frozenset(names)


A, B = "alice@example.org", "bob@example.org"
NO_MOVE = ((moves(), []),)
PLAYED = ((moves(), ["@0+"]),)
NO_COMMAND = ("found none in it", 'subject "help"')

EXPECTED: dict[str, Expect] = {
    # -- mail programs --------------------------------------------------------
    "outlook_signup_alternative_qp.eml": Expect(
        "handled", ("carol@example.org",), subjects("Welcome to Trax PBM, carol"),
        must=("Your account carol is ready", "carol@example.org"), must_not=("cherry",),
        checks=((user_exists("carol"), True),)),
    "outlook_reply_command_in_body.eml": Expect(  # RE: board mail, command on the first body line
        "handled", (A, B), subjects("Trax Board 101 bob **"), must=("alice played @0+", "Here goes."),
        must_not=("Original Message", "PASSWORD @0+#1", "apple"), checks=PLAYED),
    "gmail_re_move_base64.eml": Expect(
        "handled", (A, B), subjects("Trax Board 101 bob **"), must=("alice played @0/", "Good luck, Bob!"),
        must_not=("wrote:", "gmail_quote", "<div"), checks=((moves(), ["@0/"]),)),
    "gmail_help_alternative.eml": Expect(
        "handled", ("dave@example.org",), subjects("Trax PBM help")),
    "apple_mail_flowed_chat.eml": Expect(
        "handled", (A, B), subjects("Trax chat 101 bob"), setup="moved",
        must=("bob writes, to the players and observers of Trax board 101", "That was a very clever opening move",
              "I will need some time to think.")),
    "iphone_signup.eml": Expect(  # capitalised by the phone, signature only in the body
        "handled", ("dave@example.org",), subjects("Welcome to Trax PBM, dave"), must_not=("Sent from my iPhone",),
        checks=((user_exists("dave"), True),)),
    "iphone_move_sent_from.eml": Expect(  # "Sent from my iPhone" is no "-- " signature: relayed as comment
        "handled", (A, B), subjects("Trax Board 101 bob **"), must=("Your move, Bob \U0001f642", "Sent from my iPhone"),
        checks=PLAYED),
    "android_gmail_body_commands.eml": Expect(  # empty subject, two commands in the body, then comment
        "handled", (A, B, B), subjects("Trax Board 101 alice **", "Summary of Trax Board 101"), setup="moved",
        must=("bob played A0+", "Sent from my Galaxy"), checks=((moves(), ["@0+", "A0+"]),)),
    "k9_android_multiple.eml": Expect(
        "handled", (A,), subjects("Trax PBM: replies to your commands"),
        must=("=== Summary of Trax Board 101 ===", "=== Trax PBM games ===", "Trax board 101"),
        must_not=("K-9 Mail",)),
    "thunderbird_change_password.eml": Expect(
        "handled", (A,), subjects("Trax PBM: password of alice changed"), must=("has been changed",)),
    # -- HTML only ------------------------------------------------------------
    "html_only_help.eml": Expect(
        "handled", ("erin@example.org",), subjects("Trax PBM help: move"), must_not=("color: red", "<p>")),
    "html_only_command_in_body.eml": Expect(
        "handled", (A, B), subjects("Trax Board 101 bob **"), must=("à toi, Bob",), must_not=("<div", "&nbsp;"),
        checks=PLAYED),
    # -- transfer encodings and charsets --------------------------------------
    "base64_plain_multiple.eml": Expect(
        "handled", (B,), subjects("Trax PBM: replies to your commands"),
        must=("=== Summary of Trax Board 101 ===", "Trax board 101", "=== Trax PBM games ===")),
    "qp_chat_utf8.eml": Expect(
        "handled", (A, B), subjects("Trax chat 101 alice"),
        must=("Café after the game?", "with a soft line break somewhere."), must_not=("=C3=A9",)),
    "latin1_subject_and_body.eml": Expect(
        "handled", ("rene@example.org",), subjects("Welcome to Trax PBM, René"), must=("Your account René is ready",),
        checks=((user_exists("rené"), True),)),
    "latin1_chat_8bit.eml": Expect(
        "handled", (A, B), subjects("Trax chat 101 bob"), must=("Grüße aus München!",)),
    "invalid_utf8_body.eml": Expect(
        "handled", (A, B), subjects("Trax chat 101 alice"), must=("broken \ufffd\ufffd bytes",)),
    "raw_8bit_subject.eml": Expect(  # undeclared 8-bit subject, no command
        "handled", ("frank@example.org",), subjects("Trax error"), must=NO_COMMAND),
    "unknown_charset.eml": Expect(  # charsets nobody knows are read leniently
        "handled", (A,), subjects("Summary of Trax Board 101"), must=("Trax board 101",)),
    # -- RFC 2047 subjects ----------------------------------------------------
    "rfc2047_b_utf8_subject.eml": Expect(
        "handled", (B,), subjects("Summary of Trax Board 101"), must=("Trax board 101",)),
    "rfc2047_q_split_folded.eml": Expect(  # B + Q, UTF-8 + Latin-1, three folded lines
        "handled", (A, B), subjects("Trax Board 101 bob"), must=("alice played @0+",), checks=PLAYED),
    "rfc2047_b_latin1_message.eml": Expect(
        "handled", (A, B), subjects("Message from bob via PBM Server", "Trax PBM: message sent"),
        must=("Très bien joué, Alice.", "Your message went to alice.")),
    "rfc2047_utf8_userid_signup.eml": Expect(  # password split over two encoded-words on two lines
        "handled", ("zoe@example.org",), subjects("Welcome to Trax PBM, Zoë"), must_not=("eäpfel", "grün"),
        checks=((user_exists("zoë"), True),)),
    # -- long -----------------------------------------------------------------
    "very_long_subject.eml": Expect(
        "handled", (A,), subjects("Trax error"),
        must=("this line is 2000 characters long, too long for a command (at most 1000)",), must_not=("x" * 100,)),
    "very_long_body.eml": Expect(  # the comment is cut at 4,000 characters
        "handled", (A, B), subjects("Trax chat 101 alice"), must=("The quick brown fox", "[...]")),
    "multiple_1000_lines.eml": Expect(
        "handled", (A,), subjects("Trax PBM: replies to your commands"),
        must=("this mail has 1000 command lines", "the first 100 were read, the last 900 ignored")),
    "large_attachment.eml": Expect(  # over max_message_bytes: one clear reply, nothing run
        "handled", (A,), subjects("Trax error"),
        must=("bytes long; the most this server reads is 1,048,576 bytes", "Nothing in it was read"),
        checks=NO_MOVE),
    # -- missing and odd headers ----------------------------------------------
    "no_message_id.eml": Expect(
        "handled", (B,), subjects("Summary of Trax Board 101"), must=("Trax board 101",)),
    "no_from.eml": Expect("dropped", reason="no usable From address", checks=NO_MOVE),
    "several_from_addresses.eml": Expect("dropped", reason="no usable From address", checks=NO_MOVE),
    "from_display_name_comments.eml": Expect(
        "handled", (A, B), subjects("Trax Board 101 bob"), checks=PLAYED),
    "empty_subject_command_in_first_line.eml": Expect(
        "handled", (A, B), subjects("Trax Board 101 bob **"), must=("Here is my first move.",),
        checks=((moves(), ["@0/"]),)),
    "no_subject_header_command_in_body.eml": Expect(
        "handled", ("dave@example.org",), subjects("Welcome to Trax PBM, dave"), checks=((user_exists("dave"), True),)),
    # -- attachments ----------------------------------------------------------
    "mixed_text_attachment_after_body.eml": Expect(  # the attachment's commands are not read
        "handled", (A, B), subjects("Trax Board 101 bob"), must=("alice played @0+", "It is bob's turn"),
        must_not=("resign", "mallory"), checks=(*PLAYED, (user_exists("mallory"), False))),
    "mixed_text_attachment_first.eml": Expect(
        "handled", (A,), subjects("Summary of Trax Board 101"), must=("Trax board 101", "It is alice's turn"),
        must_not=("resigned",), checks=NO_MOVE),
    # -- automatic mail: no reply ---------------------------------------------
    "dsn_mailer_daemon_report.eml": Expect("dropped", reason="bounce (empty return path)"),
    "dsn_report_no_return_path.eml": Expect("dropped", reason="delivery status notification", checks=NO_MOVE),
    "bounce_empty_return_path_exchange.eml": Expect("dropped", reason="bounce (empty return path)"),
    "vacation_auto_submitted.eml": Expect(
        "dropped", reason="automatic mail (Auto-Submitted: auto-replied)", checks=NO_MOVE),
    "vacation_precedence_bulk.eml": Expect("dropped", reason="bulk or list mail (Precedence)"),
    "vacation_x_autoreply.eml": Expect("dropped", reason="automatic mail (X-Autoreply"),
    "list_mail.eml": Expect("dropped", reason="bulk or list mail (Precedence)"),
    "list_id_only.eml": Expect("dropped", reason="mailing-list mail", checks=((user_exists("news"), False),)),
    "own_reply_looped_back.eml": Expect("dropped", reason="mail from our own address"),
    "own_address_upper_case_no_auto_submitted.eml": Expect(
        "dropped", reason="mail from our own address", checks=NO_MOVE),
    # -- replies, signatures, the way commands are written ---------------------
    "reply_quoting_board_diagram.eml": Expect(  # quoted diagram cut: no comment, no " **"
        "handled", (A, B), subjects("Trax Board 101 alice"), setup="moved", must=("bob played A0+",),
        must_not=("wrote:", "> "), checks=((moves(), ["@0+", "A0+"]),)),
    "signature_after_dashes.eml": Expect(
        "handled", (A, B), subjects("Trax chat 101 alice"), must=("See you at the club on Friday.",),
        must_not=("Rabbit Hole", "Alice Liddell")),
    "odd_case_and_blanks.eml": Expect(
        "handled", (A, B), subjects("Trax Board 101 bob"), must=("alice played @0+",), checks=PLAYED),
    "tab_separated_command.eml": Expect(
        "handled", (B,), subjects("Summary of Trax Board 101"), must=("Trax board 101",)),
    "fwd_and_list_tag_prefixes.eml": Expect(
        "handled", (B,), subjects("Summary of Trax Board 101"), must=("Trax board 101",)),
    # -- errors ---------------------------------------------------------------
    "wrong_password_move.eml": Expect(
        "handled", (A,), subjects("Trax error"),
        must=("wrong userid or password", "trax move ******** ******** ******** ********"),
        checks=NO_MOVE),
    "illegal_move.eml": Expect(
        "handled", (A,), subjects("Trax Board 101 Error"), must=("cannot start a game", "Nothing was changed"),
        checks=NO_MOVE),
    "misspelt_command.eml": Expect(
        "handled", (A,), subjects("Trax error"), must=("moev is not a trax command (did you mean move?)",),
        checks=NO_MOVE),
    # -- spam: one "no command" reply unless screened --------------------------
    "spam_html_prize.eml": Expect(
        "handled", ("winner@prize.example.biz",), subjects("Trax error"), must=NO_COMMAND,
        must_not=("Congratulations", "alert(1)", "prize.example.biz/claim")),
    "spam_cyrillic_base64.eml": Expect(
        "handled", ("offer@spam.example.ru",), subjects("Trax error"), must=NO_COMMAND, must_not=("Привет",)),
    "spam_precedence_bulk.eml": Expect("dropped", reason="bulk or list mail (Precedence)"),
    "spam_forged_our_address.eml": Expect("dropped", reason="mail from our own address"),
}

CORPUS = sorted(p.name for p in MESSAGES.glob("*.eml"))


# ----------------------------------------------------------------------------


@pytest.fixture
def world(players, store, clock):
    """alice and bob signed up, board 101 created; returns a function that
    makes the setup a message needs and handles its bytes."""
    players.send(A, "trax challenge alice bob apple")

    def handle(name: str, setup: str = "board") -> Result:
        if setup == "moved":
            players.send(A, "trax move 101 alice apple @0+")
        return players.pipeline.handle(load(name), now=clock.now)

    return handle


def parsed(reply) -> EmailMessage:
    """A queued reply as a mail client reads the bytes we send."""
    return BytesParser(policy=policy.default).parsebytes(reply.data)


def flat(text: str) -> str:
    return " ".join(text.split())


def reply_text(msg: EmailMessage) -> str:
    return f"{msg['Subject']}\n{msg.get_body(('plain',)).get_content()}"


def test_the_corpus_is_big_enough_and_every_message_has_its_expectation():
    assert len(CORPUS) >= 45
    assert sorted(EXPECTED) == CORPUS


@pytest.mark.parametrize("name", CORPUS)
def test_each_message_gets_its_expected_outcome(world, store, name):
    expect = EXPECTED[name]
    result = world(name, expect.setup)
    assert result.status == expect.status, (result.reason, result.summary)
    replies = [parsed(r) for r in result.sent]
    if expect.status == "dropped":
        assert replies == []
        assert result.reason.startswith(expect.reason), result.reason
    assert sorted(str(m["To"]) for m in replies) == sorted(expect.to)
    assert {str(m["Subject"]) for m in replies} == expect.subjects
    text = flat("\n".join(reply_text(m) for m in replies))
    for phrase in expect.must:
        assert flat(phrase) in text, phrase
    whole = "\n".join(reply_text(m) + "".join(f"\n{k}: {v}" for k, v in m.items()) for m in replies)
    for phrase in expect.must_not:
        assert phrase not in whole, phrase
    for probe, wanted in expect.checks:
        assert probe(store) == wanted, probe


def test_a_multiple_body_of_1000_lines_runs_the_first_100(world):
    result = world("multiple_1000_lines.eml")
    (reply,) = [parsed(r) for r in result.sent]
    sections = [line for line in reply.get_body(("plain",)).get_content().splitlines() if line.startswith("=== ")]
    assert len(sections) == 101  # 100 answers and the note about the rest
    assert sections[:100] == ["=== Trax PBM games ==="] * 100
    assert result.summary.count("list") == 100


def test_the_large_attachment_is_really_over_the_limit(config):
    assert len(load("large_attachment.eml")) > 2 * config.limits.max_message_bytes
    assert len((MESSAGES / "large_attachment.eml").read_bytes()) < 2000


def test_a_long_body_is_relayed_shortened(world):
    result = world("very_long_body.eml")
    body = parsed(result.sent[0]).get_body(("plain",)).get_content()
    assert 3900 < len(body) < 4400


def _passwords_in(raw: bytes) -> set[str]:
    text = raw.decode("utf-8", "replace") + raw.decode("latin-1")
    msg = BytesParser(policy=compat32).parsebytes(raw)
    text += decode_subject(header_text(msg, "Subject")) + body_text(msg)
    return {s for s in SECRETS if re.search(rf"(?<![\w]){re.escape(s)}(?![\w])", text)}


def _registered(store: Store) -> set[str]:
    return {a.lower() for user in store.all_users() for a in store.addresses_of(user.id)}


@pytest.mark.parametrize("name", CORPUS)
def test_invariants_hold_for_every_message(world, store, name):
    raw = load(name)
    source = BytesParser(policy=compat32).parsebytes(raw)
    had_message_id = bool(str(source.get("Message-ID") or "").strip())
    senders = [a.lower() for _, a in getaddresses([str(v) for v in source.get_all("From") or []]) if a]
    secrets = _passwords_in(raw)

    result = world(name, EXPECTED[name].setup)  # never raises

    allowed = set(senders) | _registered(store)
    for wire in result.sent:
        data = wire.data
        msg = parsed(wire)
        assert not msg.defects, msg.defects
        for header, value in msg.items():
            assert not getattr(value, "defects", ()), (header, value.defects)
        for part in msg.walk():  # every part decodes
            if not part.is_multipart():
                part.get_content()
        assert msg["Auto-Submitted"] == "auto-replied"
        if had_message_id:
            assert str(msg["In-Reply-To"]).strip() == " ".join(str(source["Message-ID"]).split())
        assert len(msg.get_all("To")) == 1
        (to,) = [a for _, a in getaddresses([str(msg["To"])])]
        assert to.lower() in allowed
        assert msg.get_all("Cc") is None and msg.get_all("Bcc") is None
        text = reply_text(msg) + data.decode("ascii", "replace")
        for secret in secrets:
            assert not re.search(rf"(?<![\w]){re.escape(secret)}(?![\w])", text), secret

    again = world(name)
    assert again.status == "duplicate"
    assert again.replies == []
