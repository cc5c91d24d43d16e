"""Retention: how long replays are kept (results are kept forever), and the sweep that applies it.

An organiser sets two limits, stored in Redis (``keys.RETENTION``), each 0 for none:

* ``replay_days``: a match's replay (and every other entry of it in the replay store, such as bot
  logs) goes once the match was recorded that many days ago;
* ``replays_per_bot``: a replay goes once it is older than the last N matches of every bot that
  played in it (kept while it is among the newest N of any of its bots).

With both set, a replay is kept only while both keep it. The sweep (``sweep``: ``arena storage
sweep``, and every worker at most once an hour, ``sweep_if_due``) reads each game's lists in order
from where the last sweep stopped (cursors in ``keys.retention_cursor``), so its work is proportional
to what was recorded since, never to the whole history. It also settles the folder store's pending
replays (``arena.queue.store``): one staged by a worker that died after recording is committed, one
whose match was never recorded within an hour is deleted.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Iterable

import redis

from arena.games import GAMES
from arena.queue import jobs, keys, store
from arena.queue.connection import hash_fields, maybe_text_list, scored_members, text_list
from arena.queue.jobs import run_script
from arena.storage import replays

DAY = 86400.0
ORPHAN_AGE = 3600.0  # seconds a staged replay may wait for its match's record before it is an orphan
SWEEP_EVERY = 3600  # seconds: workers sweep at most this often, all of them together
CHECK_EVERY = 60.0  # seconds between one worker's checks whether a sweep is due (one SET NX each)
PAGE = 500  # list entries read per LRANGE
MAX_LIMIT = 1_000_000  # the largest number of days or of replays per bot accepted


@dataclasses.dataclass(frozen=True)
class Retention:
    """The organiser's limits; 0 is no limit."""

    replay_days: int = 0
    replays_per_bot: int = 0


@dataclasses.dataclass
class SweepReport:
    """What one sweep did: replays deleted by each rule, staged replays committed or deleted."""

    by_days: int = 0
    by_bot: int = 0
    committed: int = 0
    orphans: int = 0
    jobs_trimmed: int = 0  # acknowledged entries deleted from the job stream

    def describe(self) -> str:
        """Returns the report as one line."""
        return (
            f"deleted {self.by_days} replays older than the days kept, {self.by_bot} beyond the last "
            f"per bot and {self.orphans} never recorded; committed {self.committed} left staged; "
            f"trimmed {self.jobs_trimmed} finished jobs from the queue's stream"
        )


def set_retention(client: redis.Redis, limits: Retention) -> None:
    """Stores the organiser's limits; raises ValueError for a negative or too large one."""
    for name, value in dataclasses.asdict(limits).items():
        if not 0 <= value <= MAX_LIMIT:
            raise ValueError(f"{name.replace('_', '-')} must be 0 (no limit) to {MAX_LIMIT}, got {value}")
    client.hset(keys.RETENTION, mapping=hash_fields(dataclasses.asdict(limits)))


def retention(client: redis.Redis) -> Retention:
    """Returns the stored limits (none when never set)."""
    stored = client.hgetall(keys.RETENTION)
    return Retention(**{f.name: int(stored.get(f.name, 0)) for f in dataclasses.fields(Retention)})


def describe(client: redis.Redis) -> str:
    """Returns one line saying what is kept, for the web app and ``arena tournament status``."""
    limits = retention(client)
    kept = []
    if limits.replay_days:
        kept.append(f"for {limits.replay_days} days")
    if limits.replays_per_bot:
        kept.append(f"while among each bot's last {limits.replays_per_bot} matches")
    where = replays.store_for(client).describe()
    return f"Replays are kept {' and '.join(kept) or 'forever'} (in {where}); results are kept forever."


_next_check = 0.0  # time.monotonic() from which this process checks again whether a sweep is due


def sweep_if_due(client: redis.Redis, say: Callable[[str], None]) -> None:
    """Sweeps when no sweep ran in the last hour (any worker's), checking at most once a minute.

    Design detail: a busy worker costs Redis one SET NX a minute for this, not one per match. A store
    that fails (a full disk) is said and skipped: the worker goes on playing.
    """
    global _next_check
    now = time.monotonic()
    if now < _next_check:
        return
    _next_check = now + CHECK_EVERY
    if not client.set(keys.RETENTION_SWEPT, str(int(time.time())), nx=True, ex=SWEEP_EVERY):
        return
    try:
        report = sweep(client)
    except (OSError, replays.ReplayStoreError) as exc:
        say(f"arena: retention sweep failed: {exc}")
        return
    if report != SweepReport():
        say(f"arena: retention sweep: {report.describe()}")


