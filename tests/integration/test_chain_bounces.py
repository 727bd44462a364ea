"""Bounces by VERP through the real chain (issue 34): pbm's reply leaves
with an envelope sender tagged for it (``pbm-bounce+N-TAG@server.test``);
the provider refuses an address that no longer exists, the server's
Postfix writes a real delivery report (DSN) to that tagged address and
hands it back to pbm over LMTP.  pbm mails a probe; when the probe bounces
too, the player's clock stops and the opponent is told.  A report of the
right form to a bounce address whose tag does not check does nothing."""

from __future__ import annotations

import re
import smtplib
from datetime import UTC, datetime
from email import message_from_bytes, policy

import pytest

from tests.app.replies import delivery_report

from .conftest import command, inbox, query, send, wait_inbox, wait_until
from .rig import FORGER_OUT, HOST, Rig

pytestmark = pytest.mark.integration


def _user(address: str) -> str:
    return address.partition("@")[0]


def _board_of(rig: Rig, userid: str) -> int:
    return query(rig, "SELECT b.number FROM boards b JOIN users u ON u.id IN (b.white_id, b.black_id) "
                      "WHERE u.userid = ? ORDER BY b.number DESC", (userid,))


def _reports(rig: Rig, address: str) -> int:
    return query(rig, "SELECT COUNT(*) FROM bounces WHERE address = ?", (address.lower(),))


def _hold_days(rig: Rig, userid: str) -> float | None:
    """How long the player's clock stands still, in days (None: it runs)."""
    return query(rig, "SELECT julianday(h.ends_at) - julianday(h.starts_at) FROM mail_holds h "
                      "JOIN users u ON u.id = h.user_id WHERE u.userid = ?", (userid,))


def test_a_real_bounce_comes_back_by_its_tag_is_probed_and_holds_the_clock(rig, players):
    alice, ghost = players("alice", "ghost")
    a, g = _user(alice), _user(ghost)
    send(rig, command(alice, f"signup {a} apple"))
    send(rig, command(ghost, f"signup {g} gooseberry"))
    wait_inbox(rig, alice, 1, what="welcome")
    wait_inbox(rig, ghost, 1, what="welcome")
    send(rig, command(alice, f"trax challenge {a} {g} apple"))
    board = wait_until(lambda: _board_of(rig, a), what="the board")
    send(rig, command(ghost, f"trax move {board} {g} gooseberry accept"))
    # welcome, challenge, the board mail of his accept
    wait_inbox(rig, ghost, 3, what="the accepted board at the ghost's")
    # the ghost's mailbox closes; alice moves and the board mail to him bounces
    rig.remove_player(g)
    rig.reload_provider()
    before = len(inbox(rig, alice))
    send(rig, command(alice, f"trax move {board} {a} apple @0+"))
    days = wait_until(lambda: _hold_days(rig, g), timeout=60, what="the hold on the ghost's clock", rig=rig)
    assert round(days, 3) == 7  # [games] bounce_hold_days
    assert _reports(rig, ghost) >= 2  # the board mail's report, then the probe's
    # both reports were Postfix's own, to tagged addresses, handed to pbm over LMTP
    log = rig.server.log()
    dsns = re.findall(r"to=<(pbm-bounce\+\d+-\w+@server\.test)>, relay=127\.0\.0\.1\[127\.0\.0\.1\]:\d+.*status=sent",
                      log)
    assert len(dsns) >= 2, log[-3000:]
    assert f"to=<{ghost}>" in log and "status=bounced" in log
    assert query(rig, "SELECT COUNT(*) FROM outbox WHERE message_key = ?", (f"probe:{ghost.lower()}",)) == 1
    # alice is told why the clock stands still
    notice = wait_until(lambda: [m for m in inbox(rig, alice)[before:] if "bounces" in str(m["Subject"])],
                        what="the notice to the opponent")
    assert str(notice[0]["Subject"]) == f"Trax PBM: mail to {g} bounces"
    assert f"board {board}" in notice[0].get_body(("plain",)).get_content()


def test_a_forged_report_to_a_bounce_address_with_a_wrong_tag_does_nothing(rig, players):
    (bob,) = players("bob")
    b = _user(bob)
    send(rig, command(bob, f"signup {b} banana"))
    (welcome,) = wait_inbox(rig, bob, 1, what="welcome")
    back = str(welcome["Return-Path"]).strip("<>")
    local, _, domain = back.partition("@")
    tag = local.rpartition("-")[2]
    wrong = f"{local[:-len(tag)]}{'a' * len(tag) if tag != 'a' * len(tag) else 'b' * len(tag)}@{domain}"
    report = delivery_report(message_from_bytes(bytes(welcome), policy=policy.compat32), when=datetime.now(UTC),
                             to=wrong)
    key = str(message_from_bytes(report)["Message-ID"])
    with smtplib.SMTP(HOST, rig.server.port, timeout=30, source_address=(FORGER_OUT, 0)) as smtp:
        smtp.sendmail("", [wrong], report)
    outcome = wait_until(lambda: query(rig, "SELECT outcome FROM handled WHERE message_key = ?", (key,)),
                         what="the forged report handled")
    assert outcome.startswith("dropped"), outcome
    assert _reports(rig, bob) == 0
    assert query(rig, "SELECT COUNT(*) FROM outbox WHERE message_key = ?", (f"probe:{bob.lower()}",)) == 0
    assert len(inbox(rig, bob)) == 1
