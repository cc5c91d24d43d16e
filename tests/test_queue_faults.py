"""Fault tests of the queue: Redis stopped, Redis crashed and restarted, and the network to Redis cut,
each in the middle of a tournament run through the CLI with two local workers. After recovery every
job is recorded exactly once: each match id once in the recorded set, one result and one rating update
per job, nothing pending.

"In the middle" does not count on the engines' speed: one of the two bots is tests/bots/gated.py,
which holds each of its matches at a gate (``tests.conftest.Gate``) until the test lets it through.
A test grants a few permits, waits until those matches are over and both workers' next matches are
held, breaks Redis, and only then lets the held matches end. The bots run unconfined
(``--no-sandbox``) so the gated bot sees its gate folder: these tests are about Redis faults, not the
sandbox.

Every test starts its own redis-server (``appendonly yes``) on a free port in a tmp dir, so a restart
keeps port and data; the Redis on 6379 is never touched.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from arena.queue.connection import connect
from arena.schedule.plan import TournamentSpec, plan
from arena.submissions import registry
from tests.conftest import REPO, SEED_KEY, SEED_KEY_ENV, Gate, RedisServer, submit_gated
from tests.test_queue import check_recorded_exactly_once, wait_until

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")

BOTS = ("gated", "random")
ROUNDS = 4  # 8 matches: the 6 a test lets through at most, and the 2 held while Redis is away
DEADLINE_MS = 600_000  # a held bot is never struck out: longer than any wait of a test
HELD = "the permitted matches to end and both workers' next matches to be held at the gate"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    folder = tmp_path / "redis"
    folder.mkdir()
    redis_server = RedisServer(folder, appendonly=True)
    redis_server.start()
    yield redis_server
    if redis_server.proc.poll() is None:
        redis_server.kill()


@pytest.fixture
def gate(server: RedisServer, tmp_path: Path) -> Gate:
    """Returns a closed gate, with the gated bot it holds submitted to the server."""
    closed = Gate(tmp_path / "gate")
    submit_gated(connect(server.url), closed, tmp_path)
    return closed


_started: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _stop_leftover_tournaments() -> Iterator[None]:
    """Kills what a failed test left running: the tournament command and its workers (one group)."""
    yield
    while _started:
        proc = _started.pop()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def start_tournament(url: str, log: Path) -> subprocess.Popen:
    """Starts ``arena tournament`` with two local workers, bots unconfined; its stdout and stderr go
    to ``log``, and its state folder (the workers' bot cache) is beside it."""
    argv = [sys.executable, "-m", "arena.cli", "tournament", "ninjan", "--bots", ",".join(BOTS)]
    argv += ["--rounds", str(ROUNDS), "--seed", "11", "--workers", "2", "--idle-timeout", "3", "--redis", url]
    argv += ["--deadline-ms", str(DEADLINE_MS), "--no-sandbox"]
    env = {**os.environ, **SEED_KEY_ENV, "XDG_STATE_HOME": str(log.parent / "state")}
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            argv,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=env,
        )
    _started.append(proc)
    return proc


def tournament_jobs(client: redis.Redis) -> list:
    versions = tuple(registry.resolve(client, "ninjan", b) for b in BOTS)
    spec = TournamentSpec("ninjan", BOTS, rounds=ROUNDS, seed=11, versions=versions, deadline_ms=DEADLINE_MS)
    return plan(spec, SEED_KEY)


def unreachable_lines(log: Path, url: str, since: int = 0) -> tuple[list[str], list[str]]:
    """Returns the CLI's and the workers' lines saying Redis at ``url`` is unreachable, written after
    byte ``since`` of the log."""
    lines = log.read_bytes()[since:].decode(errors="replace").splitlines()
    said = [line for line in lines if f"Redis at {url} is unreachable" in line and "retrying in" in line]
    return [x for x in said if x.startswith("arena: Redis")], [
        x for x in said if x.startswith("arena: worker ")
    ]


