"""What a worker says: a line per match it plays (an operator watching a hosted worker sees it work),
and the line saying how bots run once per command, not once per local worker it starts."""

from __future__ import annotations

from pathlib import Path

import redis

from tests.conftest import run_arena


def announcements(stderr: str) -> list[str]:
    """Returns the lines saying how bots run ("arena: bots run sandboxed ...", or unconfined)."""
    return [line for line in stderr.splitlines() if line.startswith("arena: bots run")]


def test_a_tournament_with_two_local_workers_says_once_how_bots_run(redis_url: str, tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    args = ["tournament", "ninjan", "--bots", "random,greedy", "--rounds", "1", "--seed", "5"]
    proc = run_arena(*args, "--workers", "2", "--idle-timeout", "10", "--redis", redis_url, env=env)
    assert proc.returncode == 0, proc.stderr
    assert len(announcements(proc.stderr)) == 1, proc.stderr


def test_a_worker_prints_a_line_per_match_it_records(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    args = [
        "tournament",
        "ninjan",
        "--bots",
        "random,greedy",
        "--rounds",
        "1",
        "--seed",
        "6",
        "--workers",
        "0",
    ]
    queued = run_arena(*args, "--redis", redis_url, env=env)
    assert queued.returncode == 0, queued.stderr
    worker = run_arena("worker", "--burst", "--redis", redis_url, env=env)
    assert worker.returncode == 0, worker.stderr
    recorded = [line for line in worker.stderr.splitlines() if line.endswith(": recorded")]
    assert len(recorded) == 2 and all(line.startswith("arena: worker: ") for line in recorded), worker.stderr
    assert len(announcements(worker.stderr)) == 1, worker.stderr
