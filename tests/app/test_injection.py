"""Header injection (issue 7): nothing a user writes can add a header or a
recipient to our replies.  Line breaks, raw or RFC 2047-encoded, in subjects,
userids, passwords, addresses, display names and relayed bodies; addresses
with commas, semicolons and angle brackets that try to smuggle in a second
recipient.  Checked on the replies the pipeline returns and on the rows of
the outbox (what is actually sent), down to the bytes of every header line.
"""

from __future__ import annotations

import base64
import re
import smtplib
from email import policy
from email.parser import BytesParser
from email.utils import getaddresses

import pytest

A, B, E = "alice@example.org", "bob@example.org", "eve@example.org"
#: Only this one foreign address may ever be given (and then get a mail of its own).
GIVEN = "a@evil.test"
#: The headers a reply may have, and nothing else.
HEADERS = {"from", "to", "subject", "date", "message-id", "in-reply-to", "references", "auto-submitted",
           "mime-version", "content-type", "content-transfer-encoding"}
_HEADER_LINE = re.compile(rb"[A-Za-z][A-Za-z0-9-]*: ")


def q(text: str) -> str:
    """``text`` as one RFC 2047 Q encoded-word (CR and LF survive it)."""
    return "=?utf-8?q?" + "".join(
        c if c.isalnum() or c in "@.-+" else "_" if c == " " else "".join(f"={b:02X}" for b in c.encode())
        for c in text) + "?="


def b(text: str) -> str:
    return "=?utf-8?b?" + base64.b64encode(text.encode()).decode() + "?="


def raw_mail(subject: bytes, body: bytes = b"", *, sender: bytes = A.encode(), n: int = 0) -> bytes:
    return (b"From: " + sender + b"\r\nTo: pbm@pbm.test\r\nSubject: " + subject + b"\r\n"
            b"Date: Sun, 1 Mar 2026 12:00:00 +0000\r\nMessage-ID: <inject-" + str(n).encode() + b"@example.org>\r\n"
            b"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n"
            b"\r\n" + body)


@pytest.fixture
def game(players):
    """alice and bob with board 101."""
    players.send(A, "trax challenge alice bob apple")
    return players


def check_header_bytes(data: bytes) -> None:
    """Every line of the header section is a header of ours or a fold of one."""
    head = data.split(b"\r\n\r\n", 1)[0]
    assert b"\n" not in head.replace(b"\r\n", b"") and b"\r" not in head.replace(b"\r\n", b"")
    for line in head.split(b"\r\n"):
        if line[:1] in (b" ", b"\t"):
            continue
        assert _HEADER_LINE.match(line), line
        assert line.split(b":", 1)[0].decode().lower() in HEADERS, line


def check_reply(data: bytes) -> str:
    """The one recipient of a safe reply."""
    check_header_bytes(data)
    msg = BytesParser(policy=policy.default).parsebytes(data)
    assert {k.lower() for k in msg} <= HEADERS
    for name in ("Cc", "Bcc", "Resent-To", "Resent-Cc", "Resent-Bcc", "Reply-To", "Sender"):
        assert msg.get_all(name) is None, name
    assert all(msg.get_all(name) is not None and len(msg.get_all(name)) == 1 for name in ("From", "To", "Subject"))
    for name, value in msg.items():
        assert "\r" not in str(value) and "\n" not in str(value), (name, value)
    addresses = getaddresses([str(msg["To"])])
    assert len(addresses) == 1, addresses
    assert msg["Auto-Submitted"] == "auto-replied"
    for part in msg.walk():  # every part decodes
        if not part.is_multipart():
            part.get_content()
    return addresses[0][1]


def attempt(mail, raw: bytes) -> set[str]:
    """Deliver ``raw``; check every reply and every new outbox row; the recipients."""
    store = mail.pipeline.store
    before = max((row.id for row in store.unsent_replies(100_000)), default=0)
    result = mail.pipeline.handle(raw, now=mail.clock.now)
    mail.clock.advance(minutes=5)
    from_result = [check_reply(m.data) for m in result.sent]
    rows = [row for row in store.unsent_replies(100_000) if row.id > before]
    from_rows = []
    for row in rows:
        to = check_reply(bytes(row.message))
        assert row.recipient == to
        from_rows.append(to)
    assert sorted(from_result) == sorted(from_rows)
    return set(from_rows)


