"""The operator's commands for running a server for real: ``pbm deliver``
(a mail from the mail server's pipe), ``backup`` and ``restore``, ``status``,
``check-config`` and ``install-service``.  :func:`add_commands` puts them in
the command line's parser (:mod:`.cli`)."""

from __future__ import annotations

import argparse
import logging
import os
import pwd
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pbm.config import ConfigError, load_config
from pbm.domain.store import Store
from pbm.domain.store.backup import BackupError, backup, restore

from . import checkconfig, health, systemd
from .deliver import EX_TEMPFAIL, TIMEOUT_SECONDS, deliver
from .health import AlreadyRunning, DatabaseLock


def cmd_deliver(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="pbm deliver: %(levelname)s %(name)s: %(message)s")
    try:
        config = load_config(args.config, secrets=args.send)  # the relay's password only to send
    except (ConfigError, OSError) as exc:
        print(f"pbm deliver: the configuration cannot be used ({exc}); the mail server will try again later",
              file=sys.stderr)
        return EX_TEMPFAIL
    raw = sys.stdin.buffer.read()
    done = deliver(raw, config, sender=args.sender, recipients=args.recipient, timeout=args.timeout,
                   send=args.send)
    print(f"pbm deliver: {done.message}", file=sys.stderr)
    return done.code


def backup_path(given: str, now: datetime) -> Path:
    """Where ``pbm backup FILE`` writes: FILE, or a file named for the
    moment inside FILE when it is a folder; a folder that does not exist is
    a bad argument."""
    path = Path(given)
    if path.is_dir():
        return path / f"pbm-{now:%Y%m%dT%H%M%SZ}.sqlite3"
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"there is no folder {path.parent} to write {path.name} in")
    return path


def cmd_backup(args: argparse.Namespace) -> int:
    config = load_config(args.config, secrets=False)
    try:
        target = backup_path(args.file, datetime.now(UTC))
    except argparse.ArgumentTypeError as exc:
        print(f"pbm backup: {exc} (the right form: pbm backup FILE|FOLDER)", file=sys.stderr)
        return 2
    try:
        copy = backup(config.server.database, target)
    except BackupError as exc:
        print(f"pbm: no backup: {exc}", file=sys.stderr)
        return 1
    print(f"pbm: backup of {config.server.database} written to {copy.path} "
          f"({copy.bytes:,} bytes, schema {copy.schema}, integrity checked)")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    config = load_config(args.config, secrets=False)
    database = config.server.database
    lock = DatabaseLock(database, what="pbm restore")
    try:
        lock.acquire(wait=1.0)
    except AlreadyRunning as exc:
        print(f"pbm: not restored: {exc}; stop it first (systemctl stop pbm)", file=sys.stderr)
        return 1
    try:
        checked, kept = restore(Path(args.file), database)
        Store(database).close()  # a backup of an older schema is migrated now
    except BackupError as exc:
        print(f"pbm: not restored: {exc}", file=sys.stderr)
        return 1
    finally:
        lock.release()
    print(f"pbm: {database} restored from {checked.path} (schema {checked.schema})")
    if kept is not None:
        print(f"pbm: the database it replaced is kept as {kept}")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    report = health.check(load_config(args.config, secrets=False))
    if not args.quiet:
        print("\n".join(report.lines()))
    return 0 if report.healthy else 1


def cmd_check_config(args: argparse.Namespace) -> int:
    findings = checkconfig.check(args.file or args.config, timeout=args.timeout)
    for finding in findings:
        print(finding.line())
    bad = sum(1 for f in findings if not f.ok)
    print(f"{bad} problem{'' if bad == 1 else 's'} found" if bad else "all good")
    return 1 if bad else 0


def _program() -> list[str]:
    """How a service starts this pbm: its ``pbm`` script, or this Python with ``-m pbm``."""
    script = Path(sys.executable).parent / "pbm"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "pbm"]


