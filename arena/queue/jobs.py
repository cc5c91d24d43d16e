"""Match jobs, their status and idempotent enqueueing (connections and retries: arena.queue.connection).

Two queues. Rated, tournament and smoke jobs go straight into the job stream (``enqueue``). Games of
regression series (``arena.schedule.regression``) wait in a list of their own,
``keys.REGRESSION_QUEUE``, which holds at most a given number of them (``enqueue_waiting``). The
oldest of them enters the stream in one of two ways, each one script that moves it, so that a game is
never in the list and the stream both, nor in neither: a worker that finds no new entry in the stream
takes it (``TAKE_FUNCTION``), and one in ``REGRESSION_SHARE`` enqueues of another job puts it into
the stream just before that job (``enqueue``). From then on a regression game is an entry like any
other, claimed, heartbeated, re-queued (into the stream) and dead-lettered the same way. Nothing in
the stream changed: entries queued before the list existed are read as they always were.

Why a share: ladders keep jobs queued ahead of their workers, so on a busy competition the stream is
never empty, and a regression test waiting for it got about one game a minute (the dress rehearsal:
14 games in 30 minutes beside four ladders). One enqueue in ``REGRESSION_SHARE`` gives the waiting
tests that share of the workers at most, and nothing when none waits.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import redis

from arena.queue import keys
from arena.queue.connection import text_hash

MAX_ATTEMPTS = 3  # runs of one job before it goes to the dead-letter stream
REGRESSION_SHARE = 8  # one enqueue in this many lets a waiting regression game into the stream first
_TURN_KEYS = (keys.REGRESSION_QUEUE, keys.REGRESSION_TURN)

T = TypeVar("T")


class JobStatus(enum.StrEnum):
    """Where a job is in its life. Stored as the ``status`` field of the job's hash."""

    QUEUED = "queued"  # in the stream, waiting for a worker (again, after a failed attempt)
    RUNNING = "running"  # a worker is playing it
    RECORDED = "recorded"  # its result, replay and rating update are stored
    DEAD = "dead"  # failed MAX_ATTEMPTS times; in the dead-letter stream with its error


class JobError(Exception):
    """A job that cannot be played as given, or the platform's failure to start a bot (retried)."""


@dataclasses.dataclass(frozen=True)
class MatchJob:
    """One match to play. ``bots`` are the bot names, seat 0 first; ``versions`` the version each seat
    plays (see ``arena.submissions.registry``); a job without versions names built-in bots only."""

    match_id: str
    game: str
    seed: int
    bots: tuple[str, ...]
    deadline_ms: int = 2000
    max_strikes: int = 3
    tournament: str = ""
    versions: tuple[str, ...] = ()
    fresh_bots: bool = False  # play with new bot processes, stopped after it (duplicate deals)
    smoke: bool = False  # a submitted version's check against random: not rated (``arena.submissions.smoke``)

    def __post_init__(self) -> None:
        if len(set(self.bots)) != len(self.bots):
            raise ValueError(f"job {self.match_id}: a bot may hold only one seat: {list(self.bots)}")
        if self.versions and len(self.versions) != len(self.bots):
            raise ValueError(f"job {self.match_id}: one version per seat, got {list(self.versions)}")

    def to_json(self) -> str:
        """Returns the job as the JSON stored in its hash."""
        fields = {**dataclasses.asdict(self), "bots": list(self.bots), "versions": list(self.versions)}
        return json.dumps(fields, separators=(",", ":"))

    @staticmethod
    def from_json(text: str) -> MatchJob:
        """Returns the job that ``to_json`` produced."""
        data = json.loads(text)
        return MatchJob(**{**data, "bots": tuple(data["bots"]), "versions": tuple(data.get("versions", ()))})


# Design detail: the existence check and the XADD run as one Lua script, so two clients enqueueing the
# same match id at once still add one stream entry. A recorded match's job hash expires an hour after it
# is recorded (``store.finish_job``): the recorded set keeps enqueueing it a no-op after that.
# KEYS: the job's hash, the stream, the recorded set, the regression games' waiting list, the turn
# counter. ARGV: the job's JSON, status, tournament and match id, then the share (0: no turn).
_ENQUEUE = """
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('SISMEMBER', KEYS[3], ARGV[4]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'job', ARGV[1], 'status', ARGV[2], 'attempts', 0, 'tournament', ARGV[3])
local share = tonumber(ARGV[5])
if share > 0 and redis.call('LLEN', KEYS[4]) > 0 and redis.call('INCR', KEYS[5]) % share == 0 then
  redis.call('XADD', KEYS[2], '*', 'match_id', redis.call('LPOP', KEYS[4]))
end
redis.call('XADD', KEYS[2], '*', 'match_id', ARGV[4])
return 1
"""


