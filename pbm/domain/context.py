"""What every domain operation works in: the store, the configuration, the
moment it happens at, and the caches kept between mails."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from pbm.config import Config

from .passwords import VerifiedPasswords
from .positions import Positions
from .refusals import PbmError
from .store import Store


@dataclass
class Context:
    """``now`` is the moment of the mail (or of the clock work) being
    handled, ``sender`` the address the mail came from (None for the clock
    work); ``passwords`` and ``positions`` live as long as the pipeline."""

    store: Store
    config: Config
    now: datetime
    passwords: VerifiedPasswords = field(default_factory=VerifiedPasswords)
    positions: Positions = field(default_factory=Positions)
    sender: str | None = None
    password_checks: int = 0  # scrypt checks and hashes made for this mail

    def spend_password_check(self) -> None:
        """One more slow password check (or hash) for this mail, within
        ``[limits] password_checks_per_mail``."""
        cap = self.config.limits.password_checks_per_mail
        if self.password_checks >= cap:
            raise PbmError(f"this mail has already had {cap} passwords checked, the most one mail may; "
                           f"send the rest in another mail")
        self.password_checks += 1
