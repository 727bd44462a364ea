"""The message writer: what a mail client parses back is what was written."""

from __future__ import annotations

import base64
from email import policy
from email.parser import BytesParser

from hypothesis import given, settings
from hypothesis import strategies as st

from pbm.app.messages import Attachment, Content, Head, content_bytes, copy_bytes

HEAD = Head(("Trax server", "pbm@pbm.test"), "alice@example.org", "Trax Board 101 alice",
            "Fri, 27 Nov 2026 07:00:00 +0000", "<r-abc@pbm.test>", in_reply_to="<x@client.test>",
            reply_to="pbm+r-abc@pbm.test")
PNG = base64.encodebytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 3).decode("ascii")

texts = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\x00"), max_size=400).map(
    lambda t: t + "\n")


def read(data: bytes):
    return BytesParser(policy=policy.default).parsebytes(data)


def same_text(got: str, wanted: str) -> bool:
    return got.replace("\r\n", "\n") == wanted


@settings(max_examples=200, deadline=None)
@given(body=texts, html=texts, files=st.lists(st.tuples(st.sampled_from(["trax-101.txt", "game.txt"]), texts),
                                              max_size=2),
       pictured=st.booleans())
def test_every_part_reads_back_as_written(body, html, files, pictured):
    related = [Attachment("image/png", PNG, "board-3-abc@pbm.test", "trax-board-3-abc.png")] if pictured else []
    msg = read(copy_bytes(HEAD, content_bytes(Content(body, html, related, files))))
    assert not msg.defects
    assert same_text(msg.get_body(("plain",)).get_content(), body)
    assert same_text(msg.get_body(("html",)).get_content(), html)
    images = [p for p in msg.walk() if p.get_content_type() == "image/png"]
    assert [p.get_content() for p in images] == ([base64.decodebytes(PNG.encode())] if pictured else [])
    if pictured:
        assert images[0]["Content-ID"] == "<board-3-abc@pbm.test>"
    attached = [(p.get_filename(), p.get_content()) for p in msg.iter_attachments() if p.get_filename()]
    assert [(n, t.replace("\r\n", "\n")) for n, t in attached] == [(n, t) for n, t in files]


@settings(max_examples=200, deadline=None)
@given(body=texts)
def test_a_text_alone_is_one_part_and_every_line_fits_the_wire(body):
    data = copy_bytes(HEAD, content_bytes(Content(body)))
    msg = read(data)
    assert not msg.is_multipart() and same_text(msg.get_content(), body)
    assert all(len(line) <= 998 for line in data.split(b"\r\n"))
    assert b"\n" not in data.replace(b"\r\n", b"")  # CRLF only


def test_the_headers_of_a_copy_and_its_content_in_plain_ascii():
    data = copy_bytes(HEAD, content_bytes(Content("first line\n.\nlast line\n")))
    assert data.decode("ascii") == (
        'From: Trax server <pbm@pbm.test>\r\nTo: alice@example.org\r\nSubject: Trax Board 101 alice\r\n'
        "Date: Fri, 27 Nov 2026 07:00:00 +0000\r\nMessage-ID: <r-abc@pbm.test>\r\nIn-Reply-To: <x@client.test>\r\n"
        "References: <x@client.test>\r\nReply-To: pbm+r-abc@pbm.test\r\nAuto-Submitted: auto-replied\r\n"
        'MIME-Version: 1.0\r\nContent-Type: text/plain; charset="us-ascii"\r\nContent-Transfer-Encoding: 7bit\r\n'
        "\r\nfirst line\r\n.\r\nlast line\r\n")


def test_a_japanese_text_goes_in_base64_and_a_german_one_quoted_printable():
    japanese = read(copy_bytes(HEAD, content_bytes(Content("盤面 101 のあなたの手番です。\n" * 5))))
    german = read(copy_bytes(HEAD, content_bytes(Content("Du bist am Zug auf Brett 101. Schöne Grüße!\n"))))
    assert japanese["Content-Transfer-Encoding"] == "base64"
    assert german["Content-Transfer-Encoding"] == "quoted-printable"


def test_a_long_or_foreign_subject_is_folded_and_encoded_not_cut():
    head = Head(("Trax server", "pbm@pbm.test"), "bob@example.org", "Trax Board 101 jürgen " + "x" * 90, "now",
                "<m@pbm.test>")
    msg = read(copy_bytes(head, content_bytes(Content("hi\n"))))
    assert str(msg["Subject"]) == "Trax Board 101 jürgen " + "x" * 90
    assert all(len(line) <= 78 for line in copy_bytes(head, b"").split(b"\r\n"))


def test_a_line_break_in_a_header_value_is_refused():
    head = Head(("Trax server", "pbm@pbm.test"), "bob@example.org\r\nBcc: victim@evil.test", "s", "now", "<m@pbm.test>")
    try:
        copy_bytes(head, b"")
    except ValueError:
        return
    raise AssertionError("a header with a line break was written")


def test_each_content_has_boundaries_of_its_own():
    one, two = (content_bytes(Content("a\n", "<p>a</p>\n")) for _ in range(2))
    assert one.split(b"\r\n")[0] != two.split(b"\r\n")[0]
