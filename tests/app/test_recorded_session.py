"""Every command of the language, and the mail that is no command (replies
to board mails, a digest answered, bounces, the clock work), run once
through the pipeline, and every mail the server wrote kept whole in a
golden file: headers, text and HTML parts, attachments, with only what is
random made constant (Message-IDs, tokens, codes, bounce tags, MIME
boundaries) and each picture named by its hash.  A change that alters a
single byte of any reply shows here; a change meant to alter none (a
refactoring) is checked by it."""

from __future__ import annotations

import hashlib
import itertools
import re
from datetime import timedelta

import pytest

from pbm.domain import computer, luck
from pbm.grammar import REGISTRY
from tests.ticks import tick_mails

from .conftest import Mailbox, to_of
from .replies import client_reply, delivery_report

A, B, C, D = "alice@example.org", "bob@example.org", "carol@example.org", "dave@example.org"
LOOP_GAME = ["@0+", "B1\\", "B2/", "A2+", "A3/", "A0\\", "@3+", "@3\\", "B2+"]

_RANDOM = [
    (re.compile(r"<r-\d+-[a-z2-7]{32}@"), "<r-TOKEN@"),
    (re.compile(r"\+r-\d+-[a-z2-7]{32}@"), "+r-TOKEN@"),
    (re.compile(r"[A-Z2-9]{5}-[A-Z2-9]{5}"), "CODE-CODE"),
    (re.compile(r"pbm-bounce\+\d+-[a-z2-7]{16}@"), "pbm-bounce+TAG@"),
    (re.compile(r"<\d{14}\.\d+\.[0-9a-f]{10}@pbm\.test>"), "<ID@pbm.test>"),
    (re.compile(r"<[^<>@\s]+@player\.test>"), "<SENT@player.test>"),
    (re.compile(r"<[^<>@\s]+@client\.test>"), "<SENT@client.test>"),
    (re.compile(r"<[^<>@\s]+@mx\.example\.org>"), "<SENT@mx.example.org>"),
    (re.compile(r"=+_?\d{6,}_?=+|===============\d+==|=_[0-9a-f]{20}[amr]"), "BOUNDARY"),
]
_BASE64_PNG = re.compile(r"(Content-Type: image/png;[^\n]*\n(?:[^\n]+\n)*\n)((?:[A-Za-z0-9+/=]+\n)+)")


def normalised(raw: str) -> str:
    """A mail as the golden file keeps it: random parts made constant, each
    picture's base64 replaced by the SHA-256 of its bytes."""
    text = raw.replace("\r\n", "\n")
    text = _BASE64_PNG.sub(lambda m: m.group(1) + "[png sha256 "
                           + hashlib.sha256(m.group(2).replace("\n", "").encode()).hexdigest()[:16] + "]\n", text)
    for pattern, constant in _RANDOM:
        text = pattern.sub(constant, text)
    return text


class Recorder:
    """Sends as the players do and keeps, for each mail sent, what came back."""

    def __init__(self, mail: Mailbox) -> None:
        self.mail = mail
        self.log: list[str] = []
        self.commands: set[str] = set()

    def record(self, what: str, replies: list) -> list:
        self.log.append(f"######## {normalised(what)}\n")
        for r in replies:
            self.log.append(f"---- to {to_of(r)}\n{normalised(r.as_string())}\n")
        return replies

    def send(self, sender: str, subject: str, body: str = "", **kw) -> list:
        replies = self.mail.send(sender, subject, body, **kw)
        result = self.mail.result
        assert result is not None
        self.commands.update(name for name, _ in result.commands)
        return self.record(f"{sender}: {subject}" + (f" [{body!r}]" if body else ""), replies)

    def deliver(self, what: str, raw: bytes) -> list:
        return self.record(what, self.mail.deliver(raw))

    def tick(self, what: str, **advance) -> list:
        self.mail.clock.advance(**advance)
        return self.record(what, [self.mail.received(m) for m in tick_mails(self.mail.pipeline, self.mail.clock.now)])


