"""Regression series bounded (issue 33, item 5), on a real Redis with real workers: one live series per
bot (a newer version cancels the one it supersedes, whose games are never played), rated and smoke
jobs before regression games but for one enqueue in ``jobs.REGRESSION_SHARE`` while games wait, at
most ``series.QUEUE_CAP`` games waiting (with issue 37's default budget of 800 games too), and SPRTs
too short to tell their hypotheses apart refused at submission with the reason and what to choose.
"""

from __future__ import annotations

import itertools
import json
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from starlette.testclient import TestClient

from arena.queue import jobs, keys
from arena.queue.jobs import JobStatus, MatchJob, load_job, take_job
from arena.ratings.sprt import SprtParams
from arena.schedule import regression, series
from arena.submissions import registry, smoke
from arena.submissions.registry import SubmissionError
from leaderboard.app import ServerConfig, server_app
from tests.conftest import SEED_KEY_ENV, run_arena, secret_file
from tests.test_forfeits import worker
from tests.test_regression import BOTS, record_for, seed_key, started
from tests.test_server import bot_archive, member, refused
from tests.test_server import submit as upload

__all__ = ["seed_key"]  # the series' seeds are keyed with the tests' platform key (autouse)

QUICK = "elo0=-400,elo1=0,max_games=8"  # hypotheses far apart: a series of a few games
QUICK_REQUEST = regression.Request(SprtParams(-400.0, 0.0), 8)


def series_states(client: redis.Redis, versions: list[str]) -> list[str | None]:
    return [client.hget(keys.regression(v), "state") for v in versions]


def waiting_games(client: redis.Redis) -> list[str]:
    return client.lrange(keys.REGRESSION_QUEUE, 0, -1)


def new_version(folder: Path, number: int) -> None:
    """Makes the bot in ``folder`` a new version (same play, other bytes)."""
    text = (folder / "bot.py").read_text().split("\n", 1)[1]
    (folder / "bot.py").write_text(f"# version {number}\n{text}")


def cli(redis_url: str, *args: str) -> object:
    return run_arena(*args, "--redis", redis_url, env=SEED_KEY_ENV)


