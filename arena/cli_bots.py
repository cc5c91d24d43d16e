"""``arena bots submit|list|show|remove``: the bots a tournament can enter besides the built-in ones.

``app`` holds them; ``arena.cli`` adds it as ``bots``. A bad submission raises ``CliError``: one line,
exit 2.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import redis
import typer

from arena.cli_common import CliError, JsonOption, RedisOption, on_redis
from arena.console import printable
from arena.queue import submissions
from arena.queue.submissions import Submission, SubmissionError

T = TypeVar("T")

SecretOption = Annotated[
    str | None,
    typer.Option(
        envvar="ARENA_BOT_SECRET",
        show_default="none, a new bot gets one",
        help="The owner secret printed when the bot was submitted.",
    ),
]


app = typer.Typer(help="Submit, list, show and remove bots that tournaments can enter.", no_args_is_help=True)


def call(option: str | None, action: Callable[[redis.Redis], T]) -> T:
    """Returns ``action(client)`` on the configured Redis; a submission error becomes a CliError."""
    try:
        return on_redis(option, action)
    except SubmissionError as exc:
        raise CliError(str(exc)) from None


@app.command("submit")
def submit_command(
    name: Annotated[str, typer.Argument(help="The bot's name: lowercase letters, digits, - and _.")],
    games: Annotated[str, typer.Option(help="Comma-separated games it plays, e.g. ninjan.")],
    dir_: Annotated[
        Path | None,
        typer.Option(
            "--dir",
            show_default="none",
            help="Folder holding the bot, packed and stored; or --builtin.",
        ),
    ] = None,
    entry: Annotated[
        str | None,
        typer.Option(
            show_default="none, needed with --dir",
            help="Command starting the bot inside --dir, e.g. 'python bot.py' or './bot' (no shell). Checked "
            "before storing: the program or script it names is in --dir, a program with its execute bit.",
        ),
    ] = None,
    builtin: Annotated[
        str | None,
        typer.Option(show_default="none", help="Submit a built-in bot under NAME; or --dir."),
    ] = None,
    secret: SecretOption = None,
    as_json: JsonOption = False,
    redis_: RedisOption = None,
) -> None:
    """Submit a bot (a folder with an entry command, or a built-in bot), or a new version of one."""
    game_list = [g.strip() for g in games.split(",") if g.strip()]
    submission, new_secret = call(
        redis_,
        lambda c: submissions.submit(
            c, name, game_list, directory=dir_, entry=entry, builtin=builtin, secret=secret
        ),
    )
    if as_json:
        typer.echo(json.dumps({**submission.to_json(), "secret": new_secret}))
        return
    typer.echo(f"{'submitted' if new_secret else 'updated'} {describe(submission)}")
    if new_secret:
        typer.echo(
            f"owner secret (shown only now; needed to update or remove {printable(name)}): {new_secret}"
        )


@app.command("list")
def list_command(
    game: Annotated[
        str | None, typer.Option(show_default="every game", help="Only bots that play this game.")
    ] = None,
    as_json: JsonOption = False,
    redis_: RedisOption = None,
) -> None:
    """List the submitted bots."""
    found = call(redis_, lambda c: submissions.list_all(c, game))
    if as_json:
        typer.echo(json.dumps([s.to_json() for s in found], indent=2))
    else:
        typer.echo(format_list(found))


@app.command("show")
def show_command(
    name: Annotated[str, typer.Argument(help="A submitted bot's name.")],
    as_json: JsonOption = False,
    redis_: RedisOption = None,
) -> None:
    """Show one submitted bot: games, kind, version, entry command, sizes, every version."""
    found = call(redis_, lambda c: submissions.load(c, name))
    if found is None:
        raise CliError(f"no submitted bot {name!r}: see 'arena bots list'")
    typer.echo(json.dumps(found.to_json(), indent=2) if as_json else format_show(found))


@app.command("remove")
def remove_command(
    name: Annotated[str, typer.Argument(help="A submitted bot's name.")],
    secret: SecretOption = None,
    redis_: RedisOption = None,
) -> None:
    """Remove a submitted bot (needs its owner secret); its results stay on the leaderboard."""
    if secret is None:
        raise CliError(f"removing {name} needs its owner secret: pass --secret")
    gone = call(redis_, lambda c: submissions.remove(c, name, secret))
    typer.echo(f"removed {printable(name)} ({gone} stored versions deleted)")


def _size(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB" if n < 2**20 else f"{n / 2**20:.1f} MiB"


def _when(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp, datetime.UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def _what(s: Submission) -> str:
    """Returns what the bot runs, escaped by ``printable`` (the entry command is the submitter's text)."""
    if s.kind == submissions.BUILTIN:
        return f"built-in {printable(s.builtin)}"
    files = f"{s.files} file" + ("" if s.files == 1 else "s")
    return f"{files}, {_size(s.packed_bytes)} packed, entry: {printable(' '.join(s.entry))}"


def _names(values: list[str] | tuple[str, ...], separator: str = ", ") -> str:
    return printable(separator.join(values))


def describe(s: Submission) -> str:
    """Returns one line naming the bot, its version, games and what it runs (escaped by ``printable``)."""
    return f"{printable(s.name)} version {printable(s.version)} (plays {_names(s.games)}; {_what(s)})"


def format_list(found: list[Submission]) -> str:
    """Returns the ``arena bots list`` table (stored text escaped by ``printable``)."""
    if not found:
        return "no submitted bots yet: see 'arena bots submit --help'"
    lines = [f"  {'bot':<20} {'version':<20} {'games':<24} {'updated':<20}  runs"]
    for s in found:
        lines.append(
            f"  {printable(s.name):<20} {printable(s.version):<20} {_names(s.games, ','):<24} "
            f"{_when(s.updated):<20}  {_what(s)}"
        )
    return "\n".join(lines)


def format_show(s: Submission) -> str:
    """Returns the ``arena bots show`` text (stored text escaped by ``printable``)."""
    return "\n".join(
        [
            f"bot:      {printable(s.name)}",
            f"games:    {_names(s.games)}",
            f"version:  {printable(s.version)}",
            f"runs:     {_what(s)}",
            f"created:  {_when(s.created)}",
            f"updated:  {_when(s.updated)}",
            f"versions: {_names(s.versions)}",
        ]
    )
