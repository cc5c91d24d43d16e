"""Smoke matches and build commands (issue 16, item 4), with a real Redis, a real worker and the real
sandbox: a candidate version plays ``random`` once; a pass makes it the bot's active version, a failure
keeps the old one and says why with the bot's log; neither leaves a result or a rating. A version's
build command runs once per worker, in the sandbox, with no network and a time limit.
"""

from __future__ import annotations

import socket
from datetime import timedelta
from pathlib import Path

import pytest
import redis

from arena.queue import keys
from arena.queue.jobs import load_job
from arena.submissions import registry, smoke
from tests.test_forfeits import QUITTER, pytestmark, scripted, submit_files, worker  # noqa: F401

RANDOM_BOT = "from arena.bots.common import RandomBot\n\nRandomBot().run()\n"


def play_smoke(client: redis.Redis, url: str, cache: Path, bot: str, version: str, **config: object) -> dict:
    """Requests the smoke match of ``bot`` at ``version``, lets a worker play it; returns the status."""
    match_id = smoke.request_smoke(client, bot, version)
    assert smoke.status(client, version)["status"] == smoke.SmokeStatus.PENDING
    assert worker(client, url, cache, **config).run(burst=True) == 1
    assert load_job(client, match_id)[1]["status"] == "recorded"
    return smoke.status(client, version)


def nothing_rated(client: redis.Redis) -> bool:
    """Returns True when no match left a result, a rating or a dead letter."""
    stored = client.exists(keys.results("ninjan"), keys.pairs("ninjan"), keys.RECORDED_SET, keys.DEAD_STREAM)
    return stored == 0


def test_a_passing_candidate_becomes_active_and_a_failing_one_does_not(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "bot.py").write_text(RANDOM_BOT)
    first, secret = registry.submit(client, "steady", ["ninjan"], directory=folder, entry="python bot.py")
    (folder / "bot.py").write_text("# version 2\n" + RANDOM_BOT)
    registry.submit(
        client, "steady", ["ninjan"], directory=folder, entry="python bot.py", secret=secret, activate=False
    )
    candidate = client.hget(keys.bot("steady"), "candidate")
    assert candidate != first.version and client.hget(keys.bot("steady"), "version") == first.version

    passed = play_smoke(client, redis_url, cache, "steady", candidate)
    assert passed["status"] == smoke.SmokeStatus.PASSED and passed["reason"] == ""
    assert client.hget(keys.bot("steady"), "version") == candidate  # activated
    assert not client.hexists(keys.bot("steady"), "candidate")

    (folder / "bot.py").write_text(QUITTER)
    registry.submit(
        client, "steady", ["ninjan"], directory=folder, entry="python bot.py", secret=secret, activate=False
    )
    broken = client.hget(keys.bot("steady"), "candidate")
    failed = play_smoke(client, redis_url, cache, "steady", broken)
    assert failed["status"] == smoke.SmokeStatus.FAILED
    assert failed["reason"].startswith("bot steady exited with code 1 before joining")
    assert "quitter: refusing to play" in failed["reason"]  # its last words, without the ready line
    assert "sandbox ready" not in failed["reason"], failed["reason"]
    assert failed["log"] == "quitter: refusing to play"  # the tail of its log, the ready line left out
    assert client.hget(keys.bot("steady"), "version") == candidate  # the old version stays active
    assert nothing_rated(client)


