"""Password hashing with the standard library's scrypt.

Stored form: ``scrypt$N$r$p$salt$hash`` (salt and hash in base64).  Checking
compares in constant time.  Passwords are never logged or stored in clear.
A password is hashed and checked in its NFKC form, so that one typed with
full-width letters, ligatures or other compatibility forms is the same
password.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import unicodedata

N, R, P = 2**14, 8, 1
DKLEN = 32


def _bytes(password: str) -> bytes:
    return unicodedata.normalize("NFKC", password).encode("utf-8", "surrogatepass")


def hash_password(password: str, *, n: int = N) -> str:
    salt = os.urandom(16)
    digest = hashlib.scrypt(_bytes(password), salt=salt, n=n, r=R, p=P, dklen=DKLEN)
    b64 = base64.b64encode
    return f"scrypt${n}${R}${P}${b64(salt).decode()}${b64(digest).decode()}"


def check_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        got = hashlib.scrypt(
            _bytes(password),
            salt=base64.b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(expected),
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)


class VerifiedPasswords:
    """Remembers, in memory only, which passwords were recently checked
    against which stored hash, so that a player's tenth move does not pay
    for scrypt again (the idea of Dovecot's auth cache).

    What is kept is an HMAC of (stored hash, password) under a key made at
    start-up: nothing that could be reversed, nothing written to disk, and a
    changed password (a new stored hash) never matches an old entry.
    """

    def __init__(self, size: int = 10_000) -> None:
        self.key = os.urandom(32)
        self.size = size
        self.known: dict[bytes, None] = {}

    def _token(self, password: str, stored: str) -> bytes:
        message = stored.encode() + b"\0" + password.encode("utf-8", "surrogatepass")
        return hmac.new(self.key, message, "sha256").digest()

    def remember(self, password: str, stored: str) -> None:
        """A hash just made from this password (signup, new password)."""
        if len(self.known) >= self.size:
            self.known.pop(next(iter(self.known)))
        self.known[self._token(password, stored)] = None

    def is_known(self, password: str, stored: str) -> bool:
        """Was this password checked against this hash lately (no scrypt)?"""
        return bool(stored) and self._token(password, stored) in self.known

    def check(self, password: str, stored: str) -> bool:
        if not stored:
            return False
        token = self._token(password, stored)
        if token in self.known:
            return True
        if not check_password(password, stored):
            return False
        self.remember(password, stored)
        return True
