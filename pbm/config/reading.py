"""Reading one section of the configuration file: typed getters with
defaults taken from the section's dataclass, and errors that name the file,
the section and the key (never a password's value)."""

from __future__ import annotations

import dataclasses
import difflib
import email.errors
import ssl
from collections.abc import Callable, Mapping
from email.headerregistry import Address
from pathlib import Path
from typing import Any

from ..secret import Secret, UnreadSecret
from .sections import SECTIONS, ConfigError, tls_context


class _Unread(dict[str, str]):
    """The environment, for a command that reads no secret from it."""


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
