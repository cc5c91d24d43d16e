"""The platform a rehearsal runs against, on this machine: a private Redis (a free loopback port, never
6379), one ``arena server`` and N ``arena worker`` processes sharing a state folder of the rehearsal's
own, each component's output kept in a log file of its own for the report's error lines.

``Stack`` is what the rehearsal asks of a platform; ``start_stack`` returns this machine's processes
(``LocalStack``) or ``compose.yaml`` on a Docker daemon (``compose_stack.ComposeStack``).
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import psutil  # type: ignore[import-untyped]

from arena.cli.workers import stop_workers
from arena.testing import RedisServer, free_port

from .roster import REPO

if TYPE_CHECKING:
    from .compose_stack import ComposeStack

WORKER_NICE = 5  # workers run this much nicer than the server: pages stay quick while matches play


class StackError(RuntimeError):
    """The platform could not be started (the message says which part and why)."""


class Component(Protocol):
    """A running part of the platform, by the host pid its usage is read from."""

    @property
    def pid(self) -> int: ...


class Stack(Protocol):
    """What the rehearsal and its report use of a platform (LocalStack, ComposeStack)."""

    url: str
    organiser: str
    folder: Path
    logs: Path  # <component>.log files: server, redis, worker-N
    started: dict[int, float]  # a component's pid -> when it started (monotonic)

    def add_worker(self) -> int: ...
    def components(self) -> Mapping[str, Component]: ...
    def usage(self) -> dict[str, dict[str, float]]: ...
    def refresh_logs(self) -> None: ...
    def redis_client(self) -> Any: ...
    def stop(self) -> None: ...


class LocalStack:
    """Redis, the server and the workers as processes of this machine, all under ``folder``."""

    def __init__(self, folder: Path, server_options: list[str]) -> None:
        self.folder = folder
        self.logs = folder / "logs"
        self.redis = RedisServer(folder / "redis")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.organiser = "organiser-" + secrets.token_hex(16)
        self.server_options = server_options
        self.server: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []
        self.started: dict[int, float] = {}  # pid -> monotonic start

    def env(self, name: str) -> dict[str, str]:
        """Returns the environment of one component: the shared seed key and replay store, a state
        folder of its own."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
        env["ARENA_SEED_KEY"] = (self.folder / "seed-key").read_text().strip()
        env["ARENA_REPLAY_STORE"] = str(self.folder / "replays")
        env["XDG_STATE_HOME"] = str(self.folder / "state" / name)
        return env

    def start(self, workers: int) -> None:
        """Starts Redis, the server (returns once it answers) and ``workers`` workers."""
        for sub in ("redis", "logs", "replays", "state"):
            (self.folder / sub).mkdir(parents=True, exist_ok=True)
        (self.folder / "seed-key").write_text(secrets.token_hex(32) + "\n")
        token = self.folder / "organiser-token"
        token.write_text(self.organiser + "\n")
        url_file = self.folder / "redis-url"
        self.redis.start()
        url_file.write_text(self.redis.url + "\n")
        url_file.chmod(0o600)
        env = {**self.env("server"), "ARENA_REDIS_URL": self.redis.url}
        argv = [
            "server",
            "--port",
            str(self.port),
            "--organiser-token-file",
            str(token),
            *self.server_options,
        ]
        self.server = self._spawn("server", argv, env)
        deadline = time.monotonic() + 60
        while not answers(self.url):
            if self.server.poll() is not None or time.monotonic() > deadline:
                raise StackError(f"arena server did not answer on {self.url}: see {self.logs / 'server.log'}")
            time.sleep(0.2)
        for _ in range(workers):
            self.add_worker()

    def add_worker(self) -> int:
        """Starts one more worker (niced below the server); returns its index."""
        n = len(self.workers)
        argv = ["worker", "--redis-url-file", str(self.folder / "redis-url"), "--idle-timeout", "30"]
        self.workers.append(self._spawn(f"worker-{n}", argv, self.env(f"worker-{n}"), WORKER_NICE))
        return n

    def _spawn(self, name: str, argv: list[str], env: dict[str, str], nice: int = 0) -> subprocess.Popen:
        log = open(self.logs / f"{name}.log", "ab")  # noqa: SIM115 - the process keeps it
        proc = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", *argv],
            env=env, cwd=REPO, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            preexec_fn=(lambda: os.nice(nice)) if nice else None,
        )  # fmt: skip
        self.started[proc.pid] = time.monotonic()
        return proc

    def redis_client(self) -> Any:
        """Returns a client of the platform's Redis (for what the report checks behind the API)."""
        from arena.queue.connection import connect

        return connect(self.redis.url)

    def components(self) -> dict[str, subprocess.Popen]:
        """Returns the running components by name (Redis, the server, ``worker-N``)."""
        named = {"redis": self.redis.proc} if self.redis.proc is not None else {}
        named |= {"server": self.server} if self.server is not None else {}
        return named | {f"worker-{n}": proc for n, proc in enumerate(self.workers)}

    def usage(self) -> dict[str, dict[str, float]]:
        """Returns each component's CPU and memory (``tree_usage``)."""
        return {name: tree_usage(proc.pid) for name, proc in self.components().items()}

    def refresh_logs(self) -> None:
        """Nothing to do: the processes write their log files themselves."""

    def stop(self) -> None:
        """Stops the workers and the server (SIGTERM, then SIGKILL after 30 s), then Redis."""
        stop_workers([p for p in [*self.workers, self.server] if p is not None], grace=30.0)
        if self.redis.proc is not None:
            self.redis.kill()


def answers(url: str) -> bool:
    """Returns True when the server at ``url`` answers its API."""
    try:
        with urllib.request.urlopen(f"{url}/api/v1/games", timeout=5) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def tree_usage(pid: int) -> dict[str, float]:
    """Returns a process's CPU seconds (``cpu_s``: its own, its waited children's and its live
    descendants'; ``own_cpu_s``: its own alone) and RSS (its own, its descendants' apart), read from
    /proc through psutil; zeros once it is gone."""
    try:
        proc = psutil.Process(pid)
        times = proc.cpu_times()
        own = times.user + times.system
        cpu = own + times.children_user + times.children_system
        rss = proc.memory_info().rss
        below = proc.children(recursive=True)
    except psutil.Error:
        return {"cpu_s": 0.0, "own_cpu_s": 0.0, "rss_mb": 0.0, "bot_rss_mb": 0.0, "bot_processes": 0}
    bot_rss = 0
    for child in below:
        try:
            t = child.cpu_times()
            cpu += t.user + t.system
            bot_rss += child.memory_info().rss
        except psutil.Error:
            continue
    mb = 1 << 20
    return {
        "cpu_s": cpu,
        "own_cpu_s": own,
        "rss_mb": rss / mb,
        "bot_rss_mb": bot_rss / mb,
        "bot_processes": len(below),
    }


def start_stack(against: str, folder: Path, workers: int, server_options: list[str]) -> Stack:
    """Returns the started platform ``against`` names (``local`` or ``compose``); one that fails to
    start is stopped again before the error goes up."""
    stack: LocalStack | ComposeStack
    if against == "compose":
        from .compose_stack import ComposeStack

        stack = ComposeStack(folder, server_options)
    else:
        stack = LocalStack(folder, server_options)
    try:
        stack.start(workers)
    except BaseException:
        stack.stop()
        raise
    return stack
