"""The command line: ``pbm serve``, ``web``, ``process``, ``exec``, ``tick``, the
operator's ``failed``, ``user``, ``stats`` and ``bounces``, and those for running
a server for real (:mod:`.ops`: ``deliver``, ``backup``, ``restore``, ``status``,
``check-config``, ``install-service``)."""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import io
import logging
import sqlite3
import sys
from contextlib import closing
from datetime import UTC, datetime
from email.generator import BytesGenerator
from email.message import Message
from email.utils import parseaddr
from pathlib import Path
from typing import Any, NoReturn

from pbm.app.pipeline import Pipeline, Result
from pbm.app.ticker import run_tick
from pbm.config import ConfigError, load_config
from pbm.domain.store import Store
from pbm.domain.times import when
from pbm.grammar.words import fold
from pbm.trax import VARIANTS

from .daemon import serve
from .deliver import EX_TEMPFAIL
from .health import AlreadyRunning
from .ops import add_commands
from .web import serve_web


def mbox(messages: list[Message], now: datetime) -> bytes:
    """The messages in mbox form (``From `` lines, ``>From`` quoting)."""
    out = io.BytesIO()
    for msg in messages:
        sender = parseaddr(str(msg["From"]))[1] or "MAILER-DAEMON"
        out.write(f"From {sender} {now.strftime('%a %b %d %H:%M:%S %Y')}\n".encode())
        BytesGenerator(out, mangle_from_=True, policy=msg.policy.clone(linesep="\n")).flatten(msg)
        out.write(b"\n")
    return out.getvalue()


def moment(text: str) -> datetime:
    """``--now``'s value: an ISO 8601 moment (UTC unless it says)."""
    try:
        return when(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is no moment; write it as 2026-11-26T12:00 "
                                         f"(ISO 8601, UTC unless it says)") from None


def _now(given: datetime | None) -> datetime:
    return given if given is not None else datetime.now(UTC).replace(microsecond=0)


