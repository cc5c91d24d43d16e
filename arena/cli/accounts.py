"""``arena account create|show|list|approve|disable``: a participant's account on an ``arena server``.

A participant runs ``arena account create NAME --server URL`` once and keeps the token it prints (shown
only then) in ``$ARENA_ACCOUNT_TOKEN`` or a file named by ``--account-token-file`` (never the command
line, which every user of the machine can read); ``arena bots submit|show|remove`` and ``arena logs``
then act for that account. ``arena account show`` prints one's account, its bots and its quotas. The
organiser lists, approves and disables accounts with the organiser token's file
(``--organiser-token-file``), as ``arena ladder`` starts ladders. Accounts live on a server only
(``arena.submissions.accounts``): on this machine's own Redis every bot is this user's.
"""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

import typer

from arena.cli.connections import ENV_ACCOUNT_TOKEN, account_token, command, organiser_token, remote
from arena.cli.errors import CliError
from arena.cli.groups import group
from arena.cli.options import AccountTokenFileOption, JsonOption, OrganiserTokenOption, ServerOption
from arena.client import ENV_SERVER
from arena.console import printable

app = group("Create and show your account on a server; the organiser approves and disables accounts.")

NameArgument = Annotated[str, typer.Argument(help="The account's name: lowercase letters, digits, - and _.")]


def needs_server(url: str | None) -> str:
    """Returns the server's URL; raises CliError without one (accounts are a server's)."""
    if not url:
        raise CliError(f"accounts live on an arena server: give --server URL (or set ${ENV_SERVER})")
    return url


def organiser(path: Path | None, url: str, what: str) -> str:
    """Returns the organiser token read from ``path``; raises CliError without a file."""
    if path is None:
        example = command("account", what, "...", "--organiser-token-file", "FILE", server=url)
        raise CliError(f"{what} needs the organiser token: {example}")
    return organiser_token(path)


