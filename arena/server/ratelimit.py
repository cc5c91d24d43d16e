"""Rate limits on writes: a token bucket per client address, in front of every write of the API.

Each address holds up to ``burst`` tokens and regains ``per_minute`` of them a minute; a write takes one.
An address with none left gets 429 with ``Retry-After`` (whole seconds until its next token), and its
request is not read at all. Reads are not limited here: they change nothing and the leaderboard polls.

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
from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

from arena.server.http import error_response

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
        with self._lock:
            now = self.clock()
            tokens, then = self._buckets.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - then) * self.rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                self._forget_idle(now)
                return 0.0
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / self.rate

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
