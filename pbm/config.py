"""The server's configuration: a TOML file read into frozen dataclasses.

``load_config(path)`` reads the file with ``tomllib`` and returns a ``Config``
with one frozen dataclass per section.  Every key is optional except a few
inside ``[imap]`` and ``[smtp]``; an empty file, or no file at all
(``load_config(None)``), gives the embedded default: the SQLite file
``pbm.sqlite3``, the server's own SMTP listener on 127.0.0.1:2525, and replies
written to the Maildir ``outbox-maildir`` because no relay is configured.

``config.example.toml`` at the top of the repository documents every key.

Rules of the format:

- An ``[imap]`` section turns on IMAP intake and an ``[smtp]`` section turns on
  delivery through a relay; without them ``config.imap`` / ``config.smtp`` is
  ``None``.
- Unknown sections and keys are refused (with the closest known name as a
  suggestion), as are values of the wrong type or out of range.
- Relative paths (``database``, ``maildir``) are relative to the directory of
  the config file, or to the current directory when there is no file; a
  leading ``~`` is the user's home.  ``Config`` holds them as absolute paths.
- Passwords are given either in the file (``password``) or by naming an
  environment variable that holds them (``password_env``), read when the file
  is loaded.  They are kept in a ``Secret`` whose ``repr`` and ``str`` hide the
  value; no error message ever quotes one.

Every problem raises ``ConfigError`` (a ``ValueError``) whose message names the
file, the section and the key.
"""

from __future__ import annotations

import dataclasses
import difflib
import email.errors
import os
import re
import ssl
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.headerregistry import Address
from pathlib import Path
from typing import Any

from .secret import Secret, UnreadSecret

__all__ = [
    "SECTIONS",
    "Config",
    "ConfigError",
    "GamesConfig",
    "ImapConfig",
    "LimitsConfig",
    "ListenConfig",
    "MetricsConfig",
    "OutboxConfig",
    "Secret",
    "SecurityConfig",
    "ServerConfig",
    "SmtpConfig",
    "WebConfig",
    "load_config",
    "nag_precedes_forfeit",
    "section_keys",
    "tls_context",
]

MIB = 1024 * 1024
TLS_MODES = ("none", "starttls", "ssl")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LISTEN_PROTOCOLS = ("smtp", "lmtp")
#: The longest path of a unix socket (``sun_path`` holds 108 bytes with its NUL).
SOCKET_PATH_MAX = 107
IMAP_PORTS = {"none": 143, "starttls": 143, "ssl": 993}
SMTP_PORTS = {"none": 25, "starttls": 587, "ssl": 465}


