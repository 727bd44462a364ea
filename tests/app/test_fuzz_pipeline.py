"""Hostile and broken mail against the whole pipeline (issue 7): built mails
with fuzzed subjects and bodies, and arbitrary bytes.  ``Pipeline.handle``
never raises, always returns a Result, and whatever it queues is a safe reply:
one recipient (the sender or a registered player), no Cc/Bcc, no line break
in a header, ``Auto-Submitted: auto-replied``.  A mail is handled once (the
same bytes again are a duplicate with no reply), and a mail in which no
command could be read changes nothing of the games and accounts and gets
exactly one reply, to its sender.

One pipeline (a real SQLite file with alice, bob and board 101) serves every
example of a test: hypothesis does not mix with function-scoped fixtures, and
signing players up once keeps the budget small.  The clock moves a day per
example so that no per-day cap of the server is reached.
"""

from __future__ import annotations

import base64
import itertools
from datetime import UTC, datetime, timedelta
from email import policy
from email.header import decode_header, make_header
from email.message import Message
from email.parser import BytesParser
from email.policy import compat32
from email.utils import getaddresses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm.app.pipeline import Pipeline, Result
from pbm.app.reading import body_text as read_body
from pbm.app.reading import header_text
from pbm.config import load_config
from pbm.domain.store import Store
from pbm.grammar import CommandError, decode_subject, parse_mail_commands

from ..grammar.test_hostile_text import body_text, subject_text

FUZZ = settings(
    max_examples=200, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

CORPUS = Path(__file__).resolve().parents[1] / "data" / "messages"
SMALL = sorted(p.name for p in CORPUS.glob("*.eml") if p.stat().st_size < 3000)


def recipient(reply: Message) -> str:
    """The To of a reply as written, decoded (a sender with non-ASCII is encoded)."""
    return str(make_header(decode_header(str(reply["To"]))))


class Server:
    def __init__(self, folder: Path) -> None:
        path = folder / "pbm.toml"
        path.write_text('[server]\naddress = "pbm@pbm.test"\nname = "Trax PBM"\ndatabase = "pbm.sqlite3"\n')
        self.config = load_config(path)
        self.store = Store(self.config.server.database)
        self.pipeline = Pipeline(self.store, self.config)
        self.now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
        self.ids = itertools.count(1)
        for sender, subject in [("alice@example.org", "signup alice apple"), ("bob@example.org", "signup bob banana"),
                                ("alice@example.org", "trax challenge alice bob apple")]:
            self.pipeline.exec_command(sender, subject, now=self.now)

    def unique(self, raw: bytes) -> bytes:
        """``raw`` with a Message-ID of its own first, so that hypothesis
        replaying an example (shrinking) does not meet a duplicate."""
        return f"Message-ID: <fuzz-{next(self.ids)}@example.org>\r\n".encode() + raw

    def handle(self, raw: bytes) -> Result:
        self.now += timedelta(days=1)
        before = self.state()
        result = self.pipeline.handle(raw, now=self.now)
        assert isinstance(result, Result)
        assert result.status in ("handled", "dropped", "duplicate")
        self.check_replies(result)
        if result.status == "handled" and self.reads_no_command(raw):
            assert self.state() == before
            assert [recipient(m) for m in result.replies] == [result.sender]
        if result.status == "dropped":
            assert result.replies == [] and self.state() == before
        again = self.pipeline.handle(raw, now=self.now)
        assert again.status == "duplicate" and again.replies == []
        return result

    def state(self) -> tuple[object, ...]:
        """What a mail could change of the games and accounts."""
        store = self.store
        users = [(u.id, u.signed_off, u.password_hash, tuple(store.login_failures_of(u.id)),
                  tuple(store.addresses_of(u.id))) for u in store.all_users()]
        boards = [(b.number, b.moves, b.status, b.pending_kind) for b in store.boards_of_game("trax")]
        return tuple(users), tuple(boards), store.stats()["tournaments_running"]

    def reads_no_command(self, raw: bytes) -> bool:
        """Is every command line of the mail one the grammar refuses?"""
        msg = BytesParser(policy=compat32).parsebytes(raw)
        commands = parse_mail_commands(decode_subject(header_text(msg, "Subject")), read_body(msg),
                                       max_commands=self.config.limits.max_command_lines)
        return all(isinstance(item, CommandError) for item in commands)

    def registered(self) -> set[str]:
        return {a.lower() for u in self.store.all_users() for a in self.store.addresses_of(u.id)}

    def check_replies(self, result: Result) -> None:
        allowed = self.registered() | {(result.sender or "").lower()}
        for copy in result.sent:
            data, reply = copy.data, copy.message
            for name, value in reply.items():
                assert "\r" not in str(value) and "\n" not in str(value), name
            msg = BytesParser(policy=policy.default).parsebytes(data)
            assert msg["Auto-Submitted"] == "auto-replied"
            assert msg.get_all("Cc") is None and msg.get_all("Bcc") is None
            (to,) = msg.get_all("To")
            (address,) = [a for _, a in getaddresses([str(to)])]
            assert address.lower() in allowed
            for part in msg.walk():  # every part decodes
                if not part.is_multipart():
                    part.get_content()

    def mail(self, subject: bytes, body: bytes, *, sender: str = "alice@example.org", extra: bytes = b"",
             cte: str = "8bit") -> bytes:
        head = (f"From: {sender}\r\nTo: pbm@pbm.test\r\nMessage-ID: <fuzz-{next(self.ids)}@example.org>\r\n"
                f"Date: Sun, 1 Mar 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\n"
                f"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: {cte}\r\n").encode()
        return head + b"Subject: " + subject + b"\r\n" + extra + b"\r\n" + body


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("fuzz-pipeline"))
    yield s
    s.store.close()


