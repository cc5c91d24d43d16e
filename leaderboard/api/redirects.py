"""The unversioned read API's old paths (``/api/games``, ``/api/matches``, ...), kept for one release as
redirects to their ``/api/v1`` homes.

Each answers ``307 Temporary Redirect`` to the route that answers the same question now, with the same
query (the old ``?cursor=`` renamed ``?after=``, as every list of the API pages now). What changed on
the way, besides the paths (docs/api.md):

- pages say ``next`` where the old answers said ``next_cursor`` (``/api/matches``, head to head);
- ``/api/tournaments`` was the list of recent tournaments alone: ``/api/v1/tournaments`` has it as
  ``tournaments``, beside the queue's state;
- ``/api/tournaments/{id}`` was the standings alone: ``/api/v1/tournaments/{id}`` has them as
  ``standings``, beside the tournament's progress;
- error messages are the ``/api/v1`` routes' own.

Delete this module (and its routes in ``leaderboard.app``) in the release after.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

API = "/api/v1"


def part(value: object) -> str:
    """Returns a path parameter quoted as one segment of a path ("/" included)."""
    return quote(str(value), safe="")


MOVED: list[tuple[str, Callable[[dict], str]]] = [  # old path -> its /api/v1 home
    ("/api/games", lambda p: f"{API}/games"),
    ("/api/stamp", lambda p: f"{API}/stamp"),
    ("/api/leaderboard/{game}", lambda p: f"{API}/games/{part(p['game'])}/leaderboard"),
    ("/api/bots/{game}/{bot:path}", lambda p: f"{API}/games/{part(p['game'])}/bots/{part(p['bot'])}"),
    ("/api/head-to-head/{game}", lambda p: f"{API}/games/{part(p['game'])}/head-to-head"),
    ("/api/tournaments", lambda p: f"{API}/tournaments"),
    ("/api/tournaments/{tournament_id}", lambda p: f"{API}/tournaments/{part(p['tournament_id'])}"),
    ("/api/matches", lambda p: f"{API}/matches"),
    ("/api/matches/{match_id}", lambda p: f"{API}/matches/{part(p['match_id'])}"),
    ("/api/matches/{match_id}/replay", lambda p: f"{API}/matches/{part(p['match_id'])}/replay"),
]


def renamed(parameter: str) -> str:
    """Returns one ``name=value`` of a query as sent, ``cursor`` renamed ``after``."""
    name, equals, value = parameter.partition("=")
    return f"after{equals}{value}" if name == "cursor" else parameter


def moved_to(home: Callable[[dict], str]) -> Callable[[Request], object]:
    """Returns the handler that redirects an old path to ``home(path parameters)``."""

    async def moved(request: Request) -> Response:
        query = "&".join(renamed(part) for part in request.url.query.split("&") if part)
        target = home(request.path_params) + (f"?{query}" if query else "")
        return RedirectResponse(target, status_code=307)

    return moved


def routes() -> list[Route]:
    """Returns the old paths' routes (GET and HEAD; any other method answers 405)."""
    return [Route(path, moved_to(home), methods=["GET", "HEAD"]) for path, home in MOVED]
