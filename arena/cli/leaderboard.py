"""The ratings' commands: ``arena leaderboard GAME [--json] [--pairs] [--los]`` prints a game's fitted
ratings (with the win-probability or the likelihood-of-superiority table of every pair), ``arena results
GAME [--json | --format text|json|pgn|csv]`` streams its recorded placements (PGN and CSV for other
rating tools: ``arena.cli.exports``), ``arena web`` serves the read-only web
app of ``leaderboard/``, ``arena screenshots DIR`` starts that app, drives headless Chromium at it and
writes PNGs. ``app`` holds them; ``arena.cli.main`` adds it to its own app.

With ``--server URL`` (or ``$ARENA_SERVER``) ``leaderboard`` and ``results`` read that server's API
(``/api/v1/games/GAME/leaderboard``, ``/api/v1/games/GAME/results`` page by page) instead of a Redis,
and print what it answers with the same functions as this machine's record: one format, one place.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import quote

import redis
import typer

from arena.cli import exports
from arena.cli.connections import reading, redis_url, remote, server_only
from arena.cli.errors import CliError
from arena.cli.options import GameArgument, RedisOption, ServerOption
from arena.cli.serving import listening, port_of, serve
from arena.cli.tables import format_leaderboard
from arena.client import ServerClient
from arena.console import printable, say
from arena.games import GameError, get_game
from arena.queue import store
from arena.queue.connection import connect
from arena.storage import fits

RESULTS_PAGE = 500  # matches per page read from a server (the most a page of its API may ask for)

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
    los: Annotated[
        bool,
        typer.Option(
            "--los",
            help="Also print the likelihood of superiority of every bot over every other, from the fit "
            '(with --json, only it: {"bot": {"opponent": p}}, p the probability that bot is stronger).',
        ),
    ] = False,
    redis_: RedisOption = None,
    server_: ServerOption = None,
) -> None:
    """Print GAME's ratings fitted to all its recorded results: each bot's latest version, its 95%
    interval, games, provisional mark and likelihood of superiority over the next row."""
    name = _game(game)
    server_only(server_, redis_=redis_)
    if as_json and pairs and los:
        raise CliError("--json prints one table: give --pairs or --los, not both")
    view: dict[str, Any] | None
    if server_:
        path = f"/api/v1/games/{quote(name, safe='')}/leaderboard"
        view = remote(server_, lambda c: c.call("GET", path))
    else:
        url = redis_url(redis_)
        client = connect(url)
        view = reading(url, lambda: _board(client, name, los))
    assert view is not None  # every view has its board part
    if los and view.get("los") is None:
        raise CliError("the server's fit holds no LOS matrix yet (it will after its next refit): try later")
    if as_json:
        typer.echo(json.dumps(view["pairs"] if pairs else view["los"] if los else view["rows"], indent=2))
    else:
        typer.echo(format_leaderboard(name, view, pairs, los))


def _board(client: redis.Redis, game: str, los: bool) -> dict[str, Any] | None:
    """Returns the game's cached view; with ``los``, refitted if it was cached before views held the
    LOS matrix (it is refitted anyway at the next recorded match)."""
    source = fits.game_source(game)
    view = fits.view(client, source)
    if los and view is not None and "los" not in view:
        view = fits.refit(client, source)[fits.BOARD]
    return view


ResultsFormat = Literal["text", "json", "pgn", "csv"]


@app.command("results")
def results_command(
    game: GameArgument,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help='One JSON object per match and line: {"match_id", "players": [{"bot", "version", "rank"}]} '
            "(as --format json).",
        ),
    ] = False,
    format_: Annotated[
        ResultsFormat,
        typer.Option(
            "--format",
            help="text; json (as --json); pgn: one game per two-seat match, seat 0 White, seat 1 Black, "
            "players as the fit names them (bot@version), for BayesElo and Ordo (a game with a match of "
            "more seats is refused); csv: a row per match of any size, a column per seat's bot, version, "
            "rank and score (docs/ratings.md, 'Summaries and exports').",
        ),
    ] = "text",
    redis_: RedisOption = None,
    server_: ServerOption = None,
) -> None:
    """Print every recorded match of GAME, oldest first, with each seat's bot, version and rank: what
    the ratings are fitted to, so anyone can refit them. Streams: read page by page as it is printed,
    and it stops at once, quietly, when its reader does (arena results GAME --json | head)."""
    name = _game(game)
    server_only(server_, redis_=redis_)
    if as_json and format_ not in ("text", "json"):
        raise CliError(f"--json is --format json: give one of --json and --format {format_}")
    shape: ResultsFormat = "json" if as_json else format_

    found: Callable[[], Iterator[dict]]
    lookup: exports.Lookup = exports.no_details  # a server's results API has no seeds, dates, scores
    if server_:
        found = functools.partial(server_results, server_, name)
    else:
        client = connect(redis_url(redis_))
        found, lookup = functools.partial(store.iter_results, client, name), exports.redis_lookup(client)
    lines = _result_lines(name, shape, found, lookup)
    try:
        for line in lines:
            typer.echo(line, nl=False)
        sys.stdout.flush()
    except BrokenPipeError:
        _stop_quietly()
    except exports.MultiSeatError as exc:  # a match of more seats recorded while the PGN was printed
        raise CliError(str(exc)) from None


def _result_lines(
    game: str, shape: str, found: Callable[[], Iterator[dict]], lookup: exports.Lookup
) -> Iterator[str]:
    """Yields the lines of ``arena results`` in ``shape``, each ending with its newline; for PGN,
    first reads every match's seats and raises CliError at the first match that is not two-seat,
    before a line is printed."""
    if shape == "text":
        yield from (_result_line(m) + "\n" for m in found())
    elif shape == "json":
        yield from (json.dumps(m, separators=(",", ":")) + "\n" for m in found())
    elif shape == "pgn":
        try:
            for match in found():
                exports.check_two_seats(match)
        except exports.MultiSeatError as exc:
            raise CliError(str(exc)) from None
        for number, (match, details) in enumerate(exports.with_details(found(), lookup), 1):
            yield exports.pgn_game(game, number, match, details)
    else:
        seats = get_game(game).spec.max_players
        yield exports.csv_header(seats)
        for number, (match, details) in enumerate(exports.with_details(found(), lookup), 1):
            yield exports.csv_row(number, match, details, seats)


def server_results(url: str, game: str) -> Iterator[dict]:
    """Yields a game's recorded placements as the server at ``url`` answers them, oldest first, a page
    at a time (as ``store.iter_results`` yields them from Redis)."""
    path = f"/api/v1/games/{quote(game, safe='')}/results"
    after: str | None = None
    while True:
        page = remote(url, functools.partial(_results_page, path=path, after=after))
        yield from page["results"]
        after = page["next"]
        if after is None:
            return


def _results_page(client: ServerClient, path: str, after: str | None) -> Any:
    """Returns one page of results from the server (``after``: the previous page's ``next``)."""
    query = {"limit": str(RESULTS_PAGE)} | ({"after": after} if after is not None else {})
    return client.call("GET", path, query=query)


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
    from leaderboard.app import leaderboard_app as create_app

    sock = listening(host, port)
    url = redis_url(redis_)
    say(f"arena: leaderboard on http://{host}:{port_of(sock)}/ (Ctrl-C stops it)")
    serve(create_app(url), sock)


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
