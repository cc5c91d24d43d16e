"""How a command reaches the platform: its Redis (the URL from ``--redis``, ``--redis-url-file``, the
environment, or a private redis-server started here) or an ``arena server`` over HTTP, each failure a
``CliError`` with its one-line reason.

Design detail: a password never goes on the command line, which every user of the machine can read
(``ps``): ``--redis`` refuses one where ``--redis-url-file`` is offered, and a process that read the URL
from the environment removes it there, so no process it starts (a bot, a build) inherits it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

import redis

from arena.cli.errors import CliError
from arena.client import ServerClient, ServerError
from arena.console import say
from arena.queue.connection import ENV_URL, RedisSetupError, connect, resolve_url, retrying

T = TypeVar("T")

REDIS_SCHEMES = ("redis", "rediss", "unix")


def redis_url(option: str | None) -> str:
    """Returns the Redis URL to use (``--redis``, the environment, or a private server it starts)."""
    try:
        return resolve_url(option, say)
    except RedisSetupError as exc:
        raise CliError(str(exc)) from None


def on_redis(option: str | None, action: Callable[[redis.Redis], T]) -> T:
    """Returns ``action(client)`` on the configured Redis, retrying while it is unreachable."""
    url = redis_url(option)
    client = connect(url)
    return retrying(url, lambda: action(client), say)


def redis_url_from(file: Path | None, option: str | None = None) -> str:
    """Returns the Redis URL from ``file`` (else ``option``, else the environment or the private
    Redis); raises CliError for an unreadable file or a password given on the command line."""
    if option is not None and urlsplit(option).password:
        raise CliError(
            f"--redis holds a password, which every user of this machine can read: put the URL in "
            f"${ENV_URL} or a file given to --redis-url-file"
        )
    if file is None:
        return redis_url(option)
    try:
        url = file.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read --redis-url-file {file}: {exc}") from None
    if urlsplit(url).scheme not in REDIS_SCHEMES:
        raise CliError(f"--redis-url-file {file} does not hold a redis:// URL on its first line")
    return url


def forget_redis_url() -> None:
    """Removes the Redis URL from this process's environment once read, so no process it starts
    (a bot, a build) inherits the password."""
    os.environ.pop(ENV_URL, None)


def server(url: str) -> ServerClient:
    """Returns the client of the server at ``url``; a malformed URL is a CliError."""
    try:
        return ServerClient(url)
    except ServerError as exc:
        raise CliError(str(exc)) from None


def remote(url: str, action: Callable[[ServerClient], T]) -> T:
    """Returns ``action(client)`` for the server at ``url``; a refusal or an unreachable server is a
    CliError with the server's one-line reason."""
    try:
        return action(server(url))
    except ServerError as exc:
        raise CliError(str(exc)) from None


def organiser_token(path: Path | None) -> str:
    """Returns the organiser token read from ``path`` (``--organiser-token-file``), which a server
    asks for before it creates a tournament or a ladder; raises CliError without one."""
    if path is None:
        raise CliError(
            "creating a tournament on a server needs --organiser-token-file (the organiser's token)"
        )
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read --organiser-token-file {path}: {exc}") from None
