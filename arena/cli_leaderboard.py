"""The ``arena leaderboard`` commands: print a game's table, serve the web page, take screenshots.

``arena leaderboard GAME [--json]`` prints the table exactly as before; ``arena leaderboard serve``
runs the read-only web app of ``leaderboard/``; ``arena leaderboard screenshot DIR`` starts that app,
drives headless Chromium at it and writes PNGs. They are registered on the app of ``arena.cli`` by
``register``, like ``arena.cli_tournament``'s commands.

Design detail: ``leaderboard`` is a group whose first word is either a subcommand or a game name.
``GameOrCommand`` routes anything that is not a subcommand (a game, or an option such as ``--json``
given before the game) to the hidden ``show`` command, whose context takes the group's place
(``ShowCommand``), so the old spelling keeps working unchanged, help and errors included, and
``serve``/``screenshot`` need no separate top-level names.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
import typer.core

from arena.cli_tournament import RedisOption, _rows, format_leaderboard
from arena.console import say
from arena.games import GameError, get_game
from arena.queue.connection import RedisSetupError, connect, resolve_url

SHOW = "show"
HELP_FLAGS = ("--help", "-h")


class GameOrCommand(typer.core.TyperGroup):
    """A group that treats an unknown first word as the GAME of its hidden ``show`` command."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in HELP_FLAGS:
            args = [SHOW, *args]
        return super().parse_args(ctx, args)


class ShowCommand(typer.core.TyperCommand):
    """The GAME form of ``arena leaderboard``: its context is named ``leaderboard`` and hangs off the
    root, so usage lines and error hints read ``arena leaderboard ...`` as before the group existed."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        if parent is not None:
            info_name, parent = parent.info_name, parent.parent
        return super().make_context(info_name, args, parent=parent, **extra)


def register(app: typer.Typer, cli_error: type[Exception]) -> None:
    """Adds ``arena leaderboard`` (GAME, serve, screenshot) to ``app``; bad input raises ``cli_error``."""
    group = typer.Typer(
        cls=GameOrCommand,
        no_args_is_help=True,
        add_completion=False,
        help=(
            "Print GAME's Elo leaderboard (arena leaderboard GAME [--json]), serve the leaderboard "
            "web page (serve), or write screenshots of it (screenshot DIR)."
        ),
    )
    app.add_typer(group, name="leaderboard")

    def redis_url(option: str | None) -> str:
        try:
            return resolve_url(option, say)
        except RedisSetupError as exc:
            raise cli_error(str(exc)) from None

    @group.command(SHOW, hidden=True, cls=ShowCommand)
    def show_command(
        game: Annotated[str, typer.Argument(help="Game name: see 'arena games'.")],
        as_json: Annotated[bool, typer.Option("--json", help="Print the rows as one JSON array.")] = False,
        resamples: Annotated[int, typer.Option(min=10, help="Bootstrap resamples for the interval.")] = 200,
        redis_: RedisOption = None,
    ) -> None:
        """Print GAME's Elo leaderboard from the recorded results."""
        try:
            name = get_game(game).spec.name
        except GameError as exc:
            raise cli_error(str(exc)) from None
        url = redis_url(redis_)
        rows = _rows(connect(url), url, name, resamples)
        if as_json:
            typer.echo(json.dumps([row.to_json() for row in rows], indent=2))
        else:
            typer.echo(format_leaderboard(name, rows))

    @group.command("serve")
    def serve_command(
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

    @group.command("screenshot")
    def screenshot_command(
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
            raise cli_error("no recorded matches yet: run 'arena tournament' first")
        try:
            with browser.serving(create_app(url, client)) as base:
                written = browser.screenshots(base, folder, newest)
        except RuntimeError as exc:
            raise cli_error(str(exc)) from None
        for path in written:
            typer.echo(str(path))
