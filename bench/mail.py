"""End-to-end benchmark of the mail daemon through a real Dovecot.

    .venv/bin/python bench/mail.py               # about a minute
    .venv/bin/python bench/mail.py --boards 50 --moves 10
    .venv/bin/python bench/mail.py --only throughput --server-log serve.log

Figures printed (all on 127.0.0.1, this machine):
  throughput  1,000 move commands spread over 100 boards, delivered over LMTP
              (one connection, in order) to the inbox of a running `pbm serve`:
              messages per second from the start of delivery until the last
              reply (2,000 in all) reaches the SMTP sink.  The sink runs in a
              process of its own (it is Python and would otherwise share a GIL
              with the LMTP feeder); it notes the monotonic time of each message
              it takes, so the end is the arrival of the last reply, not when
              this process noticed it
  ceiling     a plain fetch-and-flag loop (aioimaplib, one message at a time)
              over the same number of messages in the same Dovecot, already
              delivered (so it leaves out the LMTP delivery the throughput
              figure includes: one LMTP connection alone delivers about 330
              messages/s here, which bounds the throughput figure)
  cpu         CPU time of the daemon, the sink and Dovecot (each with its
              children) per command during the processing figure
  sink alone  the sink taking replies of the same size from a plain smtplib
              loop on one connection: the rate at which the far end of the
              daemon can take replies at all (each move command has two)
  no relay    the processing figure again with no relay configured: the
              replies go to the Maildir outbox, so no SMTP and no sink; what
              the daemon and Dovecot alone manage on this machine
  budget      what the goal (half the ceiling) leaves for the daemon: the
              CPU time all the machine's CPUs have per command at that rate,
              less what the sink and Dovecot took per command (the cpu line),
              set against the CPU the ceiling's own loop spends per message
  latency     with IDLE: from LMTP delivery of one command to its reply at the
              sink (median and 95th percentile)
  scaling     cost of one move command handled in-process on a board of 10
              moves and on one of 250 moves, among 10 or 1,000 boards
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import smtplib
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import aioimaplib  # noqa: E402

from bench.games import quiet_game  # noqa: E402
from pbm.app.messages import wire_bytes  # noqa: E402
from pbm.app.pipeline import Pipeline  # noqa: E402
from pbm.config import load_config  # noqa: E402
from pbm.domain.store import Store  # noqa: E402
from tests.mail.daemon import DaemonThread, command_mail, write_config  # noqa: E402
from tests.mail.servers import Dovecot, Sink  # noqa: E402


def setup_mails(boards: int) -> list[bytes]:
    mails = []
    for i in range(2 * boards):
        mails.append(command_mail(f"p{i}@example.org", f"signup p{i} pw{i}"))
    for b in range(boards):
        mails.append(command_mail("op@example.org", f"trax challenge p{2 * b} p{2 * b + 1} pw{2 * b}"))
    return mails


def move_mails(boards: int, moves: int, rng: random.Random, *, first: int = 0, total: int | None = None,
               games: list[list[str]] | None = None) -> list[bytes]:
    """Move commands for plies ``first`` .. ``first + moves`` of ``games``
    (random quiet games of ``total`` moves when not given)."""
    if games is None:
        games = [quiet_game(rng, total or moves) for _ in range(boards)]
    mails = []
    for ply in range(first, first + moves):
        for b, game in enumerate(games):
            player = 2 * b + ply % 2
            mails.append(command_mail(
                f"p{player}@example.org", f"trax move {101 + b} p{player} pw{player} {game[ply]}#{ply + 1}"
            ))
    return mails


class SinkProcess:
    """The aiosmtpd sink of tests/mail/servers.py in a process of its own, so
    that it does not share a GIL with the LMTP feeder (it is Python too, and
    taking 2,000 replies costs it more CPU than anything in this process).
    Driven by lines on its stdin: ``clear``, ``wait N`` (answers with the
    monotonic time at which the N-th message had arrived)."""

    host = "127.0.0.1"

    def __init__(self) -> None:
        from tests.mail.servers import free_port

        self.port = free_port()
        self.proc = subprocess.Popen([sys.executable, __file__, "--sink-port", str(self.port)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        assert self.proc.stdout.readline().strip() == "ready"

    def _ask(self, line: str) -> str:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    def clear(self) -> None:
        self._ask("clear")

    def wait_for(self, n: int, timeout: float = 600) -> float:
        answer = self._ask(f"wait {n} {timeout}")
        if not answer.startswith("at "):
            raise AssertionError(answer)
        return float(answer.split()[1])

    def __enter__(self) -> SinkProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.proc.stdin.close()
        self.proc.wait(30)


def sink_main(port: int) -> None:
    with Sink(port=port) as sink:
        arrived: list[float] = []
        sink._take_plain = sink._take

        def take(envelope, session, **kw):  # note when each message arrived
            when = time.monotonic()
            reply = sink._take_plain(envelope, session, **kw)
            arrived.append(when)
            return reply

        sink._take = take
        print("ready", flush=True)
        for line in sys.stdin:
            words = line.split()
            if words[0] == "clear":
                sink.clear()
                arrived.clear()
                print("ok", flush=True)
            elif words[0] == "wait":
                n, timeout = int(words[1]), float(words[2])
                try:
                    sink.wait_for(n, timeout=timeout)
                    while len(arrived) < n:  # appended just after the count went up
                        time.sleep(0.001)
                    print(f"at {arrived[n - 1]}", flush=True)
                except AssertionError as exc:
                    print(str(exc).replace("\n", " "), flush=True)


def cpu_seconds(pids: list[int]) -> float:
    """User plus system CPU time used so far by these processes and their
    descendants (from /proc; Linux)."""
    children: dict[int, list[int]] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        pid = int(entry)
        children.setdefault(int(fields[1]), []).append(pid)
        times[pid] = (int(fields[11]) + int(fields[12])) / tick
    total, todo = 0.0, list(pids)
    while todo:
        pid = todo.pop()
        total += times.get(pid, 0.0)
        todo.extend(children.get(pid, ()))
    return total


def wait_for(sink, n: int, timeout: float = 600) -> float:
    """The monotonic time at which the n-th message reached the sink."""
    return sink.wait_for(n, timeout=timeout)


async def fetch_and_flag(dovecot: Dovecot, user: str, password: str, count: int) -> tuple[float, float]:
    """Messages per second, and the loop's own CPU milliseconds per message."""
    imap = aioimaplib.IMAP4(dovecot.host, dovecot.imap_port, timeout=60)
    await imap.wait_hello_from_server()
    await imap.login(user, password)
    await imap.select("INBOX")
    start, cpu = time.perf_counter(), time.process_time()
    response = await imap.uid_search("ALL")
    uids = [int(w) for line in response.lines[:-1] for w in bytes(line).split() if w.isdigit()]
    for uid in uids[:count]:
        await imap.uid("fetch", str(uid), "(BODY.PEEK[])")
        await imap.uid("store", str(uid), "+FLAGS.SILENT", r"(\Seen)")
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    await imap.logout()
    n = len(uids[:count])
    return n / elapsed, cpu * 1000 / n


