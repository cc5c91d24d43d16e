"""Who may do what: the organiser token guards starting tournaments and ladders and approving and
disabling accounts; an account's token guards submitting, updating and removing its bots and reading
their output (a bot submitted with an owner secret, its own account ``bot:NAME``, that secret);
reading the rest is open to all.

Every credential is kept only as a salted scrypt hash (``hash_secret``): the organiser
token is hashed as soon as its file is read, and the plain token is never kept in memory past that;
an account token or an owner secret is hashed when it is made and shown to its owner once. A request's token
is checked with ``verify_secret``, which compares in constant time.

Design detail: a scrypt check costs tens of milliseconds of a core and 16 MiB, so wrong tokens must not
buy them freely (issue 33: 16 connections sending wrong tokens made every read 20 times slower).
A check takes these steps, cheapest first, and hashes only past all of them:

1. shape: a token no generated credential can be (an owner secret is ``token_urlsafe(32)``, an
   account token ``account.NAME.`` and one, an organiser token one printable word of 16 to 1024
   characters) is a 403 at once, counted nowhere;
2. cache: a token verified against the same stored hash within ``VERIFIED_SECONDS`` passes at once
   (``VerifiedCache``: keyed digests under a key drawn when the process starts, never a token; an
   entry passes only against the stored hash it was verified with, so a bot registered again, whose
   hash is new, is checked afresh);
3. failures: a token the cache does not know, from a client address or for a credential (the bot's
   name, the account, or the organiser token) that has failed ``auth_failure_burst`` times lately, is
   a 429 with ``Retry-After``, decided on the event loop before Redis is read. A check takes a token
   of both buckets at once and gives them back if the secret was right, so only failures count; an
   address that has failed nothing lately is not held back by its credential's bucket (else anyone
   could lock an owner out by failing with the owner's name);
4. slots: at most ``secret_checks`` hashes run at once across the server, each on a thread of the
   server's own (``Authenticator``'s, at a lower CPU priority: ``HASH_NICENESS``), never on the
   thread pool reads share; past that, 503 with ``Retry-After`` at once, also decided before Redis
   is read.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import hmac
import json
import math
import os
import sys
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis
from starlette.requests import Request

from arena.queue import keys
from arena.queue.connection import maybe_text, maybe_text_list
from arena.submissions import accounts, owner_secrets
from arena.submissions.owner_secrets import could_be_owner_secret, hash_secret
from leaderboard.api.ratelimit import TokenBucket, client_key
from leaderboard.http import ApiError, off_loop

MIN_TOKEN_CHARS = 16  # an organiser token shorter than this is refused at startup
MAX_TOKEN_CHARS = 1024  # ... and one longer than this
CHALLENGE = {"WWW-Authenticate": "Bearer"}
VERIFIED_ENTRIES = 4096  # credentials the cache remembers; past it, the least recently used goes
VERIFIED_SECONDS = 600.0  # how long a verified credential passes without a hash
BUSY_SECONDS = 1  # Retry-After of a check refused because every slot is hashing
HASH_NICENESS = 10  # how much nicer than the server's other threads a hashing thread runs (Linux)


def could_be_organiser_token(token: str) -> bool:
    """Returns whether ``token`` has the shape every organiser token has (``OrganiserToken.from_file``
    refuses any other): one word of printable characters, 16 to 1024 of them."""
    return (
        MIN_TOKEN_CHARS <= len(token) <= MAX_TOKEN_CHARS
        and token.isprintable()
        and not any(c.isspace() for c in token)
    )


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
        if not could_be_organiser_token(token):
            raise ValueError(
                f"the organiser token in {path} must be one word of {MIN_TOKEN_CHARS} to {MAX_TOKEN_CHARS} "
                "printable characters: make one with 'openssl rand -hex 32'"
            )
        return cls(hash_secret(token))


class VerifiedCache:
    """Credentials verified lately: ``add`` one after a hash said yes, ``holds`` asks whether one was,
    against the same stored hash, within ``seconds`` (at most ``size`` remembered, the least recently
    used dropped first). An entry is two HMAC-SHA256 digests under this process's own random key: of
    (kind, name, token) as its key, and of the stored hash it was verified against as its value."""

    def __init__(
        self,
        size: int = VERIFIED_ENTRIES,
        seconds: float = VERIFIED_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.size, self.seconds, self.clock = size, seconds, clock
        self._key = os.urandom(32)  # this process's: a digest says nothing without it
        self._entries: collections.OrderedDict[bytes, tuple[bytes, float]] = collections.OrderedDict()
        self._lock = threading.Lock()

    def _digest(self, *fields: str) -> bytes:
        message = json.dumps(fields).encode()  # unambiguous, whatever the fields hold
        return hmac.digest(self._key, message, "sha256")

    def knows(self, kind: str, name: str, token: str) -> bool:
        """Returns whether ``token`` was verified for (``kind``, ``name``) lately, against whatever
        stored hash: False means a check of it must hash (no Redis read decides it)."""
        return self._entry(self._digest(kind, name, token)) is not None

    def holds(self, kind: str, name: str, stored: str, token: str) -> bool:
        """Returns whether ``token`` was verified for (``kind``, ``name``) against ``stored`` lately
        (an entry verified against another stored hash is dropped)."""
        key = self._digest(kind, name, token)
        remembered = self._entry(key)
        if remembered is None:
            return False
        if hmac.compare_digest(remembered, self._digest(stored)):
            return True
        with self._lock:
            self._entries.pop(key, None)
        return False

    def _entry(self, key: bytes) -> bytes | None:
        """Returns the stored hash's digest of the live entry ``key`` (None: none, or expired)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry[1] <= self.clock():
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return entry[0]

    def add(self, kind: str, name: str, stored: str, token: str) -> None:
        """Remembers that ``token`` is right for (``kind``, ``name``) while ``stored`` is its hash."""
        key, value = self._digest(kind, name, token), self._digest(stored)
        with self._lock:
            self._entries[key] = (value, self.clock() + self.seconds)
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)


