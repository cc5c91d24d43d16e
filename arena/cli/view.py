"""``arena view``: the web replay viewer for replay files on this machine (any game of ``arena match``):
the list of every replay given (newest first: game, players, result), and each replay with its steps
in words, each seat's output beside the step it was written during and its think times charted
against the deadline. ``arena match ... --view`` opens the games it just played.

The page is the leaderboard's own, served by the web package's one app over the files given instead
of Redis (``leaderboard.app.view_app``, ``leaderboard.sources.FileSource``): the same viewer and the
same per-game drawings, so a local game looks exactly as a tournament's does. The bot output and
think times come from the match log beside each replay (``arena.referee.botlog``), attached to the
frames they belong to. This module is the command: which files, which address, the browser.
"""

from __future__ import annotations

import urllib.parse
import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.errors import CliError
from arena.cli.serving import listening, port_of
from arena.cli.serving import serve as serve_app

app = typer.Typer()


def replay_files(paths: list[Path]) -> dict[str, Path]:
    """Returns the replays to show by id (the file's name without .jsonl, made unique): each file
    given, and the replays in each folder given; raises CliError for a path that is neither."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(path.glob("*.jsonl")))
        elif path.is_file():
            found.append(path)
        else:
            raise CliError(f"{path}: no such replay file or folder")
    if not found:
        raise CliError(f"no replay (.jsonl) in {', '.join(map(str, paths))}: give files arena match wrote")
    files: dict[str, Path] = {}
    for path in found:
        name = path.name.removesuffix(".jsonl")
        key, number = name, 1
        while key in files:
            number += 1
            key = f"{name}~{number}"
        files[key] = path
    return files


def serve(files: dict[str, Path], host: str, port: int, open_browser: bool) -> None:
    """Serves the replay pages until Ctrl-C; prints the address first (and opens it when asked): the
    list of the replays, newest first, or the one replay when given one."""
    from leaderboard.app import view_app

    sock = listening(host, port)
    page = f"/matches/{urllib.parse.quote(next(iter(files)))}" if len(files) == 1 else "/matches"
    url = f"http://{host}:{port_of(sock)}{page}"
    typer.echo(f"arena: viewing {len(files)} replay{'s' if len(files) > 1 else ''} at {url} (Ctrl-C to stop)")
    if open_browser:
        webbrowser.open(url)
    serve_app(view_app(files), sock, lifespan="off")


@app.command("view")
def view_command(
    paths: Annotated[
        list[Path], typer.Argument(metavar="REPLAY...", help="Replay files, or folders of them.")
    ],
    host: Annotated[
        str, typer.Option(help="Address to serve on (loopback: only this machine).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to serve on; 0: a free one.")] = 0,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Only print the address; do not open a browser.")
    ] = False,
) -> None:
    """Serve the web replay viewer for local replay files, with the bots' output beside each step and
    their think times against the deadline."""
    serve(replay_files(paths), host, port, not no_browser)