def test_a_newer_candidate_is_not_replaced_by_an_older_ones_pass(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    version = submit_files(client, tmp_path, "late", {"bot.py": RANDOM_BOT}, "python bot.py", activate=False)
    smoke.request_smoke(client, "late", version)
    client.hset(keys.bot("late"), "candidate", "0123456789ab")  # a newer submission came meanwhile
    worker(client, redis_url, tmp_path / "cache").run(burst=True)
    status = smoke.status(client, version)  # not played at all (arena.submissions.smoke.skip_if_superseded)
    assert status["status"] == smoke.SmokeStatus.SUPERSEDED, status
    assert client.hget(keys.bot("late"), "candidate") == "0123456789ab"
    assert client.hget(keys.bot("late"), "version") != version


def test_a_build_command_runs_once_in_the_sandbox_and_the_bot_runs_from_its_output(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    files = {"bot.py": "import generated\n", "generated.py.in": RANDOM_BOT}
    build = "sh -c 'cp generated.py.in generated.py && echo built as $(id -u)'"
    version = submit_files(client, tmp_path, "made", files, "python bot.py", build=build, activate=False)
    cache = tmp_path / "cache"
    status = play_smoke(client, redis_url, cache, "made", version)
    assert status["status"] == smoke.SmokeStatus.PASSED, status
    built = cache / f"{version}-built"
    assert (built / "generated.py").read_text() == RANDOM_BOT
    assert not (cache / version / "generated.py").exists()  # the unpacked version is untouched
    # once per version per worker: a second smoke match reuses the built folder
    (built / "generated.py").chmod(0o644)
    (built / "generated.py").write_text(RANDOM_BOT + "# kept\n")
    assert play_smoke(client, redis_url, cache, "made", version)["status"] == smoke.SmokeStatus.PASSED
    assert (built / "generated.py").read_text().endswith("# kept\n")
    assert nothing_rated(client)


def test_a_build_has_no_network_and_its_failure_fails_the_smoke_match_with_its_output(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)"
        build = f'python -c "{code}"'
        version = submit_files(client, tmp_path, "net", {"bot.py": RANDOM_BOT}, "python bot.py", build=build)
        status = play_smoke(client, redis_url, tmp_path / "cache", "net", version)
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing ever reached the host's port
    assert status["status"] == smoke.SmokeStatus.FAILED
    assert status["reason"].startswith("the build command ") and "exited with code 1" in status["reason"]
    assert "Connection refused" in status["reason"] or "unreachable" in status["reason"], status
    assert not (tmp_path / "cache" / f"{version}-built").exists()


def test_a_build_that_outlives_its_time_limit_fails(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    version = submit_files(
        client, tmp_path, "slow", {"bot.py": RANDOM_BOT}, "python bot.py", build="sleep 600", activate=False
    )
    status = play_smoke(
        client, redis_url, tmp_path / "cache", "slow", version, build_timeout=timedelta(seconds=1)
    )
    assert status["status"] == smoke.SmokeStatus.FAILED
    assert "'sleep 600' ran longer than 1 s" in status["reason"]


def test_smoke_status_of_an_unknown_version_is_empty_and_an_unknown_bot_is_refused(
    client: redis.Redis, tmp_path: Path
) -> None:
    assert smoke.status(client, "0123456789ab") == {}
    with pytest.raises(registry.SubmissionError, match="no submitted bot 'ghost'"):
        smoke.request_smoke(client, "ghost", "0123456789ab")
    submit_files(client, tmp_path, "real", {"bot.py": RANDOM_BOT}, "python bot.py")
    with pytest.raises(registry.SubmissionError, match="bot real has no version '0123456789ab'"):
        smoke.request_smoke(client, "real", "0123456789ab")
    assert client.xlen(keys.JOBS_STREAM) == 0


def test_a_bot_that_never_connects_fails_its_smoke_match_with_its_log(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    """The bot starts, says so, and sleeps without ever connecting: the join timeout is its limit."""
    sleeper = 'import time\nprint("sleeper: not joining", flush=True)\ntime.sleep(3600)\n'
    version = submit_files(client, tmp_path, "sleeper", {"bot.py": sleeper}, "python bot.py", activate=False)
    config = {"join_timeout": timedelta(seconds=2)}
    status = play_smoke(client, redis_url, tmp_path / "cache", "sleeper", version, **config)
    assert status["status"] == smoke.SmokeStatus.FAILED
    assert status["reason"] == "bot sleeper did not join within 2 s"
    assert status["log"] == "sleeper: not joining"
    assert client.hget(keys.bot("sleeper"), "version") in (None, "")


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("silent", "forfeited after 3 strikes: 3 missed deadlines (the last: no answer within 2000 ms)"),
        ("always-illegal", "forfeited after 3 strikes: 3 illegal actions (the last: illegal action "),
    ],
)
def test_a_failed_smoke_match_says_which_strikes_the_bot_earned(
    client: redis.Redis, redis_url: str, tmp_path: Path, mode: str, said: str
) -> None:
    """Found by the dress rehearsal (issue 38): a bot that only missed deadlines and one that only
    sent illegal actions were both told "illegal actions or missed deadlines"."""
    version = submit_files(client, tmp_path, "striker", scripted(), f"python bot.py {mode}", activate=False)
    status = play_smoke(client, redis_url, tmp_path / "cache", "striker", version)
    assert status["status"] == smoke.SmokeStatus.FAILED
    assert status["reason"].startswith(said), status["reason"]
    other = "illegal" if mode == "silent" else "deadline"
    assert other not in status["reason"], status["reason"]


def test_a_build_that_leaves_too_many_files_fails(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    build = "sh -c 'mkdir junk && cd junk && seq 1 10001 | xargs touch'"
    version = submit_files(
        client, tmp_path, "junk", {"bot.py": RANDOM_BOT}, "python bot.py", build=build, activate=False
    )
    status = play_smoke(client, redis_url, tmp_path / "cache", "junk", version)
    assert status["status"] == smoke.SmokeStatus.FAILED
    assert "the build left what a bot may not hold" in status["reason"], status
    assert "more than 10,000 files and folders" in status["reason"], status
    assert not (tmp_path / "cache" / f"{version}-built").exists() and not list(
        (tmp_path / "cache").glob(".*")
    )
