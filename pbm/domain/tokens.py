"""Reply tokens: what lets a player move by pressing Reply.

Every board mail to a player (and every digest) carries, in its
Message-ID, a token: the number of its row and a secret of 160 random bits
in lower-case base32 (``<r-1234-SECRET@domain>``), the secret stored only
as its SHA-256 (looked up by the row's number, compared in constant time;
no index over random hashes to grow).  A token is bound to one player and
one board at one move number (a digest's token to the player and each board
it lists, at theirs).  A reply whose In-Reply-To or References (or
recipient, when the operator gives replies a subaddress) carries a token,
and whose From is one of that player's confirmed addresses, is that
player's command for that board, with no password.  Being random and only
ever mailed to the player's own addresses, the token is a secret; the From
check keeps a token that leaked (a forwarded mail) from working for anyone
else.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .context import Context
from .refusals import ReplyRefusedError
from .store import Row

#: Our Message-IDs that carry a token: <r-TOKEN@domain>.
MESSAGE_ID_PREFIX = "r-"
_TOKEN = r"([0-9]{1,12}-[a-z2-7]{32})"
_IN_ID = re.compile(rf"<r-{_TOKEN}@[^<>\s]+>")
_IN_ADDRESS = re.compile(rf"\+r-{_TOKEN}@", re.IGNORECASE)


def new_secret() -> str:
    """160 random bits as 32 characters of lower-case base32."""
    return base64.b32encode(secrets.token_bytes(20)).decode("ascii").lower()


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def issue(ctx: Context, user_id: int, board: int, ply: int) -> str:
    """A token for ``user_id``'s reply about ``board`` at move count ``ply``."""
    secret = new_secret()
    return f"{ctx.store.add_reply_token(secret_hash(secret), user_id, board, ply, ctx.now)}-{secret}"


def issue_digest(ctx: Context, user_id: int, boards: Sequence[tuple[int, int]]) -> str:
    """A token for ``user_id``'s reply to a digest listing ``boards`` (number, move count)."""
    secret = new_secret()
    token_id = ctx.store.add_reply_token(secret_hash(secret), user_id, None, None, ctx.now)
    ctx.store.add_digest_boards(token_id, boards)
    return f"{token_id}-{secret}"


def lookup(ctx: Context, token: str) -> Row | None:
    """The row of a token we issued, or None (a number we never gave, or
    a secret that does not match)."""
    number, _, secret = token.partition("-")
    row = ctx.store.reply_token(int(number))
    if row is None or not hmac.compare_digest(row["token_hash"], secret_hash(secret.lower())):
        return None
    return row


def found_in(references: Iterable[str], recipients: Iterable[str] = ()) -> list[str]:
    """The tokens in these In-Reply-To/References values and recipient
    addresses, newest reference first (a reply names the mail it answers
    last in References)."""
    found: list[str] = []
    for value in recipients:
        found += [m.group(1).lower() for m in _IN_ADDRESS.finditer(value)]
    for value in references:
        found += reversed([m.group(1) for m in _IN_ID.finditer(value)])
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class ReplyTarget:
    """A token found and its sender checked: the player, the token's row,
    and the boards the reply may be about (number -> the move count the
    mail showed)."""

    token: Row
    user: Row
    boards: dict[int, int]

    @property
    def digest(self) -> bool:
        return self.token["board"] is None


def target(ctx: Context, tokens: Sequence[str], sender: str) -> ReplyTarget | None:
    """The reply target of the first token we issued (None when the mail
    carries none of ours); ReplyRefusedError when it does but the sender is
    not one of that player's addresses."""
    for token in tokens:
        row = lookup(ctx, token)
        if row is None:
            continue
        user = ctx.store.user_by_id(row["user_id"])
        own = [a.lower() for a in ctx.store.confirmed_addresses(user["id"])]
        if user["deleted_at"] is not None or sender.lower() not in own:
            raise ReplyRefusedError(
                f"this reply answers a board mail sent to {user['userid']}, but it comes from {sender}, which is "
                f"not one of {user['userid']}'s addresses; a reply counts only from the player's own address")
        if row["board"] is not None:
            boards = {int(row["board"]): int(row["ply"])}
        else:
            boards = {int(b["board"]): int(b["ply"]) for b in ctx.store.digest_boards(row["id"])}
        return ReplyTarget(row, user, boards)
    return None