class ConfigError(ValueError):
    """The configuration cannot be used; the message says where and why.

    ``path`` is the config file (``None`` without one), ``section`` and
    ``key`` the place in it when the problem is about one.
    """

    def __init__(self, message: str, *, path: Path | None = None,
                 section: str | None = None, key: str | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.section = section
        self.key = key


@dataclass(frozen=True, kw_only=True)
class ServerConfig:
    """``[server]``: who the server is and where it keeps its state.

    ``pictures``: board mails carry a PNG picture of the board in an HTML
    alternative (players can still turn it off for themselves with ``set``).
    ``reply_moves``: a player may move by replying to a board mail (a token
    in the mail's Message-ID stands for the password); false: passwords
    always.  ``reply_subaddress``: board mails also carry the token in a
    ``Reply-To`` of the server's address with ``+r-TOKEN`` (for mail
    set-ups that deliver subaddresses to the server).  ``bounce_address``:
    the envelope sender of every mail the server sends, with a keyed tag
    per mail after a ``+`` (VERP: ``pbm-bounce+12-TAG@example.org``), so a
    bounce names the mail and recipient it is about; empty: the server's
    address with ``-bounce`` after its local part.
    """

    address: str = "pbm@localhost"
    name: str = "Trax PBM"
    database: Path = Path("pbm.sqlite3")
    log_level: str = "INFO"
    pictures: bool = True
    reply_moves: bool = True
    reply_subaddress: bool = False
    bounce_address: str = ""

    @property
    def envelope_address(self) -> str:
        """Where bounces come back: ``bounce_address``, or the server's
        address with ``-bounce`` after its local part."""
        if self.bounce_address:
            return self.bounce_address
        local, _, domain = self.address.rpartition("@")
        return f"{local}-bounce@{domain}"


@dataclass(frozen=True, kw_only=True)
class ImapConfig:
    """``[imap]``: fetch incoming mail from a mailbox (present = turned on).

    ``port`` defaults by ``tls``: 993 for ``ssl``, 143 otherwise.
    ``password_env`` is the name of the variable the password came from, or
    ``None`` when it was written in the file.  ``ca_file``: the certificates
    to trust instead of the system's (see :func:`tls_context`).
    """

    host: str
    port: int
    username: str
    password: Secret
    password_env: str | None = None
    mailbox: str = "INBOX"
    tls: str = "starttls"
    processed_mailbox: str = "pbm/processed"
    failed_mailbox: str = "pbm/failed"
    poll_interval_seconds: float = 60.0
    idle: bool = True
    ca_file: Path | None = None


@dataclass(frozen=True, kw_only=True)
class SmtpConfig:
    """``[smtp]``: send replies through this relay (present = turned on).

    ``port`` defaults by ``tls``: 25 for ``none``, 587 for ``starttls``, 465
    for ``ssl``.  Without ``username`` the relay is used without logging in
    and ``password`` is ``None``.  ``ca_file`` as for ``[imap]``.
    """

    host: str
    port: int
    username: str | None = None
    password: Secret | None = None
    password_env: str | None = None
    tls: str = "starttls"
    ca_file: Path | None = None


@dataclass(frozen=True, kw_only=True)
class ListenConfig:
    """``[listen]``: the server's own listener for incoming mail.

    ``protocol``: ``smtp``, or ``lmtp`` for a mail server that hands mail
    over by LMTP (Postfix's ``lmtp`` transport: a status per recipient).
    ``socket``: listen on this unix socket instead of ``host`` and ``port``
    (at most :data:`SOCKET_PATH_MAX` bytes).
    """

    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = 2525
    max_message_bytes: int = 10 * MIB
    protocol: str = "smtp"
    socket: Path | None = None


@dataclass(frozen=True, kw_only=True)
class OutboxConfig:
    """``[outbox]``: delivery of queued replies.

    ``maildir`` receives the replies when there is no ``[smtp]`` relay.
    Failed deliveries are retried after ``retry_initial_seconds``, the wait
    doubling each time up to ``retry_max_seconds``.  ``connections``: how
    many replies to one mail go to the relay at once, each over a connection
    of its own (the board mail of a move goes to both players).
    ``keep_sent_days``: how long a sent reply is kept (to match a bounce to
    it); then it is deleted.
    """

    maildir: Path = Path("outbox-maildir")
    retry_initial_seconds: float = 30.0
    retry_max_seconds: float = 3600.0
    connections: int = 2
    keep_sent_days: int = 7


@dataclass(frozen=True, kw_only=True)
class GamesConfig:
    """``[games]``: clocks and caps of games, in whole days.

    ``default_limit`` is the number of simultaneous active games a player may
    have until they set their own with ``<game> limit``; 0 means no limit.
    ``vacation_days_per_year`` 0 turns the ``vacation`` command off.
    ``inactive_days``: a player with no active game and no rated game
    finished for that long is listed as inactive in the standings.
    ``clock_interval_seconds``: how often ``pbm serve`` does the clock work
    (reminders, forfeits).  ``minimum_forfeit_days``: the shortest forfeit
    time (and total time) a challenge or a tournament may set.
    ``bounce_hold_days``: how long at most a player's clock stands still
    when mail to them bounces (one hold a month at most).
    """

    nag_days: int = 7
    forfeit_days: int = 21
    tournament_nag_days: int = 1
    tournament_forfeit_days: int = 7
    vacation_days_per_year: int = 30
    default_limit: int = 0
    inactive_days: int = 180
    clock_interval_seconds: float = 300.0
    minimum_forfeit_days: int = 1
    bounce_hold_days: int = 7


@dataclass(frozen=True, kw_only=True)
class LimitsConfig:
    """``[limits]``: what one sender or one message may cost the server.

    ``broadcasts_per_day`` 0 turns the ``broadcast`` command off.
    ``failed_logins_before_lock`` wrong passwords in a row *from one
    address* for one userid block that address (and no other) from logging
    into that userid for ``lock_minutes``, doubled for every further wrong
    one (at most a day); ``failed_logins_per_sender_per_day`` wrong
    passwords from one address, for any userids, block it for the rest of
    the day.  ``new_boards_per_player_per_day``: boards a player may be
    given in a day (challenges, not tournaments); ``invitations_per_player_per_day``:
    invitations (challenges without a password) a player may receive in a
    day, 0 for none.  ``confirmations_per_address_per_day``: mails asking an
    address to confirm it; ``signups_per_sender_per_day``: accounts opened
    from one address; ``broadcasts_per_day`` holds per player and per
    sender address alike; ``mailing_commands_per_mail``: commands of one
    mail that send mail to anyone but its sender; ``password_checks_per_mail``:
    passwords checked or hashed in one mail (scrypt is slow on purpose;
    one already checked lately costs nothing); ``boards_per_show``: boards
    one ``show`` draws; ``max_reply_bytes``: the longest reply text, the
    rest left out with a note.
    """

    max_message_bytes: int = 1 * MIB
    max_command_lines: int = 100
    replies_per_sender_per_day: int = 200
    broadcasts_per_day: int = 2
    failed_logins_before_lock: int = 5
    lock_minutes: int = 15
    failed_logins_per_sender_per_day: int = 20
    new_boards_per_player_per_day: int = 20
    open_challenges_per_player: int = 5
    invitations_per_player_per_day: int = 5
    confirmations_per_address_per_day: int = 1
    confirmations_per_sender_per_day: int = 5
    signups_per_sender_per_day: int = 3
    recipients_per_mail: int = 20
    mail_to_others_per_day: int = 50
    mail_from_others_per_day: int = 10
    password_checks_per_mail: int = 10
    positions_per_mail: int = 10_000
    pictures_per_mail: int = 10
    boards_per_show: int = 20
    max_reply_bytes: int = 1_000_000


@dataclass(frozen=True, kw_only=True)
class WebConfig:
    """``[web]``: the read-only web view of boards, players, standings and
    tournaments (``pbm serve`` runs it beside the mail when ``enabled``;
    ``pbm web`` runs it alone).  ``base_url``: where the world reaches it
    (``https://trax.example.org``, without a trailing slash); board and
    tournament mails link to their pages when it is set.  At most
    :data:`BASE_URL_MAX_LENGTH` characters, so that the longest link a mail
    carries fits its 78 columns.
    """

    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = 8080
    base_url: str | None = None


@dataclass(frozen=True, kw_only=True)
class MetricsConfig:
    """``[metrics]``: the daemon's ``/metrics`` (Prometheus) and ``/healthz``,
    on a listener of their own, apart from the public web view: ``pbm
    serve`` starts it when ``enabled``, whether or not ``[web]`` is.  On the
    loopback address by default; 9180 is in the range of ports Prometheus
    keeps for exporters."""

    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = 9180


@dataclass(frozen=True, kw_only=True)
class ComputerConfig:
    """``[computer]``: the built-in opponent.  ``userid``: its account
    (made at start when missing).  Its searches run in ``workers`` processes
    apart from the daemon (at the lowest CPU priority), at most
    ``max_searches`` at once; ``level3_seconds`` and ``level4_seconds``
    are the CPU time a move may take at those levels (levels 1 and 2 answer
    at once).  ``default_level``: the level of a challenge that names none.
    ``rated``: "apart" rates games against it in a table of their own,
    "no" leaves them unrated.  ``games_per_player``: the most active games
    a person may play against it at once (0: no such limit)."""

    enabled: bool = True
    userid: str = "computer"
    workers: int = 1
    max_searches: int = 2
    level3_seconds: float = 1.0
    level4_seconds: float = 8.0
    default_level: int = 2
    rated: str = "apart"
    games_per_player: int = 5


@dataclass(frozen=True, kw_only=True)
class SecurityConfig:
    """``[security]``: what the server trusts.

    ``trusted_authserv_id``: the authserv-id that the receiving mail server
    (OpenDKIM, OpenDMARC) writes in its ``Authentication-Results`` header
    (RFC 8601).  When set, the topmost such header with that id saying
    ``dmarc=pass`` (or an aligned ``dkim=pass``) for the From domain counts
    as proof that the mail comes from its From address; no other header
    does.  Unset (the default): a From address is a claim, always.
    ``key_file``: the server's secret key (made when missing, mode 0600),
    from which reply tokens, one-time codes and bounce tags are derived, so
    that the database (and its backups) holds none of them; empty: the
    database's path with ``.key`` added.
    """

    trusted_authserv_id: str | None = None
    key_file: Path | None = None


#: The longest ``[web] base_url``: a tournament's link (``/tournaments/`` and
#: a name of 20 characters) on a line of its own, indented 2, within 78.
BASE_URL_MAX_LENGTH = 43


@dataclass(frozen=True, kw_only=True)
class Config:
    """The whole configuration; ``source`` is the file it came from, if any."""

    server: ServerConfig = field(default_factory=ServerConfig)
    imap: ImapConfig | None = None
    smtp: SmtpConfig | None = None
    listen: ListenConfig = field(default_factory=ListenConfig)
    outbox: OutboxConfig = field(default_factory=OutboxConfig)
    games: GamesConfig = field(default_factory=GamesConfig)
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    web: WebConfig = field(default_factory=WebConfig)
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    computer: ComputerConfig = field(default_factory=ComputerConfig)
    security: SecurityConfig = field(default_factory=SecurityConfig)
    source: Path | None = None

    @property
    def key_path(self) -> Path:
        """The server's secret key file (see :class:`SecurityConfig`)."""
        if self.security.key_file is not None:
            return self.security.key_file
        return self.server.database.with_name(self.server.database.name + ".key")


#: Section name -> dataclass; the keys of a section are its fields.
SECTIONS: dict[str, type] = {
    "server": ServerConfig,
    "imap": ImapConfig,
    "smtp": SmtpConfig,
    "listen": ListenConfig,
    "outbox": OutboxConfig,
    "games": GamesConfig,
    "limits": LimitsConfig,
    "web": WebConfig,
    "metrics": MetricsConfig,
    "computer": ComputerConfig,
    "security": SecurityConfig,
}


def section_keys(section: str) -> tuple[str, ...]:
    """The keys a section accepts, in the order of its dataclass."""
    return tuple(f.name for f in dataclasses.fields(SECTIONS[section]))


def load_config(path: str | os.PathLike[str] | None = None, *,
                environ: Mapping[str, str] | None = None, secrets: bool = True) -> Config:
    """Read the config file at ``path`` (``None``: no file, all defaults).

    ``environ`` is where ``password_env`` names are looked up (default
    ``os.environ``).  With ``secrets`` false (commands that never connect to
    the IMAP server or the relay), a ``password_env`` that is not set is no
    error: the password is an ``UnreadSecret``.  Raises ``ConfigError`` for
    anything wrong with the file.
    """
    if environ is None:
        environ = os.environ
    if not secrets:
        environ = _Unread(environ)
    if path is None:
        return _build({}, source=None, base=Path.cwd(), environ=environ)
    source = Path(path)
    try:
        with open(source, "rb") as f:
            data = tomllib.load(f)
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read the config file: {exc.strerror}",
                          path=source) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{source}: the config file is not UTF-8 text ({exc.reason} "
                          f"at byte {exc.start})", path=source) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}", path=source) from None
    return _build(data, source=source, base=source.absolute().parent, environ=environ)


