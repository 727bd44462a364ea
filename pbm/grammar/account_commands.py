"""Account commands: no game type before them (``signup alice secret``)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from pbm.languages import LANGUAGES

from .spec import CommandSpec, Reader, Scope, shorten
from .words import (
    Password,
    Problem,
    UserId,
    read_address,
    read_new_userid,
    read_number,
    read_password,
    read_userid,
)

MAX_ADDRESSES = 5
MAX_VACATION_DAYS = 365


@dataclass(frozen=True, slots=True)
class NoArgs:
    """The arguments of a command that takes none."""


@dataclass(frozen=True, slots=True)
class HelpArgs:
    topics: tuple[str, ...] = ()  # lower case, in the order asked; () = the index


@dataclass(frozen=True, slots=True)
class SignupArgs:
    userid: UserId
    password: Password
    addresses: tuple[str, ...] = ()  # () = the sender's address
    language: str | None = None  # language=LANG: one of LANGUAGES; None: not given


@dataclass(frozen=True, slots=True)
class AddressesArgs:
    userid: UserId
    password: Password
    addresses: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ChangePasswordArgs:
    userid: UserId
    old: Password
    new: Password


@dataclass(frozen=True, slots=True)
class LoginArgs:
    """A userid and its password, nothing else."""

    userid: UserId
    password: Password


@dataclass(frozen=True, slots=True)
class UseridArgs:
    userid: UserId


@dataclass(frozen=True, slots=True)
class CodeArgs:
    """A one-time code mailed by the server (upper case, blanks and dashes kept out)."""

    code: Password


@dataclass(frozen=True, slots=True)
class MessageArgs:
    userid: UserId
    password: Password
    recipients: tuple[UserId, ...]


@dataclass(frozen=True, slots=True)
class AllShowArgs:
    userid: UserId
    selection: str | None = None  # "next", "active", or None (not said)


@dataclass(frozen=True, slots=True)
class VacationArgs:
    userid: UserId
    password: Password
    days: int | None  # None: "off", back from vacation

    @property
    def off(self) -> bool:
        return self.days is None


@dataclass(frozen=True, slots=True)
class SetArgs:
    """``set``: a player's own settings; ``setting`` None shows them all."""

    userid: UserId
    password: Password
    setting: str | None = None
    value: str | None = None
    hour: int | None = None  # digest daily: the hour of day (UTC) it goes


#: The settings a player can change with ``set``, each with the values it takes
#: (the first is the default).
SETTINGS: dict[str, tuple[str, ...]] = {
    "pictures": ("on", "off"),
    "digest": ("off", "daily"),
    "challenges": ("ask", "open"),
    "language": LANGUAGES,
}
#: signup's word for the language, before its value: ``language=de``.
LANGUAGE_WORD = "language"
#: The hour (UTC) of a daily digest when none is given.
DIGEST_HOUR = 7


# --- parsers --------------------------------------------------------------------------

_new_password = partial(read_password, new=True)


def parse_help(r: Reader) -> HelpArgs:
    return HelpArgs(tuple(dict.fromkeys(w.lower() for w in r.words)))


def _addresses(r: Reader, start: int) -> tuple[str, ...]:
    if len(r) - start > MAX_ADDRESSES:
        r.fail("too-many-addresses", {"most": MAX_ADDRESSES, "given": len(r) - start})
    return r.read_each(start, "address", read_address, quote=True)


def _language(r: Reader, value: str, command: str) -> str:
    """``value``, a language of the replies (any case), in lower case; or
    the refusal naming the languages and how ``command`` sets one."""
    if value.lower() not in LANGUAGES:
        r.fail("language-value", {"word": shorten(value), "languages": LANGUAGES, "command": command})
    return value.lower()


