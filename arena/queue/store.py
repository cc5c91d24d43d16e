"""What a finished job leaves in Redis, and the transactions that put it there exactly once.

Design detail: ``record_and_take`` computes the new ratings with ``arena.ratings.apply`` (the only Elo
code) from the ratings the worker last saw for the match's bots, and sends one Lua script that, atomically,
checks that the match is not recorded yet and that those bots' stored ratings are still the ones it
used; then adds the match id to the recorded set, stores result and replay, appends the result to the
game's ordered list, writes the ratings, counts the update, notes the versions the seats played, XACKs
the job and, if asked, takes the worker's next job. If a rating changed (another worker recorded a
match of one of these bots, or the worker had not seen them yet) the script writes nothing and returns
the stored values, and the computation is redone from them. So the ordered list is exactly the order in
which updates were applied, ``rebuild`` over it reproduces the stored ratings bit for bit, and a busy
worker's Redis work per match is one round trip.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping

import redis

from arena.queue import keys
from arena.queue.jobs import (
    MAX_ATTEMPTS,
    TAKE_FUNCTION,
    JobStatus,
    MatchJob,
    Taken,
    run_script,
    take_args,
    taken_from,
)
from arena.ratings import Placement, Result, Row, apply, leaderboard
from arena.referee.record import MatchRecord


def ratings_result(record: MatchRecord, match_id: str) -> Result:
    """Returns what the ratings need of a match record: each bot's finishing rank."""
    return Result(match_id, record.game, tuple(Placement(p.bot, p.rank) for p in record.players))


def record_json(record: MatchRecord, match_id: str, replay_lines: int) -> str:
    """Returns the stored JSON of a match's result (the fields of ``arena match --json``)."""
    return json.dumps(
        {"match_id": match_id, **record.to_json(), "replay_lines": replay_lines}, separators=(",", ":")
    )


# ARGV: match id, group, entry id, then ``take``'s consumer ('' for none), job prefix and statuses; the
# number of bots and (bot, rating used) per bot; then the writes, each as its length and its words.
# (Flat arguments, not JSON: decoding a replay inside JSON cost the script more than all its writes.)
_RECORD = (
    TAKE_FUNCTION
    + """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then
  redis.call('XACK', KEYS[2], ARGV[2], ARGV[3])
  return {0, {}}
end
local i, stored, changed = 10, {}, false
for b = 1, tonumber(ARGV[9]) do
  stored[b] = redis.call('HGET', KEYS[3], ARGV[i]) or ''
  if stored[b] ~= ARGV[i + 1] then changed = true end
  i = i + 2
end
if changed then return {2, stored} end
while i <= #ARGV do
  local length = tonumber(ARGV[i])
  redis.call(unpack(ARGV, i + 1, i + length))
  i = i + length + 1
end
if ARGV[4] == '' then return {1, {}} end
return {1, take(KEYS[2], ARGV[2], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8])}
"""
)
_ALREADY, _RECORDED, _CHANGED = 0, 1, 2


def record(client: redis.Redis, job: MatchJob, match: MatchRecord, replay: str, message_id: str) -> bool:
    """Records a played job and acknowledges it, atomically; returns False if it was already recorded."""
    return record_and_take(client, job, match, replay, message_id)[0]


def record_and_take(
    client: redis.Redis,
    job: MatchJob,
    match: MatchRecord,
    replay: str,
    message_id: str,
    seen: dict[tuple[str, str], str] | None = None,
    take_as: str | None = None,
) -> tuple[bool, Taken | None]:
    """Records a played job and acknowledges it, atomically, and with ``take_as`` (a consumer) takes
    that consumer's next job in the same round trip.

    Returns whether the match was new, and the next job (None if none was waiting or none was asked
    for). ``seen`` holds the stored ratings the caller last saw, by (game, bot): it is read and kept up
    to date, so a worker that passes its own dict usually records in one round trip.
    """
    seen = {} if seen is None else seen
    result = ratings_result(match, job.match_id)
    bots = [p.bot for p in result.placements]
    script_keys = (keys.RECORDED_SET, keys.JOBS_STREAM, keys.ratings(job.game))
    take = take_args(take_as)[1:] if take_as else ("", "", "", "", "")
    while True:
        used = [seen.get((job.game, bot), "") for bot in bots]
        after = apply({bot: float(v) for bot, v in zip(bots, used, strict=True) if v}, result)
        written = [repr(after[bot]) for bot in bots]
        commands = _record_commands(job, match, replay, result, dict(zip(bots, written, strict=True)))
        commands.append(["XACK", keys.JOBS_STREAM, keys.WORKERS_GROUP, message_id])
        args = [job.match_id, keys.WORKERS_GROUP, message_id, *take, len(bots)]
        args += (x for pair in zip(bots, used, strict=True) for x in pair)
        for command in commands:
            args += (len(command), *command)
        outcome, reply = run_script(client, _RECORD, script_keys, args)
        if outcome == _CHANGED:
            seen.update(((job.game, bot), value) for bot, value in zip(bots, reply, strict=True))
            continue
        if outcome == _RECORDED:
            seen.update(((job.game, bot), value) for bot, value in zip(bots, written, strict=True))
        return outcome == _RECORDED, taken_from(reply)