def lower_priority() -> None:
    """Makes the calling thread ``HASH_NICENESS`` nicer (Linux, where a thread id names one thread;
    elsewhere nothing), so a hash competes for a core with the event loop as a background job."""
    if sys.platform.startswith("linux"):
        tid = threading.get_native_id()
        with contextlib.suppress(OSError):  # a limit on niceness: the hash runs at the server's priority
            os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + HASH_NICENESS)


class Authenticator:
    """Checks credentials for the whole server (``app.state.auth``): the shape, the cache, the failure
    buckets and the hashing slots of the module's docstring, in that order. Its methods run on the
    event loop; a hash runs on one of its ``checks`` threads."""

    def __init__(
        self,
        organiser: OrganiserToken,
        failures: TokenBucket,
        checks: int,
        cache: VerifiedCache | None = None,
    ) -> None:
        if checks < 1:
            raise ValueError("the server needs at least one secret check at a time")
        self.organiser_token = organiser
        self.failures = failures
        self.checks = checks
        self.cache = cache or VerifiedCache()
        self.hashing = 0  # hashes submitted and not yet finished
        self._lock = threading.Lock()
        self._hasher = concurrent.futures.ThreadPoolExecutor(
            checks, thread_name_prefix="arena-secret-check", initializer=lower_priority
        )
        weakref.finalize(self, self._hasher.shutdown, wait=False)

    def precheck(self, kind: str, name: str, token: str, address: str) -> None:
        """Returns if a check of ``token`` may go on; raises 429 when the cache does not know it and
        the client's address or the credential has no failure left, 503 when it would have to wait
        for a hashing slot (cheap: no Redis, no hash)."""
        if self.cache.knows(kind, name, token):
            return
        self._refuse(kind, name, self.failures.waits(self._buckets(kind, name, address)))
        if self.hashing >= self.checks:
            raise self._busy()

    async def verify(self, kind: str, name: str, stored: str, token: str, address: str) -> bool:
        """Returns whether ``token`` matches ``stored``, the hash of credential ``kind`` ``name``, for a
        client at ``address`` (a ``client_key``); raises 429 when the address or the credential has
        failed too often lately, 503 when every hashing slot is taken (neither runs a hash)."""
        if self.cache.holds(kind, name, stored, token):
            return True
        buckets = self._buckets(kind, name, address)
        self._refuse(kind, name, self.failures.take_all(buckets))
        with self._lock:
            free = self.hashing < self.checks
            self.hashing += free
        if not free:
            self.failures.give_back(buckets)  # not a failure: no hash ran
            raise self._busy()
        try:
            future = self._hasher.submit(owner_secrets.verify_secret, stored, token)
        except RuntimeError:  # the server is stopping
            self._finished(None)
            raise
        future.add_done_callback(self._finished)  # the slot is the hash's until it ends, answered or not
        right = await asyncio.wrap_future(future)
        if right:
            self.failures.give_back(buckets)
            self.cache.add(kind, name, stored, token)
        return right

    def _finished(self, _: Any) -> None:
        with self._lock:
            self.hashing -= 1

    def _busy(self) -> ApiError:
        return ApiError(
            503,
            f"the server is checking {self.checks} secrets already: try again in {BUSY_SECONDS} s",
            {"Retry-After": str(BUSY_SECONDS)},
        )

    def _buckets(self, kind: str, name: str, address: str) -> tuple[str, ...]:
        """Returns the failure buckets of a check: its client address's, and its credential's unless
        the address has failed nothing lately.

        Design detail: the credential's bucket keeps many addresses from spending one name's
        failures together; alone it would let anyone lock an owner out by failing with the owner's
        name from one address (an account's every bot with it, before a deadline). An address whose
        own bucket is full is let through the credential's, so the owner's first try from their own
        address is checked; once an address fails, its checks count against both.
        """
        own = f"address {address}"
        return (own,) if self.failures.untouched(own) else (own, f"{kind} {name}")

    @staticmethod
    def _refuse(kind: str, name: str, empty: dict[str, float]) -> None:
        """Raises 429 naming the ``empty`` buckets (from ``waits`` or ``take_all``), if any."""
        if not empty:
            return
        seconds = max(1, math.ceil(max(empty.values())))
        whose = " and ".join(
            "from this address" if key.startswith("address ") else f"for {described(kind, name)}"
            for key in empty
        )
        raise ApiError(
            429,
            f"too many failed authentications {whose}: try again in {seconds} s",
            {"Retry-After": str(seconds)},
        )

    async def owner(self, client: redis.Redis, name: str, token: str | None, address: str) -> bool:
        """Returns True if bot ``name`` exists and ``token`` is its credential (``bot_owner``), False if no
        such bot exists; raises as ``bot_owner`` does."""
        return await self.bot_owner(client, name, token, address) is not None

    async def bot_owner(self, client: redis.Redis, name: str, token: str | None, address: str) -> str | None:
        """Returns the account of bot ``name`` if ``token`` is its credential: the token of the bot's
        account, or for a bot of its own account (``bot:NAME``: submitted with an owner secret) that
        secret; returns None if no such bot exists. Raises 401 (no token given), 403 (a wrong one, or
        a credential of another kind), 429 or 503 (``verify``) for an existing bot, and 429 or 503 for
        any name when the address has no failure or no slot left."""
        claimed = None if token is None else accounts.token_account(token)
        shaped = token is not None and could_be_owner_secret(token)
        if claimed is not None:
            self.precheck("account", claimed, str(token), address)
        elif shaped:
            self.precheck("bot", name, str(token), address)
        names = ["secret_hash", "secret_sha256", "account", "games"]
        secret_hash, sha256, account, games = maybe_text_list(
            await off_loop(client.hmget, keys.bot(name), names)
        )
        if games is None and secret_hash is None and sha256 is None:
            return None
        if token is None:
            what = "its account's token" if account else "its owner secret"
            raise ApiError(401, f"bot {name} exists: send {what} as a bearer token to change it", CHALLENGE)
        if account:
            if claimed != account:
                raise ApiError(403, f"bot {name} belongs to an account: send that account's token")
            stored = await off_loop(client.hget, keys.account(account), "token_hash")
            if not await self.verify("account", account, maybe_text(stored) or "", str(token), address):
                raise ApiError(403, f"wrong account token for bot {name}")
            return account
        if claimed is not None:
            raise ApiError(
                403, f"bot {name} was submitted with an owner secret, not by an account: send that secret"
            )
        stored = secret_hash or sha256 or ""  # scrypt, or the legacy SHA-256 of bots stored before it
        if not (shaped and await self.verify("bot", name, stored, str(token), address)):
            raise ApiError(403, f"wrong owner secret for bot {name}")
        return accounts.LEGACY_PREFIX + name

    async def account(self, client: redis.Redis, token: str | None, address: str) -> str:
        """Returns the name of the account whose token ``token`` is (whatever its state); raises 401
        (none given), 403 (not an account token, or a wrong one), 429 or 503 (``verify``)."""
        if token is None:
            raise ApiError(
                401,
                "send your account token as a bearer token ('arena account create NAME' makes one)",
                CHALLENGE,
            )
        claimed = accounts.token_account(token)
        if claimed is None:
            raise ApiError(403, "not an account token: an account token starts with 'account.NAME.'")
        self.precheck("account", claimed, token, address)
        stored = maybe_text(await off_loop(client.hget, keys.account(claimed), "token_hash"))
        if not await self.verify("account", claimed, stored or "", token, address):
            raise ApiError(403, f"wrong account token for account {claimed}")
        return claimed

    async def organiser(self, token: str | None, address: str) -> None:
        """Returns if ``token`` is the organiser's; raises 401 (none given), 403 (wrong, or no token
        set), 429 or 503 (``verify``)."""
        stored = self.organiser_token.stored
        if stored is None:
            raise ApiError(
                403, "this server runs no tournaments or ladders: start it with --organiser-token-file"
            )
        if token is None:
            raise ApiError(
                401, "this needs the organiser token as a bearer token (--organiser-token-file)", CHALLENGE
            )
        if not could_be_organiser_token(token):
            raise ApiError(403, "wrong organiser token")
        self.precheck("organiser", "", token, address)
        if not await self.verify("organiser", "", stored, token, address):
            raise ApiError(403, "wrong organiser token")


