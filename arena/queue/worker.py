"""The worker: takes match jobs from the stream, plays them with the referee, records them once.

One job at a time: new jobs come from XREADGROUP (in a script that also marks the job running; a busy
worker's next job comes with the recording of the last one, see ``store.record_and_take``); when
idle, and otherwise every quarter of the idle timeout, the worker first claims one job that another
consumer left unacknowledged for longer than the idle timeout (XAUTOCLAIM), so a killed worker's job
is rerun by the next free worker. While a match runs, a heartbeat re-claims its own entry every third
of the idle timeout, so a slow match is not taken away from a live worker. Submitted bots are fetched
by version and unpacked once into the bot cache (see ``arena.queue.submissions``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import socket
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import TypeVar

import redis

from arena.bots import builtin_bots
from arena.console import say
from arena.games import get_game
from arena.paths import state_dir
from arena.queue import keys, store, submissions
from arena.queue.connection import retrying
from arena.queue.jobs import MAX_ATTEMPTS, MatchJob, Taken, begin_job, ensure_group, take_job
from arena.referee.match import MatchConfig
from arena.referee.pool import BotPool
from arena.referee.processes import DEFAULT_LIMITS, BotLimits, BotSpec, resolve_bot
from arena.referee.record import MatchRecord
from arena.referee.runner import unique_names

DEFAULT_IDLE_TIMEOUT = timedelta(seconds=60)
DEFAULT_BLOCK = timedelta(seconds=2)

T = TypeVar("T")


class JobError(Exception):
    """A job that cannot be played as given, or whose bots could not be started."""


@dataclasses.dataclass(frozen=True)
class WorkerConfig:
    url: str
    idle_timeout: timedelta = DEFAULT_IDLE_TIMEOUT  # unacknowledged this long: another worker reruns it
    block: timedelta = DEFAULT_BLOCK  # how long one XREADGROUP waits for a new job
    join_timeout: timedelta = timedelta(seconds=15)  # how long a bot may take to connect
    consumer: str = ""  # this worker's name in the consumer group; default host-pid-random
    bot_cache: Path | None = None  # where submitted bots are unpacked; default $XDG_STATE_HOME/arena/bots
    bot_limits: BotLimits = DEFAULT_LIMITS  # every bot process's limits, and its sandbox


def default_consumer() -> str:
    """Returns a consumer name unique to this process: host, pid and a random suffix."""
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


class Worker:
    """Plays jobs until stopped; ``run(burst=True)`` returns once no job is queued or pending."""

    def __init__(
        self,
        client: redis.Redis,
        config: WorkerConfig,
        say: Callable[[str], None] = say,
        verbose: bool = False,
    ) -> None:
        self.client = client
        self.config = config
        self.consumer = config.consumer or default_consumer()
        self.say = say
        self.verbose = verbose
        self.handled = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pool: BotPool | None = None
        self._claim_due = 0.0  # time.monotonic() from which to look for stale jobs again

    def run(self, burst: bool = False, max_jobs: int | None = None) -> int:
        """Handles jobs until stopped (or, with ``burst``, until none is left); returns how many.

        Design detail: one event loop, one referee server and one pool of warm bot processes serve
        all of the worker's jobs, because starting bot processes costs far more than playing a match.
        """
        self._retry(lambda: ensure_group(self.client))
        self._loop = asyncio.new_event_loop()
        try:
            self._pool = self._loop.run_until_complete(self._open_pool())
            taken: Taken | None = None
            while max_jobs is None or self.handled < max_jobs:
                if taken is None:
                    taken = self._take()
                if taken is not None:
                    last = max_jobs is not None and self.handled + 1 >= max_jobs
                    taken = self._handle(taken, take_next=not last)
                    self.handled += 1
                elif burst and self._retry(self._idle):
                    break
        finally:
            if self._pool is not None:
                self._loop.run_until_complete(self._pool.__aexit__(None, None, None))
            self._loop.close()
            self._pool = self._loop = None
        return self.handled

    async def _open_pool(self) -> BotPool:
        log_dir = Path(tempfile.mkdtemp(prefix="arena-worker-"))
        pool = BotPool(
            log_dir,
            join_timeout=self.config.join_timeout,
            limits=self.config.bot_limits,
            private=(self.bot_cache, state_dir()),
        )
        return await pool.__aenter__()

    def _retry(self, action: Callable[[], T]) -> T:
        """Returns ``action()``, retried with back-off while Redis is unreachable, saying which worker."""
        return retrying(self.config.url, action, self.say, who=f"arena: worker {self.consumer}")

    def _take(self) -> Taken | None:
        """Returns a stale job or a new one, marked running, or None after waiting ``block``.

        Design detail: stale jobs are looked for when the worker was idle and otherwise once per
        quarter of ``idle_timeout``, not before every job: a job counts as stale only after
        ``idle_timeout`` anyway, and the check would be one more Redis round trip per match. A waiting
        job is read and begun by one script; only an empty stream costs a blocking read.
        """
        entry = self._retry(self._claim_stale)
        if entry is None:
            taken = self._retry(lambda: take_job(self.client, self.consumer))
            if taken is not None:
                return taken
            entry = self._retry(self._wait_for_entry)
        if entry is None:
            self._claim_due = 0.0  # idle: look for stale jobs on the next poll
            return None
        return self._retry(lambda: begin_job(self.client, *entry))

    def _claim_stale(self) -> tuple[str, str] | None:
        """Returns (entry id, match id) of a job left unacknowledged for ``idle_timeout``, when due."""
        now = time.monotonic()
        if now < self._claim_due:
            return None
        idle_ms = int(self.config.idle_timeout / timedelta(milliseconds=1))
        claimed = self.client.xautoclaim(
            keys.JOBS_STREAM, keys.WORKERS_GROUP, self.consumer, idle_ms, start_id="0-0", count=1
        )
        self._claim_due = now + self.config.idle_timeout.total_seconds() / 4
        return self._first_entry(claimed[1])

    def _wait_for_entry(self) -> tuple[str, str] | None:
        """Returns (entry id, match id) of the next new entry, waiting up to ``block`` for one."""
        block_ms = int(self.config.block / timedelta(milliseconds=1))
        read = self.client.xreadgroup(
            keys.WORKERS_GROUP, self.consumer, {keys.JOBS_STREAM: ">"}, count=1, block=block_ms
        )
        return self._first_entry(read[0][1] if read else [])

    def _first_entry(self, entries: list) -> tuple[str, str] | None:
        for entry_id, fields in entries:
            if fields is None:  # trimmed from the stream while pending: nothing to run
                self.client.xack(keys.JOBS_STREAM, keys.WORKERS_GROUP, entry_id)
                continue
            return entry_id, fields["match_id"]
        return None

    def _idle(self) -> bool:
        """Returns True when the stream holds no undelivered entry and no pending one."""
        pending = self.client.xpending(keys.JOBS_STREAM, keys.WORKERS_GROUP)["pending"]
        groups = self.client.xinfo_groups(keys.JOBS_STREAM)
        lag = next((g.get("lag") for g in groups if g["name"] == keys.WORKERS_GROUP), 0)
        return pending == 0 and not lag

    def _handle(self, taken: Taken, take_next: bool) -> Taken | None:
        """Runs one job and records it, re-queues it or dead-letters it; returns the next job when
        ``take_next`` and the recording took one (see ``store.record_and_take``)."""
        job, fields, entry_id, match_id = taken.job, taken.fields, taken.entry_id, taken.match_id
        if job is None or not taken.started:  # unknown, or recorded or dead already: nothing to run
            self._retry(lambda: self.client.xack(keys.JOBS_STREAM, keys.WORKERS_GROUP, entry_id))
            return None
        attempts = int(fields["attempts"])
        if attempts > MAX_ATTEMPTS:
            error = fields.get("error") or f"the worker running it stopped {MAX_ATTEMPTS} times"
            status = self._retry(lambda: store.fail(self.client, job, entry_id, error, attempts - 1))
            self.say(f"arena: worker: {match_id}: {status.value}: {error}")
            return None
        try:
            specs = self._retry(lambda: seat_specs(self.client, job, self.bot_cache))
            assert self._loop is not None
            match, replay = self._loop.run_until_complete(self._play_with_heartbeat(job, specs, entry_id))
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            status = self._retry(lambda: store.fail(self.client, job, entry_id, error, attempts))
            self.say(f"arena: worker: {match_id}: attempt {attempts} failed ({error}); job is {status.value}")
            return None
        # The next job comes with the record unless stale jobs are due to be looked for first.
        take_as = self.consumer if take_next and time.monotonic() < self._claim_due else None
        new, following = self._retry(
            lambda: store.record_and_take(self.client, job, match, replay, entry_id, take_as)
        )
        if self.verbose:
            self.say(f"arena: worker: {match_id}: {'recorded' if new else 'already recorded'}")
        return following

    @property
    def bot_cache(self) -> Path:
        """Returns the folder submitted bots are unpacked into."""
        return self.config.bot_cache or state_dir() / "bots"

    async def _play_with_heartbeat(
        self, job: MatchJob, specs: list[BotSpec], entry_id: str
    ) -> tuple[MatchRecord, str]:
        """Returns the played match while keeping the stream entry claimed by this worker."""
        beat = asyncio.create_task(self._heartbeat(entry_id))
        try:
            assert self._pool is not None
            return await play(job, specs, self._pool)
        finally:
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat

    async def _heartbeat(self, entry_id: str) -> None:
        period = self.config.idle_timeout.total_seconds() / 3
        while True:
            await asyncio.sleep(period)
            with contextlib.suppress(redis.RedisError):
                await asyncio.to_thread(
                    self.client.xclaim,
                    keys.JOBS_STREAM,
                    keys.WORKERS_GROUP,
                    self.consumer,
                    0,
                    [entry_id],
                    justid=True,
                )


def seat_specs(client: redis.Redis, job: MatchJob, cache: Path) -> list[BotSpec]:
    """Returns how to run each seat of ``job``: built-in bots by name, or each seat's stored version.

    Raises JobError for an unknown game, a bot that is not built in (for a job without versions), or
    a version that is not stored.
    """
    try:
        engine = get_game(job.game)
    except ValueError as exc:
        raise JobError(str(exc)) from None
    game = engine.spec.name
    if job.versions:
        try:
            return [
                submissions.bot_spec(client, game, bot, version, cache)
                for bot, version in zip(job.bots, job.versions, strict=True)
            ]
        except submissions.SubmissionError as exc:
            raise JobError(str(exc)) from None
    builtins = builtin_bots(game)
    for bot in job.bots:
        if bot not in builtins:
            # Design detail: never resolve a job's bot as a file or shell command: anyone who can
            # write to Redis could otherwise run commands on every worker.
            raise JobError(f"{bot!r} is not a built-in bot of {game} ({', '.join(sorted(builtins))})")
    return [resolve_bot(game, bot) for bot in job.bots]


async def play(job: MatchJob, specs: list[BotSpec], pool: BotPool) -> tuple[MatchRecord, str]:
    """Plays a job's match on the worker's referee, with warm bot processes; returns record and replay.

    Raises JobError when a bot never connected (an infrastructure problem, retried, rather than a
    loss to record).
    """
    if "/" in job.match_id or job.match_id.startswith("."):
        raise JobError(f"match id {job.match_id!r} may not contain '/' or start with '.'")
    config = MatchConfig(deadline=timedelta(milliseconds=job.deadline_ms), max_strikes=job.max_strikes)
    result = await pool.play(
        get_game(job.game), specs, unique_names(specs), job.seed, job.match_id, config, fresh=job.fresh_bots
    )
    if result.record.absent:
        raise JobError("; ".join(result.notes) or f"seats {list(result.record.absent)} never connected")
    return result.record, result.replay_text