class _Unread(dict[str, str]):
    """The environment, for a command that reads no secret from it."""


def _build(data: dict[str, Any], *, source: Path | None, base: Path,
           environ: Mapping[str, str]) -> Config:
    where = f"{source}: " if source is not None else ""
    for name, value in data.items():
        if name in SECTIONS:
            if not isinstance(value, dict):
                raise ConfigError(f"{where}[{name}] must be a section, got {_describe(value)}",
                                  path=source, section=name)
        elif isinstance(value, dict):
            close = _closest(name, SECTIONS)
            hint = f"; did you mean [{close}]?" if close else ""
            raise ConfigError(f"{where}unknown section [{name}]{hint}",
                              path=source, section=name)
        else:
            owners = [f"[{s}]" for s in SECTIONS if name in section_keys(s)]
            hint = (f"; did you mean to put it under {' or '.join(owners)}?" if owners
                    else "; every key belongs in a section such as [server]")
            raise ConfigError(f"{where}{name} is outside any section{hint}",
                              path=source, key=name)

    def table(name: str) -> _Table:
        return _Table(name, data.get(name, {}), where=where, source=source, base=base)

    return Config(
        server=_server(table("server")),
        imap=_imap(table("imap"), environ) if "imap" in data else None,
        smtp=_smtp(table("smtp"), environ) if "smtp" in data else None,
        listen=_listen(table("listen")),
        outbox=_outbox(table("outbox")),
        games=_games(table("games")),
        limits=_limits(table("limits")),
        web=_web(table("web")),
        metrics=_metrics(table("metrics")),
        computer=_computer(table("computer")),
        security=_security(table("security")),
        source=source.absolute() if source is not None else None,
    )


