"""What running matches on this machine needs, for ``arena worker``, ``arena tournament``, ``arena
ladder`` and ``arena server``: the sandbox checked and the bot limits, the platform's seed key
readable, and local worker processes started and stopped."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

from arena import seeds
from arena.cli.errors import CliError
from arena.console import say
from arena.queue.connection import ENV_URL
from arena.referee.processes import DEFAULT_LIMITS, BotLimits
from arena.referee.sandbox import SandboxError
from arena.referee.sandbox_check import check_sandbox


def check_seed_key() -> None:
    """Reads the platform's seed key now when a file is named for it (``ARENA_SEED_KEY_FILE``), so a
    server or worker that cannot read it says so at start, not at its first tournament."""
    if os.environ.get(seeds.KEY_FILE_VARIABLE) or os.environ.get(seeds.KEY_VARIABLE):
        try:
            seeds.platform_key()
        except ValueError as exc:
            raise CliError(str(exc)) from None


def worker_limits(no_sandbox: bool, announce: bool = True) -> BotLimits:
    """Returns the workers' bot limits after checking the sandbox can start here (else a CliError
    saying why and what to do); ``announce``: says how bots will run (a worker's first line)."""
    limits = dataclasses.replace(DEFAULT_LIMITS, sandbox=not no_sandbox)
    if limits.sandbox:
        try:
            check_sandbox(limits)
        except SandboxError as exc:
            raise CliError(str(exc)) from None
    if announce:
        say(limits.describe())
    return limits


def start_worker(url: str, idle_timeout: float, no_sandbox: bool) -> subprocess.Popen:
    """Starts a local worker, quiet (the command that starts it says once how bots run); the Redis URL
    (and its password) goes in its environment, not its argv, which every user of the machine can
    read."""
    argv = [sys.executable, "-m", "arena.cli", "worker", "--quiet", "--idle-timeout", str(idle_timeout)]
    argv += ["--no-sandbox"] if no_sandbox else []
    env = {**os.environ, ENV_URL: url}
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env)


def stop_workers(procs: list[subprocess.Popen], grace: float = 10.0) -> None:
    """Stops local workers (or any processes whose SIGTERM is a clean exit: a worker leaves the match
    in hand to be rerun) with SIGTERM, killing any still running after ``grace`` seconds."""
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
