"""The participant's web session: sign in with an account token, then read one's own account, bots and
bots' output and upload new versions from the participant's page (``static/participant.html``).

``POST /api/v1/session`` takes ``{"token": "account.NAME.SECRET"}`` as JSON, checks the token exactly
as every bearer token is checked (``leaderboard.api.auth``: its shape, the failure buckets per client
address and per account, the hashing slots), and answers with the account and a CSRF token, setting a
cookie that carries only a random session id (``HttpOnly; SameSite=Strict; Path=/``, and ``Secure``
when the request came over https). ``GET /api/v1/session`` answers the same to a signed-in page (a
reloaded page gets its CSRF token there), ``DELETE /api/v1/session`` signs out. ``GET
/api/v1/participation`` (public) says what a newcomer needs: whether accounts need approval, the
archive limits and the quotas.

Under ``/api/v1/session/`` the page reaches the API's own handlers with the session standing in for the
bearer token: ``account`` (``GET /api/v1/account``), ``bots/{name}`` (``GET`` and ``POST
/api/v1/bots/{name}``: the owner's view, and an upload through the same submission path, archive
limits, entry checks and quotas as the API) and ``matches/{id}/log/{seat}`` (the owner-only log).
Nothing here checks ownership, limits or quotas again: those handlers do, for the session's token.

Every state-changing request of a session (an upload, signing out) must send the session's CSRF token
in the ``X-CSRF-Token`` header, compared in constant time: 403 without it. Signing in needs no session,
but its body must be JSON, which a form on another site cannot send (and ``SameSite=Strict`` keeps the
cookie off every request another site starts).

Design detail, what Redis holds: a session is ``keys.session(SHA-256(session id))``, a hash with the
account, the CSRF token and the account token sealed (XOR with an HMAC-SHA256 key stream, and a tag)
under a key derived from the session id, and it expires with the session (``SESSION_SECONDS``). Redis
never holds the session id, so a copy of Redis opens no session and reveals no token; the browser holds
the id in a cookie its scripts cannot read. Keeping the token (rather than only the account's name)
lets every request be checked by the API's own code, so the page can do exactly what the token can
do through the API, no more: a disabled account, another account's bot or log, a quota are refused
by the same lines as for the CLI.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from arena.queue import keys
from arena.queue.connection import text_hash
from arena.submissions import accounts as account_store
from leaderboard.api import accounts, bots, tournaments
from leaderboard.api.auth import credentials
from leaderboard.http import ApiError, off_loop, read_json

COOKIE = "arena_session"
CSRF_HEADER = "x-csrf-token"
SESSION_SECONDS = 8 * 3600  # a session ends this long after sign-in, whatever happens meanwhile
SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{43}$")  # secrets.token_urlsafe(32)
TAG_BYTES = 16
STATIC = Path(__file__).parent.parent / "static"
SIGN_IN = "sign in on /participant with your account token"

Handler = Callable[[Request], Awaitable[Response]]


# -- the session in Redis ---------------------------------------------------------------------------


def session_key(session_id: str) -> str:
    """Returns the Redis key of a session: named by the SHA-256 of its id, never by the id."""
    return keys.session(hashlib.sha256(session_id.encode()).hexdigest())


def _derived(session_id: str, purpose: bytes) -> bytes:
    return hmac.digest(session_id.encode(), b"arena session " + purpose, "sha256")


def _stream(key: bytes, length: int) -> bytes:
    blocks = (hmac.digest(key, n.to_bytes(4, "big"), "sha256") for n in range(length // 32 + 1))
    return b"".join(blocks)[:length]


def seal(session_id: str, token: str) -> str:
    """Returns ``token`` sealed under a key only ``session_id`` yields (base64url: XOR with an
    HMAC-SHA256 key stream, then a tag over it)."""
    plain = token.encode()
    body = bytes(
        a ^ b for a, b in zip(plain, _stream(_derived(session_id, b"seal"), len(plain)), strict=True)
    )
    tag = hmac.digest(_derived(session_id, b"tag"), body, "sha256")[:TAG_BYTES]
    return base64.urlsafe_b64encode(tag + body).decode()


def unseal(session_id: str, sealed: str) -> str | None:
    """Returns the token ``seal`` sealed for ``session_id``; None when it was not sealed for it."""
    try:
        raw = base64.urlsafe_b64decode(sealed.encode())
    except ValueError:
        return None
    tag, body = raw[:TAG_BYTES], raw[TAG_BYTES:]
    if not hmac.compare_digest(tag, hmac.digest(_derived(session_id, b"tag"), body, "sha256")[:TAG_BYTES]):
        return None
    plain = bytes(a ^ b for a, b in zip(body, _stream(_derived(session_id, b"seal"), len(body)), strict=True))
    return plain.decode("utf-8", errors="replace")


def open_session(client: Any, account: str, token: str, seconds: int = SESSION_SECONDS) -> tuple[str, dict]:
    """Stores a new session of ``account`` for ``seconds``; returns its id and its fields."""
    session_id, now = secrets.token_urlsafe(32), time.time()
    fields = {
        "account": account,
        "csrf": secrets.token_urlsafe(32),
        "token": seal(session_id, token),
        "created": repr(now),
        "expires": repr(now + seconds),
    }
    with client.pipeline() as pipe:
        pipe.hset(session_key(session_id), mapping=fields)
        pipe.expire(session_key(session_id), seconds)
        pipe.execute()
    return session_id, fields


class Session:
    """A signed-in request's session: its id, account, CSRF token, account token and end."""

    def __init__(self, session_id: str, fields: dict[str, str], token: str) -> None:
        self.id = session_id
        self.account = fields["account"]
        self.csrf = fields["csrf"]
        self.token = token
        self.expires = float(fields["expires"])


