"""End-to-end benchmark of the mail daemon, with a relay that is never the limit.

    bash bench/setup.sh                 # once: Dovecot and Postfix's smtp-sink (no mail server is started)
    .venv/bin/python bench/mail.py      # some minutes: both columns, 100 and 10,000 boards
    .venv/bin/python bench/mail.py --stored 100 --commands 500 --samples 20 --pictures off

Everything runs on 127.0.0.1.  The replies go to Postfix's ``smtp-sink`` (C;
it counts what it takes and throws it away), so the relay costs next to
nothing.  For each size of store (``--stored``, default 100 and 10,000
boards, seeded through the domain layer: accounts, boards and moves made by
the server's own functions), the same ``--commands`` move commands (on the
first 100 boards) are measured in one run, in two columns side by side:
**pictures on** (a PNG of the board in every board mail, as a server runs
by default) and **pictures off** (``--pictures on|off`` measures one column
only, for a quick run).  Each column starts from a copy of the same seeded
store.  The ceiling is measured once per store:

  ceiling     a plain client fetching and flagging the same backlog one
              message at a time (aioimaplib, as the daemon uses), messages/s
  daemon      ``pbm serve`` with the backlog moved into its inbox at once
              (one UID MOVE): commands/s from then until smtp-sink has
              counted the last reply, and the share of the ceiling
  cpu         the daemon's CPU milliseconds per command, from the kernel's
              accounting of its process (/proc), while it worked (user,
              system, thread switches)
  pipeline    the same commands through ``Pipeline.handle`` in this process
              on a copy of the same store: CPU per command; the daemon's cost
              beyond it is the difference
  picture     of the pipeline's CPU, what drawing the board picture took
              (``pbm.trax.picture.board_png``: drawing, then PNG encoding),
              and ``Composer.picture`` in all (that, the digest, the alt
              text, base64), timed by wrappers this bench installs
  statements  SQL statements per command that the pipeline's connection
              ran (``sqlite3`` trace callback, in a second pass on another
              copy of the store, so that the timed pass carries no hook):
              reads, writes and transaction control (BEGIN, COMMIT,
              SAVEPOINT, RELEASE); the trigger programs that writes ran
              are counted apart (SQLite's trace repeats the statement for
              each), and the outbox's statements not at all (its own
              connection, in the daemon).
              Then (``--statements N``, default 10, 0: none) the N most
              frequent shapes (numbers and strings as ?), per command
  latency     with IDLE, single commands delivered one at a time: from
              delivery (LMTP) to the reply counted by smtp-sink, median and
              95th percentile
  searching   (the first store only, ``--searches``) the daemon's rate
              again while the computer runs that many jobs, over its idle
              rate

Then, per column, the cost at the large store over the cost at the small
one (goal: 1.2 at most).  The goals printed are issue 33's.
``--pipeline-only`` prints the in-process figures alone (no Dovecot, no
daemon), also with every player reading each of ``--languages``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

#: The checkout measured: this one, or another's (PBM_ROOT=FOLDER, to
#: measure an older commit's pipeline with this bench: --pipeline-only).
ROOT = Path(os.environ.get("PBM_ROOT") or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # bench.games, whatever is measured

import aioimaplib  # noqa: E402

from bench.games import quiet_game  # noqa: E402
from pbm.app.pipeline import Pipeline  # noqa: E402
from pbm.config import load_config  # noqa: E402
from pbm.domain import computer  # noqa: E402
from pbm.domain.accounts import new_password_hash  # noqa: E402
from pbm.domain.boards import load_game, new_board  # noqa: E402
from pbm.domain.context import Context  # noqa: E402
from pbm.domain.store import Store  # noqa: E402
from pbm.domain.turns import Turn, play, try_move  # noqa: E402
from pbm.grammar import Password  # noqa: E402
from pbm.terms import BoardTerms  # noqa: E402
from tests.mail.daemon import command_mail, wait_until  # noqa: E402
from tests.mail.servers import Dovecot, free_port  # noqa: E402

SERVER = "pbm@mail.test"
NOW = datetime.now(UTC).replace(microsecond=0)  # the daemon works at the real time: so does the store
#: Players of the stored boards: each plays many (a real club has fewer players than boards).
PLAYERS = 200
#: Moves already on every stored board.
SEEDED_MOVES = 4
#: Boards the measured commands are on.
ACTIVE = 100


# ----------------------------------------------------------------------------
# the relay: Postfix's smtp-sink


class SmtpSink:
    """``smtp-sink -c``: takes every message and forgets it, printing its
    running count of messages (``mesg=N``) as it goes.  A thread reads the
    counts and notes the monotonic time at which each was reached."""

    def __init__(self) -> None:
        binary = shutil.which("smtp-sink") or "/usr/sbin/smtp-sink"
        if not Path(binary).exists():
            raise SystemExit("smtp-sink is missing: run `bash bench/setup.sh` (Debian's postfix package)")
        self.host, self.port = "127.0.0.1", free_port()
        as_user = ["-u", "nobody"] if os.geteuid() == 0 else []
        self.proc = subprocess.Popen([binary, "-c", *as_user, f"{self.host}:{self.port}", "1024"],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.count = 0
        self.reached: dict[int, float] = {}
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        wait_until(self._open, timeout=10, what="smtp-sink")

    def _open(self) -> bool:
        import socket

        with socket.socket() as s:
            return s.connect_ex((self.host, self.port)) == 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        buffer = b""
        while chunk := self.proc.stdout.read1(4096):
            now = time.monotonic()
            buffer += chunk
            *done, buffer = re.split(rb"[\r\n]", buffer)
            for line in done:
                found = re.search(rb"mesg=(\d+)", line)
                if found:
                    with self.changed:
                        n = int(found.group(1))
                        for k in range(self.count + 1, n + 1):
                            self.reached[k] = now
                        self.count = max(self.count, n)
                        self.changed.notify_all()

    def wait_for(self, n: int, timeout: float = 900) -> float:
        """The monotonic time at which the sink had taken ``n`` messages in all."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while self.count < n:
                if not self.changed.wait(max(deadline - time.monotonic(), 0)):
                    raise AssertionError(f"smtp-sink took {self.count} messages, expected {n}")
            return self.reached[n]

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


