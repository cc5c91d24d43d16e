"""The ASGI app: a JSON API over ``leaderboard.data`` and the HTML pages that use it.

Why Starlette: the app is a handful of read-only routes, JSON responses and static files. Starlette
gives exactly that (routing, ``StaticFiles``, gzip, a test client) as a small, well-kept ASGI library
without an ORM or template engine to carry, and uvicorn serves it.

Every page is the same HTML shell (``static/index.html``); ``static/app.js`` reads the path, fetches
the API and builds the DOM with ``textContent`` only, so a bot-supplied string can never become
markup. Pages poll ``/api/stamp`` and re-fetch when a result arrives, so a running tournament shows
up without a reload.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import threading
from pathlib import Path
from typing import Any

import redis
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import arena
from arena.games import GameError, get_game
from arena.queue.connection import connect
from arena.referee import botlog
from arena.referee.replay import ReplayError
from arena.storage import replays
from leaderboard import data, frames

STATIC = Path(__file__).with_name("static")
VIEW_STATIC = Path(arena.__file__).with_name("view_static")
FRAME_CACHE_SIZE = 16  # re-run replays kept in memory (a replay never changes once recorded)
SECURITY_HEADERS = {
    # Design detail: no inline script or style is allowed, so even markup that slipped into the page
    # could not run; the page's own files come from /static.
    "Content-Security-Policy": "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'",
    "X-Content-Type-Options": "nosniff",
}


class NotFound(Exception):
    """The game, bot or match asked for does not exist."""


class BadRequest(Exception):
    """A query parameter the API cannot use (a limit out of range, a cursor it did not hand out)."""


OWNER_ONLY = (  # what a public replay says instead of the bots' output (docs/security.md)
    "Bot output is shown only to each bot's owner: GET /api/v1/matches/MATCH/log/SEAT with the bot's "
    "secret. Think times are public."
)


class Backend:
    """The app's state: the Redis client and the re-run replays (fits are cached in Redis).
    ``bot_output`` False (``arena server``): replays carry think times but no bot's output, which is
    its owner's; True (this machine's own leaderboard): everything."""

    def __init__(self, client: redis.Redis, bot_output: bool = True) -> None:
        self.client = client
        self.bot_output = bot_output
        self._frames: collections.OrderedDict[str, dict[str, Any]] = collections.OrderedDict()
        self._lock = threading.Lock()  # handlers run in a thread pool

    def replay(self, match_id: str) -> dict[str, Any]:
        """Returns the match's replay as frames, re-running it only on the first request."""
        with self._lock:
            if match_id in self._frames:
                self._frames.move_to_end(match_id)
                return self._frames[match_id]
        text = data.replay_text(self.client, match_id)
        if text is None:
            raise NotFound(f"no replay of match {match_id!r}")
        replay = frames.frames(text)
        stored_log = replays.store_for(self.client).get(match_id, botlog.STORE_KIND)
        if stored_log is not None:  # the bots' output per step and think times (arena/view_static/view.js)
            with contextlib.suppress(botlog.MatchLogError):
                log = botlog.parse_match_log(stored_log.decode("utf-8", errors="replace"), match_id)
                found = {"found": True} if self.bot_output else {"found": False, "problem": OWNER_ONLY}
                if not self.bot_output:
                    log = dataclasses.replace(log, lines=(), cut="")
                replay = frames.with_match_log(replay, log) | {"match_log": found}
        with self._lock:
            self._frames[match_id] = replay
            while len(self._frames) > FRAME_CACHE_SIZE:
                self._frames.popitem(last=False)
        return replay


def game_name(name: str) -> str:
    """Returns the registered name of a game (aliases accepted); raises NotFound."""
    try:
        return get_game(name).spec.name
    except GameError as exc:
        raise NotFound(str(exc)) from None


def backend(request: Request) -> Backend:
    """Returns the app's Backend (one per app, shared by every request)."""
    return request.app.state.backend


def api_games(request: Request) -> Response:
    """Returns every game with its title, player counts, recorded matches and rated bots."""
    return JSONResponse(data.games(backend(request).client))


def api_stamp(request: Request) -> Response:
    """Returns each game's count of recorded results: the pages poll it to know when to refresh."""
    return JSONResponse(data.stamp(backend(request).client))


def api_leaderboard(request: Request) -> Response:
    """Returns a game's fitted view: ``matches``, ``rows`` (as ``arena leaderboard GAME --json``) and
    ``pairs`` (as ``arena leaderboard GAME --json --pairs``)."""
    game = game_name(request.path_params["game"])
    board = data.leaderboard(backend(request).client, game)
    return JSONResponse(
        {"game": game, "matches": board["matches"], "rows": board["rows"], "pairs": board["pairs"]}
    )


def api_bot(request: Request) -> Response:
    """Returns a bot's row, every version's rating, head-to-head table and first page of recent
    matches in one game (``recent_next``: the cursor of the next page, for ``/api/matches``)."""
    game, bot = game_name(request.path_params["game"]), request.path_params["bot"]
    page = data.bot_page(backend(request).client, game, bot, limit(request, 20))
    if page is None:
        raise NotFound(f"no recorded match of {game} has a bot named {bot!r}")
    return JSONResponse(page)


