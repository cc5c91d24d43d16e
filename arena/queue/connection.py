"""Talking to Redis, in one place: which Redis to use, connecting to it, retrying while it is down,
and showing its URL without the password.

Which Redis to use: ``--redis``, else ``ARENA_REDIS_URL``, else a private ``redis-server`` that arena
starts itself. A Redis that happens to listen on 127.0.0.1:6379 is never used unless named: it may be
another program's, and arena would write its queue and results into it.

The private server listens only on a Unix socket in ``$XDG_STATE_HOME/arena/redis`` (no TCP port to
collide with), keeps its data there with the append-only file on (``appendonly yes``, ``appendfsync
everysec``: results and ratings survive a restart of Redis too), and keeps running after the command
that started it, so later commands (``arena leaderboard``) find the same data. A later command reuses it.

Replies as the type checker sees them: the clients ``connect`` makes decode replies
(``decode_responses=True``), so every reply is text, but redis-py's signatures say ``bytes | str``
whatever the client, and its ``hset`` wants a mapping keyed by any encodable type. ``maybe_text``,
``text_list``, ``text_hash`` and the others below say what such a client returns, for the checker only:
each returns its argument unchanged, no check and no copy. The replay store's client, which keeps bytes,
does not use them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast
from urllib.parse import urlsplit, urlunsplit

import redis

if TYPE_CHECKING:  # redis-py's reply types (recent versions only): for the checker, never imported
    from redis.typing import (
        EncodableT,
        FieldT,
        StreamRangeResponse,
        XReadGroupResponse,
        XReadResponse,
        ZSetRangeResponse,
    )

from arena.paths import state_dir

BACKOFF_FIRST = 0.5  # seconds before the first retry when Redis is unreachable
BACKOFF_MAX = 15.0  # the longest wait between two retries
ENV_URL = "ARENA_REDIS_URL"
LOCAL_HOST, LOCAL_PORT = "127.0.0.1", 6379
INSTALL_HINT = "install one with: sudo apt-get install redis-server (or set ARENA_REDIS_URL / --redis)"

T = TypeVar("T")
StreamEntries = list[tuple[str, dict[str, str]]]  # (entry id, fields) of a stream, as XRANGE returns them
# (entry id, fields) as XREADGROUP returns them: a pending entry since trimmed has no fields
GroupEntries = list[tuple[str, dict[str, str] | None]]


class RedisSetupError(Exception):
    """No Redis is configured or reachable, and none could be started."""


def _answers(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def resolve_url(option: str | None, say: Callable[[str], None], start: bool = True) -> str:
    """Returns the Redis URL to use, starting the private server when nothing else is there."""
    if option:
        return option
    if os.environ.get(ENV_URL):
        return os.environ[ENV_URL]
    folder = state_dir() / "redis"
    url = f"unix://{folder / 'redis.sock'}"
    if _answers(url):
        return url
    if not start:
        raise RedisSetupError(
            f"no Redis configured: set {ENV_URL} or --redis, or run 'arena tournament' once to start one"
        )
    start_private(folder)
    say(
        f"arena: no Redis named (--redis, {ENV_URL}): started a private redis-server with its data in "
        f"{folder}; it keeps running (stop it with: redis-cli -s {folder / 'redis.sock'} shutdown). A Redis "
        f"on {LOCAL_HOST}:{LOCAL_PORT} is used only when named: --redis redis://{LOCAL_HOST}:{LOCAL_PORT}/0"
    )
    return url


def start_private(folder: Path) -> int:
    """Starts the private redis-server in ``folder`` and returns its pid once it answers."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise RedisSetupError(f"no Redis configured and no redis-server binary found; {INSTALL_HINT}")
    folder.mkdir(parents=True, exist_ok=True)
    sock = folder / "redis.sock"
    if len(str(sock)) > 100:
        raise RedisSetupError(f"the socket path {sock} is too long for a Unix socket; set {ENV_URL}")
    argv = [binary, "--port", "0", "--unixsocket", str(sock), "--unixsocketperm", "700"]
    argv += ["--dir", str(folder), "--appendonly", "yes", "--appendfsync", "everysec", "--save", ""]
    with open(folder / "redis.log", "ab") as log:
        proc = subprocess.Popen(
            argv, stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True
        )
    (folder / "redis.pid").write_text(f"{proc.pid}\n")
    url = f"unix://{sock}"
    for _ in range(100):
        if _answers(url):
            return proc.pid
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise RedisSetupError(f"redis-server did not start; see {folder / 'redis.log'}")


