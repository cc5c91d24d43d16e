"""Command groups (``arena``, ``arena bots``, ``arena storage``): named alone, a group prints its
help on stdout and exits 0, as ``--help`` would, rather than failing for want of a command."""

from __future__ import annotations

import typer


def group(text: str) -> typer.Typer:
    """Returns a typer app for a command group with ``text`` as its help."""
    app = typer.Typer(help=text)
    app.callback(invoke_without_command=True)(help_when_bare)
    return app


def help_when_bare(ctx: typer.Context) -> None:
    """Prints the group's help and exits 0 when no command follows the group's name.

    Design detail: typer's ``no_args_is_help`` raises a usage error instead, which ``arena``'s one-line
    error handling would have to tell apart by a class typer does not export.
    """
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
        raise typer.Exit()
