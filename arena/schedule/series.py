"""The games of a regression series: queued in pairs, recorded, scored, and the SPRT moved on.

Games come in pairs: one deal (a keyed seed, ``arena.seeds.keyed_seed``) played twice with the seats
swapped, each game with fresh bot processes, so the luck of the deal cancels out and the pentanomial
model applies (``arena.ratings.sprt``). A worker records each game of a series with ``finish_game``:
one script marks the job recorded, adds its match id to the recorded set (a game recorded twice
counts once) and, when the other game of its pair is in, adds the pair's score to the counts
``p0``..``p4``. Then ``advance`` recomputes the LLR from the counts and either stores the verdict (H0:
regression, H1: no regression, by the LLR's side of the bounds' middle when the budget ran out;
``none`` only when the games could not be played or a version was removed) or
queues the next pairs, keeping ``AHEAD`` pairs queued or playing. ``advance`` reads everything from
Redis and may run any number of times, from any worker, in any order: a worker killed between
recording and advancing has not acknowledged the game's job yet, so the worker that reclaims it
advances the series (``resume``).

Games wait in a list of their own (``keys.REGRESSION_QUEUE``) that workers read only when no rated,
tournament or smoke job waits, holding at most ``QUEUE_CAP`` games platform-wide; a series that finds
it full is noted in ``keys.REGRESSION_STARVED`` and gets the room first when games leave (``feed``).

How a series is requested, started, cancelled and shown: ``arena.schedule.regression``.
"""

from __future__ import annotations

import enum
import re
import time

import redis

from arena.queue import keys
from arena.queue.connection import hash_fields, scored_members, text_hash
from arena.queue.jobs import JobStatus, MatchJob, enqueue_waiting, run_script
from arena.queue.store import FINISH_JOB_FUNCTION, JOB_TTL
from arena.ratings.sprt import PENTANOMIAL, Sprt, SprtParams
from arena.referee.record import MatchRecord
from arena.seeds import keyed_seed, platform_key

QUEUE_CAP = 120  # regression games waiting in keys.REGRESSION_QUEUE, platform-wide (20 series' AHEAD)
AHEAD = 3  # pairs of a series queued or playing at once
MAX_VOID = 3  # pairs that could not be played (a job dead-lettered) after which the series stops
PREVIOUS_SUFFIX = "~previous"  # the old version's seat name (a name no submitted bot can have)
_MATCH_ID = re.compile(r"^regression-((?:builtin-)?[0-9a-f]{12})-p(\d+)([ab])$")


class State(enum.StrEnum):
    """Where a series is, the ``state`` field of ``keys.regression(version)``."""

    WAITING = "waiting"  # requested; starts when the new version becomes active
    RUNNING = "running"  # pairs of games queued or playing
    DONE = "done"  # ``verdict`` stored; games still in flight are not counted
    CANCELLED = "cancelled"  # superseded by a newer version (``reason``); verdict ``none``


# Takes the games of a stopped series that still wait out of the waiting list and closes their jobs
# (those still queued: a game a worker began is acknowledged by it, see ``skip_if_stopped``). A pair
# that is void or played, and a game that is played, are left alone.
DROP_FUNCTION = (
    FINISH_JOB_FUNCTION
    + """
local function drop_waiting(series, version, queue, job_prefix, queued_status, recorded, ttl)
  local queued = tonumber(redis.call('HGET', series, 'queued') or '0')
  local dropped = 0
  for pair = 0, queued - 1 do
    if redis.call('HEXISTS', series, 'v' .. pair) == 0 then
      for _, half in ipairs({'a', 'b'}) do
        if redis.call('HEXISTS', series, 's' .. pair .. half) == 0 then
          local id = 'regression-' .. version .. '-p' .. pair .. half
          dropped = dropped + redis.call('LREM', queue, 0, id)
          if redis.call('HGET', job_prefix .. id, 'status') == queued_status then
            finish_job(job_prefix .. id, recorded, ttl)
          end
        end
      end
    end
  end
  return dropped
end
"""
)
DROP_WAITING = (
    DROP_FUNCTION + "return drop_waiting(KEYS[1], ARGV[1], KEYS[2], ARGV[2], ARGV[3], ARGV[4], ARGV[5])"
)


