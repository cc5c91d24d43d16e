"""The tournaments API: create one (organiser token), read the queue, a tournament's standings, its
results page by page, and a match's log (its replay and, for a failed job, the error). A seat's output
(what its bot wrote, stamped by decision step) is its owner's: ``GET /api/v1/matches/{id}/log/{seat}``
with the bot's owner secret as bearer token.

``POST /api/v1/tournaments`` takes ``{"game", "bots": [...], "format", "players", "rounds", "seed",
"duplicate_deals", "deadline_ms"}``; every parameter is checked (``arena.schedule.tournaments``) before a
single match is queued. A seed left out is drawn at random and returned.
"""

from __future__ import annotations

import secrets
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from arena.queue import keys, store
from arena.referee import botlog
from arena.schedule import tournaments
from arena.storage import replays
from leaderboard.api.auth import Credentials, credentials
from leaderboard.api.bots import state
from leaderboard.http import ApiError, bearer, off_loop, page_after, page_limit, read_json

SEED_BITS = 40  # a seed drawn for the organiser (as ``arena tournament`` does)
FIELDS = {  # the body's fields: name -> (type, default)
    "game": (str, None),
    "bots": (list, None),
    "format": (str, "round-robin"),
    "players": (int, 2),
    "rounds": (int, 1),
    "seed": (int, None),
    "duplicate_deals": (bool, False),
    "deadline_ms": (int, 2000),
}


OPTIONAL = frozenset({"seed", "until_los"})  # fields that may be left out or null: drawn, or not used


def parameters(body: dict[str, Any], fields: dict[str, tuple[type, Any]] = FIELDS) -> dict[str, Any]:
    """Returns the body's fields with defaults filled in; raises 400 for an unknown, missing or
    mistyped field (``fields``: name -> (type, default), as ``FIELDS``; ladders have their own)."""
    unknown = sorted(set(body) - set(fields))
    if unknown:
        raise ApiError(400, f"unknown field {unknown[0]!r}: the fields are {', '.join(fields)}")
    values = {}
    for name, (kind, default) in fields.items():
        value = body.get(name, default)
        if value is None and name not in OPTIONAL:
            raise ApiError(400, f"the field {name!r} is missing")
        # bool is an int in Python: a true/false where a number belongs is refused too
        wrong = value is not None and (
            not isinstance(value, kind) or (kind is int and isinstance(value, bool))
        )
        if wrong or (kind is list and not all(isinstance(b, str) for b in value)):
            raise ApiError(
                400, f"the field {name!r} must be {'a list of names' if kind is list else kind.__name__}"
            )
        values[name] = value
    if values["seed"] is None:
        values["seed"] = secrets.randbits(SEED_BITS)
    return values


async def create_tournament(request: Request) -> Response:
    """``POST /api/v1/tournaments``: queues a tournament (201), or says which parameter is wrong."""
    app = state(request)
    await credentials(request).organiser(bearer(request))  # its hash runs off the event loop
    p = parameters(await read_json(request, app.config.json_bytes))

    def create() -> dict[str, Any]:
        try:
            spec = tournaments.make_spec(
                p["game"],
                p["bots"],
                p["format"],
                p["players"],
                p["rounds"],
                p["seed"],
                p["duplicate_deals"],
                p["deadline_ms"],
            )
            spec = tournaments.with_versions(app.client, spec)
            total, new = tournaments.start(app.client, spec)
        except tournaments.TournamentError as exc:
            raise ApiError(422, str(exc)) from None
        return {
            "id": spec.tournament_id,
            "game": spec.game,
            "seed": spec.seed,
            "matches": total,
            "queued": new,
        }

    return JSONResponse(await off_loop(create), status_code=201)


async def list_tournaments(request: Request) -> Response:
    """``GET /api/v1/tournaments``: the queue's state, recent tournaments, newest dead letters."""
    return JSONResponse(await off_loop(tournaments.queue_status, state(request).client))


def tournament_id(request: Request) -> str:
    """Returns the path's tournament id; raises 400 for one no tournament can have."""
    tid = request.path_params["tournament_id"]
    if not (0 < len(tid) <= 64 and tid.replace("-", "").isalnum()):
        raise ApiError(400, f"malformed tournament id {tid[:40]!r}: see GET /api/v1/tournaments")
    return tid


async def show_tournament(request: Request) -> Response:
    """``GET /api/v1/tournaments/{id}``: progress and standings."""
    tid, client = tournament_id(request), state(request).client
    found = await off_loop(tournaments.status, client, tid)
    if found is None:
        raise ApiError(404, f"no tournament {tid!r}: see GET /api/v1/tournaments")
    return JSONResponse(found)