async def signed_in(request: Request, write: bool = False) -> Session:
    """Returns the request's session; raises 401 without one (no cookie, signed out, expired) and,
    for a ``write``, 403 without its CSRF token in the ``X-CSRF-Token`` header."""
    session_id = request.cookies.get(COOKIE, "")
    if not SESSION_ID.fullmatch(session_id):
        raise ApiError(401, f"not signed in: {SIGN_IN}")
    client = request.app.state.client
    fields = text_hash(await off_loop(client.hgetall, session_key(session_id)))
    token = unseal(session_id, fields.get("token", "")) if fields else None
    if not fields or token is None or float(fields.get("expires", 0)) <= time.time():
        raise ApiError(401, f"your session has ended (signed out or expired): {SIGN_IN}")
    if write:
        sent = request.headers.get(CSRF_HEADER, "")
        if not hmac.compare_digest(sent.encode(), fields["csrf"].encode()):
            raise ApiError(
                403, "this request lacks the page's CSRF token (X-CSRF-Token): reload the page and try again"
            )
    return Session(session_id, fields, token)


def is_https(request: Request) -> bool:
    """Returns whether the request came over https (the cookie is then ``Secure``)."""
    return request.url.scheme == "https"


def session_json(client: Any, account: str, csrf: str, expires: float) -> dict:
    """Returns what the page knows of its session: the account (name, state, times), the CSRF token and
    when the session ends."""
    found = account_store.load(client, account)
    shown = found.to_json() if found else {"name": account, "state": "gone"}
    return {"account": shown, "csrf": csrf, "expires": expires}


# -- sign in, the session, sign out -----------------------------------------------------------------


async def sign_in(request: Request) -> Response:
    """``POST /api/v1/session``, body ``{"token": ...}``: checks the account token (as a bearer token
    is checked) and opens a session: 200 with the account and the CSRF token, and the cookie."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise ApiError(400, 'send {"token": "account.NAME.SECRET"} as JSON (Content-Type: application/json)')
    body = await read_json(request, request.app.state.config.json_bytes)
    token = body.get("token")
    if not isinstance(token, str) or not token.strip():
        raise ApiError(400, 'send {"token": "account.NAME.SECRET"}: the token "arena account create" printed')
    client = request.app.state.client
    account = await credentials(request).account(client, token.strip())
    old = request.cookies.get(COOKIE, "")

    def store() -> tuple[str, dict]:
        if SESSION_ID.fullmatch(old):
            client.delete(session_key(old))  # one session per browser: signing in again ends the last
        session_id, fields = open_session(client, account, token.strip())
        return session_id, session_json(client, account, fields["csrf"], float(fields["expires"]))

    session_id, answer = await off_loop(store)
    response = JSONResponse(answer)
    response.set_cookie(
        COOKIE,
        session_id,
        max_age=SESSION_SECONDS,
        path="/",
        secure=is_https(request),
        httponly=True,
        samesite="strict",
    )
    return response


async def show_session(request: Request) -> Response:
    """``GET /api/v1/session``: the signed-in page's account, CSRF token and end (401 signed out)."""
    session = await signed_in(request)
    client = request.app.state.client
    return JSONResponse(await off_loop(session_json, client, session.account, session.csrf, session.expires))