def _server(t: _Table) -> ServerConfig:
    return ServerConfig(
        address=t.address("address"),
        name=t.text("name"),
        database=t.path("database"),
        log_level=t.choice("log_level", LOG_LEVELS, normalise=str.upper),
        pictures=t.boolean("pictures"),
        reply_moves=t.boolean("reply_moves"),
        reply_subaddress=t.boolean("reply_subaddress"),
        bounce_address=t.address("bounce_address") if t.raw.get("bounce_address", "") != "" else "",
    )


def _imap(t: _Table, environ: Mapping[str, str]) -> ImapConfig:
    tls = t.choice("tls", TLS_MODES)
    password, password_env = t.password(environ, required=True)
    assert password is not None  # required: given, or an error was raised
    config = ImapConfig(
        host=t.text("host"),
        port=t.port("port", default=IMAP_PORTS[tls]),
        username=t.text("username"),
        password=password,
        password_env=password_env,
        mailbox=t.text("mailbox"),
        tls=tls,
        processed_mailbox=t.text("processed_mailbox"),
        failed_mailbox=t.text("failed_mailbox"),
        poll_interval_seconds=t.seconds("poll_interval_seconds"),
        idle=t.boolean("idle"),
        ca_file=t.ca_file("ca_file", tls),
    )
    folders = ["mailbox", "processed_mailbox", "failed_mailbox"]
    for i, one in enumerate(folders):
        for other in folders[i + 1:]:
            if getattr(config, one) == getattr(config, other):
                raise t.error(other, f"must differ from {one} "
                                     f"(both are {getattr(config, one)!r})")
    return config


