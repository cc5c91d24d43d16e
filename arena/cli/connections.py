"""How a command reaches the platform: its Redis (the URL from ``--redis``, ``--redis-url-file``, the
environment, or a private redis-server started here) or an ``arena server`` over HTTP, each failure a
``CliError`` with its one-line reason.

A read command given ``--server URL`` (or ``$ARENA_SERVER``) reads that server's API through
``remote`` and prints what it answers with the same functions that print this machine's record; it
never starts or reads a Redis of its own (``server_only``).

Design detail: a password never goes on the command line, which every user of the machine can read
(``ps``): ``--redis`` refuses one where ``--redis-url-file`` is offered, and a process that read the URL
from the environment removes it there, so no process it starts (a bot, a build) inherits it.
"""

from __future__ import annotations

import os
import shlex
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
ENV_BOT_SECRET = "ARENA_BOT_SECRET"  # a bot's owner secret (``arena bots``, ``arena logs --server``)
ENV_ACCOUNT_TOKEN = "ARENA_ACCOUNT_TOKEN"  # an account's token (``arena account``, ``bots``, ``logs``)
ENV_ACCOUNT_TOKEN_FILE = "ARENA_ACCOUNT_TOKEN_FILE"  # ... or the file holding it (--account-token-file)


def refuse_password(option: str | None) -> None:
    """Raises CliError when the ``--redis`` URL ``option`` holds a password: ``ps`` shows it to all."""
    if option is not None and urlsplit(option).password:
        raise CliError(
            f"--redis holds a password, which every user of this machine can read: put the URL in "
            f"${ENV_URL} or a file given to --redis-url-file"
        )


def redis_url(option: str | None) -> str:
    """Returns the Redis URL to use (``--redis``, the environment, or a private server it starts);
    raises CliError for a password given on the command line (every command's ``--redis`` comes here)."""
    refuse_password(option)
    try:
        return resolve_url(option, say)
    except RedisSetupError as exc:
        raise CliError(str(exc)) from None


def on_redis(option: str | None, action: Callable[[redis.Redis], T]) -> T:
    """Returns ``action(client)`` on the configured Redis, retrying while it is unreachable."""
    url = redis_url(option)
    client = connect(url)
    return retrying(url, lambda: action(client), say)


READ_ATTEMPTS = 5  # tries of a command that only reads (waits of 0.5, 1, 2 and 4 s between them)


def reading(url: str, action: Callable[[], T]) -> T:
    """Returns ``action()`` for a command that only reads Redis: it retries for a few seconds while
    Redis is unreachable, saying so, then gives up (the error is one line, ``arena.cli.main``), where a
    worker or a tournament that writes waits for ever."""
    return retrying(url, action, say, attempts=READ_ATTEMPTS)


def redis_url_from(file: Path | None, option: str | None = None) -> str:
    """Returns the Redis URL from ``file`` (else ``option``, else the environment or the private
    Redis); raises CliError for an unreadable file or a password given on the command line."""
    refuse_password(option)
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


def remote(url: str, action: Callable[[ServerClient], T], missing: str | None = None) -> T:
    """Returns ``action(client)`` for the server at ``url``; a refusal or an unreachable server is a
    CliError with the server's one-line reason (a 404 with ``missing`` instead, when given: the
    server names API paths, the command line names the command to run)."""
    try:
        return action(server(url))
    except ServerError as exc:
        if exc.status == 404 and missing is not None:
            raise CliError(missing) from None
        raise CliError(str(exc)) from None


def command(*words: str, server: str | None = None) -> str:
    """Returns the command line ``arena WORDS [--server URL]`` in quotes, each word quoted as a shell
    takes it: a hint names a command that runs as printed (with a server, its URL is in it)."""
    return "'" + shlex.join(["arena", *words, *(["--server", server] if server else [])]) + "'"


def server_only(server_url: str | None, **local: object) -> None:
    """Raises CliError when ``--server`` is given with an option of this machine's record (``local``:
    the option's name, ``redis_`` for ``--redis``, and its value): a command reads one place only."""
    given = [name for name, value in local.items() if value]
    if server_url and given:
        option = "--" + given[0].rstrip("_").replace("_", "-")
        raise CliError(f"--server reads the server's record only: leave out {option} (or --server)")


def given_owner_secret(file: Path | None) -> str | None:
    """Returns a bot's owner secret, from the file given to ``--secret-file`` or else
    ``$ARENA_BOT_SECRET`` (never the command line, which every user of the machine can read), None
    without either; raises CliError for an unreadable or empty file."""
    if file is None:
        return os.environ.get(ENV_BOT_SECRET, "").strip() or None
    try:
        found = file.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read --secret-file {file}: {exc}") from None
    if not found:
        raise CliError(f"--secret-file {file} is empty: it holds the bot's owner secret")
    return found


def owner_secret(file: Path | None) -> str:
    """Returns a bot's owner secret (``given_owner_secret``); raises CliError without one."""
    found = given_owner_secret(file)
    if found is None:
        raise CliError(
            f"a bot's output is its owner's: put the owner secret printed when the bot was submitted "
            f"in ${ENV_BOT_SECRET} or in a file given to --secret-file"
        )
    return found


def refuse_secret(value: str | None) -> None:
    """Raises CliError for an owner secret given as ``--secret`` (``ps`` shows it to every user)."""
    if value is not None:
        raise CliError(
            f"--secret puts the owner secret where every user of this machine can read it: put it in "
            f"${ENV_BOT_SECRET} or in a file given to --secret-file"
        )


def account_token(file: Path | None) -> str | None:
    """Returns the account token from the file given to ``--account-token-file`` (or named by
    ``$ARENA_ACCOUNT_TOKEN_FILE``), else ``$ARENA_ACCOUNT_TOKEN``, None without either (never from the
    command line, which every user of the machine can read); raises CliError for an unreadable or
    empty file."""
    if file is not None:
        try:
            found = file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise CliError(f"cannot read --account-token-file {file}: {exc}") from None
        if not found:
            raise CliError(
                f"--account-token-file {file} is empty: it holds the token 'arena account create' printed"
            )
        return found
    return os.environ.get(ENV_ACCOUNT_TOKEN, "").strip() or None


def bot_credential(secret_file: Path | None, account_file: Path | None) -> str:
    """Returns the credential that reads one's own bot's output: the owner secret in ``--secret-file``,
    else the account token (``account_token``), else ``$ARENA_BOT_SECRET``; raises CliError without
    any."""
    if secret_file is not None:
        return owner_secret(secret_file)
    token = account_token(account_file)
    if token is not None:
        return token
    if not os.environ.get(ENV_BOT_SECRET, "").strip():
        raise CliError(
            f"a bot's output is its owner's: put your account token in ${ENV_ACCOUNT_TOKEN} (or a file "
            f"given to --account-token-file), or a bot's owner secret in ${ENV_BOT_SECRET} (or a file "
            "given to --secret-file)"
        )
    return owner_secret(None)


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
