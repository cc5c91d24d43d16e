"""What a finished job leaves in Redis, and the one script that puts it there exactly once.

Design detail: ``record_and_take`` sends one Lua script that, atomically, checks that the match is not
recorded yet, then runs the writes the caller computed: adds the match id to the recorded set, stores
result and replay, appends the match's placements (bot, version, rank) to the game's ordered list,
adds the match to the game's pair table (and to its tournament's) with one ``HINCRBY`` per pair (two
from three seats: the result and the weight it lacks, ``arena.ratings.pairs.match_increments``) and
per seat, increments the game's counter of recorded matches (the fit is stale while the cached fit
reflects an older count, see ``arena.storage.fits``), notes the version every seat played, marks the
job recorded, XACKs it and, if asked, takes the worker's next job. Every write is an increment, a set
of a value that only this match owns, or an append, so nothing is read and compared first: a busy
worker's Redis work per match is one round trip, always, and recordings by several workers commute.
Ratings are not computed here at all: the fit runs on the pair table when a reader asks.

Replays live in the replay store (``arena.storage.replays``), compressed; the result keeps the sha256 of
the replay's text (``replay_sha256``), so a replay file can be checked against the platform's record.
With the Redis store the compressed replay is one more write of the script: stored if and only if the
match is recorded. With a folder store the replay is staged before the script runs (after one round
trip that notes the match as pending, unless it is recorded already) and committed after it: a worker
that dies in between leaves a staged replay that the retention sweep commits (recorded) or deletes
(never recorded, after an hour; ``arena.storage.retention``). A replay is never lost, never orphaned,
and two workers that played the same match differently never leave the one that was not recorded.
Once recorded, a job's hash keeps only its status, for an hour (``finish_job``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

import redis

if TYPE_CHECKING:  # redis-py's argument types (recent versions only): for the checker
    from redis.typing import EncodableT, FieldT

from arena.queue import keys
from arena.queue.connection import maybe_text, members, stream_entries, text_hash, text_list
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
from arena.ratings import Placement
from arena.ratings.pairs import match_increments, player_id
from arena.ratings.seating import records_seats
from arena.referee.record import MatchRecord, sole_winner
from arena.storage import replays

JOB_TTL = 3600  # seconds a recorded job's hash (its status alone) is kept
RESULTS_PAGE = 1000  # placements read per LRANGE when streaming a game's results


def placements_json(record: MatchRecord, job: MatchJob) -> dict:
    """Returns what the ratings keep of a match, as ``arena results --json`` prints it:
    ``{"match_id", "players": [{"bot", "version", "rank"}, ...]}`` in seat order."""
    players = [
        {"bot": p.bot, "version": job.versions[p.seat] if job.versions else "", "rank": p.rank}
        for p in record.players
    ]
    return {"match_id": job.match_id, "players": players}


def stored_placements(placements: Mapping) -> str:
    """Returns the list entry of a match's placements: compact JSON without the versions that are
    empty (a bot run from a file has none), as kept for ever in the game's list of results."""
    players = [{k: v for k, v in p.items() if k != "version" or v} for p in placements["players"]]
    return json.dumps({**placements, "players": players}, separators=(",", ":"))


def placements_fields(text: str) -> dict:
    """Returns a list entry of placements (``stored_placements``) as ``placements_json`` made it."""
    stored = json.loads(text)
    players = [
        {"bot": p["bot"], "version": p.get("version", ""), "rank": p["rank"]} for p in stored["players"]
    ]
    return {**stored, "players": players}


def rated_placements(match: Mapping) -> list[Placement]:
    """Returns the placements of a match as stored by ``placements_json``, each seat by player id."""
    return [Placement(player_id(p["bot"], p.get("version", "")), int(p["rank"])) for p in match["players"]]


RESULT_ORDER = ("game", "match_id", "seed", "players", "winner", "termination", "steps")


