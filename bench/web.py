"""Benchmark of the web view: pages per second under 50 concurrent clients,
and what serving them costs the mail.

    bash bench/setup.sh                     # once: Dovecot and Postfix's smtp-sink (for the mail part)
    .venv/bin/python bench/web.py           # a few minutes
    .venv/bin/python bench/web.py --seconds 5 --no-mail

Everything runs on 127.0.0.1, on a store seeded as ``bench/mail.py`` seeds
it (``--stored`` boards among 200 players, made by the server's own
functions; its functions are imported, not copied).

pages   ``pbm web`` in a process of its own; ``--clients`` aiohttp clients
        (keep-alive, taking gzip, as browsers do) ask for one page as fast
        as they can for ``--seconds``: a board page (kept after the first
        rendering), the standings (200 players), and board pages never asked
        before (each one rendered: the cost of a miss).  Requests per second,
        the server's CPU per request (from /proc), and the 95th percentile
        of the answer times.  Goal: 1,000 requests/s for a kept board page.
mail    ``bench/mail.py``'s daemon run (Dovecot, smtp-sink, a backlog of
        ``--commands`` move commands moved into the inbox at once), with
        ``[web] enabled``: once with the web view idle, once with the same
        clients asking for a board page all through it (from a process of
        their own).  Commands per second of both and their ratio (goal:
        within 10%), and the web view's requests/s meanwhile.  With
        ``--apart`` the same again with the web view in ``pbm web``, a
        process of its own beside the daemon.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

import bench.mail as mail_bench  # noqa: E402
from bench.mail import ACTIVE, SEEDED_MOVES, SmtpSink, commands, cpu_seconds, daemon_figures, seed  # noqa: E402
from tests.mail.daemon import wait_until  # noqa: E402
from tests.mail.servers import Dovecot, free_port  # noqa: E402

BOARD = "/boards/101"


# ----------------------------------------------------------------------------
# the clients


async def hammer(url: str, paths: list[str], clients: int, seconds: float | None,
                 stop: multiprocessing.synchronize.Event | None = None, *, once: bool = False) -> dict[str, float]:
    """``clients`` coroutines, each asking for the next of ``paths`` (in
    turn, round the list) as soon as it has the last answer, for
    ``seconds`` (or until ``stop`` is set; with ``once``, until each path
    was asked for once).  Requests, errors, time, and answer times."""
    connector = aiohttp.TCPConnector(limit=clients, force_close=False)
    times: list[float] = []
    errors = 0
    counter = 0
    started = time.perf_counter()
    deadline = started + seconds if seconds is not None else None

    def going() -> bool:
        if once:
            return counter < len(paths)
        if deadline is not None:
            return time.perf_counter() < deadline
        assert stop is not None
        return not stop.is_set()

    async with aiohttp.ClientSession(connector=connector, headers={"Accept-Encoding": "gzip"}) as session:
        async def one() -> None:
            nonlocal errors, counter
            while going():
                path = paths[counter % len(paths)]
                counter += 1
                t = time.perf_counter()
                try:
                    async with session.get(url + path) as response:
                        await response.read()
                        if response.status != 200:
                            errors += 1
                except aiohttp.ClientConnectionError:
                    if stop is not None:  # the server has gone: the run is over
                        return
                    errors += 1
                except aiohttp.ClientError:
                    errors += 1
                times.append(time.perf_counter() - t)

        await asyncio.gather(*(one() for _ in range(clients)))
    elapsed = time.perf_counter() - started
    times.sort()
    return {"requests": len(times), "errors": errors, "seconds": elapsed, "rate": len(times) / elapsed,
            "p50": statistics.median(times) if times else 0.0,
            "p95": times[min(len(times) - 1, round(0.95 * len(times)))] if times else 0.0}


def load_process(url: str, clients: int, stop: multiprocessing.synchronize.Event, out: multiprocessing.Queue) -> None:
    """The clients in a process of their own until ``stop``; their figures to ``out``."""
    out.put(asyncio.run(hammer(url, [BOARD], clients, None, stop)))


def port_open(port: int) -> bool:
    import socket

    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


# ----------------------------------------------------------------------------
# pages per second


def web_config(folder: Path, port: int) -> Path:
    path = folder / "web.toml"
    path.write_text(f'[server]\naddress = "{mail_bench.SERVER}"\ndatabase = "pbm.sqlite3"\n\n'
                    f"[web]\nport = {port}\n")
    return path


def pages(folder: Path, clients: int, seconds: float) -> list[tuple[str, dict[str, float], float]]:
    """``pbm web`` on the store in ``folder``: each kind of page hammered."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "pbm", "web", "--config", str(web_config(folder, port))],
                              cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = []
    try:
        wait_until(lambda: port_open(port), timeout=30, what="pbm web")
        url = f"http://127.0.0.1:{port}"
        unseen = [f"/boards/{n}?move={m}" for n in range(101, 101 + ACTIVE) for m in range(SEEDED_MOVES + 1)]
        random.Random(1).shuffle(unseen)
        for label, paths, once in (("board page, kept", [BOARD], False),
                                    ("standings, kept", ["/standings/trax"], False),
                                    (f"board pages, each new ({len(unseen)})", unseen, True)):
            if not once:
                asyncio.run(hammer(url, paths, 1, 0.5))  # rendered once, then kept
            before = cpu_seconds(server.pid)
            figures = asyncio.run(hammer(url, paths, clients, seconds, once=once))
            after = cpu_seconds(server.pid)
            cpu = (after[0] + after[1] - before[0] - before[1]) * 1e6 / max(figures["requests"], 1)
            out.append((label, figures, cpu))
    finally:
        server.terminate()
        server.wait(30)
    return out


