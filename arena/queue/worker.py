"""The worker: takes match jobs from the stream, plays them with the referee, records them once.

One job at a time: new jobs come from XREADGROUP (in a script that also marks the job running; a busy
worker's next job comes with the recording of the last one, see ``store.record_and_take``), a game of
a regression series when no other job waits or in its turn (``arena.queue.jobs``); when idle, and otherwise
every quarter of the idle timeout, the worker first claims one job that another consumer left
unacknowledged for longer than the idle timeout (XAUTOCLAIM), so a killed worker's job is rerun by
the next free worker. While a match runs, a heartbeat re-claims its own entry every third
of the idle timeout, so a slow match is not taken away from a live worker. Submitted bots are fetched
by version and unpacked once into the bot cache (see ``arena.submissions.registry``), and built once when
the version has a build command (``arena.submissions.build``).

Failures are charged to whoever caused them. A bot that never joins, crashes or runs out of time
forfeits: its seat is ranked last and the match is recorded and rated like any other (a bot cannot dodge
an opponent by failing to start). Only the platform's failures are retried and, after ``MAX_ATTEMPTS``,
dead-lettered: the worker died, Redis went away, or the sandbox itself could not start. Every bot
command is wrapped so that its first line of output, printed inside the sandbox before the bot's own
program starts, is ``READY_LINE`` (``arena.queue.seats``): a seat that never joined and whose process's
first line was not it never got as far as its own code (bwrap failed, or the process could not be
spawned). A match in which no seat joined is the platform's failure only when the worker was unsound at
that moment (its sandbox self-check fails now, or the host ran out of memory or processes:
``arena.queue.health``); otherwise every seat forfeits and it is recorded, so bots cannot void a match
by all failing. Smoke matches (``arena.submissions.smoke``) are played the same way and stored as the
candidate version's verdict instead of a result; games of a regression series
(``arena.schedule.regression``) as a score in their series. Each kind of job (rated, smoke, regression)
is one entry of ``KINDS``. In a rated match the bots are told seat labels, not each other's names
(``MatchConfig.anonymous``).
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

from arena.console import say
from arena.games import get_game
from arena.games.base import Game
from arena.paths import state_dir
from arena.queue import health, keys, store
from arena.queue.connection import GroupEntries, group_reads, retrying
from arena.queue.jobs import (
    MAX_ATTEMPTS,
    JobError,
    JobStatus,
    MatchJob,
    Taken,
    begin_job,
    ensure_group,
    take_job,
)
from arena.queue.seats import READY_LINE, seat_specs
from arena.referee import botlog
from arena.referee.match import MatchConfig
from arena.referee.pool import BotPool
from arena.referee.processes import DEFAULT_LIMITS, BotLimits, BotSpec
from arena.referee.runner import GameResult, unique_names
from arena.schedule import series
from arena.storage import replays, retention
from arena.submissions import build, smoke

DEFAULT_IDLE_TIMEOUT = timedelta(seconds=60)
DEFAULT_BLOCK = timedelta(seconds=2)

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class WorkerConfig:
    url: str
    idle_timeout: timedelta = DEFAULT_IDLE_TIMEOUT  # unacknowledged this long: another worker reruns it
    block: timedelta = DEFAULT_BLOCK  # how long one XREADGROUP waits for a new job
    join_timeout: timedelta = timedelta(seconds=15)  # how long a bot may take to connect
    consumer: str = ""  # this worker's name in the consumer group; default host-pid-random
    bot_cache: Path | None = None  # where submitted bots are unpacked; default $XDG_STATE_HOME/arena/bots
    bot_limits: BotLimits = DEFAULT_LIMITS  # every bot process's limits, and its sandbox
    build_timeout: timedelta = build.DEFAULT_BUILD_TIMEOUT  # how long a version's build command may run


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
        self._playing: asyncio.Task | None = None  # the match being played
        self.stopping = False  # a stop was asked for mid-match (``stop_playing``)
        self._claim_due = 0.0  # time.monotonic() from which to look for stale jobs again
        self.log_dir: Path | None = None  # where this worker's bots write their logs (kept after run)

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
            self._unwind_match()
            if self._pool is not None:
                self._loop.run_until_complete(self._pool.__aexit__(None, None, None))
            self._loop.close()
            self._pool = self._loop = None
        return self.handled

    def stop_playing(self) -> bool:
        """Asks the match being played to stop, from a signal handler (SIGTERM): it is cancelled on the
        loop and unwinds, its bots stopped, and ``run`` then raises asyncio.CancelledError after its
        cleanup, the job left to be claimed again as a killed worker's is. Returns False when no
        match is being played (the caller then exits its own way).

        Design detail: not SystemExit raised from a loop callback: raised in the middle of grpc's
        own callbacks, it left the referee server's main loop task broken ("Task exception was never
        retrieved ... InvalidStateError" at exit, seen once by the dress rehearsal)."""
        playing, loop = self._playing, self._loop
        if playing is None or playing.done() or loop is None:
            return False
        self.stopping = True
        loop.call_soon_threadsafe(playing.cancel)
        return True

    def _unwind_match(self) -> None:
        """Cancels the match a stop interrupted (SIGTERM ends the worker mid-match) and lets it unwind,
        its bots stopped, before the loop closes: closed with the match pending, the loop printed "Task
        was destroyed but it is pending!" and "Event loop is closed" tracebacks at exit."""
        playing, self._playing = self._playing, None
        if playing is not None and not playing.done() and self._loop is not None:
            playing.cancel()
            self._loop.run_until_complete(asyncio.gather(playing, return_exceptions=True))

    async def _open_pool(self) -> BotPool:
        self.log_dir = Path(tempfile.mkdtemp(prefix="arena-worker-"))
        pool = BotPool(
            self.log_dir,
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
            if taken is None and self._retry(lambda: series.feed(self.client)):
                taken = self._retry(lambda: take_job(self.client, self.consumer))  # a starved series' game
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
        return self._first_entry(group_reads(read)[0][1] if read else [])

    def _first_entry(self, entries: GroupEntries) -> tuple[str, str] | None:
        for entry_id, fields in entries:
            if fields is None:  # trimmed from the stream while pending: nothing to run
                self.client.xack(keys.JOBS_STREAM, keys.WORKERS_GROUP, entry_id)
                continue
            return entry_id, fields["match_id"]
        return None

    def _idle(self) -> bool:
        """Returns True when the stream holds no undelivered entry and no pending one, and no
        regression game waits in its list."""
        pending = self.client.xpending(keys.JOBS_STREAM, keys.WORKERS_GROUP)["pending"]
        groups = self.client.xinfo_groups(keys.JOBS_STREAM)
        lag = next((g.get("lag") for g in groups if g["name"] == keys.WORKERS_GROUP), 0)
        return pending == 0 and not lag and not self.client.llen(keys.REGRESSION_QUEUE)

    def _handle(self, taken: Taken, take_next: bool) -> Taken | None:
        """Runs one job and records it, re-queues it or dead-letters it; returns the next job when
        ``take_next`` and the recording took one (see ``store.record_and_take``)."""
        job, fields, entry_id, match_id = taken.job, taken.fields, taken.entry_id, taken.match_id
        if job is None or not taken.started:  # unknown, or recorded or dead already: nothing to run
            self._retry(lambda: series.resume(self.client, match_id))  # a series left mid-step
            self._retry(lambda: self.client.xack(keys.JOBS_STREAM, keys.WORKERS_GROUP, entry_id))
            return None
        kind = KINDS[kind_of(job)]
        if self._retry(lambda: kind.skip(self.client, job, entry_id)):
            return None  # superseded (a smoke match) or stopped (a regression series): not played
        attempts = int(fields["attempts"])
        if attempts > MAX_ATTEMPTS:
            error = fields.get("error") or f"the worker running it stopped {MAX_ATTEMPTS} times"
            self._fail(job, entry_id, error, attempts - 1)
            return None
        try:
            assert self._loop is not None
            self._playing = self._loop.create_task(self._play_with_heartbeat(job, entry_id))
            result, broken = self._loop.run_until_complete(self._playing)
            if self.stopping:  # stopped mid-match: whatever the match returned is not its result
                raise asyncio.CancelledError
        except Exception as exc:
            self._fail(job, entry_id, f"{type(exc).__name__}: {exc}", attempts)
            return None
        return kind.finish(self, Played(job, result, broken, entry_id, attempts, take_next))

    def _record(self, played: Played) -> Taken | None:
        """Records a rated match once (result, replay, logs, ratings); returns the next job when the
        recording took one."""
        job, entry_id = played.job, played.entry_id
        # The next job comes with the record unless stale jobs are due to be looked for first.
        take_as = self.consumer if played.take_next and time.monotonic() < self._claim_due else None
        match, replay = played.result.record, played.result.replay_text
        logs = {botlog.STORE_KIND: botlog.for_store(played.result.match_log_text)}  # arena logs MATCH_ID
        try:
            new, following = self._retry(
                lambda: store.record_and_take(self.client, job, match, replay, entry_id, take_as, logs)
            )
        except (OSError, replays.ReplayStoreError) as exc:  # a full disk is retried; a refused id is dead
            refused = isinstance(exc, replays.ReplayStoreError)
            why = f"{exc.strerror}: {exc.filename}" if isinstance(exc, OSError) and exc.filename else str(exc)
            error = f"the replay store ({replays.store_for(self.client).describe()}) failed: {why}"
            self._fail(job, entry_id, error, MAX_ATTEMPTS if refused else played.attempts)
            return None
        self._retry(lambda: retention.sweep_if_due(self.client, self.say))  # at most once an hour
        if self.verbose:
            self.say(f"arena: worker: {job.match_id}: {'recorded' if new else 'already recorded'}")
        return following

    def _score_regression_game(self, played: Played) -> None:
        """Scores a game of a regression series in its series: not rated, not a result."""
        job, record, entry_id = played.job, played.result.record, played.entry_id
        self._retry(lambda: series.finish_game(self.client, job, record, entry_id))

    def _fail(self, job: MatchJob, entry_id: str, error: str, attempts: int) -> None:
        """Re-queues a job after the platform's failure, or dead-letters it (then its kind is told:
        a smoke match's version that its match could not be played, a series that its game is void)."""
        status = self._retry(lambda: store.fail(self.client, job, entry_id, error, attempts))
        self.say(f"arena: worker: {job.match_id}: attempt {attempts} failed ({error}); job is {status.value}")
        if status is JobStatus.DEAD:
            self._retry(lambda: KINDS[kind_of(job)].dead(self.client, job, error))

    def _finish_smoke(self, played: Played) -> None:
        """Stores a smoke match's verdict for its candidate version (seat 0); a failed build is the
        reason when there was one."""
        job = played.job
        passed, reason, log = smoke.verdict(played.result, job.bots[0])
        if 0 in played.broken:
            passed, reason = False, played.broken[0]
        self._retry(lambda: smoke.finish(self.client, job, passed, reason, log, played.entry_id))
        if self.verbose:
            self.say(f"arena: worker: {job.match_id}: smoke {'passed' if passed else 'failed'} {reason}")

    @property
    def bot_cache(self) -> Path:
        """Returns the folder submitted bots are unpacked into."""
        return self.config.bot_cache or state_dir() / "bots"

    async def _play_with_heartbeat(self, job: MatchJob, entry_id: str) -> tuple[GameResult, dict[int, str]]:
        """Returns the played match and the seats whose build failed, keeping the stream entry claimed
        by this worker meanwhile (a build may take minutes)."""
        beat = asyncio.create_task(self._heartbeat(entry_id))
        try:
            assert self._pool is not None
            engine = resolve_game(job)
            specs, broken = await asyncio.to_thread(self._retry, self._seat_specs(job, engine))
            return await play(job, engine, specs, self._pool, self.config.bot_limits), broken
        finally:
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat

    def _seat_specs(self, job: MatchJob, engine: Game) -> Callable[[], tuple[list[BotSpec], dict[int, str]]]:
        config = self.config
        return lambda: seat_specs(
            self.client, job, engine, self.bot_cache, config.bot_limits, config.build_timeout
        )

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


def resolve_game(job: MatchJob) -> Game:
    """Returns the job's game, resolved once for the whole job; raises JobError for an unknown one."""
    try:
        return get_game(job.game)
    except ValueError as exc:
        raise JobError(str(exc)) from None


async def play(
    job: MatchJob, engine: Game, specs: list[BotSpec], pool: BotPool, limits: BotLimits = DEFAULT_LIMITS
) -> GameResult:
    """Plays a job's match on the worker's referee, with warm bot processes; returns its result, in
    which a bot that never joined, crashed or ran out of time forfeited.

    Raises JobError when the platform failed: a seat's sandbox never started its bot, or no seat
    joined at all while the worker itself was unsound (``arena.queue.health``; retried, then
    dead-lettered). No seat joining on a sound worker is the bots' doing: all forfeit, recorded.
    """
    try:
        replays.check_match_id(job.match_id)
    except replays.ReplayStoreError as exc:
        raise JobError(str(exc)) from None
    # A rated match is anonymous: its bots are told seat labels, not each other's names (the record
    # and the replay keep the names), so two bots of one person cannot find each other at a table.
    deadline = timedelta(milliseconds=job.deadline_ms)
    config = MatchConfig(deadline, job.max_strikes, anonymous=kind_of(job) == "rated")
    before = health.snapshot()
    result = await pool.play(
        engine, specs, unique_names(specs), job.seed, job.match_id, config, fresh=job.fresh_bots
    )
    problem = platform_failure(result)
    if not problem and nobody_joined(result):
        unsound = await asyncio.to_thread(health.platform_problem, before, limits)
        if unsound:
            problem = f"no seat's bot joined and {unsound}: {'; '.join(result.notes) or 'no output'}"
    if problem:
        raise JobError(problem)
    return result


def platform_failure(result: GameResult) -> str:
    """Returns why a played match is the platform's failure whatever the worker's health (a seat's
    sandbox never started its bot: its process's first line was not READY_LINE), or ''."""
    absent, players = result.record.absent, result.record.players
    why = "; ".join(result.notes) or "no output"
    first = result.first_lines
    unstarted = [s for s in absent if (first[s] if s < len(first) else None) != READY_LINE]
    if unstarted:
        seats = ", ".join(f"seat {s} ({players[s].bot})" for s in unstarted)
        return f"the sandbox could not start the bot of {seats}: {why}"
    return ""


def nobody_joined(result: GameResult) -> bool:
    absent = result.record.absent
    return bool(absent) and len(absent) == len(result.record.players)


@dataclasses.dataclass(frozen=True)
class Played:
    """A job whose match was played, on its way to being recorded as its kind says."""

    job: MatchJob
    result: GameResult
    broken: dict[int, str]  # seats whose build failed, and why
    entry_id: str
    attempts: int
    take_next: bool  # whether the recording may take the worker's next job


def never(client: redis.Redis, job: MatchJob, entry_id: str) -> bool:
    return False


def nothing(client: redis.Redis, job: MatchJob, error: str) -> None:
    return None


@dataclasses.dataclass(frozen=True)
class JobKind:
    """What the worker does around the match of one kind of job: whether to skip it before playing,
    how to record it once played, and whom to tell when it is dead-lettered."""

    skip: Callable[[redis.Redis, MatchJob, str], bool]
    finish: Callable[[Worker, Played], Taken | None]
    dead: Callable[[redis.Redis, MatchJob, str], None]


# Design detail: one table, as arq keeps ``{name: function}``: a new kind of job is one entry here,
# not a branch in each of the worker's steps.
KINDS: dict[str, JobKind] = {
    "rated": JobKind(skip=never, finish=Worker._record, dead=nothing),
    "smoke": JobKind(skip=smoke.skip_if_superseded, finish=Worker._finish_smoke, dead=smoke.could_not_play),
    "regression": JobKind(
        skip=series.skip_if_stopped, finish=Worker._score_regression_game, dead=series.void_game
    ),
}


def kind_of(job: MatchJob) -> str:
    """Returns the job's kind, a key of KINDS: a smoke match, a regression series' game, or a rated
    match (tournaments and ladders)."""
    if job.smoke:
        return "smoke"
    return "regression" if series.series_of(job) is not None else "rated"
