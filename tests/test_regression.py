"""Regression tests of a new version against the version it replaced (issue 17, item 3), on a real Redis:
the series' bookkeeping fed with made-up games (pairs counted once, the budget, dead games, removed
versions), then end to end with a real worker and the sandbox: a far stronger new version gets H1 and
an equal one gets a verdict at its budget (issue 37: never "none"), as ``arena bots show`` tells.
"""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from starlette.testclient import TestClient

from arena.games.base import Termination
from arena.queue import keys, store
from arena.queue.jobs import MatchJob, load_job
from arena.ratings.sprt import SprtParams
from arena.referee.record import MatchRecord
from arena.results import PlayerResult
from arena.schedule import regression, series
from arena.submissions import registry, smoke
from arena.submissions.registry import SubmissionError
from leaderboard import browser, data
from leaderboard.app import ServerConfig, server_app
from leaderboard.app import leaderboard_app as create_app
from tests.conftest import SEED_KEY, SEED_KEY_ENV, replay_of_random_game, run_arena, secret_file
from tests.test_forfeits import sandbox_works, worker
from tests.test_server import bot_archive, member, refused
from tests.test_server import submit as upload

needs_redis = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
needs_sandbox = pytest.mark.skipif(not sandbox_works(), reason="needs a working bubblewrap sandbox")
BOTS = Path(__file__).parent / "bots" / "submitted"


