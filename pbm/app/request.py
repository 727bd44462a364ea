"""What handlers get and give: a :class:`Request` in, :class:`Reply` objects out.

Handlers return data (a template name, its context and the recipients); the
pipeline renders and stores them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar, cast

from pbm.config import Config
from pbm.domain.context import Context
from pbm.domain.store import Store
from pbm.grammar import Command


@dataclass(frozen=True)
class TokenFor:
    """The reply token a recipient's copy carries: for a player, one board
    at one move count, or (a digest) several boards."""

    user_id: int
    board: int | None = None
    ply: int | None = None
    boards: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class CodeFor:
    """The confirmation code a recipient's copy carries in its Message-ID
    (``<c-ID-CODE@domain>``), so that pressing Reply confirms the address:
    its row and the seal that stands for it (:mod:`pbm.domain.seals`)."""

    code_id: int
    seal: str


#: What a mail is, for the caps (:mod:`pbm.domain.postage`): ``reply`` to
#: the sender or game mail (the default), ``others`` (mail to people who did
#: not ask for it: messages, broadcasts, invitations, chat), ``confirm`` (a
#: code to an address that waits for confirmation).
REPLY_KINDS = ("reply", "others", "confirm")


@dataclass(frozen=True)
class Reply:
    """One mail to send: ``template`` rendered with ``context`` to ``to``.
    ``tokens``: the recipients whose copy carries a reply token (or a
    confirmation code), and for what; ``record``: the name of the game
    record attached (a finished board's mail), rendered from
    ``replies/record.txt`` with the same context; ``kind``: see
    :data:`REPLY_KINDS`."""

    template: str
    to: tuple[str, ...]
    context: dict[str, Any] = field(default_factory=dict)
    tokens: Mapping[str, TokenFor | CodeFor] = field(default_factory=dict)
    record: str | None = None
    kind: str = "reply"


#: The arguments of a request's command: the grammar's typed class for it
#: (``SignupArgs``, ``MoveArgs`` ...).
A = TypeVar("A")


@dataclass(frozen=True)
class Combined(Reply):
    """Several replies to one sender as one mail (``multiple``, commands in
    a body, a digest answered): each of ``parts`` rendered on its own, then
    all of them in ``replies/combined.txt``."""

    parts: tuple[Reply, ...] = ()

    @classmethod
    def of(cls, sender: str, parts: Sequence[Reply]) -> Combined:
        return cls("replies/combined.txt", (sender,), parts=tuple(parts))


@dataclass
class Request(Generic[A]):
    """One command of one mail: who sent it, the command, the comment (the
    mail's body as the players see it), the language the mail's headers
    ask for (``mail_language``: one of :data:`pbm.languages.LANGUAGES`, from
    ``Content-Language`` or ``Accept-Language``; None when they name none),
    and the domain context it runs in.
    ``Request[MoveArgs]``: a request whose ``args`` are a ``MoveArgs`` (the
    handler table's test checks each handler against its commands' parsers)."""

    ctx: Context
    sender: str
    command: Command
    comment: str = ""
    mail_language: str | None = None

    @property
    def store(self) -> Store:
        return self.ctx.store

    @property
    def config(self) -> Config:
        return self.ctx.config

    @property
    def now(self) -> datetime:
        return self.ctx.now

    @property
    def args(self) -> A:
        return cast(A, self.command.args)

    @property
    def game(self) -> str:
        """The game type the command names (trax for an account command)."""
        return self.command.game or "trax"

    def to_sender(self, template: str, **context: Any) -> Reply:
        return Reply(template, (self.sender,), context)
