"""The config file: defaults, the example file, and every way a file can be wrong."""

from __future__ import annotations

import dataclasses
import re
import textwrap
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from pbm.config import (
    SECTIONS,
    Config,
    ConfigError,
    ImapConfig,
    Secret,
    load_config,
    section_keys,
    tls_context,
)

EXAMPLE = Path(__file__).resolve().parent.parent / "config.example.toml"
PASSWORD = "hunter2-very-secret"


def write(directory: Path, text: str, name: str = "pbm.toml") -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def error_for(tmp_path: Path, text: str, environ: dict[str, str] | None = None) -> str:
    """The message of the ConfigError loading ``text`` raises; it always names the file."""
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path, environ=environ or {})
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    return message


IMAP = """
    [imap]
    host = "imap.example.org"
    username = "pbm"
"""


# --- the example file, read line by line ---------------------------------

def example_lines() -> list[tuple[str | None, str | None, str]]:
    """(section, key, line) for every line of the example.

    A line, or a comment without its "# ", that is a TOML table header or one
    ``key = value`` counts as a setting (commented-out ones included);
    ``key`` is None for headers and other lines.
    """
    section = None
    lines = []
    for line in EXAMPLE.read_text(encoding="utf-8").splitlines():
        body = re.sub(r"^#\s?", "", line).strip()
        key = None
        try:
            parsed = tomllib.loads(body) if body else {}
        except tomllib.TOMLDecodeError:
            parsed = {}
        if body.startswith("[") and len(parsed) == 1:
            section = next(iter(parsed))
        elif len(parsed) == 1 and not isinstance(next(iter(parsed.values())), dict):
            key = next(iter(parsed))
        lines.append((section, key, line))
    return lines


def example_keys() -> list[tuple[str | None, str]]:
    return [(section, key) for section, key, _ in example_lines() if key is not None]


def test_every_config_key_is_in_the_example_file_and_every_example_key_is_a_config_key():
    defined = {(section, key) for section in SECTIONS for key in section_keys(section)}
    documented = set(example_keys())
    assert sorted(defined - documented, key=str) == [], "keys missing from config.example.toml"
    assert sorted(documented - defined, key=str) == [], "keys in the example that do not exist"


def test_the_example_file_names_each_key_once():
    repeated = [item for item, count in Counter(example_keys()).items() if count > 1]
    assert repeated == []


def test_every_key_in_the_example_file_has_a_comment_saying_what_it_does():
    lines = example_lines()
    for index, (section, key, _line) in enumerate(lines):
        if key is None:
            continue
        above = lines[index - 1]
        assert above[1] is None and above[2].startswith("# ") and above[2] != "# ", (
            f"[{section}] {key} in config.example.toml has no comment right above it")


def test_the_sections_of_the_example_file_are_the_config_sections():
    sections = {section for section, _ in example_keys()}
    assert sections == set(SECTIONS)
    assert [f.name for f in dataclasses.fields(Config)] == [*SECTIONS, "source"]


def test_the_example_file_loads_and_gives_the_same_server_as_no_file(monkeypatch):
    config = load_config(EXAMPLE, environ={})
    assert config.source == EXAMPLE
    assert config.imap is None and config.smtp is None
    monkeypatch.chdir(EXAMPLE.parent)
    assert dataclasses.replace(config, source=None) == load_config(None)


def test_the_example_file_with_imap_and_smtp_uncommented_loads(tmp_path):
    """What a reader does to turn IMAP and the relay on: uncomment the section
    headers and settings, keeping one of password / password_env (and no
    ca_file, which names a file of the reader's own)."""
    text = "\n".join(
        line[2:] if line.startswith("#") and (key is not None or line.startswith("# [")) else line
        for section, key, line in example_lines()
        if key not in ("password", "ca_file")
    )
    environ = {"PBM_IMAP_PASSWORD": "imap-secret", "PBM_SMTP_PASSWORD": "smtp-secret"}
    config = load_config(write(tmp_path, text), environ=environ)
    assert config.imap is not None and config.smtp is not None
    assert config.imap.host == "imap.example.org"
    assert config.imap.password.reveal() == "imap-secret"
    assert config.smtp.password is not None
    assert config.smtp.password.reveal() == "smtp-secret"


# --- defaults ------------------------------------------------------------

