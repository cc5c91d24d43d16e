"""The bots API: submit a bot or a new version, list and show bots, remove one.

``POST /api/v1/bots/{name}?games=a,b&entry=CMD[&build=CMD]`` takes the bot's packed folder (a tar.gz,
``arena.submissions.registry.pack``) as the raw request body, streamed; ``&builtin=BOT`` with no body
registers a built-in bot under the name. With an account's token as ``Authorization: Bearer`` a new
name becomes that account's bot (``arena.submissions.accounts``), and only that token updates or
removes it; without one (unless the server takes new bots from accounts only) a new name answers 201
with its owner secret, shown only then, and a new version needs that secret. Every submission is
counted against its account's quotas (uploads in flight while its body arrives, then bots per game,
submissions per hour and regression series while it is stored), and a refusal stores nothing. A new version
of a folder bot plays a smoke match against ``random`` and becomes the one tournaments use only if it
passes; ``GET /api/v1/bots/{name}`` shows how that went (status, reason, and to the owner alone, with
the secret as ``Authorization: Bearer``, the tail of the bot's log: a bot's output is its owner's).
``&test_against=previous[&sprt=elo0=-50,elo1=0]`` asks for a regression test against the bot's active
version, started when the new one becomes active; ``regression`` in the bot's JSON has its verdict
(``arena.schedule.regression``).

Design detail: the owner is checked before the body is read, so an upload to someone else's name costs
the server at most a hash (``leaderboard.api.auth`` limits those), not 10 MiB.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.schedule import regression
from arena.submissions import accounts, registry, smoke
from arena.submissions.archives import ArchiveError
from leaderboard.api.auth import credentials
from leaderboard.http import ApiError, bearer, off_loop, read_body, refuse_declared_over

FOLDER_ONLY = ("entry", "build")  # query parameters of a folder bot, refused with builtin=


def state(request: Request) -> Any:
    """Returns the app's shared state: ``client`` (Redis) and ``config`` (``ServerConfig``)."""
    return request.app.state


def bot_name(request: Request) -> str:
    """Returns the path's bot name; raises 400 for an invalid one."""
    try:
        return registry.validate_name(request.path_params["name"])
    except registry.SubmissionError as exc:
        raise ApiError(400, str(exc)) from None


def refused(exc: Exception) -> ApiError:
    """Returns the 422 error of a submission the store refused (its message says why)."""
    return ApiError(422, str(exc))


LOG_HIDDEN = (
    "the log is its owner's: show the bot with its account's token, or its owner secret "
    "('Authorization: Bearer TOKEN')"
)


def bot_json(client: Any, found: registry.Submission, owner: bool) -> dict[str, Any]:
    """Returns a bot as the API shows it: the stored submission and its newest version's smoke match,
    whose log tail only its ``owner`` sees (``log_hidden`` says so to anyone else)."""
    newest = found.candidate or found.version
    series = regression.for_bot(client, found.candidate, found.version, found.name)
    ran = smoke.status(client, newest) or None
    if ran and not owner:
        ran = {**ran, "log": "", "log_hidden": LOG_HIDDEN}
    return {**found.to_json(), "smoke": ran, "regression": series}


async def list_bots(request: Request) -> Response:
    """``GET /api/v1/bots[?game=G]``: every submitted bot."""
    game = request.query_params.get("game")
    found = await off_loop(registry.list_all, state(request).client, game)
    return JSONResponse({"bots": [s.to_json() for s in found]})


async def show_bot(request: Request) -> Response:
    """``GET /api/v1/bots/{name}``: one bot with its versions and its smoke match (the log's tail
    with the owner secret as bearer token; a wrong secret is a 403, none shows the rest)."""
    name, client = bot_name(request), state(request).client
    token = bearer(request)
    owner = token is not None and await credentials(request).owner(client, name, token)

    def read() -> dict[str, Any]:
        found = registry.load(client, name)
        if found is None:
            raise ApiError(404, f"no submitted bot {name!r}: see GET /api/v1/bots")
        return bot_json(client, found, owner)

    return JSONResponse(await off_loop(read))


def submit_parameters(request: Request) -> dict[str, Any]:
    """Returns the submission's query parameters as ``registry.submit`` keywords; raises 400."""
    query = request.query_params
    games = [g.strip() for g in query.get("games", "").split(",") if g.strip()]
    if not games:
        raise ApiError(400, "name the games the bot plays: ?games=GAME (comma-separated; see arena games)")
    builtin = query.get("builtin")
    if builtin is not None and any(query.get(k) for k in FOLDER_ONLY):
        raise ApiError(400, "give either builtin= or a folder with entry= (and build=), not both")
    if builtin is None and not query.get("entry"):
        raise ApiError(400, "?entry= is missing: the command that starts the bot, e.g. 'python bot.py'")
    return {"games": games, "entry": query.get("entry"), "build": query.get("build"), "builtin": builtin}