def _signup_language(r: Reader) -> tuple[str | None, set[int]]:
    """signup's ``language=LANG`` (``-language=LANG`` too), anywhere
    after the password: the language (None: not given), and where its
    word stands."""
    language: str | None = None
    places: set[int] = set()
    for i in range(2, len(r)):
        name, equals, value = r.words[i].partition("=")
        if name.lstrip("-").lower() != LANGUAGE_WORD:
            continue
        r.accept(i)  # no address, and shown when the command is quoted
        if not equals:
            r.fail("language-form", {"languages": LANGUAGES})
        if places:
            r.fail("option-twice", {"option": LANGUAGE_WORD + "="})
        language = _language(r, value, "signup")
        places.add(i)
    return language, places


def parse_signup(r: Reader) -> SignupArgs:
    r.expect(2)
    userid = r.read(0, "userid", read_new_userid)
    password = r.read(1, "password", _new_password)
    language, places = _signup_language(r)
    if len(r) - 2 - len(places) > MAX_ADDRESSES:
        r.fail("too-many-addresses", {"most": MAX_ADDRESSES, "given": len(r) - 2 - len(places)})
    addresses = r.read_each(2, "address", read_address, quote=True, skip=places)
    return SignupArgs(userid, password, addresses, language)


def parse_addresses(r: Reader) -> AddressesArgs:
    r.expect(3)
    return AddressesArgs(
        r.read(0, "userid", read_userid), r.read(1, "password", read_password), _addresses(r, 2)
    )


def parse_change_password(r: Reader) -> ChangePasswordArgs:
    r.expect(3, 3)
    return ChangePasswordArgs(
        r.read(0, "userid", read_userid),
        r.read(1, "old-password", read_password),
        r.read(2, "new-password", _new_password),
    )


def parse_login(r: Reader) -> LoginArgs:
    r.expect(2, 2)
    return LoginArgs(r.read(0, "userid", read_userid), r.read(1, "password", read_password))


def parse_none(r: Reader) -> NoArgs:
    r.expect(0, 0)
    return NoArgs()


def parse_message(r: Reader) -> MessageArgs:
    r.expect(3)
    return MessageArgs(
        r.read(0, "userid", read_userid),
        r.read(1, "password", read_password),
        r.read_each(2, "recipient", read_userid),
    )


def read_selection(r: Reader, allowed: tuple[str, ...], start: int = 0) -> tuple[int, str | None]:
    """A trailing ``all|active|inactive|next`` (only ``allowed`` ones).
    Returns where the words before it end, and the selection (or None)."""
    every = ("all", "active", "inactive", "next")
    end = len(r)
    selection = None
    if end > start and r.keyword(end - 1) in every:
        selection = r.accept(end - 1)
        end -= 1
        if selection not in allowed:
            r.fail("selection-here", {"selection": selection, "choices": allowed})
    for i in range(start, end):
        if r.keyword(i) in every:
            r.fail("selection-last", {"word": r.keyword(i)})
    return end, selection


def parse_all_show(r: Reader) -> AllShowArgs:
    r.expect(1, 2)
    end, selection = read_selection(r, ("next", "active"))
    if end != 1:
        r.beyond(1, end)  # "all show alice PASSWORD": not quoted back
        r.fail("all-show-one")
    return AllShowArgs(r.read(0, "userid", read_userid), selection)


def _read_code(word: str) -> Password:
    text = word.replace("-", "").upper()
    if not (6 <= len(text) <= 20 and text.isalnum() and text.isascii()):
        raise Problem("code-form")
    return Password(text)


def parse_code(r: Reader) -> CodeArgs:
    r.expect(1, 1)
    return CodeArgs(r.read(0, "code", _read_code))


def parse_password_reset(r: Reader) -> UseridArgs:
    if len(r) > 1:  # a password typed by habit (or a new one): masked, never quoted
        r.beyond(1)
        r.fail("reset-no-password")
    r.expect(1, 1)
    return UseridArgs(r.read(0, "userid", read_userid))


def parse_vacation(r: Reader) -> VacationArgs:
    r.expect(3, 3)
    userid = r.read(0, "userid", read_userid)
    password = r.read(1, "password", read_password)
    if r.keyword(2) == "off":
        r.accept(2)
        return VacationArgs(userid, password, None)
    days = r.read(
        2,
        "days",
        partial(read_number, minimum=1, maximum=MAX_VACATION_DAYS, what="days"),
        quote=True,
    )
    return VacationArgs(userid, password, days)


