"""Chaos through the whole chain, measured (issue 34).

2,000 commands from 50 players (50 signups, 100 challenges, 1,850 moves on
100 boards: each of 25 pairs plays four games at once) go through the
provider's Postfix (signed), the server's Postfix (verified) and into
``pbm serve`` by LMTP; its replies go back
through both Postfixes into the players' Dovecot mailboxes.  Meanwhile
the test SIGKILLs ``pbm serve`` 10 times at random moments (a supervisor
starts it again, as systemd's ``Restart=on-failure`` would), makes its
database read-only for 30 s, fills the disk it is on (a small tmpfs) for a
while, and restarts the server's Postfix once.

A running process cannot be given a read-only database under its feet
(the kernel refuses to remount a file system read-only while files on it
are open for writing), so the read-only spell is the one an operator
meets: the daemon stopped, the file system read-only, the daemon started
again and again by its supervisor (it refuses to start) until the file
system is writable again.  A full disk is met by the running daemon:
SQLite says "database or disk is full" and the listener answers 452.

Every move is sent only once the one before it is on the board (as
players do: they answer the board mail), so each game's move list must
end up exactly the moves sent, in order: every command applied exactly
once.  Every reply pbm queued must be in its recipient's mailbox (found by
the outbox row number its VERP envelope sender carries); copies beyond
one are counted as duplicates.  Those pbm sent again (the server's Postfix
took them as distinct mails: two queue ids in their ``Received`` headers)
may be at most one per relay connection per kill (and per restart of the
server's Postfix, which cuts the connections too); those Postfix delivered
again (one queue id, two copies: its restart) at most what its delivery
agents had in hand.  Postfix's queue is watched with ``postqueue -j``.
The figures are printed (``pytest -s``) and written to
``chaos-figures.txt`` in pytest's base temporary folder.
"""

from __future__ import annotations

import os
import random
import re
import signal
import smtplib
import sqlite3
import subprocess
import threading
import time
from collections import Counter
from contextlib import closing, suppress
from email import message_from_binary_file
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest

from pbm.trax import Board
from tests.mail.servers import MailServerError

from .rig import AUTHSERV, HOST, PBM_ADDRESS, PLAYERS, Rig, _world_dir

pytestmark = pytest.mark.integration

PAIRS = 25
BOARDS_PER_PAIR = 4
GAMES = PAIRS * BOARDS_PER_PAIR
COMMANDS = 2000
#: Moves in all, after 50 signups and 100 challenges: 18 or 19 a game.
MOVES = COMMANDS - 2 * PAIRS - GAMES
KILLS = 10
READ_ONLY_SECONDS = 30
FULL_SECONDS = 10
TMPFS = "48m"
#: The whole run must end within this (CI's budget for the suite).
DEADLINE_SECONDS = 420
SEED = 20260034


def _game(rng: random.Random, length: int) -> list[str]:
    """A random game of Trax of ``length`` turns that is not over before
    its end, as canonical move texts."""
    board = Board("trax")
    while board.ply < length:
        moves = board.legal_moves()
        rng.shuffle(moves)
        for move in moves:
            board.play(move)
            if board.outcome() is None:
                break
            board.pop()
        else:
            raise AssertionError("a game with no move left that goes on")
    return [str(m) for m in board.moves]


