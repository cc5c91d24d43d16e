"""The accounts API: a participant creates an account and reads it; the organiser lists, approves and
disables accounts (``arena.submissions.accounts``).

``POST /api/v1/accounts/{name}`` (no body, no credential) creates an account and answers 201 with its
token, shown only then; it takes a token of the client address's write bucket, as every write does,
and one of its own bucket of account creations (``ServerConfig.accounts_per_hour``), 429 with
``Retry-After`` past it. On a server started with ``--approve-accounts`` the account is ``pending``
until the organiser approves it. ``GET /api/v1/account`` (the account's token) shows one's own account,
its bots and what it uses of each quota. ``GET /api/v1/accounts``, ``POST
/api/v1/accounts/{name}/approve`` and ``POST /api/v1/accounts/{name}/disable`` need the organiser
token; disabling an account takes its bots out of every schedule from then on (their results stay),
approving makes a pending or disabled account active.
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.submissions import accounts
from leaderboard.api.auth import credentials
from leaderboard.api.bots import quota_refused as refused
from leaderboard.api.bots import state
from leaderboard.api.ratelimit import client_key
from leaderboard.http import ApiError, bearer, off_loop


def account_name(request: Request) -> str:
    """Returns the path's account name: a created account's, or a bot's own ``bot:NAME``; 400 else."""
    name = str(request.path_params["name"])
    bot = name[len(accounts.LEGACY_PREFIX) :] if accounts.is_own(name) else name
    try:
        accounts.validate_name(bot)
    except accounts.AccountError as exc:
        raise refused(exc) from None
    return name


def refuse_other_sites(request: Request) -> None:
    """Raises 403 for a request a browser sent from another site's page (its ``Origin`` names another
    host): a form elsewhere must not make accounts from a visitor's address and spend its creations.
    The CLI sends no ``Origin``; the server's own pages send their own host."""
    origin = request.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
        raise ApiError(
            403, "accounts are made from this server's own pages or the arena CLI, not another site"
        )


async def create_account(request: Request) -> Response:
    """``POST /api/v1/accounts/{name}``: creates an account (201, with its token, shown only now)."""
    app = state(request)
    name = str(request.path_params["name"])
    refuse_other_sites(request)
    peer = request.client.host if request.client else "unknown"
    wait = app.account_creations.take(client_key(peer))
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise ApiError(
            429,
            f"too many accounts created from this address: one more in {seconds} s "
            f"(at most {app.config.accounts_per_hour} an hour)",
            {"Retry-After": str(seconds)},
        )

    def create() -> dict[str, Any]:
        try:
            found, token = accounts.create(app.client, name, app.config.approve_accounts)
        except accounts.AccountError as exc:
            raise refused(exc) from None
        return {"account": found.to_json(), "token": token}

    return JSONResponse(await off_loop(create), status_code=201)


async def show_own(request: Request) -> Response:
    """``GET /api/v1/account``: the account of the bearer's account token, its bots and quotas."""
    app = state(request)
    name = await credentials(request).account(app.client, bearer(request))

    def read() -> dict[str, Any]:
        found = accounts.load(app.client, name)
        if found is None:
            raise ApiError(404, f"no account {name!r}")
        return {**found.to_json(), **accounts.usage(app.client, name, app.config.quotas)}

    return JSONResponse(await off_loop(read))


async def list_accounts(request: Request) -> Response:
    """``GET /api/v1/accounts``: every account (organiser token)."""
    app = state(request)
    await credentials(request).organiser(bearer(request))
    found = await off_loop(accounts.list_all, app.client)
    return JSONResponse({"accounts": [a.to_json() for a in found]})


async def change(request: Request, new_state: str) -> Response:
    """Sets the path's account to ``new_state`` (organiser token); answers the account and its bots."""
    app = state(request)
    await credentials(request).organiser(bearer(request))
    name = account_name(request)

    def apply() -> dict[str, Any]:
        try:
            found = accounts.set_state(app.client, name, new_state)
        except accounts.AccountError as exc:
            raise refused(exc) from None
        return {**found.to_json(), "bots": accounts.bots_of(app.client, name)}

    return JSONResponse(await off_loop(apply))


async def approve_account(request: Request) -> Response:
    """``POST /api/v1/accounts/{name}/approve``: makes a pending or disabled account active."""
    return await change(request, accounts.ACTIVE)


async def disable_account(request: Request) -> Response:
    """``POST /api/v1/accounts/{name}/disable``: disables an account; its bots leave every schedule."""
    return await change(request, accounts.DISABLED)
