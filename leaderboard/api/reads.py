"""The read API the pages draw: games, leaderboards, a bot's page, head to head, matches and replays.

``GET /api/v1/games`` lists every game with its title, player counts, recorded matches and rated bots;
``GET /api/v1/stamp`` each game's count of recorded results (the pages poll it to know when to
refresh); ``GET /api/v1/games/{game}/leaderboard`` a game's fitted view (``matches``, ``rows`` as
``arena leaderboard GAME --json``, ``pairs`` as ``--pairs``); ``GET /api/v1/games/{game}/bots/{bot}``
a bot's row, every version's rating, its head-to-head table and its recent matches;
``GET /api/v1/games/{game}/results`` every recorded match's placements, oldest first, as ``arena
results GAME --json`` prints them (what the ratings are fitted to, so anyone can refit them);
``GET /api/v1/games/{game}/head-to-head?a=BOT&b=OTHER`` two bots' record and meetings;
``GET /api/v1/matches?game=&bot=`` the newest recorded matches; ``GET /api/v1/matches/{id}`` one
match's result and ``.../replay`` its replay re-run into frames (``leaderboard.frames``). Lists come
a page at a time (``?limit=``, ``?after=``: ``leaderboard.http``).

The routes every replay page reads (games, stamp, a match, its replay) ask the app's source
(``leaderboard.sources``: Redis, or ``arena view``'s files); the others read Redis through
``leaderboard.data``, which writes nothing.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable
from typing import Any, TypeVar

import redis
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from leaderboard import data
from leaderboard.http import ApiError, off_loop, page_after, page_limit, path_param
from leaderboard.sources import Source, game_name

T = TypeVar("T")


def source(request: Request) -> Source:
    """Returns the app's source of matches (one per app, shared by every request)."""
    return request.app.state.source


def client(request: Request) -> redis.Redis:
    """Returns the app's Redis client (only routes served over Redis ask for it)."""
    found = source(request).client
    assert found is not None, "a route that reads Redis is served over Redis only"
    return found


def paged(function: Callable[..., T], *args: Any) -> T:
    """Returns ``function(*args)``, a read of one page, with a position no page handed out as 400."""
    try:
        return function(*args)
    except data.PageError as exc:
        raise ApiError(400, str(exc)) from None


async def games(request: Request) -> Response:
    """``GET /api/v1/games``: every game with its title, player counts, matches and rated bots."""
    return JSONResponse(await off_loop(source(request).games))


async def stamp(request: Request) -> Response:
    """``GET /api/v1/stamp``: each game's count of recorded results (it changes with every result)."""
    return JSONResponse(await off_loop(source(request).stamp))


async def leaderboard(request: Request) -> Response:
    """``GET /api/v1/games/{game}/leaderboard``: the game's fitted view (with its draw ratio: the
    share of pairwise results drawn, null before any result; and ``los``, every pair's likelihood of
    superiority, null in a view cached before views held it, until its next refit; ``seat_advantage``,
    each seat's fitted advantage over seat 0 per table size, empty for a game fitted without one)."""
    game = game_name(path_param(request, "game"))
    board = await off_loop(data.leaderboard, client(request), game)
    fields = {"game": game, "matches": board["matches"], "rows": board["rows"], "pairs": board["pairs"]}
    extra = {"draw_ratio": board.get("draw_ratio"), "los": board.get("los")}
    return JSONResponse(fields | extra | {"seat_advantage": board.get("seat_advantage", [])})


async def results(request: Request) -> Response:
    """``GET /api/v1/games/{game}/results?limit=100&after=``: a page of the game's recorded matches'
    placements, oldest first: ``{"results": [{"match_id", "players": [{"bot", "version", "rank"}]}],
    "next"}``."""
    game = game_name(path_param(request, "game"))
    args = (client(request), game, page_after(request), page_limit(request, 100))
    return JSONResponse(await off_loop(paged, data.results_page, *args))


async def bot_page(request: Request) -> Response:
    """``GET /api/v1/games/{game}/bots/{bot}``: a bot's row, every version's rating, head-to-head
    table and first page of recent matches (``recent_next``: the ``after`` of the next page of
    ``/api/v1/matches?game=GAME&bot=BOT``)."""
    game, bot = game_name(path_param(request, "game")), path_param(request, "bot")
    page = await off_loop(data.bot_page, client(request), game, bot, page_limit(request, 20))
    if page is None:
        raise ApiError(404, f"no recorded match of {game} has a bot named {bot!r}")
    return JSONResponse(page)


async def head_to_head(request: Request) -> Response:
    """``GET /api/v1/games/{game}/head-to-head?a=BOT&b=OTHER``: the two bots' record against each
    other and a page of their meetings, newest first."""
    game = game_name(path_param(request, "game"))
    pair = (request.query_params.get("a", ""), request.query_params.get("b", ""))
    if not all(pair) or pair[0] == pair[1]:
        raise ApiError(400, "name two different bots: /api/v1/games/GAME/head-to-head?a=BOT&b=OTHER")
    args = (client(request), game, pair, page_limit(request, 20), page_after(request))
    found = await off_loop(paged, data.head_to_head, *args)
    if found is None:
        raise ApiError(404, f"no recorded match of {game} has both bots {pair[0]!r} and {pair[1]!r}")
    return JSONResponse(found)


async def matches(request: Request) -> Response:
    """``GET /api/v1/matches[?game=G][&bot=B]``: a page of the newest recorded matches, game by
    game (``arena view``: its files, newest first): ``{"matches": [...], "next": ...}``."""
    game = request.query_params.get("game") or None
    bot = request.query_params.get("bot") or None
    name = game_name(game) if game else None
    args = (name, bot, page_limit(request, 100), page_after(request))
    page = await off_loop(paged, source(request).matches, *args)
    return JSONResponse(page.to_json())


async def match(request: Request) -> Response:
    """``GET /api/v1/matches/{id}``: one match's result."""
    return JSONResponse(await off_loop(source(request).match, path_param(request, "match_id")))


async def replay(request: Request) -> Response:
    """``GET /api/v1/matches/{id}/replay``: one match's replay re-run into frames, sent gzipped as
    kept (``leaderboard.rerun``) to a client that accepts gzip, else decompressed."""
    gzipped = await off_loop(source(request).replay, path_param(request, "match_id"))
    vary = {"Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", "").lower():
        return Response(gzipped, media_type="application/json", headers=vary | {"Content-Encoding": "gzip"})
    return Response(await off_loop(gzip.decompress, gzipped), media_type="application/json", headers=vary)