def _smtp(t: _Table, environ: Mapping[str, str]) -> SmtpConfig:
    tls = t.choice("tls", TLS_MODES)
    username = t.text("username", default=None)
    password, password_env = t.password(environ, required=username is not None)
    return SmtpConfig(
        host=t.text("host"),
        port=t.port("port", default=SMTP_PORTS[tls]),
        username=username,
        password=password,
        password_env=password_env,
        tls=tls,
        ca_file=t.ca_file("ca_file", tls),
    )


def nag_precedes_forfeit(nag_days: float, forfeit_days: float) -> bool:
    """The rule every board's times keep, wherever they come from (this file,
    a challenge's options, a tournament): the reminder comes before the
    forfeit."""
    return nag_days < forfeit_days


def tls_context(ca_file: Path | None) -> ssl.SSLContext:
    """The TLS settings of a connection to the IMAP server or the relay:
    the certificate must be valid for the host name and signed by a
    certificate in ``ca_file``, or by one the system trusts when there is no
    ``ca_file`` (for a server with a private or self-signed certificate)."""
    return ssl.create_default_context(cafile=str(ca_file) if ca_file is not None else None)


def _listen(t: _Table) -> ListenConfig:
    socket = t.path("socket") if "socket" in t.raw else None
    if socket is not None and len(os.fsencode(socket)) > SOCKET_PATH_MAX:
        raise t.error("socket", f"must be a path of at most {SOCKET_PATH_MAX} bytes (a limit of unix "
                                f"sockets), got {len(os.fsencode(socket))}: {socket}")
    return ListenConfig(
        enabled=t.boolean("enabled"),
        host=t.text("host"),
        port=t.port("port"),
        max_message_bytes=t.integer("max_message_bytes", minimum=1),
        protocol=t.choice("protocol", LISTEN_PROTOCOLS),
        socket=socket,
    )


def _outbox(t: _Table) -> OutboxConfig:
    config = OutboxConfig(
        maildir=t.path("maildir"),
        retry_initial_seconds=t.seconds("retry_initial_seconds"),
        retry_max_seconds=t.seconds("retry_max_seconds"),
        connections=t.integer("connections", minimum=1, maximum=16),
        keep_sent_days=t.integer("keep_sent_days", minimum=1),
    )
    if config.retry_max_seconds < config.retry_initial_seconds:
        raise t.error("retry_max_seconds",
                      f"({config.retry_max_seconds:g}) must not be less than "
                      f"retry_initial_seconds ({config.retry_initial_seconds:g})")
    return config


