"""What handlers get and give: a :class:`Request` in, :class:`Reply` objects out.

Handlers return data (a template name, its context and the recipients); the
pipeline renders and stores them.  Handlers are registered by command name
with :func:`handles`, and the pipeline looks them up in :data:`HANDLERS`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from .grammar import Command, Password, UserId
from .config import Config
from . import security
from .errors import AccountLockedError, NotAllowedError, UnknownUserError
from .passwords import VerifiedPasswords, check_password, hash_password
from .store import Row, Store


@dataclass(frozen=True)
class Reply:
    """One mail to send: ``template`` rendered with ``context`` to ``to``."""

    template: str
    to: tuple[str, ...]
    context: dict[str, Any] = field(default_factory=dict)


@dataclass
class Request:
    """One command of one mail, with everything a handler may use."""

    store: Store
    config: Config
    now: datetime
    sender: str
    command: Command
    comment: str = ""
    passwords: VerifiedPasswords | None = None
    positions: Any = None  # games.Positions: positions kept between commands
    loaded: list = field(default_factory=list)  # the games this command loaded
    # mail caused along the way (a tournament round paired when a game ends),
    # sent after the handler's own replies
    followups: list["Reply"] = field(default_factory=list)

    @property
    def args(self) -> Any:
        return self.command.args

    @property
    def game(self) -> str:
        return self.command.game or "trax"

    # -- accounts ------------------------------------------------------------

    def user(self, userid: UserId) -> Row:
        """The live account with that userid, or UnknownUserError."""
        row = self.store.find_user(userid.key)
        if row is None or row["deleted_at"] is not None:
            raise UnknownUserError(f"there is no user {userid}", userid=str(userid))
        return row

    def login(self, userid: UserId, password: Password, *, reset_code: bool = False) -> Row:
        """The account, if the password is right; one answer for every
        failure.  Wrong passwords are counted (after the command's own
        changes are rolled back) and lock the userid for a while; with
        ``reset_code`` a live code from "password reset" is taken as well,
        even while locked."""
        row = self.store.find_user(userid.key)
        if row is None or row["deleted_at"] is not None:
            raise NotAllowedError("wrong userid or password")
        if reset_code and security.take_reset_code(self, row, password.reveal()):
            self.store.set_login_state(row["id"], 0, None)
            return row
        if row["operator_locked"]:
            raise AccountLockedError(f"the account {row['userid']} is locked by the server's operator")
        until = security.locked_until(row, self.now)
        if until is not None:
            raise AccountLockedError(
                f"after too many wrong passwords, the account {row['userid']} is locked until {until}"
            )
        check = self.passwords.check if self.passwords is not None else check_password
        if not check(password.reveal(), row["password_hash"]):
            raise NotAllowedError("wrong userid or password",
                                  effects=[lambda: security.failed_login(self, row["id"])])
        if row["failed_logins"]:
            self.store.set_login_state(row["id"], 0, None)
        return row

    def new_password_hash(self, password: Password) -> str:
        """Hash a new password (and remember it as checked)."""
        stored = hash_password(password.reveal())
        if self.passwords is not None:
            self.passwords.remember(password.reveal(), stored)
        return stored

    def addresses(self, user: Row) -> tuple[str, ...]:
        """Where game mail for the user goes: the confirmed addresses
        (nothing once signed off)."""
        if user["signed_off"]:
            return ()
        return tuple(self.store.confirmed_addresses(user["id"]))

    def account_mail(self, user: Row) -> tuple[str, ...]:
        """Where news about an account goes: its confirmed addresses (even
        when signed off) and whoever sent the command."""
        return tuple(dict.fromkeys([*self.store.confirmed_addresses(user["id"]), self.sender]))

    def to_sender(self, template: str, **context: Any) -> Reply:
        return Reply(template, (self.sender,), context)


Handler = Callable[[Request], list[Reply]]
HANDLERS: dict[str, Handler] = {}


def handles(*names: str) -> Callable[[Handler], Handler]:
    def register(function: Handler) -> Handler:
        @functools.wraps(function)
        def run(req: Request) -> list[Reply]:
            replies = function(req)
            return [*replies, *req.followups] if req.followups else replies

        for name in names:
            assert name not in HANDLERS, name
            HANDLERS[name] = run
        return function

    return register