def _record_commands(
    job: MatchJob, match: MatchRecord, replay: str, result: Result, ratings: Mapping[str, str]
) -> list[list[str]]:
    """Returns the writes of recording a match, as commands."""
    commands = [
        ["SADD", keys.RECORDED_SET, job.match_id],
        ["SET", keys.result(job.match_id), record_json(match, job.match_id, replay.count("\n"))],
        ["SET", keys.replay(job.match_id), replay],
        ["RPUSH", keys.results(job.game), json.dumps(result.to_json(), separators=(",", ":"))],
        ["HSET", keys.ratings(job.game), *(x for pair in ratings.items() for x in pair)],
        ["INCR", keys.rating_updates(job.game)],
    ]
    if job.versions:
        played = (x for pair in zip(job.bots, job.versions, strict=True) for x in pair)
        commands.append(["HSET", keys.played_versions(job.game), *played])
    commands.append(["HSET", keys.job(job.match_id), "status", JobStatus.RECORDED.value, "error", ""])
    return commands + _finished(job, "recorded")


def fail(client: redis.Redis, job: MatchJob, message_id: str, error: str, attempts: int) -> JobStatus:
    """Acknowledges a failed attempt and re-queues the job, or dead-letters it after MAX_ATTEMPTS;
    returns the job's new status (RECORDED if another worker recorded it meanwhile)."""
    with client.pipeline() as pipe:
        while True:
            try:
                pipe.watch(keys.RECORDED_SET)
                recorded = pipe.sismember(keys.RECORDED_SET, job.match_id)
                pipe.multi()
                pipe.xack(keys.JOBS_STREAM, keys.WORKERS_GROUP, message_id)
                if recorded:
                    status = JobStatus.RECORDED
                elif attempts >= MAX_ATTEMPTS:
                    status = JobStatus.DEAD
                    fields = {"match_id": job.match_id, "attempts": attempts, "error": error}
                    pipe.xadd(
                        keys.DEAD_STREAM, {**fields, "job": job.to_json(), "time": f"{time.time():.3f}"}
                    )
                    for command in _finished(job, "dead"):
                        pipe.execute_command(*command)
                else:
                    status = JobStatus.QUEUED
                    pipe.xadd(keys.JOBS_STREAM, {"match_id": job.match_id})
                if not recorded:
                    pipe.hset(keys.job(job.match_id), mapping={"status": status.value, "error": error})
                pipe.execute()
                return status
            except redis.WatchError:
                continue


def _finished(job: MatchJob, status: str) -> list[list[str]]:
    """Returns the tournament bookkeeping of a finished job, as commands."""
    if not job.tournament:
        return []
    return [
        ["HINCRBY", keys.tournament(job.tournament), status, "1"],
        ["XADD", keys.tournament_done(job.tournament), "*", "match_id", job.match_id, "status", status],
    ]


def load_results(client: redis.Redis, game: str) -> list[Result]:
    """Returns a game's ratings results in the order they were applied."""
    return [Result.from_json(json.loads(text)) for text in client.lrange(keys.results(game), 0, -1)]


def load_ratings(client: redis.Redis, game: str) -> dict[str, float]:
    """Returns a game's running Elo table as stored."""
    return {bot: float(value) for bot, value in client.hgetall(keys.ratings(game)).items()}


def load_versions(client: redis.Redis, game: str) -> dict[str, str]:
    """Returns, per bot, the version it played in its latest recorded match of ``game``."""
    return dict(client.hgetall(keys.played_versions(game)))


def load_leaderboard(client: redis.Redis, game: str, resamples: int) -> list[Row]:
    """Returns a game's leaderboard rows from its stored results, ratings and bot versions.

    The one place the table is built, so the terminal, ``--json`` and the web page always agree.
    """
    results, ratings = load_results(client, game), load_ratings(client, game)
    return leaderboard(results, ratings, resamples=resamples, versions=load_versions(client, game))


def save_tournament(client: redis.Redis, tournament_id: str, meta: Mapping[str, str | int]) -> bool:
    """Stores a tournament's description unless it exists; returns True if it was new."""
    created = client.hsetnx(keys.tournament(tournament_id), "game", str(meta["game"]))
    if created:
        client.hset(keys.tournament(tournament_id), mapping={k: str(v) for k, v in meta.items()})
        client.zadd(keys.TOURNAMENTS_SET, {tournament_id: time.time()}, nx=True)
    return bool(created)


def tournaments(client: redis.Redis, limit: int = 20) -> list[dict[str, str]]:
    """Returns the most recent tournaments' hashes (with their id), newest first."""
    ids = client.zrevrange(keys.TOURNAMENTS_SET, 0, limit - 1)
    return [{"id": tid, **client.hgetall(keys.tournament(tid))} for tid in ids]


def dead_letters(client: redis.Redis, limit: int = 20) -> list[dict[str, str]]:
    """Returns the newest dead-letter entries (match_id, attempts, error), newest first."""
    return [fields for _, fields in client.xrevrange(keys.DEAD_STREAM, count=limit)]