def _mail(sender: str, subject: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = PBM_ADDRESS
    msg["Subject"] = subject
    msg["Message-ID"] = make_msgid(domain=PLAYERS)
    msg.set_content("\n")
    return bytes(msg)


class Chaos:
    """The daemon's supervisor and the troubles done to it."""

    def __init__(self, rig: Rig, db_dir: Path) -> None:
        self.rig = rig
        self.db_dir = db_dir
        self.control = threading.Lock()
        self.done = threading.Event()
        self.kills = 0
        self.restarts = 0
        self.failed_starts = 0
        self.queue_max = 0
        self.queued_ids: set[str] = set()
        self.delay_reasons: Counter[str] = Counter()
        self.events: list[str] = []
        self.flushes = 0
        self.last_flush = 0.0
        self.started = time.monotonic()

    def note(self, what: str) -> None:
        self.events.append(f"{time.monotonic() - self.started:6.1f}s {what}")

    def supervise(self) -> None:
        """Start pbm serve again whenever it is not running (every 0.5 s)."""
        while not self.done.is_set():
            with self.control:
                process = self.rig.pbm.process
                if process is None or process.poll() is not None:
                    try:
                        self.rig.pbm.start(wait=True)
                        self.restarts += 1
                    except MailServerError:
                        self.failed_starts += 1
            time.sleep(0.5)

    def watch_queue(self) -> None:
        """``postqueue -j`` of the server's Postfix every second: how many
        mails wait, and why."""
        while not self.done.is_set():
            with suppress(Exception):
                queue = self.rig.server.queue()
                self.queue_max = max(self.queue_max, len(queue))
                for mail in queue:
                    for rcpt in mail.get("recipients", []):
                        reason = rcpt.get("delay_reason")
                        if reason:
                            self.queued_ids.add(mail["queue_id"])
                            self.delay_reasons[re.sub(r"\d+", "N", reason)[:90]] += 1
            time.sleep(1.0)

    def kill(self) -> bool:
        with self.control:
            process = self.rig.pbm.process
            if process is None or process.poll() is not None:
                return False
            process.send_signal(signal.SIGKILL)
            process.wait(30)
            self.kills += 1
            self.note(f"SIGKILL {self.kills}")
            return True

    def read_only(self) -> None:
        with self.control:
            self.rig.pbm.stop()
            for _ in range(50):  # busy while a reader of the test's has a file open
                if subprocess.run(["mount", "-o", "remount,ro", str(self.db_dir)], capture_output=True).returncode == 0:
                    break
                time.sleep(0.1)
            else:
                raise AssertionError("the database's file system could not be made read-only")
        self.note("database read-only")
        time.sleep(READ_ONLY_SECONDS)
        subprocess.run(["mount", "-o", "remount,rw", str(self.db_dir)], check=True)
        self.note("database writable")

    def fill_disk(self) -> None:
        filler = self.db_dir / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            for size in (1 << 20, 4096, 512):  # until not even the last bytes fit
                with suppress(OSError):
                    while True:
                        os.write(fd, b"\0" * size)
            self.note(f"disk full ({filler.stat().st_size >> 20} MiB of filler)")
            time.sleep(FULL_SECONDS)
        finally:
            os.close(fd)
            filler.unlink()
        self.note("disk freed")

    def restart_postfix(self) -> None:
        self.note("server Postfix stopping")
        self.rig.server.restart()
        self.note("server Postfix started")


def _boards(rig: Rig) -> dict[int, list[str]] | None:
    try:
        with closing(sqlite3.connect(f"file:{rig.pbm.database}?mode=ro", uri=True, timeout=2)) as db:
            return {n: m.split() for n, m in db.execute("SELECT number, moves FROM boards")}
    except sqlite3.Error:
        return None


def _count(rig: Rig, sql: str) -> int | None:
    try:
        with closing(sqlite3.connect(f"file:{rig.pbm.database}?mode=ro", uri=True, timeout=2)) as db:
            return int(db.execute(sql).fetchone()[0])
    except sqlite3.Error:
        return None


def _send(rig: Rig, mails: list[tuple[str, bytes]]) -> None:
    """Through the provider, one session for the batch (the provider is
    never troubled: a refusal here is a failure of the test)."""
    if mails:
        with smtplib.SMTP(HOST, rig.provider.port, timeout=60) as smtp:
            for sender, raw in mails:
                smtp.sendmail(sender, [PBM_ADDRESS], raw)


def _wait(predicate, what: str, deadline: float, rig: Rig) -> None:
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what} ({rig.milters()})\n"
                                 f"--- pbm ---\n{rig.pbm.log()[-3000:]}\n"
                                 f"--- server maillog ---\n{rig.server.log()[-3000:]}")
        time.sleep(0.2)


def _drained(rig: Rig, chaos: Chaos) -> bool:
    """Are both Postfix queues empty?  A mail that has waited 20 s while
    the queues are otherwise idle is flushed (``postqueue -f``, counted:
    Postfix left a mail deferred in its incoming queue once, untried for
    minutes; see the figures)."""
    waiting = rig.server.queue() + rig.provider.queue()
    if not waiting:
        return True
    oldest = min(mail["arrival_time"] for mail in waiting)
    if time.time() - oldest > 20 and time.monotonic() - chaos.last_flush > 10:
        chaos.flushes += 1
        chaos.last_flush = time.monotonic()
        chaos.note(f"postqueue -f: {[(m['queue_name'], m['queue_id']) for m in waiting]}")
        rig.server.flush()
        rig.provider.flush()
    return False


#: The server's Postfix names the mail it took in its ``Received`` header.
TAKEN = re.compile(rf"by {re.escape(AUTHSERV)} \(Postfix\) with \S+ id (\w+)")


