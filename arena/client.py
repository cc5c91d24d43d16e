"""The CLI's HTTP client of ``arena server``: JSON requests, bearer credentials, one-line errors.

A participant's ``arena bots ...`` and an organiser's ``arena tournament ...`` with ``--server URL`` (or
``$ARENA_SERVER``) go through ``ServerClient`` only; they never touch Redis. Every failure becomes a
``ServerError`` whose message is one line: the server is down or unreachable, it answered with an
error (its ``{"error"}`` text and the status), or it answered something that is not the API.

Design detail: the standard library's urllib, not a third-party client: the CLI needs a handful of
plain requests, and the dependency would be one more thing for every participant to install.
"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

ENV_SERVER = "ARENA_SERVER"
TIMEOUT = 120.0  # seconds for one request (an upload of 10 MiB over a slow link included)


class ServerError(Exception):
    """A request the server refused or could not answer; the message is one line saying why."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def check_url(url: str) -> str:
    """Returns the server's base URL without a trailing slash; raises ServerError unless http(s)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ServerError(
            f"--server {url!r} is not an http:// or https:// URL, e.g. http://arena.example:8080"
        )
    if parts.username or parts.password:
        raise ServerError(
            "--server must not hold a user or password: secrets go in $ARENA_BOT_SECRET, --secret-file "
            "or a token file"
        )
    return url.rstrip("/")


class ServerClient:
    """Requests to one ``arena server``, at ``base`` (e.g. ``http://127.0.0.1:8080``)."""

    def __init__(self, base: str, timeout: float = TIMEOUT) -> None:
        self.base = check_url(base)
        self.timeout = timeout

    def call(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, str] | None = None,
        body: bytes | None = None,
        content_type: str = "application/json",
        token: str | None = None,
    ) -> Any:
        """Returns the decoded JSON answer (or text, for a non-JSON answer) of ``method path``."""
        url = self.base + path + ("?" + urllib.parse.urlencode(query) if query else "")
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = content_type
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(url, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return _decode(response.read(), response.headers.get_content_type())
        except urllib.error.HTTPError as exc:
            raise self._refused(exc) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, socket.timeout | TimeoutError):
                reason = f"no answer within {self.timeout:.0f} s"
            raise ServerError(
                f"cannot reach the arena server at {self.base}: {reason} (is it running? check --server "
                f"or ${ENV_SERVER})"
            ) from None

    def json(self, method: str, path: str, value: Any, token: str | None = None) -> Any:
        """Returns the answer of a request whose body is ``value`` as JSON."""
        return self.call(method, path, body=json.dumps(value).encode(), token=token)

    def _refused(self, exc: urllib.error.HTTPError) -> ServerError:
        """Returns the error of an HTTP error answer, with the server's own message when it sent one."""
        text = exc.read(64 * 1024)
        try:
            message = str(json.loads(text)["error"])
        except (ValueError, KeyError, TypeError):
            message = f"{exc.reason} (not an arena server's answer? check --server)"
        retry = exc.headers.get("Retry-After") if exc.headers else None
        hint = f"; retry after {retry} s" if retry and exc.code == 429 else ""
        return ServerError(f"the server refused: {message} (HTTP {exc.code}){hint}", exc.code)


def _decode(data: bytes, content_type: str) -> Any:
    """Returns a JSON answer decoded, any other answer as text."""
    if content_type == "application/json":
        try:
            return json.loads(data)
        except ValueError:
            raise ServerError("the server's answer is not valid JSON: is --server an arena server?") from None
    return data.decode("utf-8", errors="replace")
