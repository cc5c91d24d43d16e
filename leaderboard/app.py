"""The one web app: the pages, the JSON API under ``/api/v1`` (reads and writes) and ``arena view``.

``create_app(source, server)`` builds it for every command that serves the web:

- ``arena server`` (``server_app``): the platform's door, over Redis, with the write API (accounts,
  bots, tournaments, ladders) behind credentials and a rate limit; public replays show no bot's output.
- ``arena leaderboard web`` and ``arena screenshots`` (``leaderboard_app``): this machine's own
  leaderboard over its Redis: the pages and every read, no write.
- ``arena view`` (``view_app``): the list and the replay pages of replay files on this machine
  (``leaderboard.sources.FileSource``), and the few routes they read.

Why Starlette: the app is routes, JSON answers and static files. Starlette gives exactly that
(routing, ``StaticFiles``, gzip, a test client) as a small, well-kept ASGI library without an ORM or
template engine to carry, and uvicorn serves it.

Every page is one HTML shell (``static/index.html``; ``arena view``'s ``static/view.html``);
``static/app.js`` reads the path, fetches the API and builds the DOM with ``textContent`` only, so a
bot-supplied string can never become markup. Pages poll ``/api/v1/stamp`` and re-fetch when a result
arrives, so a running tournament shows up without a reload. Every answer, errors included, is made
by one error type and carries the security headers (``leaderboard.http``).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import redis
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from arena.games import GAMES, folder_of
from arena.schedule.ladder_runner import LadderRunner
from arena.submissions.accounts import Quotas
from arena.submissions.archives import ArchiveLimits
from leaderboard.api import accounts, bots, collusion, ladders, participant, reads, redirects, tournaments
from leaderboard.api.auth import Authenticator, OrganiserToken
from leaderboard.api.ratelimit import RateLimitMiddleware, TokenBucket
from leaderboard.http import (
    ApiError,
    SecurityHeaders,
    UploadSlots,
    api_error,
    error_response,
    http_error,
    off_loop,
    redis_down,
    server_failed,
)
from leaderboard.sources import FileSource, RedisSource, Source

API = "/api/v1"
STATIC = Path(__file__).with_name("static")
WORKER_LIMITS = ArchiveLimits()  # what every worker checks a bot against when it unpacks it


@dataclasses.dataclass(frozen=True)
class ServerConfig:
    """What the server allows: archive limits (a bot upload's body is at most ``packed_bytes``), the
    largest JSON body, how long a body may take to arrive, how many uploads are read at once, the write
    rate per client address, the failed authentications allowed per client address and per credential
    (a bot's name, the organiser token), how many secrets are hashed at once (``leaderboard.api.auth``),
    the organiser token's hash, and the accounts: approval, whether new bots need one, creations per
    client address an hour, and the quotas of each. Raises ValueError for archive limits over the workers'
    (``check_limits``) and for limits that allow nothing."""

    archive_limits: ArchiveLimits = dataclasses.field(default_factory=ArchiveLimits)
    json_bytes: int = 64 * 1024
    body_seconds: float = 60.0
    uploads: int = 8
    writes_per_minute: float = 30.0
    write_burst: int = 10
    auth_failures_per_minute: float = 10.0  # per client address, and per bot name / organiser token
    auth_failure_burst: int = 10
    secret_checks: int = 2  # scrypt checks running at once; one more is a 503 at once
    organiser: OrganiserToken = dataclasses.field(default_factory=lambda: OrganiserToken(None))
    approve_accounts: bool = False  # a new account is pending until the organiser approves it
    require_accounts: bool = False  # new bots only from an account's token (implied by approval)
    accounts_per_hour: int = 5  # accounts one client address may create an hour (its burst too)
    quotas: Quotas = dataclasses.field(default_factory=Quotas)  # per account (arena.submissions.accounts)

    @property
    def accounts_only(self) -> bool:
        """Returns whether a new bot needs an account's token (no bot of its own account)."""
        return self.require_accounts or self.approve_accounts

    def __post_init__(self) -> None:
        check_limits(self.archive_limits)
        if self.body_seconds <= 0:
            raise ValueError("the body time limit must be positive")
        if self.accounts_per_hour < 1:
            raise ValueError("the server must allow at least one account creation an hour")
        if self.auth_failures_per_minute <= 0 or self.auth_failure_burst < 1 or self.secret_checks < 1:
            raise ValueError(
                "the authentication limits need a positive failure rate, a burst and a secret check of "
                "at least 1"
            )


def check_limits(limits: ArchiveLimits) -> None:
    """Raises ValueError for archive limits above the workers': a bot the server accepted past them
    would be refused by every worker that unpacks it, and fail every match it is drawn into."""
    over = [
        f"{field} {getattr(limits, field)} > {getattr(WORKER_LIMITS, field)}"
        for field in ("packed_bytes", "unpacked_bytes", "files")
        if getattr(limits, field) > getattr(WORKER_LIMITS, field)
    ]
    if over:
        raise ValueError(
            f"archive limits above the workers' ({', '.join(over)}): workers unpack bots with "
            f"{WORKER_LIMITS.describe()}, so lower --max-upload-mb, --max-unpacked-mb or --max-files"
        )


async def page(request: Request) -> Response:
    """Returns the HTML shell every page shares (app.js draws the page the path names), or sends the
    browser where the source shows that page instead (``arena view``: its list of replays)."""
    source: Source = request.app.state.source
    elsewhere = source.elsewhere(request.url.path, {k: str(v) for k, v in request.path_params.items()})
    if elsewhere is not None:
        return RedirectResponse(elsewhere)
    source.check_page(request.path_params.get("match_id"))
    return FileResponse(STATIC / source.shell)


async def no_such_endpoint(request: Request) -> Response:
    """Returns the JSON 404 of a path under /api/v1 that names no endpoint."""
    return error_response(404, f"no endpoint {request.method} {request.url.path}: see docs/security.md")


async def game_viewer(request: Request) -> Response:
    """Returns a game's drawing for the replay viewer, ``viewer.js`` in the game's own folder (one
    folder holds the whole game); 404 for a game without one, which the viewer draws as plain text."""
    game = request.path_params["game"]
    path = folder_of(game) / "viewer.js" if game in GAMES else None
    if path is None or not path.is_file():
        raise HTTPException(404, f"no drawing for game {game[:40]!r}")
    return FileResponse(path, media_type="text/javascript")


PAGES = [
    "/",
    "/games/{game}",
    "/games/{game}/bots/{bot:path}",
    "/games/{game}/head-to-head",
    "/tournaments/{tournament_id}",
    "/matches",
    "/matches/{match_id}",
]


def routes(source: Source, writes: bool) -> list[BaseRoute]:
    """Returns the app's routes: the read API (over Redis all of it; over files what a replay page
    reads), with ``writes`` the write API, the old paths' redirects, the pages and the static files."""
    api: list[tuple[str, Any, str]] = [  # (path, handler, method)
        ("/games", reads.games, "GET"),
        ("/stamp", reads.stamp, "GET"),
        ("/matches", reads.matches, "GET"),
        ("/matches/{match_id}", reads.match, "GET"),
        ("/matches/{match_id}/replay", reads.replay, "GET"),
    ]
    if source.client is not None:
        api += [
            ("/games/{game}/leaderboard", reads.leaderboard, "GET"),
            ("/games/{game}/results", reads.results, "GET"),
            ("/games/{game}/bots/{bot:path}", reads.bot_page, "GET"),
            ("/games/{game}/head-to-head", reads.head_to_head, "GET"),
            ("/bots", bots.list_bots, "GET"),
            ("/bots/{name}", bots.show_bot, "GET"),
            ("/tournaments", tournaments.list_tournaments, "GET"),
            ("/tournaments/{tournament_id}", tournaments.show_tournament, "GET"),
            ("/tournaments/{tournament_id}/results", tournaments.tournament_results, "GET"),
            ("/matches/{match_id}/log", tournaments.match_log, "GET"),
            ("/matches/{match_id}/log/{seat:int}", tournaments.seat_log, "GET"),
        ]
    if source.client is not None and writes:
        api += [
            ("/bots/{name}", bots.submit_bot, "POST"),
            ("/bots/{name}", bots.remove_bot, "DELETE"),
            ("/account", accounts.show_own, "GET"),
            ("/accounts", accounts.list_accounts, "GET"),
            ("/accounts/{name}", accounts.create_account, "POST"),
            ("/accounts/{name}/approve", accounts.approve_account, "POST"),
            ("/accounts/{name}/disable", accounts.disable_account, "POST"),
            ("/tournaments", tournaments.create_tournament, "POST"),
            ("/ladders", ladders.list_ladders, "GET"),
            ("/ladders", ladders.start_ladder, "POST"),
            ("/ladders/{ladder_id}", ladders.stop_ladder, "DELETE"),
            ("/games/{game}/collusion", collusion.report, "GET"),
            *participant.ROUTES,  # the participant's page: its session and the API through it
        ]
    anything = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    return [
        *(Route(f"{API}{path}", handler, methods=[method]) for path, handler, method in api),
        Route(f"{API}/{{rest:path}}", no_such_endpoint, methods=anything),
        *redirects.routes(),
        Route("/static/viewers/{game}.js", game_viewer),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        *(Route(path, page) for path in PAGES),
        *(Route(path, participant.page) for path in participant.PAGES),
    ]


class App(Starlette):
    """Starlette with ``SecurityHeaders`` outside everything, even the handler of a crash's 500."""

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack())


def _lifespan(writes: bool) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    """Returns the app's lifespan: with ``writes``, the ladders' (resumed at the start, stopped at
    exit); always, the source closed at exit (its replay re-running process stopped)."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            if writes:
                async with ladders.lifespan(app):
                    yield
            else:
                yield
        finally:
            await off_loop(app.state.source.close)

    return lifespan


def create_app(source: Source, server: ServerConfig | None = None) -> Starlette:
    """Returns the app over ``source``; with ``server`` (a Redis source) the write API too, with its
    limits, credentials and the ladders it feeds (resumed when the app starts)."""
    writes = server is not None and isinstance(source, RedisSource)
    config = server or ServerConfig()
    middleware = [Middleware(GZipMiddleware, minimum_size=1000)]
    if writes:
        bucket = TokenBucket(config.writes_per_minute, config.write_burst)
        middleware.insert(0, Middleware(RateLimitMiddleware, bucket=bucket))
    app = App(
        routes=routes(source, writes),
        middleware=middleware,
        exception_handlers={
            ApiError: api_error,
            HTTPException: http_error,
            redis.RedisError: redis_down,
            Exception: server_failed,
        },
        lifespan=_lifespan(writes),
    )
    app.state.source = source
    app.state.client = source.client
    app.state.config = config
    app.state.uploads = UploadSlots(config.uploads, config.body_seconds)
    failures = TokenBucket(config.auth_failures_per_minute, config.auth_failure_burst)
    app.state.auth = Authenticator(config.organiser, failures, config.secret_checks)
    app.state.account_creations = TokenBucket(config.accounts_per_hour / 60, config.accounts_per_hour)
    if writes:
        assert isinstance(source, RedisSource)
        app.state.ladders = LadderRunner(source.redis, source.url)
    return app


def server_app(
    redis_url: str, config: ServerConfig, client: redis.Redis | None = None, warm: bool = False
) -> Starlette:
    """Returns ``arena server``'s app over the Redis at ``redis_url``: no bot's output on public pages.
    With ``warm``, the process that re-runs replays starts now (``Renderer.warm``), not at the first
    replay asked for."""
    source = RedisSource(redis_url, client, bot_output=False)
    if warm:
        source.renderer.warm()
    return create_app(source, config)


def leaderboard_app(redis_url: str, client: redis.Redis | None = None) -> Starlette:
    """Returns this machine's leaderboard over the Redis at ``redis_url``: every read, no write."""
    return create_app(RedisSource(redis_url, client, bot_output=True))


def view_app(files: dict[str, Path]) -> Starlette:
    """Returns ``arena view``'s app over replay files (id -> path)."""
    return create_app(FileSource(files))
