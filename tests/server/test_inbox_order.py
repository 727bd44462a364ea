"""The IMAP intake never handles mail out of order when a FETCH answer
lacks a message (pure logic; the real Dovecot tests are in tests/mail)."""

import asyncio
import logging

from pbm.config import ImapConfig, Secret
from pbm.server.inbox import Inbox


def inbox() -> Inbox:
    config = ImapConfig(host="127.0.0.1", port=143, username="u", password=Secret("p"))
    return Inbox(config, handle=None, stop=asyncio.Event())  # type: ignore[arg-type]


def fetched(*uids: int) -> list[tuple[int, bytes]]:
    return [(u, b"mail %d" % u) for u in uids]


def test_a_missing_message_holds_back_what_follows_it(caplog):
    box = inbox()
    with caplog.at_level(logging.WARNING, logger="pbm.inbox"):
        assert box._keep_order([1, 2, 3, 4, 5], fetched(1, 2, 4, 5)) == 2
    assert "UID 3 did not come back" in caplog.text
    assert box._keep_order([3, 4, 5], fetched(4, 5)) == 0  # still missing: nothing after it yet
    # the third time it is given up, and the rest goes on
    assert box._keep_order([3, 4, 5], fetched(4, 5)) is None


def test_a_message_that_comes_back_is_forgotten():
    box = inbox()
    assert box._keep_order([7, 8], fetched(8)) == 0
    assert box._keep_order([7, 8], fetched(7, 8)) is None
    assert box._missing == {}
    assert box._keep_order([9], fetched(9)) is None