class Parser(argparse.ArgumentParser):
    """A bad argument is answered with one line (what was wrong, and where
    the right form is) and exit status 2, as argparse's own status says."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (the right form: {self.prog} --help)\n")


def _pipeline(args: argparse.Namespace) -> tuple[Pipeline, Store]:
    config = load_config(args.config, secrets=False)  # nothing here connects to a mail server
    store = Store(config.server.database)
    return Pipeline(store, config), store


def _report(pipeline: Pipeline, result: Result, now: datetime) -> None:
    sys.stdout.buffer.write(mbox([pipeline.unsealed(m) for m in result.sent], now))
    sys.stdout.flush()
    note = result.status if not result.reason else f"{result.status}: {result.reason}"
    count = len(result.sent)
    print(f"pbm: {result.key}: {note}; {count} repl{'y' if count == 1 else 'ies'}", file=sys.stderr)


def cmd_process(args: argparse.Namespace) -> int:
    raw = sys.stdin.buffer.read() if args.message == "-" else Path(args.message).read_bytes()
    pipeline, store = _pipeline(args)
    now = _now(args.now)
    try:
        _report(pipeline, pipeline.handle(raw, now=now, dry_run=args.dry_run), now)
    finally:
        store.close()
    return 0


def cmd_exec(args: argparse.Namespace) -> int:
    body = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    pipeline, store = _pipeline(args)
    now = _now(args.now)
    try:
        _report(pipeline, pipeline.exec_command(args.sender, args.subject, body, now=now, dry_run=args.dry_run), now)
    finally:
        store.close()
    return 0


def cmd_tick(args: argparse.Namespace) -> int:
    pipeline, store = _pipeline(args)
    now = _now(args.now)
    try:
        messages = run_tick(pipeline, now, dry_run=args.dry_run)
    finally:
        store.close()
    sys.stdout.buffer.write(mbox([pipeline.unsealed(m) for m in messages], now))
    sys.stdout.flush()
    print(f"pbm: clock work as of {now.isoformat()}: {len(messages)} mail{'' if len(messages) == 1 else 's'}",
          file=sys.stderr)
    return 0


def _store(args: argparse.Namespace) -> closing[Store]:
    """The configured database, closed at the end of a ``with`` block."""
    return closing(Store(load_config(args.config, secrets=False).server.database))


def cmd_failed(args: argparse.Namespace) -> int:
    if args.action == "list":
        with _store(args) as store:
            rows = store.failed_mail()
        if not rows:
            print("no failed mail")
        for r in rows:
            state = f"retried {r.retried_at}" if r.retried_at else "waiting"
            error = (r.error.strip().splitlines() or [""])[-1][:100]
            print(f"{r.id:>5}  {r.failed_at}  {r.source:<4}  {r.size:>8} bytes  {state}  {error}")
        return 0
    if args.id is None:
        print("pbm: failed retry needs the ID shown by 'pbm failed list'", file=sys.stderr)
        return 2
    pipeline, store = _pipeline(args)
    now = _now(args.now)
    try:
        row = store.failed_mail_raw(args.id)
        if row is None:
            print(f"pbm: there is no failed mail {args.id}", file=sys.stderr)
            return 1
        try:
            result = pipeline.handle(row.raw, now=now)
        except Exception as exc:
            print(f"pbm: failed mail {args.id} failed again: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
        with store.atomic():
            store.mark_failed_retried(args.id, now)
        _report(pipeline, result, now)
    finally:
        store.close()
    return 0


def cmd_user(args: argparse.Namespace) -> int:
    with _store(args) as store:
        user = store.find_user(fold(args.userid))
        if user is None:
            print(f"pbm: there is no user {args.userid}", file=sys.stderr)
            return 1
        if args.action in ("lock", "unlock"):
            with store.atomic():
                store.set_operator_lock(user.id, args.action == "lock")
                if args.action == "unlock":
                    store.clear_login_failures(user.id)
            user = store.find_user(user.key)
        assert user is not None
        print(f"userid:        {user.userid}{' (deleted ' + user.deleted_at + ')' if user.deleted_at else ''}")
        print(f"created:       {user.created_at}")
        for a in store.address_rows(user.id):
            print(f"address:       {a.address}{'' if a.confirmed else ' (waiting for confirmation)'}")
        print(f"signed off:    {'yes' if user.signed_off else 'no'}")
        print(f"locked:        {'by the operator' if user.operator_locked else 'no'}")
        for f in store.login_failures_of(user.id):
            blocked = f", blocked until {f.blocked_until}" if f.blocked_until else ""
            print(f"wrong passwords: {f.failures} in a row from {f.sender}{blocked}")
        boards = store.boards_of([user.id])
        active = [str(b.number) for b in boards if b.status == "active"]
        print(f"boards:        {len(boards)} in all, active: {' '.join(active) or 'none'}")
        for game in VARIANTS:
            r = store.rating(user.id, game)
            if r:
                print(f"rating {game}: {r.rating:.0f} after {r.games} games "
                      f"({r.wins} won, {r.losses} lost, {r.draws} drawn)")
    return 0


def _tally(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"


def cmd_stats(args: argparse.Namespace) -> int:
    with _store(args) as store:
        s = store.stats()
    handled = s["handled"]
    print(f"mail handled:     {sum(handled.values())} ({_tally(handled)})")
    print(f"mail failed:      {s['failed']} waiting for the operator (pbm failed list)")
    print(f"replies:          {s['sent']} sent, {s['queue']} in the queue, {s['refused']} refused by the relay")
    print(f"users:            {s['users']}")
    active = s["active_boards"]
    print(f"active boards:    {sum(active.values())} ({_tally(active)})")
    print(f"finished boards:  {s['finished_boards']}")
    print(f"tournaments:      {s['tournaments_running']} running")
    return 0


def cmd_bounces(args: argparse.Namespace) -> int:
    now = datetime.now(UTC)
    with _store(args) as store:
        rows = store.bounce_summary()
    if not rows:
        print("no delivery reports")
    for r in rows:
        until = r.held_until
        held = f"clock stopped until {until}" if until and when(until) > now else "no clock stopped"
        print(f"{r.address}  ({r.userid or 'no account'})  {r.reports} report(s), {r.failed or 0} failed; "
              f"last {r.last_at} status {r.last_status or '-'}; {held}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    logging.basicConfig(
        level=config.server.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd's per-command chatter
    try:
        asyncio.run(serve(config))
    except AlreadyRunning as exc:
        print(f"pbm: not started: {exc}", file=sys.stderr)
        return 1
    return 0


def cmd_web(args: argparse.Namespace) -> int:
    config = load_config(args.config, secrets=False)  # the web view reads the database only
    logging.basicConfig(
        level=config.server.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    asyncio.run(serve_web(config))
    return 0


class ShowVersion(argparse.Action):
    """``pbm --version``: the installed distribution's version, which the
    build read from ``pbm.__version__`` (the server's layer imports nothing
    from the top one); looked up only when asked (it reads the metadata)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        parser.exit(message=f"{parser.prog} {importlib.metadata.version('pbm')}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="pbm", description="Trax play-by-e-mail server")
    parser.add_argument("--version", action=ShowVersion, nargs=0, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    # every subcommand reads the configuration
    with_config = Parser(add_help=False)
    with_config.add_argument("--config", help="configuration file (TOML); default: built-in defaults")

    def add(name: str, **kwargs: Any) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[with_config], **kwargs)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--dry-run", action="store_true", help="show the replies, change nothing")
        p.add_argument("--now", type=moment, help="act as of this ISO 8601 time (default: now; UTC unless it says)")

    p = add("process", help="handle one RFC 5322 message and print the replies (mbox)")
    common(p)
    p.add_argument("message", help="the message file, or - for standard input")
    p.set_defaults(run=cmd_process)

    p = add("serve", help="run the mail server until SIGTERM or SIGINT")
    p.set_defaults(run=cmd_serve)

    p = add("web", help="serve only the read-only web view ([web] host and port) until SIGTERM or SIGINT")
    p.set_defaults(run=cmd_web)

    p = add("exec", help="handle one command typed by an operator")
    common(p)
    p.add_argument("--from", dest="sender", required=True, help="the address the command comes from")
    p.add_argument("subject", help="the command, as it would stand in a Subject line")
    p.set_defaults(run=cmd_exec)

    p = add("failed", help="mail that crashed the pipeline: list it, or retry one")
    p.add_argument("--now", type=moment, help="act as of this ISO 8601 time (default: now)")
    p.add_argument("action", choices=("list", "retry"))
    p.add_argument("id", nargs="?", type=int, help="for retry: the ID from the list")
    p.set_defaults(run=cmd_failed)

    p = add("user", help="show an account, or lock or unlock it")
    p.add_argument("action", choices=("show", "lock", "unlock"))
    p.add_argument("userid")
    p.set_defaults(run=cmd_user)

    p = add("stats", help="counts: mail handled and failed, the reply queue, users, boards")
    p.set_defaults(run=cmd_stats)
    p = add("bounces", help="the addresses our mail bounced from, and whose clocks are stopped for it")
    p.set_defaults(run=cmd_bounces)

    p = add("tick", help="do the clock work (reminders, forfeits) once and print its mail (mbox)")
    common(p)
    p.set_defaults(run=cmd_tick)
    add_commands(add, sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    try:
        args = build_parser().parse_args(words)
    except SystemExit as exc:
        if exc.code and words[:1] == ["deliver"]:
            return EX_TEMPFAIL  # a wrong pipe command in the mail server: it keeps the mail
        raise
    try:
        code: int = args.run(args)
        return code
    except ConfigError as exc:
        print(f"pbm: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"pbm: {exc}", file=sys.stderr)
        return 1
    except sqlite3.Error as exc:  # not a database, read-only, its folder gone: one line, not a traceback
        config = getattr(args, "config", None)
        where = f" ({config})" if config else ""
        print(f"pbm: the database named in the configuration{where} cannot be used: {exc}",  # for the operator
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