def test_six_quick_versions_leave_one_live_series_and_play_no_game_of_the_others(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    folder = tmp_path / "quick"
    shutil.copytree(BOTS / "random", folder)
    (folder / "bot.py").write_text("# version 1\n" + (folder / "bot.py").read_text())
    submit = (
        "bots",
        "submit",
        "quick",
        "--games",
        "ninjan",
        "--dir",
        str(folder),
        "--entry",
        "python bot.py",
    )
    first = cli(redis_url, *submit, "--json")
    assert first.returncode == 0, first.stderr
    secret, versions = json.loads(first.stdout)["secret"], [json.loads(first.stdout)["version"]]
    ghost = None
    for number in range(2, 7):  # five more versions, each tested against the one before
        new_version(folder, number)
        proc = cli(
            redis_url,
            *submit,
            "--secret-file",
            secret_file(tmp_path, secret),
            "--test-against",
            "previous",
            "--sprt",
            QUICK,
            "--json",
        )
        assert proc.returncode == 0, proc.stderr
        versions.append(json.loads(proc.stdout)["version"])
        if number == 2:  # a worker takes one of the second version's games into the stream, and dies
            ghost = take_job(client, "ghost")
            assert ghost is not None and ghost.started and versions[1] in ghost.match_id
    tested, newest = versions[1:], versions[-1]

    assert series_states(client, tested) == ["cancelled"] * 4 + ["running"]
    for old, successor in itertools.pairwise(tested):
        state = regression.status(client, old)
        assert state["verdict"] == "none" and state["games"] == 0
        assert state["reason"] == f"superseded: version {successor} replaced {old} before the test decided"
    assert all(game.startswith(f"regression-{newest}-") for game in waiting_games(client))
    assert len(waiting_games(client)) == 2 * series.AHEAD
    for old in tested[:-1]:  # no game of a cancelled series waits to be played
        for pair in range(series.AHEAD):
            for half in "ab":
                _, fields = load_job(client, f"regression-{old}-p{pair}{half}")
                assert fields.get("status") in (JobStatus.RECORDED, JobStatus.RUNNING), (old, pair, fields)

    shown = cli(redis_url, "bots", "show", "quick")
    assert f"regression: {newest} against {tested[-2]} in ninjan" in shown.stdout
    assert "  running: 0 of at most 8 games" in shown.stdout
    earlier = (
        f"  earlier test cancelled: {tested[-2]} against {tested[-3]} after 0 games (superseded: version "
    )
    assert earlier + f"{newest} replaced {tested[-2]} before the test decided)" in shown.stdout
    as_json = json.loads(cli(redis_url, "bots", "show", "quick", "--json").stdout)["regression"]
    assert [c["new"] for c in as_json["superseded"]] == tested[-2::-1]

    # The real worker plays the newest series only; the ghost's game, reclaimed, is acknowledged unplayed.
    worker(client, redis_url, tmp_path / "cache", idle_timeout=timedelta(milliseconds=200)).run(burst=True)
    state = regression.status(client, newest)
    assert state["state"] == "done" and 2 <= state["games"] <= 8, state
    played = client.smembers(keys.RECORDED_SET)
    assert played and all(game.startswith(f"regression-{newest}-") for game in played), played
    assert client.hget(keys.job(ghost.match_id), "status") == JobStatus.RECORDED
    assert client.xpending(keys.JOBS_STREAM, keys.WORKERS_GROUP)["pending"] == 0
    assert not waiting_games(client) and not client.exists(keys.result(ghost.match_id))
    assert series_states(client, tested[:-1]) == ["cancelled"] * 4
    assert all(regression.status(client, v)["games"] == 0 for v in tested[:-1])


def test_on_a_server_a_newer_candidate_cancels_the_waiting_series_and_its_activation_the_running_one(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    folder = tmp_path / "served"
    shutil.copytree(BOTS / "random", folder)
    (folder / "bot.py").write_text("# version 1\n" + (folder / "bot.py").read_text())
    _, secret = registry.submit(client, "served", ["ninjan"], directory=folder, entry="python bot.py")

    def candidate(number: int) -> str:  # as the server's POST /api/v1/bots/NAME does it
        new_version(folder, number)
        wanted = regression.parse_request("previous", QUICK)
        found, _ = regression.submit_tested(
            client,
            "served",
            wanted,
            lambda: registry.submit(
                client,
                "served",
                ["ninjan"],
                directory=folder,
                entry="python bot.py",
                secret=secret,
                activate=False,
            ),
        )
        smoke.request_smoke(client, "served", found.candidate)
        return found.candidate

    v2, v3 = candidate(2), candidate(3)
    assert series_states(client, [v2, v3]) == ["cancelled", "waiting"]
    assert (
        regression.status(client, v2)["reason"]
        == f"superseded: version {v3} was submitted before {v2} became active"
    )
    cache = tmp_path / "cache"
    assert worker(client, redis_url, cache).run(max_jobs=2) == 2  # v2's smoke match skipped, v3's passes
    assert (
        smoke.status(client, v2)["status"] == "superseded" and smoke.status(client, v3)["status"] == "passed"
    )
    assert series_states(client, [v3]) == ["running"] and len(waiting_games(client)) == 2 * series.AHEAD
    v4 = candidate(4)
    assert series_states(client, [v3, v4]) == ["running", "waiting"]  # v4 may still fail its smoke match
    worker(client, redis_url, cache).run(burst=True)  # v4's smoke match first: it passes, v3's games go
    assert series_states(client, [v2, v3, v4]) == ["cancelled", "cancelled", "done"]
    state = regression.status(client, v3)
    assert (
        state["games"] == 0
        and state["reason"] == f"superseded: version {v4} replaced {v3} before the test decided"
    )
    assert all(game.startswith(f"regression-{v4}-") for game in client.smembers(keys.RECORDED_SET))
    assert [c["new"] for c in regression.status(client, v4)["superseded"]] == [v3, v2]


def test_a_worker_plays_rated_jobs_before_regression_games_and_reads_older_stream_entries(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    new = started(client, QUICK_REQUEST, "patient")
    waiting = waiting_games(client)
    assert len(waiting) == 2 * series.AHEAD and not client.xlen(keys.JOBS_STREAM)
    # A game queued before the waiting list existed sits in the job stream itself.
    old_style = f"regression-{new}-p0a"
    client.lrem(keys.REGRESSION_QUEUE, 0, old_style)
    client.xadd(keys.JOBS_STREAM, {"match_id": old_style})
    rated = [MatchJob(f"rated-{i}", "ninjan", 70 + i, ("random", "greedy")) for i in range(4)]
    assert all(jobs.enqueue(client, job) for job in rated)
    cache = tmp_path / "cache"
    assert worker(client, redis_url, cache).run(max_jobs=5) == 5
    recorded = client.smembers(keys.RECORDED_SET)
    assert recorded == {old_style} | {job.match_id for job in rated}  # no game of the waiting list
    assert waiting_games(client) == waiting[1:]
    late = [MatchJob(f"rated-late-{i}", "ninjan", 80 + i, ("greedy", "random")) for i in range(2)]
    assert all(jobs.enqueue(client, job) for job in late)  # queued after the games: still played first
    assert worker(client, redis_url, cache).run(max_jobs=2) == 2
    assert client.smembers(keys.RECORDED_SET) - recorded == {job.match_id for job in late}
    assert waiting_games(client) == waiting[1:]
    worker(client, redis_url, cache).run(burst=True)
    state = regression.status(client, new)
    assert state["state"] == "done" and state["games"] >= 2 and not waiting_games(client)
    assert client.xlen(keys.DEAD_STREAM) == 0


def test_on_a_stream_never_empty_one_enqueue_in_the_share_lets_the_oldest_waiting_game_in(
    client: redis.Redis,
) -> None:
    """A ladder keeps jobs queued ahead of its workers, so on a busy competition the stream is never
    empty, and a regression test that waited for it to be got about a game a minute (the dress
    rehearsal: 14 games in 30 minutes beside four ladders). Now one enqueue in ``REGRESSION_SHARE``,
    while games wait, lets the oldest in just before its own job: the tests get that share, the rated
    jobs keep their order, and a game is taken once."""
    version = started(client, regression.Request(), "busy")  # the default test: hundreds of games
    first = waiting_games(client)
    ahead = [MatchJob(f"rated-ahead-{i}", "ninjan", 90 + i, ("random", "greedy")) for i in range(4)]
    assert all(jobs.enqueue(client, job) for job in ahead)
    taken: list[str] = []
    rounds = 8 * jobs.REGRESSION_SHARE
    for n in range(rounds):  # the ladder tops up by one each time a worker takes one
        assert jobs.enqueue(client, MatchJob(f"rated-busy-{n:03d}", "ninjan", n, ("random", "greedy")))
        job = take_job(client, "w")
        assert job is not None and job.started and job.job is not None
        taken.append(job.match_id)
        if job.match_id.startswith("regression-"):
            assert series.finish_game(client, job.job, record_for(job.job, n % 3), job.entry_id)
        else:
            client.xack(keys.JOBS_STREAM, keys.WORKERS_GROUP, job.entry_id)
    assert client.hget(keys.regression(version), "state") == "running"
    games = [m for m in taken if m.startswith("regression-")]
    assert rounds // jobs.REGRESSION_SHARE - 1 <= len(games) <= rounds // jobs.REGRESSION_SHARE
    assert games[: len(first)] == first[: len(games)] and len(set(games)) == len(games)
    rated = [m for m in taken if not m.startswith("regression-")]
    assert rated == sorted(rated, key=lambda m: (not m.startswith("rated-ahead"), m))  # in their order
    assert regression.status(client, version)["games"] == 2 * (len(games) // 2)  # scored by whole pairs


def test_the_waiting_list_holds_at_most_queue_cap_games_and_starved_series_get_room_first(
    client: redis.Redis,
) -> None:
    full = series.QUEUE_CAP // (2 * series.AHEAD)
    versions = [
        started(client, regression.Request(SprtParams(-400.0, 0.0), 40), f"capped-{i}")
        for i in range(full + 3)
    ]
    assert len(waiting_games(client)) == series.QUEUE_CAP
    queued = [int(client.hget(keys.regression(v), "queued")) for v in versions]
    assert queued == [series.AHEAD] * full + [0] * 3
    assert client.zrange(keys.REGRESSION_STARVED, 0, -1) == versions[full:]
    served = []
    for _ in range(2 * series.QUEUE_CAP):  # workers take games and record them
        taken = take_job(client, "w")
        assert taken is not None and taken.started
        assert series.finish_game(client, taken.job, record_for(taken.job, 1), taken.entry_id)
        assert len(waiting_games(client)) <= series.QUEUE_CAP
        for version in versions[full:]:
            if version not in served and int(client.hget(keys.regression(version), "queued")):
                served.append(version)
        if len(served) == 3:
            break
    assert served == versions[full:]  # the first starved is the first served
    assert client.xpending(keys.JOBS_STREAM, keys.WORKERS_GROUP)["pending"] == 0


def test_the_cap_and_rated_jobs_first_hold_with_the_default_budget(client: redis.Redis) -> None:
    """Issue 33's bounds with issue 37's default budget (800 games, twice the old one): series of the
    default test, more than fit, queue ``AHEAD`` pairs each and never more than ``QUEUE_CAP`` games in
    all while workers play 300 of their games, a rated job queued meanwhile is taken before any of
    them, and no series promises more than ``AHEAD`` pairs beyond those it has played."""
    assert regression.Request().max_games == regression.DEFAULT_MAX_GAMES == 800
    full = series.QUEUE_CAP // (2 * series.AHEAD)
    versions = [started(client, regression.Request(), f"default-{i}") for i in range(full + 2)]
    assert len(waiting_games(client)) == series.QUEUE_CAP
    for played in range(300):
        if played == 150:
            assert jobs.enqueue(client, MatchJob("rated-now", "ninjan", 7, ("random", "greedy")))
            taken = take_job(client, "w")
            assert taken is not None and taken.job.match_id == "rated-now"  # before the waiting games
            client.xack(keys.JOBS_STREAM, keys.WORKERS_GROUP, taken.entry_id)
        taken = take_job(client, "w")
        assert taken is not None and taken.job.match_id.startswith("regression-")
        assert series.finish_game(client, taken.job, record_for(taken.job, played % 3), taken.entry_id)
        assert len(waiting_games(client)) <= series.QUEUE_CAP
    for version in versions:
        fields = client.hgetall(keys.regression(version))
        settled = sum(int(fields.get(f"p{k}", 0)) for k in range(5))
        assert int(fields["queued"]) <= settled + series.AHEAD
        assert fields["max_games"] == "800" and fields["state"] == "running"


def test_bad_sprt_parameters_and_undecidable_series_are_refused_with_their_reason(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    for sprt, words in [
        ("elo0=0,elo1=10,alpha=0.005", "alpha=0.005 is below 0.01: choose alpha and beta of at least 0.01"),
        ("elo0=0,elo1=10,beta=0.001", "beta=0.001 is below 0.01"),
        ("elo0=0,elo1=4", "elo0=0 and elo1=4 are 4 Elo apart: choose hypotheses at least 5 Elo apart"),
        (
            "elo0=-50,elo1=0,max_games=5000",
            "plays 2 to 2,000 games, not 5000: choose max_games=N in that range",
        ),
        ("max_games=lots", "max_games='lots' is not a whole number of games"),
        (
            "elo0=0,elo1=5",
            "elo0=0,elo1=5,alpha=0.05,beta=0.05 cannot tell its hypotheses apart within 800 games (it "
            "needs at least 19,318 to be right at either in 5 tests of 6): choose elo0=-20 or lower "
            "(keeping elo1=5)",
        ),
        (
            "elo0=-30,elo1=0,max_games=400",
            "cannot tell its hypotheses apart within 400 games (it needs at least 540 to be right at either "
            "in 5 tests of 6): choose elo0=-35 or lower (keeping elo1=0) or max_games=540",
        ),
        ("elo0=-10,elo1=0,max_games=2000", "needs at least 4,832"),  # fishtest's window: far too long
    ]:
        with pytest.raises(SubmissionError) as refusal:
            regression.parse_request("previous", sprt)
        assert words in str(refusal.value) and "\n" not in str(refusal.value), (sprt, str(refusal.value))
    assert regression.parse_request("previous", None) == regression.Request(SprtParams(-25.0, 0.0), 800)
    assert regression.parse_request("previous", regression.DEFAULT_TEXT) == regression.Request()
    assert regression.least_budget(regression.DEFAULT_PARAMS) <= regression.DEFAULT_MAX_GAMES
    assert regression.parse_request("previous", "elo0=-30,elo1=0,max_games=540").max_games == 540

    old, secret = registry.submit(client, "picky", ["ninjan"], builtin="random")
    proc = run_arena(
        *(
            "bots",
            "submit",
            "picky",
            "--games",
            "ninjan",
            "--builtin",
            "greedy",
            "--secret-file",
            secret_file(tmp_path, secret),
        ),
        *("--test-against", "previous", "--sprt", "elo0=0,elo1=5", "--redis", redis_url),
        env=SEED_KEY_ENV,
    )
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "cannot tell its hypotheses apart within 800 games" in proc.stderr, proc.stderr
    assert "choose elo0=-20 or lower" in proc.stderr
    assert client.hget(keys.bot("picky"), "version") == old.version  # refused before anything is stored

    with TestClient(server_app(redis_url, ServerConfig(write_burst=1000), client)) as api:
        owner = upload(api, "remote", bot_archive()).json()["secret"]
        client.hset(keys.bot("remote"), "version", client.hget(keys.bot("remote"), "candidate"))
        body = bot_archive([member("v2", b"2")])
        for sprt, words in [
            ("elo0=0,elo1=5", "cannot tell its hypotheses apart within 800 games"),
            ("elo0=0,elo1=2", "5 Elo apart"),
        ]:
            refused(
                api,
                client,
                lambda s=sprt: upload(api, "remote", body, owner, test_against="previous", sprt=s),
                422,
                words,
            )


def test_a_series_requested_before_bots_kept_a_set_of_series_is_cancelled_too(client: redis.Redis) -> None:
    old, secret = registry.submit(client, "veteran", ["ninjan"], builtin="random")
    wanted = regression.parse_request("previous", QUICK)
    found, _ = regression.submit_tested(
        client,
        "veteran",
        wanted,
        lambda: registry.submit(client, "veteran", ["ninjan"], builtin="greedy", secret=secret),
    )
    client.delete(keys.regression_series("veteran"))  # as a series requested before the set existed
    assert regression.status(client, found.version)["state"] == "running"
    regression.submit_tested(
        client,
        "veteran",
        None,
        lambda: registry.submit(client, "veteran", ["ninjan"], builtin="best", secret=secret),
    )  # a newer version, without a test of its own
    state = regression.status(client, found.version)
    assert state["state"] == "cancelled" and not waiting_games(client)
    shown = regression.for_name(client, "veteran", "ninjan")  # its newest version has no series: this one
    assert shown is not None and shown["new"] == found.version and shown["old"] == old.version


def test_the_api_shows_a_series_a_newer_untested_version_cancelled(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    """A bot whose newest version has no series and whose active one has none either still shows its
    owner the series a newer submission cancelled (the API asks by the bot's name, as the CLI does)."""
    folder = tmp_path / "named"
    shutil.copytree(BOTS / "random", folder)
    new_version(folder, 1)
    _, secret = registry.submit(client, "named", ["ninjan"], directory=folder, entry="python bot.py")

    def submitted(number: int, tested: bool) -> str:
        new_version(folder, number)

        def store() -> tuple[registry.Submission, str | None]:
            return registry.submit(
                client,
                "named",
                ["ninjan"],
                directory=folder,
                entry="python bot.py",
                secret=secret,
                activate=False,
            )

        found, _ = regression.submit_tested(client, "named", QUICK_REQUEST if tested else None, store)
        return found.candidate

    tested, untested = submitted(2, tested=True), submitted(3, tested=False)
    assert series_states(client, [tested]) == ["cancelled"] and untested != tested
    with TestClient(server_app(redis_url, ServerConfig(write_burst=1000), client)) as api:
        shown = api.get("/api/v1/bots/named").json()["regression"]
    assert shown is not None and shown["new"] == tested and shown["state"] == "cancelled", shown
