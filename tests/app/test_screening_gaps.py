"""Automatic mail that once got a reply or had its commands run: each is now
recorded and answered with nothing.  And a reply never names a Message-ID
that is not one."""

from __future__ import annotations

import pytest

from .conftest import Mailbox


def raw(headers: str, body: str = "trax show 101\r\n", subject: str = "help") -> bytes:
    return (f"From: someone@example.org\r\nTo: pbm@pbm.test\r\nSubject: {subject}\r\n{headers}"
            f"\r\n{body}").encode()


FORWARDED_BOUNCE = (
    'Message-ID: <fwd-bounce@example.org>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n',
    "--b\r\nContent-Type: text/plain\r\n\r\nsee below\r\n--b\r\nContent-Type: message/delivery-status\r\n\r\n"
    "Reporting-MTA: dns; mx.example.org\r\n\r\nFinal-Recipient: rfc822; x@example.org\r\nAction: failed\r\n"
    "--b--\r\n",
)

CASES = {
    "Precedence: auto_reply": ("Message-ID: <p@example.org>\r\nPrecedence: auto_reply\r\n", "automatic mail"),
    "X-Auto-Response-Suppress": ("Message-ID: <x@example.org>\r\nX-Auto-Response-Suppress: All\r\n", "automatic"),
    "X-Loop naming us": ("Message-ID: <l@example.org>\r\nX-Loop: pbm@pbm.test\r\n", "a loop"),
    "a bounce forwarded in multipart/mixed": (FORWARDED_BOUNCE[0], "delivery status"),
    "a plain-text bounce from Mail Delivery Subsystem": (
        "Message-ID: <m@example.org>\r\n", "delivery status"),
    "an Out of Office reply without headers": ("Message-ID: <o@example.org>\r\n", "automatic reply"),
}


@pytest.mark.parametrize("case", CASES)
def test_automatic_mail_gets_no_reply(players: Mailbox, case):
    headers, reason = CASES[case]
    body = FORWARDED_BOUNCE[1] if "forwarded" in case else "trax show 101\r\n"
    mail = raw(headers, body)
    if "Mail Delivery" in case:
        mail = mail.replace(b"From: someone@example.org", b"From: Mail Delivery Subsystem <bounces@example.org>")
    if "Out of Office" in case:
        mail = mail.replace(b"Subject: help", b"Subject: Out of Office: back on Monday")
    replies = players.deliver(mail)
    assert replies == [] and players.result.status == "dropped"
    assert reason in players.result.reason


def test_our_own_address_with_a_tag_is_our_own(players: Mailbox):
    replies = players.deliver(raw("Message-ID: <own@example.org>\r\n").replace(
        b"From: someone@example.org", b"From: Trax PBM <pbm+101@pbm.test>"))
    assert replies == [] and players.result.reason == "mail from our own address"


@pytest.mark.parametrize("mid", ["<a\x00b@example.org>", "<=?utf-8?q?x?=@example.org>", "<no-at-sign>",
                                 "<a b@example.org>"], ids=["NUL", "encoded word", "no @", "blank"])
def test_a_reply_never_names_a_message_id_that_is_not_one(players: Mailbox, mid):
    replies = players.deliver(raw(f"Message-ID: {mid}\r\n", ""))
    assert len(replies) == 1
    assert replies[0]["In-Reply-To"] is None and replies[0]["References"] is None


def test_a_good_message_id_is_named(players: Mailbox):
    replies = players.deliver(raw("Message-ID: <good.1@example.org>\r\n", ""))
    assert replies[0]["In-Reply-To"] == "<good.1@example.org>"