# ----------------------------------------------------------------------------
# the mail with the web view under load


def mail_runs(dovecot: Dovecot, sink: SmtpSink, pristine: Path, warm: list[bytes], mails: list[bytes],
              clients: int, apart: bool, repeat: int) -> list[tuple[str, float, dict[str, float] | None]]:
    """The daemon's backlog run, idle and under web load (``apart``: also
    with the web view in ``pbm web`` beside the daemon), the plans taken in
    turn ``repeat`` times (the machine's noise spread over all of them)."""
    plans = [("web view in the daemon, idle", "inside", False),
             (f"web view in the daemon, {clients} clients", "inside", True)]
    if apart:
        plans += [(f"web view apart (pbm web), {clients} clients", "apart", True)]
    original = mail_bench.write_config
    results = []
    for label, where, loaded in plans * repeat:
        port = free_port()

        def with_web(folder: Path, *, port: int = port, where: str = where, **kwargs) -> Path:
            path = original(folder, **kwargs)
            if kwargs.get("dovecot") is not None and where == "inside":  # the daemon's own config
                path.write_text(path.read_text() + f"\n[web]\nenabled = true\nport = {port}\n")
            return path

        mail_bench.write_config = with_web
        with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
            folder = Path(tmp)
            shutil.copy(pristine, folder / "pbm.sqlite3")
            web_server = None
            if where == "apart":
                web_server = subprocess.Popen(
                    [sys.executable, "-m", "pbm", "web", "--config", str(web_config(folder, port))], cwd=folder,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            stop = multiprocessing.Event()
            queue: multiprocessing.Queue = multiprocessing.Queue()
            loader = None
            try:
                if loaded:
                    loader = multiprocessing.Process(target=wait_then_load, args=(port, clients, stop, queue))
                    loader.start()
                rate, _, _ = daemon_figures(dovecot, sink, folder, warm, mails, samples=3, log=None)
            finally:
                stop.set()
                web_figures = queue.get(timeout=120) if loader is not None else None
                if loader is not None:
                    loader.join(60)
                if web_server is not None:
                    web_server.terminate()
                    web_server.wait(30)
                mail_bench.write_config = original
        results.append((label, rate, web_figures))
    return results


def wait_then_load(port: int, clients: int, stop: multiprocessing.synchronize.Event,
                   out: multiprocessing.Queue) -> None:
    """Wait for the web view to listen, then hammer the board page until ``stop``."""
    while not port_open(port):
        if stop.is_set():
            out.put({"requests": 0, "errors": 0, "seconds": 0.0, "rate": 0.0, "p50": 0.0, "p95": 0.0})
            return
        time.sleep(0.05)
    load_process(f"http://127.0.0.1:{port}", clients, stop, out)


# ----------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stored", type=int, default=1000, help="boards in the store")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds each page is asked for")
    parser.add_argument("--commands", type=int, default=1000, help="move commands of the mail runs")
    parser.add_argument("--no-mail", action="store_true", help="only the pages, no mail runs")
    parser.add_argument("--no-pages", action="store_true", help="only the mail runs")
    parser.add_argument("--apart", action="store_true", help="also a mail run with the web view in pbm web")
    parser.add_argument("--repeat", type=int, default=3, help="mail runs of each kind, taken in turn")
    args = parser.parse_args()
    print(f"machine:  Python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.platform()}")
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        games = seed(folder, args.stored, random.Random(args.stored))
        print(f"store:    {args.stored:,} boards among 200 players, seeded in {time.perf_counter() - started:.0f} s")
        pristine = folder / "pristine.sqlite3"
        shutil.copy(folder / "pbm.sqlite3", pristine)

        if not args.no_pages:
            print(f"\npages ({args.clients} clients, {args.seconds:g} s each, pbm web in its own process):")
        for label, f, cpu in [] if args.no_pages else pages(folder, args.clients, args.seconds):
            print(f"  {label:<28} {f['rate']:7,.0f} requests/s  server CPU {cpu:5.0f} µs/request  "
                  f"median {f['p50'] * 1000:5.1f} ms  p95 {f['p95'] * 1000:5.1f} ms  errors {f['errors']:.0f}")

        if args.no_mail:
            return
        warm = commands(games, 2 * ACTIVE)
        mails = commands(games, args.commands, first=SEEDED_MOVES + 2)
        print(f"\nmail ({len(mails)} move commands, bench/mail.py's daemon run; the web load from its own process):",
              flush=True)  # before the load's process is forked
        sink = SmtpSink()
        try:
            with Dovecot() as dovecot:
                results = mail_runs(dovecot, sink, pristine, warm, mails, args.clients, args.apart, args.repeat)
        finally:
            sink.close()
        for label, rate, web in results:
            extra = ""
            if web is not None:
                extra = (f"; meanwhile {web['rate']:,.0f} pages/s (p95 {web['p95'] * 1000:.0f} ms, "
                         f"{web['errors']:.0f} errors)")
            print(f"  {label:<40} {rate:6,.0f} commands/s{extra}")
        by_plan: dict[str, list[float]] = {}
        for label, rate, _ in results:
            by_plan.setdefault(label, []).append(rate)
        idle = statistics.median(next(iter(by_plan.values())))
        print("medians:")
        for label, rates in by_plan.items():
            median = statistics.median(rates)
            print(f"  {label:<40} {median:6,.0f} commands/s  ratio {median / idle:.2f}"
                  f"  (runs {', '.join(f'{r:,.0f}' for r in rates)})")
        print("  goal: the mail within 10% of its idle rate while the web view is under load")


if __name__ == "__main__":
    main()
