"""The server's ASGI app: the JSON API under ``/api/v1`` and the leaderboard's pages and read API
(``leaderboard.app``) mounted beside it, behind one rate limiter for writes. The public pages show
replays, results and think times but no bot's output, which its owner reads with the bot's secret.

Every API answer is JSON; every error is ``{"error": "one line saying what to do"}`` with its status:
400 a malformed request, 401 a missing credential, 403 a wrong one, 404 nothing there, 408 a body that
came too slowly, 413 a body over its limit, 422 a submission or tournament refused, 429 too many writes
or failed authentications, 503 Redis unreachable or every upload or secret-check slot taken (with
``Retry-After``).
"""

from __future__ import annotations

import dataclasses

import redis
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route

from arena.queue.connection import connect
from arena.schedule.ladder_runner import LadderRunner
from arena.server import routes_bots, routes_ladders, routes_tournaments
from arena.server.auth import Authenticator, OrganiserToken
from arena.server.http import ApiError, UploadSlots, api_error, error_response
from arena.server.ratelimit import RateLimitMiddleware, TokenBucket
from arena.submissions.archives import ArchiveLimits
from leaderboard.app import create_app as leaderboard_app

API = "/api/v1"


WORKER_LIMITS = ArchiveLimits()  # what every worker checks a bot against when it unpacks it


@dataclasses.dataclass(frozen=True)
class ServerConfig:
    """What the server allows: archive limits (a bot upload's body is at most ``packed_bytes``), the
    largest JSON body, how long a body may take to arrive, how many uploads are read at once, the write
    rate per client address, the failed authentications allowed per client address and per credential
    (a bot's name, the organiser token), how many secrets are hashed at once (``arena.server.auth``), and
    the organiser token's hash. Raises ValueError for archive limits over the workers' (``check_limits``)
    and for limits that allow nothing."""

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

    def __post_init__(self) -> None:
        check_limits(self.archive_limits)
        if self.body_seconds <= 0:
            raise ValueError("the body time limit must be positive")
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


async def no_such_endpoint(request: Request) -> Response:
    """Returns the JSON 404 of a path under /api/v1 that names no endpoint."""
    return error_response(404, f"no endpoint {request.method} {request.url.path}: see docs/security.md")


async def http_error(request: Request, exc: Exception) -> Response:
    """Returns Starlette's own HTTP errors (405 and the like) as JSON errors."""
    assert isinstance(exc, HTTPException)
    return error_response(exc.status_code, f"{exc.detail}: {request.method} {request.url.path}", exc.headers)


async def redis_down(request: Request, exc: Exception) -> Response:
    """Returns 503 when Redis cannot be reached, so the client can say 'try again later'."""
    return error_response(503, "the server's store is unreachable right now: try again in a minute")


async def server_failed(request: Request, exc: Exception) -> Response:
    """Returns a failure of the server's own code as a JSON 500 (its traceback goes to the server's
    log, never to the client)."""
    return error_response(500, "the server failed on this request: try again; tell the organiser if it lasts")


def routes() -> list[Route]:
    """Returns the API's routes."""
    bots, tournaments = routes_bots, routes_tournaments
    return [
        Route(f"{API}/bots", bots.list_bots, methods=["GET"]),
        Route(f"{API}/bots/{{name}}", bots.show_bot, methods=["GET"]),
        Route(f"{API}/bots/{{name}}", bots.submit_bot, methods=["POST"]),
        Route(f"{API}/bots/{{name}}", bots.remove_bot, methods=["DELETE"]),
        Route(f"{API}/tournaments", tournaments.list_tournaments, methods=["GET"]),
        Route(f"{API}/tournaments", tournaments.create_tournament, methods=["POST"]),
        Route(f"{API}/tournaments/{{tournament_id}}", tournaments.show_tournament, methods=["GET"]),
        Route(
            f"{API}/tournaments/{{tournament_id}}/results", tournaments.tournament_results, methods=["GET"]
        ),
        Route(f"{API}/matches/{{match_id}}/log", tournaments.match_log, methods=["GET"]),
        Route(f"{API}/matches/{{match_id}}/log/{{seat:int}}", tournaments.seat_log, methods=["GET"]),
        Route(f"{API}/ladders", routes_ladders.list_ladders, methods=["GET"]),
        Route(f"{API}/ladders", routes_ladders.start_ladder, methods=["POST"]),
        Route(f"{API}/ladders/{{ladder_id}}", routes_ladders.stop_ladder, methods=["DELETE"]),
        Route(
            f"{API}/{{rest:path}}",
            no_such_endpoint,
            methods=["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
        ),
    ]


def create_app(redis_url: str, config: ServerConfig, client: redis.Redis | None = None) -> Starlette:
    """Returns the server app over the Redis at ``redis_url``, with the leaderboard mounted at /."""
    client = client or connect(redis_url)
    bucket = TokenBucket(config.writes_per_minute, config.write_burst)
    app = Starlette(
        routes=[*routes(), Mount("/", leaderboard_app(redis_url, client, bot_output=False))],
        middleware=[Middleware(RateLimitMiddleware, bucket=bucket)],
        exception_handlers={
            ApiError: api_error,
            HTTPException: http_error,
            redis.RedisError: redis_down,
            Exception: server_failed,
        },
        lifespan=routes_ladders.lifespan,  # resumes the recorded ladders, stops their threads at exit
    )
    app.state.client = client
    app.state.config = config
    app.state.uploads = UploadSlots(config.uploads, config.body_seconds)
    failures = TokenBucket(config.auth_failures_per_minute, config.auth_failure_burst)
    app.state.auth = Authenticator(config.organiser, failures, config.secret_checks)
    app.state.ladders = LadderRunner(client, redis_url)
    return app
