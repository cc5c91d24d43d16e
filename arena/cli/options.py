"""The options and arguments that several ``arena`` commands take alike, and the bot limits of
``arena match`` as one option group.

Every command module imports a shared option from here only, so one option reads the same (name,
default, help) in every command that takes it. An option that one command takes stays in its module.

An option group is a frozen dataclass whose fields are typer options (``BotLimitOptions``): a command
takes it as one parameter and ``takes_option_groups`` turns that parameter into the fields' options,
in their order, and their values back into the dataclass. So ``--help`` lists the options exactly as if
the command declared each itself, and the command gets one value it can pass on.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from arena.cli.connections import refuse_password
from arena.client import ENV_SERVER
from arena.queue.connection import ENV_URL
from arena.queue.worker import DEFAULT_IDLE_TIMEOUT
from arena.referee.processes import DEFAULT_LIMITS, BotLimits

R = TypeVar("R")

# -- what many commands take ------------------------------------------------------------------------

GameArgument = Annotated[str, typer.Argument(help="Game name: see 'arena games'.")]


def no_password(url: str | None) -> str | None:
    """Returns ``--redis``'s URL; refuses one holding a password before the command runs at all."""
    refuse_password(url)
    return url


RedisOption = Annotated[
    str | None,
    typer.Option(
        "--redis",
        callback=no_password,
        is_eager=True,  # before any other argument is checked: the refusal is the first thing said
        help="Redis URL [default: $ARENA_REDIS_URL, else a private redis-server that arena starts in "
        "$XDG_STATE_HOME/arena/redis; a Redis on localhost:6379 is used only when named].",
    ),
]
RedisUrlFileOption = Annotated[
    Path | None,
    typer.Option(
        "--redis-url-file",
        envvar="ARENA_REDIS_URL_FILE",
        show_default=f"${ENV_URL}, else this machine's private Redis",
        help="File holding the Redis URL, password included (readable by this user only), so the "
        "password is never on the command line.",
    ),
]
ServerOption = Annotated[
    str | None,
    typer.Option(
        "--server",
        envvar=ENV_SERVER,
        show_default="none: this machine's Redis",
        help="URL of an 'arena server' to talk to instead of Redis, e.g. http://arena.example:8080.",
    ),
]
OrganiserTokenOption = Annotated[
    Path | None,
    typer.Option(
        envvar="ARENA_ORGANISER_TOKEN_FILE",
        show_default="none",
        help="With --server: file holding the organiser token the server was started with.",
    ),
]
AccountTokenFileOption = Annotated[
    Path | None,
    typer.Option(
        "--account-token-file",
        envvar="ARENA_ACCOUNT_TOKEN_FILE",
        show_default="$ARENA_ACCOUNT_TOKEN",
        help="With --server: file holding your account token ('arena account create' printed it); never "
        "the token itself on the command line.",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
NoSandboxOption = Annotated[
    bool,
    typer.Option(
        "--no-sandbox",
        help="Run bots unconfined, with this user's files, network and processes: trusted bots only.",
    ),
]

# -- what tournaments and ladders take alike ---------------------------------------------------------

PlayersOption = Annotated[int, typer.Option(min=2, help="Bots per match.")]
DeadlineOption = Annotated[int, typer.Option(min=1, help="Time allowed per decision, in ms.")]
IDLE_DEFAULT = DEFAULT_IDLE_TIMEOUT.total_seconds()
IdleOption = Annotated[
    float,
    typer.Option(
        min=0.1, max=86400.0, help="Seconds a job may stay unacknowledged before another worker reruns it."
    ),
]

# -- the bot limits of arena match -------------------------------------------------------------------

# The largest bot limits accepted: past what the kernel takes (RLIMIT_* are C longs, NOFILE stops at
# fs.nr_open's ceiling, NPROC at pid_max's) a bot could not even start.
TIB_IN_MIB, YEAR_SECONDS, MAX_OPEN_FILES, MAX_PROCESSES, MAX_CPUS = 2**20, 366 * 86400, 2**20, 2**22, 1024


@dataclasses.dataclass(frozen=True)
class BotLimitOptions:
    """``arena match``'s ``--bot-*`` and ``--no-sandbox`` options (0: no limit), as one value.

    Design detail: a limit the user turns off is 0 on the command line and ``None`` in ``BotLimits``,
    so every option keeps a plain number as its default and ``--help`` shows it.
    """

    bot_memory_mb: Annotated[
        int,
        typer.Option(
            min=0,
            max=TIB_IN_MIB,
            help="Memory per bot, in MiB (its cgroup, and RLIMIT_DATA per process); 0: no limit.",
        ),
    ] = DEFAULT_LIMITS.memory_mb or 0
    bot_cpu_seconds: Annotated[
        int,
        typer.Option(
            min=0,
            max=YEAR_SECONDS,
            help="CPU seconds per bot process over its life (RLIMIT_CPU); 0: no limit.",
        ),
    ] = DEFAULT_LIMITS.cpu_seconds or 0
    bot_open_files: Annotated[
        int,
        typer.Option(
            min=0, max=MAX_OPEN_FILES, help="Open files per bot process (RLIMIT_NOFILE); 0: no limit."
        ),
    ] = DEFAULT_LIMITS.open_files or 0
    bot_processes: Annotated[
        int,
        typer.Option(
            min=0,
            max=MAX_PROCESSES,
            help="Processes of the bots' user (RLIMIT_NPROC; root is exempt); 0: no limit.",
        ),
    ] = DEFAULT_LIMITS.processes or 0
    bot_log_kb: Annotated[
        int,
        typer.Option(
            min=1,
            max=TIB_IN_MIB * 1024,
            help="KiB of a bot's stdout and stderr kept in its log; the rest is dropped.",
        ),
    ] = DEFAULT_LIMITS.log_bytes // 1024
    bot_cpus: Annotated[
        float,
        typer.Option(
            min=0, max=MAX_CPUS, help="CPU cores' worth of time per bot at most (cgroup quota); 0: no cap."
        ),
    ] = DEFAULT_LIMITS.cpus or 0
    bot_disk_mb: Annotated[
        int,
        typer.Option(
            min=0, max=TIB_IN_MIB, help="Size of each sandboxed bot's private /tmp, in MiB; 0: no cap."
        ),
    ] = DEFAULT_LIMITS.disk_mb or 0
    no_sandbox: Annotated[
        bool,
        typer.Option(
            "--no-sandbox",
            help="Run the bots unconfined, with your user's files, network and processes: trusted bots only.",
        ),
    ] = False

    def bot_limits(self) -> BotLimits:
        """Returns the limits these options set (0 turned into ``None``: no limit)."""
        return BotLimits(
            memory_mb=self.bot_memory_mb or None,
            cpu_seconds=self.bot_cpu_seconds or None,
            open_files=self.bot_open_files or None,
            processes=self.bot_processes or None,
            log_bytes=self.bot_log_kb * 1024,
            cpus=self.bot_cpus or None,
            disk_mb=self.bot_disk_mb or None,
            sandbox=not self.no_sandbox,
        )


# -- option groups ------------------------------------------------------------------------------------


def takes_option_groups(command: Callable[..., R]) -> Callable[..., R]:
    """Returns ``command`` as typer should see it: every parameter typed with an option group (a
    dataclass) replaced by the group's fields, in place; the returned function collects their values
    back into the group. Raises TypeError when a field's name is also a parameter's.

    Design detail: typer reads a command's options from its signature (``inspect.signature``, which
    honours ``__signature__``) and its annotations, so the returned function declares both, already
    resolved; no typer or click internals are involved.
    """
    hints = typing.get_type_hints(command, include_extras=True)
    groups = {name: hint for name, hint in hints.items() if _is_group(hint)}
    parameters: list[inspect.Parameter] = []
    for parameter in inspect.signature(command).parameters.values():
        if parameter.name in groups:
            parameters += _group_parameters(groups[parameter.name])
        else:
            parameters.append(_keyword(parameter.name, hints[parameter.name], parameter.default))
    names = [p.name for p in parameters]
    if len(set(names)) != len(names):
        raise TypeError(f"{command.__qualname__}: an option group's field has a parameter's name")

    @functools.wraps(command)
    def grouped(**values: Any) -> R:
        for name, group in groups.items():
            fields = [field.name for field in dataclasses.fields(group)]
            values[name] = group(**{field: values.pop(field) for field in fields})
        return command(**values)

    grouped.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    grouped.__annotations__ = {p.name: p.annotation for p in parameters}
    return grouped


def _is_group(hint: object) -> bool:
    """Whether a parameter's type is an option group: a dataclass whose fields are the options."""
    return isinstance(hint, type) and dataclasses.is_dataclass(hint)


def _group_parameters(group: type) -> list[inspect.Parameter]:
    """Returns the fields of option group ``group`` as keyword parameters with their defaults."""
    hints = typing.get_type_hints(group, include_extras=True)
    return [
        _keyword(field.name, hints[field.name], inspect.Parameter.empty)
        if field.default is dataclasses.MISSING
        else _keyword(field.name, hints[field.name], field.default)
        for field in dataclasses.fields(group)
    ]


def _keyword(name: str, annotation: object, default: object) -> inspect.Parameter:
    """Returns a keyword-only parameter (so a defaulted one may precede one without a default)."""
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
