"""The configuration's sections: one frozen dataclass per section of the
TOML file, the whole ``Config``, and the rules their values keep."""

from __future__ import annotations

import dataclasses
import ssl
from dataclasses import dataclass, field
from pathlib import Path

from ..secret import Secret

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
    a person may play against it at once (0: no such limit).
    ``analysis_seconds``: the CPU time an analysis of a finished game
    (``trax analyze``) may take in all; ``analyses_per_sender_per_day``: the
    most analyses one address may ask for in a UTC day (0: none)."""

    enabled: bool = True
    userid: str = "computer"
    workers: int = 1
    max_searches: int = 2
    level3_seconds: float = 1.0
    level4_seconds: float = 8.0
    default_level: int = 2
    rated: str = "apart"
    games_per_player: int = 5
    analysis_seconds: float = 4.0
    analyses_per_sender_per_day: int = 3


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


def tls_context(ca_file: Path | None) -> ssl.SSLContext:
    """The TLS settings of a connection to the IMAP server or the relay:
    the certificate must be valid for the host name and signed by a
    certificate in ``ca_file``, or by one the system trusts when there is no
    ``ca_file`` (for a server with a private or self-signed certificate)."""
    return ssl.create_default_context(cafile=str(ca_file) if ca_file is not None else None)
