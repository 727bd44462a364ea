"""Mail to others: what one account may send to people who did not ask
for it (messages, broadcasts, invitations, chat), counted by recipient.

Mail a player's own game sends (board mail, reminders, the opponent's
notices) is not counted here: games need both players' consent, and their
number is capped.  What is counted, every recipient of it:

- per mail, ``[limits] recipients_per_mail`` addresses other than the
  sender's (the command that would pass it is refused, whole);
- per account and day, ``mail_to_others_per_day`` (refused likewise; the
  account, never the From header, so a forger cannot spend a player's
  share);
- per recipient and day, ``mail_from_others_per_day``: past it, that
  recipient is left out of the mail (the others still get it) and the
  sender is told who.

Counts are made in the command's own savepoint, so a command that fails
counts nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from . import limits
from .context import Context
from .refusals import DailyLimitError, WorkLimitError


@dataclass(frozen=True)
class Delivery:
    """Who a mail to others goes to, and who had their day's share."""

    to: tuple[str, ...]
    left_out: tuple[str, ...]


def to_others(ctx: Context, account: int | None, addresses: Iterable[str], *, sender: str | None = None,
              exempt_from_account_cap: bool = False) -> Delivery:
    """Count a mail from ``account`` (None: a stranger's command, counted
    by ``sender``) to ``addresses`` (the sender's own are not counted);
    refused when it would pass the mail's or the account's cap, each
    recipient past their own share left out.  ``exempt_from_account_cap``:
    a broadcast, which has a daily cap of its own."""
    caps = ctx.config.limits
    me = (sender or ctx.sender or "").lower()
    wanted = [a for a in dict.fromkeys(addresses) if a.lower() != me]
    if not wanted:
        return Delivery((), ())
    if ctx.recipients + len(wanted) > caps.recipients_per_mail and not exempt_from_account_cap:
        raise WorkLimitError("recipients-per-mail",
                             {"count": ctx.recipients + len(wanted), "cap": caps.recipients_per_mail})
    kind, key = ("to-others-by-account", str(account)) if account is not None else ("to-others-by-sender", me)
    if not exempt_from_account_cap:
        left = limits.left(ctx, kind, key, caps.mail_to_others_per_day)
        if len(wanted) > left:
            raise DailyLimitError("mail-to-others-today",
                                  {"wanted": len(wanted), "left": left, "cap": caps.mail_to_others_per_day})
    to: list[str] = []
    left_out: list[str] = []
    for address in wanted:
        fits = limits.spend(ctx, "to-others-for", address, caps.mail_from_others_per_day)
        (to if fits else left_out).append(address)
    if not exempt_from_account_cap:
        limits.spend(ctx, kind, key, caps.mail_to_others_per_day, len(to))
        ctx.recipients += len(to)
    return Delivery(tuple(to), tuple(left_out))
