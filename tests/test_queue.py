"""The queue against a real redis-server that this module starts on a free port in a tmp dir.

Never touches the Redis on 6379: every test gets the private server, flushed.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
import redis

from arena.bots import builtin_bots
from arena.queue import connection, keys, store
from arena.queue.connection import connect, retrying
from arena.queue.jobs import JobStatus, MatchJob, enqueue, load_job, take_job, trim_acknowledged
from arena.queue.worker import Worker, WorkerConfig
from arena.ratings import table_of
from arena.ratings.pairs import PairTable
from arena.ratings.seating import records_seats
from arena.referee.processes import BotLimits
from arena.referee.replay import first_difference, reproduce
from arena.schedule.plan import TournamentSpec, plan, rotations
from arena.submissions.registry import builtin_version, resolve
from tests.conftest import (
    REPO,
    SEED_KEY,
    SEED_KEY_ENV,
    Gate,
    free_port,
    json_lines,
    replay_of_random_game,
    run_arena,
    submit_gated,
)

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")

FAST = {"idle_timeout": timedelta(seconds=2), "block": timedelta(milliseconds=200)}


def job(i: int, tournament: str = "") -> MatchJob:
    bots = ("greedy", "random") if i % 2 else ("random", "greedy")
    return MatchJob(f"m{i}", "ninjan", 100 + i, bots, tournament=tournament)


def worker(client: redis.Redis, url: str) -> Worker:
    return Worker(client, WorkerConfig(url, **FAST), say=lambda _: None)


def test_plan_plays_every_rotation_of_every_group_every_round() -> None:
    spec = TournamentSpec("ninjan", ("a", "b", "c"), players=2, rounds=2, seed=5)
    jobs = plan(spec, SEED_KEY)
    assert len(jobs) == 2 * 3 * 2
    assert len({j.match_id for j in jobs}) == len(jobs) and len({j.seed for j in jobs}) == len(jobs)
    # every seed is keyed with the platform's key: another platform's seeds share nothing with these
    other = plan(spec, b"another platform's key")
    assert [j.match_id for j in other] == [j.match_id for j in jobs]
    assert not {j.seed for j in other} & {j.seed for j in jobs}
    assert {j.bots for j in jobs[:6]} == {
        ("a", "b"),
        ("b", "a"),
        ("a", "c"),
        ("c", "a"),
        ("b", "c"),
        ("c", "b"),
    }
    assert plan(spec, SEED_KEY) == jobs  # same spec and key, same ids and seeds: re-running resumes
    duplicate = plan(TournamentSpec("ninjan", ("a", "b", "c"), players=3, duplicate=True), SEED_KEY)
    assert [j.bots for j in duplicate] == rotations(("a", "b", "c")) and len({j.seed for j in duplicate}) == 1
    gauntlet = plan(TournamentSpec("ninjan", ("x", "a", "b"), format="gauntlet"), SEED_KEY)
    assert all("x" in j.bots for j in gauntlet) and len(gauntlet) == 4


def test_job_status_is_a_str_enum_and_jobs_round_trip() -> None:
    assert JobStatus.RECORDED == "recorded" and isinstance(JobStatus.DEAD, str)
    assert MatchJob.from_json(job(3).to_json()) == job(3)
    with pytest.raises(ValueError, match="one seat"):
        MatchJob("m", "ninjan", 1, ("random", "random"))


def test_enqueueing_the_same_match_id_twice_is_a_no_op(client: redis.Redis) -> None:
    assert enqueue(client, job(1)) is True
    assert enqueue(client, job(1)) is False
    assert enqueue(client, MatchJob("m1", "ninjan", 999, ("random", "greedy"))) is False
    assert client.xlen(keys.JOBS_STREAM) == 1
    stored, fields = load_job(client, "m1")
    assert stored == job(1) and fields["status"] == JobStatus.QUEUED


def stored_table(client: redis.Redis, key: str) -> PairTable:
    return PairTable.from_fields(client.hgetall(key))


def check_recorded_exactly_once(client: redis.Redis, jobs: list[MatchJob]) -> None:
    """Every job's match once in the recorded set, in the game's list of placements, in the counter of
    recorded matches and in the pair tables (the game's, and its tournament's): the pair tables are
    exactly the tables of the stored placements."""
    ids = {j.match_id for j in jobs}
    assert client.smembers(keys.RECORDED_SET) == ids
    stored = list(store.iter_results(client, "ninjan", page=7))  # pages that do not divide the list
    assert sorted(m["match_id"] for m in stored) == sorted(ids)
    assert int(client.get(keys.rating_updates("ninjan"))) == len(jobs)
    seats = records_seats("ninjan")  # its results are recorded with the seats held (seat advantage)
    assert stored_table(client, keys.pairs("ninjan")) == table_of(map(store.rated_placements, stored), seats)
    for tournament in {j.tournament for j in jobs} - {""}:
        played = {j.match_id for j in jobs if j.tournament == tournament}
        mine = (store.rated_placements(m) for m in stored if m["match_id"] in played)
        assert stored_table(client, keys.tournament_pairs(tournament)) == table_of(mine, seats)
    assert client.xpending(keys.JOBS_STREAM, keys.WORKERS_GROUP)["pending"] == 0
    for j in jobs:
        assert load_job(client, j.match_id)[1]["status"] == JobStatus.RECORDED


def test_a_worker_drains_the_jobs_and_records_each_once_with_a_verifiable_replay(
    client: redis.Redis, redis_url: str
) -> None:
    jobs = [job(i, tournament="t1") for i in range(4)]
    for j in jobs:
        enqueue(client, j)
    assert worker(client, redis_url).run(burst=True) == 4
    check_recorded_exactly_once(client, jobs)
    assert client.hget(keys.tournament("t1"), "recorded") == "4"
    replay = store.replay_text(client, "m1")
    lines = json_lines(replay)
    assert lines[0]["match_id"] == "m1" and lines[0]["seed"] == 101
    assert first_difference(replay, reproduce(lines).text) is None
    # a job delivered again after it was recorded is acknowledged and not counted again
    client.xadd(keys.JOBS_STREAM, {"match_id": "m1"})
    assert enqueue(client, jobs[1]) is False
    worker(client, redis_url).run(burst=True)
    check_recorded_exactly_once(client, jobs)


class CountingRedis(redis.Redis):
    """A client that counts the commands it sends (each is one round trip)."""

    sent = 0

    def execute_command(self, *args: object, **options: object) -> object:
        self.sent += 1
        return super().execute_command(*args, **options)


def test_recording_is_one_round_trip_in_any_order_and_brings_the_next_job(client: redis.Redis) -> None:
    """Matches recorded in another order than they were queued (as by several workers) give the same
    stored tables, each recording one round trip (once the script is loaded); a match delivered again
    changes nothing; with ``take_as`` the next job comes back begun in the same call."""
    counting = CountingRedis(connection_pool=client.connection_pool)
    jobs = [job(i, tournament="t1") for i in range(6)]
    for j in jobs:
        enqueue(client, j)
    entries = {
        fields["match_id"]: entry
        for entry, fields in client.xreadgroup(keys.WORKERS_GROUP, "w", {keys.JOBS_STREAM: ">"}, count=6)[0][
            1
        ]
    }
    for i, j in enumerate(reversed(jobs)):
        text, record = replay_of_random_game("ninjan", j.seed, list(j.bots), j.match_id)
        before = counting.sent
        assert store.record_and_take(counting, j, record, text, entries[j.match_id]) == (True, None)
        assert i == 0 or counting.sent == before + 1
    check_recorded_exactly_once(client, jobs)
    tables = client.hgetall(keys.pairs("ninjan")), client.hgetall(keys.tournament_pairs("t1"))
    # Delivered again once recorded: acknowledged, and nothing written or taken.
    client.xadd(keys.JOBS_STREAM, {"match_id": "m0"})
    entry = client.xreadgroup(keys.WORKERS_GROUP, "w", {keys.JOBS_STREAM: ">"}, count=1)[0][1][0][0]
    text, record = replay_of_random_game("ninjan", jobs[0].seed, list(jobs[0].bots), "m0")
    assert store.record_and_take(client, jobs[0], record, text, entry, take_as="w") == (False, None)
    check_recorded_exactly_once(client, jobs)
    assert (client.hgetall(keys.pairs("ninjan")), client.hgetall(keys.tournament_pairs("t1"))) == tables
    # A new recording takes the consumer's next job, begun, in the same call.
    last, following = job(6), job(7)
    enqueue(client, last)
    enqueue(client, following)
    entry = client.xreadgroup(keys.WORKERS_GROUP, "w", {keys.JOBS_STREAM: ">"}, count=1)[0][1][0][0]
    text, record = replay_of_random_game("ninjan", last.seed, list(last.bots), last.match_id)
    before = counting.sent
    new, taken = store.record_and_take(counting, last, record, text, entry, take_as="w")
    assert counting.sent == before + 1
    assert new and taken is not None and taken.job == following and taken.started
    assert taken.fields["status"] == JobStatus.RUNNING and taken.fields["attempts"] == "1"
    assert client.xpending(keys.JOBS_STREAM, keys.WORKERS_GROUP)["pending"] == 1  # following, by "w"


def test_a_job_failing_three_times_goes_to_the_dead_letter_stream(
    client: redis.Redis, redis_url: str
) -> None:
    enqueue(client, MatchJob("bad", "ninjan", 1, ("greedy", "rm -rf")))
    enqueue(client, job(0))
    worker(client, redis_url).run(burst=True)
    (dead,) = store.dead_letters(client)
    assert dead["match_id"] == "bad" and dead["attempts"] == "3"
    assert "'rm -rf' is not a built-in bot of ninjan" in dead["error"]
    assert load_job(client, "bad")[1]["status"] == JobStatus.DEAD
    check_recorded_exactly_once(client, [job(0)])
    proc = run_arena("tournament", "status", "--redis", redis_url)
    assert proc.returncode == 0, proc.stderr
    assert "bad: failed 3 times: JobError: 'rm -rf' is not a built-in bot" in proc.stdout
    assert "Replays are kept forever" in proc.stdout and "results are kept forever" in proc.stdout


def pending_of(client: redis.Redis, pid: int) -> int:
    """Returns how many jobs the worker process ``pid`` holds unacknowledged."""
    consumers = client.xinfo_consumers(keys.JOBS_STREAM, keys.WORKERS_GROUP)
    return sum(c["pending"] for c in consumers if f"-{pid}-" in c["name"])


def children(pid: int) -> list[int]:
    """Returns the pids of the direct children of ``pid`` (the worker's bot processes)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
    return found


def wait_until(condition: Callable[[], bool], what: str, limit: float = 90.0) -> None:
    """Polls ``condition`` (a safety limit against hanging, not a timing assertion)."""
    end = time.monotonic() + limit
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def test_a_worker_killed_mid_match_loses_nothing(
    client: redis.Redis, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each kill hits a match held at the gate of tests/bots/gated.py (tests.conftest.Gate), so the
    # victim is mid-match whatever the engines' speed. Its bots run unconfined to see the gate folder:
    # this test is about the queue, not the sandbox.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the workers' bot cache
    gate = Gate(tmp_path / "gate")
    versions = {"gated": submit_gated(client, gate, tmp_path), "random": resolve(client, "ninjan", "random")}
    jobs = [gated_job(i, versions) for i in range(5)]
    for j in jobs:
        enqueue(client, j)
    for _ in range(2):  # kill a worker mid-match twice
        argv = [sys.executable, "-m", "arena.cli", "worker", "--redis", redis_url, "--idle-timeout", "2"]
        argv.append("--no-sandbox")
        victim = subprocess.Popen(
            argv, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, stderr=subprocess.DEVNULL
        )
        gate.grant(1)
        wait_until(lambda: gate.holds(1), "a match played and the worker's next one held at the gate")
        orphans = children(victim.pid)
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        for pid in orphans:  # bots not yet connected would wait for the dead referee for ever
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
        assert pending_of(client, victim.pid) == 1  # it died holding a job
    gate.open()
    config = WorkerConfig(redis_url, **FAST, bot_limits=BotLimits(sandbox=False))
    Worker(client, config, say=lambda _: None).run(burst=True)  # reclaims the killed workers' jobs
    check_recorded_exactly_once(client, jobs)


def test_a_worker_stopped_mid_match_exits_cleanly_and_its_job_is_played_once(
    client: redis.Redis, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM (a container's stop, the rehearsal's end) mid-match: the worker exits 0 with no
    traceback, its bot processes stopped, and the job it held is played by the next worker, once."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    gate = Gate(tmp_path / "gate")
    versions = {"gated": submit_gated(client, gate, tmp_path), "random": resolve(client, "ninjan", "random")}
    jobs = [gated_job(i, versions) for i in range(2)]
    for j in jobs:
        enqueue(client, j)
    argv = [sys.executable, "-m", "arena.cli", "worker", "--redis", redis_url, "--idle-timeout", "2"]
    stopped = subprocess.Popen(
        [*argv, "--no-sandbox"],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_until(lambda: gate.holds(1), "the worker's first match held at the gate")
    bots = children(stopped.pid)
    stopped.send_signal(signal.SIGTERM)
    _, stderr = stopped.communicate(timeout=120)
    assert stopped.returncode == 0, stderr
    assert "Traceback" not in stderr and "Task was destroyed" not in stderr, stderr
    assert not [pid for pid in bots if Path(f"/proc/{pid}").exists() and not zombie(pid)], bots
    gate.open()
    config = WorkerConfig(redis_url, **FAST, bot_limits=BotLimits(sandbox=False))
    Worker(client, config, say=lambda _: None).run(burst=True)  # reclaims the stopped worker's job
    check_recorded_exactly_once(client, jobs)


def zombie(pid: int) -> bool:
    """Returns True if ``pid`` has exited but not been reaped (its parent, the test's worker, is gone)."""
    with contextlib.suppress(OSError, IndexError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    return True


def test_tournament_through_the_cli_ranks_greedy_above_random(redis_url: str, client: redis.Redis) -> None:
    args = ["tournament", "ninjan", "--bots", "greedy,random", "--players", "2", "--rounds", "4"]
    proc = run_arena(
        *args, "--seed", "3", "--workers", "2", "--idle-timeout", "5", "--redis", redis_url, env=SEED_KEY_ENV
    )
    assert proc.returncode == 0, proc.stderr
    assert "8 matches of ninjan (8 newly queued)" in proc.stderr
    assert proc.stdout.index("greedy") < proc.stdout.index("random")
    assert "crosstable" in proc.stdout  # the tournament's own standings
    # the same spec and key again resumes: nothing new
    again = run_arena(*args, "--seed", "3", "--workers", "1", "--redis", redis_url, env=SEED_KEY_ENV)
    assert again.returncode == 0 and "(0 newly queued)" in again.stderr
    board = run_arena("leaderboard", "ninjan", "--json", "--redis", redis_url)
    assert board.returncode == 0, board.stderr
    rows = json.loads(board.stdout)
    assert [r["bot"] for r in rows] == ["greedy", "random"]
    assert rows[0]["elo"] > 1500 > rows[1]["elo"] and rows[0]["games"] == rows[1]["games"] == 8
    assert rows[0]["low"] <= rows[0]["elo"] <= rows[0]["high"] and rows[0]["los_next"] > 0.5
    versions = tuple(builtin_version(b, ("ninjan",)) for b in ("greedy", "random"))
    assert [r["version"] for r in rows] == list(versions)
    spec = TournamentSpec("ninjan", ("greedy", "random"), rounds=4, seed=3, versions=versions)
    check_recorded_exactly_once(client, plan(spec, SEED_KEY))


def test_bad_tournament_input_gets_one_line(redis_url: str) -> None:
    proc = run_arena("tournament", "ninjan", "--bots", "greedy,nosuch", "--redis", redis_url)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "arena: error: unknown bot 'nosuch' for ninjan: not a submitted bot (see 'arena bots list') "
        f"nor a built-in one ({', '.join(sorted(builtin_bots('ninjan')))})"
    )


def test_unreachable_redis_is_named_and_retried_with_back_off() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    said: list[str] = []
    with pytest.raises(redis.ConnectionError):
        retrying(url, connect(url).ping, said.append, attempts=3)
    assert len(said) == 2
    assert said[0].startswith(f"arena: Redis at {url} is unreachable: ") and said[0].endswith(
        "retrying in 0.5s"
    )
    assert said[1].endswith("retrying in 1s")


def test_private_redis_server_when_nothing_is_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Where "localhost:6379" would be, point at a free port, so a Redis on 6379 is never touched.
    monkeypatch.setattr(connection, "LOCAL_PORT", free_port())
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.delenv("ARENA_REDIS_URL", raising=False)
    folder = tmp_path / "arena" / "redis"
    said: list[str] = []
    try:
        url = connection.resolve_url(None, said.append)
        assert url == f"unix://{folder / 'redis.sock'}"
        assert len(said) == 1 and f"started a private redis-server with its data in {folder}" in said[0]
        connect(url).set("arena:probe", "1")
        assert connection.resolve_url(None, said.append) == url and len(said) == 1  # reused, silently
        assert connect(url).config_get("appendonly") == {"appendonly": "yes"}
        monkeypatch.setattr(connection.shutil, "which", lambda _: None)
        monkeypatch.setattr(connection, "state_dir", lambda: tmp_path / "elsewhere")
        with pytest.raises(connection.RedisSetupError, match="apt-get install redis-server"):
            connection.resolve_url(None, said.append)
        assert connection.resolve_url("redis://example:1/0", said.append) == "redis://example:1/0"
    finally:
        pid = folder / "redis.pid"
        if pid.exists():
            os.kill(int(pid.read_text()), signal.SIGKILL)


def gated_job(i: int, versions: dict[str, str]) -> MatchJob:
    """Returns job ``i`` between the gated bot (tests/bots/gated.py) and random, seats alternating,
    with a deadline that a match held at the gate never reaches."""
    bots = ("gated", "random") if i % 2 else ("random", "gated")
    seats = tuple(versions[b] for b in bots)
    return MatchJob(f"m{i}", "ninjan", 100 + i, bots, deadline_ms=600_000, versions=seats)


def test_finished_jobs_are_trimmed_from_the_stream_and_waiting_ones_kept(
    client: redis.Redis, redis_url: str
) -> None:
    """The job stream would keep every finished job's entry forever (Redis memory per match); the
    sweep trims those every worker is done with, and never one that is pending or not yet taken."""
    for i in range(4):
        enqueue(client, job(i))
    worker(client, redis_url).run(burst=True)  # (a worker's hourly sweep may trim some already)
    trim_acknowledged(client)
    assert [f["match_id"] for _, f in client.xrange(keys.JOBS_STREAM)] == ["m3"]  # the group's position
    for i in range(4, 7):
        enqueue(client, job(i))
    taken = take_job(client, "stalled-worker")  # m4 taken and never acknowledged: it stays pending
    assert taken is not None and taken.match_id == "m4"
    assert trim_acknowledged(client) == 1
    left = [fields["match_id"] for _, fields in client.xrange(keys.JOBS_STREAM)]
    assert left == ["m4", "m5", "m6"]
    assert next(g for g in client.xinfo_groups(keys.JOBS_STREAM))["lag"] == 2  # still exact
    worker(client, redis_url).run(burst=True)  # m5, m6, and m4 claimed from the stalled worker
    assert all(client.sismember(keys.RECORDED_SET, f"m{i}") for i in range(7))
