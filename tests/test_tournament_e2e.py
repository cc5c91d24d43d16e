"""End to end (issue 6 "Must show"): four bots submitted as directories through ``arena bots submit``,
a round-robin tournament of 108 Ninjan matches on two local workers through ``arena tournament``, and
the leaderboard in the order the bots' strength implies; then the same kind of tournament while one
worker is SIGKILLed several times mid-match, with every job recorded exactly once.

Against the private redis-server of ``tests.conftest`` (never the Redis on 6379).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from arena.queue import keys
from arena.schedule.plan import TournamentSpec, plan
from arena.seeds import platform_key
from arena.submissions import registry
from tests.conftest import REPO, run_arena
from tests.test_queue import check_recorded_exactly_once, children, pending_of, wait_until

pytestmark = [
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
    pytest.mark.e2e,
    pytest.mark.slow,
]

SUBMITTED = REPO / "tests" / "bots" / "submitted"


def bot_folders(tmp_path: Path) -> dict[str, Path]:
    """Returns a folder per bot to submit: copies of the example bot and of tests/bots/submitted."""
    folders = {"take-richest": tmp_path / "take-richest"}
    folders["take-richest"].mkdir()
    shutil.copy(REPO / "bots" / "python" / "take_richest.py", folders["take-richest"] / "bot.py")
    for name, source in (("greedy-copy", "greedy"), ("random-copy", "random"), ("weak", "weak")):
        folders[name] = tmp_path / name
        shutil.copytree(SUBMITTED / source, folders[name])
    return folders


def test_four_submitted_bots_round_robin_ranks_them_by_strength(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    versions = {}
    for name, folder in bot_folders(tmp_path).items():
        argv = ["bots", "submit", name, "--games", "ninjan", "--dir", str(folder), "--entry", "python bot.py"]
        proc = run_arena(*argv, "--json", "--redis", redis_url, env=env)
        assert proc.returncode == 0, proc.stderr
        submitted = json.loads(proc.stdout)
        assert submitted["secret"] and submitted["kind"] == "directory"
        versions[name] = submitted["version"]
    bots = sorted(versions)  # the order in --bots does not hint at the strength
    args = ["tournament", "ninjan", "--bots", ",".join(bots), "--rounds", "9", "--seed", "7"]
    proc = run_arena(*args, "--workers", "2", "--idle-timeout", "10", "--redis", redis_url, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "108 matches of ninjan (108 newly queued)" in proc.stderr
    board = run_arena("leaderboard", "ninjan", "--json", "--redis", redis_url)
    rows = json.loads(board.stdout)
    order = [row["bot"] for row in rows]
    # The two strong bots above the two weak ones. Not weak below random: over 54 games each, with
    # seeds keyed by the state folder's fresh key, those two are too close to order every time.
    assert set(order[:2]) == {"greedy-copy", "take-richest"}, proc.stdout
    assert {row["bot"]: row["version"] for row in rows} == versions
    assert all(row["games"] == 54 for row in rows)  # 3 opponents x 2 seats x 9 rounds
    spec = TournamentSpec("ninjan", tuple(bots), rounds=9, seed=7, versions=tuple(versions[b] for b in bots))
    # the seeds are keyed with the platform key the CLI made in its state folder on first use
    check_recorded_exactly_once(client, plan(spec, platform_key(tmp_path / "state" / "arena")))
    assert sorted(p.name for p in (tmp_path / "state" / "arena" / "bots").iterdir()) == sorted(
        versions.values()
    )


def start_worker(url: str, env: dict[str, str]) -> subprocess.Popen:
    argv = [sys.executable, "-m", "arena.cli", "worker", "--redis", url, "--idle-timeout", "3"]
    return subprocess.Popen(argv, cwd=REPO, env=env, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)


def kill_mid_match(client: redis.Redis, victim: subprocess.Popen) -> None:
    """SIGKILLs ``victim`` while it holds a job, and the bot processes it leaves behind."""
    wait_until(lambda: pending_of(client, victim.pid) == 1 or victim.poll() is not None, "a job taken")
    orphans = children(victim.pid)
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    for pid in orphans:  # bots not yet connected would wait for the dead referee
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)


def test_sigkilled_worker_during_a_tournament_loses_and_doubles_nothing(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    versions = {}
    for name, folder in bot_folders(tmp_path).items():
        submitted, _ = registry.submit(client, name, ["ninjan"], directory=folder, entry="python bot.py")
        versions[name] = submitted.version
    bots = tuple(sorted(versions))
    argv = [sys.executable, "-m", "arena.cli", "tournament", "ninjan", "--bots", ",".join(bots)]
    argv += ["--rounds", "2", "--seed", "3", "--workers", "1", "--idle-timeout", "3", "--redis", redis_url]
    tournament = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    kills = 0
    while kills < 3 and tournament.poll() is None:
        victim = start_worker(redis_url, env)
        kill_mid_match(client, victim)
        kills += pending_of(client, victim.pid)  # it died holding a job (not just after finishing)
    out, err = tournament.communicate(timeout=240)
    assert tournament.returncode == 0, err
    assert kills == 3
    spec = TournamentSpec("ninjan", bots, rounds=2, seed=3, versions=tuple(versions[b] for b in bots))
    jobs = plan(spec, platform_key(tmp_path / "state" / "arena"))  # the key the CLI made on first use
    assert len(jobs) == 24
    check_recorded_exactly_once(client, jobs)
    assert int(client.hget(keys.tournament(spec.tournament_id), "recorded")) == 24
    assert f"tournament {spec.tournament_id}: ninjan, 24 of 24 matches recorded".encode() in out
