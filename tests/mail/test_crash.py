"""``pbm serve`` killed with SIGKILL at random points while 200 commands flow.

After the last restart every command must have been applied exactly once
and every reply sent; a duplicate reply is tolerated only for a reply in
flight at a kill (accepted by the relay but not yet in the outbox's sent
journal: at most one per relay connection), so duplicates are counted and
must not exceed one per connection per kill.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from collections import Counter

import pytest

from pbm.config import load_config
from pbm.domain.store import Store

from .daemon import command_mail, kill_if_running, start_server, wait_until, write_config

pytestmark = pytest.mark.integration

COMMANDS = 200
KILLS = 5


@pytest.mark.slow
def test_sigkill_at_random_points_loses_nothing_and_applies_nothing_twice(tmp_path, dovecot, mail_user, sink):
    path = write_config(tmp_path, dovecot=dovecot, user=mail_user, sink=sink)
    with path.open("a") as config:  # two hundred boards between the same two players, in one day
        config.write("\n[limits]\nnew_boards_per_player_per_day = 1000\nopen_challenges_per_player = 1000\n")
    setup = [
        command_mail("alice@example.org", "signup alice apple"),
        command_mail("bob@example.org", "signup bob banana"),
    ]
    # each challenge makes one board and two replies: easy to count exactly
    work = [command_mail("op@example.org", "trax challenge alice bob apple", f"game {i}") for i in range(COMMANDS)]
    rng = random.Random(20261121)
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115 - open while the server runs
    server = start_server(path, log)
    try:
        for raw in setup:
            dovecot.deliver(mail_user.name, raw)
        sink.wait_for(2, timeout=60)

        def deliver_all():
            dovecot.deliver_many(mail_user.name, work)

        feeder = threading.Thread(target=deliver_all)
        feeder.start()
        for _ in range(KILLS):
            time.sleep(rng.uniform(0.2, 1.5))
            server.send_signal(signal.SIGKILL)
            server.wait(30)
            server = start_server(path, log)
        feeder.join(120)
        # every command handled: 2 + 200 mails in the processed folder
        wait_until(lambda: dovecot.count(mail_user.name, mail_user.password, "pbm/processed") == COMMANDS + 2,
                   timeout=240, what="every mail processed")
        wait_until(lambda: len(sink.messages) >= 2 + 2 * COMMANDS, timeout=120, what="every reply sent")
        time.sleep(1.0)  # let any reply still in flight arrive before counting
        server.send_signal(signal.SIGTERM)
        assert server.wait(60) == 0
    finally:
        kill_if_running(server)
        log.close()

    store = Store(tmp_path / "pbm.sqlite3")
    try:
        stats = store.stats()
        boards = sum(stats["active_boards"].values()) + stats["finished_boards"]
        handled = sum(stats["handled"].values())
        unsent = stats["queue"]
    finally:
        store.close()
    assert boards == COMMANDS  # applied exactly once each
    assert handled == COMMANDS + 2
    assert unsent == 0
    assert dovecot.count(mail_user.name, mail_user.password, "INBOX") == 0
    assert dovecot.count(mail_user.name, mail_user.password, "pbm/failed") == 0
    # every board's new-board mail reached both players; duplicates only from kills
    seen = Counter()
    for r in sink.messages:
        subject = str(r.message()["Subject"])
        if subject.startswith("New Trax Board"):
            seen[(subject.split()[3], r.rcpt_tos[0])] += 1
    numbers = {int(n) for n, _ in seen}
    assert numbers == set(range(101, 101 + COMMANDS))
    assert all(seen[(str(n), who)] >= 1 for n in numbers for who in ("alice@example.org", "bob@example.org"))
    duplicates = sum(c - 1 for c in seen.values())
    connections = load_config(path).outbox.connections
    assert duplicates <= connections * KILLS, f"{duplicates} duplicate replies after {KILLS} kills"
    print(f"\n{KILLS} kills, {duplicates} duplicate replies")
    assert os.path.getsize(tmp_path / "serve.log") > 0