def _games(t: _Table) -> GamesConfig:
    config = GamesConfig(
        nag_days=t.integer("nag_days", minimum=1),
        forfeit_days=t.integer("forfeit_days", minimum=1),
        tournament_nag_days=t.integer("tournament_nag_days", minimum=1),
        tournament_forfeit_days=t.integer("tournament_forfeit_days", minimum=1),
        vacation_days_per_year=t.integer("vacation_days_per_year", minimum=0, maximum=366),
        default_limit=t.integer("default_limit", minimum=0),
        inactive_days=t.integer("inactive_days", minimum=1),
        clock_interval_seconds=t.seconds("clock_interval_seconds"),
        minimum_forfeit_days=t.integer("minimum_forfeit_days", minimum=1),
        bounce_hold_days=t.integer("bounce_hold_days", minimum=1, maximum=30),
    )
    for prefix in ("", "tournament_"):
        nag = getattr(config, prefix + "nag_days")
        forfeit = getattr(config, prefix + "forfeit_days")
        if not nag_precedes_forfeit(nag, forfeit):
            raise t.error(prefix + "forfeit_days",
                          f"({forfeit}) must be greater than {prefix}nag_days ({nag})")
        if forfeit < config.minimum_forfeit_days:
            raise t.error(prefix + "forfeit_days",
                          f"({forfeit}) must be at least minimum_forfeit_days ({config.minimum_forfeit_days})")
    return config


def _limits(t: _Table) -> LimitsConfig:
    return LimitsConfig(
        max_message_bytes=t.integer("max_message_bytes", minimum=1),
        max_command_lines=t.integer("max_command_lines", minimum=1),
        replies_per_sender_per_day=t.integer("replies_per_sender_per_day", minimum=1),
        broadcasts_per_day=t.integer("broadcasts_per_day", minimum=0),
        failed_logins_before_lock=t.integer("failed_logins_before_lock", minimum=1),
        lock_minutes=t.integer("lock_minutes", minimum=1, maximum=1440),
        failed_logins_per_sender_per_day=t.integer("failed_logins_per_sender_per_day", minimum=1),
        new_boards_per_player_per_day=t.integer("new_boards_per_player_per_day", minimum=1),
        invitations_per_player_per_day=t.integer("invitations_per_player_per_day", minimum=0),
        open_challenges_per_player=t.integer("open_challenges_per_player", minimum=1),
        confirmations_per_address_per_day=t.integer("confirmations_per_address_per_day", minimum=1),
        confirmations_per_sender_per_day=t.integer("confirmations_per_sender_per_day", minimum=1),
        signups_per_sender_per_day=t.integer("signups_per_sender_per_day", minimum=1),
        recipients_per_mail=t.integer("recipients_per_mail", minimum=1),
        mail_to_others_per_day=t.integer("mail_to_others_per_day", minimum=1),
        mail_from_others_per_day=t.integer("mail_from_others_per_day", minimum=1),
        password_checks_per_mail=t.integer("password_checks_per_mail", minimum=1),
        positions_per_mail=t.integer("positions_per_mail", minimum=1000),
        pictures_per_mail=t.integer("pictures_per_mail", minimum=1),
        boards_per_show=t.integer("boards_per_show", minimum=1),
        max_reply_bytes=t.integer("max_reply_bytes", minimum=10_000),
    )


def _web(t: _Table) -> WebConfig:
    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise t._type_error("base_url", "a URL (a string)", value)
        url = value.rstrip("/")
        if not re.fullmatch(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~/-]*)?", url):
            raise t.error("base_url", f"must be an http:// or https:// URL such as "
                                      f"https://trax.example.org, got {value!r}")
        if len(url) > BASE_URL_MAX_LENGTH:
            raise t.error("base_url", f"must be at most {BASE_URL_MAX_LENGTH} characters (so that the links "
                                      f"in mail fit 78 columns), got {len(url)}")
        return url
    return WebConfig(
        enabled=t.boolean("enabled"),
        host=t.text("host"),
        port=t.port("port"),
        base_url=t._get("base_url", _FROM_FIELD, check),
    )


def _metrics(t: _Table) -> MetricsConfig:
    return MetricsConfig(
        enabled=t.boolean("enabled"),
        host=t.text("host"),
        port=t.port("port"),
    )


