"""A private redis-server for tests and benchmarks: on a free loopback port, its data in a folder of
the caller's, never the 127.0.0.1:6379 a developer's own Redis may listen on."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path
from typing import Any


def free_port() -> int:
    """Returns a TCP port on loopback that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """A private redis-server on a free loopback port with its data in ``folder`` (never 6379).

    ``stop`` and ``start`` again keep the port and the data folder, so with ``appendonly`` a restart
    finds the data it had; ``kill`` stops it without the final write of a shutdown. Needs the
    ``redis-server`` program on the PATH and the ``redis`` client package.
    """

    def __init__(self, folder: str | Path, appendonly: bool = False) -> None:
        self.folder = folder
        self.port = free_port()
        self.appendonly = appendonly
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: Any = None

    def start(self) -> None:
        """Starts the server and returns once it answers PING (loading its data included)."""
        import redis

        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder)]
        argv += ["--save", "", "--appendonly", "yes" if self.appendonly else "no"]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=1)
        for _ in range(400):
            try:
                if client.ping():
                    return
            except redis.RedisError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"redis-server on port {self.port} did not start")

    def stop(self) -> None:
        """Shuts the server down cleanly (SIGTERM: the append-only file is flushed)."""
        self.proc.terminate()
        self.proc.wait()

    def kill(self) -> None:
        """Kills the server at once (SIGKILL), as a crash would."""
        self.proc.kill()
        self.proc.wait()
