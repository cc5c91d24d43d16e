"""Which Redis to use: ``--redis``, else ``ARENA_REDIS_URL``, else one on localhost:6379, else a
private ``redis-server`` that arena starts itself.

The private server listens only on a Unix socket in ``$XDG_STATE_HOME/arena/redis`` (no TCP port to
collide with), keeps its data there with the append-only file on (``appendonly yes``, ``appendfsync
everysec``: results and ratings survive a restart of Redis too), and keeps running after the command
that started it, so later commands (``arena leaderboard``) find the same data. A later command reuses it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import redis

from arena.paths import state_dir

ENV_URL = "ARENA_REDIS_URL"
LOCAL_HOST, LOCAL_PORT = "127.0.0.1", 6379
INSTALL_HINT = "install one with: sudo apt-get install redis-server (or set ARENA_REDIS_URL / --redis)"


class RedisSetupError(Exception):
    """No Redis is configured or reachable, and none could be started."""


def _listening(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.3):
            return True
    except OSError:
        return False


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
    if _listening(LOCAL_HOST, LOCAL_PORT):
        return f"redis://{LOCAL_HOST}:{LOCAL_PORT}/0"
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
        f"arena: no Redis configured ({ENV_URL} unset, nothing on {LOCAL_HOST}:{LOCAL_PORT}): started a "
        f"private redis-server with its data in {folder}; it keeps running "
        f"(stop it with: redis-cli -s {folder / 'redis.sock'} shutdown)"
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
