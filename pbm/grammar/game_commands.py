"""Game commands: a game type first (``trax move 101 alice secret B2/``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pbm.terms import BoardTerms
from pbm.trax import VARIANTS, get_variant
from pbm.trax.variants import ENDINGS

from .account_commands import (
    HelpArgs,
    LoginArgs,
    NoArgs,
    parse_login,
    parse_none,
    read_selection,
)
from .spec import CommandSpec, Option, Reader, Scope, UnreadMove
from .words import (
    BoardRef,
    Password,
    Problem,
    UserId,
    WrittenMove,
    is_board_word,
    read_board,
    read_board_ref,
    read_days,
    read_move,
    read_number,
    read_password,
    read_userid,
)

__all__ = ["GAME_SPECS", "HelpArgs", "LoginArgs", "NoArgs"]

MAX_LIMIT = 999
MAX_POINTS = 1000


@dataclass(frozen=True, slots=True)
class ChallengeArgs:
    white: UserId  # the first userid: moves first
    black: UserId
    password: Password | None = None  # one of the two players': without it, only an invitation
    terms: BoardTerms = field(default_factory=BoardTerms)  # the clocks, rated or not, the rules: as written
    level: int | None = None  # against the computer: the level it plays at; None: the server's default


@dataclass(frozen=True, slots=True)
class MoveArgs:
    """``move`` and ``submit``: one move (or resign/propose/undo/accept/reject)."""

    board: int | str  # a board number, or a tournament board's name
    userid: UserId
    password: Password
    move: WrittenMove | UnreadMove  # unread: refused by the handler once the login succeeded


@dataclass(frozen=True, slots=True)
class QueueArgs:
    """``queue``: my move, then (optionally) the reply I expect and my answer, and so on."""

    board: int | str  # a board number, or a tournament board's name
    userid: UserId
    password: Password
    moves: tuple[WrittenMove | UnreadMove, ...]  # odd length: mine, theirs, mine, ...; unread: as in MoveArgs


@dataclass(frozen=True, slots=True)
class BoardLoginArgs:
    """A board, a userid and its password (resign, chat, confirm)."""

    board: int | str  # a board number, or a tournament board's name
    userid: UserId
    password: Password


@dataclass(frozen=True, slots=True)
class PreviewArgs:
    board: BoardRef | None  # None: "new", an empty board
    moves: tuple[WrittenMove, ...]


@dataclass(frozen=True, slots=True)
class ShowArgs:
    boards: tuple[BoardRef, ...] = ()
    userids: tuple[UserId, ...] = ()
    selection: str | None = None  # all|active|inactive|next for the userids' boards; None: not said


@dataclass(frozen=True, slots=True)
class ShowAsArgs:
    userid: UserId
    password: Password
    boards: tuple[BoardRef, ...] = ()
    selection: str | None = None  # all|active|next; None: not said


@dataclass(frozen=True, slots=True)
class GamesArgs:
    userids: tuple[UserId, ...] = ()  # () = everybody's
    selection: str | None = None


@dataclass(frozen=True, slots=True)
class SubscribeArgs:
    board: int | str  # a board number, or "all": every board, present and future
    userid: UserId
    password: Password


@dataclass(frozen=True, slots=True)
class NotifyArgs:
    userid: UserId
    password: Password
    boards: tuple[int | str, ...] = ()  # board numbers, or tournament boards' names


@dataclass(frozen=True, slots=True)
class LimitArgs:
    userid: UserId
    password: Password
    limit: int | None = None  # None: not given


@dataclass(frozen=True, slots=True)
class SeekArgs:
    userid: UserId
    password: Password
    opponents: int | None = None  # None: not given


@dataclass(frozen=True, slots=True)
class BoardArgs:
    board: int | str  # a board number, or a tournament board's name


# --- parsers --------------------------------------------------------------------------

_board = partial(read_board)
_tile = partial(read_move, words=False, numbered=False)


#: The options that are a board's terms (:class:`BoardTerms`), by field.
TERMS_FIELDS = ("nag_days", "forfeit_days", "total_days", "ending", "points")


def read_terms(r: Reader, options: dict[str, Any]) -> BoardTerms:
    """The board's terms among ``options`` (taken out of it): the reminder
    must come before the forfeit when both are given."""
    terms = BoardTerms(rated=not options.pop("unrated", False),
                       **{f: options.pop(f) for f in TERMS_FIELDS if f in options})
    if not terms.nag_comes_first():
        r.fail("nag-before-forfeit")
    return terms


def parse_challenge(r: Reader) -> ChallengeArgs:
    r.positionals_before_options(("first-userid", "second-userid"), "userids")
    r.expect(2)
    white = r.read(0, "first-userid", read_userid)
    black = r.read(1, "second-userid", read_userid)
    password = None
    first_option = 2
    if len(r) > 2 and not r.words[2].startswith("-"):
        password = r.read(2, "password", read_password)
        first_option = 3
    options = r.options(first_option, "userids-password")
    terms = read_terms(r, options)
    check_game_options(r, terms)
    return ChallengeArgs(white, black, password, terms, **options)


def check_game_options(r: Reader, terms: BoardTerms) -> None:
    """-ending is for the size-limited game types, -points for point trax."""
    variant = get_variant(r.game or "trax")
    if terms.ending is not None and variant.max_size is None:
        limited = tuple(v.name for v in VARIANTS.values() if v.max_size is not None)
        r.fail("ending-for-limited", {"limited": limited, "game": variant.name})
    if terms.points is not None and not variant.scores:
        scored = tuple(v.name for v in VARIANTS.values() if v.scores)
        r.fail("points-for-scored", {"scored": scored, "game": variant.name})


def read_ending(word: str) -> str:
    if word.lower() not in ENDINGS:
        raise Problem("ending-values", {"endings": tuple(ENDINGS)})
    return word.lower()


def read_level(word: str) -> int:
    return read_number(word, minimum=1, maximum=4, what="level")


def read_points(word: str) -> int:
    return read_number(word, minimum=1, maximum=MAX_POINTS, what="points")


def parse_move(r: Reader) -> MoveArgs:
    r.expect(4, 4)
    drawn = r.game is not None and get_variant(r.game).drawn
    return MoveArgs(
        r.read(0, "board-number", read_board, quote=True),
        r.read(1, "userid", read_userid),
        r.read(2, "password", read_password),
        r.keep_unread(3, "move", partial(read_move, cells=drawn)),
    )


def parse_queue(r: Reader) -> QueueArgs:
    r.expect(4)
    board = r.read(0, "board-number", read_board, quote=True)
    userid = r.read(1, "userid", read_userid)
    password = r.read(2, "password", read_password)
    moves = tuple(r.keep_unread(i, "move", _tile, nth=i - 2) for i in range(3, len(r)))
    if len(moves) % 2 == 0:
        r.fail("queue-odd", {"given": len(moves)})
    return QueueArgs(board, userid, password, moves)


def parse_board_login(r: Reader) -> BoardLoginArgs:
    r.expect(3, 3)
    return BoardLoginArgs(
        r.read(0, "board-number", read_board, quote=True),
        r.read(1, "userid", read_userid),
        r.read(2, "password", read_password),
    )


def parse_preview(r: Reader) -> PreviewArgs:
    r.expect(2)
    board = None if r.keyword(0) == "new" else r.read(0, "board-or-new", read_board_ref, quote=True)
    if board is None:
        r.accept(0)
    return PreviewArgs(board, r.read_each(1, "move", _tile, quote=True, unique=False))


def _boards_and_userids(r: Reader, start: int, end: int) -> tuple[tuple[BoardRef, ...], tuple[UserId, ...]]:
    boards = []
    userids = []
    for i in range(start, end):
        word = r.words[i]
        if is_board_word(word):
            ref = r.read(i, "board", read_board_ref, quote=True)
            if ref not in boards:
                boards.append(ref)
        else:
            userid = r.read(i, "userid", read_userid)
            if userid not in userids:
                userids.append(userid)
    return tuple(boards), tuple(userids)


def parse_show(r: Reader) -> ShowArgs:
    r.expect(1)
    end, selection = read_selection(r, ("all", "active", "inactive", "next"))
    boards, userids = _boards_and_userids(r, 0, end)
    if not boards and not userids:
        r.fail("show-what")
    if selection and not userids:
        r.fail("selection-needs-user", {"selection": selection})
    return ShowArgs(boards, userids, selection)


def parse_showas(r: Reader) -> ShowAsArgs:
    r.expect(2)
    userid = r.read(0, "userid", read_userid)
    password = r.read(1, "password", read_password)
    end, selection = read_selection(r, ("all", "active", "next"), start=2)
    boards = r.read_each(2, "board", read_board_ref, quote=True, stop=end)
    if boards and selection:
        r.fail("boards-or-selection", {"selection": selection})
    return ShowAsArgs(userid, password, boards, selection)


def parse_games(r: Reader) -> GamesArgs:
    end, selection = read_selection(r, ("all", "active", "inactive", "next"))
    return GamesArgs(r.read_each(0, "userid", read_userid, stop=end), selection)


def _board_or_all(word: str) -> int | str:
    if word.lower() == "all":
        return "all"
    try:
        return read_board(word)
    except Problem as problem:
        raise Problem("board-or-all", {"problem": problem}) from None


def _board_or_all_word(word: str) -> bool:
    return word.lower() == "all" or is_board_word(word)


def parse_subscribe(r: Reader) -> SubscribeArgs:
    """``BOARD|all USERID PASSWORD``, or the old server's order
    ``USERID PASSWORD BOARD|all``: a number first (a userid is never one) is
    the new order; otherwise a board last is the old one (so a userid that
    looks like a tournament board's name is read the old server's way)."""
    r.expect(3, 3)
    first, last = r.words[0], r.words[2]
    old = not (first.isdecimal() or first.lower() == "all") and _board_or_all_word(last)
    board, userid, password = (2, 0, 1) if old else (0, 1, 2)
    return SubscribeArgs(
        r.read(board, "board-number", _board_or_all, quote=True),
        r.read(userid, "userid", read_userid),
        r.read(password, "password", read_password),
    )


def parse_notify(r: Reader) -> NotifyArgs:
    r.expect(2)
    return NotifyArgs(
        r.read(0, "userid", read_userid),
        r.read(1, "password", read_password),
        r.read_each(2, "board-number", _board, quote=True),
    )


def _count(r: Reader, what: str) -> tuple[UserId, Password, int | None]:
    r.expect(2, 3)
    userid = r.read(0, "userid", read_userid)
    password = r.read(1, "password", read_password)
    number: int | None = None
    if len(r) == 3:
        number = r.read(2, what, partial(read_number, maximum=MAX_LIMIT, what=what), quote=True)
    return userid, password, number


def parse_limit(r: Reader) -> LimitArgs:
    return LimitArgs(*_count(r, "limit"))


def parse_seek(r: Reader) -> SeekArgs:
    return SeekArgs(*_count(r, "opponents"))


def parse_record(r: Reader) -> BoardArgs:
    r.expect(1, 1)
    return BoardArgs(r.read(0, "board-number", read_board, quote=True))


#: Options of a board's rules: the ending of the size-limited types, the
#: winning score of point trax (challenges and tournaments take them).
GAME_OPTIONS = (
    Option("ending", "ending", read_ending, "-ending=" + "|".join(ENDINGS)),
    Option("points", "points", read_points, "-points=N"),
)

TIME_OPTIONS = (
    Option("nagtime", "nag_days", read_days, "--nagtime=D"),
    Option("forfeittime", "forfeit_days", read_days, "--forfeittime=D"),
)

GAME_SPECS = (
    CommandSpec(
        "challenge",
        Scope.GAME,
        "USERID1 USERID2 [PASSWORD] [--nagtime=D] [--forfeittime=D] [--totaltime=D] [-unrated] "
        "[-ending=draw|lastloses] [-points=N] [-level=1..4]",
        parse_challenge,
        secret_positions=(2,),
        shortest=5,
        options=(
            *TIME_OPTIONS,
            Option("totaltime", "total_days", read_days, "--totaltime=D"),
            Option("unrated", "unrated"),
            *GAME_OPTIONS,
            Option("level", "level", read_level, "-level=1..4"),
        ),
    ),
    CommandSpec(
        "move",
        Scope.GAME,
        "BOARD USERID PASSWORD MOVE[#N]",
        parse_move,
        secret_positions=(2,),
        aliases=("board", "mvoe"),
        drawn_arguments="BOARD USERID PASSWORD CELL[#N]",
    ),
    CommandSpec(
        "queue",
        Scope.GAME,
        "BOARD USERID PASSWORD MOVE [REPLY MOVE ...]",
        parse_queue,
        secret_positions=(2,),
        aliases=("qmove", "qboard", "moveq", "boardq"),
    ),
    CommandSpec(
        "resign",
        Scope.GAME,
        "BOARD USERID PASSWORD",
        parse_board_login,
        secret_positions=(2,),
    ),
    CommandSpec(
        "chat",
        Scope.GAME,
        "BOARD USERID PASSWORD",
        parse_board_login,
        secret_positions=(2,),
    ),
    CommandSpec(
        "submit",
        Scope.GAME,
        "BOARD USERID PASSWORD MOVE[#N]",
        parse_move,
        secret_positions=(2,),
        drawn_arguments="BOARD USERID PASSWORD CELL[#N]",
    ),
    CommandSpec(
        "confirm",
        Scope.GAME,
        "BOARD USERID PASSWORD",
        parse_board_login,
        secret_positions=(2,),
    ),
    CommandSpec(
        "preview",
        Scope.GAME,
        "BOARD[#N]|new MOVE ...",
        parse_preview,
        shortest=4,
    ),
    CommandSpec(
        "show",
        Scope.GAME,
        "BOARD[#N]|USERID ... [all|active|inactive|next]",
        parse_show,
    ),
    CommandSpec(
        "showas",
        Scope.GAME,
        "USERID PASSWORD [BOARD ...|all|active|next]",
        parse_showas,
        secret_positions=(1,),
    ),
    CommandSpec(
        "games",
        Scope.GAME,
        "[USERID ...] [all|active|inactive|next]",
        parse_games,
    ),
    CommandSpec("standings", Scope.GAME, "", parse_none, aliases=("ratings",)),
    CommandSpec("history", Scope.GAME, "", parse_none),
    CommandSpec(
        "subscribe",
        Scope.GAME,
        "BOARD|all USERID PASSWORD",
        parse_subscribe,
        secret_positions=(2,),
        shortest=3,
    ),
    CommandSpec(
        "unsubscribe",
        Scope.GAME,
        "BOARD|all USERID PASSWORD",
        parse_subscribe,
        secret_positions=(2,),
        shortest=5,
    ),
    CommandSpec(
        "notify",
        Scope.GAME,
        "USERID PASSWORD [BOARD ...]",
        parse_notify,
        secret_positions=(1,),
    ),
    CommandSpec(
        "accept",
        Scope.GAME,
        "USERID PASSWORD",
        parse_login,
        secret_positions=(1,),
    ),
    CommandSpec(
        "reject",
        Scope.GAME,
        "USERID PASSWORD",
        parse_login,
        secret_positions=(1,),
    ),
    CommandSpec(
        "limit",
        Scope.GAME,
        "USERID PASSWORD [N]",
        parse_limit,
        secret_positions=(1,),
    ),
    CommandSpec(
        "seek",
        Scope.GAME,
        "USERID PASSWORD [N]",
        parse_seek,
        secret_positions=(1,),
    ),
    CommandSpec(
        "record",
        Scope.GAME,
        "BOARD",
        parse_record,
    ),
    CommandSpec(
        "hint",
        Scope.GAME,
        "BOARD USERID PASSWORD",
        parse_board_login,
        secret_positions=(2,),
    ),
    CommandSpec(
        "analyze",
        Scope.GAME,
        "BOARD",
        parse_record,
        aliases=("analyse",),
    ),
)