# -- subjects -----------------------------------------------------------------

SUBJECTS = {
    "crlf": b"trax show 101\r\nBcc: victim@evil.test",
    "bare cr": b"trax show 101\rBcc: victim@evil.test",
    "bare lf": b"trax show 101\nBcc: victim@evil.test",
    "crlf crlf body": b"trax show 101\r\n\r\nBcc: victim@evil.test",
    "q encoded": q("trax show 101\r\nBcc: victim@evil.test").encode(),
    "b encoded": b("trax show 101\r\nBcc: victim@evil.test\r\n\r\nhello").encode(),
    "q encoded tail": b"trax show 101 " + q("\r\nBcc: victim@evil.test").encode(),
    "encoded cc": q("help\r\nCc: victim@evil.test\r\nTo: victim2@evil.test").encode(),
}


@pytest.mark.parametrize("subject", SUBJECTS.values(), ids=SUBJECTS.keys())
def test_a_subject_with_line_breaks_adds_no_header(game, subject):
    assert attempt(game, raw_mail(subject)) == {A}


@pytest.mark.parametrize("tail", [b"\r\nBcc: victim@evil.test", q("\r\nBcc: victim@evil.test").encode()])
def test_a_chat_subject_with_line_breaks_reaches_only_the_players(game, tail):
    assert attempt(game, raw_mail(b"trax chat 101 alice apple" + tail, b"hello")) <= {A, B}


# -- account commands: userids, passwords, addresses --------------------------

ACCOUNT = {
    "percent-encoded crlf": "signup eve pw victim@evil.test%0d%0aBcc:x@evil.test",
    "comma": "signup eve pw a@evil.test,b@evil.test",
    "semicolon": "signup eve pw a@evil.test;b@evil.test",
    "angle brackets": "signup eve pw a@evil.test>,<b@evil.test",
    "quoted name": 'signup eve pw "a@evil.test"<b@evil.test>',
    "group syntax": "signup eve pw x:a@evil.test,b@evil.test;",
    "two brackets": "signup eve pw <a@evil.test><b@evil.test>",
    "one bracketed": "signup eve pw <a@evil.test>",
    "encoded crlf in address": "signup eve pw " + q("a@evil.test\r\nBcc: b@evil.test"),
    "encoded crlf in userid": "signup " + q("eve\r\nBcc: b@evil.test") + " pw",
    "encoded crlf in password": "signup eve " + q("pw\r\nBcc: b@evil.test"),
    "b-encoded whole line": b("signup eve pw a@evil.test\r\nBcc: b@evil.test\r\nCc: c@evil.test"),
}


@pytest.mark.parametrize("subject", ACCOUNT.values(), ids=ACCOUNT.keys())
def test_signup_cannot_smuggle_a_recipient(game, subject):
    to = attempt(game, raw_mail(subject.encode(), sender=E.encode()))
    assert E in to and to <= {E, GIVEN}


@pytest.mark.parametrize("subject", [
    "add alice apple x@evil.test,y@evil.test",
    "add alice apple x@evil.test;y@evil.test",
    "add alice apple <x@evil.test>,<y@evil.test>",
    "add alice apple " + q("x@evil.test\r\nBcc: y@evil.test"),
    "change address alice apple " + q("x@evil.test\r\nBcc: y@evil.test"),
    'change address alice apple "x@evil.test"<y@evil.test>',
    "change password alice apple " + q("new\r\nBcc: y@evil.test"),
])
def test_add_and_change_cannot_smuggle_a_recipient(game, subject):
    subject = subject.replace("x@evil.test", GIVEN)
    to = attempt(game, raw_mail(subject.encode()))
    assert A in to and to <= {A, GIVEN}
    assert not any("y@evil" in a for a in to)