class Delivered:
    """The replies in the players' mailboxes, each known by (mailbox, outbox
    row): how many copies arrived, and how many distinct mails the server's
    Postfix took for it (its queue id): more than one is pbm sending it
    again; copies beyond those are Postfix delivering again (its restart)."""

    def __init__(self, rig: Rig, names: list[str]) -> None:
        self.copies: Counter[tuple[str, int]] = Counter()
        self.unnamed = 0  # copies without the server's queue id (would make the split wrong)
        taken: dict[tuple[str, int], set[str]] = {}
        for name in names:
            for path in rig.mail_files(name):
                with open(path, "rb") as f:
                    head = message_from_binary_file(f)
                match = re.match(r"<pbm-bounce\+(\d+)-", str(head["Return-Path"]))
                if not match:
                    continue
                key = (f"{name}@{PLAYERS}", int(match.group(1)))
                self.copies[key] += 1
                ids = [m.group(1) for r in head.get_all("Received", []) if (m := TAKEN.search(str(r)))]
                self.unnamed += not ids
                taken.setdefault(key, set()).update(ids[:1])
        self.resent_by_pbm = sum(max(len(ids) - 1, 0) for ids in taken.values())
        self.redelivered = sum(self.copies.values()) - len(self.copies) - self.resent_by_pbm


@pytest.mark.slow
def test_chaos_loses_nothing_and_applies_everything_once(tmp_path_factory):
    rng = random.Random(SEED)
    lengths = [MOVES // GAMES + (1 if g < MOVES % GAMES else 0) for g in range(GAMES)]
    games = [_game(rng, n) for n in lengths]
    pbm_folder = _world_dir("pbmchaos")
    db_dir = pbm_folder / "db"
    db_dir.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS},mode=0755", "tmpfs", str(db_dir)], check=True)
    figures: dict[str, object] = {}
    try:
        rig = Rig(pbm_folder=pbm_folder, pictures=False)
        with rig:
            _run(rig, db_dir, games, rng, figures)
    finally:
        subprocess.run(["umount", "-l", str(db_dir)], check=False)
        subprocess.run(["rm", "-rf", str(pbm_folder)], check=False)
    text = "\n".join(f"{k}: {v}" for k, v in figures.items())
    print("\nchaos figures:\n" + text)
    (tmp_path_factory.getbasetemp() / "chaos-figures.txt").write_text(text + "\n")
    assert figures["commands sent"] == COMMANDS
    assert figures["kills"] == KILLS
    assert figures["boards whose moves are not the moves sent"] == []
    assert figures["mails kept as failed instead of applied"] == 0
    assert figures["replies lost"] == 0
    assert figures["replies to a wrong mailbox"] == 0
    assert figures["replies without the server Postfix's queue id"] == 0
    # pbm: one per relay connection ([outbox] connections = 2) per break in them: each kill, and the
    # server Postfix's restart (a connection cut while it answered the end of data leaves the reply
    # it had taken unknown to pbm, which sends it again)
    assert figures["of them, sent again by pbm"] <= 2 * (KILLS + 1)
    # Postfix's own: at most what its delivery agents had in hand when it stopped (20 per destination)
    assert figures["of them, delivered again by Postfix"] <= 20
    assert figures["mails deferred by the server's Postfix (log)"] > 0
    assert figures["mails seen waiting in postqueue -j"] > 0
    assert figures["seconds"] < DEADLINE_SECONDS