async def tournament_results(request: Request) -> Response:
    """``GET /api/v1/tournaments/{id}/results?after=NEXT&limit=N``: finished matches, a page at a time."""
    tid, client = tournament_id(request), state(request).client
    limit = page_limit(request, 100, tournaments.RESULTS_PAGE_MAX)
    after = page_after(request)
    after = "0" if after is None else after  # "0": the first page

    def read() -> dict[str, Any]:
        if tournaments.progress(client, tid) is None:
            raise ApiError(404, f"no tournament {tid!r}: see GET /api/v1/tournaments")
        try:
            return tournaments.results_page(client, tid, after, limit)
        except tournaments.TournamentError as exc:
            raise ApiError(400, str(exc)) from None

    return JSONResponse(await off_loop(read))


def checked_match_id(request: Request) -> str:
    """Returns the path's match id; raises 400 for one no match could have."""
    match_id = request.path_params["match_id"]
    try:
        return replays.check_match_id(match_id)
    except replays.ReplayStoreError:
        raise ApiError(400, f"malformed match id {match_id[:40]!r}") from None


async def match_log(request: Request) -> Response:
    """``GET /api/v1/matches/{id}/log``: a recorded match's replay (JSON Lines), or a failed job's error."""
    match_id, client = checked_match_id(request), state(request).client

    def read() -> tuple[str | None, dict[str, str]]:
        return store.replay_text(client, match_id), client.hgetall(keys.job(match_id))

    try:
        replay, job = await off_loop(read)
    except replays.ReplayStoreError as exc:  # corrupt, or kept as decisions of other rules
        raise ApiError(500, f"the stored replay of {match_id!r} cannot be read: {exc}") from None
    if replay is not None:
        return PlainTextResponse(replay, media_type="application/jsonl")
    if job:
        fields = {k: job[k] for k in ("status", "attempts", "error") if k in job}
        return JSONResponse({"match_id": match_id, **fields})
    raise ApiError(404, f"no match {match_id!r} is recorded or queued")


async def seat_log(request: Request) -> Response:
    """``GET /api/v1/matches/{id}/log/{seat}``: what the bot in ``seat`` wrote during the match, each
    line with its decision step, for that bot's owner only (its secret as bearer token)."""
    match_id, client = checked_match_id(request), state(request).client
    seat, token = request.path_params["seat"], bearer(request)
    if token is None:
        raise ApiError(401, "a bot's output is its owner's: send its owner secret as 'Authorization: Bearer'")
    log = await off_loop(stored_log, client, match_id)
    players = log.header.get("players") or []
    if not 0 <= seat < len(players):
        raise ApiError(404, f"match {match_id} has seats 0 to {len(players) - 1}, not {seat}")
    await check_seat_owner(credentials(request), client, log, seat, token)
    lines = [{"step": line.step, "text": line.text} for s, line in log.lines if s == seat]
    answer = {"match_id": match_id, "seat": seat, "bot": log.bot(seat), "lines": lines, "cut": log.cut}
    return JSONResponse(answer)


def stored_log(client: Any, match_id: str) -> botlog.MatchLog:
    """Returns a recorded match's stored log; raises 404 when there is none to read."""
    data = replays.store_for(client).get(match_id, botlog.STORE_KIND)
    if data is None:
        raise ApiError(404, f"no log is stored for match {match_id!r} (a recorded tournament match has one)")
    try:
        return botlog.parse_match_log(data.decode("utf-8", errors="replace"), f"match {match_id}")
    except botlog.MatchLogError:
        raise ApiError(404, f"the stored log of match {match_id} cannot be read") from None


async def check_seat_owner(
    check: Credentials, client: Any, log: botlog.MatchLog, seat: int, token: str
) -> None:
    """Returns if ``token`` is the owner secret of the bot that played ``seat``; raises 401/403
    otherwise, also when the name was registered again since (removing a bot drops its list of
    matches, so the match is not among the new bot's)."""
    name, match_id = log.bot(seat), str(log.header.get("match_id"))
    if not await check.owner(client, name, token):  # a built-in, or a removed bot: nobody's secret
        raise ApiError(403, f"seat {seat} of match {match_id} was played by {name}, owned by no one")
    matches = keys.bot_matches(str(log.header.get("game")), name)
    listed = await off_loop(client.lpos, matches, match_id)
    if listed is None:
        raise ApiError(403, f"seat {seat} of match {match_id} was played by an earlier bot named {name}")