@pytest.fixture(autouse=True)
def seed_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Series seeds are keyed with the tests' platform key, never one in the user's state folder."""
    for name, value in SEED_KEY_ENV.items():
        monkeypatch.setenv(name, value)


def two_versions(client: redis.Redis, name: str = "twin") -> tuple[str, str]:
    """Submits built-in ``random`` under ``name``, then ``greedy`` as its new active version; returns
    (old, new)."""
    old, secret = registry.submit(client, name, ["ninjan"], builtin="random")
    new, _ = registry.submit(client, name, ["ninjan"], builtin="greedy", secret=secret)
    return old.version, new.version


def started(client: redis.Redis, wanted: regression.Request, name: str = "twin") -> str:
    """Returns the new version of a bot whose regression series has started."""
    old, new = two_versions(client, name)
    assert regression.request(client, name, new, old, wanted)
    assert regression.status(client, new)["state"] == "waiting"
    assert regression.activated(client, name, new)
    return new


def record_for(job: MatchJob, new_points: int) -> MatchRecord:
    """Returns a made-up record of a series game that the new version scored ``new_points`` half points."""
    new_seat = 0 if job.match_id.endswith("a") else 1  # as series.game_job seats it
    ranks = {2: (1, 2), 1: (1, 1), 0: (2, 1)}[new_points]
    players = tuple(
        PlayerResult(seat, bot, 0, ranks[0] if seat == new_seat else ranks[1], False, 0)
        for seat, bot in enumerate(job.bots)
    )
    return MatchRecord(job.match_id, job.game, job.seed, players, Termination.NORMAL, 10)


def queued_job(client: redis.Redis, new: str, pair: int, half: str) -> MatchJob:
    """Returns the queued job of one game of a series (it must have been queued)."""
    job, _ = load_job(client, f"regression-{new}-p{pair}{half}")
    assert job is not None, f"pair {pair}{half} was not queued"
    return job


def play_pair(client: redis.Redis, new: str, pair: int, points: tuple[int, int]) -> None:
    """Records both games of a queued pair with the new version's half points in each, each taken out
    of the waiting list first, as a worker takes it."""
    for half, scored in zip("ab", points, strict=True):
        job = queued_job(client, new, pair, half)
        client.lrem(keys.REGRESSION_QUEUE, 0, job.match_id)
        assert series.finish_game(client, job, record_for(job, scored))


def test_options_are_checked_before_anything_is_stored() -> None:
    assert regression.parse_request(None, None) is None
    assert regression.parse_request("previous", None) == regression.Request()
    assert regression.parse_request("previous", "elo0=0,elo1=100", 100).params == SprtParams(0, 100)
    for args, words in [
        (("latest", None), "the only choice is 'previous'"),
        ((None, "elo0=0,elo1=5"), "add --test-against previous"),
        (("previous", "elo0=5,elo1=0"), "--sprt: elo1 (0) must be greater than elo0 (5)"),
        (("previous", None, 1), "plays 2 to 2,000 games, not 1"),
    ]:
        with pytest.raises(SubmissionError, match=words.replace("(", r"\(").replace(")", r"\)")):
            regression.parse_request(*args)


@needs_redis
def test_a_first_submission_has_nothing_to_test_against(client: redis.Redis) -> None:
    with pytest.raises(SubmissionError, match="no active version to test against"):
        regression.previous(client, "newcomer")
    _, new = two_versions(client)
    assert regression.previous(client, "twin") == new
    with pytest.raises(SubmissionError, match="is the active one already"):
        regression.request(client, "twin", new, new, regression.Request())


@needs_redis
def test_games_are_paired_on_one_deal_with_seats_swapped_and_a_few_pairs_ahead(client: redis.Redis) -> None:
    new = started(client, regression.Request())
    old = regression.status(client, new)["old"]
    assert client.hget(keys.regression(new), "queued") == str(series.AHEAD)
    a, b = queued_job(client, new, 0, "a"), queued_job(client, new, 0, "b")
    assert (a.bots, a.versions) == (("twin", "twin~previous"), (new, old))
    assert (b.bots, b.versions) == (("twin~previous", "twin"), (old, new))
    assert a.seed == b.seed != queued_job(client, new, 1, "a").seed and a.fresh_bots and b.fresh_bots
    assert load_job(client, f"regression-{new}-p{series.AHEAD}a")[0] is None
    play_pair(client, new, 0, (2, 1))  # a win and a draw: the pair scores 1.5
    state = regression.status(client, new)
    assert state["pentanomial"] == [0, 0, 0, 1, 0] and (state["wins"], state["draws"]) == (1, 1)
    assert state["games"] == 2 and state["verdict"] is None
    assert client.hget(keys.regression(new), "queued") == str(series.AHEAD + 1)  # one more in flight


@needs_redis
def test_a_game_recorded_twice_counts_once(client: redis.Redis) -> None:
    new = started(client, regression.Request())
    job = queued_job(client, new, 0, "a")
    assert series.finish_game(client, job, record_for(job, 2))
    assert not series.finish_game(client, job, record_for(job, 0))  # a rerun's other outcome
    other = queued_job(client, new, 0, "b")
    assert series.finish_game(client, other, record_for(other, 2))
    assert not series.finish_game(client, other, record_for(other, 2))
    state = regression.status(client, new)
    assert state["pentanomial"] == [0, 0, 0, 0, 1] and state["games"] == 2 and state["wins"] == 2
    assert not client.exists(keys.results("ninjan"), keys.pairs("ninjan"))  # scored, not rated


@needs_redis
def test_fishtest_bounds_accept_h1_for_clean_wins_and_h0_for_clean_losses(client: redis.Redis) -> None:
    fishtest = regression.Request(SprtParams(-10.0, 0.0))  # no longer the default (issue 33)
    for name, points, verdict in [("winner", (2, 2), "H1"), ("loser", (0, 0), "H0")]:
        new = started(client, fishtest, name)
        pair = 0
        while regression.status(client, new)["verdict"] is None:
            play_pair(client, new, pair, points)
            queued = int(client.hget(keys.regression(new), "queued"))
            assert queued <= pair + 1 + series.AHEAD  # never more than AHEAD pairs in flight
            pair += 1
        state = regression.status(client, new)
        assert state["verdict"] == verdict and state["state"] == "done" and state["games"] == 2 * pair
        assert 60 < pair < 140, pair  # elo0=-10, elo1=0 needs about a hundred games of clean results
        assert abs(state["llr"]) >= state["upper"] == pytest.approx(2.9444, abs=1e-4)
        # queued before the verdict: taken out of the queue then; one a worker had begun counts nothing
        assert load_job(client, f"regression-{new}-p{pair}a")[0] is None
        assert not client.lrange(keys.REGRESSION_QUEUE, 0, -1)
        late = series.game_job(client.hgetall(keys.regression(new)), new, pair, "a", SEED_KEY)
        assert series.finish_game(client, late, record_for(late, 2))
        assert regression.status(client, new)["games"] == 2 * pair


@needs_redis
def test_a_series_that_reaches_its_budget_decides_by_the_llrs_side_of_the_bounds_middle(
    client: redis.Redis,
) -> None:
    """Issue 37 (item 3): the budget ends a series with H1 or H0, never "none". Split pairs score the
    default's H1 (0.5 a game): H1; pairs of a draw and a loss score 0.25 a game: H0, worded with how often
    an unchanged version is called a regression. Neither crosses a bound in three pairs."""
    for name, points, verdict, side in [("even", (2, 0), "H1", "above"), ("worse", (1, 0), "H0", "below")]:
        new = started(client, regression.Request(max_games=6), name)
        for pair in range(3):
            play_pair(client, new, pair, points)
        state = regression.status(client, new)
        assert state["lower"] < state["llr"] < state["upper"]  # no bound crossed: the budget decided
        assert (state["state"], state["verdict"], state["games"], state["reason"]) == ("done", verdict, 6, "")
        assert f"the budget ran out with the LLR {side} the bounds' middle" in state["verdict_text"]
        assert (state["llr"] >= 0) == (verdict == "H1")  # alpha = beta: the middle is 0
        assert load_job(client, f"regression-{new}-p3a")[0] is None  # nothing queued past the budget
        shown = "\n".join(regression.format_lines(state))
        assert f"  {state['verdict_text']}: 6 of at most 6 games" in shown and "stopped:" not in shown
    rate = f"{regression.false_alarm(regression.Request(max_games=6)):.0%}"
    assert state["verdict_text"] == (
        "a regression (H0: the budget ran out with the LLR below the bounds' middle; an unchanged "
        f"version gets this verdict in about {rate} of tests)"
    )


@needs_redis
def test_dead_games_void_their_pair_and_stop_the_series_after_a_few(client: redis.Redis) -> None:
    new = started(client, regression.Request())
    play_pair(client, new, 0, (2, 2))
    half_played = queued_job(client, new, 1, "a")
    series.finish_game(client, half_played, record_for(half_played, 2))
    series.void_game(client, queued_job(client, new, 1, "b"))  # dead-lettered
    state = regression.status(client, new)
    assert state["pentanomial"] == [0, 0, 0, 0, 1] and state["verdict"] is None
    assert client.hget(keys.regression(new), "queued") == str(
        2 + series.AHEAD
    )  # pair 1 void: one more queued
    for pair in (2, 3):
        series.void_game(client, queued_job(client, new, pair, "a"), f"JobError: pair {pair} failed")
    state = regression.status(client, new)
    assert state["verdict"] == "none"
    assert state["reason"] == "3 pairs of games could not be played; the last error: JobError: pair 3 failed"


@needs_redis
def test_a_removed_version_stops_the_series(client: redis.Redis) -> None:
    old, secret = registry.submit(client, "gone", ["ninjan"], builtin="random")
    new, _ = registry.submit(client, "gone", ["ninjan"], builtin="greedy", secret=secret)
    regression.request(client, "gone", new.version, old.version, regression.Request())
    regression.activated(client, "gone", new.version)
    registry.remove(client, "gone", secret)
    job = queued_job(client, new.version, 0, "a")
    series.finish_game(client, job, record_for(job, 2))
    state = regression.status(client, new.version)
    assert state["verdict"] == "none" and "was removed before the test decided" in state["reason"]


@needs_redis
def test_the_bot_page_shows_the_newest_versions_test(client: redis.Redis, redis_url: str) -> None:
    new = started(client, regression.Request(max_games=2))
    play_pair(client, new, 0, (2, 1))
    text, record = replay_of_random_game("ninjan", 5, ["twin", "random"], "rated-1")  # a rated match
    assert store.record(client, MatchJob("rated-1", "ninjan", 5, ("twin", "random")), record, text, "0-1")
    page = data.bot_page(client, "ninjan", "twin")
    assert page is not None and page["regression"] == regression.status(client, new)
    assert page["regression"]["verdict"] == "H1"  # the budget of one pair is spent: 1.5 of 2 decides
    assert data.bot_page(client, "ninjan", "random")["regression"] is None  # a built-in bot has none
    if not Path(browser.CHROMIUM).exists():
        return
    with browser.serving(create_app(redis_url)) as base, browser.chromium() as chrome:
        shown = browser.open_page(chrome, f"{base}/games/ninjan/bots/twin").text_content("#regression")
    decided = (
        ": no regression (H1: the budget ran out with the LLR above the bounds' middle) · 2 of at most 2"
    )
    assert f"version {new} against " in shown and decided in shown
    assert "W/D/L 1/1/0" in shown and "0, 0, 0, 1, 0" in shown


@needs_redis
def test_the_server_notes_the_request_until_the_smoke_match_passes(
    client: redis.Redis, redis_url: str
) -> None:
    with TestClient(server_app(redis_url, ServerConfig(write_burst=1000), client)) as api:
        secret = upload(api, "remote", bot_archive()).json()["secret"]
        again = upload(api, "remote", bot_archive([member("v2", b"2")]), secret, test_against="previous")
        assert again.status_code == 422 and "no active version to test against" in again.json()["error"]
        first = client.hget(keys.bot("remote"), "candidate")
        client.hset(keys.bot("remote"), "version", first)  # as if its smoke match passed
        bad = bot_archive([member("v3", b"3")])
        for query, words in [
            ({"test_against": "previous", "sprt": "elo0=1"}, "missing elo1"),
            ({"sprt": "elo0=0,elo1=5"}, "add --test-against previous"),
            ({"test_against": "latest"}, "the only choice is 'previous'"),
        ]:
            refused(api, client, lambda q=query: upload(api, "remote", bad, secret, **q), 422, words)
        answer = upload(api, "remote", bad, secret, test_against="previous", sprt="elo0=0,elo1=60").json()
        series = answer["bot"]["regression"]
        assert (series["state"], series["old"], series["elo1"]) == ("waiting", first, 60.0)
        assert series["new"] == answer["bot"]["candidate"] != first
        assert api.get("/api/v1/bots/remote").json()["regression"] == series


class Died(Exception):
    """A worker's sudden end, between recording a game and advancing its series."""


