"""Reading one mail costs work in proportion to its size, whatever it holds.

Not timings: each test compares the cost *per byte* of an input with that of
an input ten times as long, measured the same way in the same run (the
better of several tries, the small input repeated so both take about as
long).  Linear work gives a ratio near 1; work that grows with the square
of the size gives about 10.  The bound, 4, leaves room for a noisy machine.
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage

import pytest

from pbm.app.pipeline import Pipeline
from pbm.app.reading import body_text, html_to_text
from pbm.domain.store import Store
from pbm.grammar import parse_mail_commands

from . import conftest as app_conftest
from .conftest import server_config, text_of

SMALL = 20_000
LIMIT = 4.0

#: Bodies that cost the old regular expression the square of their length, and a few ordinary ones.
HTML = {
    "unterminated <": "<",
    "unterminated <script": "<script",
    "unterminated <style": "<style",
    "script tags never closed": "<script>",
    "closed script tags": "<script>x</script>",
    "broken tags": "<scr<scr<",
    "ordinary markup": "<p>trax show 101<br>thanks &amp; bye</p>",
    "lines as divs": "<div>A0+</div><div>On Monday bob wrote:</div>",
    "nested quotes": "<blockquote><div>quoted<br>text</div>",
    "closed quotes": "<blockquote>q</blockquote><p>x</p>",
    "block tags alone": "<div><li></tr><hr/>",
}

#: Bodies for the command reader.
TEXT = {
    "command lines": "trax show 101\n",
    "quoted lines": "> trax move 101 alice apple @0+\n",
    "one long line": "x",
    "blank lines": "\n",
}


def per_byte(work: Callable[[str], object], text: str, times: int) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(times):
            work(text)
        best = min(best, time.process_time() - start)
    return best / (times * len(text))


def ratio(work: Callable[[str], object], unit: str) -> float:
    small = unit * (SMALL // len(unit))
    big = unit * (10 * SMALL // len(unit))
    return per_byte(work, big, 1) / per_byte(work, small, 10)


@pytest.mark.parametrize("unit", HTML.values(), ids=HTML.keys())
def test_html_is_made_text_in_linear_time(unit):
    assert ratio(html_to_text, unit) < LIMIT


@pytest.mark.parametrize("unit", TEXT.values(), ids=TEXT.keys())
def test_commands_are_read_from_a_body_in_linear_time(unit):
    assert ratio(lambda body: parse_mail_commands("multiple", body), unit) < LIMIT


def html_mail(body: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "eve@example.org"
    msg["To"] = "pbm@pbm.test"
    msg["Subject"] = "hello"
    msg.set_content(body, subtype="html")
    return msg


@pytest.mark.parametrize("unit", ["<script", "<", "<p>trax show 101</p>", "<blockquote><div>x</div>"],
                         ids=["<script", "<", "markup", "quotes"])
def test_a_whole_html_mail_is_read_in_linear_time(unit):
    assert ratio(lambda body: body_text(html_mail(body)), unit) < LIMIT


def test_the_pipeline_handles_a_hostile_html_mail_in_linear_time(tmp_path):
    config = server_config(tmp_path, "replies_per_sender_per_day = 100000")
    store = Store(config.server.database)
    pipeline = Pipeline(store, config)
    now = datetime(2026, 3, 1, tzinfo=UTC)
    sent = 0

    def handle(body: str) -> None:
        nonlocal sent, now
        sent += 1
        now += timedelta(seconds=1)
        msg = html_mail(body)
        msg["Message-ID"] = f"<hostile-{sent}@example.org>"
        result = pipeline.handle(bytes(msg), now=now)
        assert result.status == "handled" and len(result.replies) == 1

    try:
        assert ratio(handle, "<script") < LIMIT
    finally:
        store.close()


def test_only_the_first_part_of_a_long_body_is_read():
    body = "trax show 101\n" * 20_000  # 280,000 characters
    msg = EmailMessage()
    msg.set_content(body)
    text = body_text(msg)
    assert len(text) < len(body) and body.startswith(text)


# --- block elements end lines (issue 28) ------------------------------------------------------------

@pytest.mark.parametrize(
    "source, text",
    [
        ("<div>A0+</div><div>On Monday bob wrote:</div>", "A0+\nOn Monday bob wrote:\n"),
        ('<div dir="ltr">A0+<div><br></div><div>Good luck</div></div>', "A0+\n\nGood luck\n"),
        ("<p>trax show 101<br>thanks &amp; bye</p>", "trax show 101\nthanks & bye\n"),
        ("<ul><li>one<li>two</ul>after<hr/>rule<H2 class=x>title</H2>end", "one\ntwo\nafter\nrule\ntitle\nend"),
        ("<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>", "ab\nc\n"),
        ("<section><article><header>h</header><p>p</p><footer>f</footer></article></section>", "h\np\nf\n"),
        ("<pre>trax show 101\ntrax show 102</pre>", "trax show 101\ntrax show 102\n"),
        ("<ol><li>x</li></ol>< / div>y</ DIV>z", "x\ny\nz"),
        ("a<span>b</span>c<b>d</b>", "abcd"),  # inline elements join
        ("<div>A0+</div><blockquote><div>Trax board 101</div>two<br>lines<blockquote>deeper</blockquote></blockquote>x",
         "A0+\n> Trax board 101\n> two\n> lines\n>> deeper\nx"),
        ("</blockquote></blockquote>not quoted", "not quoted"),  # closing tags never make the depth negative
    ],
)
def test_block_elements_end_a_line(source, text):
    assert html_to_text(source) == text


def test_a_deep_quote_is_marked_to_a_bounded_depth():
    text = html_to_text("<blockquote>" * 1000 + "x")
    assert text == ">" * 16 + " x"


def test_a_reply_by_an_html_only_mail_client_plays_the_move(players):
    """A mail program that writes HTML alone, a <div> a line and the quote
    in a <blockquote>: the first line is the move, and the quote is no
    comment."""
    mail = players
    new = mail.send("alice@example.org", "trax challenge alice bob apple")
    (board,) = [m for m in new if str(m["To"]) == "alice@example.org"]
    quoted = "".join(f"<div>{html.escape(line)}</div>" for line in text_of(board).splitlines())
    reply = EmailMessage()
    vouch = getattr(app_conftest, "vouched", None)  # the server may trust its mail server's DMARC check
    if vouch is not None:
        reply["Authentication-Results"] = vouch("alice@example.org")
    reply["From"] = "alice@example.org"
    reply["To"] = "pbm@pbm.test"
    reply["Subject"] = f"Re: {board['Subject']}"
    reply["Message-ID"] = "<html-only-reply@client.test>"
    reply["In-Reply-To"] = reply["References"] = str(board["Message-ID"])
    reply.set_content(f'<html><body><div dir="ltr">@0+</div><div>Good luck!</div><div><br></div>'
                      f'<div class="quote"><div>On Sun, 1 Mar 2026 at 12:00, Trax PBM wrote:</div>'
                      f"<blockquote>{quoted}</blockquote></div></body></html>", subtype="html")
    replies = mail.deliver(bytes(reply))
    assert mail.pipeline.store.board(101).moves.split() == ["@0+"], [text_of(r) for r in replies]
    (to_bob,) = [m for m in replies if str(m["To"]) == "bob@example.org"]
    comment = text_of(to_bob).split("alice writes:\n")[1].split("\n\n")[0]
    assert comment.split("\n")[1:-1] == ["Good luck!"]  # between the rules of stars: no quote, no attribution
