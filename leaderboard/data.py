"""Read-only views of the tournament data in Redis: games, leaderboards, rating histories, matches.

Everything is derived from what ``arena.queue.store.record`` wrote: a game's ordered list of ratings
results (``store.load_results``), its running ratings (``store.load_ratings``), and one stored result
JSON per match. The leaderboard rows are the very rows ``arena leaderboard GAME --json`` prints
(``arena.ratings.leaderboard`` over the same inputs), so the page and the CLI cannot disagree.

Design detail: the bootstrap interval rebuilds Elo a few hundred times, so rows are cached per game
under the game's rating-update counter, which ``record`` increments in the same transaction that
appends a result; a new result changes the counter and so invalidates the cache.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import redis

from arena.games import GAMES
from arena.queue import keys, store
from arena.ratings import INITIAL_RATING, Result, apply, stats
from arena.ratings.elo import pair_score

RESAMPLES = 200  # as ``arena leaderboard``'s default, so the intervals agree


def game_names() -> list[str]:
    """Returns the registered games' names, sorted."""
    return sorted(GAMES)


def stamp(client: redis.Redis) -> dict[str, int]:
    """Returns each game's count of applied rating updates: it changes whenever a result arrives."""
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
            "bots": client.hlen(keys.ratings(name)),
        }
        for name in game_names()
    ]


class RowCache:
    """Leaderboard rows per game, kept until the game's rating-update counter moves."""

    def __init__(self) -> None:
        self._rows: dict[str, tuple[int, list[dict[str, Any]]]] = {}

    def rows(self, client: redis.Redis, game: str) -> list[dict[str, Any]]:
        """Returns the rows of ``arena leaderboard GAME --json`` for the current results."""
        counter = stamp(client)[game]
        cached = self._rows.get(game)
        if cached and cached[0] == counter:
            return cached[1]
        rows = [row.to_json() for row in store.load_leaderboard(client, game, RESAMPLES)]
        self._rows[game] = (counter, rows)
        return rows


def history(results: Sequence[Result]) -> dict[str, list[list[float]]]:
    """Returns each bot's rating after every match it played, as [match number, Elo] points.

    Match numbers count the game's results from 1; every bot's series starts at [0, 1500]."""
    table: dict[str, float] = {}
    series: dict[str, list[list[float]]] = {}
    for number, result in enumerate(results, 1):
        table = apply(table, result)
        for placement in result.placements:
            points = series.setdefault(placement.bot, [[0, INITIAL_RATING]])
            points.append([number, round(table[placement.bot], 1)])
    return series


def load_results(client: redis.Redis, game: str) -> list[Result]:
    """Returns the game's ratings results in the order they were applied."""
    return store.load_results(client, game)


def match_results(client: redis.Redis, match_ids: Iterable[str]) -> list[dict[str, Any]]:
    """Returns the stored result JSON of each match id (skipping ids without one), in order."""
    ids = list(match_ids)
    if not ids:
        return []
    texts = client.mget([keys.result(m) for m in ids])
    return [json.loads(t) for t in texts if t]


def matches(client: redis.Redis, game: str | None, bot: str | None, limit: int = 100) -> list[dict]:
    """Returns the newest recorded matches of one game (or of every game), optionally of one bot."""
    chosen = [game] if game else game_names()
    found: list[dict[str, Any]] = []
    for name in chosen:
        for number, result in reversed(list(enumerate(store.load_results(client, name), 1))):
            if bot is None or any(p.bot == bot for p in result.placements):
                found.append({"match_id": result.match_id, "number": number})
    picked = found[:limit]
    details = {d["match_id"]: d for d in match_results(client, [m["match_id"] for m in picked])}
    return [details[m["match_id"]] | {"number": m["number"]} for m in picked if m["match_id"] in details]


def match(client: redis.Redis, match_id: str) -> dict[str, Any] | None:
    """Returns a match's stored result JSON, or None if no match has that id."""
    text = client.get(keys.result(match_id))
    return json.loads(text) if text else None


def replay_text(client: redis.Redis, match_id: str) -> str | None:
    """Returns a match's stored replay (JSON Lines), or None."""
    return client.get(keys.replay(match_id))


def head_to_head(results: Sequence[Result], bot: str) -> list[dict[str, Any]]:
    """Returns ``bot``'s record against each opponent: meetings, ahead, tied, behind, score rate."""
    table: dict[str, dict[str, Any]] = {}
    for result in results:
        mine = [p for p in result.placements if p.bot == bot]
        if not mine:
            continue
        for other in result.placements:
            if other.bot == bot:
                continue
            row = table.setdefault(other.bot, {"opponent": other.bot, "games": 0, "ahead": 0, "tied": 0})
            row["games"] += 1
            score = pair_score(mine[0].rank, other.rank)
            row["ahead"] += score == 1.0
            row["tied"] += score == 0.5
    for row in table.values():
        row["behind"] = row["games"] - row["ahead"] - row["tied"]
        row["score_rate"] = round((row["ahead"] + 0.5 * row["tied"]) / row["games"], 4)
    return sorted(table.values(), key=lambda r: (-r["score_rate"], r["opponent"]))


def bot_page(client: redis.Redis, cache: RowCache, game: str, bot: str) -> dict[str, Any] | None:
    """Returns a bot's leaderboard row, rating history, head-to-head table and recent matches."""
    results = store.load_results(client, game)
    if bot not in stats(results):
        return None
    row = next((r for r in cache.rows(client, game) if r["bot"] == bot), None)
    return {
        "game": game,
        "bot": bot,
        "row": row,
        "history": history(results).get(bot, []),
        "head_to_head": head_to_head(results, bot),
        "recent": matches(client, game, bot, limit=20),
    }
