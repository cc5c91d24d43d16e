"""Read-only views of the tournament data in Redis: games, fitted leaderboards, tournaments, matches.

Ratings come from ``arena.queue.fits``: the view of a game's (or a tournament's) pair table, fitted once
per burst of results and cached in Redis, the very view ``arena leaderboard GAME --json`` and ``arena
tournament standings ID --json`` print, so the page and the CLI cannot disagree. Matches come from the
game's list of recorded placements, read from its newest end one page at a time, and from one stored
result JSON per match. No request reads every result.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import redis

from arena.games import GAMES
from arena.queue import fits, keys, store

PAGE = 200  # placements read per LRANGE when looking for the newest matches


def game_names() -> list[str]:
    """Returns the registered games' names, sorted."""
    return sorted(GAMES)


def stamp(client: redis.Redis) -> dict[str, int]:
    """Returns each game's count of recorded matches: it changes whenever a result arrives."""
    names = game_names()
    values = client.mget([keys.rating_updates(g) for g in names])
    return {g: int(v or 0) for g, v in zip(names, values, strict=True)}


def games(client: redis.Redis) -> list[dict[str, Any]]:
    """Returns every game with its title, player counts, recorded matches and rated bots."""
    counts = stamp(client)
    return [
        {
            "name": name,
            "title": GAMES[name].spec.title,
            "players": [GAMES[name].spec.min_players, GAMES[name].spec.max_players],
            "matches": counts[name],
            "bots": client.hlen(keys.played_versions(name)),
        }
        for name in game_names()
    ]


def leaderboard(client: redis.Redis, game: str) -> dict[str, Any]:
    """Returns the game's fitted board: ``matches``, ``rows`` (as ``arena leaderboard GAME --json``)
    and ``pairs`` (the win-probability table)."""
    return fits.view(client, fits.game_source(game)) or {}


def match_results(client: redis.Redis, match_ids: Iterable[str]) -> list[dict[str, Any]]:
    """Returns the stored result JSON of each match id (skipping ids without one), in order."""
    ids = list(match_ids)
    if not ids:
        return []
    texts = client.mget([keys.result(m) for m in ids])
    return [json.loads(t) for t in texts if t]


def matches(client: redis.Redis, game: str | None, bot: str | None, limit: int = 100) -> list[dict]:
    """Returns the newest recorded matches of one game (or of every game), optionally of one bot,
    each with its ``number`` in its game's list (from 1)."""
    chosen = [game] if game else game_names()
    found: list[dict[str, Any]] = []
    for name in chosen:
        for number, placements in _newest_first(client, name):
            if len(found) >= limit:
                break
            if bot is None or any(p["bot"] == bot for p in placements["players"]):
                found.append({"match_id": placements["match_id"], "number": number})
    details = {d["match_id"]: d for d in match_results(client, [m["match_id"] for m in found])}
    return [details[m["match_id"]] | {"number": m["number"]} for m in found if m["match_id"] in details]


def _newest_first(client: redis.Redis, game: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yields ``(number, placements)`` of a game's recorded matches, newest first, ``PAGE`` at a time."""
    end = client.llen(keys.results(game))
    while end > 0:
        start = max(0, end - PAGE)
        chunk = client.lrange(keys.results(game), start, end - 1)
        for offset in range(len(chunk) - 1, -1, -1):
            yield start + offset + 1, json.loads(chunk[offset])
        end = start


def match(client: redis.Redis, match_id: str) -> dict[str, Any] | None:
    """Returns a match's stored result JSON, or None if no match has that id."""
    text = client.get(keys.result(match_id))
    return json.loads(text) if text else None


def replay_text(client: redis.Redis, match_id: str) -> str | None:
    """Returns a match's stored replay (JSON Lines), or None."""
    return client.get(keys.replay(match_id))


def bot_page(client: redis.Redis, game: str, bot: str) -> dict[str, Any] | None:
    """Returns a bot's leaderboard row, every version's rating, its head-to-head table and its recent
    matches in one game; None if it never played it."""
    board = leaderboard(client, game)
    mine = fits.view(client, fits.game_source(game), fits.bot_part(bot))
    if mine is None:
        return None
    return {
        "game": game,
        "bot": bot,
        "matches": board["matches"],
        "row": next((r for r in board["rows"] if r["bot"] == bot), None),
        **mine,
        "recent": matches(client, game, bot, limit=20),
    }


def tournaments(client: redis.Redis) -> list[dict[str, str]]:
    """Returns the most recent tournaments (id, game, format, bots, total, recorded, dead)."""
    return store.tournaments(client)


def tournament(client: redis.Redis, tournament_id: str) -> dict[str, Any] | None:
    """Returns a tournament's standings and crosstable (``arena tournament standings ID --json``), or
    None if there is no such tournament."""
    return fits.tournament_standings(client, tournament_id)