def session(r: Recorder) -> None:
    # accounts
    r.send(A, "help")
    r.send(A, "help commands move tutorial")
    r.send(A, "signup alice apple")
    r.send(B, "signup bob banana")
    r.send(C, "signup carol cherry", verified=False)  # the confirmation round
    welcome = r.mail.sent[-1]
    r.deliver("carol presses Reply on her welcome", client_reply(welcome, C, "yes", when=r.mail.clock.now))
    r.send(D, "signup dave date")
    r.send(A, "add alice apple alice@home.example.net")
    code = re.search(r"confirm address ([A-Z2-9-]+)", str(r.mail.sent[-1]["Subject"]))
    assert code
    r.send("alice@home.example.net", f"confirm address {code.group(1)}")
    r.send(D, "change address dave date dave@example.org")
    r.send(D, "change password dave date date2")
    r.send(A, "set alice apple")
    r.send(A, "set alice apple pictures off")
    r.send(A, "set alice apple pictures on")
    r.send(B, "set bob banana challenges open")
    r.send(C, "list")
    r.send(A, "message alice apple bob carol", "Hello both!")
    r.send(A, "broadcast alice apple", "A tournament next week.")
    r.send(A, "password reset alice")
    r.send(C, "vacation carol cherry 2")
    r.send(C, "vacation carol cherry off")
    # games
    r.send(A, "trax challenge alice bob apple --nagtime=2 --forfeittime=5")  # 101
    r.send(C, "trax challenge carol dave")  # an invitation
    r.send(C, "trax challenge carol dave cherry -unrated")  # 102, waits for dave
    r.send(C, "trax subscribe 101 carol cherry")
    r.send(D, "trax notify dave date2 101")
    for n, move in enumerate(LOOP_GAME[:4], start=1):
        who, password, address = ("alice", "apple", A) if n % 2 else ("bob", "banana", B)
        r.send(address, f"trax move 101 {who} {password} {move}#{n}", "a comment" if n == 2 else "")
    r.send(A, "trax submit 101 alice apple A3/")
    r.send(A, "trax confirm 101 alice apple")
    r.send(B, "trax queue 101 bob banana A0\\ @3+ @3\\")
    r.send(A, "trax move 101 alice apple @3+#7")
    r.send(C, "trax chat 101 carol cherry", "Well played so far.")
    r.send(A, "trax show 101")
    r.send(A, "trax show 101#3 alice")
    r.send(B, "trax showas bob banana")
    r.send(C, "all show alice")
    r.send(C, "trax games alice")
    r.send(C, "trax preview 101 B2+")
    r.send(C, "trax preview new @0+ B1\\")
    r.send(B, "trax move 101 bob banana propose")
    r.send(A, "trax move 101 alice apple reject")
    r.send(B, "trax move 101 bob banana undo")
    r.send(A, "trax move 101 alice apple accept")
    r.send(B, "trax move 101 bob banana @3\\")
    board = next(m for m in reversed(r.mail.sent) if to_of(m) == A and "Board 101" in str(m["Subject"]))
    r.deliver("alice moves by pressing Reply", client_reply(board, A, "B2+", when=r.mail.clock.now))
    r.send(C, "trax record 101")
    r.send(D, "trax move 102 dave date2 accept")
    r.send(C, "trax move 102 carol cherry @0/")
    r.send(D, "trax resign 102 dave date2")
    r.send(D, "trax analyze 102")  # queued: its mail comes from the workers (a CPU-timed search), not here
    r.send(C, "trax standings")
    r.send(C, "trax history")
    r.send(A, "trax limit alice apple 10")
    r.send(A, "trax seek alice apple 2")
    r.send(B, "trax reject bob banana")
    r.send(B, "trax accept bob banana")
    r.send(C, "trax unsubscribe 101 carol cherry")
    # LuckyTrax and PointTrax, each a few turns
    r.send(A, "luckytrax challenge alice bob apple")  # 103
    r.send(A, "pointtrax challenge alice bob apple -points=5")  # 104
    r.send(A, "pointtrax move 104 alice apple @0+#1")
    # the computer
    computer.ensure_account(r.mail.pipeline.store, r.mail.pipeline.config, r.mail.clock.now)
    r.send(C, "minitrax challenge carol computer cherry -level=1")  # 105
    r.send(C, "minitrax chat 105 carol cherry", "Hello, machine.")
    r.send(C, "minitrax hint 105 carol cherry")
    # a digest, a bounce and the clock work
    r.send(B, "set bob banana digest daily 18")
    r.send(A, "trax challenge alice bob apple")  # 106
    played = r.send(A, "trax move 106 alice apple @0/")
    r.mail.clock.now = r.mail.clock.now.replace(hour=18, minute=0) + timedelta(days=1)
    digest = r.tick("the clock work at bob's digest hour")
    answered = next(m for m in digest if "digest" in str(m["Subject"]))
    r.deliver("bob answers his digest", client_reply(answered, B, "106 B1+", when=r.mail.clock.now))
    to_bob = next(m for m in reversed(r.mail.sent) if to_of(m) == B and "Board" in str(m["Subject"]))
    (probe,) = r.deliver("a report that bob's mail bounced", delivery_report(to_bob, when=r.mail.clock.now))
    r.deliver("the probe bounces too", delivery_report(probe, when=r.mail.clock.now))
    r.tick("a week on", days=8)
    r.tick("three weeks on", days=21)
    assert played
    # tournaments
    r.send(C, "trax tournament create Spring carol cherry -format=roundrobin")
    for who, password, address in (("alice", "apple", A), ("bob", "banana", B), ("carol", "cherry", C)):
        r.send(address, f"trax tournament join Spring {who} {password}")
    r.send(C, "trax tournament add Spring carol cherry dave")
    r.send(D, "trax tournament leave Spring dave date2")
    r.send(C, "trax tournament list")
    r.send(C, "trax tournament start Spring carol cherry")
    r.send(C, "trax tournament show Spring")
    r.send(C, "trax tournament announce Spring carol cherry", "Good luck, everyone.")
    r.send(C, "trax tournament result Spring-1 carol cherry alice")
    r.send(C, "trax tournament pair Spring carol cherry")
    r.send(C, "trax tournament withdraw Spring carol cherry bob")
    # errors, and leaving
    r.send(A, "trax move 101 alice wrong C3/")
    r.send(A, "trax moev 101")
    r.send(A, "no command at all here")
    r.send(D, "signoff dave date2")
    r.send(D, "delete dave date2")


@pytest.fixture
def fixed_draws(monkeypatch):
    """LuckyTrax draws in a fixed order, so the session is the same each run."""
    faces = itertools.cycle(luck.FACES)
    monkeypatch.setattr(luck, "draw_face", lambda: next(faces))


def test_every_reply_of_a_session_of_every_command_is_as_recorded(players: Mailbox, golden, fixed_draws):
    players.sent.clear()
    recorder = Recorder(players)
    session(recorder)
    assert set(REGISTRY) <= recorder.commands, sorted(set(REGISTRY) - recorder.commands)
    golden.check("recorded-session.txt", "".join(recorder.log))
