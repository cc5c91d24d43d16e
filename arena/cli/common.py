"""What every ``arena`` command module shares: the one-line error, the Redis option and how it
resolves, and the options that several commands take alike.

The command modules (``arena.cli``, ``arena.cli.tournament``, ``arena.cli.leaderboard``,
``arena.cli.bots``) each hold a module-level typer app; ``arena.cli`` adds the others to its own. They
raise ``CliError`` for bad input, which ``arena.cli.main`` prints as one line with exit code 2.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import redis
import typer

from arena import seeds
from arena.console import say
from arena.queue.connection import RedisSetupError, connect, resolve_url, retrying
from arena.referee.processes import DEFAULT_LIMITS, BotLimits
from arena.referee.sandbox import SandboxError
from arena.referee.sandbox_check import check_sandbox

T = TypeVar("T")


class CliError(Exception):
    """A mistake in the command line or its input: printed as one line, exit code 2."""


RedisOption = Annotated[
    str | None,
    typer.Option(
        "--redis",
        help="Redis URL [default: $ARENA_REDIS_URL, else a private redis-server that arena starts in "
        "$XDG_STATE_HOME/arena/redis; a Redis on localhost:6379 is used only when named].",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
NoSandboxOption = Annotated[
    bool,
    typer.Option(
        "--no-sandbox",
        help="Run bots unconfined, with this user's files, network and processes: trusted bots only.",
    ),
]


def writable_folder(path: Path, option: str) -> Path:
    """Returns ``path``, created if missing; raises CliError naming ``option`` unless it is a folder
    this user can write in (checked before any game is played, so no game's replay is lost)."""
    if path.exists() and not path.is_dir():
        raise CliError(f"{option} {path} is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"{option} {path}: cannot create the folder: {exc.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise CliError(f"{option} {path}: this user cannot write in it")
    return path


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


def check_seed_key() -> None:
    """Reads the platform's seed key now when a file is named for it (``ARENA_SEED_KEY_FILE``), so a
    server or worker that cannot read it says so at start, not at its first tournament."""
    if os.environ.get(seeds.KEY_FILE_VARIABLE) or os.environ.get(seeds.KEY_VARIABLE):
        try:
            seeds.platform_key()
        except ValueError as exc:
            raise CliError(str(exc)) from None


def worker_limits(no_sandbox: bool, announce: bool = True) -> BotLimits:
    """Returns the workers' bot limits after checking the sandbox can start here (else a CliError
    saying why and what to do); ``announce``: says how bots will run (a worker's first line)."""
    limits = dataclasses.replace(DEFAULT_LIMITS, sandbox=not no_sandbox)
    if limits.sandbox:
        try:
            check_sandbox(limits)
        except SandboxError as exc:
            raise CliError(str(exc)) from None
    if announce:
        say(limits.describe())
    return limits