def drop_args(version: str) -> tuple[str, ...]:
    return (version, keys.job(""), JobStatus.QUEUED.value, JobStatus.RECORDED.value, str(JOB_TTL))


def params_of(fields: dict[str, str]) -> SprtParams:
    """Returns the SPRT parameters stored in a series hash."""
    return SprtParams(*(float(fields[k]) for k in ("elo0", "elo1", "alpha", "beta")))


def test_of(fields: dict[str, str]) -> Sprt:
    """Returns the SPRT of a series hash: its parameters and pentanomial counts."""
    return Sprt(params_of(fields), tuple(int(fields.get(f"p{k}", 0)) for k in range(PENTANOMIAL)))


def advance(client: redis.Redis, version: str) -> str | None:
    """Moves the running series of ``version`` on: stores its verdict when the LLR crossed a bound or
    it cannot go on, else queues pairs until ``AHEAD`` are in flight; returns the verdict, or None
    while it runs. Safe to call any number of times: it reads the series and writes under WATCH."""
    key = keys.regression(version)
    with client.pipeline() as pipe:
        while True:
            try:
                pipe.watch(key)
                fields = text_hash(pipe.hgetall(key))
                if fields.get("state") != State.RUNNING:
                    return fields.get("verdict") or None
                verdict, reason = _decide(client, fields)
                if verdict is not None:
                    update = _verdict_fields(fields, verdict, reason)
                else:  # enqueueing is idempotent: a retry after a WatchError queues nothing twice
                    update = {"queued": str(_queue_pairs(client, version, fields))}
                pipe.multi()
                pipe.hset(key, mapping=hash_fields(update))
                pipe.execute()
                break
            except redis.WatchError:
                continue
    if verdict is not None:  # decided: its games still waiting are not played
        run_script(client, DROP_WAITING, (key, keys.REGRESSION_QUEUE), drop_args(version))
    return verdict


def _decide(client: redis.Redis, fields: dict[str, str]) -> tuple[str | None, str]:
    """Returns the verdict a series has reached and why it stopped early (or (None, ""))."""
    test = test_of(fields)
    if test.verdict is not None:
        return test.verdict, ""
    new, old = fields["new"], fields["old"]
    gone = [v for v in (new, old) if not client.exists(keys.bot_version(v))]
    if gone:
        return "none", f"version {gone[0]} was removed before the test decided"
    void = int(fields["void"])
    if void >= MAX_VOID:
        why = fields.get("error") or "no error given"
        return "none", f"{void} pairs of games could not be played; the last error: {why}"
    if test.games + 2 * void >= int(fields["max_games"]):  # decided at the budget: never "none"
        return test.verdict_at_budget(), ""
    return None, ""


def _verdict_fields(fields: dict[str, str], verdict: str, reason: str) -> dict[str, str]:
    """Returns the fields that close a series with ``verdict``."""
    test = test_of(fields)
    return {
        "state": State.DONE.value,
        "verdict": verdict,
        "reason": reason,
        "llr": repr(test.llr),
        "finished": repr(time.time()),
    }