def throughput(dovecot: Dovecot, boards: int, moves: int,
               server_log: str | None = None) -> tuple[float, float, float, dict[str, float], float]:
    """Messages per second end to end (delivery included), messages per
    second with the mail already in Dovecot, the fetch-and-flag ceiling, CPU
    milliseconds per command by process (and the ceiling loop's per
    message), and the replies per second the sink alone takes."""
    rng = random.Random(7)
    games = [quiet_game(rng, 2 * moves) for _ in range(boards)]
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp, SinkProcess() as sink:
        user, password = "bench" + str(rng.randrange(10**6)), "pw"
        dovecot.add_user(user, password)
        account = type("U", (), {"name": user, "password": password})
        path = write_config(Path(tmp), dovecot=dovecot, user=account, sink=sink)
        setup = setup_mails(boards)
        work = move_mails(boards, moves, rng, games=games)
        staged = move_mails(boards, moves, rng, first=moves, games=games)
        # the daemon in its own process, as in production (the sink and the
        # LMTP feeder stay in this one)
        log = open(server_log, "wb") if server_log else subprocess.DEVNULL  # noqa: SIM115 - open while the daemon runs
        server = subprocess.Popen([sys.executable, "-m", "pbm", "serve", "--config", str(path)], cwd=tmp,
                                  stdout=log, stderr=log)
        try:
            dovecot.deliver_many(user, setup)
            wait_for(sink, 2 * boards + 2 * boards)
            sink.clear()
            # 1. end to end: from the start of delivery to the last reply at the sink
            start = time.monotonic()
            feeder = threading.Thread(target=dovecot.deliver_many, args=(user, work))
            feeder.start()
            end = wait_for(sink, 2 * len(work))
            feeder.join()
            rate = len(work) / (end - start)
            # 2. the mail already in Dovecot (as for the ceiling): the next moves wait in
            # another folder and one UID MOVE puts them all in the inbox at once
            dovecot.append_many(user, password, "staging", staged)
            sink.clear()
            parts = {"daemon": [server.pid], "sink": [sink.proc.pid], "dovecot": [dovecot._process.pid]}
            before = {name: cpu_seconds(pids) for name, pids in parts.items()}
            with dovecot.imap(user, password) as conn:
                conn.select("staging")
                start = time.monotonic()
                typ, data = conn.uid("MOVE", "1:*", "INBOX")
                assert typ == "OK", data
            end = wait_for(sink, 2 * len(staged))
            processing = len(staged) / (end - start)
            time.sleep(0.2)  # let /proc catch up with the last reply
            cpu = {name: (cpu_seconds(pids) - before[name]) * 1000 / len(staged) for name, pids in parts.items()}
        finally:
            server.terminate()
            server.wait(60)
        # the ceiling: the same number of messages, fetched and flagged by a plain loop
        ceiling_user = user + "c"
        dovecot.add_user(ceiling_user, password)
        dovecot.deliver_many(ceiling_user, work)
        ceiling, cpu["ceiling loop"] = asyncio.run(fetch_and_flag(dovecot, ceiling_user, password, len(work)))
        # the other end: how fast the sink alone takes the same replies from a
        # plain smtplib loop (one connection, one message after the other)
        sink.clear()
        sample = sample_reply(games[0][:moves])
        start = time.monotonic()
        with smtplib.SMTP(sink.host, sink.port) as smtp:
            for _ in range(2 * len(work)):
                smtp.sendmail("pbm@mail.test", ["p0@example.org"], sample)
        sink_rate = 2 * len(work) / (wait_for(sink, 2 * len(work)) - start)
    return rate, processing, ceiling, cpu, sink_rate