def described(kind: str, name: str) -> str:
    """Returns how an error names a credential: "bot NAME", "account NAME" or "the organiser token"."""
    return f"{kind} {name}" if kind in ("bot", "account") else "the organiser token"


class Credentials:
    """The server's ``Authenticator`` for one request's client (``credentials(request)``)."""

    def __init__(self, auth: Authenticator, address: str) -> None:
        self.auth, self.address = auth, address

    async def owner(self, client: Any, name: str, token: str | None) -> bool:
        """``Authenticator.owner`` for this request's client."""
        return await self.auth.owner(client, name, token, self.address)

    async def bot_owner(self, client: Any, name: str, token: str | None) -> str | None:
        """``Authenticator.bot_owner`` for this request's client."""
        return await self.auth.bot_owner(client, name, token, self.address)

    async def account(self, client: Any, token: str | None) -> str:
        """``Authenticator.account`` for this request's client."""
        return await self.auth.account(client, token, self.address)

    async def organiser(self, token: str | None) -> None:
        """``Authenticator.organiser`` for this request's client."""
        await self.auth.organiser(token, self.address)


def credentials(request: Request) -> Credentials:
    """Returns the credential checks of ``request``'s client (its TCP peer, as the write limit's)."""
    peer = request.client.host if request.client else "unknown"
    return Credentials(request.app.state.auth, client_key(peer))
