"""``pbm serve`` stopped with SIGTERM or SIGINT while mail flows in through
Dovecot: it finishes the mail in hand, sends the replies of everything it
handled, exits 0, and after a restart the rest is handled; unlike a SIGKILL,
a stop asked for politely sends no reply twice."""

from __future__ import annotations

import re
import signal
import threading
from collections import Counter

import pytest

from .daemon import command_mail, kill_if_running, start_server, wait_until, write_config

pytestmark = pytest.mark.integration

MAILS = 200


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_mid_flow_finishes_sends_and_exits_0_and_a_restart_does_the_rest(
        tmp_path, dovecot, mail_user, sink, sig):
    path = write_config(tmp_path, dovecot=dovecot, user=mail_user, sink=sink)
    work = [command_mail(f"p{i}@example.org", "help") for i in range(MAILS)]
    log_path = tmp_path / "serve.log"
    with open(log_path, "wb") as log:
        server = start_server(path, log)
        try:
            feeder = threading.Thread(target=dovecot.deliver_many, args=(mail_user.name, work))
            feeder.start()
            sink.wait_for(5, timeout=60)
            server.send_signal(sig)
            assert server.wait(60) == 0
            feeder.join(60)
            text = log_path.read_text()
            handled = len(re.findall(r" -> handled, 1 replies,", text))
            assert f"stopped: {handled} mails handled, 0 failed" in text
            assert 5 <= handled < MAILS, "the stop did not come mid-flow"
            # every mail handled had its reply sent before the exit
            assert len(sink.messages) == handled
            server = start_server(path, log)
            sink.wait_for(MAILS, timeout=120)
            wait_until(lambda: dovecot.count(mail_user.name, mail_user.password, "pbm/processed") == MAILS,
                       timeout=60, what="every mail processed")
            server.send_signal(signal.SIGTERM)
            assert server.wait(60) == 0
        finally:
            kill_if_running(server)
    sent = Counter(r.rcpt_tos[0] for r in sink.messages)
    assert sent == Counter({f"p{i}@example.org": 1 for i in range(MAILS)})
    assert dovecot.count(mail_user.name, mail_user.password, "INBOX") == 0