def run_script(
    client: redis.Redis, script: str, keys: Sequence[str], args: Sequence[str | int | bytes]
) -> Any:
    """Returns what a Lua script returns, through redis-py's ``Script`` (EVALSHA; the text is loaded
    once when the server does not know it yet). ``client`` may be a pipeline that is WATCHing
    (commands run at once)."""
    return client.register_script(script)(keys=list(keys), args=list(args))


def enqueue(client: redis.Redis, job: MatchJob) -> bool:
    """Returns True if the job was added, False if a job with its match id already exists. While
    regression games wait, one added job in ``REGRESSION_SHARE`` lets the oldest into the stream first."""
    added = run_script(
        client,
        _ENQUEUE,
        (keys.job(job.match_id), keys.JOBS_STREAM, keys.RECORDED_SET, *_TURN_KEYS),
        (job.to_json(), JobStatus.QUEUED.value, job.tournament, job.match_id, REGRESSION_SHARE),
    )
    return bool(added)


# KEYS: the waiting list, the recorded set, the starved set, its counter, then each job's hash.
# ARGV: cap, starved member ('' for none), then each job's match id and JSON. All the jobs not known
# yet go in, or none: refused when they would take the list past the cap (then the member is noted in
# the starved set, in the same step, so whoever frees room later finds it).
_ENQUEUE_WAITING = """
local cap = tonumber(ARGV[1])
local new = {}
for i = 5, #KEYS do
  local id = ARGV[1 + 2 * (i - 4)]
  if redis.call('EXISTS', KEYS[i]) == 0 and redis.call('SISMEMBER', KEYS[2], id) == 0 then
    table.insert(new, i)
  end
end
if #new == 0 then return 1 end
if redis.call('LLEN', KEYS[1]) + #new > cap then
  if ARGV[2] ~= '' then
    redis.call('ZADD', KEYS[3], redis.call('INCR', KEYS[4]), ARGV[2])
  end
  return 0
end
for _, i in ipairs(new) do
  local id = ARGV[1 + 2 * (i - 4)]
  local job = ARGV[2 + 2 * (i - 4)]
  redis.call('HSET', KEYS[i], 'job', job, 'status', ARGV[#ARGV], 'attempts', 0, 'tournament', '')
  redis.call('RPUSH', KEYS[1], id)
end
return 1
"""


def enqueue_waiting(client: redis.Redis, jobs: Sequence[MatchJob], cap: int, starved: str = "") -> bool:
    """Adds ``jobs`` (games of regression series) to the waiting list, all at once; returns False,
    adding none, when the new ones would take the list past ``cap`` jobs (then ``starved``, if given,
    is noted in ``keys.REGRESSION_STARVED`` in the same step). Jobs that exist already are left as
    they are and need no room: adding the same jobs again is a no-op that returns True."""
    script_keys = [
        keys.REGRESSION_QUEUE,
        keys.RECORDED_SET,
        keys.REGRESSION_STARVED,
        keys.REGRESSION_STARVED_SEQ,
    ]
    script_keys += [keys.job(job.match_id) for job in jobs]
    args: list[str | int] = [cap, starved]
    for job in jobs:
        args += (job.match_id, job.to_json())
    return bool(run_script(client, _ENQUEUE_WAITING, script_keys, [*args, JobStatus.QUEUED.value]))


def ensure_group(client: redis.Redis) -> None:
    """Creates the job stream and the workers' consumer group unless they exist."""
    try:
        client.xgroup_create(keys.JOBS_STREAM, keys.WORKERS_GROUP, id="0", mkstream=True)
    except redis.ResponseError as exc:
        if "BUSYGROUP" not in str(exc):
            raise


def trim_acknowledged(client: redis.Redis) -> int:
    """Deletes the job stream's entries every worker is done with; returns how many went.

    Design detail: an entry older than both the oldest unacknowledged one and the last one delivered
    to the group has been acknowledged, and nothing reads it again (a re-queued job gets a new entry),
    yet the stream would keep it forever: some 40 bytes of Redis a match. Entries only ever get newer
    and pending ones only go away, so the floor read here stays safe until the trim; Redis keeps the
    group's lag exact across a trim (checked on 7.0).
    """
    try:
        group = next(g for g in client.xinfo_groups(keys.JOBS_STREAM) if g["name"] == keys.WORKERS_GROUP)
    except (redis.ResponseError, StopIteration):  # no stream or no group yet: nothing to trim
        return 0
    floor = group["last-delivered-id"]
    oldest_pending = client.xpending(keys.JOBS_STREAM, keys.WORKERS_GROUP)["min"]
    if oldest_pending is not None:
        floor = min(floor, oldest_pending, key=_stream_id)
    return int(client.xtrim(keys.JOBS_STREAM, minid=floor, approximate=False))


def _stream_id(entry_id: str) -> tuple[int, int]:
    """Returns a stream entry id as numbers, for ordering (``"1700000000000-12"``)."""
    milliseconds, _, sequence = entry_id.partition("-")
    return int(milliseconds), int(sequence or 0)