def _queue_pairs(client: redis.Redis, version: str, fields: dict[str, str]) -> int:
    """Queues the series' next pairs (idempotently: a pair's match ids are fixed) so that ``AHEAD``
    are queued or playing, within the budget and while the waiting list has room for a whole pair
    (else the series is noted as starved, see ``feed``); returns how many pairs are queued in all."""
    settled = sum(test_of(fields).counts) + int(fields["void"])
    queued = int(fields["queued"])
    target = max(queued, min(int(fields["max_games"]) // 2, settled + AHEAD))
    key = platform_key() if target > queued else b""
    for pair in range(queued, target):
        games = [game_job(fields, version, pair, half, key) for half in "ab"]
        if not enqueue_waiting(client, games, QUEUE_CAP, starved=version):
            return pair
    return target


# KEYS: the starved set. ARGV: version, the score it had when read. Removes it unless it was noted
# again meanwhile (a new score): then it still wants room.
_UNSTARVE = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('ZREM', KEYS[1], ARGV[1]) end
"""


def feed(client: redis.Redis) -> int:
    """Advances the series that found the waiting list full (``keys.REGRESSION_STARVED``), oldest
    first, while the list has room for a pair; returns how many it advanced. Called whenever games
    leave the list (played, voided, skipped, dropped) and by an idle worker, so a starved series never
    waits for good.

    Design detail: a series leaves the starved set only after its advance, and only if it was not
    noted again meanwhile, so a worker dying in between leaves it there for the next feed."""
    advanced = 0
    oldest = scored_members(client.zrange(keys.REGRESSION_STARVED, 0, 0, withscores=True))
    for _ in range(client.zcard(keys.REGRESSION_STARVED) + 1 if oldest else 0):
        if advanced:
            oldest = scored_members(client.zrange(keys.REGRESSION_STARVED, 0, 0, withscores=True))
        if not oldest or client.llen(keys.REGRESSION_QUEUE) + 2 > QUEUE_CAP:
            break
        version, score = oldest[0]
        advance(client, version)
        run_script(client, _UNSTARVE, (keys.REGRESSION_STARVED,), (version, f"{score:.17g}"))
        advanced += 1
    return advanced


def game_job(fields: dict[str, str], version: str, pair: int, half: str, key: bytes) -> MatchJob:
    """Returns the job of one game of a series: in game ``a`` the new version holds seat 0, in game
    ``b`` seat 1, on the same keyed deal, each with fresh bot processes."""
    bot, new, old = fields["bot"], fields["new"], fields["old"]
    seats = [(bot, new), (bot + PREVIOUS_SUFFIX, old)]
    if half == "b":
        seats.reverse()
    return MatchJob(
        match_id=f"regression-{version}-p{pair}{half}",
        game=fields["game"],
        seed=keyed_seed(key, int(fields["seed"]), "regression", version, pair),
        bots=tuple(b for b, _ in seats),
        versions=tuple(v for _, v in seats),
        fresh_bots=True,
    )


def series_of(job: MatchJob) -> tuple[str, int, str] | None:
    """Returns (version, pair, half) of a regression series' game, or None for any other job."""
    found = _MATCH_ID.fullmatch(job.match_id)
    return (found[1], int(found[2]), found[3]) if found else None


def half_points(record: MatchRecord, seat: int) -> int:
    """Returns the new version's score in half points: 2 ranked ahead, 1 level, 0 behind (a forfeited
    seat is ranked last, so a forfeit loses)."""
    mine = record.players[seat].rank
    theirs = record.players[1 - seat].rank
    return 2 if mine < theirs else 1 if mine == theirs else 0


# KEYS: recorded set, job stream, job hash, series hash. ARGV: match id, group, entry id, recorded
# status, job TTL, pair, half, half points of the new version, running state. (No XACK: see
# ``finish_game``.)
_FINISH_GAME = (
    FINISH_JOB_FUNCTION
    + """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
finish_job(KEYS[3], ARGV[4], ARGV[5])
if redis.call('HGET', KEYS[4], 'state') ~= ARGV[9] then return 1 end
if redis.call('HEXISTS', KEYS[4], 'v' .. ARGV[6]) == 1 then return 1 end
redis.call('HSET', KEYS[4], 's' .. ARGV[6] .. ARGV[7], ARGV[8])
local other = redis.call('HGET', KEYS[4], 's' .. ARGV[6] .. (ARGV[7] == 'a' and 'b' or 'a'))
if not other then return 1 end
local names = {'losses', 'draws', 'wins'}
for _, points in ipairs({tonumber(ARGV[8]), tonumber(other)}) do
  redis.call('HINCRBY', KEYS[4], names[points + 1], 1)
end
redis.call('HINCRBY', KEYS[4], 'p' .. (tonumber(ARGV[8]) + tonumber(other)), 1)
return 1
"""
)


def finish_game(client: redis.Redis, job: MatchJob, record: MatchRecord, entry_id: str = "") -> bool:
    """Records a played game of a series once, advances the series, then acknowledges the job's
    stream entry (``entry_id``, if any); returns False if the game was recorded already (then it
    counts nothing).

    Design detail: the acknowledgement comes last, so a worker killed before it has advanced leaves
    the entry pending; the worker that reclaims it finds the job recorded and calls ``resume``."""
    found = series_of(job)
    if found is None:
        raise ValueError(f"{job.match_id} is not a game of a regression series")
    version, pair, half = found
    points = half_points(record, 0 if half == "a" else 1)  # the new version's seat (game_job)
    args: tuple[str | int, ...] = (job.match_id, keys.WORKERS_GROUP, entry_id, JobStatus.RECORDED.value)
    args += (JOB_TTL, str(pair), half, str(points), State.RUNNING.value)
    script_keys = (keys.RECORDED_SET, keys.JOBS_STREAM, keys.job(job.match_id), keys.regression(version))
    new = bool(run_script(client, _FINISH_GAME, script_keys, args))
    feed(client)  # series that waited for room first, then this one
    advance(client, version)
    if entry_id:
        client.xack(keys.JOBS_STREAM, keys.WORKERS_GROUP, entry_id)
    return new


def resume(client: redis.Redis, match_id: str) -> None:
    """Advances the series of ``match_id`` if it is a series game (a reclaimed stream entry of a game
    recorded by a worker that died before acknowledging it, or one its stopped series closed), and the
    series waiting for room; does nothing for any other match."""
    found = _MATCH_ID.fullmatch(match_id)
    if found:
        feed(client)
        advance(client, found[1])


# KEYS: series hash, job hash, job stream. ARGV: running state, recorded status, job TTL, group, entry.
_SKIP = (
    FINISH_JOB_FUNCTION
    + """
if redis.call('HGET', KEYS[1], 'state') == ARGV[1] then return 0 end
finish_job(KEYS[2], ARGV[2], ARGV[3])
if ARGV[5] ~= '' then redis.call('XACK', KEYS[3], ARGV[4], ARGV[5]) end
return 1
"""
)


def skip_if_stopped(client: redis.Redis, job: MatchJob, entry_id: str = "") -> bool:
    """Returns True, with the job closed and its entry acknowledged, when ``job`` is a game of a series
    that is no longer running (cancelled by a newer version, or decided): nothing is built or played,
    as for a superseded smoke match. Returns False, changing nothing, for a running series' game."""
    found = series_of(job)
    if found is None or client.hget(keys.regression(found[0]), "state") == State.RUNNING:
        return False
    feed(client)  # before the acknowledgement: a worker dying here leaves the entry to rerun this
    args = (State.RUNNING.value, JobStatus.RECORDED.value, JOB_TTL, keys.WORKERS_GROUP, entry_id)
    series_keys = (keys.regression(found[0]), keys.job(job.match_id), keys.JOBS_STREAM)
    return bool(run_script(client, _SKIP, series_keys, args))


# KEYS: series hash. ARGV: pair, running state, error.
_VOID = """
if redis.call('HGET', KEYS[1], 'state') ~= ARGV[2] then return 0 end
local pair = ARGV[1]
if redis.call('HEXISTS', KEYS[1], 'v' .. pair) == 1 then return 0 end
local played = redis.call('HMGET', KEYS[1], 's' .. pair .. 'a', 's' .. pair .. 'b')
if played[1] and played[2] then return 0 end
redis.call('HSET', KEYS[1], 'v' .. pair, 1, 'error', ARGV[3])
redis.call('HINCRBY', KEYS[1], 'void', 1)
return 1
"""


def void_game(client: redis.Redis, job: MatchJob, error: str = "") -> None:
    """Voids the pair of a series game that could not be played (dead-lettered with ``error``), so it
    never counts, and advances the series (which queues another pair in its place, or stops after
    ``MAX_VOID``, saying the last error)."""
    found = series_of(job)
    if found is None:
        return
    version, pair, _ = found
    run_script(client, _VOID, (keys.regression(version),), (str(pair), State.RUNNING.value, error[:500]))
    feed(client)
    advance(client, version)
