"""The organiser's collusion report: ``GET /api/v1/games/{game}/collusion`` (organiser token).

Answers ``arena.ratings.collusion.Report.to_json`` with the game's name: every pair of accounts (or
bots without one) that shared a table, strongest evidence first, each with its tests (``above``,
``yields``, ``leak``, ``sync``), raw and Holm-corrected p-values and whether it is flagged. Query:
``top`` (pairs shown, default 20, at most 500), ``last`` (only the latest N recorded matches; default
all), ``alpha`` (the family-wise false-alarm rate of the flags, default ``FLAG_ALPHA``). Only the
organiser may read it: it names who is suspected, which is no participant's business, and it costs
a refit and a re-run of every match with a stored log (seconds for thousands of matches), which an
anonymous client must not be able to ask for in a loop.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.ratings.collusion import FLAG_ALPHA
from arena.storage import collusion
from leaderboard.api.auth import credentials
from leaderboard.api.bots import state
from leaderboard.http import ApiError, bearer, off_loop
from leaderboard.sources import game_name

MAX_TOP = 500


def _number(
    request: Request, name: str, kind: type, default: float | None, low: float, high: float
) -> float | None:
    """Returns the query parameter ``name`` as ``kind`` within [low, high], ``default`` without it;
    raises ApiError(400) for anything else."""
    text = request.query_params.get(name)
    if text is None:
        return default
    try:
        value = kind(text)
    except ValueError:
        raise ApiError(400, f"{name} must be a number, not {text[:20]!r}") from None
    if not low <= value <= high:
        raise ApiError(400, f"{name} must be between {low:g} and {high:g}")
    return float(value)


async def report(request: Request) -> Response:
    """``GET /api/v1/games/{game}/collusion``: the game's collusion report (organiser token)."""
    await credentials(request).organiser(bearer(request))
    name = game_name(request.path_params["game"])
    top = int(_number(request, "top", int, 20, 1, MAX_TOP) or 20)
    last = _number(request, "last", int, None, 1, 10**9)
    alpha = _number(request, "alpha", float, FLAG_ALPHA, 1e-9, 0.5) or FLAG_ALPHA
    client = state(request).client

    def read() -> dict:
        found = collusion.report(client, name, alpha, None if last is None else int(last))
        return {"game": name, **found.to_json(top)}

    return JSONResponse(await off_loop(read))