# ----------------------------------------------------------------------------
# a store of a given size, made by the server's own functions


def write_config(folder: Path, *, dovecot: Dovecot | None = None, user: str = "", sink: SmtpSink | None = None,
                 pictures: bool = False, searches: int = 0) -> Path:
    lines = ["[server]", f'address = "{SERVER}"', 'database = "pbm.sqlite3"',
             f"pictures = {'true' if pictures else 'false'}", ""]
    if dovecot is not None:
        lines += ["[imap]", f'host = "{dovecot.host}"', f"port = {dovecot.imap_port}", f'username = "{user}"',
                  'password = "pw"', 'tls = "none"', ""]
    if sink is not None:
        lines += ["[smtp]", f'host = "{sink.host}"', f"port = {sink.port}", 'tls = "none"', ""]
    lines += ["[listen]", "enabled = false", "", "[limits]", "replies_per_sender_per_day = 1000000",
              "new_boards_per_player_per_day = 1000000", "", "[games]", "clock_interval_seconds = 3600", ""]
    if searches:  # that many level-4 searches at once, each long enough to outlast the backlog
        lines += ["[computer]", f"workers = {searches}", f"max_searches = {searches}", "level4_seconds = 10",
                  "analysis_seconds = 10", ""]
    path = folder / "pbm.toml"
    path.write_text("\n".join(lines))
    return path


def seed(folder: Path, boards: int, rng: random.Random) -> list[list[str]]:
    """A store of ``boards`` boards among PLAYERS players (p0 .. p199, password
    pwN), each with SEEDED_MOVES moves, made through the domain layer; the
    quiet games of the first ACTIVE boards, to go on with."""
    config = load_config(write_config(folder))
    store = Store(config.server.database)
    ctx = Context(store, config, NOW)
    users = []
    with store.atomic():
        for i in range(PLAYERS):
            ctx.password_checks = 0  # each account as if from a mail of its own
            users.append(store.create_user(f"p{i}", f"p{i}", new_password_hash(ctx, Password(f"pw{i}")),
                                           [f"p{i}@example.org"], NOW,
                                           confirmed=[f"p{i}@example.org"]))  # mail goes to them
    games = []
    for start in range(0, boards, 500):
        with store.atomic():
            for b in range(start, min(boards, start + 500)):
                white, black = users[(2 * b) % PLAYERS], users[(2 * b + 1) % PLAYERS]
                number = new_board(ctx, "trax", white, black, BoardTerms())
                game = quiet_game(rng, 40)
                loaded = load_game(ctx, number)
                for ply in range(SEEDED_MOVES):
                    play(ctx, loaded, loaded.to_move, game[ply], Turn())
                if b < ACTIVE:
                    games.append(game)
        ctx.positions.kept.clear()
    store.close()
    return games