async def sign_out(request: Request) -> Response:
    """``DELETE /api/v1/session`` (CSRF token): ends the session and clears the cookie."""
    session = await signed_in(request, write=True)
    await off_loop(request.app.state.client.delete, session_key(session.id))
    response = JSONResponse({"signed_out": session.account})
    response.delete_cookie(COOKIE, path="/", secure=is_https(request), httponly=True, samesite="strict")
    return response


async def participation(request: Request) -> Response:
    """``GET /api/v1/participation``: how to take part on this server (approval, limits, quotas)."""
    config = request.app.state.config
    limits = config.archive_limits
    return JSONResponse(
        {
            "approve_accounts": config.approve_accounts,
            "accounts_only": config.accounts_only,
            "archive": {
                "packed_bytes": limits.packed_bytes,
                "unpacked_bytes": limits.unpacked_bytes,
                "files": limits.files,
            },
            "quotas": {
                "bots_per_game": config.quotas.bots_per_game,
                "submissions_per_hour": config.quotas.submissions_per_hour,
                "uploads": config.quotas.uploads,
                "series": config.quotas.series,
            },
            "session_seconds": SESSION_SECONDS,
        }
    )


# -- the API's handlers, the session standing in for the bearer token -------------------------------


def as_bearer(request: Request, token: str) -> Request:
    """Returns ``request`` with ``Authorization: Bearer TOKEN`` in place of any credential it carried
    (its cookie included), reading the same body."""
    scope = dict(request.scope)
    dropped = (b"authorization", b"cookie", CSRF_HEADER.encode())
    headers = [(k, v) for k, v in scope["headers"] if k.lower() not in dropped]
    scope["headers"] = [*headers, (b"authorization", f"Bearer {token}".encode())]
    return Request(scope, request.receive)


def on_behalf(handler: Handler, write: bool = False) -> Handler:
    """Returns a handler that answers as ``handler`` would to the session's account token (401 signed
    out; a ``write`` needs the CSRF token, 403)."""

    async def answer(request: Request) -> Response:
        session = await signed_in(request, write)
        return await handler(as_bearer(request, session.token))

    answer.__name__ = answer.__qualname__ = f"session_{handler.__name__}"
    answer.__doc__ = f"``{handler.__name__}`` for the signed-in account (the session's token)."
    return answer


own_account = on_behalf(accounts.show_own)
own_bot = on_behalf(bots.show_bot)
upload = on_behalf(bots.submit_bot, write=True)
own_log = on_behalf(tournaments.seat_log)

ROUTES: list[tuple[str, Handler, str]] = [  # (path under /api/v1, handler, method): arena server only
    ("/participation", participation, "GET"),
    ("/session", sign_in, "POST"),
    ("/session", show_session, "GET"),
    ("/session", sign_out, "DELETE"),
    ("/session/account", own_account, "GET"),
    ("/session/bots/{name}", own_bot, "GET"),
    ("/session/bots/{name}", upload, "POST"),
    ("/session/matches/{match_id}/log/{seat:int}", own_log, "GET"),
]
PAGES = ["/participant", "/participant/bots/{name}"]  # served as static/participant.html


async def page(request: Request) -> Response:
    """Returns the participant's pages' HTML shell (``participant.js`` draws the page the path names)."""
    return FileResponse(STATIC / "participant.html")
