"""``arena server``: the authenticated web service participants and organisers talk to.

It serves the web package (``leaderboard``: the JSON API and the pages) on one port. Its credentials never go
on the command line, which every user of the machine can read (``ps``): the Redis URL (password
included) comes from ``$ARENA_REDIS_URL`` or ``--redis-url-file``, the organiser token from
``--organiser-token-file``. Workers take their Redis URL the same way
(``arena.cli.connections.redis_url_from``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.connections import forget_redis_url, redis_url_from
from arena.cli.errors import CliError
from arena.cli.options import RedisUrlFileOption
from arena.cli.serving import listening, port_of, serve
from arena.cli.workers import check_seed_key
from arena.console import say
from arena.malloc import few_arenas, trim_every
from arena.queue.connection import shown_url
from arena.submissions.accounts import Quotas
from arena.submissions.archives import ArchiveLimits

MiB = 2**20

app = typer.Typer()


@app.command("server")
def server_command(
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0: every interface).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on.")] = 8080,
    organiser_token_file: Annotated[
        Path | None,
        typer.Option(
            envvar="ARENA_ORGANISER_TOKEN_FILE",
            show_default="none: no tournament can be created through the server",
            help="File holding the organiser token (make one with 'openssl rand -hex 32'); only its "
            "scrypt hash is kept.",
        ),
    ] = None,
    redis_url_file: RedisUrlFileOption = None,
    max_upload_mb: Annotated[
        int, typer.Option(min=1, max=1024, help="Largest bot upload (packed), MiB; at most the workers' 10.")
    ] = 10,
    max_unpacked_mb: Annotated[
        int, typer.Option(min=1, max=16384, help="Largest bot once unpacked, MiB; at most the workers' 100.")
    ] = 100,
    max_files: Annotated[
        int, typer.Option(min=1, max=1_000_000, help="Most files and folders in a bot; at most 10,000.")
    ] = 10_000,
    writes_per_minute: Annotated[
        float, typer.Option(min=0.01, help="Writes (submit, remove, create) per client address per minute.")
    ] = 30.0,
    write_burst: Annotated[int, typer.Option(min=1, help="Writes a client address may make at once.")] = 10,
    upload_seconds: Annotated[
        float, typer.Option(min=0.1, help="Seconds a request body may take to arrive whole (then 408).")
    ] = 60.0,
    max_uploads: Annotated[
        int, typer.Option(min=1, max=1000, help="Uploads read at once; past it, 503 with Retry-After.")
    ] = 8,
    auth_failures_per_minute: Annotated[
        float,
        typer.Option(
            min=0.01,
            help="Failed authentications (wrong secret or token) per minute, per client address and "
            "per bot name or organiser token; past the burst, 429 with Retry-After and no hash.",
        ),
    ] = 10.0,
    auth_failure_burst: Annotated[
        int, typer.Option(min=1, help="Failed authentications an address, or a bot name, may have at once.")
    ] = 10,
    secret_checks: Annotated[
        int,
        typer.Option(
            min=1, max=64, help="Secrets hashed (scrypt) at once; past it, 503 with Retry-After at once."
        ),
    ] = 2,
    approve_accounts: Annotated[
        bool,
        typer.Option(
            "--approve-accounts",
            help="A new account is pending, and submits nothing, until the organiser runs 'arena account "
            "approve NAME'; implies --require-accounts.",
        ),
    ] = False,
    require_accounts: Annotated[
        bool,
        typer.Option(
            "--require-accounts",
            help="New bots only from an account's token; without it a new bot may also come without "
            "one, as its own account bot:NAME with an owner secret.",
        ),
    ] = False,
    accounts_per_hour: Annotated[
        int, typer.Option(min=1, help="Accounts one client address may create an hour (all at once too).")
    ] = 5,
    bots_per_game: Annotated[
        int, typer.Option(min=0, help="Quota: an account's bots playing one game (0: no limit).")
    ] = 3,
    submissions_per_hour: Annotated[
        int,
        typer.Option(
            min=0,
            help="Quota: an account's stored submissions (new bots and versions) in the "
            "last hour (0: no limit).",
        ),
    ] = 20,
    uploads_per_account: Annotated[
        int, typer.Option(min=0, help="Quota: an account's uploads read at once (0: no limit).")
    ] = 2,
    series_per_account: Annotated[
        int,
        typer.Option(
            min=0, help="Quota: an account's regression series waiting or running at once (0: no limit)."
        ),
    ] = 2,
) -> None:
    """Serve the platform's API (accounts, bots, tournaments, results) and its leaderboard, until stopped."""
    from leaderboard.api.auth import OrganiserToken
    from leaderboard.app import ServerConfig, server_app

    few_arenas()  # before any thread: bounded C heap for a server that runs for weeks (arena.malloc)
    trim_every()  # and what a burst freed goes back to the system (arena.malloc)
    try:
        organiser = OrganiserToken.from_file(organiser_token_file)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    check_seed_key()
    url = redis_url_from(redis_url_file)
    forget_redis_url()
    try:
        config = ServerConfig(
            archive_limits=ArchiveLimits(max_upload_mb * MiB, max_unpacked_mb * MiB, max_files),
            body_seconds=upload_seconds,
            uploads=max_uploads,
            writes_per_minute=writes_per_minute,
            write_burst=write_burst,
            auth_failures_per_minute=auth_failures_per_minute,
            auth_failure_burst=auth_failure_burst,
            secret_checks=secret_checks,
            organiser=organiser,
            approve_accounts=approve_accounts,
            require_accounts=require_accounts,
            accounts_per_hour=accounts_per_hour,
            quotas=Quotas(bots_per_game, submissions_per_hour, uploads_per_account, series_per_account),
        )
    except ValueError as exc:
        raise CliError(str(exc)) from None
    takes = "takes tournaments" if organiser.stored else "takes no tournaments (no --organiser-token-file)"
    if config.accounts_only:
        takes += "; new bots from accounts only" + (", approved by the organiser" if approve_accounts else "")
    sock = listening(host, port)
    say(f"arena: server on http://{host}:{port_of(sock)}/ over {shown_url(url)}; {takes} (Ctrl-C stops it)")
    # proxy_headers off: a client address is the TCP peer, never a header a client can write
    serve(server_app(url, config, warm=True), sock, proxy_headers=False)