# Design detail: reading a job and marking it running are one script, so taking a job costs one round
# trip; a job that is unknown, recorded or dead comes back unchanged and is not started. The function
# is shared by the scripts that take a job from the stream (below, and ``store.record_and_take``).
BEGIN_FUNCTION = """
local function begin(job_key, recorded, dead, running)
  local status = redis.call('HGET', job_key, 'status')
  if status == false or status == recorded or status == dead then
    return {0, redis.call('HGETALL', job_key)}
  end
  redis.call('HINCRBY', job_key, 'attempts', 1)
  redis.call('HSET', job_key, 'status', running)
  return {1, redis.call('HGETALL', job_key)}
end
"""
_BEGIN = BEGIN_FUNCTION + "return begin(KEYS[1], ARGV[1], ARGV[2], ARGV[3])"

# Reads the next undelivered entry for a consumer and begins its job. XREADGROUP never blocks in a
# script: {} means no entry was waiting. Job keys are built from the prefix passed in (keys.job("")).
# When the stream has no new entry, the oldest regression game waiting (keys.REGRESSION_QUEUE) is added
# to it and read at once, in the same step: nothing else can come between, so it is the entry read, and
# a game is never in the list and the stream both, nor in neither. (The list's key is written into the
# function: ``store.record_and_take`` calls ``take`` with the arguments it always passed.)
TAKE_FUNCTION = (
    BEGIN_FUNCTION
    + """
local function take(stream, group, consumer, job_prefix, recorded, dead, running)
  local read = redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', 1, 'STREAMS', stream, '>')
  if not read then
    local waiting = redis.call('LPOP', '"""
    + keys.REGRESSION_QUEUE
    + """')
    if not waiting then return {} end
    redis.call('XADD', stream, '*', 'match_id', waiting)
    read = redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', 1, 'STREAMS', stream, '>')
    if not read then return {} end
  end
  local entry = read[1][2][1]
  local match_id = false
  for i = 1, #entry[2], 2 do
    if entry[2][i] == 'match_id' then match_id = entry[2][i + 1] end
  end
  if not match_id then
    redis.call('XACK', stream, group, entry[1])
    return {}
  end
  local begun = begin(job_prefix .. match_id, recorded, dead, running)
  return {entry[1], match_id, begun[1], begun[2]}
end
"""
)
_TAKE = TAKE_FUNCTION + "return take(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])"


@dataclasses.dataclass(frozen=True)
class Taken:
    """A job taken from the stream by a worker: its entry, and the job's hash after ``begin``."""

    entry_id: str
    match_id: str
    job: MatchJob | None  # None: unknown
    fields: Mapping[str, str]  # ``attempts`` is this attempt's number; ``error`` the previous one's
    started: bool  # False: unknown, recorded or dead already; nothing to run


def _begin_args() -> tuple[str, str, str]:
    return JobStatus.RECORDED.value, JobStatus.DEAD.value, JobStatus.RUNNING.value


def take_args(consumer: str) -> tuple[str, ...]:
    """Returns the arguments of ``TAKE_FUNCTION``'s ``take`` after the stream, for ``consumer``."""
    return (keys.WORKERS_GROUP, consumer, keys.job(""), *_begin_args())


def taken_from(reply: Sequence[Any]) -> Taken | None:
    """Returns what a ``take`` reply holds: the taken job, or None when no entry was waiting."""
    if not reply:
        return None
    entry_id, match_id, started, flat = reply
    return _taken(entry_id, match_id, started, flat)


def _taken(entry_id: str, match_id: str, started: int, flat: Sequence[str]) -> Taken:
    fields = dict(zip(flat[::2], flat[1::2], strict=True))
    job = MatchJob.from_json(fields["job"]) if "job" in fields else None
    return Taken(entry_id, match_id, job, fields, bool(started))


def take_job(client: redis.Redis, consumer: str) -> Taken | None:
    """Takes the next undelivered job for ``consumer`` (a regression game only when no other job is
    waiting) and marks it running, in one round trip; returns None at once when none is waiting."""
    return taken_from(run_script(client, _TAKE, (keys.JOBS_STREAM,), take_args(consumer)))


def begin_job(client: redis.Redis, entry_id: str, match_id: str) -> Taken:
    """Marks the job of a stream entry running and counts the attempt, unless it is unknown, recorded
    or dead (then ``started`` is False)."""
    started, flat = run_script(client, _BEGIN, (keys.job(match_id),), _begin_args())
    return _taken(entry_id, match_id, started, flat)


def load_job(client: redis.Redis, match_id: str) -> tuple[MatchJob | None, Mapping[str, str]]:
    """Returns the job and its whole hash (status, attempts, error), or (None, {}) if unknown."""
    fields = text_hash(client.hgetall(keys.job(match_id)))
    return (MatchJob.from_json(fields["job"]) if "job" in fields else None), fields