def _run(rig: Rig, db_dir: Path, games: list[list[str]], rng: random.Random, figures: dict[str, object]) -> None:
    started = time.monotonic()
    deadline = started + DEADLINE_SECONDS
    names = [f"p{i:02d}" for i in range(2 * PAIRS)]
    for name in names:
        rig.add_player(name)
    rig.reload_provider()
    address = {name: f"{name}@{PLAYERS}" for name in names}
    sent = 0
    # setup: signups, then four challenges per pair (the challenger moves first)
    _send(rig, [(address[n], _mail(address[n], f"signup {n} pw{n}")) for n in names])
    sent += len(names)
    _wait(lambda: _count(rig, "SELECT COUNT(*) FROM users WHERE userid LIKE 'p%'") == len(names), "signups",
          deadline, rig)
    pairs = [(names[2 * p], names[2 * p + 1]) for p in range(PAIRS)]
    _send(rig, [(address[w], _mail(address[w], f"trax challenge {w} {b} pw{w}"))
                for _ in range(BOARDS_PER_PAIR) for w, b in pairs])
    sent += GAMES
    _wait(lambda: len(_boards(rig) or {}) == GAMES, "boards", deadline, rig)
    with closing(sqlite3.connect(rig.pbm.database)) as db:
        # each board: (who moves first, the other)
        players = {n: (w, b) for n, w, b in db.execute(
            "SELECT b.number, w.userid, k.userid FROM boards b JOIN users w ON w.id = b.white_id "
            "JOIN users k ON k.id = b.black_id")}
    game = dict(zip(sorted(players), games, strict=True))  # the moves each board is to get

    chaos = Chaos(rig, db_dir)
    helpers = [threading.Thread(target=chaos.supervise, daemon=True),
               threading.Thread(target=chaos.watch_queue, daemon=True)]
    for helper in helpers:
        helper.start()
    total = MOVES
    kill_at = sorted(rng.sample(range(total // 20, total * 19 // 20), KILLS))
    troubles = {total // 4: chaos.read_only, total // 2: chaos.fill_disk, total * 3 // 4: chaos.restart_postfix}
    running: list[threading.Thread] = []
    played = dict.fromkeys(players, 0)  # moves sent per board
    moves_sent = 0
    progress = time.monotonic()
    try:
        while moves_sent < total:
            if time.monotonic() > deadline:
                raise AssertionError(f"only {moves_sent} of {total} moves after {DEADLINE_SECONDS} s"
                                     f" ({rig.milters()})\n"
                                     + "\n".join(chaos.events) + f"\n--- pbm ---\n{rig.pbm.log()[-3000:]}")
            boards = _boards(rig)
            if boards is None:
                time.sleep(0.2)
                continue
            batch = []
            for board, k in played.items():
                if len(boards.get(board, [])) == k < len(game[board]):  # the last move is on: the next one answers
                    who = players[board][k % 2]
                    command = f"trax move {board} {who} pw{who} {game[board][k]}"
                    batch.append((address[who], _mail(address[who], command)))
                    played[board] = k + 1
            _send(rig, batch)
            moves_sent += len(batch)
            if batch:
                progress = time.monotonic()
            elif time.monotonic() - progress > 30 and _count(rig, "SELECT COUNT(*) FROM failed_mail"):
                break  # a move pbm set aside as failed never reaches its board: that game stands still
            while kill_at and moves_sent >= kill_at[0]:
                if chaos.kill():
                    kill_at.pop(0)
                else:
                    break  # pbm is down just now: the next round
            for at in [at for at in troubles if moves_sent >= at]:
                thread = threading.Thread(target=troubles.pop(at), daemon=True)
                thread.start()
                running.append(thread)
            time.sleep(0.05)
        sent += moves_sent
        for thread in running:
            thread.join(120)
        while kill_at:  # kills not done yet (pbm was down at their moment)
            if chaos.kill():
                kill_at.pop(0)
            time.sleep(0.5)
        # every move on its board (or given up on: a mail kept as failed never comes)
        _wait(lambda: ((b := _boards(rig)) is not None and all(len(b[n]) == len(game[n]) for n in game))
              or bool(_count(rig, "SELECT COUNT(*) FROM failed_mail")),
              "every move on its board", deadline, rig)
        _wait(lambda: _count(rig, "SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL") == 0,
              "every reply sent", deadline, rig)
        _wait(lambda: _drained(rig, chaos), "both Postfix queues empty", deadline, rig)
        time.sleep(2.0)  # the last deliveries into Dovecot
    finally:
        chaos.done.set()
        for helper in helpers:
            helper.join(30)
    boards = _boards(rig)
    assert boards is not None
    with closing(sqlite3.connect(rig.pbm.database)) as db:
        replies = {(r.lower(), i) for i, r in db.execute("SELECT id, recipient FROM outbox")}
        handled = Counter(o.split(":")[0] for (o,) in db.execute("SELECT outcome FROM handled"))
        failed = db.execute("SELECT COUNT(*) FROM failed_mail").fetchone()[0]
    delivered = Delivered(rig, names)
    by_row = {row for _, row in delivered.copies}
    log = rig.server.log()
    figures.update({
        "commands sent": sent,
        "boards whose moves are not the moves sent": [n for n in game if boards.get(n) != game[n]],
        "mails kept as failed instead of applied": failed,
        "mails handled by pbm": sum(handled.values()),
        "handled outcomes": dict(handled),
        "kills": chaos.kills,
        "pbm starts (supervisor)": chaos.restarts,
        "pbm starts refused (read-only database)": chaos.failed_starts,
        "replies queued by pbm": len(replies),
        "replies delivered (distinct)": len(by_row),
        "replies lost": len({row for _, row in replies} - by_row),
        "replies to a wrong mailbox": len(set(delivered.copies) - replies),
        "duplicate replies": sum(n - 1 for n in delivered.copies.values()),
        "of them, sent again by pbm": delivered.resent_by_pbm,
        "of them, delivered again by Postfix": delivered.redelivered,
        "replies without the server Postfix's queue id": delivered.unnamed,
        "mails deferred by the server's Postfix (log)": log.count("status=deferred"),
        "of them, to pbm over LMTP": len(re.findall(r"postfix/lmtp\[\d+\]: \w+: to=<pbm@server\.test>.*status=deferred",
                                                   log)),
        "pbm's 4xx answers (452/451) in the log": len(re.findall(r"said: 45[12] ", log)),
        "mails seen waiting in postqueue -j": len(chaos.queued_ids),
        "longest queue seen": chaos.queue_max,
        "delay reasons seen (sightings, polled each second)": dict(chaos.delay_reasons.most_common(6)),
        "queue flushes the test forced (postqueue -f)": chaos.flushes,
        "events": chaos.events,
        "seconds": round(time.monotonic() - started, 1),
    })
