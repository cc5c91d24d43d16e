"""How the commands that serve web pages listen: the port is taken before the address is announced.

``arena web``, ``arena server`` and ``arena view`` bind their socket first, so a busy port is one line
naming it and how to choose another (exit 2), never an announced address followed by uvicorn's own
error; uvicorn then serves on that socket, and connections made once the address is shown wait in its
backlog.
"""

from __future__ import annotations

import socket
from typing import Any

from arena.cli.errors import CliError


def listening(host: str, port: int) -> socket.socket:
    """Returns a socket listening on ``host``:``port`` (0: a free port); raises CliError when it cannot."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        why = exc.strerror or str(exc)
        raise CliError(f"cannot listen on {host}:{port}: {why}; choose another with --port N") from None
    return sock


def port_of(sock: socket.socket) -> int:
    """Returns the port ``sock`` listens on (the one chosen for port 0)."""
    return int(sock.getsockname()[1])


def serve(app: Any, sock: socket.socket, **options: Any) -> None:
    """Serves ``app`` on ``sock`` until Ctrl-C (uvicorn, quiet but for warnings)."""
    import uvicorn

    uvicorn.Server(uvicorn.Config(app, log_level="warning", **options)).run(sockets=[sock])