def _when(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp, datetime.UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def format_account(account: dict[str, Any]) -> str:
    """Returns an account's lines (name, state, times; its bots and quotas when the answer has them)."""
    lines = [
        f"account:  {printable(str(account['name']))}",
        f"state:    {printable(str(account['state']))}",
        f"created:  {_when(float(account.get('created') or 0))}",
    ]
    if "bots" in account:
        lines.append(f"bots:     {printable(', '.join(account['bots'])) or '(none yet)'}")
    for quota, label in (
        ("bots_per_game", "bots per game"),
        ("submissions_per_hour", "submissions in the last hour"),
        ("uploads", "uploads in flight"),
        ("series", "regression series at a time"),
    ):
        if quota in account:
            limit, used = account[quota]["limit"], account[quota]["used"]
            if isinstance(used, dict):
                used = ", ".join(f"{printable(g)} {n}" for g, n in sorted(used.items())) or "0"
            elif isinstance(used, list):
                used = str(len(used)) + (f" ({printable(', '.join(used))})" if used else "")
            lines.append(f"quota:    {label}: {used} of {limit or 'no limit'}")
    return "\n".join(lines)


def new_token_file(path: Path) -> int:
    """Returns a descriptor of ``path``, made now, readable and writable by this user only; raises
    CliError when it exists (a token file is never overwritten) or cannot be made."""
    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise CliError(
            f"--token-file {path} exists: name a new file (an account token is never overwritten)"
        ) from None
    except OSError as exc:
        raise CliError(f"cannot make --token-file {path}: {exc}") from None


@app.command("create")
def create_command(
    name: NameArgument,
    token_file: Annotated[
        Path | None,
        typer.Option(
            "--token-file",
            show_default="none: the token is printed",
            help="A new file to write the token to (readable by you only), instead of printing it; then "
            "point $ARENA_ACCOUNT_TOKEN_FILE or --account-token-file at it.",
        ),
    ] = None,
    as_json: JsonOption = False,
    server_: ServerOption = None,
) -> None:
    """Create your account on a server; its token is shown once (keep it in $ARENA_ACCOUNT_TOKEN or a
    file, or let --token-file write it)."""
    url = needs_server(server_)
    descriptor = new_token_file(token_file) if token_file is not None else None
    try:
        answer = remote(url, lambda c: c.call("POST", f"/api/v1/accounts/{quote(name, safe='')}"))
    except BaseException:
        if descriptor is not None and token_file is not None:
            os.close(descriptor)
            token_file.unlink(missing_ok=True)  # an empty file would only be in the way of the next try
        raise
    if descriptor is not None:
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            out.write(answer.pop("token") + "\n")
    if as_json:
        typer.echo(json.dumps(answer))
        return
    account = answer["account"]
    typer.echo(f"created account {printable(account['name'])} ({printable(account['state'])})")
    if token_file is not None:
        typer.echo(
            f"account token (only now) written to {printable(str(token_file))}, readable by you only: "
            f"point ${ENV_ACCOUNT_TOKEN}_FILE or --account-token-file at it"
        )
    else:
        typer.echo(
            f"account token (shown only now; put it in ${ENV_ACCOUNT_TOKEN} or a file for "
            f"--account-token-file, never on a command line): {answer['token']}"
        )
    if account["state"] == "pending":
        typer.echo(
            f"it can submit bots once the organiser approves it: see {command('account', 'show', server=url)}"
        )


@app.command("show")
def show_command(
    as_json: JsonOption = False,
    server_: ServerOption = None,
    account_token_file: AccountTokenFileOption = None,
) -> None:
    """Show your account (its token in $ARENA_ACCOUNT_TOKEN or --account-token-file): state, bots, quotas."""
    url = needs_server(server_)
    token = account_token(account_token_file)
    if token is None:
        raise CliError(
            f"put your account token in ${ENV_ACCOUNT_TOKEN} or a file given to --account-token-file"
        )
    answer = remote(url, lambda c: c.call("GET", "/api/v1/account", token=token))
    typer.echo(json.dumps(answer, indent=2) if as_json else format_account(answer))


@app.command("list")
def list_command(
    as_json: JsonOption = False,
    server_: ServerOption = None,
    organiser_token_file: OrganiserTokenOption = None,
) -> None:
    """List the server's accounts and their states (the organiser)."""
    url = needs_server(server_)
    token = organiser(organiser_token_file, url, "list")
    answer = remote(url, lambda c: c.call("GET", "/api/v1/accounts", token=token))
    if as_json:
        typer.echo(json.dumps(answer["accounts"], indent=2))
        return
    if not answer["accounts"]:
        typer.echo(f"no accounts on {url} yet")
    for account in answer["accounts"]:
        created = _when(float(account.get("created") or 0))
        typer.echo(f"  {printable(account['name']):<24} {printable(account['state']):<9} created {created}")


def change(name: str, action: str, url: str | None, token_file: Path | None, as_json: bool) -> None:
    """Runs ``POST /api/v1/accounts/NAME/ACTION`` with the organiser token; prints the account."""
    server_url = needs_server(url)
    token = organiser(token_file, server_url, action)
    path = f"/api/v1/accounts/{quote(name, safe='')}/{action}"
    missing = f"no account {name!r} on {server_url}: see {command('account', 'list', server=server_url)}"
    answer = remote(server_url, lambda c: c.call("POST", path, token=token), missing)
    if as_json:
        typer.echo(json.dumps(answer))
        return
    bots = printable(", ".join(answer.get("bots") or [])) or "none"
    typer.echo(f"account {printable(answer['name'])} is {printable(answer['state'])} (its bots: {bots})")
    if answer["state"] == "disabled":
        typer.echo("its bots leave every ladder and new tournament from now on; their results stay")


@app.command("approve")
def approve_command(
    name: NameArgument,
    as_json: JsonOption = False,
    server_: ServerOption = None,
    organiser_token_file: OrganiserTokenOption = None,
) -> None:
    """Approve a pending account, or enable a disabled one, so it may submit (the organiser)."""
    change(name, "approve", server_, organiser_token_file, as_json)


@app.command("disable")
def disable_command(
    name: Annotated[str, typer.Argument(help="The account's name (a bot submitted without one: bot:NAME).")],
    as_json: JsonOption = False,
    server_: ServerOption = None,
    organiser_token_file: OrganiserTokenOption = None,
) -> None:
    """Disable an account: it submits nothing, its bots leave every schedule (the organiser)."""
    change(name, "disable", server_, organiser_token_file, as_json)