def encode_subject(text: str, how: str) -> bytes:
    if how == "raw":
        return text.encode("utf-8", "surrogatepass")
    if how == "b":
        return b"=?utf-8?b?" + base64.b64encode(text.encode("utf-8", "surrogatepass")) + b"?="
    return text.encode("ascii", "backslashreplace")


def encode_body(text: str, cte: str) -> bytes:
    data = text.encode("utf-8", "surrogatepass")
    if cte == "base64":
        return base64.encodebytes(data)
    return data


@FUZZ
@given(subject_text, body_text, st.sampled_from(["raw", "b", "ascii"]), st.sampled_from(["8bit", "base64"]),
       st.sampled_from(["alice@example.org", "bob@example.org", "Eve <eve@example.org>", "stranger@example.net"]))
def test_built_mails_with_fuzzed_subjects_and_bodies(server, subject, body, how, cte, sender):
    result = server.handle(server.mail(encode_subject(subject, how), encode_body(body, cte), sender=sender, cte=cte))
    assert result.status in ("handled", "dropped")


@FUZZ
@given(st.binary(max_size=3000))
def test_arbitrary_bytes(server, raw):
    result = server.handle(raw)
    # bytes with no usable From are dropped unanswered; anything else is answered
    assert (result.status == "dropped") == (result.sender is None or result.reason != "")


@FUZZ
@given(st.binary(max_size=400), st.binary(max_size=2000))
def test_arbitrary_header_and_body_bytes_after_a_real_from(server, header, body):
    result = server.handle(server.unique(b"From: alice@example.org\r\nSubject: " + header + b"\r\n\r\n" + body))
    assert result.sender == "alice@example.org" and result.status == "handled" and result.replies


@FUZZ
@given(st.sampled_from(SMALL), st.lists(st.tuples(st.integers(0, 3000), st.integers(0, 40), st.binary(max_size=40)),
                                        min_size=1, max_size=6))
def test_corpus_messages_with_bytes_cut_and_inserted(server, name, edits):
    raw = bytearray((CORPUS / name).read_bytes())
    for at, cut, insert in edits:
        at %= len(raw) + 1
        raw[at:at + cut] = insert
    result = server.handle(server.unique(bytes(raw)))
    assert result.status in ("handled", "dropped")  # each example has a Message-ID of its own


@pytest.mark.parametrize("sender", [
    b"@pbm.test",  # found by the test above: "From: frank@e\x1as\x9a...m@pbm.test" was read as @pbm.test
    b"frank@e\x1as\x9a\xc2\x0b\x85m@pbm.test",
    b"x@@example.org",
    b"a b@example.org",
    b"alice@example.org\x00bob@example.org",
    b"alice@exam\x7fple.org",
])
def test_a_from_that_is_no_usable_address_gets_no_reply(server, sender):
    raw = server.mail(b"help", b"", sender="x@example.org").replace(b"From: x@example.org", b"From: " + sender)
    result = server.handle(raw)
    assert result.status == "dropped" and result.reason == "no usable From address"
    assert result.replies == []
