"""``arena storage replay|retention|sweep|migrate``: the replay store seen from the command line, and
the check of a replay file against the platform's record (``platform_check``, for ``arena replay``).

``app`` holds the commands; ``arena.cli.main`` adds it as ``storage``. Which store: ``$ARENA_REPLAY_STORE``
(a folder), else the Redis itself (``arena.storage.replays``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import redis
import typer

from arena.cli.connections import on_redis
from arena.cli.errors import CliError
from arena.cli.groups import group
from arena.cli.options import RedisOption
from arena.client import ServerClient, ServerError
from arena.console import printable, say
from arena.queue import keys, store
from arena.queue.connection import ENV_URL, connect, shown_url
from arena.storage import migrate, replays, retention

T = TypeVar("T")

app = group(
    "The replay store: fetch a replay, set how long replays are kept, sweep, migrate old replays, "
    "expand replays kept as their decisions."
)


def call(option: str | None, action: Callable[[redis.Redis], T]) -> T:
    """Returns ``action(client)`` on the configured Redis; a store error becomes a CliError."""
    try:
        return on_redis(option, action)
    except (replays.ReplayStoreError, ValueError) as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"the replay store failed: {exc}") from None


@app.command("replay")
def replay_command(
    match_id: Annotated[str, typer.Argument(help="The match's id (see 'arena results' or the web page).")],
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="Write the replay to this file.", show_default="stdout"),
    ] = None,
    redis_: RedisOption = None,
) -> None:
    """Fetch a recorded match's replay (JSON Lines) from the replay store; check it with 'arena replay'."""
    text = call(redis_, lambda client: store.replay_text(client, replays.check_match_id(match_id)))
    if text is None:
        raise CliError(f"no replay is stored for match {match_id!r}: never recorded, or past the retention")
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot write {output}: {exc.strerror}") from None
    typer.echo(f"wrote the replay of {match_id} to {output}", err=True)


@app.command("retention")
def retention_command(
    replay_days: Annotated[
        int | None,
        typer.Option(
            min=0,
            max=retention.MAX_LIMIT,
            help="Keep replays this many days; 0: no limit.",
            show_default="unchanged",
        ),
    ] = None,
    replays_per_bot: Annotated[
        int | None,
        typer.Option(
            min=0,
            max=retention.MAX_LIMIT,
            help="Keep a replay while it is among the last N matches of one of its bots; 0: no limit.",
            show_default="unchanged",
        ),
    ] = None,
    redis_: RedisOption = None,
) -> None:
    """Show what is kept, or set it (results are always kept); 'arena storage sweep' applies it now."""

    def apply(client: redis.Redis) -> str:
        if replay_days is not None or replays_per_bot is not None:
            old = retention.retention(client)
            days = old.replay_days if replay_days is None else replay_days
            per_bot = old.replays_per_bot if replays_per_bot is None else replays_per_bot
            retention.set_retention(client, retention.Retention(days, per_bot))
        return retention.describe(client)

    typer.echo(call(redis_, apply))


@app.command("sweep")
def sweep_command(redis_: RedisOption = None) -> None:
    """Delete the replays beyond the retention now, and settle replays left staged by dead workers."""
    typer.echo(call(redis_, retention.sweep).describe())


@app.command("migrate")
def migrate_command(redis_: RedisOption = None) -> None:
    """Move replays recorded before the replay store (plain text in Redis) into it; safe to rerun."""
    report = call(redis_, lambda client: migrate.migrate(client, lambda r: say(f"arena: {r.describe()}")))
    typer.echo(report.describe())


@app.command("expand")
def expand_command(redis_: RedisOption = None) -> None:
    """Rewrite the replays the store keeps as their decisions as whole replays: run it with the workers
    stopped, before upgrading to an arena whose rules for a game differ (its notes say so); safe to rerun."""

    def expand(client: redis.Redis) -> migrate.ExpandReport:
        retention.commit_recorded(client)  # a replay a dead worker staged but did not commit: expanded too
        return migrate.expand_stored(replays.store_for(client))

    report = call(redis_, expand)
    typer.echo(report.describe())
    if report.failed:
        raise typer.Exit(1)


def server_check(text: str, match_id: str, url: str) -> tuple[bool, str]:
    """Returns (whether it matches, a sentence) comparing a replay's text with the replay the arena
    server at ``url`` recorded for its match (what any participant can ask, no database needed)."""
    try:
        replays.check_match_id(match_id)
    except replays.ReplayStoreError as exc:
        return False, f"it names no match the platform could have recorded: {exc}"
    shown = printable(match_id)
    try:
        client = ServerClient(url)
        recorded = client.call("GET", f"/api/v1/matches/{match_id}/log")
    except ServerError as exc:
        if exc.status == 404:
            return False, f"the server at {url} has no record of match {shown}: it did not record it"
        raise CliError(str(exc)) from None
    if not isinstance(recorded, str):  # a job's status: queued, running or failed, never recorded
        status = recorded.get("status", "unknown") if isinstance(recorded, dict) else "unknown"
        return False, f"the server at {url} has not recorded match {shown} (its job is {status})"
    if replays.digest(recorded) != replays.digest(text):
        return False, f"differs from the server's record of match {shown}: it was edited"
    return True, f"matches the server's record of match {shown}"


def platform_check(text: str, match_id: str, option: str | None) -> tuple[bool, str] | None:
    """Returns (whether it matches, a sentence) comparing a replay's text with the platform's record of
    its match, or None when no Redis is named (``--redis``, ``$ARENA_REDIS_URL``): a local replay then
    has no platform to be checked against. Raises CliError when the named Redis cannot be read."""
    url = option or os.environ.get(ENV_URL)
    if not url:
        return None
    try:
        replays.check_match_id(match_id)
    except replays.ReplayStoreError as exc:
        return False, f"it names no match the platform could have recorded: {exc}"
    try:
        client = connect(url)
        recorded = store.recorded_digest(client, match_id)
        known = recorded is not None or bool(client.exists(keys.result(match_id)))
    except redis.RedisError as exc:
        raise CliError(f"cannot read the platform's record at {shown_url(url)}: {exc}") from None
    shown = printable(match_id)
    if not known:
        return False, f"the platform at {shown_url(url)} has no record of match {shown}: it did not record it"
    if recorded is None:
        return True, f"the platform's record of match {shown} keeps no digest: run 'arena storage migrate'"
    if recorded != replays.digest(text):
        return False, f"differs from the platform's record of match {shown}: it was edited"
    return True, f"matches the platform's record of match {shown}"
