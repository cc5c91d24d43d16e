"""``arena bots submit|list|show|remove``: the bots a tournament can enter besides the built-in ones.

``app`` holds them; ``arena.cli.main`` adds it as ``bots``. A bad submission raises ``CliError``: one line,
exit 2.

With ``--server URL`` (or ``$ARENA_SERVER``) every command talks to that ``arena server`` only, through
``arena.client``: the folder is packed here and uploaded, and the server checks the credential (your account
token, from ``$ARENA_ACCOUNT_TOKEN`` or ``--account-token-file``, or a bot's owner secret), the account's
quotas, the archive and the entry before it stores anything; the version a submission prints is the one it
stored (on a server, the candidate that plays its smoke match first). Without it they work on the private
Redis of this machine, as a single-machine platform, and ``submit`` says in one line that the bot stays there
(``LOCAL_NOTICE``). Every hint names a command that runs as printed: with a server, its URL is in it.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar
from urllib.parse import quote

import redis
import typer

from arena.cli.builtin import builtin_command
from arena.cli.connections import (
    ENV_ACCOUNT_TOKEN,
    ENV_BOT_SECRET,
    account_token,
    command,
    given_owner_secret,
    on_redis,
    refuse_secret,
    remote,
)
from arena.cli.errors import CliError
from arena.cli.groups import group
from arena.cli.options import AccountTokenFileOption, JsonOption, RedisOption, ServerOption
from arena.client import ENV_SERVER
from arena.console import printable, say
from arena.schedule import regression
from arena.submissions import registry, smoke
from arena.submissions.registry import Submission, SubmissionError

T = TypeVar("T")

SecretFileOption = Annotated[
    Path | None,
    typer.Option(
        "--secret-file",
        envvar="ARENA_BOT_SECRET_FILE",
        show_default=f"${ENV_BOT_SECRET}, else none: a new bot gets one (or belongs to your account)",
        help="A file holding the owner secret printed when the bot was submitted without an account "
        f"(a bot of your account takes your account token instead: ${ENV_ACCOUNT_TOKEN} or "
        "--account-token-file).",
    ),
]
# The owner secret was once an option: it is refused with the way to give it (``refuse_secret``).
RefusedSecretOption = Annotated[str | None, typer.Option("--secret", hidden=True)]

LOCAL_NOTICE = (
    "arena: {name} stays on this machine, for its own tournaments and ladders; to enter a competition, "
    f"run the same command with --server and the competition's URL (or with ${ENV_SERVER} set)"
)

app = group("Submit, list, show and remove bots that tournaments can enter.")
app.command("builtin")(builtin_command)  # the built-in bots' ladder (arena.cli.builtin)


def from_json(value: dict[str, Any]) -> Submission:
    """Returns a submission as the server sent it (lists back to tuples, unknown fields ignored)."""
    names = {f.name for f in dataclasses.fields(Submission)}
    fields: dict[str, Any] = {
        k: tuple(v) if isinstance(v, list) else v for k, v in value.items() if k in names
    }
    return Submission(**fields)


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
    build: Annotated[
        str | None,
        typer.Option(
            show_default="none",
            help="Command run once per version in the sandbox (no network, a time limit) to build the "
            "bot, e.g. 'go build -o bot .'.",
        ),
    ] = None,
    builtin: Annotated[
        str | None,
        typer.Option(show_default="none", help="Submit a built-in bot under NAME; or --dir."),
    ] = None,
    secret_file: SecretFileOption = None,
    secret_given: RefusedSecretOption = None,
    test_against: Annotated[
        str | None,
        typer.Option(
            show_default="none",
            help="'previous': play the bot's active version, paired games until an SPRT decides whether "
            "this version is a regression; the verdict shows in 'arena bots show' and on the bot's page. "
            "A newer version cancels the test.",
        ),
    ] = None,
    sprt: Annotated[
        str | None,
        typer.Option(
            show_default=regression.DEFAULT_TEXT,
            help="The regression test's hypotheses (logistic Elo of this version over the previous one, "
            f"at least {regression.MIN_WIDTH:g} apart), error rates (at least {regression.MIN_ERROR:g}) and "
            f"budget (at most {regression.MAX_GAMES_LIMIT} games). A test that reaches its budget decides "
            "there, by the LLR's side of the bounds' middle; a budget too short to tell the hypotheses "
            "apart is refused. The default calls an unchanged version a regression in about "
            f"{regression.false_alarm(regression.Request()):.0%} of tests (docs/ratings.md).",
        ),
    ] = None,
    as_json: JsonOption = False,
    server_: ServerOption = None,
    redis_: RedisOption = None,
    account_token_file: AccountTokenFileOption = None,
) -> None:
    """Submit a bot (a folder with an entry command, or a built-in bot), or a new version of one. On a
    server, with your account token ($ARENA_ACCOUNT_TOKEN or --account-token-file) the bot is your
    account's."""
    refuse_secret(secret_given)
    secret = given_owner_secret(secret_file)
    game_list = [g.strip() for g in games.split(",") if g.strip()]
    try:
        wanted = regression.parse_request(test_against, sprt)
    except SubmissionError as exc:
        raise CliError(str(exc)) from None
    if server_:
        tested = {"test_against": test_against, "sprt": sprt} if wanted else {}
        token = secret or account_token(account_token_file)
        answer = submit_remote(server_, name, game_list, dir_, entry, build, builtin, token, tested)
        submission, new_secret, smoke_state = (
            from_json(answer["bot"]),
            answer.get("secret"),
            answer["bot"].get("smoke"),
        )
        series = answer["bot"].get("regression")
        created = bool(answer.get("registered", new_secret))
        account = str(answer.get("account") or "")
    else:
        submission, new_secret = call(
            redis_,
            lambda c: regression.submit_tested(
                c, name, wanted, lambda: submit_local(c, name, game_list, dir_, entry, build, builtin, secret)
            ),
        )
        smoke_state = None
        series = wanted and call(redis_, lambda c: regression.status(c, submission.version))
        created, account = new_secret is not None, ""
    if not server_:
        say(LOCAL_NOTICE.format(name=printable(name)))
    if as_json:
        extra = {"secret": new_secret, "smoke": smoke_state, "regression": series}
        typer.echo(json.dumps({**submission.to_json(), **extra}))
        return
    typer.echo(f"{'submitted' if created else 'updated'} {describe(submission)}")
    if created and account and not new_secret:
        typer.echo(f"it is account {printable(account)}'s: your account token updates and removes it")
    if submission.candidate:
        typer.echo(
            f"it plays a smoke match against random first, and becomes the version tournaments use if it "
            f"passes: see {command('bots', 'show', name, server=server_)}"
        )
    if new_secret:
        typer.echo(
            f"owner secret (shown only now; needed to update or remove {printable(name)}): {new_secret}"
        )
    if smoke_state is not None:
        typer.echo("\n".join(format_smoke(smoke_state)))
    if series:
        typer.echo("\n".join(regression.format_lines(series)))


