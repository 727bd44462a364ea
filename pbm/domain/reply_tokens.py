"""Reply tokens: what lets a player move by pressing Reply.

Every board mail to a player (and every digest) carries, in its
Message-ID, a token: the number of its row and a secret of 160 bits in
lower-case base32 (``<r-1234-SECRET@domain>``), the secret stored only as
its SHA-256 (looked up by the row's number, compared in constant time; no
index over random hashes to grow).  The secret is derived from the
server's key, a random nonce and the recipient's address
(:mod:`.seals`): the queued mail holds a seal in its place, and only the
outbox, as it sends the mail, writes the secret in.  A token is bound to one player and
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

import hmac
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .context import Context
from .refusals import ReplyRefusedError
from .seals import Keyring, new_nonce, secret_hash
from .store.records import ReplyToken, User

#: Our Message-IDs that carry a token: <r-TOKEN@domain>.
MESSAGE_ID_PREFIX = "r-"
_TOKEN = r"([0-9]{1,12}-[a-z2-7]{32})"
_IN_ID = re.compile(rf"<r-{_TOKEN}@[^<>\s]+>")
_IN_ADDRESS = re.compile(rf"\+r-{_TOKEN}@", re.IGNORECASE)
#: A confirmation mail's Message-ID: <c-ID-CODE@domain>.
_CODE_IN_ID = re.compile(r"<c-([0-9]{1,12})-([A-Z2-9]{5}-[A-Z2-9]{5})@[^<>\s]+>")


def _sealed(keys: Keyring, recipient: str) -> tuple[str, str]:
    """A new token secret for ``recipient``: its hash to store, and the seal
    the queued mail holds in its place."""
    nonce = new_nonce()
    return secret_hash(keys.token_secret(nonce, recipient)), keys.seal("t", nonce)


def issue(ctx: Context, user_id: int, board: int, ply: int, recipient: str) -> str:
    """A token for ``user_id``'s reply about ``board`` at move count ``ply``,
    in the mail to ``recipient`` (sealed: see :mod:`.seals`)."""
    hashed, seal = _sealed(ctx.keys, recipient)
    return f"{ctx.store.add_reply_token(hashed, user_id, board, ply, ctx.now)}-{seal}"


def issue_digest(ctx: Context, user_id: int, boards: Sequence[tuple[int, int]], recipient: str) -> str:
    """A token for ``user_id``'s reply to a digest listing ``boards`` (number, move count)."""
    hashed, seal = _sealed(ctx.keys, recipient)
    token_id = ctx.store.add_reply_token(hashed, user_id, None, None, ctx.now)
    ctx.store.add_digest_boards(token_id, boards)
    return f"{token_id}-{seal}"


def codes_in(references: Iterable[str]) -> list[tuple[int, str]]:
    """The confirmation codes (row number, code) that these
    In-Reply-To/References values name, newest first."""
    found: list[tuple[int, str]] = []
    for value in references:
        found += reversed([(int(m.group(1)), m.group(2)) for m in _CODE_IN_ID.finditer(value)])
    return list(dict.fromkeys(found))


def lookup(ctx: Context, token: str) -> ReplyToken | None:
    """The row of a token we issued, or None (a number we never gave, or
    a secret that does not match)."""
    number, _, secret = token.partition("-")
    row = ctx.store.reply_token(int(number))
    if row is None or not hmac.compare_digest(row.token_hash, secret_hash(secret.lower())):
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

    token: ReplyToken
    user: User
    boards: dict[int, int]

    @property
    def digest(self) -> bool:
        return self.token.board is None


def target(ctx: Context, tokens: Sequence[str], sender: str) -> ReplyTarget | None:
    """The reply target of the first token we issued (None when the mail
    carries none of ours); ReplyRefusedError when it does but the sender is
    not one of that player's addresses."""
    for token in tokens:
        row = lookup(ctx, token)
        if row is None:
            continue
        user = ctx.store.user_by_id(row.user_id)
        own = [a.lower() for a in ctx.store.confirmed_addresses(user.id)]
        if user.deleted_at is not None or sender.lower() not in own:
            raise ReplyRefusedError(
                "reply-wrong-address", {"userid": user.userid, "sender": sender})
        if row.board is not None and row.ply is not None:
            boards = {row.board: row.ply}
        else:
            boards = {b.board: b.ply for b in ctx.store.digest_boards(row.id)}
        return ReplyTarget(row, user, boards)
    return None