def api_head_to_head(request: Request) -> Response:
    """Returns bots ``a`` and ``b``'s record against each other in a game and a page of their
    meetings, newest first (``?cursor=``, ``?limit=``; ``next_cursor``)."""
    game = game_name(request.path_params["game"])
    pair = (request.query_params.get("a", ""), request.query_params.get("b", ""))
    if not all(pair) or pair[0] == pair[1]:
        raise BadRequest("name two different bots: /api/head-to-head/GAME?a=BOT&b=OTHER")
    found = data.head_to_head(backend(request).client, game, pair, limit(request, 20), cursor(request))
    if found is None:
        raise NotFound(f"no recorded match of {game} has both bots {pair[0]!r} and {pair[1]!r}")
    return JSONResponse(found)


def api_tournaments(request: Request) -> Response:
    """Returns the most recent tournaments, newest first."""
    return JSONResponse(data.tournaments(backend(request).client))


def api_tournament(request: Request) -> Response:
    """Returns a tournament's standings and crosstable (as ``arena tournament standings ID --json``)."""
    tournament_id = request.path_params["tournament_id"]
    found = data.tournament(backend(request).client, tournament_id)
    if found is None:
        raise NotFound(f"no tournament {tournament_id!r}")
    return JSONResponse(found)


def api_matches(request: Request) -> Response:
    """Returns a page of the newest recorded matches, filtered by ``game`` and ``bot`` when given
    (``?cursor=``, ``?limit=``): ``{"matches": [...], "next_cursor": ...}``."""
    game = request.query_params.get("game") or None
    bot = request.query_params.get("bot") or None
    name = game_name(game) if game else None
    page = data.matches(backend(request).client, name, bot, limit(request, 100), cursor(request))
    return JSONResponse(page.to_json())


def limit(request: Request, default: int) -> int:
    """Returns the ``limit`` query parameter (``default`` if absent); raises BadRequest unless it is a
    whole number from 1 to ``data.MAX_LIMIT``."""
    text = request.query_params.get("limit", "")
    if not text:
        return default
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= data.MAX_LIMIT:
        raise BadRequest(f"limit must be a whole number from 1 to {data.MAX_LIMIT}, not {text[:40]!r}")
    return int(text)


def cursor(request: Request) -> str | None:
    """Returns the ``cursor`` query parameter: the ``next_cursor`` of the previous page, or None."""
    return request.query_params.get("cursor") or None


def api_match(request: Request) -> Response:
    """Returns one match's stored result."""
    match_id = request.path_params["match_id"]
    found = data.match(backend(request).client, match_id)
    if found is None:
        raise NotFound(f"no recorded match {match_id!r}")
    return JSONResponse(found)


def api_replay(request: Request) -> Response:
    """Returns one match's replay re-run into frames (see ``leaderboard.frames``)."""
    try:
        return JSONResponse(backend(request).replay(request.path_params["match_id"]))
    except (ReplayError, replays.ReplayStoreError) as exc:  # corrupt, or kept as decisions of other rules
        return JSONResponse({"error": f"the stored replay does not re-run: {exc}"}, status_code=500)


def page(request: Request) -> Response:
    """Returns the HTML shell every page shares; app.js draws the page the path names."""
    return FileResponse(STATIC / "index.html")


async def not_found(request: Request, exc: Exception) -> Response:
    """Returns a 404 naming what was not found."""
    return JSONResponse({"error": str(exc)}, status_code=404)


async def bad_request(request: Request, exc: Exception) -> Response:
    """Returns a 400 saying what was wrong with the request and what to send instead."""
    return JSONResponse({"error": str(exc)}, status_code=400)


async def http_error(request: Request, exc: Exception) -> Response:
    """Returns Starlette's own errors (no such path, method not allowed) as JSON errors under /api/,
    as every other answer there; pages keep the plain text."""
    assert isinstance(exc, HTTPException)
    if not request.url.path.startswith("/api/"):
        return PlainTextResponse(exc.detail, status_code=exc.status_code, headers=exc.headers)
    message = f"{exc.detail}: {request.method} {request.url.path[:200]}"
    return JSONResponse({"error": message}, status_code=exc.status_code, headers=exc.headers)


async def security_headers(request: Request, call_next: Any) -> Response:
    """Returns the response with the content policy that forbids inline script and style."""
    response = await call_next(request)
    response.headers.update(SECURITY_HEADERS)
    return response


def create_app(redis_url: str, client: redis.Redis | None = None, bot_output: bool = True) -> Starlette:
    """Returns the app reading the tournament data at ``redis_url``; ``bot_output`` False serves no
    bot's output in replays (``Backend``)."""
    routes = [
        Route("/api/games", api_games),
        Route("/api/stamp", api_stamp),
        Route("/api/leaderboard/{game}", api_leaderboard),
        Route("/api/bots/{game}/{bot:path}", api_bot),
        Route("/api/head-to-head/{game}", api_head_to_head),
        Route("/api/tournaments", api_tournaments),
        Route("/api/tournaments/{tournament_id}", api_tournament),
        Route("/api/matches", api_matches),
        Route("/api/matches/{match_id}", api_match),
        Route("/api/matches/{match_id}/replay", api_replay),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Mount("/local", StaticFiles(directory=VIEW_STATIC), name="local"),  # the log panel and think chart
        Route("/", page),
        Route("/games/{game}", page),
        Route("/games/{game}/bots/{bot:path}", page),
        Route("/games/{game}/head-to-head", page),
        Route("/tournaments/{tournament_id}", page),
        Route("/matches", page),
        Route("/matches/{match_id}", page),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(BaseHTTPMiddleware, dispatch=security_headers),
            Middleware(GZipMiddleware, minimum_size=1000),
        ],
        exception_handlers={
            NotFound: not_found,
            BadRequest: bad_request,
            data.CursorError: bad_request,
            HTTPException: http_error,
        },
    )
    app.state.backend = Backend(client or connect(redis_url), bot_output)
    return app