def _computer(t: _Table) -> ComputerConfig:
    def userid(value: Any) -> str:
        if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]{1,19}", value):
            raise t.error("userid", f"must be a userid (a letter, then letters, digits, _ . -; 2 to 20), "
                                    f"got {value!r}")
        return value
    return ComputerConfig(
        enabled=t.boolean("enabled"),
        userid=t._get("userid", _FROM_FIELD, userid),
        workers=t.integer("workers", minimum=1, maximum=16),
        max_searches=t.integer("max_searches", minimum=1, maximum=64),
        level3_seconds=t.seconds("level3_seconds"),
        level4_seconds=t.seconds("level4_seconds"),
        default_level=t.integer("default_level", minimum=1, maximum=4),
        rated=t.choice("rated", ("apart", "no")),
        games_per_player=t.integer("games_per_player", minimum=0),
    )


def _security(t: _Table) -> SecurityConfig:
    def authserv_id(value: Any) -> str:
        if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.-]{0,252}", value):
            raise t.error("trusted_authserv_id", f"must be an authserv-id as the mail server writes it (a host "
                                                 f"name such as mx.example.org), got {value!r}")
        return value
    return SecurityConfig(
        trusted_authserv_id=t._get("trusted_authserv_id", None, authserv_id),
        key_file=t.path("key_file") if "key_file" in t.raw else None,
    )


_FROM_FIELD: Any = object()