def connect(url: str) -> redis.Redis:
    """Returns a client for ``url`` (strings decoded); connecting happens on the first command."""
    return redis.Redis.from_url(
        url, decode_responses=True, socket_connect_timeout=3, health_check_interval=10
    )


def shown_url(url: str) -> str:
    """Returns the URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username or ''}:***@{parts.hostname or ''}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def retrying(
    url: str,
    action: Callable[[], T],
    say: Callable[[str], None],
    attempts: int | None = None,
    who: str = "arena",
) -> T:
    """Returns ``action()``, retrying with exponential back-off while Redis is unreachable.

    Each failed try prints one line starting with ``who`` and naming the URL, the error and the wait.
    With ``attempts`` set the last error is raised after that many tries; by default it retries for ever.
    """
    wait = BACKOFF_FIRST
    tried = 0
    while True:
        try:
            return action()
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            tried += 1
            if attempts is not None and tried >= attempts:
                raise
            reason = str(exc).rstrip(".")
            say(f"{who}: Redis at {shown_url(url)} is unreachable: {reason}; retrying in {wait:g}s")
            time.sleep(wait)
            wait = min(wait * 2, BACKOFF_MAX)


def maybe_text(reply: bytes | str | None) -> str | None:
    """A text reply (GET, HGET) of a decoding client, None for a missing key or field (see the module's
    docstring)."""
    return cast("str | None", reply)


def text_list(reply: list[bytes | str]) -> list[str]:
    """A list reply (LRANGE, ZRANGE, HKEYS...) of a decoding client."""
    return cast("list[str]", reply)


def maybe_text_list(reply: list[bytes | str | None]) -> list[str | None]:
    """A list reply with holes for missing keys or fields (MGET, HMGET) of a decoding client."""
    return cast("list[str | None]", reply)


def text_set(reply: set[bytes | str]) -> set[str]:
    """A set reply (SMEMBERS) of a decoding client."""
    return cast("set[str]", reply)


def text_hash(reply: dict[bytes | str, bytes | str]) -> dict[str, str]:
    """A hash reply (HGETALL) of a decoding client."""
    return cast("dict[str, str]", reply)


def hash_fields(fields: Mapping[str, EncodableT]) -> Mapping[FieldT, EncodableT]:
    """``fields`` as ``hset(mapping=...)`` is typed to take them: redis-py asks for a mapping keyed by any
    encodable type, and a mapping's key type is invariant, so a ``dict[str, ...]`` would be refused
    although ``hset`` only reads it."""
    return cast("Mapping[FieldT, EncodableT]", fields)


def members(reply: ZSetRangeResponse) -> list[str]:
    """A sorted set's members (ZRANGE and the like, without scores) from a decoding client."""
    return cast("list[str]", reply)


def scored_members(reply: ZSetRangeResponse) -> list[tuple[str, float]]:
    """A sorted set's (member, score) pairs (ZRANGE ... WITHSCORES) from a decoding client."""
    return cast("list[tuple[str, float]]", reply)


def stream_entries(reply: StreamRangeResponse | None) -> StreamEntries:
    """A stream's entries (XRANGE, XREVRANGE) from a decoding client: a list, empty when none match."""
    return cast(StreamEntries, reply)


def stream_reads(reply: XReadResponse) -> list[tuple[str, StreamEntries]]:
    """What XREAD brings from a decoding client: (stream, its new entries) for each stream with any,
    each pair a two-item list at run time; empty when the wait ended with nothing new."""
    return cast("list[tuple[str, StreamEntries]]", reply)


def group_reads(reply: XReadGroupResponse) -> list[tuple[str, GroupEntries]]:
    """What XREADGROUP brings from a decoding client, as ``stream_reads`` says of XREAD."""
    return cast("list[tuple[str, GroupEntries]]", reply)