def record_json(record: MatchRecord, match_id: str, replay_sha256: str, recorded_at: float) -> str:
    """Returns the stored JSON of a match's result (``stored_result`` of ``arena match --json``'s
    fields, its id, the sha256 of its replay's text and when it was recorded)."""
    return stored_result({**record.to_json(), "match_id": match_id}, replay_sha256, recorded_at)


def stored_result(fields: Mapping, replay_sha256: str, recorded_at: float) -> str:
    """Returns the one shape a result is stored in: ``fields`` (a result as ``result_fields`` shows
    it, or stored whole by an older version) with the sha256 of its replay and when it was recorded
    (Unix seconds, for retention; both kept where ``fields`` has them), compact. Recording and
    ``arena storage migrate`` both write through it.

    Design detail: a result is the one value Redis keeps per match for ever, so it leaves out what
    ``result_fields`` derives: a player's seat (its place in the list), ``forfeit`` and ``strikes``
    where they are false and 0, and the winner (the one first-ranked bot). That is about 40 bytes a
    seat, a fifth of a 4-player result."""
    kept = {k: v for k, v in fields.items() if k not in ("winner", "replay_lines")}
    kept["players"] = [_compact_player(p) for p in fields["players"]]
    kept.setdefault("replay_sha256", replay_sha256)
    kept.setdefault("recorded_at", int(recorded_at))
    return json.dumps(kept, separators=(",", ":"))


def _compact_player(player: Mapping) -> dict:
    """Returns a player's stored fields: bot, score and rank, and forfeit or strikes only when set."""
    kept = {"bot": player["bot"], "score": player["score"], "rank": player["rank"]}
    return kept | {k: player[k] for k in ("forfeit", "strikes") if player.get(k)}


def result_fields(text: str) -> dict:
    """Returns a stored result (``stored_result``; one stored whole by an older version and not yet
    migrated reads the same) with every field of ``arena match --json`` in its order, then the stored
    extras (``replay_sha256``, ``recorded_at``): what every reader of results shows."""
    stored = json.loads(text)
    players = [
        {"bot": p["bot"], "seat": p.get("seat", seat), "score": p["score"], "rank": p["rank"]}
        | {"forfeit": p.get("forfeit", False), "strikes": p.get("strikes", 0)}
        for seat, p in enumerate(stored["players"])
    ]
    winner = stored["winner"] if "winner" in stored else sole_winner((p["bot"], p["rank"]) for p in players)
    derived = {"players": players, "winner": winner}
    full = {**stored, **derived}
    ordered = {k: full[k] for k in RESULT_ORDER if k in full}
    return ordered | {k: v for k, v in full.items() if k not in RESULT_ORDER}


# ARGV: match id, group, entry id, then ``take``'s consumer ('' for none), job prefix and statuses;
# then the writes, each as its length and its words. (Flat arguments, not JSON: decoding a replay
# inside JSON cost the script more than all its writes.)
# A recorded job's hash keeps its status alone, for JOB_TTL seconds (KEYS[1] the hash; ARGV status, TTL);
# a job never enqueued (a benchmark recording directly) gets none.
FINISH_JOB_FUNCTION = """
local function finish_job(key, status, ttl)
  if redis.call('EXISTS', key) == 0 then return 0 end
  redis.call('DEL', key)
  redis.call('HSET', key, 'status', status)
  redis.call('EXPIRE', key, ttl)
  return 1
end
"""
_FINISH_JOB = FINISH_JOB_FUNCTION + "return finish_job(KEYS[1], ARGV[1], ARGV[2])"

_RECORD = (
    TAKE_FUNCTION
    + FINISH_JOB_FUNCTION
    + """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then
  redis.call('XACK', KEYS[2], ARGV[2], ARGV[3])
  return {0, {}}
end
finish_job(KEYS[3], ARGV[9], ARGV[10])
local i = 11
while i <= #ARGV do
  local length = tonumber(ARGV[i])
  redis.call(unpack(ARGV, i + 1, i + length))
  i = i + length + 1
end
if ARGV[4] == '' then return {1, {}} end
return {1, take(KEYS[2], ARGV[2], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8])}
"""
)


