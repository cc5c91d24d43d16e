"""The ratings' commands: ``arena leaderboard GAME [--json]`` prints a game's table, ``arena web``
serves the read-only web app of ``leaderboard/``, ``arena screenshots DIR`` starts that app, drives
headless Chromium at it and writes PNGs. ``app`` holds them; ``arena.cli`` adds it to its own app.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from arena.cli_common import CliError, RedisOption, redis_url
from arena.cli_tournament import format_leaderboard, leaderboard_rows
from arena.console import say
from arena.games import GameError, get_game
from arena.queue.connection import connect

app = typer.Typer()


@app.command("leaderboard")
def leaderboard_command(
    game: Annotated[str, typer.Argument(help="Game name: see 'arena games'.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as one JSON array.")] = False,
    resamples: Annotated[int, typer.Option(min=10, help="Bootstrap resamples for the interval.")] = 200,
    redis_: RedisOption = None,
) -> None:
    """Print GAME's Elo leaderboard from the recorded results."""
    try:
        name = get_game(game).spec.name
    except GameError as exc:
        raise CliError(str(exc)) from None
    url = redis_url(redis_)
    rows = leaderboard_rows(connect(url), url, name, resamples)
    if as_json:
        typer.echo(json.dumps([row.to_json() for row in rows], indent=2))
    else:
        typer.echo(format_leaderboard(name, rows))


@app.command("web")
def web_command(
    redis_: RedisOption = None,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on.")] = 8000,
) -> None:
    """Serve the leaderboard web page (ratings, history, matches, replays) until stopped."""
    import uvicorn

    from leaderboard.app import create_app

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
    from leaderboard.app import create_app

    url = redis_url(redis_)
    client = connect(url)
    newest = {}
    for game in data.game_names():
        found = data.matches(client, game, None, limit=1)
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
