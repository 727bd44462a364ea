"""Storage: the only code that talks to SQLite (through sqlite-utils).

Every state change happens inside :meth:`Store.atomic`; the pipeline wraps a
whole mail (its commands, the record that it was handled, and its rendered
replies) in one such block, so a crash leaves either all of it or none.
Method names say what they read or write.  :class:`Store` is made of one
class per group of tables (accounts, boards, the computer, its hints and
analyses, health, mail, replies, tournaments) over the connection
(:mod:`.connection`); the schema is in :mod:`.migrations`.
"""

from __future__ import annotations

from .accounts import AccountTables
from .boards import BoardTables
from .coaching import CoachingTables
from .computer_jobs import ComputerTables
from .connection import BUSY_TIMEOUT_SECONDS, FairLock, Row, is_busy
from .health import HealthTables
from .mail import MailTables
from .replies import ReplyTables
from .tournaments import TournamentTables


class Store(AccountTables, BoardTables, CoachingTables, ComputerTables, HealthTables, MailTables, ReplyTables,
            TournamentTables):
    """One connection to the database, with every table's reads and writes."""


__all__ = ["BUSY_TIMEOUT_SECONDS", "FairLock", "Row", "Store", "is_busy"]