class _Table:
    """One section of the file being read: typed getters with defaults taken
    from the section's dataclass, and errors that say where."""

    def __init__(self, name: str, raw: dict[str, Any], *, where: str,
                 source: Path | None, base: Path) -> None:
        self.name = name
        self.raw = raw
        self.where = where
        self.source = source
        self.base = base
        self.fields = {f.name: f for f in dataclasses.fields(SECTIONS[name])}
        for key in raw:
            if key not in self.fields:
                close = _closest(key, self.fields)
                hint = f"; did you mean {close!r}?" if close else ""
                raise ConfigError(f"{where}[{name}] unknown key {key!r}{hint}",
                                  path=source, section=name, key=key)

    def error(self, key: str, message: str) -> ConfigError:
        """'FILE: [section] key MESSAGE'."""
        return ConfigError(f"{self.where}[{self.name}] {key} {message}",
                           path=self.source, section=self.name, key=key)

    def _get(self, key: str, default: Any, check: Callable[[Any], Any]) -> Any:
        if key in self.raw:
            return check(self.raw[key])
        if default is _FROM_FIELD:
            default = self.fields[key].default
        if default is dataclasses.MISSING:
            raise self.error(key, "is required")
        return default

    def _type_error(self, key: str, expected: str, value: Any) -> ConfigError:
        return self.error(key, f"must be {expected}, got {_describe(value)}")

    def text(self, key: str, *, default: Any = _FROM_FIELD) -> Any:
        def check(value: Any) -> str:
            if not isinstance(value, str):
                raise self._type_error(key, "a string", value)
            if not value.strip():
                raise self.error(key, "must not be empty")
            if any(ord(c) < 32 or ord(c) == 127 for c in value):
                raise self.error(key, f"must be one line without control characters, "
                                      f"got {value!r}")
            return value
        return self._get(key, default, check)

    def address(self, key: str) -> Any:
        def check(value: Any) -> str:
            if not isinstance(value, str):
                raise self._type_error(key, "a mail address", value)
            try:
                parsed = Address(addr_spec=value)
            except (ValueError, IndexError, email.errors.HeaderParseError):
                parsed = None
            if parsed is None or not parsed.username or not parsed.domain:
                raise self.error(key, f"must be a mail address like pbm@example.org, "
                                      f"got {value!r}")
            return parsed.addr_spec
        return self._get(key, _FROM_FIELD, check)

    def path(self, key: str) -> Any:
        def check(value: Any) -> Path:
            if not isinstance(value, str):
                raise self._type_error(key, "a path (a string)", value)
            if not value.strip():
                raise self.error(key, "must not be empty")
            return Path(value)
        relative = self._get(key, _FROM_FIELD, check)
        return self.base / relative.expanduser()

    def ca_file(self, key: str, tls: str) -> Any:
        """An optional file of PEM certificates, checked by loading it (and
        pointless, so refused, when the connection has no TLS)."""
        if key not in self.raw:
            return None
        if tls == "none":
            raise self.error(key, 'is only used with tls = "starttls" or "ssl", '
                                  'but tls is "none"')
        path = self.path(key)
        try:
            tls_context(path)
        except FileNotFoundError:
            raise self.error(key, f"names a file that does not exist: {path}") from None
        except ssl.SSLError:  # an OSError too: first
            raise self.error(key, f"holds no PEM certificate that can be loaded ({path}); "
                                  f"it should contain lines like -----BEGIN CERTIFICATE-----") from None
        except OSError as exc:
            raise self.error(key, f"cannot be read: {exc.strerror} ({path})") from None
        return path

    def integer(self, key: str, *, minimum: int | None = None, maximum: int | None = None,
                default: Any = _FROM_FIELD) -> Any:
        def check(value: Any) -> int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise self._type_error(key, "an integer", value)
            if minimum is not None and maximum is not None and not minimum <= value <= maximum:
                raise self.error(key, f"must be between {minimum} and {maximum}, got {value}")
            if minimum is not None and value < minimum:
                wanted = {0: "zero or more", 1: "positive"}.get(minimum, f"at least {minimum}")
                raise self.error(key, f"must be {wanted}, got {value}")
            if maximum is not None and value > maximum:
                raise self.error(key, f"must be at most {maximum}, got {value}")
            return value
        return self._get(key, default, check)

    def port(self, key: str, *, default: Any = _FROM_FIELD) -> Any:
        return self.integer(key, minimum=1, maximum=65535, default=default)

    def seconds(self, key: str) -> Any:
        def check(value: Any) -> float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise self._type_error(key, "a number of seconds", value)
            if not 0 < value < float("inf"):
                raise self.error(key, f"must be a positive number of seconds, got {value}")
            return float(value)
        return self._get(key, _FROM_FIELD, check)

    def boolean(self, key: str) -> Any:
        def check(value: Any) -> bool:
            if not isinstance(value, bool):
                raise self._type_error(key, "true or false", value)
            return value
        return self._get(key, _FROM_FIELD, check)

    def choice(self, key: str, choices: tuple[str, ...], *,
               normalise: Callable[[str], str] = str.lower) -> Any:
        def check(value: Any) -> str:
            listed = ", ".join(repr(c) for c in choices)
            if not isinstance(value, str):
                raise self._type_error(key, f"one of {listed}", value)
            if normalise(value) in choices:
                return normalise(value)
            close = _closest(normalise(value), choices)
            hint = f"; did you mean {close!r}?" if close else ""
            raise self.error(key, f"must be one of {listed}, got {value!r}{hint}")
        return self._get(key, _FROM_FIELD, check)

    def password(self, environ: Mapping[str, str], *,
                 required: bool) -> tuple[Secret | None, str | None]:
        """``password`` or ``password_env`` (exactly one when ``required``,
        neither otherwise); returns the secret and the variable's name."""
        given = [k for k in ("password", "password_env") if k in self.raw]
        if len(given) == 2:
            raise self.error("password", "and password_env are alternatives: give one of them")
        if not required:
            if given:
                raise self.error(given[0], "is only used with username, which is not set")
            return None, None
        if not given:
            raise self.error("password", "is required: give password, or password_env "
                                         "naming an environment variable that holds it")
        if given == ["password"]:
            value = self.raw["password"]
            if not isinstance(value, str):
                raise self._type_error("password", "a string", _Hidden(value))
            if not value:
                raise self.error("password", "must not be empty")
            return Secret(value), None
        name = self.text("password_env")
        if isinstance(environ, _Unread) and not environ.get(name):
            return UnreadSecret(name), name
        if name not in environ:
            raise self.error("password_env", f"names {name}, which is not set")
        if not environ[name]:
            raise self.error("password_env", f"names {name}, which is set but empty")
        return Secret(environ[name]), name


class _Hidden:
    """A value to describe by its type only (it may be a password)."""

    def __init__(self, value: Any) -> None:
        self.value = value


def _describe(value: Any) -> str:
    """A value as an error message shows it: strings quoted, TOML's names for
    the other types, and only the type of a hidden value."""
    hidden = isinstance(value, _Hidden)
    if hidden:
        value = value.value
    if isinstance(value, bool):
        return "a boolean" if hidden else str(value).lower()
    if isinstance(value, str):
        return "a string" if hidden else repr(value)
    if isinstance(value, int):
        return "an integer" if hidden else str(value)
    if isinstance(value, float):
        return "a float" if hidden else repr(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return "a date or time" if hidden else f"the date/time {value.isoformat()}"


def _closest(word: str, known: Any) -> str | None:
    """The known name most like ``word``, if any is close enough."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return close[0] if close else None
