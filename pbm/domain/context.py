"""What every domain operation works in: the store, the configuration, the
moment it happens at, and the caches kept between mails."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime

from pbm.config import Config
from pbm.trax import Board

from .passwords import VerifiedPasswords
from .positions import Positions
from .refusals import PbmError, WorkLimitError
from .seals import Keyring
from .store import Store


@dataclass
class Context:
    """``now`` is the moment of the mail (or of the clock work) being
    handled, ``sender`` the address the mail came from (None for the clock
    work); ``passwords`` and ``positions`` live as long as the pipeline;
    ``keys`` derive the secrets mails carry (:mod:`.seals`).  ``verified``:
    the receiving mail server vouched for ``sender`` (a trusted
    ``Authentication-Results``); otherwise the address is a claim.
    ``logged_in``: the accounts a password or reply token proved in the
    command under way (the pipeline clears it before each command).  The
    counters are what this mail has cost so far, within ``[limits]``."""

    store: Store
    config: Config
    now: datetime
    passwords: VerifiedPasswords = field(default_factory=VerifiedPasswords)
    positions: Positions = field(default_factory=Positions)
    sender: str | None = None
    keys: Keyring = field(default_factory=Keyring.ephemeral)
    verified: bool = False
    logged_in: set[int] = field(default_factory=set)
    password_checks: int = 0  # scrypt checks and hashes made for this mail
    moves_replayed: int = 0  # moves the engine replayed for this mail
    recipients: int = 0  # addresses other than the sender's this mail sent to
    boards_drawn: int = 0  # boards shown by the commands of this mail
    past: dict[tuple[int, str, int], Board] = field(default_factory=dict)  # positions of "show 101#N"

    def spend_password_check(self) -> None:
        """One more slow password check (or hash) for this mail, within
        ``[limits] password_checks_per_mail``."""
        cap = self.config.limits.password_checks_per_mail
        if self.password_checks >= cap:
            raise PbmError("password-checks", {"cap": cap})
        self.password_checks += 1

    def spend_replay(self, moves: int) -> None:
        """``moves`` more moves replayed for this mail (loading a board, a
        past position, or the tiles of one drawn), within ``[limits]
        positions_per_mail``."""
        cap = self.config.limits.positions_per_mail
        if self.moves_replayed + moves > cap and self.moves_replayed > 0:
            raise WorkLimitError("replays", {"count": self.moves_replayed, "cap": cap})
        self.moves_replayed += moves

    def spend_drawing(self, boards: int) -> None:
        """``boards`` more boards to show for this mail: at most twice
        ``[limits] boards_per_show`` in one mail, however many shows it holds."""
        cap = 2 * self.config.limits.boards_per_show
        if self.boards_drawn + boards > cap and self.boards_drawn > 0:
            raise WorkLimitError("drawings", {"count": self.boards_drawn, "cap": cap})
        self.boards_drawn += boards

    @contextmanager
    def savepoint(self) -> Iterator[None]:
        """One command's work, all or nothing: a savepoint of the store
        (rolled back when the block raises), and the positions the command
        loaded kept for the next mails only when it succeeded (a failed
        one may have left them half changed)."""
        try:
            with self.store.atomic():
                yield
        except BaseException:
            self.positions.drop_lent()
            raise
        self.positions.keep_lent()

    @property
    def login_lane(self) -> str:
        """The key wrong passwords from this mail are counted under: the
        sender, marked unverified when the server trusts a mail server's
        verdict and this mail had none (so a forger never blocks the
        owner's verified mail)."""
        sender = (self.sender or "").lower()
        if self.config.security.trusted_authserv_id and not self.verified:
            return f"{sender} (unverified)"
        return sender
