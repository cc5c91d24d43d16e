"""The ``arena`` command line: the app that gathers every command module's commands, ``--version``,
``arena games``, and ``main``, the console script, which turns every error into one line.

A module per command group holds a module-level typer app: ``arena.cli.match`` (``arena match``),
``replay``, ``tournament`` (tournaments, workers), ``logs``, ``view``, ``ladder``, ``leaderboard``
(the table, results, the web page, screenshots), ``bots`` (``arena bots ...``), ``accounts``
(``arena account ...``), ``server`` and
``storage`` (``arena storage ...``). The options several of them take are ``arena.cli.options``.
"""

from __future__ import annotations

import sys
from typing import Annotated

import redis
import typer

import arena
from arena.cli import accounts as cli_accounts
from arena.cli import bots as cli_bots
from arena.cli import collusion as cli_collusion
from arena.cli import ladder as cli_ladder
from arena.cli import leaderboard as cli_leaderboard
from arena.cli import logs as cli_logs
from arena.cli import match as cli_match
from arena.cli import replay as cli_replay
from arena.cli import server as cli_server
from arena.cli import storage as cli_storage
from arena.cli import tournament as cli_tournament
from arena.cli import view as cli_view
from arena.cli.errors import CliError, report
from arena.cli.groups import help_when_bare
from arena.games import GAMES

EXIT_INTERRUPTED = 130

# Design detail: no rich markup in help texts. Rich reads "[default: ...]" in a help text as a markup
# tag and drops it ("Redis URL ."); plain click help keeps every text as written, and wraps it in the
# terminal's width rather than a narrow column.
app = typer.Typer(
    name="arena",
    help="An AI tournament platform: bots play tabletop games through a gRPC referee.",
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def show_version(value: bool) -> None:
    """Prints arena's version (the one replays record) and exits, for ``--version``."""
    if value:
        typer.echo(f"arena {arena.__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=show_version, is_eager=True, help="Print arena's version and exit."
        ),
    ] = False,
) -> None:
    """An AI tournament platform: bots play tabletop games through a gRPC referee."""
    help_when_bare(ctx)


@app.command("games")
def games_command() -> None:
    """List the games and their player counts."""
    for name in sorted(GAMES):
        spec = GAMES[name].spec
        aliases = f" (also: {', '.join(spec.aliases)})" if spec.aliases else ""
        typer.echo(f"{name:<14} {spec.min_players}-{spec.max_players} players  {spec.title}{aliases}")


app.add_typer(cli_match.app)
app.add_typer(cli_replay.app)
app.add_typer(cli_tournament.app)
app.add_typer(cli_logs.app)
app.add_typer(cli_view.app)
app.add_typer(cli_ladder.app)
app.add_typer(cli_leaderboard.app)
app.add_typer(cli_bots.app, name="bots")
app.add_typer(cli_accounts.app, name="account")
app.add_typer(cli_server.app)
app.add_typer(cli_storage.app, name="storage")
app.add_typer(cli_collusion.app)


def main() -> None:
    """Entry point of the ``arena`` console script: every error is one line on stderr, with exit
    status 2 for bad input and 130 for Ctrl-C, never a traceback."""
    try:
        code = app(standalone_mode=False, prog_name="arena")
    except (CliError, typer.TyperException) as exc:
        sys.exit(report(exc))
    except (redis.ConnectionError, redis.TimeoutError) as exc:  # a command that reads Redis once
        reason = str(exc).rstrip(".")
        sys.exit(report(CliError(f"Redis is unreachable ({reason}): start it, or name one with --redis URL")))
    except (typer.Abort, KeyboardInterrupt):
        print("arena: interrupted", file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)
    sys.exit(code if isinstance(code, int) else 0)
