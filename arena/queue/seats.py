"""How a job's seats are run: each seat's stored version (unpacked, built) or built-in bot, wrapped.

Every bot command is wrapped so that its first line of output, printed inside the sandbox before the
bot's own program starts, is ``READY_LINE``: a seat that never joined and whose first line was not
it never got as far as its own code (bwrap failed, or the process could not be spawned), which is
the platform's failure, not the bot's (``arena.queue.worker.platform_failure``).
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from pathlib import Path

import redis

from arena.bots import builtin_bots
from arena.games.base import Game
from arena.queue.jobs import JobError, MatchJob
from arena.referee import sandbox
from arena.referee.processes import DEFAULT_LIMITS, READY_LINE, BotLimits, BotSpec, builtin_spec
from arena.submissions import build, registry

# Prints READY_LINE, then becomes the bot's own command (exec: same process, same pid).
_ANNOUNCE = f'echo "{READY_LINE}"; exec "$@"'


def seat_specs(
    client: redis.Redis,
    job: MatchJob,
    engine: Game,
    cache: Path,
    limits: BotLimits = DEFAULT_LIMITS,
    build_timeout: timedelta = build.DEFAULT_BUILD_TIMEOUT,
) -> tuple[list[BotSpec], dict[int, str]]:
    """Returns how to run each seat of ``job`` (built-in bots by name, or each seat's stored version,
    built if it has a build command), each announcing READY_LINE first, and why each seat whose build
    failed cannot run (that seat's command then only prints why and exits: it forfeits).

    A seat whose version is no longer stored (its owner removed the bot while the match waited)
    forfeits too: the owner caused it, and voiding the match would let an owner deny a rival the
    wins of a match they expect to lose. Raises JobError for a bot that is not built in (for a job
    without versions), or a version that cannot be used as stored. ``engine`` is the job's game,
    resolved once by the worker.
    """
    game = engine.spec.name
    if not job.versions:
        return [announced(spec) for spec in builtin_specs(game, job)], {}
    specs, broken = [], {}
    for seat, (bot, version) in enumerate(zip(job.bots, job.versions, strict=True)):
        try:
            spec = registry.bot_spec(client, game, bot, version, cache)
            spec = built_spec(client, spec, version, limits, build_timeout)
        except registry.VersionGone as exc:
            broken[seat] = str(exc)
            spec = failing_spec(BotSpec(bot, (), "submitted"), str(exc))
        except registry.SubmissionError as exc:
            raise JobError(str(exc)) from None
        except build.BuildError as exc:
            broken[seat] = str(exc)
            spec = failing_spec(spec, str(exc))
        specs.append(announced(spec))
    return specs, broken


def built_spec(
    client: redis.Redis, spec: BotSpec, version: str, limits: BotLimits, timeout: timedelta
) -> BotSpec:
    """Returns ``spec`` running from its version's built folder when the version has a build command
    (building it the first time); raises BuildError when the build fails."""
    argv = build.build_command(client, version) if spec.kind == "submitted" else None
    if argv is None or spec.cwd is None:
        return spec
    folder = build.built(spec.cwd, version, argv, limits, timeout, entry=spec.argv)
    return dataclasses.replace(spec, cwd=folder, code=(folder,))


def failing_spec(spec: BotSpec, why: str) -> BotSpec:
    """Returns a seat command that prints ``why`` to its log and exits 1: the seat never joins."""
    return dataclasses.replace(spec, argv=("/bin/sh", "-c", 'printf "%s\\n" "$1"; exit 1', "arena", why))


def announced(spec: BotSpec) -> BotSpec:
    """Returns ``spec`` whose command first prints READY_LINE (inside the sandbox, when sandboxed),
    then execs the bot's own command, with the variables its entry declares.

    Design detail: the declared variables are set after the line (``with_variables``), not on the
    shell that prints it: ``LD_PRELOAD=`` on the shell would run the bot's code first, and a bot that
    exited there would pass for a sandbox that never started (the platform's failure, retried)
    instead of forfeiting the match it wants to dodge.
    """
    argv = sandbox.with_variables(dict(spec.env), spec.argv)
    return dataclasses.replace(spec, argv=("/bin/sh", "-c", _ANNOUNCE, "arena-bot", *argv), env=())


def builtin_specs(game: str, job: MatchJob) -> list[BotSpec]:
    """Returns the specs of a job without versions, whose bots must all be built in."""
    builtins = builtin_bots(game)
    for bot in job.bots:
        if bot not in builtins:
            # Design detail: never resolve a job's bot as a file or shell command: anyone who can
            # write to Redis could otherwise run commands on every worker.
            raise JobError(f"{bot!r} is not a built-in bot of {game} ({', '.join(sorted(builtins))})")
    return [builtin_spec(game, bot) for bot in job.bots]