#: A recorded game (white closes a loop on move 17), analysed while the mail runs.
ANALYSED_GAME = ["@0/", "A2+", "A3/", "@2/", "@2/", "A1/", "D2+", "B0+", "@3+", "D0/", "E1/", "F1/", "D0\\",
                 "C1\\", "B1+", "E0+", "@5/"]


def seed_computer_games(folder: Path, count: int) -> None:
    """``count`` jobs for the computer, made through the domain layer: half
    (rounded up) boards where it is to move at level 4 (the trigger queues a
    job for each), the others analyses of a finished game (``trax analyze``,
    queued as the command queues them)."""
    config = load_config(write_config(folder, searches=count))
    store = Store(config.server.database)
    ctx = Context(store, config, NOW)
    machine = computer.ensure_account(store, config, NOW)
    assert machine is not None
    analyses = count // 2
    with store.atomic():
        for i in range(count - analyses):
            new_board(ctx, "trax", machine, store.find_user(f"p{i}"), BoardTerms(), level=4)
        for i in range(analyses):
            white, black = store.find_user(f"p{2 * i}"), store.find_user(f"p{2 * i + 1}")
            number = new_board(ctx, "trax", white, black, BoardTerms())
            for move in ANALYSED_GAME:
                game = load_game(ctx, number)
                try_move(ctx, game, game.to_move, move, Turn())
            store.queue_analysis(number, f"p{2 * i}@example.org", f"u{white.id}", None, NOW)
    store.close()


def commands(games: list[list[str]], count: int, first: int = SEEDED_MOVES) -> list[bytes]:
    """``count`` move commands from move ``first`` on, a round of the ACTIVE boards at a time."""
    mails = []
    ply = first
    while len(mails) < count:
        for b, game in enumerate(games):
            player = (2 * b + ply % 2) % PLAYERS
            mails.append(command_mail(f"p{player}@example.org",
                                      f"trax move {101 + b} p{player} pw{player} {game[ply]}#{ply + 1}"))
        ply += 1
    return mails[:count]


# ----------------------------------------------------------------------------
# measuring


