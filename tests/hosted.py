"""A hosted platform for end-to-end tests: a private Redis, a real ``arena server`` process (which a
test may kill and restart) and N real ``arena worker`` processes with the sandbox on.

The workers read the Redis URL from a file (``--redis-url-file``) and the server from its
environment: neither has it on its command line, as in ``compose.yaml``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from arena.queue.connection import connect
from tests.conftest import REPO, SEED_KEY_ENV, RedisServer, free_port
from tests.test_queue import wait_until

ORGANISER_TOKEN = "organiser-" + "0123456789abcdef" * 2


def arena(argv: list[str], env: dict[str, str]) -> subprocess.Popen:
    """Starts ``arena ARGV`` in the background, with no standard input."""
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *argv], env=env, cwd=REPO, stdin=subprocess.DEVNULL
    )


def get(url: str) -> Any:
    """Returns the JSON an HTTP GET of ``url`` answers."""
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


class HostedPlatform:
    """Redis, the server and ``workers`` workers, stopped by ``stop``."""

    def __init__(self, folder: Path, workers: int = 1) -> None:
        self.folder = folder
        self.workers = workers
        self.redis = RedisServer(folder / "redis-data")
        self.url = f"http://127.0.0.1:{free_port()}"
        self.token_file = folder / "organiser-token"
        self.server: subprocess.Popen | None = None
        self.worker_procs: list[subprocess.Popen] = []

    def start(self) -> None:
        """Starts Redis, the server (returns once it answers) and the workers."""
        (self.folder / "redis-data").mkdir(parents=True)
        self.redis.start()
        self.token_file.write_text(ORGANISER_TOKEN + "\n")
        self.start_server()
        url_file = self.folder / "redis-url"
        url_file.write_text(self.redis.url + "\n")
        url_file.chmod(0o600)
        for n in range(self.workers):
            env = {k: v for k, v in os.environ.items() if k != "ARENA_REDIS_URL"}
            env |= {**SEED_KEY_ENV, "XDG_STATE_HOME": str(self.folder / f"worker-{n}")}
            argv = ["worker", "--redis-url-file", str(url_file), "--idle-timeout", "20"]
            self.worker_procs.append(arena(argv, env))

    def start_server(self) -> None:
        """Starts the server; returns once it answers its API."""
        env = {**os.environ, **SEED_KEY_ENV, "ARENA_REDIS_URL": self.redis.url}
        env["XDG_STATE_HOME"] = str(self.folder / "server-state")
        port = self.url.rsplit(":", 1)[1]
        self.server = arena(["server", "--port", port, "--organiser-token-file", str(self.token_file)], env)
        wait_until(self.answers, "the server to answer", limit=60)

    def answers(self) -> bool:
        """Returns True once the server answers (fails at once if it or a worker exited)."""
        for proc in [self.server, *self.worker_procs]:
            assert proc is not None and proc.poll() is None, f"{proc and proc.args} exited"
        try:
            return get(f"{self.url}/api/v1/bots") is not None
        except OSError:
            return False

    def redis_client(self) -> Any:
        """Returns a client of the platform's Redis (for what a test checks behind the API)."""
        return connect(self.redis.url)

    def kill_server(self) -> None:
        """Kills the server at once (SIGKILL), as a crash would: no shutdown code runs."""
        assert self.server is not None
        self.server.kill()
        self.server.wait()

    def stop(self) -> None:
        for proc in [self.server, *self.worker_procs]:
            if proc is not None and proc.poll() is None:
                proc.terminate()
        for proc in [self.server, *self.worker_procs]:
            if proc is not None:
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self.redis.kill()


@contextmanager
def hosted(folder: Path, workers: int = 1) -> Iterator[HostedPlatform]:
    """Yields a started platform and stops it afterwards."""
    platform = HostedPlatform(folder, workers)
    try:
        platform.start()
        yield platform
    finally:
        platform.stop()
