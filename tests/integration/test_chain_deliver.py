"""The second way in (README Route 2): the server's Postfix pipes each mail
to ``pbm deliver`` (as an unprivileged user, one recipient per process),
``pbm serve`` only sends the replies; the same DKIM and DMARC verdicts,
the same bounces by VERP."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from .conftest import command, query, send, wait_inbox, wait_until
from .rig import Rig

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def piped() -> Iterator[Rig]:
    with Rig(delivery="pipe") as chain:
        yield chain


def test_a_signed_signup_piped_to_pbm_deliver_binds_and_is_answered(piped):
    alice = piped.add_player("alice")
    piped.reload_provider()
    send(piped, command(alice, "signup alice apple"))
    (welcome,) = wait_inbox(piped, alice, 1, what="welcome")
    assert "Press Reply and send this mail back" not in welcome.get_body(("plain",)).get_content()
    assert query(piped, "SELECT confirmed FROM addresses WHERE address = ?", (alice,)) == 1
    wait_until(lambda: re.search(r"to=<pbm@server\.test>, relay=pbm, .*status=sent \(delivered via pbm service "
                                 r"\(pbm deliver: <[^>]+>: handled; 1 reply queued\)\)", piped.server.log()),
               what="the signup piped to pbm deliver", rig=piped)


def test_a_real_bounce_piped_to_pbm_deliver_asks_for_a_probe(piped):
    """The bounce of the welcome to a mailbox the provider does not have
    reaches pbm deliver with an empty sender at the tagged address."""
    ghost = piped.add_player("ghost")  # Dovecot user only: the provider's table lacks it until a reload
    piped.remove_player("ghost")
    piped.reload_provider()
    send(piped, command(ghost, "signup ghost gooseberry"))
    wait_until(lambda: query(piped, "SELECT COUNT(*) FROM outbox WHERE message_key = ?", (f"probe:{ghost}",)),
               what="the probe", rig=piped)
    # Postfix logs the delivery once pbm deliver has exited
    wait_until(lambda: re.search(r"to=<pbm-bounce\+\d+-\w+@server\.test>, relay=pbm, .*status=sent \(delivered via pbm "
                                 r"service \(pbm deliver: <[^>]+>: dropped: bounce \(empty return path\); 1 rep",
                                 piped.server.log()),
               what="the report piped to pbm deliver", rig=piped)