def cpu_seconds(pid: int) -> tuple[float, float, int]:
    """User and system CPU seconds used so far by a process (from /proc),
    and how many times its threads were switched out (voluntarily or not)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    tick = os.sysconf("SC_CLK_TCK")
    switches = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        for line in (task / "status").read_text().splitlines():
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                switches += int(line.split()[1])
    return int(fields[11]) / tick, int(fields[12]) / tick, switches


async def fetch_and_flag(dovecot: Dovecot, user: str, count: int) -> float:
    """Messages per second of a plain client fetching and flagging one at a time."""
    imap = aioimaplib.IMAP4(dovecot.host, dovecot.imap_port, timeout=60)
    await imap.wait_hello_from_server()
    await imap.login(user, "pw")
    await imap.select("INBOX")
    start = time.perf_counter()
    response = await imap.uid_search("ALL")
    uids = [int(w) for line in response.lines[:-1] for w in bytes(line).split() if w.isdigit()][:count]
    for uid in uids:
        await imap.uid("fetch", str(uid), "(BODY.PEEK[])")
        await imap.uid("store", str(uid), "+FLAGS.SILENT", r"(\Seen)")
    elapsed = time.perf_counter() - start
    await imap.logout()
    return len(uids) / elapsed


#: The columns: board pictures on (as a server runs, the default) and off.
COLUMNS = {"on": True, "off": False}

#: Issue 33's goals, per column where they differ.
GOALS: dict[str, dict[str, float]] = {
    "on": {"share": 0.3, "cpu": 2.0, "pipeline": 1.5},
    "off": {"share": 0.4, "cpu": 0.9, "pipeline": 0.6},
}
SCALING_GOAL = 1.2
STATEMENTS_GOAL = 12
SEARCHING_GOAL = 0.85
LATENCY_GOALS = (600, 1000)


class PictureClock:
    """While installed (:meth:`installed`), wrappers on the functions that
    draw a mail's board picture note their CPU time in this process:
    ``pbm.trax.picture.board_image`` (drawing), ``board_png`` as the
    composer calls it (drawing and PNG encoding) and ``Composer.picture``
    (that, the digest, the alt text, base64 and its cache's look-ups)."""

    def __init__(self) -> None:
        self.seconds = {"draw": 0.0, "png": 0.0, "picture": 0.0}
        self.drawn = 0

    def _timed(self, name: str, function: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[name] += time.process_time() - start
                self.drawn += name == "png"

        return timed

    @contextmanager
    def installed(self) -> Iterator[bool]:
        """The wrappers in place (False: the checkout measured has not these
        functions, and nothing is timed)."""
        from pbm.app import compose
        from pbm.trax import picture

        places = [(compose, "board_png", "png"), (getattr(compose, "Composer", None), "picture", "picture"),
                  (picture, "board_image", "draw")]
        found = [(owner, attr, name, getattr(owner, attr, None)) for owner, attr, name in places]
        if any(function is None for *_, function in found):
            yield False
            return
        for owner, attr, name, function in found:
            setattr(owner, attr, self._timed(name, function))
        try:
            yield True
        finally:
            for owner, attr, _, function in found:
                setattr(owner, attr, function)


def shape(sql: str) -> str:
    """A statement with its values (as the trace shows them, written in)
    and savepoints' names replaced by ?, an IN list by one ?, white space
    collapsed."""
    sql = re.sub(r"[xX]?'(?:[^']|'')*'", "?", sql)
    sql = re.sub(r"(?<![\w\"])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", "?", sql)
    sql = re.sub(r"\bIN\s*\(\s*\?(?:\s*,\s*\?)*\s*\)", "IN (?)", sql, flags=re.IGNORECASE)
    sql = re.sub(r"\b(SAVEPOINT|RELEASE|ROLLBACK TO)(\s+SAVEPOINT)?\s+[\w\"]+", r"\1\2 ?", sql,
                 flags=re.IGNORECASE)  # sqlite-utils names each savepoint anew
    return " ".join(sql.split()).rstrip("; ")


def kind(sql_shape: str) -> str:
    """read, write or transaction (control)."""
    first = sql_shape.split(None, 1)[0].upper() if sql_shape else ""
    if first in ("BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"):
        return "transaction"
    if first in ("SELECT", "PRAGMA") or (first == "WITH" and not re.search(
            r"\b(INSERT|UPDATE|DELETE|REPLACE)\b", sql_shape, re.IGNORECASE)):
        return "read"
    return "write"


def in_process(folder: Path, warm: list[bytes], mails: list[bytes], pictures: bool,
               trace: bool = False) -> dict[str, Any]:
    """``Pipeline.handle`` on a copy of the store, after the warm-up commands
    (every player logs in once): per command, CPU milliseconds, of which the
    picture's (:class:`PictureClock`; ``None`` when not timed), and the
    pictures drawn.  ``trace``: instead of timing, the SQL statements its
    connection runs, as a Counter of their shapes (:func:`shape`), and the
    trigger programs they ran per command."""
    config = load_config(write_config(folder, pictures=pictures))
    store = Store(config.server.database)
    pipeline = Pipeline(store, config)
    for raw in warm:
        pipeline.handle(raw, now=NOW)
    n = len(mails)
    if trace:
        seen: list[str] = []
        conn = store.db.conn
        conn.set_trace_callback(seen.append)
        for raw in mails:
            pipeline.handle(raw, now=NOW)
        conn.set_trace_callback(None)
        store.close()
        # SQLite reports a statement again for each trigger program it runs (Python
        # passes the statement's text, not the trigger's): a write seen twice in a row
        # is one statement, and the repeats are trigger runs
        shapes: Counter[str] = Counter()
        triggers = 0
        for i, sql in enumerate(seen):
            if i and sql == seen[i - 1] and kind(sql) == "write":
                triggers += 1
            else:
                shapes[shape(sql)] += 1
        return {"shapes": shapes, "triggers": triggers / n}
    clock = PictureClock()
    with clock.installed() as timed:
        start = time.process_time()
        for raw in mails:
            pipeline.handle(raw, now=NOW)
        cpu = time.process_time() - start
    store.close()
    ms = {name: seconds * 1000 / n if timed else None for name, seconds in clock.seconds.items()}
    return {"pipeline": cpu * 1000 / n, **ms, "drawn": clock.drawn / n if timed else None}


def pipeline_costs(pristine: Path, warm: list[bytes], mails: list[bytes],
                   runs: list[tuple[str, bool, str | None]]) -> dict[str, dict[str, Any]]:
    """The pipeline's figures (:func:`in_process`) on copies of the store
    ``pristine``, for each of ``runs`` (label, pictures, language: every
    player reading it, or None: as seeded, no language chosen); with a
    second pass counting the statements for runs without a language."""
    cost: dict[str, dict[str, Any]] = {}
    for label, with_pictures, language in runs:
        for trace in (False, True) if language is None else (False,):
            with tempfile.TemporaryDirectory(dir="/tmp") as copy_dir:
                shutil.copy(pristine, Path(copy_dir) / "pbm.sqlite3")
                if language not in (None, "en"):
                    with sqlite3.connect(Path(copy_dir) / "pbm.sqlite3") as db:
                        db.execute("UPDATE users SET language = ?", (language,))
                    db.close()
                cost.setdefault(label, {}).update(in_process(Path(copy_dir), warm, mails, with_pictures, trace))
        if "shapes" in cost[label]:
            shapes = cost[label]["shapes"]
            cost[label]["statements"] = sum(shapes.values()) / len(mails)
            kinds: Counter[str] = Counter()
            for sql, times in shapes.items():
                kinds[kind(sql)] += times
            cost[label]["kinds"] = {k: kinds[k] / len(mails) for k in ("read", "write", "transaction")}
    return cost


def pipeline_only(stored: int, count: int, columns: list[str], languages: tuple[str, ...], top: int) -> None:
    """--pipeline-only: the in-process figures alone (no Dovecot, no
    daemon), for each column and (pictures on) each player's language."""
    rng = random.Random(stored)
    runs: list[tuple[str, bool, str | None]] = [(f"pictures {c}", COLUMNS[c], None) for c in columns]
    if "on" in columns:
        runs += [(f"pictures on, {lang}", True, lang) for lang in languages]
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        folder = Path(tmp)
        games = seed(folder, stored, rng)
        warm = commands(games, 2 * ACTIVE)
        mails = commands(games, count, first=SEEDED_MOVES + 2)
        cost = pipeline_costs(folder / "pbm.sqlite3", warm, mails, runs)
    print(f"\n{stored:,} boards stored, {len(mails):,} move commands through Pipeline.handle in this process "
          f"({ROOT}):")
    for label, c in cost.items():
        line = f"  {label:<18} {c['pipeline']:.2f} ms CPU per command"
        if c["png"] is not None:
            line += (f", of which the picture {c['png']:.2f} ms (drawing {c['draw']:.2f}, Composer.picture in all "
                     f"{c['picture']:.2f})")
        if "statements" in c:
            line += f"; {c['statements']:.1f} SQL statements (and {c['triggers']:.1f} trigger programs started)"
        print(line)
    print_shapes({label: c for label, c in cost.items() if "shapes" in c}, len(mails), top)


def print_shapes(costs: dict[str, dict[str, Any]], n: int, top: int) -> None:
    """The ``top`` most frequent statement shapes, per command, a column for each of ``costs``."""
    if top <= 0 or not costs:
        return
    total: Counter[str] = Counter()
    for c in costs.values():
        total.update(c["shapes"])
    labels = [label.removeprefix("pictures ") for label in costs]
    print(f"  SQL statements per command by shape, the {top} most frequent (values as ?):")
    print("    " + "".join(f"{label:>7}" for label in labels))
    for sql, _ in total.most_common(top):
        counts = "".join(f"{c['shapes'][sql] / n:7.2f}" for c in costs.values())
        text = sql if len(sql) <= 110 else sql[:107] + "..."
        print(f"    {counts}  {text}")
    shown = {sql for sql, _ in total.most_common(top)}
    if len(total) == len(shown):
        return
    rest = "".join(f"{sum(t for sql, t in c['shapes'].items() if sql not in shown) / n:7.2f}"
                   for c in costs.values())
    print(f"    {rest}  the other {len(total) - len(shown)} shapes")


def daemon_figures(dovecot: Dovecot, sink: SmtpSink, folder: Path, warm: list[bytes], mails: list[bytes],
                   samples: int, log: Path | None, searches: int = 0, *,
                   pictures: bool = True) -> tuple[float, tuple[float, float, float, float], list[float]]:
    """The daemon on the store in ``folder``: commands per second for the
    backlog, its CPU milliseconds per command, and the latencies (seconds).
    With ``searches``, the store has that many jobs for the computer (level-4
    moves and analyses of finished games, :func:`seed_computer_games`), and
    the daemon's workers run them all at once meanwhile.  ``pictures``:
    board mails carry a picture (the server's default).  With
    :data:`PROFILE` set, py-spy samples it while the backlog drains."""
    user = f"bench{random.randrange(10**9)}"
    dovecot.add_user(user, "pw")
    path = write_config(folder, dovecot=dovecot, user=user, sink=sink, pictures=pictures, searches=searches)
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 - open while the daemon runs
    command = [sys.executable, "-m", "pbm", "serve", "--config", str(path)]
    server = subprocess.Popen(command, cwd=folder, stdout=out, stderr=out)
    pid = server.pid
    spy = None
    try:
        # the warm-up round: every player's first login pays for scrypt once, as on a
        # server that has been running; then it settles into IDLE
        base = sink.count
        dovecot.deliver_many(user, warm)
        sink.wait_for(base + 2 * len(warm), timeout=600)
        # the backlog: staged in another folder, moved into the inbox in one command
        dovecot.append_many(user, "pw", "staging", mails)
        if PROFILE:  # sampled by py-spy (GIL holders only with --gil) while the backlog drains
            spy = subprocess.Popen([str(Path(sys.executable).parent / "py-spy"), "record", "-r", "250",
                                    *PROFILE[1:], "-o", PROFILE[0], "--format", "raw",
                                    "--pid", str(pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1.0)  # py-spy has attached
        replies = 2 * len(mails)
        base = sink.count
        before = cpu_seconds(pid)
        with dovecot.imap(user, "pw") as conn:
            conn.select("staging")
            start = time.monotonic()
            typ, data = conn.uid("MOVE", "1:*", "INBOX")
            assert typ == "OK", data
        end = sink.wait_for(base + replies)
        time.sleep(0.3)  # the kernel's accounting catches up with the last reply
        after = cpu_seconds(pid)
        in_user, in_system, switches = ((a - b) / len(mails) for a, b in zip(after, before))
        cpu = (in_user + in_system) * 1000
        if spy is not None:
            spy.send_signal(2)  # py-spy writes its record when interrupted
            spy.wait(60)
        rate = len(mails) / (end - start)
        # latency: one command at a time
        waits = []
        for i in range(samples):
            base = sink.count
            start = time.monotonic()
            dovecot.deliver(user, command_mail(f"p{i % PLAYERS}@example.org", "list"))
            waits.append(sink.wait_for(base + 1, timeout=60) - start)
            time.sleep(0.05)
    finally:
        server.terminate()
        server.wait(60)
    return rate, (cpu, in_user * 1000, in_system * 1000, switches), waits


#: The file py-spy writes the daemon's samples to, and its options (--gil), while set.
PROFILE: list[str] = []


def measure(dovecot: Dovecot, sink: SmtpSink, stored: int, count: int, *, samples: int, columns: list[str],
            log: Path | None, searches: int = 0, profile: list[str] | None = None) -> dict[str, Any]:
    """The figures of one store: the ceiling, then per column (pictures on,
    off) the pipeline in this process and the daemon, each on a copy of the
    store as seeded."""
    rng = random.Random(stored)
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        folder = Path(tmp)
        seed_start = time.perf_counter()
        games = seed(folder, stored, rng)
        seeding = time.perf_counter() - seed_start
        warm = commands(games, 2 * ACTIVE)
        mails = commands(games, count, first=SEEDED_MOVES + 2)
        # the same backlog for the ceiling, in a mailbox of its own
        ceiling_user = f"ceiling{random.randrange(10**9)}"
        dovecot.add_user(ceiling_user, "pw")
        dovecot.append_many(ceiling_user, "pw", "INBOX", mails)
        ceiling = asyncio.run(fetch_and_flag(dovecot, ceiling_user, len(mails)))
        # the pipeline in this process, on copies of the store
        pristine = folder / "pristine.sqlite3"
        shutil.copy(folder / "pbm.sqlite3", pristine)
        cost = pipeline_costs(pristine, warm, mails, [(c, COLUMNS[c], None) for c in columns])
        figures = {}
        for column in columns:
            if profile:  # a file for each store and column
                path = Path(profile[0])
                PROFILE[:] = [str(path.with_name(f"{path.stem}-{stored}-{column}{path.suffix}")), *profile[1:]]
            with tempfile.TemporaryDirectory(dir="/tmp") as run_dir:
                shutil.copy(pristine, Path(run_dir) / "pbm.sqlite3")
                rate, cpu, waits = daemon_figures(dovecot, sink, Path(run_dir), warm, mails, samples, log,
                                                  pictures=COLUMNS[column])
                PROFILE.clear()
            busy_rate = None
            if searches:
                with tempfile.TemporaryDirectory(dir="/tmp") as copy_dir:
                    shutil.copy(pristine, Path(copy_dir) / "pbm.sqlite3")
                    seed_computer_games(Path(copy_dir), searches)
                    busy_rate = daemon_figures(dovecot, sink, Path(copy_dir), warm, mails, 0, log,
                                               searches, pictures=COLUMNS[column])[0]
            waits.sort()
            figures[column] = {
                "rate": rate, "share": rate / ceiling, "cpu": cpu[0], "user": cpu[1], "system": cpu[2],
                "switches": cpu[3], **cost[column], "median": statistics.median(waits) if waits else None,
                "p95": waits[min(len(waits) - 1, round(0.95 * len(waits)) - 1)] if waits else None,
                "busy rate": busy_rate,
            }
    return {"stored": stored, "commands": len(mails), "seeding": seeding, "ceiling": ceiling, "columns": figures}


LABEL = 42  #: width of a row's label
CELL = 18  #: width of a column


def row(label: str, cells: list[str], goal: str = "") -> None:
    print(f"  {label:<{LABEL}}" + "".join(f"{c:>{CELL}}" for c in cells) + (f"   {goal}" if goal else ""))


def goal(name: str, columns: list[str], fmt: str, prefix: str, unit: str = "") -> str:
    return f"{prefix} " + " | ".join(format(GOALS[c][name], fmt) for c in columns) + unit


def report(r: dict[str, Any], columns: list[str], searches: int, top: int) -> None:
    """One store's figures, a column for each of ``columns``."""
    f = [r["columns"][c] for c in columns]

    def cells(fmt: str, key: str) -> list[str]:
        return ["-" if x[key] is None else format(x[key], fmt) for x in f]

    print(f"\n{r['stored']:,} boards stored (seeded in {r['seeding']:.0f} s), {r['commands']:,} move commands; "
          f"ceiling {r['ceiling']:,.0f} msg/s (fetch and flag one at a time, aioimaplib)")
    row("", [f"pictures {c}" for c in columns], "goals " + " | ".join(columns))
    row("daemon, commands/s end to end", cells(",.0f", "rate"))
    row("  share of the ceiling", cells(".2f", "share"), goal("share", columns, ".1f", ">="))
    row("daemon CPU per command, ms", cells(".2f", "cpu"), goal("cpu", columns, ".1f", "<="))
    row("  user | system, ms", [f"{x['user']:.2f} | {x['system']:.2f}" for x in f])
    row("  thread switches per command", cells(".1f", "switches"))
    row("pipeline CPU per command (in-process), ms", cells(".2f", "pipeline"),
        goal("pipeline", columns, ".1f", "<="))
    row("  of which the picture (board_png), ms", cells(".2f", "png"))
    row("    drawing | PNG encoding, ms",
        ["-" if x["png"] is None else f"{x['draw']:.2f} | {x['png'] - x['draw']:.2f}" for x in f])
    row("    Composer.picture in all, ms", cells(".2f", "picture"))
    row("    pictures drawn per command", cells(".2f", "drawn"))
    row("daemon beyond the pipeline, ms", [f"{x['cpu'] - x['pipeline']:.2f}" for x in f])
    row("SQL statements per command", cells(".1f", "statements"), f"<= {STATEMENTS_GOAL}")
    row("  read | write | transaction",
        [" | ".join(f"{x['kinds'][k]:.1f}" for k in ("read", "write", "transaction")) for x in f])
    row("  trigger programs started besides", cells(".1f", "triggers"))
    row("latency median | p95 (IDLE), ms",
        ["-" if x["median"] is None else f"{x['median'] * 1000:.0f} | {x['p95'] * 1000:.0f}" for x in f],
        f"<= {LATENCY_GOALS[0]:,} | {LATENCY_GOALS[1]:,}")
    if any(x["busy rate"] for x in f):
        row(f"while the computer runs {searches} jobs, of idle",
            ["-" if not x["busy rate"] else f"{x['busy rate'] / x['rate']:.2f}" for x in f],
            f">= {SEARCHING_GOAL}")
    print_shapes({f"pictures {c}": x for c, x in zip(columns, f)}, r["commands"], top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stored", type=int, nargs="+", default=[100, 10_000], help="boards in the store")
    parser.add_argument("--commands", type=int, default=1000, help="move commands measured")
    parser.add_argument("--samples", type=int, default=30, help="latency samples")
    parser.add_argument("--pictures", nargs="?", choices=["on", "off", "both"], default="both", const="on",
                        help="the columns measured: board pictures on (as a server runs), off, or both "
                             "(the default; --pictures alone: on)")
    parser.add_argument("--statements", type=int, default=10, metavar="N",
                        help="print the N most frequent SQL statement shapes per command (0: none)")
    parser.add_argument("--server-log", type=Path, help="append the daemon's log to this file")
    parser.add_argument("--profile", type=Path, metavar="FILE",
                        help="sample the daemon with py-spy while the backlog drains, into FILE-STORED-COLUMN "
                             "(raw format, e.g. mail.txt: mail-100-on.txt)")
    parser.add_argument("--gil", action="store_true", help="with --profile: only samples that hold the GIL")
    parser.add_argument("--searches", type=int, default=4,
                        help="the daemon's rate again while the computer runs this many jobs at once, half "
                             "level-4 searches, half analyses (0: not measured)")
    parser.add_argument("--pipeline-only", action="store_true",
                        help="only the in-process pipeline's figures (no Dovecot or daemon needed)")
    parser.add_argument("--languages", nargs="*", default=["de", "ja"],
                        help="with --pipeline-only: the pipeline again (pictures on) with every player reading "
                             "each language")
    args = parser.parse_args()
    columns = ["on", "off"] if args.pictures == "both" else [args.pictures]
    print(f"machine:  Python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.platform()}")
    if args.pipeline_only:
        for stored in args.stored:
            pipeline_only(stored, args.commands, columns, tuple(args.languages), args.statements)
        return
    profile = [str(args.profile), *(["--gil"] if args.gil else [])] if args.profile else None
    results = []
    sink = SmtpSink()
    try:
        with Dovecot() as dovecot:
            for stored in args.stored:
                r = measure(dovecot, sink, stored, args.commands, samples=args.samples, columns=columns,
                            log=args.server_log, searches=args.searches if stored == args.stored[0] else 0,
                            profile=profile)
                results.append(r)
                report(r, columns, args.searches, args.statements)
    finally:
        sink.close()
    if len(results) > 1:
        small, large = results[0], results[-1]
        print(f"\nscaling: the cost at {large['stored']:,} boards over the cost at {small['stored']:,}")
        row("", [f"pictures {c}" for c in columns], "goal")
        for label, key in (("daemon CPU per command", "cpu"), ("pipeline CPU per command", "pipeline"),
                           ("SQL statements per command", "statements")):
            row(label, [f"{large['columns'][c][key] / small['columns'][c][key]:.2f}x" for c in columns],
                f"<= {SCALING_GOAL}x" if key != "statements" else "")


if __name__ == "__main__":
    main()
