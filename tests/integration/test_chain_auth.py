"""Who sent it, as the real mail server in front of pbm says (issue 34):
the players' provider signs with DKIM, the server's Postfix has OpenDKIM
and OpenDMARC check it and write ``Authentication-Results:
mx.server.test; ...``, and pbm (``[security] trusted_authserv_id =
"mx.server.test"``) binds a signed, aligned sender's address at signup
without the confirmation round.  Unsigned mail, and a header the sender
wrote himself, get the round."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.app.replies import client_reply

from .conftest import command, query, send, spied, wait_inbox, wait_until
from .rig import AUTHSERV, PBM_ADDRESS, SERVER_DOMAIN, Rig

pytestmark = pytest.mark.integration

CONFIRM = "Press Reply and send this mail back"


def _confirmed(rig: Rig, address: str) -> int | None:
    return query(rig, "SELECT confirmed FROM addresses WHERE address = ?", (address,))


def _results(mail) -> list[str]:
    """The Authentication-Results headers of a mail, top first, unfolded."""
    return [" ".join(str(v).split()) for v in mail.get_all("Authentication-Results") or []]


def test_a_signed_aligned_signup_binds_its_address_at_once(rig, players):
    (alice,) = players("alice")
    name = alice.partition("@")[0]
    msg = command(alice, f"signup {name} apple")
    send(rig, msg)
    (welcome,) = wait_inbox(rig, alice, 1, what="welcome")
    assert str(welcome["Subject"]) == f"Welcome to Trax PBM, {name}"
    assert CONFIRM not in welcome.get_body(("plain",)).get_content()
    assert _confirmed(rig, alice) == 1
    # what pbm was given: OpenDKIM's and OpenDMARC's verdicts, under the server's own id, on top
    given = _results(spied(rig, str(msg["Message-ID"])))
    assert given[0].startswith(f"{AUTHSERV}; dmarc=pass") and "header.from=players.test" in given[0]
    assert any(r.startswith(f"{AUTHSERV}; dkim=pass") and "header.d=players.test" in r for r in given)
    # and the reply left through the server's Postfix, signed for server.test, its bounces to a tagged address
    assert f"d={SERVER_DOMAIN}" in str(welcome["DKIM-Signature"])
    assert str(welcome["Return-Path"]).startswith("<pbm-bounce+") and str(welcome["Return-Path"]).endswith(
        f"@{SERVER_DOMAIN}>")
    assert str(welcome["From"]).endswith(f"<{PBM_ADDRESS}>")


def test_an_unsigned_signup_straight_to_port_25_gets_the_confirmation_round(rig, players):
    """No provider, no signature: dmarc=fail; the address waits until the
    player answers the welcome, which he then does through his provider."""
    (bob,) = players("bob")
    name = bob.partition("@")[0]
    msg = command(bob, f"signup {name} banana")
    send(rig, msg, forger=True)
    (welcome,) = wait_inbox(rig, bob, 1, what="welcome")
    assert CONFIRM in welcome.get_body(("plain",)).get_content()
    assert _confirmed(rig, bob) == 0
    given = _results(spied(rig, str(msg["Message-ID"])))
    assert given[0].startswith(f"{AUTHSERV}; dmarc=fail")
    assert not any("=pass" in r for r in given)
    # the round, through the chain: Reply on the welcome
    send(rig, client_reply(welcome, bob, "Yes, it is me.", when=datetime.now(UTC), to=PBM_ADDRESS), sender=bob)
    confirmed = wait_inbox(rig, bob, 2, what="the confirmation")[1]
    assert str(confirmed["Subject"]) == f"Trax PBM: address confirmed for {name}"
    assert _confirmed(rig, bob) == 1


def test_an_authentication_results_header_the_sender_wrote_is_removed_and_ignored(rig, players):
    """A forger writes the server's own verdict into his mail. Postfix's
    header_checks drops it before the milters add theirs (OpenDKIM and
    OpenDMARC leave it, and would only have added theirs above it); pbm
    sees dmarc=fail and asks for the round."""
    (carol,) = players("carol")
    name = carol.partition("@")[0]
    forged = (f"{AUTHSERV}; dmarc=pass (p=none dis=none) header.from=players.test",
              f"{AUTHSERV}; dkim=pass header.d=players.test")
    msg = command(carol, f"signup {name} cherry")
    for value in forged:
        msg["Authentication-Results"] = value
    send(rig, msg, forger=True)
    (welcome,) = wait_inbox(rig, carol, 1, what="welcome")
    assert CONFIRM in welcome.get_body(("plain",)).get_content()
    assert _confirmed(rig, carol) == 0
    given = _results(spied(rig, str(msg["Message-ID"])))
    assert not any("=pass" in r for r in given), given
    assert given[0].startswith(f"{AUTHSERV}; dmarc=fail")


def test_a_signed_mail_from_another_domain_than_its_signature_is_not_vouched_for(rig, players):
    """The provider signs for players.test only: a player who writes From
    an address elsewhere gets no aligned signature, and the round."""
    (dave,) = players("dave")
    name = dave.partition("@")[0]
    elsewhere = f"{name}@elsewhere.test"
    msg = command(elsewhere, f"signup {name} damson {dave}")
    send(rig, msg, sender=dave)
    (asked,) = wait_inbox(rig, dave, 1, what="the confirmation mail")
    assert str(asked["Subject"]).startswith("confirm address ")
    wait_until(lambda: query(rig, "SELECT COUNT(*) FROM addresses WHERE address = ?", (dave,)), what="the account")
    assert _confirmed(rig, dave) == 0
    given = _results(spied(rig, str(msg["Message-ID"])))
    assert not any(r.startswith(f"{AUTHSERV}; dmarc=pass") for r in given), given
