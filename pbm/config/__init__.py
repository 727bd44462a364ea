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

import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..secret import Secret
from ..terms import BoardTerms
from .reading import _FROM_FIELD, _closest, _describe, _Table, _Unread
from .sections import (
    BASE_URL_MAX_LENGTH,
    IMAP_PORTS,
    LISTEN_PROTOCOLS,
    LOG_LEVELS,
    SECTIONS,
    SMTP_PORTS,
    SOCKET_PATH_MAX,
    TLS_MODES,
    ComputerConfig,
    Config,
    ConfigError,
    GamesConfig,
    ImapConfig,
    LimitsConfig,
    ListenConfig,
    MetricsConfig,
    OutboxConfig,
    SecurityConfig,
    ServerConfig,
    SmtpConfig,
    WebConfig,
    section_keys,
    tls_context,
)

__all__ = [
    "SECTIONS",
    "ComputerConfig",
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
    "section_keys",
    "tls_context",
]


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
        if not BoardTerms(nag_days=nag, forfeit_days=forfeit).nag_comes_first():
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
        analysis_seconds=t.seconds("analysis_seconds"),
        analyses_per_sender_per_day=t.integer("analyses_per_sender_per_day", minimum=0),
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