# -- bodies relayed to others -------------------------------------------------

EVIL_BODY = (b"Bcc: victim@evil.test\r\nCc: victim2@evil.test\r\n\r\nTo: victim3@evil.test\r\n"
             b"\r\n\r\nSubject: free\r\n.\r\nRCPT TO:<victim4@evil.test>\r\nhello\n\rBcc: x@evil.test\r\r\n")


@pytest.mark.parametrize("subject, expected", [
    (b"trax chat 101 alice apple", {A, B}),
    (b"message alice apple bob", {A, B}),
    (b"broadcast alice apple", {A, B}),
])
def test_relayed_bodies_add_no_header_and_no_recipient(game, subject, expected):
    assert attempt(game, raw_mail(subject, EVIL_BODY)) == expected


def test_a_move_comment_adds_no_header(game):
    assert attempt(game, raw_mail(b"trax move 101 alice apple @0+", EVIL_BODY)) == {A, B}
    assert [row.move for row in game.pipeline.store.moves_of(101)] == ["@0+"]


def test_a_tournament_announcement_adds_no_header_and_no_recipient(game):
    game.send(A, "trax tournament create ETC26 alice apple")
    game.send(B, "trax tournament join ETC26 bob banana")
    assert attempt(game, raw_mail(b"trax tournament announce ETC26 alice apple", EVIL_BODY)) <= {A, B}
    assert B in attempt(game, raw_mail(b"trax tournament announce ETC26 alice apple", b"Round 1 soon.", n=1))


def test_a_lone_dot_line_is_kept_as_text_and_cannot_end_the_smtp_data(game):
    body = b"first line\r\n.\r\nMAIL FROM:<pbm@pbm.test>\r\nRCPT TO:<victim@evil.test>\r\nDATA\r\n"
    result = game.pipeline.handle(raw_mail(b"trax chat 101 alice apple", body), now=game.clock.now)
    assert {check_reply(m.data) for m in result.sent} == {A, B}
    for reply in result.sent:
        data = reply.data
        stuffed = smtplib.quotedata(data.decode("ascii"))  # what smtplib puts on the wire
        assert "\r\n.\r\n" not in stuffed
        text = BytesParser(policy=policy.default).parsebytes(data).get_body(("plain",)).get_content()
        assert "\n.\n" in text.replace("\r\n", "\n")  # relayed as written


# -- the From header ----------------------------------------------------------

FROMS = {
    "encoded display name": "=?utf-8?q?Eve=0D=0ABcc=3A_victim=40evil.test?= <eve@example.org>",
    "encoded display name, raw @": q("Eve\r\nBcc: victim@evil.test") + " <eve@example.org>",
    "b-encoded display name": b("Eve\r\nBcc: victim@evil.test\r\n") + " <eve@example.org>",
    "folded display name": "Eve\r\n Bcc: victim@evil.test <eve@example.org>",
    "quoted display name with crlf": '"Eve\r\n Bcc: victim@evil.test" <eve@example.org>',
    "comment with crlf": "eve@example.org (Eve\r\n Bcc: victim@evil.test)",
    "encoded address": "<" + q("eve@example.org\r\nBcc: victim@evil.test") + ">",
}


@pytest.mark.parametrize("sender", FROMS.values(), ids=FROMS.keys())
def test_a_from_header_with_line_breaks_adds_no_recipient(game, sender):
    """Answered to eve alone, or (two addresses read out of it) not at all."""
    assert attempt(game, raw_mail(b"help", sender=sender.encode())) <= {E}


@pytest.mark.parametrize("name", ["encoded display name", "b-encoded display name"])
def test_an_encoded_display_name_with_line_breaks_is_answered_to_the_address_alone(game, name):
    assert attempt(game, raw_mail(b"help", sender=FROMS[name].encode())) == {E}


@pytest.mark.parametrize("sender", FROMS.values(), ids=FROMS.keys())
def test_a_signup_from_such_a_sender_adds_no_recipient(game, sender):
    assert attempt(game, raw_mail(b"signup eve pw", sender=sender.encode())) <= {E}
