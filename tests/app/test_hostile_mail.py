"""Broken and hostile mail through the real pipeline: each is handled (never
a crash, so never stored as failed), and answered once."""

from __future__ import annotations

from .conftest import Mailbox, flat


def raw_mail(content_type: str, body: bytes, subject: bytes = b"help", mid: str = "hostile") -> bytes:
    return (b"From: eve@example.org\r\nTo: pbm@pbm.test\r\nSubject: " + subject + b"\r\n"
            + f"Message-ID: <{mid}@example.org>\r\nMIME-Version: 1.0\r\nContent-Type: {content_type}\r\n\r\n".encode()
            + body)


def nested(depth: int, inner: bytes) -> bytes:
    opened = b"".join(f'--b{i}\r\nContent-Type: multipart/mixed; boundary="b{i + 1}"\r\n\r\n'.encode()
                      for i in range(depth))
    closed = b"".join(f"--b{i}--\r\n".encode() for i in reversed(range(depth + 1)))
    return opened + f"--b{depth}\r\nContent-Type: text/plain\r\n\r\n".encode() + inner + b"\r\n" + closed


def test_mime_nested_a_thousand_deep_is_read_from_its_subject(mail: Mailbox):
    replies = mail.deliver(raw_mail('multipart/mixed; boundary="b0"', nested(1000, b"trax show 101")))
    assert mail.result.status == "handled"
    assert [r["Subject"] for r in replies] == ["Trax PBM help"]


def test_mime_nested_deeper_than_the_reader_looks_gives_no_body_commands(mail: Mailbox):
    replies = mail.deliver(raw_mail('multipart/mixed; boundary="b0"', nested(40, b"signup eve pw"), subject=b""))
    assert [r["Subject"] for r in replies] == ["Trax error"]
    assert "found none" in flat(replies[0])
    assert mail.pipeline.store.find_user("eve") is None


def test_a_shallow_nested_body_is_still_read(mail: Mailbox):
    mail.deliver(raw_mail('multipart/mixed; boundary="b0"', nested(3, b"signup eve pw"), subject=b""))
    assert mail.pipeline.store.find_user("eve") is not None


def test_charsets_that_cannot_decode_a_body_are_read_as_utf8(mail: Mailbox):
    for n, charset in enumerate(["idna", "punycode", "utf-7", "x-nobody-knows"]):
        replies = mail.deliver(raw_mail(f"text/plain; charset={charset}", b"hello \xff\xfe", mid=f"cs{n}"))
        assert mail.result.status == "handled", charset
        assert [r["Subject"] for r in replies] == ["Trax PBM help"], charset