def test_no_config_file_gives_the_embedded_default(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = load_config()
    assert config.source is None
    assert config.server.address == "pbm@localhost"
    assert config.server.name == "Trax PBM"
    assert config.server.database == tmp_path / "pbm.sqlite3"
    assert config.server.log_level == "INFO"
    assert config.imap is None
    assert config.smtp is None
    listen = config.listen
    assert (listen.enabled, listen.host, listen.port) == (True, "127.0.0.1", 2525)
    assert config.listen.max_message_bytes == 10 * 1024 * 1024
    assert config.outbox.maildir == tmp_path / "outbox-maildir"
    assert (config.outbox.retry_initial_seconds, config.outbox.retry_max_seconds) == (30, 3600)
    assert config.outbox.connections == 2
    games = config.games
    assert (games.nag_days, games.forfeit_days) == (7, 21)
    assert (games.tournament_nag_days, games.tournament_forfeit_days) == (1, 7)
    assert (games.vacation_days_per_year, games.default_limit) == (30, 0)
    limits = config.limits
    assert limits.max_message_bytes == 1024 * 1024
    assert (limits.max_command_lines, limits.replies_per_sender_per_day) == (100, 200)
    assert limits.broadcasts_per_day == 2


def test_an_empty_config_file_gives_the_same_config_as_no_file(tmp_path, monkeypatch):
    path = write(tmp_path, "")
    monkeypatch.chdir(tmp_path)
    config = load_config(path)
    assert config.source == path
    assert dataclasses.replace(config, source=None) == load_config(None)


def test_empty_sections_give_the_defaults_too(tmp_path, monkeypatch):
    path = write(tmp_path, "[server]\n[listen]\n[outbox]\n[games]\n[limits]\n")
    monkeypatch.chdir(tmp_path)
    assert dataclasses.replace(load_config(path), source=None) == load_config(None)


def test_the_config_is_frozen():
    config = load_config()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.listen.port = 25  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.imap = None  # type: ignore[misc]


def test_values_in_the_file_replace_the_defaults(tmp_path):
    config = load_config(write(tmp_path, """
        [server]
        address = "trax@example.org"
        name = "Trax by mail"
        log_level = "debug"

        [listen]
        enabled = false
        port = 2600

        [outbox]
        retry_initial_seconds = 0.5

        [games]
        default_limit = 50
        vacation_days_per_year = 0

        [limits]
        broadcasts_per_day = 0
    """))
    assert config.server.address == "trax@example.org"
    assert config.server.name == "Trax by mail"
    assert config.server.log_level == "DEBUG"
    assert (config.listen.enabled, config.listen.port) == (False, 2600)
    assert config.outbox.retry_initial_seconds == 0.5
    assert (config.games.default_limit, config.games.vacation_days_per_year) == (50, 0)
    assert config.limits.broadcasts_per_day == 0


# --- IMAP and SMTP --------------------------------------------------------

@pytest.mark.parametrize("tls, port", [("none", 143), ("starttls", 143), ("ssl", 993)])
def test_the_imap_port_defaults_by_tls(tmp_path, tls, port):
    text = IMAP + f'password = "x"\ntls = "{tls}"\n'
    config = load_config(write(tmp_path, text), environ={})
    assert config.imap is not None
    assert (config.imap.tls, config.imap.port) == (tls, port)


@pytest.mark.parametrize("tls, port", [("none", 25), ("starttls", 587), ("ssl", 465)])
def test_the_smtp_port_defaults_by_tls(tmp_path, tls, port):
    config = load_config(write(tmp_path, f'[smtp]\nhost = "relay"\ntls = "{tls}"\n'))
    assert config.smtp is not None
    assert (config.smtp.tls, config.smtp.port) == (tls, port)


def test_an_imap_section_gets_the_documented_defaults(tmp_path):
    config = load_config(write(tmp_path, IMAP + 'password = "x"\n'), environ={})
    assert config.imap == ImapConfig(
        host="imap.example.org", port=143, username="pbm", password=Secret("x"),
        mailbox="INBOX", tls="starttls", processed_mailbox="pbm/processed",
        failed_mailbox="pbm/failed", poll_interval_seconds=60, idle=True,
    )


def test_an_smtp_relay_without_username_needs_no_password(tmp_path):
    config = load_config(write(tmp_path, '[smtp]\nhost = "localhost"\ntls = "none"\n'))
    assert config.smtp is not None
    smtp = config.smtp
    assert (smtp.port, smtp.username, smtp.password, smtp.password_env) == (25, None, None, None)


def test_password_env_reads_the_password_from_the_environment(tmp_path):
    text = IMAP + 'password_env = "PBM_IMAP_PASSWORD"\n'
    config = load_config(write(tmp_path, text), environ={"PBM_IMAP_PASSWORD": PASSWORD})
    assert config.imap is not None
    assert config.imap.password.reveal() == PASSWORD
    assert config.imap.password_env == "PBM_IMAP_PASSWORD"


def test_password_env_looks_in_the_process_environment_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv("PBM_TEST_SMTP_PASSWORD", PASSWORD)
    text = '[smtp]\nhost = "relay"\nusername = "pbm"\npassword_env = "PBM_TEST_SMTP_PASSWORD"\n'
    config = load_config(write(tmp_path, text))
    assert config.smtp is not None and config.smtp.password is not None
    assert config.smtp.password.reveal() == PASSWORD


def test_a_password_env_naming_an_unset_variable_is_an_error(tmp_path):
    message = error_for(tmp_path, IMAP + 'password_env = "FOO"\n', environ={"BAR": "x"})
    assert message.endswith("[imap] password_env names FOO, which is not set")


def test_without_secrets_an_unset_password_env_is_read_as_an_unread_secret(tmp_path):
    path = write(tmp_path, IMAP + 'password_env = "FOO"\n')
    config = load_config(path, environ={}, secrets=False)
    assert config.imap is not None and config.imap.password_env == "FOO"
    with pytest.raises(RuntimeError, match="not read"):
        config.imap.password.reveal()
    assert str(config.imap.password) == "********"
    # a variable that is set is still read
    assert load_config(path, environ={"FOO": PASSWORD}, secrets=False).imap.password.reveal() == PASSWORD


def test_a_password_env_naming_an_empty_variable_is_an_error(tmp_path):
    message = error_for(tmp_path, IMAP + 'password_env = "FOO"\n', environ={"FOO": ""})
    assert message.endswith("[imap] password_env names FOO, which is set but empty")


@pytest.mark.parametrize("text, expected", [
    (IMAP, ("[imap] password is required: give password, or password_env naming an "
            "environment variable that holds it")),
    (IMAP + 'password = "a"\npassword_env = "B"\n',
     "[imap] password and password_env are alternatives: give one of them"),
    ('[smtp]\nhost = "relay"\npassword = "a"\n',
     "[smtp] password is only used with username, which is not set"),
    ('[smtp]\nhost = "relay"\nusername = "pbm"\n', "[smtp] password is required"),
    ('[imap]\nusername = "pbm"\npassword = "x"\n', "[imap] host is required"),
    ('[imap]\nhost = "imap"\npassword = "x"\n', "[imap] username is required"),
    ("[smtp]\n", "[smtp] host is required"),
])
def test_imap_and_smtp_logins_must_be_complete(tmp_path, text, expected):
    assert expected in error_for(tmp_path, text)


@pytest.mark.parametrize("extra, expected", [
    ('processed_mailbox = "INBOX"', "[imap] processed_mailbox must differ from mailbox"),
    ('failed_mailbox = "INBOX"', "[imap] failed_mailbox must differ from mailbox"),
    ('failed_mailbox = "pbm/processed"',
     "[imap] failed_mailbox must differ from processed_mailbox"),
])
def test_the_imap_folders_must_be_three_different_folders(tmp_path, extra, expected):
    assert expected in error_for(tmp_path, IMAP + 'password = "x"\n' + extra + "\n")


# --- passwords stay hidden ------------------------------------------------

def test_passwords_are_not_in_the_repr_or_str_of_the_config(tmp_path):
    text = IMAP + f'password = "{PASSWORD}"\n[smtp]\nhost = "relay"\nusername = "pbm"\n' \
        'password_env = "SMTP_PASSWORD"\n'
    config = load_config(write(tmp_path, text), environ={"SMTP_PASSWORD": PASSWORD + "-smtp"})
    assert config.imap is not None and config.smtp is not None
    for shown in (repr(config), str(config), repr(config.imap), str(config.smtp),
                  f"{config.imap.password}", repr(dataclasses.asdict(config))):
        assert PASSWORD not in shown
    assert "password=Secret('********')" in repr(config.imap)
    assert config.imap.password.reveal() == PASSWORD
    assert config.smtp.password is not None
    assert config.smtp.password.reveal() == PASSWORD + "-smtp"


@pytest.mark.parametrize("text", [
    IMAP + f'password = "{PASSWORD}"\npasword_env = "X"\n',
    IMAP + f'pasword = "{PASSWORD}"\n',
    IMAP + f'password = "{PASSWORD}"\npassword_env = "X"\n',
    IMAP + f'password = "{PASSWORD}"\ntls = "tsl"\n',
    IMAP + "password = 1234567\n",
    IMAP + f'password = ["{PASSWORD}"]\n',
    f'[smtp]\nhost = "relay"\npassword = "{PASSWORD}"\n',
    IMAP + f'password = "{PASSWORD}\n',
    IMAP + f'password = "{PASSWORD}" {PASSWORD}\n',
    f'[imap]\npassword = "{PASSWORD}"\n',
])
def test_passwords_are_never_quoted_in_error_messages(tmp_path, text):
    message = error_for(tmp_path, text)
    assert PASSWORD not in message and "1234567" not in message


def test_a_password_of_the_wrong_type_is_described_by_its_type_only(tmp_path):
    message = error_for(tmp_path, IMAP + "password = 1234567\n")
    assert message.endswith("[imap] password must be a string, got an integer")


# --- unknown sections and keys ----------------------------------------------

def test_an_unknown_section_is_an_error_suggesting_the_closest_section(tmp_path):
    message = error_for(tmp_path, '[imapp]\nhost = "x"\n')
    assert message.endswith("unknown section [imapp]; did you mean [imap]?")


def test_an_unknown_section_far_from_every_section_gets_no_suggestion(tmp_path):
    message = error_for(tmp_path, "[tournament]\n")
    assert message.endswith("unknown section [tournament]")


def test_an_unknown_key_is_an_error_suggesting_the_closest_key(tmp_path):
    message = error_for(tmp_path, "[listen]\nprot = 25\n")
    assert message.endswith("[listen] unknown key 'prot'; did you mean 'port'?")


def test_an_unknown_key_far_from_every_key_gets_no_suggestion(tmp_path):
    message = error_for(tmp_path, "[games]\ncolour = 'white'\n")
    assert message.endswith("[games] unknown key 'colour'")


def test_a_known_key_outside_its_section_says_which_section_it_belongs_in(tmp_path):
    assert error_for(tmp_path, "nag_days = 3\n").endswith(
        "nag_days is outside any section; did you mean to put it under [games]?")
    assert error_for(tmp_path, "port = 3\n").endswith(
        "port is outside any section; "
        "did you mean to put it under [imap] or [smtp] or [listen] or [web] or [metrics]?")
    assert error_for(tmp_path, "colour = 3\n").endswith(
        "colour is outside any section; every key belongs in a section such as [server]")


def test_a_nested_table_inside_a_section_is_an_unknown_key(tmp_path):
    message = error_for(tmp_path, "[server.extra]\nx = 1\n")
    assert message.endswith("[server] unknown key 'extra'")


def test_config_errors_carry_the_file_section_and_key(tmp_path):
    path = write(tmp_path, "[listen]\nport = 0\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert (info.value.path, info.value.section, info.value.key) == (path, "listen", "port")
    assert isinstance(info.value, ValueError)


# --- types, ranges and choices -----------------------------------------------

@pytest.mark.parametrize("text, expected", [
    (IMAP + 'password = "x"\nport = "abc"\n', "[imap] port must be an integer, got 'abc'"),
    ("[listen]\nport = true\n", "[listen] port must be an integer, got true"),
    ("[listen]\nport = 25.0\n", "[listen] port must be an integer, got 25.0"),
    ('[listen]\nenabled = "yes"\n', "[listen] enabled must be true or false, got 'yes'"),
    ("[listen]\nhost = [1, 2]\n", "[listen] host must be a string, got an array"),
    ("[server]\ndatabase = 5\n", "[server] database must be a path (a string), got 5"),
    ("[server]\nname = 1979-01-01\n",
     "[server] name must be a string, got the date/time 1979-01-01"),
    ('[outbox]\nretry_initial_seconds = "30s"\n',
     "[outbox] retry_initial_seconds must be a number of seconds, got '30s'"),
    ("[games]\nnag_days = 1.5\n", "[games] nag_days must be an integer, got 1.5"),
    ("[limits]\nmax_command_lines = { n = 1 }\n",
     "[limits] max_command_lines must be an integer, got a table"),
    ("imap = 1\n", "[imap] must be a section, got 1"),
])
def test_a_value_of_the_wrong_type_is_an_error_naming_the_value(tmp_path, text, expected):
    assert error_for(tmp_path, text).endswith(expected)


@pytest.mark.parametrize("text, expected", [
    ("[listen]\nport = 0\n", "[listen] port must be between 1 and 65535, got 0"),
    ("[listen]\nport = 65536\n", "[listen] port must be between 1 and 65535, got 65536"),
    ('[smtp]\nhost = "relay"\nport = -25\n', "[smtp] port must be between 1 and 65535, got -25"),
    ("[listen]\nmax_message_bytes = 0\n", "[listen] max_message_bytes must be positive, got 0"),
    (IMAP + 'password = "x"\npoll_interval_seconds = 0\n',
     "[imap] poll_interval_seconds must be a positive number of seconds, got 0"),
    ("[outbox]\nretry_initial_seconds = -1.5\n",
     "[outbox] retry_initial_seconds must be a positive number of seconds, got -1.5"),
    ("[outbox]\nretry_max_seconds = inf\n",
     "[outbox] retry_max_seconds must be a positive number of seconds, got inf"),
    ("[outbox]\nconnections = 0\n", "[outbox] connections must be between 1 and 16, got 0"),
    ("[outbox]\nconnections = 17\n", "[outbox] connections must be between 1 and 16, got 17"),
    ("[outbox]\nretry_max_seconds = 10\n",
     "[outbox] retry_max_seconds (10) must not be less than retry_initial_seconds (30)"),
    ("[games]\nnag_days = 0\n", "[games] nag_days must be positive, got 0"),
    ("[games]\nforfeit_days = 7\n", "[games] forfeit_days (7) must be greater than nag_days (7)"),
    ("[games]\ntournament_nag_days = 8\n",
     "[games] tournament_forfeit_days (7) must be greater than tournament_nag_days (8)"),
    ("[games]\ndefault_limit = -1\n", "[games] default_limit must be zero or more, got -1"),
    ("[games]\nvacation_days_per_year = 400\n",
     "[games] vacation_days_per_year must be between 0 and 366, got 400"),
    ("[limits]\nbroadcasts_per_day = -1\n",
     "[limits] broadcasts_per_day must be zero or more, got -1"),
    ("[limits]\nreplies_per_sender_per_day = 0\n",
     "[limits] replies_per_sender_per_day must be positive, got 0"),
])
def test_a_value_out_of_range_is_an_error(tmp_path, text, expected):
    assert error_for(tmp_path, text).endswith(expected)


@pytest.mark.parametrize("text, expected", [
    (IMAP + 'password = "x"\ntls = "tsl"\n',
     "[imap] tls must be one of 'none', 'starttls', 'ssl', got 'tsl'; did you mean 'ssl'?"),
    ('[smtp]\nhost = "relay"\ntls = "yes"\n',
     "[smtp] tls must be one of 'none', 'starttls', 'ssl', got 'yes'"),
    ('[smtp]\nhost = "relay"\ntls = true\n',
     "[smtp] tls must be one of 'none', 'starttls', 'ssl', got true"),
    ('[server]\nlog_level = "LOUD"\n',
     ("[server] log_level must be one of 'DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL', "
      "got 'LOUD'")),
    ('[server]\nlog_level = "warn"\n',
     ("[server] log_level must be one of 'DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL', "
      "got 'warn'; did you mean 'WARNING'?")),
])
def test_a_value_not_among_the_choices_is_an_error_listing_them(tmp_path, text, expected):
    assert error_for(tmp_path, text).endswith(expected)


def test_choices_are_read_without_regard_to_case(tmp_path):
    text = '[server]\nlog_level = "warning"\n[smtp]\nhost = "relay"\ntls = "SSL"\n'
    config = load_config(write(tmp_path, text))
    assert config.server.log_level == "WARNING"
    assert config.smtp is not None and (config.smtp.tls, config.smtp.port) == ("ssl", 465)


@pytest.mark.parametrize("text, expected", [
    ('[server]\naddress = "pbm"\n',
     "[server] address must be a mail address like pbm@example.org, got 'pbm'"),
    ('[server]\naddress = "Trax <pbm@example.org>"\n',
     "[server] address must be a mail address like pbm@example.org, got 'Trax <pbm@example.org>'"),
    ('[server]\nname = "Trax\\nBcc: everyone@example.org"\n',
     ("[server] name must be one line without control characters, "
      "got 'Trax\\nBcc: everyone@example.org'")),
    ('[listen]\nhost = " "\n', "[listen] host must not be empty"),
    ('[server]\ndatabase = ""\n', "[server] database must not be empty"),
])
def test_addresses_and_names_must_be_usable_in_mail_headers(tmp_path, text, expected):
    assert error_for(tmp_path, text).endswith(expected)


# --- paths -----------------------------------------------------------------

def test_relative_paths_are_relative_to_the_directory_of_the_config_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "etc" / "pbm", """
        [server]
        database = "data/pbm.sqlite3"
        [outbox]
        maildir = "../mail"
    """)
    config = load_config(Path("etc/pbm/pbm.toml"))
    assert config.server.database == tmp_path / "etc" / "pbm" / "data" / "pbm.sqlite3"
    assert config.outbox.maildir == tmp_path / "etc" / "pbm" / ".." / "mail"
    assert config.source == path


def test_default_paths_are_relative_to_the_directory_of_the_config_file(tmp_path):
    config = load_config(str(write(tmp_path / "conf", "")))
    assert config.server.database == tmp_path / "conf" / "pbm.sqlite3"
    assert config.outbox.maildir == tmp_path / "conf" / "outbox-maildir"


def test_absolute_paths_are_kept(tmp_path):
    config = load_config(write(tmp_path / "conf", f'[server]\ndatabase = "{tmp_path}/db"\n'))
    assert config.server.database == tmp_path / "db"


def test_a_path_starting_with_a_tilde_is_in_the_home_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    config = load_config(write(tmp_path / "conf", '[outbox]\nmaildir = "~/Maildir"\n'))
    assert config.outbox.maildir == tmp_path / "home" / "Maildir"


def test_paths_are_fixed_when_the_file_is_loaded_not_when_they_are_used(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = load_config()
    monkeypatch.chdir(tmp_path.parent)
    assert config.server.database == tmp_path / "pbm.sqlite3"
    assert config.server.database.is_absolute()


# --- files that cannot be read -----------------------------------------------

def test_a_toml_syntax_error_names_the_file_line_and_column(tmp_path):
    message = error_for(tmp_path, '[server]\nname = "Trax"\nlog_level == "INFO"\n')
    assert "not valid TOML" in message
    assert "line 3, column 12" in message


def test_a_section_given_twice_is_a_toml_error(tmp_path):
    message = error_for(tmp_path, "[games]\nnag_days = 3\n[games]\nforfeit_days = 9\n")
    assert "not valid TOML" in message and "line 3" in message


def test_a_missing_config_file_is_a_config_error_naming_it(tmp_path):
    path = tmp_path / "nowhere.toml"
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: cannot read the config file: No such file or directory"


def test_a_config_file_that_is_not_utf8_is_a_config_error(tmp_path):
    path = tmp_path / "pbm.toml"
    path.write_bytes(b'[server]\nname = "Tr\xe4x"\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: the config file is not UTF-8 text")


# --- TLS: ca_file ----------------------------------------------------------


def pem_file(directory: Path) -> Path:
    import trustme

    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "ca.pem"
    trustme.CA().cert_pem.write_to_path(str(path))
    return path


@pytest.mark.parametrize("section", ["imap", "smtp"])
def test_ca_file_is_unset_by_default_and_read_relative_to_the_config_file(tmp_path, section):
    head = IMAP + 'password = "x"\n' if section == "imap" else '[smtp]\nhost = "localhost"\n'
    assert getattr(load_config(write(tmp_path, head), environ={}), section).ca_file is None
    pem_file(tmp_path / "certs")
    config = load_config(write(tmp_path, head + 'ca_file = "certs/ca.pem"\n'), environ={})
    assert getattr(config, section).ca_file == tmp_path / "certs" / "ca.pem"


@pytest.mark.parametrize(("text", "expected"), [
    ('ca_file = "missing.pem"\n', "[smtp] ca_file names a file that does not exist: "),
    ('ca_file = "."\n', "[smtp] ca_file cannot be read: Is a directory"),
    ('ca_file = "pbm.toml"\n', "[smtp] ca_file holds no PEM certificate that can be loaded"),
    ('ca_file = 7\n', "[smtp] ca_file must be a path (a string), got 7"),
    ('tls = "none"\nca_file = "pbm.toml"\n',
     '[smtp] ca_file is only used with tls = "starttls" or "ssl", but tls is "none"'),
])
def test_a_ca_file_that_cannot_be_used_is_an_error(tmp_path, text, expected):
    assert expected in error_for(tmp_path, '[smtp]\nhost = "localhost"\n' + text)


def test_the_tls_context_trusts_the_ca_file_alone(tmp_path):

    own = tls_context(pem_file(tmp_path))
    assert len(own.get_ca_certs()) == 1
    assert own.check_hostname and own.verify_mode.name == "CERT_REQUIRED"
    system = tls_context(None)
    assert system.check_hostname and system.verify_mode.name == "CERT_REQUIRED"