def submit_local(
    client: redis.Redis,
    name: str,
    games: list[str],
    dir_: Path | None,
    entry: str | None,
    build: str | None,
    builtin: str | None,
    secret: str | None,
) -> tuple[Submission, str | None]:
    """Stores the bot in this machine's Redis; returns it and its new secret (None on update)."""
    return registry.submit(
        client, name, games, directory=dir_, entry=entry, build=build, builtin=builtin, secret=secret
    )


def submit_remote(
    url: str,
    name: str,
    games: list[str],
    dir_: Path | None,
    entry: str | None,
    build: str | None,
    builtin: str | None,
    secret: str | None,
    tested: dict[str, str | None] | None = None,
) -> dict:
    """Packs the folder here and uploads it to the server; returns the server's answer."""
    query = {"games": ",".join(games)} | {k: v for k, v in (tested or {}).items() if v is not None}
    body = None
    if (dir_ is None) == (builtin is None):
        raise CliError("give either --dir (with --entry) or --builtin")
    if builtin is not None:
        query["builtin"] = builtin
    else:
        if not entry:
            raise CliError("--dir needs --entry, the command that starts the bot, e.g. 'python bot.py'")
        try:
            body = registry.pack(dir_).archive  # type: ignore[arg-type]
        except SubmissionError as exc:
            raise CliError(str(exc)) from None
        query["entry"] = entry
        if build:
            query["build"] = build
    path = f"/api/v1/bots/{quote(name, safe='')}"
    return remote(
        url,
        lambda c: c.call("POST", path, query=query, body=body, content_type="application/gzip", token=secret),
    )


@app.command("list")
def list_command(
    game: Annotated[
        str | None, typer.Option(show_default="every game", help="Only bots that play this game.")
    ] = None,
    as_json: JsonOption = False,
    server_: ServerOption = None,
    redis_: RedisOption = None,
) -> None:
    """List the submitted bots."""
    if server_:
        query = {"game": game} if game else None
        answer = remote(server_, lambda c: c.call("GET", "/api/v1/bots", query=query))
        found = [from_json(b) for b in answer["bots"]]
    else:
        found = call(redis_, lambda c: registry.list_all(c, game))
    if as_json:
        typer.echo(json.dumps([s.to_json() for s in found], indent=2))
    else:
        typer.echo(format_list(found, server_))


@app.command("show")
def show_command(
    name: Annotated[str, typer.Argument(help="A submitted bot's name.")],
    as_json: JsonOption = False,
    secret_file: SecretFileOption = None,
    secret_given: RefusedSecretOption = None,
    server_: ServerOption = None,
    redis_: RedisOption = None,
    account_token_file: AccountTokenFileOption = None,
) -> None:
    """Show one submitted bot: games, kind, version, entry command, sizes, every version, smoke match
    (with --server, its log's tail only to its owner: the account token, or the bot's owner secret)."""
    refuse_secret(secret_given)
    secret = given_owner_secret(secret_file)
    found: Submission | None
    if server_:
        path = f"/api/v1/bots/{quote(name, safe='')}"
        missing = f"no submitted bot {name!r} on {server_}: see {command('bots', 'list', server=server_)}"
        token = secret or account_token(account_token_file)
        answer = remote(server_, lambda c: c.call("GET", path, token=token), missing)
        found, smoke_state, series = from_json(answer), answer.get("smoke"), answer.get("regression")
    else:
        loaded, smoke_state = call(redis_, lambda c: load_with_smoke(c, name))
        found = loaded
        series = loaded and call(
            redis_, lambda c: regression.for_bot(c, loaded.candidate, loaded.version, loaded.name)
        )
    if found is None:
        raise CliError(f"no submitted bot {name!r}: see {command('bots', 'list')}")
    if as_json:
        typer.echo(json.dumps({**found.to_json(), "smoke": smoke_state, "regression": series}, indent=2))
        return
    typer.echo(format_show(found))
    if smoke_state is not None:
        typer.echo("\n".join(format_smoke(smoke_state)))
    if series:
        typer.echo("\n".join(regression.format_lines(series)))


