"""The HTTP plumbing every handler shares: the one error type and its JSON answer, the security headers
of every answer, request bodies read under a limit, bearer credentials, query parameters and pages.

Every error, of every route (pages, API, static files) and of every cause, is ``ApiError`` or becomes
one answer of the same shape, ``{"error": "one line saying what to do"}`` with its status: 400 a
malformed request, 401 a missing credential, 403 a wrong one, 404 nothing there, 405 a method the path
does not take, 408 a body that came too slowly, 409 an account name taken, 413 a body over its limit,
422 a submission, tournament or replay file refused, 429 too many writes, account creations or failed
authentications, or an account's quota, 500 a failure of
the server's own code (its traceback goes to the server's log, never to the client), 503 Redis
unreachable or every upload or secret-check slot taken (with ``Retry-After``).

Every answer carries ``SECURITY_HEADERS`` (``SecurityHeaders``, outside everything else, so even the
500 of a crashed handler has them).

Lists are read a page at a time, one way everywhere: ``?limit=N`` (how many) and ``?after=NEXT``, where
NEXT is the ``next`` of the previous page's answer (None on the last page). What NEXT holds is the
list's own business: a client passes it back as it came.

Design detail: the body limit is checked twice. A declared ``Content-Length`` over the limit is refused
before a byte is kept, and the body is counted as it streams in (a chunked upload declares no length,
and a client may lie), so the server never holds more than the limit plus one chunk of a hostile body.
A refused upload is read away and dropped, up to ``DRAIN_BYTES``, so that its client reads the 413
rather than a connection reset mid-send (``drain``).
A body must also arrive whole within the server's ``body_seconds`` (408 otherwise), and at most
``UploadSlots.size`` uploads are read at once (503 before reading another): a client that starts
uploads and never finishes them holds neither memory nor a connection for long.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

T = TypeVar("T")

SECURITY_HEADERS = {
    # Design detail: no inline script or style is allowed, so even markup that slipped into a page
    # could not run; the pages' own files come from /static.
    "Content-Security-Policy": "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'",
    "X-Content-Type-Options": "nosniff",
}
PAGE_MAX = 500  # the most entries one page of any list may ask for
DRAIN_BYTES = 64 * 2**20  # the most of a refused body read away so its client reads the answer (drain)


class ApiError(Exception):
    """A request the app refuses: ``status`` and a one-line message saying what to do."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


def error_response(status: int, message: str, headers: Mapping[str, str] | None = None) -> Response:
    """Returns the JSON error response ``{"error": message}``."""
    return JSONResponse({"error": message}, status_code=status, headers=headers)


async def api_error(request: Request, exc: Exception) -> Response:
    """Returns the answer of an ``ApiError`` raised by a handler."""
    assert isinstance(exc, ApiError)
    return error_response(exc.status, str(exc), exc.headers)


async def http_error(request: Request, exc: Exception) -> Response:
    """Returns Starlette's own HTTP errors (no such path, method not allowed) as JSON errors."""
    assert isinstance(exc, HTTPException)
    message = f"{exc.detail}: {request.method} {request.url.path[:200]}"
    return error_response(exc.status_code, message, exc.headers)


async def redis_down(request: Request, exc: Exception) -> Response:
    """Returns 503 when Redis cannot be reached, so the client can say 'try again later'."""
    return error_response(503, "the server's store is unreachable right now: try again in a minute")


async def server_failed(request: Request, exc: Exception) -> Response:
    """Returns a failure of the server's own code as a JSON 500 (its traceback goes to the server's
    log, never to the client)."""
    return error_response(500, "the server failed on this request: try again; tell the organiser if it lasts")