def parse_set(r: Reader) -> SetArgs:
    r.expect(2, 5)
    userid = r.read(0, "userid", read_userid)
    password = r.read(1, "password", read_password)
    if len(r) == 2:
        return SetArgs(userid, password)
    name = r.keyword(2)
    if name not in SETTINGS:
        r.fail("no-such-setting", {"settings": tuple(SETTINGS)})
    r.accept(2)
    values = SETTINGS[name]
    if len(r) == 3:
        r.fail("setting-value-missing", {"setting": name, "values": values})
    value = r.keyword(3)
    if name == "language":
        r.accept(3)
        value = _language(r, r.words[3], "set")
    if value not in values:
        r.fail("setting-value", {"setting": name, "values": values})
    r.accept(3)
    if name == "digest" and value == "daily":
        hour = DIGEST_HOUR
        if len(r) == 5:
            hour = r.read(4, "hour", partial(read_number, maximum=23, what="hour-of-day"),
                          quote=True)
        return SetArgs(userid, password, name, value, hour)
    if len(r) == 5:
        r.fail("setting-nothing-after", {"setting": name, "value": value})
    return SetArgs(userid, password, name, value)


ACCOUNT_SPECS = (
    CommandSpec(
        "help",
        Scope.EITHER,
        "[TOPIC ...]",
        parse_help,
    ),
    CommandSpec(
        "signup",
        Scope.ACCOUNT,
        f"USERID PASSWORD [ADDRESS ...] [{LANGUAGE_WORD}={'|'.join(LANGUAGES)}]",
        parse_signup,
        secret_positions=(1,),
    ),
    CommandSpec(
        "add",
        Scope.ACCOUNT,
        "USERID PASSWORD ADDRESS ...",
        parse_addresses,
        secret_positions=(1,),
    ),
    CommandSpec(
        "change password",
        Scope.ACCOUNT,
        "USERID OLDPASSWORD NEWPASSWORD",
        parse_change_password,
        secret_positions=(1, 2),
    ),
    CommandSpec(
        "change address",
        Scope.ACCOUNT,
        "USERID PASSWORD ADDRESS ...",
        parse_addresses,
        secret_positions=(1,),
    ),
    CommandSpec(
        "signoff",
        Scope.ACCOUNT,
        "USERID PASSWORD",
        parse_login,
        secret_positions=(1,),
    ),
    CommandSpec(
        "delete",
        Scope.ACCOUNT,
        "USERID PASSWORD",
        parse_login,
        secret_positions=(1,),
    ),
    CommandSpec(
        "list",
        Scope.ACCOUNT,
        "",
        parse_none,
    ),
    CommandSpec(
        "message",
        Scope.ACCOUNT,
        "USERID PASSWORD TOUSERID ...",
        parse_message,
        secret_positions=(1,),
    ),
    CommandSpec(
        "broadcast",
        Scope.ACCOUNT,
        "USERID PASSWORD",
        parse_login,
        secret_positions=(1,),
    ),
    CommandSpec(
        "all show",
        Scope.ACCOUNT,
        "USERID [next|active]",
        parse_all_show,
    ),
    CommandSpec(
        "password reset",
        Scope.ACCOUNT,
        "USERID",
        parse_password_reset,
    ),
    CommandSpec(
        "confirm address",
        Scope.ACCOUNT,
        "CODE",
        parse_code,
        secret_positions=(0,),
    ),
    CommandSpec(
        "vacation",
        Scope.ACCOUNT,
        "USERID PASSWORD DAYS|off",
        parse_vacation,
        secret_positions=(1,),
    ),
    CommandSpec(
        "set",
        Scope.ACCOUNT,
        "USERID PASSWORD [SETTING VALUE]",
        parse_set,
        secret_positions=(1,),
    ),
)