def cmd_install_service(args: argparse.Namespace) -> int:
    config_path = Path(args.config).absolute()
    program = _program()
    writable: list[Path] = []
    if config_path.is_file():
        try:
            config = load_config(config_path, secrets=False)
        except ConfigError as exc:
            print(f"pbm: {exc}", file=sys.stderr)
            return 2
        places = [config.server.database]
        if config.smtp is None:
            places.append(config.outbox.maildir)
        if config.listen.enabled and config.listen.socket is not None:
            places.append(config.listen.socket)
        writable = systemd.writable_outside(places)
    else:
        print(f"pbm: note: {config_path} does not exist yet; write it before starting the service "
              f"(config.example.toml shows every key)", file=sys.stderr)
    under_home = any(Path(program[0]).is_relative_to(p) for p in ("/home", "/root", "/run/user"))
    text = systemd.unit(program, user=args.user, config=config_path, writable=writable, home_read_only=under_home)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"pbm: wrote {args.output}; now: systemctl daemon-reload && systemctl enable --now pbm",
              file=sys.stderr)
    try:
        pwd.getpwnam(args.user)
    except KeyError:
        print(f"pbm: note: there is no user {args.user!r} yet: "
              f"adduser --system --group --home /var/lib/pbm {args.user}", file=sys.stderr)
    for folder in writable:
        print(f"pbm: note: the daemon writes {folder}, outside /var/lib/pbm: the unit lets it "
              f"(ReadWritePaths); better put the database and Maildir in /var/lib/pbm", file=sys.stderr)
    if under_home:
        print(f"pbm: note: pbm is installed under a home folder ({program[0]}): the unit shows /home read-only; "
              f"a system-wide install (/opt/pbm) lets it hide /home", file=sys.stderr)
    return 0


def add_commands(add: Callable[..., argparse.ArgumentParser],
                 sub: argparse._SubParsersAction[Any]) -> None:
    """The operator's commands, in the parser: ``add`` makes a subcommand
    that takes ``--config``, ``sub`` one that does not."""
    p = add("deliver", help="handle one mail from standard input, as the mail server's pipe hands it over "
                            "(exit 0 handled, 65 never a mail, 75 try again later)")
    p.add_argument("--sender", help="the envelope sender (Postfix: ${sender}; empty for a bounce)")
    p.add_argument("--recipient", action="append", default=[],
                   help="an envelope recipient (Postfix: ${recipient}); may be repeated")
    p.add_argument("--send", action="store_true", help="send the replies now, unless a daemon runs (it sends them)")
    p.add_argument("--timeout", type=float, default=TIMEOUT_SECONDS,
                   help=f"seconds to wait for a busy database before exit 75 (default {TIMEOUT_SECONDS:g})")
    p.set_defaults(run=cmd_deliver)

    p = add("backup", help="copy the database to FILE (or into FOLDER), consistently, while the daemon runs")
    p.add_argument("file", metavar="FILE|FOLDER",
                   help="the copy (replaced once the new one is whole and checked), or a folder to put "
                        "pbm-YYYYMMDDTHHMMSSZ.sqlite3 in")
    p.set_defaults(run=cmd_backup)

    p = add("restore", help="put the backup FILE in place of the database (refused while a daemon runs)")
    p.add_argument("file", help="a copy made by pbm backup")
    p.set_defaults(run=cmd_restore)

    p = add("status", help="is the daemon up, and the mail flowing? (exit 0 healthy, 1 not)")
    p.add_argument("--quiet", "-q", action="store_true", help="print nothing: the exit status says it")
    p.set_defaults(run=cmd_status)

    p = add("check-config", help="check a configuration file, and log in to the IMAP and SMTP servers it names")
    p.add_argument("file", nargs="?", help="the configuration file (default: --config, or the built-in defaults)")
    p.add_argument("--timeout", type=float, default=checkconfig.TIMEOUT_SECONDS,
                   help=f"seconds each server has to answer (default {checkconfig.TIMEOUT_SECONDS:g})")
    p.set_defaults(run=cmd_check_config)

    p = sub.add_parser("install-service", help="write the systemd unit that runs pbm serve")
    p.add_argument("--user", default="pbm", help="the user the daemon runs as (default pbm)")
    p.add_argument("--config", default="/etc/pbm/pbm.toml",
                   help="the configuration file the service reads (default /etc/pbm/pbm.toml)")
    p.add_argument("--output", default="/etc/systemd/system/pbm.service",
                   help="where to write the unit (default /etc/systemd/system/pbm.service; - for standard output)")
    p.set_defaults(run=cmd_install_service)