def all_complain(log: Path, url: str, since: int = 0, cli_tries: int = 1) -> bool:
    """Returns True once the CLI (``cli_tries`` times) and both workers said Redis is unreachable."""
    cli, workers = unreachable_lines(log, url, since)
    return len(cli) >= cli_tries and len({line.split()[2] for line in workers}) == 2


def finish(proc: subprocess.Popen, log: Path, url: str) -> None:
    """Waits for the tournament command and checks that every job is recorded exactly once."""
    code = proc.wait(timeout=240)
    output = log.read_text(errors="replace")
    assert code == 0, output
    assert f"ninjan, {2 * ROUNDS} of {2 * ROUNDS} matches recorded" in output  # the standings
    client = connect(url)
    check_recorded_exactly_once(client, tournament_jobs(client))


def test_redis_stopped_mid_run_is_named_retried_and_the_run_completes(
    server: RedisServer, gate: Gate, tmp_path: Path
) -> None:
    log = tmp_path / "cli.log"
    proc = start_tournament(server.url, log)
    gate.grant(2)
    wait_until(lambda: gate.holds(2), HELD)
    server.stop()
    gate.open()  # the held matches end while Redis is down: both workers retry their recordings
    wait_until(lambda: all_complain(log, server.url, cli_tries=2), "the CLI and the workers to report it")
    cli, workers = unreachable_lines(log, server.url)
    said = log.read_text(errors="replace")
    assert cli[0].endswith("retrying in 0.5s") and cli[1].endswith("retrying in 1s"), said  # back-off
    assert all(line.endswith("s") and "retrying in " in line for line in workers), said
    server.start()  # same port, same data folder
    finish(proc, log, server.url)


def test_redis_crashed_and_restarted_mid_run_loses_and_doubles_nothing(
    server: RedisServer, gate: Gate, tmp_path: Path
) -> None:
    log = tmp_path / "cli.log"
    proc = start_tournament(server.url, log)
    for _ in range(2):
        gate.grant(2)
        wait_until(lambda: gate.holds(2), HELD)
        server.kill()  # no shutdown: at most the last second of writes is lost, and then rerun
        server.start()
    gate.open()
    finish(proc, log, server.url)


def test_network_to_redis_cut_mid_run_then_healed_records_each_job_once(
    server: RedisServer, gate: Gate, tmp_path: Path
) -> None:
    proxy = subprocess.Popen(
        [sys.executable, str(REPO / "tests" / "tcp_proxy.py"), str(server.port)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = f"redis://127.0.0.1:{proxy.stdout.readline().strip()}/0"
        log = tmp_path / "cli.log"
        proc = start_tournament(url, log)
        gate.grant(2)
        for _ in range(2):
            wait_until(lambda: gate.holds(2), HELD)
            since = log.stat().st_size  # each cut must be reported afresh
            proxy.send_signal(signal.SIGUSR1)
            gate.grant(2)  # the held matches end during the cut: both workers retry their recordings
            wait_until(
                lambda s=since: all_complain(log, url, s), "the CLI and both workers to report the cut"
            )
            proxy.send_signal(signal.SIGUSR2)
        gate.open()
        finish(proc, log, server.url)
    finally:
        proxy.kill()
        proxy.wait()


def test_the_proxy_really_cuts(server: RedisServer) -> None:
    proxy = subprocess.Popen(
        [sys.executable, str(REPO / "tests" / "tcp_proxy.py"), str(server.port)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        client = connect(f"redis://127.0.0.1:{proxy.stdout.readline().strip()}/0")
        assert client.ping()
        proxy.send_signal(signal.SIGUSR1)
        wait_until(lambda: not _answers(client), "the cut")
        proxy.send_signal(signal.SIGUSR2)
        wait_until(lambda: _answers(client), "the heal")
    finally:
        proxy.kill()
        proxy.wait()


def _answers(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