async def submitter(request: Request, name: str, token: str | None) -> tuple[str, bool]:
    """Returns the account a submission to bot ``name`` is made for, and whether the bot exists: an
    existing bot's account (its credential checked), the account of an account token for a new bot,
    or for a new bot without one its own account ``bot:NAME`` (an owner secret is made for it), unless
    the server takes new bots from accounts only (401)."""
    app, check = state(request), credentials(request)
    account = await check.bot_owner(app.client, name, token)
    if account is not None:
        return account, True
    if token is not None and accounts.token_account(token) is not None:
        return await check.account(app.client, token), False
    if app.config.accounts_only:
        raise ApiError(
            401,
            "this server takes new bots from accounts only: make one with 'arena account create NAME' and "
            "send its token as a bearer token ($ARENA_ACCOUNT_TOKEN)",
            {"WWW-Authenticate": "Bearer"},
        )
    return accounts.LEGACY_PREFIX + name, False


def quota_refused(exc: accounts.AccountError) -> ApiError:
    """Returns the error of an account that may not submit, or of a quota (its status, Retry-After)."""
    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
    return ApiError(exc.status, str(exc), headers)


async def submit_bot(request: Request) -> Response:
    """``POST /api/v1/bots/{name}``: stores a new bot (201, with its secret) or a new version (200)."""
    name, app = bot_name(request), state(request)
    limits = app.config.archive_limits
    await refuse_declared_over(request, limits.packed_bytes, app.uploads)  # before who sent it is asked
    params = submit_parameters(request)
    token = bearer(request)
    account, exists = await submitter(request, name, token)
    own = accounts.is_own(account)
    quotas = app.config.quotas
    try:
        await off_loop(accounts.check_state, app.client, account)  # before the body: again when stored
    except accounts.AccountError as exc:
        raise quota_refused(exc) from None
    async with app.uploads.hold():  # 503 when the server reads enough uploads already (no Redis asked)
        try:
            seconds = app.config.body_seconds + 5
            slot = await off_loop(accounts.begin_upload, app.client, account, quotas.uploads, seconds)
        except accounts.AccountError as exc:
            raise quota_refused(exc) from None
        try:
            archive = await read_body(request, limits.packed_bytes)
        finally:  # shielded: a client gone mid-body cancels this task, never the slot's release
            await asyncio.shield(off_loop(accounts.end_upload, app.client, account, slot))
    if (params["builtin"] is None) != bool(archive):
        raise ApiError(400, "send the bot's packed folder (tar.gz) as the body, or builtin= with no body")

    def store() -> dict[str, Any]:
        games = params.pop("games")
        query = request.query_params
        try:
            wanted = regression.parse_request(query.get("test_against"), query.get("sprt"))
            with accounts.admitted(app.client, account, name, games, quotas, tested=wanted is not None):
                found, secret = regression.submit_tested(
                    app.client,
                    name,
                    wanted,
                    lambda: registry.submit(
                        app.client,
                        name,
                        games,
                        archive=archive or None,
                        limits=limits,
                        activate=params["builtin"] is not None,  # a built-in bot needs no smoke match
                        secret=token if exists and own else None,
                        account=None if own else account,
                        **params,
                    ),
                )
            if found.candidate:
                smoke.request_smoke(app.client, name, found.candidate)
        except accounts.AccountError as exc:
            raise quota_refused(exc) from None
        except (registry.SubmissionError, ArchiveError) as exc:
            raise refused(exc) from None
        bot = bot_json(app.client, found, owner=True)
        return {"bot": bot, "secret": secret, "account": account, "registered": not exists}

    answer = await off_loop(store)
    return JSONResponse(answer, status_code=200 if exists else 201)


async def remove_bot(request: Request) -> Response:
    """``DELETE /api/v1/bots/{name}``: removes a bot (its account's token, or its owner secret)."""
    name, app = bot_name(request), state(request)
    token = bearer(request)
    account = await credentials(request).bot_owner(app.client, name, token)
    if account is None:
        raise ApiError(404, f"no submitted bot {name!r}: see GET /api/v1/bots")
    own = accounts.is_own(account)

    def remove() -> int:
        try:
            return registry.remove(app.client, name, token or "", None if own else account)
        except registry.SubmissionError as exc:
            raise refused(exc) from None

    gone = await off_loop(remove)
    return JSONResponse({"removed": name, "versions_deleted": gone})