def record(client: redis.Redis, job: MatchJob, match: MatchRecord, replay: str, message_id: str) -> bool:
    """Records a played job and acknowledges it, atomically; returns False if it was already recorded."""
    return record_and_take(client, job, match, replay, message_id)[0]


def record_and_take(
    client: redis.Redis,
    job: MatchJob,
    match: MatchRecord,
    replay: str,
    message_id: str,
    take_as: str | None = None,
    extras: Mapping[str, bytes] | None = None,
) -> tuple[bool, Taken | None]:
    """Records a played job and acknowledges it, atomically, in one round trip, and with ``take_as``
    (a consumer) takes that consumer's next job in the same round trip. ``extras`` (kind -> bytes,
    e.g. ``log-0``: a seat's log) go into the replay store with the replay, the same way.

    Returns whether the match was new, and the next job (None if none was waiting or none was asked
    for).
    """
    take = take_args(take_as)[1:] if take_as else ("", "", "", "", "")
    replays.check_match_id(job.match_id)  # before a folder store's pending note: never a poison entry
    sha = replays.digest(replay)
    commands = _record_commands(job, match, sha)
    store = replays.store_for(client)
    entries = {replays.REPLAY: replay.encode(), **(extras or {})}
    staged: replays.FolderStore | None = None  # a folder store the entries were staged in
    if isinstance(store, replays.FolderStore) and _stage(client, store, job.match_id, entries, sha):
        staged = store
    if isinstance(store, replays.RedisStore):
        commands.append(store.put_command(job.match_id, entries))
    commands.append(["XACK", keys.JOBS_STREAM, keys.WORKERS_GROUP, message_id])
    args: list[str | int | bytes] = [job.match_id, keys.WORKERS_GROUP, message_id, *take]
    args += (JobStatus.RECORDED.value, JOB_TTL)
    for command in commands:
        args += (len(command), *command)
    script_keys = (keys.RECORDED_SET, keys.JOBS_STREAM, keys.job(job.match_id))
    outcome, reply = run_script(client, _RECORD, script_keys, args)
    if staged is not None and (outcome == 1 or recorded_digest(client, job.match_id) == sha):
        commit_staged(client, staged, job.match_id, sha)
    return outcome == 1, taken_from(reply)