def die(*_: object) -> None:
    raise Died


@needs_redis
@needs_sandbox
def test_a_worker_killed_before_advancing_leaves_the_step_to_the_worker_that_reclaims_the_game(
    client: redis.Redis, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    new = started(client, regression.Request(max_games=2))  # one pair: its second game ends the test
    cache = tmp_path / "cache"
    assert worker(client, redis_url, cache).run(max_jobs=1) == 1
    with monkeypatch.context() as patched, pytest.raises(Died):
        patched.setattr(series, "advance", die)  # finish_game advances the series
        worker(client, redis_url, cache).run(max_jobs=1)
    state = regression.status(client, new)
    assert state["games"] == 2 and state["state"] == "running"  # counted, not decided
    assert client.xpending(keys.JOBS_STREAM, keys.WORKERS_GROUP)["pending"] == 1  # not acknowledged
    worker(client, redis_url, cache, idle_timeout=timedelta(milliseconds=200)).run(burst=True)
    state = regression.status(client, new)
    assert (state["state"], state["games"]) == ("done", 2) and state["verdict"] in (
        "H0",
        "H1",
    )  # at its budget
    assert client.xpending(keys.JOBS_STREAM, keys.WORKERS_GROUP)["pending"] == 0


def submit_dir(
    client: redis.Redis, name: str, folder: Path, secret: str | None = None, **options: object
) -> str:
    """Submits a bot folder of tests/bots/submitted; returns its secret."""
    _, new_secret = registry.submit(
        client, name, ["ninjan"], directory=folder, entry="python bot.py", secret=secret, **options
    )
    return new_secret or secret or ""


@needs_redis
@needs_sandbox
def test_a_far_stronger_new_version_passes_after_its_smoke_match(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    secret = submit_dir(client, "climber", BOTS / "weak")
    old = regression.previous(client, "climber")
    submit_dir(client, "climber", BOTS / "greedy", secret, activate=False)  # the server's path
    new = client.hget(keys.bot("climber"), "candidate")
    wanted = regression.parse_request("previous", "elo0=0,elo1=100", 80)
    assert regression.request(client, "climber", new, old, wanted)
    smoke.request_smoke(client, "climber", new)
    worker(client, redis_url, tmp_path / "cache").run(burst=True)
    state = regression.status(client, new)
    assert state["state"] == "done" and state["verdict"] == "H1", state
    # greedy wins most games against weak (21 of 24 in one run): H1 comes early. The share varies with
    # the deals (the version ids, hence the series' seeds, differ every run): the floor leaves room.
    assert 10 <= state["games"] < 60 and state["wins"] >= 0.75 * state["games"], state
    shown = run_arena("bots", "show", "climber", "--redis", redis_url, env=SEED_KEY_ENV)
    assert f"regression: {new} against {old} in ninjan" in shown.stdout
    assert "no regression (H1 accepted)" in shown.stdout
    as_json = json.loads(
        run_arena("bots", "show", "climber", "--json", "--redis", redis_url, env=SEED_KEY_ENV).stdout
    )
    assert as_json["regression"]["verdict"] == "H1"


@needs_redis
@needs_sandbox
def test_an_equal_new_version_gets_a_verdict_at_its_budget(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    folder = tmp_path / "same"
    shutil.copytree(BOTS / "random", folder)
    secret = submit_dir(client, "steady", folder)
    (folder / "bot.py").write_text("# version 2, same play\n" + (folder / "bot.py").read_text())
    proc = run_arena(
        *("bots", "submit", "steady", "--games", "ninjan", "--dir", str(folder), "--entry", "python bot.py"),
        *("--secret-file", secret_file(tmp_path, secret), "--test-against", "previous", "--redis", redis_url),
        env=SEED_KEY_ENV,
    )
    assert proc.returncode == 0, proc.stderr
    assert "regression: " in proc.stdout and "running: 0 of at most 800 games" in proc.stdout
    first = run_arena(
        *(
            "bots",
            "submit",
            "fresh",
            "--games",
            "ninjan",
            "--builtin",
            "random",
            "--test-against",
            "previous",
        ),
        *("--redis", redis_url),
        env=SEED_KEY_ENV,
    )
    assert first.returncode == 2 and not client.exists(keys.bot("fresh"))  # refused before storing
    assert first.stderr.strip().endswith("submit it once without --test-against"), first.stderr
    assert len(first.stderr.strip().splitlines()) == 1
    new = client.hget(keys.bot("steady"), "version")
    client.hset(keys.regression(new), "max_games", "8")  # a small budget for the test
    worker(client, redis_url, tmp_path / "cache").run(burst=True)
    state = regression.status(client, new)
    assert state["state"] == "done" and state["verdict"] in ("H0", "H1"), state  # never "none" (issue 37)
    assert state["games"] == 8 if state["lower"] < state["llr"] < state["upper"] else state["games"] < 8
    assert state["wins"] + state["draws"] + state["losses"] == state["games"] == 2 * sum(state["pentanomial"])
