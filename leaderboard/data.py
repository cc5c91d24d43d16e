"""Read-only views of the tournament data in Redis: games, fitted leaderboards, tournaments, matches.

Ratings come from ``arena.storage.fits``: the view of a game's (or a tournament's) pair table, fitted once
per burst of results and cached in Redis, the very view ``arena leaderboard GAME --json`` and ``arena
tournament standings ID --json`` print, so the page and the CLI cannot disagree.

Matches are read in pages, newest first, as every list of the API is (``leaderboard.http``: ``limit``,
and ``after`` the ``next`` of the previous page): a page of a game's matches reads the newest end of
the game's list of recorded placements (``keys.results``), a page of one bot's matches that bot's own
list of match ids (``keys.bot_matches``), then one stored result JSON per match shown. A page's
``next`` is a position in such a list, and the lists only grow at their end, so a position stays valid
while new matches arrive and a page costs the same with ten thousand recorded matches as with a
million. Head to head, the pairwise record comes from the cached fit and the meetings from walking
the shorter of the two bots' lists, a bounded stretch per page. No request reads every result.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Any

import redis

from arena.games import GAMES
from arena.queue import keys, store
from arena.queue.connection import maybe_text, maybe_text_list, text_list
from arena.schedule import regression
from arena.storage import fits

H2H_SCAN = 250  # most match ids of the shorter bot's list one head-to-head page reads


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


def match_results(client: redis.Redis, match_ids: Iterable[str]) -> list[dict[str, Any] | None]:
    """Returns the stored result JSON of each match id, in order (None for an id without one)."""
    ids = list(match_ids)
    if not ids:
        return []
    texts = maybe_text_list(client.mget([keys.result(m) for m in ids]))
    return [store.result_fields(t) if t else None for t in texts]


def matches(
    client: redis.Redis,
    game: str | None,
    bot: str | None,
    limit: int = 100,
    after: str | None = None,
) -> Page:
    """Returns a page of the newest recorded matches of one game (or of every game, game by game),
    optionally of one bot, after position ``after`` (the ``next`` of the previous page; None: from
    the newest), and the position of the next page.

    Each match carries its ``number``: its place, from 1, in the list it was read from (the game's
    list of results, or with ``bot`` the bot's own list of matches in that game). A page reads at most
    ``limit`` list entries and their results, wherever ``after`` points: a bot's matches come from its
    own list (``keys.bot_matches``), never from filtering the game's history."""
    chosen = [game] if game else game_names()
    index, end = _parse_list_position(after, chosen)
    found: list[tuple[str, int]] = []
    following = None
    while index < len(chosen):
        name = chosen[index]
        key = keys.results(name) if bot is None else keys.bot_matches(name, bot)
        entries, end = _newest(client, key, end, limit - len(found))
        ids = entries if bot is not None else [json.loads(e)["match_id"] for e in entries]
        found += [(m, end + len(ids) - k) for k, m in enumerate(ids)]
        if len(found) >= limit:
            following = _next_list_position(chosen, index, end)
            break
        index, end = index + 1, None
    details = match_results(client, [m for m, _ in found])
    shown = [d | {"number": number} for (_, number), d in zip(found, details, strict=True) if d]
    return Page(shown, following)


@dataclasses.dataclass(frozen=True)
class Page:
    """One page of matches, newest first, and the position of the next (None: this was the last)."""

    items: list[dict[str, Any]]
    next: str | None

    def to_json(self) -> dict[str, Any]:
        """Returns the page as the API sends it: ``{"matches": [...], "next": ...}``."""
        return {"matches": self.items, "next": self.next}


class PageError(ValueError):
    """A page position (``after``) that no page of this list handed out."""


def results_page(client: redis.Redis, game: str, after: str | None, limit: int) -> dict[str, Any]:
    """Returns a page of a game's recorded placements, oldest first (the list ``store.iter_results``
    reads, ``limit`` entries from position ``after``, None: the first): ``{"results": [...], "next"}``,
    each as ``arena results GAME --json`` prints it, ``next`` None on the last page."""
    if after is not None and not (_whole(after) and len(after) < 19):
        raise _bad_position(after)
    start = int(after or 0)
    chunk = text_list(client.lrange(keys.results(game), start, start + limit - 1))
    following = str(start + len(chunk)) if len(chunk) == limit else None
    return {"results": [store.placements_fields(text) for text in chunk], "next": following}


def _bad_position(after: str) -> PageError:
    return PageError(f"malformed page position {after[:40]!r}: give the 'next' of the previous page")


def _newest(client: redis.Redis, key: str, end: int | None, count: int) -> tuple[list[str], int]:
    """Returns up to ``count`` entries of a list before position ``end`` (None: its end), newest
    first, and the position before the oldest of them (the next read's ``end``)."""
    length = client.llen(key)
    end = length if end is None else min(end, length)
    start = max(0, end - count)
    if end <= 0 or count <= 0:
        return [], max(end, 0)
    return text_list(client.lrange(key, start, end - 1))[::-1], start


def _next_list_position(chosen: list[str], index: int, end: int) -> str | None:
    """Returns the position after a full page that stopped at ``end`` of game ``chosen[index]``."""
    if end > 0:
        return f"{chosen[index]}:{end}"
    return f"{chosen[index + 1]}:" if index + 1 < len(chosen) else None


def _parse_list_position(after: str | None, chosen: list[str]) -> tuple[int, int | None]:
    """Returns (index of the game in ``chosen``, end position or None for its newest) of a position
    ``GAME:END`` or ``GAME:``; raises PageError for anything a page did not hand out."""
    if not after:
        return 0, None
    name, _, end = after.rpartition(":")
    if name not in chosen or not (end == "" or (_whole(end) and len(end) < 19)):
        raise _bad_position(after)
    return chosen.index(name), int(end) if end else None


def _whole(text: str) -> bool:
    """Returns whether ``text`` is a whole number written in ASCII digits (``str.isdigit`` also
    accepts digits that ``int`` refuses, such as superscripts)."""
    return text.isascii() and text.isdigit()


def match(client: redis.Redis, match_id: str) -> dict[str, Any] | None:
    """Returns a match's stored result JSON, or None if no match has that id."""
    text = maybe_text(client.get(keys.result(match_id)))
    return store.result_fields(text) if text else None


def replay_text(client: redis.Redis, match_id: str, whole: bool = True) -> str | None:
    """Returns a match's replay (JSON Lines) from the replay store (``arena.storage.replays``), or None;
    ``whole=False``: possibly as its decisions (``replays.whole`` regenerates it)."""
    return store.replay_text(client, match_id, whole)


def bot_page(client: redis.Redis, game: str, bot: str, limit: int = 20) -> dict[str, Any] | None:
    """Returns a bot's leaderboard row, every version's rating, its head-to-head table and a first
    page of its recent matches in one game (``recent``, ``recent_next``: the ``after`` of the next
    page of ``matches(game, bot)``); None if it never played it."""
    board = leaderboard(client, game)
    mine = fits.view(client, fits.game_source(game), fits.bot_part(bot))
    if mine is None:
        return None
    recent = matches(client, game, bot, limit)
    return {
        "game": game,
        "bot": bot,
        "matches": board["matches"],
        "row": next((r for r in board["rows"] if r["bot"] == bot), None),
        **mine,
        "recent": recent.items,
        "recent_next": recent.next,
        "regression": regression.for_name(client, bot, game),  # its newest version's test, if any
    }


def head_to_head(
    client: redis.Redis, game: str, pair: tuple[str, str], limit: int = 20, after: str | None = None
) -> dict[str, Any] | None:
    """Returns two bots' record against each other in one game (``record``: met, ahead, tied, behind,
    score rate of the first; ``expected``: the fitted expected score of the first) and a page of their
    meetings, newest first (after position ``after``, the ``next`` of the previous page), with
    ``next``, ``scanned`` (ids read by this page), ``unread`` (ids of the walked list left to read)
    and ``walked`` (the list walked: the bot with fewer matches, and its length); None if either bot
    never played the game.

    Design detail: the meetings are found by walking the shorter bot list, at most ``H2H_SCAN`` ids a
    page, so a page may hold fewer than ``limit`` meetings (even none) and still have a next page:
    a pair that rarely meets costs more pages, never a longer one."""
    a, b = pair
    source = fits.game_source(game)
    mine = fits.view(client, source, fits.bot_part(a))
    if mine is None or fits.view(client, source, fits.bot_part(b)) is None:
        return None
    board = leaderboard(client, game)
    record = next((r for r in mine["head_to_head"] if r["opponent"] == b), None)
    side, end = _parse_pair_position(after) if after else (_shorter(client, game, pair), None)
    walked = pair[side]
    found, end, scanned = _meetings(client, game, walked, pair[1 - side], end, limit)
    return {
        "game": game,
        "bots": [a, b],
        "record": record,
        "expected": board.get("pairs", {}).get(a, {}).get(b),
        "matches": found,
        "next": f"{side}:{end}" if end > 0 else None,
        "scanned": scanned,
        "unread": end,
        "walked": {"bot": walked, "matches": client.llen(keys.bot_matches(game, walked))},
    }


def _shorter(client: redis.Redis, game: str, pair: tuple[str, str]) -> int:
    """Returns 0 or 1: which bot of the pair has fewer recorded matches in the game."""
    with client.pipeline(transaction=False) as pipe:
        for bot in pair:
            pipe.llen(keys.bot_matches(game, bot))
        first, second = pipe.execute()
    return 0 if first <= second else 1


def _meetings(
    client: redis.Redis, game: str, walked: str, other: str, end: int | None, limit: int
) -> tuple[list[dict[str, Any]], int, int]:
    """Returns the matches of ``walked``'s list before ``end`` in which ``other`` played too (newest
    first, at most ``limit``, among at most ``H2H_SCAN`` ids read in one round trip and their results
    in another), the position where the walk stopped and how many ids it read.

    Design detail: a result is parsed only if its text holds ``"bot":OTHER`` as the compact JSON of
    the stored results writes it; most of the walked matches are against someone else."""
    ids, start = _newest(client, keys.bot_matches(game, walked), end, H2H_SCAN)
    needle = f'"bot":{json.dumps(other)}'
    found: list[dict[str, Any]] = []
    texts = maybe_text_list(client.mget([keys.result(m) for m in ids])) if ids else []
    for offset, text in enumerate(texts):
        result = store.result_fields(text) if text and needle in text else None
        if result and any(p["bot"] == other for p in result["players"]):
            found.append(result | {"number": start + len(ids) - offset})
            if len(found) == limit:
                return found, start + len(ids) - offset - 1, offset + 1
    return found, start, len(ids)


def _parse_pair_position(after: str) -> tuple[int, int]:
    """Returns (side, end) of a head-to-head position ``SIDE:END``; raises PageError otherwise."""
    side, _, end = after.partition(":")
    if side not in ("0", "1") or not _whole(end) or len(end) > 18:
        raise _bad_position(after)
    return int(side), int(end)


def tournaments(client: redis.Redis) -> list[dict[str, str]]:
    """Returns the most recent tournaments (id, game, format, bots, total, recorded, dead)."""
    return store.tournaments(client)


def tournament(client: redis.Redis, tournament_id: str) -> dict[str, Any] | None:
    """Returns a tournament's standings and crosstable (``arena tournament standings ID --json``), or
    None if there is no such tournament."""
    return fits.tournament_standings(client, tournament_id)
