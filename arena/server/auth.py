"""Who may do what: the organiser token guards starting tournaments and ladders, a bot's owner secret guards
updating and removing it; reading is open to all.

Both credentials are kept only as salted scrypt hashes (``hash_secret``): the organiser
token is hashed as soon as its file is read, and the plain token is never kept in memory past that;
an owner secret is hashed when the bot is first stored and shown to its owner once. A request's token
is checked with ``verify_secret``, which compares in constant time.
"""

from __future__ import annotations

from pathlib import Path

import redis

from arena.queue import keys
from arena.queue.owner_secrets import hash_secret, verify_secret
from arena.server.http import ApiError

MIN_TOKEN_CHARS = 16  # an organiser token shorter than this is refused at startup
CHALLENGE = {"WWW-Authenticate": "Bearer"}


class OrganiserToken:
    """The hash of the organiser token (None: this server starts no tournaments or ladders)."""

    def __init__(self, stored: str | None) -> None:
        self.stored = stored

    @classmethod
    def from_file(cls, path: Path | None) -> OrganiserToken:
        """Returns the hashed token read from ``path`` (first line; None: no token); raises ValueError
        saying what is wrong with the file."""
        if path is None:
            return cls(None)
        try:
            token = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"cannot read the organiser token file {path}: {exc}") from None
        if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
            raise ValueError(
                f"the organiser token in {path} must be one word of at least {MIN_TOKEN_CHARS} characters: "
                "make one with 'openssl rand -hex 32'"
            )
        return cls(hash_secret(token))

    def check(self, token: str | None) -> None:
        """Returns if ``token`` is the organiser's; raises 401 (none given), 403 (wrong, or no token set)."""
        if self.stored is None:
            raise ApiError(
                403, "this server runs no tournaments or ladders: start it with --organiser-token-file"
            )
        if token is None:
            raise ApiError(
                401, "this needs the organiser token as a bearer token (--organiser-token-file)", CHALLENGE
            )
        if not verify_secret(self.stored, token):
            raise ApiError(403, "wrong organiser token")


def check_owner(client: redis.Redis, name: str, token: str | None) -> bool:
    """Returns True if bot ``name`` exists and ``token`` is its owner's secret, False if no such bot
    exists; raises 401 (no secret given) or 403 (a wrong one) for an existing bot."""
    fields = client.hmget(keys.bot(name), ["secret_hash", "secret_sha256"])
    if fields == [None, None]:
        return False
    stored = fields[0] or fields[1] or ""  # scrypt, or the legacy SHA-256 of bots stored before it
    if token is None:
        raise ApiError(
            401, f"bot {name} exists: send its owner secret as a bearer token to change it", CHALLENGE
        )
    if not verify_secret(stored, token):
        raise ApiError(403, f"wrong owner secret for bot {name}")
    return True
