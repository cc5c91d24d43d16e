"""Fitted ratings served from Redis: one refit per burst of results, from the pair table, cached.

A *rated source* is a pair table and the counter of the matches added to it: a game (``keys.pairs``,
``keys.rating_updates``) or a tournament (``keys.tournament_pairs``, the ``recorded`` field of its
hash). The recording script (``arena.queue.store``) increments both in the same transaction. The
source's *view* (``arena.ratings.views``: standings, win table, crosstable...) is cached in Redis under
``keys.fit``, in parts (the board, and each bot's versions and head to head), with the counter value
it reflects. ``view`` reads the counter and the cached part in one round trip; if they agree, that is
the answer. Otherwise it reads the pair table, the counter and (for
a game) each bot's latest version in one MULTI transaction, so they describe the same results, fits,
and stores the view. So however many results arrive, the first read after them refits once and every
other read is served from the last fit; the fit never reads the list of matches.

Design detail, concurrent refits: readers in one process (the web app's request threads) share a lock
per source, so one of them refits; a reader that finds the lock held is answered at once with the
last view stored (its ``matches`` says which results it reflects) rather than waiting for the fit,
so a busy competition's pages never queue behind refits (a reader with no view of this format
stored yet waits). A reader alone, as the CLI is, always gets a view of every result recorded.
Readers in different processes (the CLI beside the web app) may both refit the same burst: accepted,
because the refit is a deterministic function of the snapshot, so the second stores the same view,
and the store script never replaces a view by one that reflects fewer matches. A Redis lock (SET NX)
would save that rare second refit at the price of waiting on, and expiring, a holder that died.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from typing import Any

import redis

from arena.queue import keys
from arena.queue.jobs import run_script
from arena.ratings import views
from arena.ratings.pairs import PairTable

BOARD = "view"  # the cached hash's field of the view's main part (a bot's part: bot_part(name))
# The shape of the cached view: a view cached in another shape is refitted. 2 (issue 37): results
# weighted by table size, seat advantage, draw ratio; 3: the seat advantage shown.
VIEW_FORMAT = "3"

# KEYS: the fit's hash, the refit counter. ARGV: the count of matches the view reflects, then (field,
# JSON) for each part of the view, the first being ("format", VIEW_FORMAT): a view of another format
# is replaced whatever count it reflects.
_STORE = """
redis.call('INCR', KEYS[2])
local stored = tonumber(redis.call('HGET', KEYS[1], 'updates') or '-1')
if redis.call('HGET', KEYS[1], 'format') ~= ARGV[3] then stored = -1 end
if tonumber(ARGV[1]) >= stored then
  redis.call('HSET', KEYS[1], 'updates', unpack(ARGV))
end
return 1
"""


def bot_part(bot: str) -> str:
    """Returns the cached hash's field of one bot's part of a game's view (versions, head to head)."""
    return f"bot:{bot}"


@dataclasses.dataclass(frozen=True)
class Source:
    """Where a pair table and its counter live, and how its view is built."""

    name: str  # the cache's name (keys.fit): a game, or "tournament:ID"
    pairs_key: str
    counter_key: str
    counter_field: str | None  # None: a string counter (GET); else the field of a hash (HGET)
    versions_key: str | None  # a game's hash bot -> latest version; None: a tournament's view
    retired_key: str | None = None  # a game's set of removed bots' players, left out of its view

    def read_counter(self, pipe: redis.client.Pipeline) -> None:
        """Queues the read of the counter on ``pipe``."""
        if self.counter_field is None:
            pipe.get(self.counter_key)
        else:
            pipe.hget(self.counter_key, self.counter_field)


def game_source(game: str) -> Source:
    """Returns the rated source of a game (every recorded match of it)."""
    return Source(
        game,
        keys.pairs(game),
        keys.rating_updates(game),
        None,
        keys.played_versions(game),
        keys.retired_players(game),
    )


