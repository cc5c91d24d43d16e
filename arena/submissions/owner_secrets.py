"""Owner secrets and tokens as stored: a salted, slow scrypt hash, checked in constant time.

A bot's owner secret (and the server's organiser token) is shown once and stored only as
``hash_secret``'s string, ``"scrypt$n$r$p$salt_b64$hash_b64"``; ``verify_secret`` checks a presented
secret against it. Bots stored before this carry a bare SHA-256 hex digest, which still verifies;
``arena.submissions.registry`` replaces it by a scrypt hash the next time its secret is checked.

Every owner secret ever handed out is ``secrets.token_urlsafe(32)`` (``submissions._authorize``): 43
characters of the URL-safe base64 alphabet, the last one carrying 4 bits and two zero bits. A token
of any other shape cannot be one, and ``could_be_owner_secret`` refuses it without hashing.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import os
import string

SCRYPT_N, SCRYPT_R, SCRYPT_P, SALT_BYTES = 2**14, 8, 1, 16
PREFIX = "scrypt$"
OWNER_SECRET_BYTES = 32  # an owner secret is secrets.token_urlsafe(OWNER_SECRET_BYTES)
URLSAFE = string.ascii_uppercase + string.ascii_lowercase + string.digits + "-_"  # base64url, in order
OWNER_SECRET_CHARS = math.ceil(OWNER_SECRET_BYTES * 8 / 6)  # 43, unpadded
_LAST_BITS = OWNER_SECRET_BYTES * 8 - (OWNER_SECRET_CHARS - 1) * 6  # bits the last character carries
_URLSAFE_SET = frozenset(URLSAFE)
_LAST_CHARS = frozenset(URLSAFE[i] for i in range(0, 64, 2 ** (6 - _LAST_BITS)))  # "AEIM...48"


def could_be_owner_secret(token: str) -> bool:
    """Returns whether ``token`` has the shape of a generated owner secret (``token_urlsafe(32)``:
    43 base64url characters whose last one ends in zero bits); False means no bot's secret can be it,
    so it is refused without a hash. Cheap and independent of every stored secret."""
    return (
        len(token) == OWNER_SECRET_CHARS
        and token[-1] in _LAST_CHARS
        and all(c in _URLSAFE_SET for c in token)
    )


def is_scrypt(stored: str) -> bool:
    """Returns whether a stored secret is in ``hash_secret``'s form (not the legacy SHA-256)."""
    return stored.startswith(PREFIX)


def hash_secret(secret: str) -> str:
    """Returns the stored form of a secret: ``"scrypt$n$r$p$salt_b64$hash_b64"``, salted and slow.

    Design detail: owner secrets are 32 random bytes, but an organiser token or a secret a person
    chose may be guessable, and a leaked database should not make guessing cheap; scrypt with these
    parameters costs about 16 MiB and tens of milliseconds per guess.
    """
    salt = os.urandom(SALT_BYTES)
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P)
    encoded = (base64.b64encode(x).decode() for x in (salt, digest))
    return "$".join(["scrypt", str(SCRYPT_N), str(SCRYPT_R), str(SCRYPT_P), *encoded])


def verify_secret(stored: str, secret: str) -> bool:
    """Returns whether ``secret`` matches its stored form (``hash_secret``'s, or a legacy bare SHA-256
    hex digest), comparing in constant time; False for a malformed stored form."""
    if not is_scrypt(stored):
        return len(stored) == 64 and hmac.compare_digest(hashlib.sha256(secret.encode()).hexdigest(), stored)
    try:
        _, n, r, p, salt, expected = stored.split("$")
        key = base64.b64decode(expected, validate=True)
        digest = hashlib.scrypt(
            secret.encode(),
            salt=base64.b64decode(salt, validate=True),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(key),
        )
    except (ValueError, TypeError, MemoryError):
        return False
    return hmac.compare_digest(digest, key)
