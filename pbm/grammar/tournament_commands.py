"""Tournament commands (``trax tournament create ETC26 alice secret -format=pools``)."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from pbm.terms import BoardTerms

from .account_commands import NoArgs, parse_none
from .game_commands import GAME_OPTIONS, TIME_OPTIONS, check_game_options, read_terms
from .spec import CommandSpec, Option, Reader, Scope
from .words import (
    Password,
    Problem,
    TournamentName,
    UserId,
    read_board,
    read_date,
    read_number,
    read_password,
    read_tournament_name,
    read_userid,
)

__all__ = ["TOURNAMENT_SPECS", "NoArgs"]

FORMATS = ("roundrobin", "double", "swiss", "knockout", "pools")
RESULTS = ("white", "black", "draw")


@dataclass(frozen=True, slots=True)
class TournamentCreateArgs:
    name: TournamentName
    userid: UserId  # the director
    password: Password
    format: str | None = None  # one of FORMATS; None: not given
    rounds: int | None = None  # swiss only
    pool_size: int | None = None  # pools only
    advance: int | None = None  # pools only: how many of each pool reach the final
    max_players: int | None = None
    start: datetime.date | None = None
    terms: BoardTerms = field(default_factory=BoardTerms)  # its boards' clocks, rated or not, rules: as in a challenge


@dataclass(frozen=True, slots=True)
class TournamentLoginArgs:
    """A tournament, a userid and its password (join, leave, start, pair, announce)."""

    name: TournamentName
    userid: UserId
    password: Password


@dataclass(frozen=True, slots=True)
class TournamentArgs:
    name: TournamentName


@dataclass(frozen=True, slots=True)
class TournamentWithdrawArgs:
    name: TournamentName
    userid: UserId  # the director
    password: Password
    player: UserId


@dataclass(frozen=True, slots=True)
class TournamentResultArgs:
    name: TournamentName
    userid: UserId  # the director
    password: Password
    board: int | str  # a board number, or a tournament board's name
    result: str  # white, black or draw


def _format(word: str) -> str:
    value = word.lower()
    if value not in FORMATS:
        raise Problem("formats", {"formats": FORMATS})
    return value


def _count(minimum: int, what: str) -> Callable[[str], int]:
    return partial(read_number, minimum=minimum, maximum=10_000, what=what)


CREATE_OPTIONS = (
    Option("format", "format", _format, "-format=roundrobin|double|swiss|knockout|pools"),
    Option("rounds", "rounds", _count(1, "rounds"), "-rounds=N"),
    Option("poolsize", "pool_size", _count(2, "pool-size"), "-poolsize=N"),
    Option("advance", "advance", _count(1, "advancing"), "-advance=N"),
    *TIME_OPTIONS,
    Option("unrated", "unrated"),
    Option("maxplayers", "max_players", _count(2, "players"), "-maxplayers=N"),
    Option("start", "start", read_date, "-start=YYYY-MM-DD"),
    *GAME_OPTIONS,
)


def _login(r: Reader) -> tuple[TournamentName, UserId, Password]:
    return (
        r.read(0, "tournament-name", read_tournament_name, quote=True),
        r.read(1, "userid", read_userid),
        r.read(2, "password", read_password),
    )


def parse_create(r: Reader) -> TournamentCreateArgs:
    r.positionals_before_options(("tournament-name", "userid", "password"), "tournament-login")
    r.expect(3)
    name, userid, password = _login(r)
    options = r.options(3, "tournament-login")
    terms = read_terms(r, options)
    check_game_options(r, terms)
    fmt = options.get("format")
    if "rounds" in options and fmt != "swiss":
        r.fail("rounds-swiss")
    for key, option in (("pool_size", "-poolsize"), ("advance", "-advance")):
        if key in options and fmt != "pools":
            r.fail("pools-only", {"option": option})
    advance, pool_size = options.get("advance"), options.get("pool_size")
    if advance is not None and pool_size is not None and advance >= pool_size:
        r.fail("advance-smaller")
    return TournamentCreateArgs(name, userid, password, terms=terms, **options)


def parse_login(r: Reader) -> TournamentLoginArgs:
    r.expect(3, 3)
    return TournamentLoginArgs(*_login(r))


def parse_show(r: Reader) -> TournamentArgs:
    r.expect(1, 1)
    return TournamentArgs(r.read(0, "tournament-name", read_tournament_name, quote=True))


def parse_withdraw(r: Reader) -> TournamentWithdrawArgs:
    r.expect(4, 4)
    return TournamentWithdrawArgs(*_login(r), r.read(3, "player", read_userid))


def parse_result(r: Reader) -> TournamentResultArgs:
    r.expect(5, 5)
    name, userid, password = _login(r)
    board = r.read(3, "board-number", read_board, quote=True)
    if r.keyword(4) not in RESULTS:
        r.fail("result-values")
    result = r.accept(4)
    return TournamentResultArgs(name, userid, password, board, result)


TOURNAMENT_SPECS = (
    CommandSpec(
        "tournament create",
        Scope.GAME,
        "NAME USERID PASSWORD [OPTIONS]",
        parse_create,
        secret_positions=(2,),
        options=CREATE_OPTIONS,
    ),
    CommandSpec(
        "tournament join",
        Scope.GAME,
        "NAME USERID PASSWORD",
        parse_login,
        secret_positions=(2,),
    ),
    CommandSpec(
        "tournament leave",
        Scope.GAME,
        "NAME USERID PASSWORD",
        parse_login,
        secret_positions=(2,),
    ),
    CommandSpec(
        "tournament start",
        Scope.GAME,
        "NAME USERID PASSWORD",
        parse_login,
        secret_positions=(2,),
    ),
    CommandSpec(
        "tournament show",
        Scope.GAME,
        "NAME",
        parse_show,
    ),
    CommandSpec(
        "tournament list", Scope.GAME, "", parse_none
    ),
    CommandSpec(
        "tournament add",
        Scope.GAME,
        "NAME USERID PASSWORD PLAYER",
        parse_withdraw,
        secret_positions=(2,),
    ),
    CommandSpec(
        "tournament withdraw",
        Scope.GAME,
        "NAME USERID PASSWORD PLAYER",
        parse_withdraw,
        secret_positions=(2,),
    ),
    CommandSpec(
        "tournament result",
        Scope.GAME,
        "NAME USERID PASSWORD BOARD white|black|draw",
        parse_result,
        secret_positions=(2,),
    ),
    CommandSpec(
        "tournament pair",
        Scope.GAME,
        "NAME USERID PASSWORD",
        parse_login,
        secret_positions=(2,),
    ),
    CommandSpec(
        "tournament announce",
        Scope.GAME,
        "NAME USERID PASSWORD",
        parse_login,
        secret_positions=(2,),
    ),
)
