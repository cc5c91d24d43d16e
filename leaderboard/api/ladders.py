"""The ladders API: the organiser starts and stops ladders the server keeps fed; anyone lists them.

``POST /api/v1/ladders`` takes ``{"game", "bots": [...], "players", "seed", "deadline_ms",
"random_share", "ahead", "until_los"}`` (organiser token; ``until_los``: the ladder stops by itself
once every neighbour's LOS reaches it, as ``arena ladder --until-confident``; left out, it runs until
stopped): every parameter is checked as ``arena ladder`` checks it
(``arena.schedule.ladder.make_spec``, each bot submitted or built in) before anything is stored. It answers
201 with the ladder (``arena.schedule.ladder_runner.LadderRunner.describe``) when it started it, or
resumed one stopped earlier with the same spec and seed, and 200 when that ladder was running already. A seed
left out is drawn at random and returned. ``DELETE /api/v1/ladders/{id}`` stops one (organiser token) and
answers once nothing more will be scheduled; ``GET /api/v1/ladders`` lists the running (and failed)
ladders with their match counts.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.ratings.pairing import RANDOM_SHARE
from arena.schedule.ladder import LadderError, make_spec
from arena.schedule.ladder_runner import AHEAD_DEFAULT, LadderRunner
from leaderboard.api.auth import credentials
from leaderboard.api.bots import state
from leaderboard.api.tournaments import parameters
from leaderboard.http import ApiError, bearer, off_loop, read_json

FIELDS: dict[str, tuple[type, Any]] = {  # the body's fields: name -> (type, default)
    "game": (str, None),
    "bots": (list, None),
    "players": (int, 2),
    "seed": (int, None),
    "deadline_ms": (int, 2000),
    "random_share": (float, RANDOM_SHARE),
    "ahead": (int, AHEAD_DEFAULT),
    "until_los": (float, None),
}


def runner(request: Request) -> LadderRunner:
    """Returns the server's ``LadderRunner`` (``app.state.ladders``)."""
    return state(request).ladders


async def organiser(request: Request) -> None:
    """Returns if the request carries the organiser token; raises 401, 403, 429 or 503 as the other
    organiser routes do (its hash runs off the event loop)."""
    await credentials(request).organiser(bearer(request))


async def start_ladder(request: Request) -> Response:
    """``POST /api/v1/ladders``: starts or resumes a ladder (201), 200 if it runs already."""
    await organiser(request)
    body = await read_json(request, state(request).config.json_bytes)
    for name in ("random_share", "until_los"):  # JSON's 0 and 1 are shares too
        share = body.get(name)
        if isinstance(share, int) and not isinstance(share, bool):
            body[name] = float(share)
    p = parameters(body, FIELDS)

    def start() -> tuple[dict[str, Any], bool]:
        try:
            args = (p["game"], p["bots"], p["players"], p["seed"], p["deadline_ms"], p["random_share"])
            spec = make_spec(*args)
            return runner(request).start(spec, p["ahead"], p["until_los"])
        except (ValueError, LadderError) as exc:
            raise ApiError(422, str(exc)) from None

    shown, started = await off_loop(start)
    return JSONResponse(shown, status_code=201 if started else 200)


async def list_ladders(request: Request) -> Response:
    """``GET /api/v1/ladders``: the ladders the server runs (and failed ones), with match counts."""
    return JSONResponse({"ladders": await off_loop(runner(request).listing)})


async def stop_ladder(request: Request) -> Response:
    """``DELETE /api/v1/ladders/{id}``: stops a ladder; answers once it schedules nothing more."""
    await organiser(request)
    ladder_id = request.path_params["ladder_id"]
    if not (0 < len(ladder_id) <= 64 and ladder_id.replace("-", "").isalnum()):
        raise ApiError(400, f"malformed ladder id {ladder_id[:40]!r}: see GET /api/v1/ladders")
    stopped = await off_loop(runner(request).stop, ladder_id)
    if stopped is None:
        raise ApiError(404, f"no ladder {ladder_id!r} runs here: see GET /api/v1/ladders")
    return JSONResponse(stopped)


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    """Resumes the recorded ladders when the server starts, and stops their threads when it stops.

    Design detail: resuming runs in a thread of its own, so a server whose Redis is not up yet still
    starts (and answers 503) while the resume retries."""
    ladders: LadderRunner = app.state.ladders
    threading.Thread(target=ladders.resume, name="resume ladders", daemon=True).start()
    try:
        yield
    finally:
        await off_loop(ladders.close)
