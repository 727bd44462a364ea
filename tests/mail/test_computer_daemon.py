"""A whole game against the computer by mail: the real daemon (``pbm
serve`` in a process of its own, its searches in worker processes), a real
Dovecot for the player's mail and a real aiosmtpd relay for the replies.
The player reads each board mail the computer's move brings and answers
with a legal move worked out from the board the mail shows."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing

import pytest

from pbm.trax import Board

from .daemon import command_mail, kill_if_running, start_server, write_config

pytestmark = pytest.mark.integration

A = "alice@example.org"


def _board(path) -> tuple[list[str], str]:
    with closing(sqlite3.connect(path)) as db:
        moves, status = db.execute("SELECT moves, status FROM boards WHERE number = 101").fetchone()
    return moves.split(), status


@pytest.mark.slow
def test_a_whole_game_against_the_computer_by_mail(tmp_path, dovecot, mail_user, sink):
    path = write_config(tmp_path, dovecot=dovecot, user=mail_user, sink=sink)
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115 - open while the server runs
    server = start_server(path, log)
    try:
        dovecot.deliver(mail_user.name, command_mail(A, "signup alice apple"))
        sink.wait_for(1, timeout=60)
        # the computer starts: its first board mail comes without alice doing anything more
        dovecot.deliver(mail_user.name, command_mail(A, "minitrax challenge computer alice apple -level=2"))
        expected = 3  # welcome, the new board, the computer's first move
        sink.wait_for(expected, timeout=60)
        database = tmp_path / "pbm.sqlite3"
        for _ in range(12):
            latest = sink.messages[-1].message()
            assert re.match(r"MiniTrax Board 101( alice)?$", str(latest["Subject"])), latest["Subject"]
            moves, status = _board(database)
            if status == "finished":
                break
            board = Board.replay(moves, "minitrax")
            assert board.turn == "black"  # alice's turn, once the computer has moved
            move = str(board.legal_moves()[-1])
            dovecot.deliver(mail_user.name, command_mail(A, f"minitrax move 101 alice apple {move}#{board.ply + 1}"))
            expected += 1  # alice's own board mail ...
            sink.wait_for(expected, timeout=60)
            moves, status = _board(database)
            if status == "finished":
                break
            expected += 1  # ... and the computer's answer
            sink.wait_for(expected, timeout=60)
        moves, status = _board(database)
        assert status == "finished"
        assert Board.replay(moves, "minitrax").outcome() is not None
        subjects = [str(r.message()["Subject"]) for r in sink.messages]
        assert all(r.rcpt_tos == [A] for r in sink.messages)  # the computer has no mail of its own
        assert subjects[1] == "New MiniTrax Board 101 computer"
        # every job the game queued was done by playing (none left open, none failed),
        # but one queued by the move that ended the game, closed by its end
        with closing(sqlite3.connect(database)) as db:
            outcomes = [o for (o,) in db.execute("SELECT outcome FROM computer_jobs ORDER BY id")]
        assert len(outcomes) >= 2 and all(o.startswith("played ") for o in outcomes[:-1])
        assert outcomes[-1].startswith("played ") or outcomes[-1] == "game over"
    finally:
        kill_if_running(server)
        log.close()
    text = (tmp_path / "serve.log").read_text()
    assert "computer: searching board 101" in text
