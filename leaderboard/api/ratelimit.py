"""Rate limits: a token bucket per client address in front of every write of the API, and the same
buckets for failed authentications (``leaderboard.api.auth``, per address and per credential name).

Each address holds up to ``burst`` tokens and regains ``per_minute`` of them a minute; a write takes one.
An address with none left gets 429 with ``Retry-After`` (whole seconds until its next token), and its
request is not read at all. Reads are not limited here: they change nothing and the leaderboard polls.
A secret check takes a token of several buckets at once, or of none (``take_all``), before it hashes,
and gives them back when the secret was right (``give_back``): only failures count. ``waits`` looks
without taking, for a refusal that costs nothing.

Design detail: the address is the TCP peer, never a header such as X-Forwarded-For, which any client can
write. Behind a reverse proxy every client shares the proxy's bucket: give the proxy its own limits. An
IPv4 client has a bucket per address; an IPv6 client one per /64 (``client_key``), since one subscriber
is routinely given a whole /64 and could otherwise take a fresh bucket per address.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections.abc import Callable, Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

from leaderboard.http import error_response

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_TRACKED = 10_000  # addresses remembered; past it, the full (idle) buckets are forgotten


IPV6_PREFIX = 64  # the IPv6 addresses one client is assumed to hold


def client_key(host: str) -> str:
    """Returns the bucket key of a client address: an IPv4 address itself (also when mapped into IPv6),
    an IPv6 address's /64 network, anything that is no address (a Unix socket's peer) as it is."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False))
    return str(address)


class TokenBucket:
    """Per-key token buckets: ``take(key)`` spends a token or says how long until there is one."""

    def __init__(self, per_minute: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        if per_minute <= 0 or burst < 1:
            raise ValueError("a rate limit needs a positive rate and a burst of at least 1")
        self.rate = per_minute / 60.0  # tokens per second
        self.burst = burst
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, when counted)
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """Returns 0.0 after spending one of ``key``'s tokens, else the seconds until it has one."""
        return max(self.take_all((key,)).values(), default=0.0)

    def take_all(self, keys: Iterable[str]) -> dict[str, float]:
        """Spends one token of every key in ``keys``, or none at all: returns {} after spending, else
        the seconds each key without a token must wait for one (the others keep theirs)."""
        with self._lock:
            now = self.clock()
            counted = {key: self._count(key, now) for key in dict.fromkeys(keys)}
            empty = self._waits(counted)
            spent = 0.0 if empty else 1.0
            for key, tokens in counted.items():
                self._buckets[key] = (tokens - spent, now)
            if not empty:
                self._forget_idle(now)
            return empty

    def waits(self, keys: Iterable[str]) -> dict[str, float]:
        """Returns what ``take_all(keys)`` would without spending anything: {} when every key has a
        token, else the seconds each key without one must wait."""
        with self._lock:
            now = self.clock()
            return self._waits({key: self._count(key, now) for key in dict.fromkeys(keys)})

    def _waits(self, counted: dict[str, float]) -> dict[str, float]:
        return {key: (1.0 - tokens) / self.rate for key, tokens in counted.items() if tokens < 1.0}

    def untouched(self, key: str) -> bool:
        """Returns whether ``key``'s bucket is full: nothing spent from it lately."""
        with self._lock:
            return self._count(key, self.clock()) >= self.burst

    def give_back(self, keys: Iterable[str]) -> None:
        """Returns a token ``take_all`` spent to each key (a bucket holds at most ``burst``)."""
        with self._lock:
            now = self.clock()
            for key in dict.fromkeys(keys):
                self._buckets[key] = (min(float(self.burst), self._count(key, now) + 1.0), now)

    def _count(self, key: str, now: float) -> float:
        """Returns ``key``'s tokens at ``now`` (a key never seen has a full bucket)."""
        tokens, then = self._buckets.get(key, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - then) * self.rate)

    def _forget_idle(self, now: float) -> None:
        """Drops the buckets that are full again once too many addresses are tracked (bounded memory)."""
        if len(self._buckets) <= MAX_TRACKED:
            return
        full = self.burst / self.rate
        self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < full}


class RateLimitMiddleware:
    """ASGI middleware: every write to a path under ``prefix`` takes a token of its client's bucket."""

    def __init__(self, app: ASGIApp, bucket: TokenBucket, prefix: str = "/api/") -> None:
        self.app = app
        self.bucket = bucket
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuses a write over its client's rate with 429; passes everything else on."""
        if (
            scope["type"] == "http"
            and scope["method"] in WRITE_METHODS
            and scope["path"].startswith(self.prefix)
        ):
            client = scope.get("client")
            wait = self.bucket.take(client_key(client[0]) if client else "unknown")
            if wait > 0:
                seconds = max(1, math.ceil(wait))
                message = f"too many writes from this address: try again in {seconds} s"
                response = error_response(429, message, {"Retry-After": str(seconds)})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