def tournament_source(tournament_id: str) -> Source:
    """Returns the rated source of one tournament (its recorded matches only)."""
    counter = keys.tournament(tournament_id)
    return Source(
        f"tournament:{tournament_id}", keys.tournament_pairs(tournament_id), counter, "recorded", None
    )


_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def _lock(name: str) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(name, threading.Lock())


def view(client: redis.Redis, source: Source, part: str = BOARD) -> dict[str, Any] | None:
    """Returns a part of the source's view reflecting every match recorded when called: the cached
    one if it is current, else a new fit's, or, while another thread of this process refits, the
    last one stored (see the module docstring); None for a part the view has
    not (a bot that never played). The main part (``BOARD``) holds ``matches``, the count reflected,
    ``rows`` and ``pairs`` (a game) or ``crosstable`` (a tournament); a bot's part (``bot_part``),
    its ``versions`` and ``head_to_head``.

    Design detail: the parts are stored as fields of one hash, written together, so a page reads
    only what it shows: the leaderboard does not read every bot's head-to-head table."""
    current, text = _cached(client, source, part)
    if not current:
        lock = _lock(source.name)
        if not lock.acquire(blocking=False):
            if text is not None:  # another thread is refitting: the last view now, not after it
                return json.loads(text)
            lock.acquire()
        try:
            current, text = _cached(client, source, part)
            if not current:
                return refit(client, source).get(part)
        finally:
            lock.release()
    return None if text is None else json.loads(text)


def _cached(client: redis.Redis, source: Source, part: str) -> tuple[bool, str | None]:
    """Returns whether the cached view reflects the current count of matches, and its ``part``
    (None if the view cached is of another format)."""
    with client.pipeline(transaction=True) as pipe:
        source.read_counter(pipe)
        pipe.hmget(keys.fit(source.name), ["updates", "format", part])
        counter, (updates, shape, text) = pipe.execute()
    current = updates is not None and int(updates) == int(counter or 0) and shape == VIEW_FORMAT
    return current, text if shape == VIEW_FORMAT else None


def refit(client: redis.Redis, source: Source) -> dict[str, dict[str, Any]]:
    """Fits the source's pair table as it is now, stores the view's parts (unless a newer view was
    stored meanwhile) and counts the refit; returns the parts by field."""
    with client.pipeline(transaction=True) as pipe:
        source.read_counter(pipe)
        pipe.hgetall(source.pairs_key)
        if source.versions_key and source.retired_key:
            pipe.hgetall(source.versions_key)
            pipe.smembers(source.retired_key)
        counter, fields, *latest = pipe.execute()
    table = PairTable.from_fields(fields)
    matches = int(counter or 0)
    if source.versions_key:
        board = views.leaderboard(table, latest[0], frozenset(latest[1]))
        bots = board.pop("bots")
        parts = {BOARD: {"matches": matches, **board}} | {bot_part(b): part for b, part in bots.items()}
    else:
        parts = {BOARD: {"matches": matches, **views.tournament(table)}}
    args = [
        matches,
        "format",
        VIEW_FORMAT,
        *(x for field, part in parts.items() for x in (field, json.dumps(part, separators=(",", ":")))),
    ]
    run_script(client, _STORE, (keys.fit(source.name), keys.refits(source.name)), args)
    return parts


def refits(client: redis.Redis, source: Source) -> int:
    """Returns how many fits of the source were computed so far."""
    return int(client.get(keys.refits(source.name)) or 0)


def tournament_standings(client: redis.Redis, tournament_id: str) -> dict[str, Any] | None:
    """Returns a tournament's standings as ``arena tournament standings ID --json`` prints them:
    ``{"tournament", "game", "total", "matches", "rows", "crosstable"}``; None for an unknown id."""
    meta = client.hgetall(keys.tournament(tournament_id))
    if not meta:
        return None
    standings = view(client, tournament_source(tournament_id)) or {}
    return {
        "tournament": tournament_id,
        "game": meta.get("game"),
        "total": int(meta.get("total", 0)),
        **standings,
    }
