"""Secrets the database never holds: reply tokens, one-time codes and the
keyed tags of bounce addresses.

Each is derived, when it is needed, from the server's key (a file of its
own beside the database, mode 0600, never in a backup) and values that are
stored: a random *nonce* and the recipient's address.  The database keeps
only what checks a secret (its SHA-256) or nothing at all (a bounce tag is
checked by deriving it again).  A queued mail holds a *seal*, a marker with
the nonce, where the secret stands (``pbmsealt<nonce>`` for a reply token,
``pbmsealc<nonce>`` for a code); the outbox puts the secret in its place as
it hands the mail to the relay (:meth:`Keyring.unseal`).

A secret is bound to its recipient: a seal copied into a mail to someone
else (a player who read a stolen backup and mails it to himself) turns into
a secret that matches nothing.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

from pbm.config import Config

#: Letters of one-time codes: no 0/O, no 1/I.
ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
_SEAL = re.compile(rb"pbmseal([tc])([a-z2-7]{16})")
_KEY_BYTES = 32


def _b32(data: bytes) -> str:
    return base64.b32encode(data).decode("ascii").lower().rstrip("=")


def new_nonce() -> str:
    """16 random base32 characters (80 bits): what a seal names."""
    return _b32(secrets.token_bytes(10))


def secret_hash(secret: str) -> str:
    """What the database keeps of a reply token's secret."""
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def code_hash(code: str) -> str:
    """What the database keeps of a one-time code (dashes and case ignored)."""
    return hashlib.sha256(code.replace("-", "").upper().encode()).hexdigest()


class Keyring:
    """The server's key, and what is derived from it."""

    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("the server's key is too short")
        self._key = key

    def __repr__(self) -> str:
        return "Keyring(********)"

    @classmethod
    def ephemeral(cls) -> Keyring:
        """A key for this process only (an in-memory database)."""
        return cls(secrets.token_bytes(_KEY_BYTES))

    @classmethod
    def load(cls, path: Path) -> Keyring:
        """The key in ``path`` (hex), made there (mode 0600) when missing."""
        try:
            return cls(bytes.fromhex(path.read_text(encoding="ascii").strip()))
        except FileNotFoundError:
            pass
        key = secrets.token_bytes(_KEY_BYTES)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it meanwhile: use theirs
            return cls(bytes.fromhex(path.read_text(encoding="ascii").strip()))
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(key.hex() + "\n")
        return cls(key)

    @classmethod
    def of(cls, config: Config) -> Keyring:
        """The server's key for ``config``: its file (``[security]
        key_file``, or beside the database), made when missing; a key of
        this process alone for an in-memory database."""
        if str(config.server.database) == ":memory:" and config.security.key_file is None:
            return cls.ephemeral()
        return cls.load(config.key_path)

    def _mac(self, *parts: str) -> bytes:
        return hmac.new(self._key, "\x1f".join(parts).encode("utf-8"), hashlib.sha256).digest()

    # -- reply tokens and codes -------------------------------------------------

    def token_secret(self, nonce: str, recipient: str) -> str:
        """The 160-bit secret of a reply token, as 32 base32 characters."""
        return _b32(self._mac("token", nonce, recipient.lower())[:20])

    def code(self, nonce: str, recipient: str) -> str:
        """A one-time code to type: ten characters in two groups (``K7QMX-2D9PA``)."""
        digest = self._mac("code", nonce, recipient.lower())
        text = "".join(ALPHABET[b % len(ALPHABET)] for b in digest[:10])  # 256 % 32 == 0: no bias
        return f"{text[:5]}-{text[5:]}"

    @staticmethod
    def seal(kind: str, nonce: str) -> str:
        """The marker a stored mail holds where a token (``t``) or code (``c``) stands."""
        assert kind in ("t", "c")
        return f"pbmseal{kind}{nonce}"

    def unseal(self, message: bytes, recipient: str) -> bytes:
        """The mail as its recipient gets it: every seal replaced by the secret it stands for."""
        if b"pbmseal" not in message:
            return message

        def secret(m: re.Match[bytes]) -> bytes:
            nonce = m.group(2).decode("ascii")
            value = self.token_secret(nonce, recipient) if m.group(1) == b"t" else self.code(nonce, recipient)
            return value.encode("ascii")

        return _SEAL.sub(secret, message)

    # -- bounce tags ----------------------------------------------------------------

    def bounce_tag(self, reply_id: int, recipient: str) -> str:
        """The tag of a bounce address for one queued reply: its number and a
        keyed hash of number and recipient (``12-k3j...``)."""
        return f"{reply_id}-{_b32(self._mac('bounce', str(reply_id), recipient.lower())[:10])}"

    def bounce_address(self, envelope: str, reply_id: int, recipient: str) -> str:
        """``envelope`` (``pbm-bounce@x``) with the reply's tag: ``pbm-bounce+12-TAG@x``."""
        local, _, domain = envelope.rpartition("@")
        return f"{local}+{self.bounce_tag(reply_id, recipient)}@{domain}"

    def check_bounce_tag(self, tag: str, recipient: str) -> bool:
        number = tag.partition("-")[0]
        return number.isdigit() and hmac.compare_digest(self.bounce_tag(int(number), recipient), tag.lower())
