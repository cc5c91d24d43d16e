"""How ``arena`` fails: ``CliError`` for bad input, and the one line every error is printed as.

Every error ends the same way, whatever raised it: one line ``arena: error: ...`` on stderr, no
traceback, exit status 2 for bad input. A usage error found by typer's parser (an unknown option, a
missing argument, a value out of range) also names the help to read.
"""

from __future__ import annotations

import sys

import typer

EXIT_USAGE = 2  # bad input: click's and typer's status for a usage error, and CliError's


class CliError(Exception):
    """A mistake in the command line or its input: printed as one line, exit code 2."""


def report(error: CliError | typer.TyperException) -> int:
    """Prints ``error`` as one line on stderr; returns the exit status it calls for."""
    if isinstance(error, CliError):
        line, status = str(error), EXIT_USAGE
    else:
        line, status = error.format_message() + _help_hint(error), error.exit_code
    print(f"arena: error: {line}", file=sys.stderr)
    return status


def _help_hint(error: typer.TyperException) -> str:
    """Returns `` (see 'arena CMD --help')`` for a usage error (exit status 2), else nothing.

    Design detail: typer exports no usage-error class (its click is vendored and private), so a usage
    error is told by its documented exit status, and its command by the public ``ctx`` it carries.
    """
    if error.exit_code != EXIT_USAGE:
        return ""
    context = getattr(error, "ctx", None)
    return f" (see '{context.command_path if context is not None else 'arena'} --help')"