@app.command("remove")
def remove_command(
    name: Annotated[str, typer.Argument(help="A submitted bot's name.")],
    secret_file: SecretFileOption = None,
    secret_given: RefusedSecretOption = None,
    server_: ServerOption = None,
    redis_: RedisOption = None,
    account_token_file: AccountTokenFileOption = None,
) -> None:
    """Remove a submitted bot (needs its account's token, or its owner secret); its results stay on the
    leaderboard."""
    refuse_secret(secret_given)
    secret = given_owner_secret(secret_file)
    if server_:
        token = secret or account_token(account_token_file)
        if token is None:
            raise CliError(
                f"removing {name} needs your account token (${ENV_ACCOUNT_TOKEN} or --account-token-file) "
                f"or, for a bot submitted without an account, its owner secret (${ENV_BOT_SECRET})"
            )
        path = f"/api/v1/bots/{quote(name, safe='')}"
        missing = f"no submitted bot {name!r} on {server_}: see {command('bots', 'list', server=server_)}"
        gone = remote(server_, lambda c: c.call("DELETE", path, token=token), missing)["versions_deleted"]
    else:
        if secret is None:
            raise CliError(
                f"removing {name} needs its owner secret: set ${ENV_BOT_SECRET} (or give --secret-file)"
            )
        gone = call(redis_, lambda c: registry.remove(c, name, secret))
    versions = "1 stored version" if gone == 1 else f"{gone} stored versions"
    typer.echo(f"removed {printable(name)} ({versions} deleted)")


def load_with_smoke(client: redis.Redis, name: str) -> tuple[Submission | None, dict | None]:
    """Returns the bot and the smoke match of its newest version (None when none was played)."""
    found = registry.load(client, name)
    if found is None:
        return None, None
    return found, smoke.status(client, found.candidate or found.version) or None


def format_smoke(state: dict) -> list[str]:
    """Returns the lines saying how a version's smoke match went (``smoke.status``; text escaped)."""
    lines = [f"smoke:    {printable(str(state.get('status', '?')))} (a match against random in the sandbox)"]
    if state.get("reason"):
        lines.append(f"reason:   {printable(str(state['reason']))}")
    tail = state.get("log") or ""
    if state.get("log_hidden"):  # a server shows a bot's output to its owner alone
        hidden = printable(str(state["log_hidden"]))
        lines.append(
            f"log tail: hidden ({hidden}: set ${ENV_ACCOUNT_TOKEN}, or ${ENV_BOT_SECRET}, "
            "or give --secret-file)"
        )
    if tail:
        lines.append("log tail:")
        lines += [f"  {printable(line)}" for line in str(tail).splitlines()]
    return lines


def _size(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB" if n < 2**20 else f"{n / 2**20:.1f} MiB"


def _when(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp, datetime.UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def _what(s: Submission) -> str:
    """Returns what the bot runs, escaped by ``printable`` (the entry command is the submitter's text)."""
    if s.kind == registry.BUILTIN:
        return f"built-in {printable(s.builtin)}"
    files = f"{s.files} file" + ("" if s.files == 1 else "s")
    return f"{files}, {_size(s.packed_bytes)} packed, entry: {printable(' '.join(s.entry))}"


def _names(values: list[str] | tuple[str, ...], separator: str = ", ") -> str:
    return printable(separator.join(values))


def describe(s: Submission) -> str:
    """Returns one line naming the bot, its newest version (the candidate, while one waits for its
    smoke match), games and what it runs (escaped by ``printable``)."""
    newest = s.candidate or s.version
    return f"{printable(s.name)} version {printable(newest)} (plays {_names(s.games)}; {_what(s)})"


def format_list(found: list[Submission], server: str | None = None) -> str:
    """Returns the ``arena bots list`` table (stored text escaped by ``printable``)."""
    if not found:
        where = f" on {server}" if server else ""
        return f"no submitted bots{where} yet: see {command('bots', 'submit', '--help')}"
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
            f"version:  {printable(s.version) or '(none active yet)'}",
            *(
                [f"candidate: {printable(s.candidate)} (active once its smoke match passes)"]
                if s.candidate
                else []
            ),
            f"runs:     {_what(s)}",
            f"created:  {_when(s.created)}",
            f"updated:  {_when(s.updated)}",
            f"versions: {_names(s.versions)}",
        ]
    )