def sweep(client: redis.Redis, now: float | None = None) -> SweepReport:
    """Applies the limits and settles pending replays; returns what it did."""
    now = time.time() if now is None else now
    report = SweepReport()
    settle_pending(client, now, report)
    report.jobs_trimmed = jobs.trim_acknowledged(client)
    limits = retention(client)
    for game in sorted(GAMES):
        if limits.replay_days:
            report.by_days += _sweep_days(client, game, now - limits.replay_days * DAY)
        if limits.replays_per_bot:
            report.by_bot += _sweep_per_bot(client, game, limits.replays_per_bot)
    return report


# Drops a pending match unless a rerun noted it again meanwhile (its score changed).
_UNPEND = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""


def settle_pending(client: redis.Redis, now: float, report: SweepReport) -> None:
    """Commits the staged replays of recorded matches and deletes those of matches not recorded an
    hour after they were staged (a rerun's fresh files stay)."""
    target = replays.store_for(client)
    while True:
        due = scored_members(
            client.zrangebyscore(
                keys.STORE_PENDING, "-inf", now - ORPHAN_AGE, start=0, num=PAGE, withscores=True
            )
        )
        removed = 0
        for match_id, score in due:
            if isinstance(target, replays.FolderStore):
                committed = _commit_recorded(client, target, match_id)
                if committed is not None:
                    report.committed += committed
                elif not client.sismember(keys.RECORDED_SET, match_id):
                    report.orphans += bool(target.discard_older(match_id, now - ORPHAN_AGE))
            removed += run_script(client, _UNPEND, (keys.STORE_PENDING,), (match_id, repr(score)))
        if len(due) < PAGE or not removed:
            return


def commit_recorded(client: redis.Redis) -> int:
    """Commits now the staged replay of every pending match that was recorded (a worker that died
    between recording and committing), whatever its age; returns how many. Leaves every other pending
    match to ``settle_pending``: its worker may still be playing it."""
    target = replays.store_for(client)
    if not isinstance(target, replays.FolderStore):
        return 0
    return sum(_commit_recorded(client, target, m) or 0 for m, _ in client.zscan_iter(keys.STORE_PENDING))


def _commit_recorded(client: redis.Redis, target: replays.FolderStore, match_id: str) -> int | None:
    """Returns 1 if the match was recorded and its staged replay is committed now, 0 if it was
    recorded and nothing was staged, None if it was not recorded."""
    sha = store.recorded_digest(client, match_id)
    return None if sha is None else int(target.commit(match_id, store.staged_tag(sha)))


def _delete(client: redis.Redis, match_ids: Iterable[str]) -> int:
    """Deletes every store entry of the matches (and a replay kept the old way); returns how many
    matches had one."""
    target = replays.store_for(client)
    gone = 0
    for match_id in match_ids:
        gone += bool(target.delete(match_id)) | bool(client.delete(keys.replay(match_id)))
    return gone


def _results(client: redis.Redis, match_ids: list[str]) -> list[dict]:
    """Returns the stored result of each match id ({} where none is stored), in order."""
    texts = maybe_text_list(client.mget([keys.result(m) for m in match_ids])) if match_ids else []
    return [store.result_fields(t) if t else {} for t in texts]


def _sweep_days(client: redis.Redis, game: str, cutoff: float) -> int:
    """Deletes the replays of a game's matches recorded before ``cutoff``, oldest first from the
    cursor, stopping at the first one recorded after it; returns how many went."""
    cursors, key = keys.retention_cursor("days"), keys.results(game)
    start, gone = int(client.hget(cursors, key) or 0), 0
    while True:
        ids = [json.loads(t)["match_id"] for t in client.lrange(key, start, start + PAGE - 1)]
        old = []
        for result in _results(client, ids):
            if result.get("recorded_at", 0) >= cutoff:
                break
            old.append(result.get("match_id"))
        gone += _delete(client, [m for m in old if m])
        start += len(old)
        client.hset(cursors, key, start)
        if len(old) < PAGE:
            return gone


def _sweep_per_bot(client: redis.Redis, game: str, keep: int) -> int:
    """Deletes the replays of a game's matches that are older than every one of their bots' last
    ``keep`` matches; returns how many went."""
    cursors, gone = keys.retention_cursor("per-bot"), 0
    newest: dict[str, set[str]] = {}

    def kept_by(bot: str) -> set[str]:
        if bot not in newest:
            newest[bot] = set(text_list(client.lrange(keys.bot_matches(game, bot), -keep, -1)))
        return newest[bot]

    for bot in sorted(text_list(client.hkeys(keys.played_versions(game)))):
        key = keys.bot_matches(game, bot)
        start, end = int(client.hget(cursors, key) or 0), client.llen(key) - keep
        while start < end:
            ids = text_list(client.lrange(key, start, min(end, start + PAGE) - 1))
            beyond = [
                m
                for m, result in zip(ids, _results(client, ids), strict=True)
                if not any(m in kept_by(p["bot"]) for p in result.get("players", ()) if p["bot"] != bot)
            ]
            gone += _delete(client, beyond)
            start += len(ids)
            client.hset(cursors, key, start)
    return gone