class SecurityHeaders:
    """ASGI middleware: every HTTP answer gets ``SECURITY_HEADERS`` (those it set itself kept)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, with_headers)


async def off_loop(function: Callable[..., T], *args: Any) -> T:
    """Returns ``function(*args)`` run on the thread pool: every handler's Redis and disk work goes
    through here, so the event loop only routes, authenticates and writes answers."""
    return await run_in_threadpool(function, *args)


def too_large(limit: int) -> ApiError:
    """Returns the 413 error for a body over ``limit`` bytes (the connection closed after it: what is
    left of a body past ``DRAIN_BYTES`` was not read)."""
    return ApiError(
        413,
        f"request body too large: at most {limit} bytes ({limit / 2**20:.1f} MiB) accepted",
        {"Connection": "close"},
    )


def declared_length(request: Request, limit: int) -> int | None:
    """Returns the declared Content-Length (None if absent); raises 400 if malformed, 413 over ``limit``."""
    text = request.headers.get("content-length")
    if text is None:
        return None
    if not text.isdigit():
        raise ApiError(400, f"malformed Content-Length {text[:40]!r}: send a decimal byte count")
    if int(text) > limit:
        raise too_large(limit)
    return int(text)


def body_seconds(request: Request) -> float:
    """Returns how long the server waits for a whole request body (``ServerConfig.body_seconds``)."""
    return float(request.app.state.config.body_seconds)


async def read_body(request: Request, limit: int, read_away: bool = True) -> bytes:
    """Returns the request body; raises 413 as soon as more than ``limit`` bytes arrive (or are
    declared), after reading away the rest if ``read_away`` (``drain``: for uploads, read under an
    upload slot), 408 when the whole body has not arrived within ``body_seconds``."""
    if read_away:
        await refuse_declared_over(request, limit)
    else:
        declared_length(request, limit)
    seconds = body_seconds(request)
    chunks, size, over = [], 0, False
    stream = request.stream()
    try:
        async with asyncio.timeout(seconds):
            async for chunk in stream:
                size += len(chunk)
                if size > limit:
                    over = True
                    break
                chunks.append(chunk)
    except ClientDisconnect:  # nobody is left to answer: no traceback in the server's log either
        raise ApiError(400, f"the client went away after {size} bytes of its body") from None
    except TimeoutError:
        raise ApiError(
            408,
            f"the request body did not arrive within {seconds:g} s ({size} bytes came): "
            "send it again over a faster connection",
            {"Connection": "close"},
        ) from None
    if over:
        if read_away:
            await drain(request, stream, size)
        raise too_large(limit)
    return b"".join(chunks)


async def refuse_declared_over(request: Request, limit: int, slots: UploadSlots | None = None) -> None:
    """Raises 413 when the declared Content-Length is over ``limit`` (400 when it is malformed), after
    reading the body away (``drain``; under one of ``slots``, when given, or not at all when they are
    all taken or it declares more than ``DRAIN_BYTES``)."""
    try:
        declared_length(request, limit)
    except ApiError as refused:  # a 413's length is digits; past DRAIN_BYTES its client is reset anyway
        if refused.status == 413 and int(request.headers["content-length"]) <= DRAIN_BYTES:
            try:
                async with slots.hold() if slots else contextlib.nullcontext():
                    await drain(request)
            except ApiError:  # no slot free: refused without reading
                pass
        raise


async def drain(request: Request, stream: AsyncIterator[bytes] | None = None, size: int = 0) -> None:
    """Reads and drops what is left of a refused body (from ``stream``, the body's, ``size`` bytes
    of it read), up to ``DRAIN_BYTES`` in all within ``body_seconds``.

    Why: answering at once and closing the connection while the client still sends resets it, and
    the client's send fails with a broken pipe before it reads the answer: urllib (``arena bots
    submit``) then reported "cannot reach the server" for an archive over the server's limit. Read
    away, the body costs the server bandwidth it bounds (the bytes, the time, an upload slot) and
    the client reads its 413."""
    with contextlib.suppress(TimeoutError, ClientDisconnect, RuntimeError):  # RuntimeError: read already
        async with asyncio.timeout(body_seconds(request)):
            async for chunk in stream or request.stream():
                size += len(chunk)
                if size > DRAIN_BYTES:
                    return


class UploadSlots:
    """How many uploads the server reads at once: ``hold()`` takes a slot for one upload's body or
    raises 503 with ``Retry-After`` when all are taken (the slots live on the server's one event
    loop, so a plain counter needs no lock)."""

    def __init__(self, size: int, retry_after: float) -> None:
        if size < 1:
            raise ValueError("the server needs at least one upload slot")
        self.size = size
        self.retry_after = max(1, math.ceil(retry_after))
        self.taken = 0

    @contextlib.asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        """Holds a slot while the block runs (released however it ends); raises 503 when full."""
        if self.taken >= self.size:
            raise ApiError(
                503,
                f"the server is reading {self.size} uploads already: try again in {self.retry_after} s",
                {"Retry-After": str(self.retry_after)},
            )
        self.taken += 1
        try:
            yield
        finally:
            self.taken -= 1


async def read_json(request: Request, limit: int) -> dict[str, Any]:
    """Returns the body as a JSON object; raises 400 for anything else, 413 over ``limit`` bytes,
    408 when it comes too slowly."""
    # not read away: no upload slot bounds a JSON body, and no client of ours sends one past its limit
    body = await read_body(request, limit, read_away=False)
    try:
        value = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ApiError(400, f"the body is not JSON ({exc}): send a JSON object") from None
    except (ValueError, RecursionError):  # a number of thousands of digits, nesting thousands deep
        raise ApiError(
            400, "the body's JSON is too deep or holds too large a number: send a plain object"
        ) from None
    if not isinstance(value, dict):
        raise ApiError(400, "the body must be a JSON object")
    return value


def bearer(request: Request) -> str | None:
    """Returns the token of an ``Authorization: Bearer TOKEN`` header, None without one; raises 401
    for another scheme."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(
            401, "send credentials as 'Authorization: Bearer TOKEN'", {"WWW-Authenticate": "Bearer"}
        )
    return token.strip()


def query_int(request: Request, name: str, default: int, low: int, high: int) -> int:
    """Returns the integer query parameter ``name`` (``default`` if absent); 400 outside [low, high]."""
    text = request.query_params.get(name)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ApiError(400, f"?{name}= must be an integer, not {text[:40]!r}") from None
    if not low <= value <= high:
        raise ApiError(400, f"?{name}= must be from {low} to {high}, not {value}")
    return value


def page_limit(request: Request, default: int, most: int = PAGE_MAX) -> int:
    """Returns a page's ``?limit=`` (``default`` if absent); raises 400 unless from 1 to ``most``."""
    return query_int(request, "limit", default, 1, most)


def page_after(request: Request) -> str | None:
    """Returns a page's ``?after=``: the ``next`` of the previous page (None when absent: the first
    page)."""
    return request.query_params.get("after")


def path_param(request: Request, name: str) -> str:
    """Returns the path parameter ``name`` as text."""
    return str(request.path_params[name])