def daemon_alone(dovecot: Dovecot, boards: int, moves: int) -> tuple[float, float]:
    """The processing figure with no relay and no sink: replies written to
    the Maildir outbox, so only the daemon and Dovecot work.  Messages per
    second until the last reply file is there, and the daemon's CPU
    milliseconds per command."""
    rng = random.Random(8)
    games = [quiet_game(rng, moves) for _ in range(boards)]
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        user, password = "alone" + str(rng.randrange(10**6)), "pw"
        dovecot.add_user(user, password)
        path = write_config(Path(tmp), dovecot=dovecot, user=type("U", (), {"name": user, "password": password}))
        new = Path(tmp) / "outbox-maildir" / "new"

        def replies(n: int) -> None:
            while not new.is_dir() or len(os.listdir(new)) < n:
                time.sleep(0.002)

        server = subprocess.Popen([sys.executable, "-m", "pbm", "serve", "--config", str(path)], cwd=tmp,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            dovecot.deliver_many(user, setup_mails(boards))
            replies(4 * boards)
            staged = move_mails(boards, moves, rng, games=games)
            dovecot.append_many(user, password, "staging", staged)
            before = cpu_seconds([server.pid])
            with dovecot.imap(user, password) as conn:
                conn.select("staging")
                start = time.monotonic()
                typ, data = conn.uid("MOVE", "1:*", "INBOX")
                assert typ == "OK", data
            replies(4 * boards + 2 * len(staged))
            end = time.monotonic()
            cpu = (cpu_seconds([server.pid]) - before) * 1000 / len(staged)
        finally:
            server.terminate()
            server.wait(60)
    return len(staged) / (end - start), cpu


def latency(dovecot: Dovecot, samples: int) -> list[float]:
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp, Sink() as sink:
        user, password = "lat" + str(random.randrange(10**6)), "pw"
        dovecot.add_user(user, password)
        account = type("U", (), {"name": user, "password": password})
        path = write_config(Path(tmp), dovecot=dovecot, user=account, sink=sink)
        out = []
        with DaemonThread(path):
            time.sleep(0.5)  # let it settle into IDLE
            for i in range(samples):
                before = len(sink.messages)
                start = time.perf_counter()
                dovecot.deliver(user, command_mail(f"x{i}@example.org", "list"))
                sink.wait_for(before + 1, timeout=30)
                out.append(time.perf_counter() - start)
                time.sleep(0.1)
        return out


def sample_reply(moves: list[str]) -> bytes:
    """A board mail as the daemon sends it, after these moves."""
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        config = load_config(write_config(Path(tmp)))
        store = Store(config.server.database)
        pipeline = Pipeline(store, config)
        now = datetime(2026, 1, 1, tzinfo=UTC)
        pipeline.exec_command("a@x.org", "signup alice apple", now=now)
        pipeline.exec_command("b@x.org", "signup bob banana", now=now)
        pipeline.exec_command("a@x.org", "trax challenge alice bob apple", now=now)
        result = None
        for ply, move in enumerate(moves):
            who, pw = ("alice", "apple") if ply % 2 == 0 else ("bob", "banana")
            result = pipeline.exec_command(f"{who[0]}@x.org", f"trax move 101 {who} {pw} {move}", now=now)
        store.close()
        assert result is not None
        return wire_bytes(result.replies[0])


def scaling() -> list[tuple[int, int, float, int]]:
    """Milliseconds per move command, in-process, by (boards, game length),
    with the size in bytes of the last board mail (its diagram grows with
    the board, and drawing it is most of what a longer game adds)."""
    rng = random.Random(11)
    results = []
    for boards, length in ((10, 10), (10, 250), (1000, 10), (1000, 250)):
        with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
            config = load_config(write_config(Path(tmp)))
            store = Store(config.server.database)
            pipeline = Pipeline(store, config)
            now = datetime(2026, 1, 1, tzinfo=UTC)
            pipeline.exec_command("a@x.org", "signup alice apple", now=now)
            pipeline.exec_command("b@x.org", "signup bob banana", now=now)
            game = quiet_game(rng, length + 40, "looptrax")
            with store.atomic():  # the other boards, written directly: only their number matters
                for _ in range(boards - 1):
                    store.create_board(game="looptrax", white_id=1, black_id=2, nag_days=7, forfeit_days=21,
                                       created_at="2026-01-01", updated_at="2026-01-01")
                number = store.create_board(game="looptrax", white_id=1, black_id=2, nag_days=7, forfeit_days=21,
                                            moves=" ".join(game[:length]), created_at="2026-01-01",
                                            updated_at="2026-01-01")
            times = []
            for ply in range(length, length + 30):
                who, pw = ("alice", "apple") if ply % 2 == 0 else ("bob", "banana")
                start = time.perf_counter()
                result = pipeline.exec_command(f"{who[0]}@x.org", f"looptrax move {number} {who} {pw} {game[ply]}",
                                               now=now)
                times.append(time.perf_counter() - start)
                assert "Error" not in str(result.replies[0]["Subject"]), result.replies[0].get_content()
            store.close()
            size = len(result.replies[0].as_bytes())
            results.append((boards, length, statistics.median(times[1:]) * 1000, size))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=int, default=100)
    parser.add_argument("--moves", type=int, default=10, help="moves per board (default 10: 1,000 commands)")
    parser.add_argument("--samples", type=int, default=30, help="latency samples")
    parser.add_argument("--only", choices=("throughput", "latency", "scaling"), help="run one part only")
    parser.add_argument("--server-log", help="write the daemon's log to this file")
    parser.add_argument("--sink-port", type=int, help=argparse.SUPPRESS)  # the sink process
    args = parser.parse_args()
    if args.sink_port:
        return sink_main(args.sink_port)
    if args.only in (None, "throughput", "latency"):
        with Dovecot() as dovecot:
            if args.only in (None, "throughput"):
                figures = throughput(dovecot, args.boards, args.moves, args.server_log)
                rate, processing, ceiling, cpu, sink_rate = figures
                n = args.boards * args.moves
                print(f"ceiling:    {ceiling:,.0f} msg/s (fetch and flag, one at a time, mail already delivered)")
                print(f"throughput: {rate:,.0f} msg/s ({n} move commands over {args.boards} boards, "
                      f"LMTP delivery included); ratio {rate / ceiling:.2f}")
                print(f"processing: {processing:,.0f} msg/s ({n} more moves already in Dovecot, moved into the "
                      f"inbox at once); ratio {processing / ceiling:.2f}")
                loop_ms = cpu.pop("ceiling loop")
                print("cpu:        " + ", ".join(f"{name} {ms:.2f}" for name, ms in cpu.items())
                      + f" ms per command while processing ({os.cpu_count()} CPUs)")
                budget = os.cpu_count() * 1000 / (ceiling / 2)
                left = budget - cpu["sink"] - cpu["dovecot"]
                print(f"budget:     at half the ceiling ({ceiling / 2:,.0f} commands/s) {os.cpu_count()} CPUs have "
                      f"{budget:.2f} ms per command; less the sink and Dovecot, {left:.2f} ms are left for the daemon "
                      f"(it took {cpu['daemon']:.2f}); the ceiling's loop alone spends {loop_ms:.2f} ms per message")
                print(f"sink alone: {sink_rate:,.0f} replies/s from a plain smtplib loop, so at most "
                      f"{sink_rate / 2:,.0f} commands/s at two replies each; processing is "
                      f"{processing / (sink_rate / 2):.2f} of that")
                alone, alone_cpu = daemon_alone(dovecot, args.boards, args.moves)
                print(f"no relay:   {alone:,.0f} msg/s processing with the replies written to the Maildir outbox "
                      f"(no SMTP, no sink); ratio {alone / ceiling:.2f}; daemon {alone_cpu:.2f} ms CPU per command")
            if args.only in (None, "latency"):
                lat = sorted(latency(dovecot, args.samples))
                p95 = lat[min(len(lat) - 1, round(0.95 * len(lat)) - 1)]
                print(f"latency:    median {statistics.median(lat) * 1000:.0f} ms, 95th percentile {p95 * 1000:.0f} ms "
                      f"(IDLE, delivery to reply at the sink)")
    if args.only not in (None, "scaling"):
        return
    for boards, length, ms, size in scaling():
        print(f"scaling:    {ms:.1f} ms per move command, {boards} boards, game of {length} moves "
              f"(board mail of {size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
