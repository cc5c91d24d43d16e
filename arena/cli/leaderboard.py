"""The ratings' commands: ``arena leaderboard GAME [--json] [--pairs]`` prints a game's fitted ratings,
``arena results GAME [--json]`` streams its recorded placements, ``arena web`` serves the read-only web
app of ``leaderboard/``, ``arena screenshots DIR`` starts that app, drives headless Chromium at it and
writes PNGs. ``app`` holds them; ``arena.cli.main`` adds it to its own app.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.connections import redis_url
from arena.cli.errors import CliError
from arena.cli.options import GameArgument, RedisOption
from arena.cli.tables import format_leaderboard
from arena.console import printable, say
from arena.games import GameError, get_game
from arena.queue import store
from arena.queue.connection import connect, retrying
from arena.storage import fits

app = typer.Typer()


def _game(game: str) -> str:
    """Returns the registered name of a game; raises CliError for an unknown one."""
    try:
        return get_game(game).spec.name
    except GameError as exc:
        raise CliError(str(exc)) from None


@app.command("leaderboard")
def leaderboard_command(
    game: GameArgument,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the rows as one JSON array (with --pairs: the win table).")
    ] = False,
    pairs: Annotated[
        bool,
        typer.Option(
            "--pairs",
            help="Also print the pairwise table: each bot's expected score against each other "
            '(with --json, only it: {"bot": {"opponent": p}}).',
        ),
    ] = False,
    redis_: RedisOption = None,
) -> None:
    """Print GAME's ratings fitted to all its recorded results: each bot's latest version, its 95%
    interval, games, provisional mark and likelihood of superiority over the next row."""
    name = _game(game)
    url = redis_url(redis_)
    client = connect(url)
    view = retrying(url, lambda: fits.view(client, fits.game_source(name)), say)
    assert view is not None  # every view has its board part
    if as_json:
        typer.echo(json.dumps(view["pairs"] if pairs else view["rows"], indent=2))
    else:
        typer.echo(format_leaderboard(name, view, pairs))


@app.command("results")
def results_command(
    game: GameArgument,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help='One JSON object per match and line: {"match_id", "players": [{"bot", "version", "rank"}]}.',
        ),
    ] = False,
    redis_: RedisOption = None,
) -> None:
    """Print every recorded match of GAME, oldest first, with each seat's bot, version and rank: what
    the ratings are fitted to, so anyone can refit them. Streams: read page by page as it is printed,
    and it stops at once, quietly, when its reader does (arena results GAME --json | head)."""
    name = _game(game)
    client = connect(redis_url(redis_))
    try:
        for match in store.iter_results(client, name):
            typer.echo(json.dumps(match, separators=(",", ":")) if as_json else _result_line(match))
        sys.stdout.flush()
    except BrokenPipeError:
        _stop_quietly()


def _result_line(match: dict) -> str:
    """Returns one recorded match as ``arena results`` prints it without --json."""
    seats = ", ".join(
        f"#{p['rank']} {printable(p['bot'])}" + (f" ({printable(p['version'])})" if p["version"] else "")
        for p in match["players"]
    )
    return f"{printable(match['match_id'])}: {seats}"


def _stop_quietly() -> None:
    """Ends the command when its reader went away (``arena results --json | head``): no traceback,
    no further page read, exit status 0.

    Design detail: stdout is pointed at /dev/null first, because Python flushes it once more on exit
    and would report the same broken pipe there (the recipe of the ``signal`` module's docs)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    raise typer.Exit(0)


@app.command("web")
def web_command(
    redis_: RedisOption = None,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on.")] = 8000,
) -> None:
    """Serve the leaderboard web page (ratings, history, matches, replays) until stopped."""
    import uvicorn

    from leaderboard.app import leaderboard_app as create_app

    url = redis_url(redis_)
    say(f"arena: leaderboard on http://{host}:{port}/ (Ctrl-C stops it)")
    uvicorn.run(create_app(url), host=host, port=port, log_level="warning")


@app.command("screenshots")
def screenshots_command(
    folder: Annotated[Path, typer.Argument(help="Folder for the PNG files (created if missing).")],
    redis_: RedisOption = None,
) -> None:
    """Write PNGs of every game's leaderboard and one replay per game, taken in headless Chromium."""
    from leaderboard import browser, data
    from leaderboard.app import leaderboard_app as create_app

    url = redis_url(redis_)
    client = connect(url)
    newest = {}
    for game in data.game_names():
        found = data.matches(client, game, None, limit=1).items
        if found:
            newest[game] = found[0]["match_id"]
    if not newest:
        raise CliError("no recorded matches yet: run 'arena tournament' first")
    try:
        with browser.serving(create_app(url, client)) as base:
            written = browser.screenshots(base, folder, newest)
    except RuntimeError as exc:
        raise CliError(str(exc)) from None
    for path in written:
        typer.echo(str(path))
