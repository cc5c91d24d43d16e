"""``arena replay FILE``: re-run a recorded game, print it, check that it reproduces byte for byte
and, given the platform's Redis, that it is the replay the platform recorded (its digest)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli import storage as cli_storage
from arena.cli.errors import CliError
from arena.cli.options import no_password
from arena.cli.series import format_game, play_by_play
from arena.games import GameError, get_game
from arena.referee.replay import ReplayError, first_difference, read_lines, reproduce
from arena.referee.runner import GameResult

app = typer.Typer()


@app.command("replay")
def replay_command(
    file: Annotated[Path, typer.Argument(help="A replay file (.jsonl) written by arena match.")],
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="Only verify; print no play-by-play.")] = False,
    redis_: Annotated[
        str | None,
        typer.Option(
            "--redis",
            callback=no_password,
            is_eager=True,
            help="Redis URL of the platform that recorded the match: the file's digest is checked against "
            "its record [default: $ARENA_REDIS_URL; neither: not checked].",
        ),
    ] = None,
    server: Annotated[
        str | None,
        typer.Option(
            "--server",
            help="URL of the arena server that recorded the match: the file is checked against the "
            "replay it serves (exit 1 if it has no record of the match or the file was edited).",
            show_default="none: not checked",
        ),
    ] = None,
) -> None:
    """Re-run a replay, print the game, verify that it reproduces exactly and, given the platform's
    Redis or its server, that it is the replay the platform recorded (exit 1 if it was edited or the
    platform has no record of it)."""
    try:
        lines = read_lines(file)
        game = get_game(lines[0].get("game", ""))
        on_step = None if quiet else play_by_play(game)
        if on_step is not None:
            on_step.begin([p["bot"] for p in lines[0].get("players", []) if isinstance(p, dict)])
        reproduction = reproduce(lines, on_step)
    except (ReplayError, GameError) as exc:
        raise CliError(str(exc)) from None
    recorded = file.read_text(encoding="utf-8")
    difference = first_difference(recorded, reproduction.text)
    record = reproduction.record
    typer.echo(format_game(GameResult(record, None, [])))
    if difference:
        typer.echo(f"arena: replay {file} does NOT reproduce: {difference}", err=True)
        raise typer.Exit(1)
    match_id = str(lines[0].get("match_id", ""))
    if server is not None:
        verdict: tuple[bool, str] | None = cli_storage.server_check(recorded, match_id, server)
    else:
        verdict = cli_storage.platform_check(recorded, match_id, redis_)
    if verdict is not None and not verdict[0]:
        typer.echo(f"arena: replay {file} reproduces, but {verdict[1]}", err=True)
        raise typer.Exit(1)
    checked = f"; {verdict[1]}" if verdict else ""
    typer.echo(f"replay verified: {reproduction.steps} decision steps reproduce byte for byte{checked}")
