"""What a finished job leaves in Redis, and the transactions that put it there exactly once.

Design detail: ``record`` WATCHes the recorded-set and the game's ratings, reads the ratings, computes the
new ones with ``arena.ratings.apply`` (the only Elo code), and then in one MULTI/EXEC adds the match id to
the recorded set, stores result and replay, appends the result to the game's ordered list, writes the
ratings, counts the update, notes the versions the seats played, and XACKs the job. If another worker
recorded anything in the meantime EXEC fails and the whole read-compute-write is redone, so the ordered
list is exactly the order in which updates were applied and ``rebuild`` over it reproduces the stored
ratings bit for bit.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping

import redis

from arena.queue import keys
from arena.queue.jobs import MAX_ATTEMPTS, JobStatus, MatchJob, run_script
from arena.ratings import Placement, Result, Row, apply, leaderboard
from arena.referee.match import MatchRecord


def ratings_result(record: MatchRecord, match_id: str) -> Result:
    """Returns what the ratings need of a match record: each bot's finishing rank."""
    return Result(match_id, record.game, tuple(Placement(p.bot, p.rank) for p in record.players))


def record_json(record: MatchRecord, match_id: str, replay_lines: int) -> str:
    """Returns the stored JSON of a match's result (the fields of ``arena match --json``)."""
    return json.dumps(
        {
            "match_id": match_id,
            "game": record.game,
            "seed": record.seed,
            "players": [
                {"bot": p.bot, "seat": p.seat, "score": p.score, "rank": p.rank, "forfeit": p.forfeit}
                | {"strikes": p.strikes}
                for p in record.players
            ],
            "winner": record.winner,
            "termination": record.termination,
            "steps": record.steps,
            "replay_lines": replay_lines,
        },
        separators=(",", ":"),
    )


# What ``record`` reads once it WATCHes: whether the match is recorded, and the game's ratings, in one
# round trip (WATCH, this script, MULTI/EXEC: three per recorded match).
_RECORD_READ = """
return {redis.call('SISMEMBER', KEYS[1], ARGV[1]), redis.call('HGETALL', KEYS[2])}
"""


def record(client: redis.Redis, job: MatchJob, match: MatchRecord, replay: str, message_id: str) -> bool:
    """Records a played job and acknowledges it, atomically; returns False if it was already recorded."""
    result = ratings_result(match, job.match_id)
    watched = (keys.RECORDED_SET, keys.ratings(job.game))
    with client.pipeline() as pipe:
        while True:
            try:
                pipe.watch(*watched)
                recorded, flat = run_script(pipe, _RECORD_READ, watched, (job.match_id,))
                if recorded:
                    pipe.multi()
                    pipe.xack(keys.JOBS_STREAM, keys.WORKERS_GROUP, message_id)
                    pipe.execute()
                    return False
                before = {bot: float(v) for bot, v in zip(flat[::2], flat[1::2], strict=True)}
                after = apply(before, result)
                pipe.multi()
                pipe.sadd(keys.RECORDED_SET, job.match_id)
                pipe.set(keys.result(job.match_id), record_json(match, job.match_id, replay.count("\n")))
                pipe.set(keys.replay(job.match_id), replay)
                pipe.rpush(keys.results(job.game), json.dumps(result.to_json(), separators=(",", ":")))
                pipe.hset(
                    keys.ratings(job.game), mapping={p.bot: repr(after[p.bot]) for p in result.placements}
                )
                pipe.incr(keys.rating_updates(job.game))
                if job.versions:
                    pipe.hset(
                        keys.played_versions(job.game), mapping=dict(zip(job.bots, job.versions, strict=True))
                    )
                pipe.hset(keys.job(job.match_id), mapping={"status": JobStatus.RECORDED.value, "error": ""})
                _finished(pipe, job, "recorded")
                pipe.xack(keys.JOBS_STREAM, keys.WORKERS_GROUP, message_id)
                pipe.execute()
                return True
            except redis.WatchError:
                continue


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
                    _finished(pipe, job, "dead")
                else:
                    status = JobStatus.QUEUED
                    pipe.xadd(keys.JOBS_STREAM, {"match_id": job.match_id})
                if not recorded:
                    pipe.hset(keys.job(job.match_id), mapping={"status": status.value, "error": error})
                pipe.execute()
                return status
            except redis.WatchError:
                continue


def _finished(pipe: redis.client.Pipeline, job: MatchJob, status: str) -> None:
    """Queues the tournament bookkeeping of a finished job onto ``pipe``."""
    if job.tournament:
        pipe.hincrby(keys.tournament(job.tournament), status, 1)
        pipe.xadd(keys.tournament_done(job.tournament), {"match_id": job.match_id, "status": status})


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