# Notes a match as pending in the folder store (the sweep's list of replays staged, not committed),
# unless it is recorded already: a stale rerun then stages nothing.
_STAGE = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
"""


def _stage(
    client: redis.Redis, store: replays.FolderStore, match_id: str, entries: Mapping[str, bytes], sha: str
) -> bool:
    """Stages a match's entries in a folder store under its replay's digest, the match noted as
    pending first; returns False (nothing staged) if the match is recorded already."""
    args = (match_id, f"{time.time():.3f}")
    if not run_script(client, _STAGE, (keys.RECORDED_SET, keys.STORE_PENDING), args):
        return False
    for kind, data in entries.items():
        store.stage(match_id, kind, data, staged_tag(sha))
    return True


def staged_tag(sha: str) -> str:
    """Returns the tag a replay is staged under in a folder store: the start of its digest."""
    return sha[:16]


def commit_staged(client: redis.Redis, store: replays.FolderStore, match_id: str, sha: str) -> None:
    """Commits the staged replay with digest ``sha`` (the recorded one) and drops the match from the
    pending set."""
    store.commit(match_id, staged_tag(sha))
    client.zrem(keys.STORE_PENDING, match_id)


def recorded_digest(client: redis.Redis, match_id: str) -> str | None:
    """Returns the sha256 of the replay recorded with a match's result, or None (not recorded, or
    recorded before results kept it)."""
    text = client.get(keys.result(match_id))
    return json.loads(text).get("replay_sha256") if text else None  # stored as is, nothing to derive


def replay_text(client: redis.Redis, match_id: str, whole: bool = True) -> str | None:
    """Returns a recorded match's replay (JSON Lines) from the replay store, or from where it was kept
    before the store (``arena storage migrate`` moves it), or None if neither has it. ``whole=False``:
    possibly as its decisions (``replays.whole`` regenerates it)."""
    data = replays.store_for(client).get(match_id, replays.REPLAY, whole=whole)
    if data is not None:
        return data.decode()
    return maybe_text(client.get(keys.replay(match_id)))


def _record_commands(job: MatchJob, match: MatchRecord, sha: str) -> list[Sequence[str | bytes]]:
    """Returns the writes of recording a match, as commands (the replay's own write aside)."""
    placements = placements_json(match, job)
    fields = match_increments(rated_placements(placements), records_seats(job.game))
    commands: list[Sequence[str | bytes]] = [
        ["SADD", keys.RECORDED_SET, job.match_id],
        ["SET", keys.result(job.match_id), record_json(match, job.match_id, sha, time.time())],
        ["RPUSH", keys.results(job.game), stored_placements(placements)],
        *(["RPUSH", keys.bot_matches(job.game, bot), job.match_id] for bot in sorted(set(job.bots))),
        *(["HINCRBY", keys.pairs(job.game), field, str(n)] for field, n in fields),
        ["INCR", keys.rating_updates(job.game)],
        [
            "HSET",
            keys.played_versions(job.game),
            *(x for p in placements["players"] for x in (p["bot"], p["version"])),
        ],
    ]
    if job.tournament:
        commands += (["HINCRBY", keys.tournament_pairs(job.tournament), field, str(n)] for field, n in fields)
    return commands + _finished(job, "recorded")


def finish_job(client: redis.Redis, match_id: str) -> bool:
    """Trims a recorded job's hash to its status, expiring in JOB_TTL seconds (as recording does);
    returns False if it has no hash.

    Design detail: the job, its attempts and errors are never read again once it is recorded, and the
    status only answers someone looking at a job just played: from then on the recorded set alone
    keeps enqueueing the match id a no-op (``jobs.enqueue``) and a stale stream entry of it unplayed
    (``jobs.begin_job`` finds no job to run).
    """
    args = (JobStatus.RECORDED.value, JOB_TTL)
    return bool(run_script(client, _FINISH_JOB, (keys.job(match_id),), args))


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
                    fields: dict[FieldT, EncodableT] = {
                        "match_id": job.match_id,
                        "attempts": attempts,
                        "error": error,
                    }
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


def iter_results(client: redis.Redis, game: str, page: int = RESULTS_PAGE) -> Iterator[dict]:
    """Yields a game's recorded matches' placements (``placements_json``), oldest first, reading the
    list ``page`` entries at a time (never all at once). Matches recorded while it runs are yielded
    too: the list only grows, at its end."""
    start = 0
    while True:
        chunk = text_list(client.lrange(keys.results(game), start, start + page - 1))
        yield from (placements_fields(text) for text in chunk)
        if len(chunk) < page:
            return
        start += page


def save_tournament(client: redis.Redis, tournament_id: str, meta: Mapping[str, str | int]) -> bool:
    """Stores a tournament's description unless it exists; returns True if it was new."""
    created = client.hsetnx(keys.tournament(tournament_id), "game", str(meta["game"]))
    if created:
        client.hset(keys.tournament(tournament_id), mapping={k: str(v) for k, v in meta.items()})
        client.zadd(keys.TOURNAMENTS_SET, {tournament_id: time.time()}, nx=True)
    return bool(created)


def tournaments(client: redis.Redis, limit: int = 20) -> list[dict[str, str]]:
    """Returns the most recent tournaments' hashes (with their id), newest first."""
    ids = members(client.zrevrange(keys.TOURNAMENTS_SET, 0, limit - 1))
    return [{"id": tid, **text_hash(client.hgetall(keys.tournament(tid)))} for tid in ids]


def dead_letters(client: redis.Redis, limit: int = 20) -> list[dict[str, str]]:
    """Returns the newest dead-letter entries (match_id, attempts, error), newest first."""
    return [fields for _, fields in stream_entries(client.xrevrange(keys.DEAD_STREAM, count=limit))]
