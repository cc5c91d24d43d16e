"""Ladders the organiser runs on the server (issue 17 item 4): the API in process over a real Redis
(who may start and stop one, every bad parameter refused with nothing stored), and end to end with a
real Redis, a real ``arena server`` process and a real ``arena worker`` (sandbox on): the organiser
starts a ladder through the CLI, the leaderboard grows, the ladder goes on after the server is killed
and restarted, and ``arena ladder stop`` stops it.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.queue import keys
from arena.queue.jobs import load_job
from arena.ratings import PairTable, Placement, player_id
from leaderboard.api.auth import OrganiserToken
from leaderboard.app import ServerConfig
from leaderboard.app import server_app as create_app
from tests.conftest import SEED_KEY_ENV, run_arena
from tests.hosted import ORGANISER_TOKEN, HostedPlatform, get, hosted
from tests.test_queue import wait_until
from tests.test_server import snapshot

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")

TOKEN = ORGANISER_TOKEN
LADDER = {"game": "ninjan", "bots": ["random", "greedy"], "seed": 3, "ahead": 2}
LIMIT = 120.0  # seconds: a safety limit for matches to be played, never a timing assertion


@pytest.fixture
def organiser_file(tmp_path: Path) -> Path:
    path = tmp_path / "organiser-token"
    path.write_text(TOKEN + "\n")
    return path


@pytest.fixture
def api(client: Any, redis_url: str, organiser_file: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Returns a test client of a server with the organiser token (its lifespan, resuming, runs)."""
    monkeypatch.setenv("ARENA_SEED_KEY", SEED_KEY_ENV["ARENA_SEED_KEY"])
    config = ServerConfig(write_burst=1000, organiser=OrganiserToken.from_file(organiser_file))
    with TestClient(create_app(redis_url, config, client)) as test_client:
        yield test_client


def owner_secret(api: Any) -> str:
    """Returns the owner secret of a bot registered through the API: a participant's credential."""
    answer = api.post("/api/v1/bots/mine", params={"games": "ninjan", "builtin": "random"})
    assert answer.status_code == 201, answer.text
    return answer.json()["secret"]


def as_organiser(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_only_the_organiser_starts_or_stops_a_ladder(api: Any, client: Any) -> None:
    participant = as_organiser(owner_secret(api))
    before = snapshot(client)
    for headers, status in (({}, 401), (participant, 403), ({"Authorization": "Basic eDp5"}, 401)):
        answer = api.post("/api/v1/ladders", json=LADDER, headers=headers)
        assert answer.status_code == status and set(answer.json()) == {"error"}, answer.text
        answer = api.delete("/api/v1/ladders/ninjan-ladder-0123456789", headers=headers)
        assert answer.status_code == status, answer.text
    assert snapshot(client) == before
    assert api.get("/api/v1/ladders").json() == {"ladders": []}


@pytest.mark.parametrize(
    ("change", "status", "words"),
    [
        ({"rounds": 2}, 400, "unknown field 'rounds'"),
        ({"bots": "random,greedy"}, 400, "'bots' must be a list"),
        ({"players": True}, 400, "'players' must be int"),
        ({"random_share": "all"}, 400, "'random_share' must be float"),
        ({"game": "chess"}, 422, "chess"),
        ({"bots": ["random", "nobody"]}, 422, "nobody"),
        ({"bots": ["random"]}, 422, "at least two bot names"),
        ({"bots": ["random", "random"]}, 422, "each bot may be named once"),
        ({"players": 3}, 422, "--players 3 needs at least 3 bots"),
        ({"random_share": 2}, 422, "--random-share must be from 0 to 1"),
        ({"deadline_ms": 0}, 422, "--deadline-ms must be from 1"),
        ({"ahead": 0}, 422, "'ahead' must be from 1 to 64"),
        ({"until_los": "high"}, 400, "'until_los' must be float"),
        ({"until_los": 1}, 422, "--los must be above 0.5 and below 1"),
        ({"until_los": 0.4}, 422, "--los must be above 0.5 and below 1"),
    ],
)
def test_bad_parameters_are_refused_and_store_nothing(
    api: Any, client: Any, change: dict, status: int, words: str
) -> None:
    before = snapshot(client)
    answer = api.post("/api/v1/ladders", json={**LADDER, **change}, headers=as_organiser())
    assert answer.status_code == status and words in answer.json()["error"], answer.text
    assert snapshot(client) == before


def test_a_ladder_starts_once_fills_its_queue_and_stops(api: Any, client: Any) -> None:
    started = api.post("/api/v1/ladders", json=LADDER, headers=as_organiser())
    assert started.status_code == 201, started.text
    shown = started.json()
    lid = shown["id"]
    assert shown["state"] == "running" and shown["seed"] == 3 and shown["bots"] == ["random", "greedy"]
    # No worker here: the thread fills the queue to 'ahead' and waits for results.
    wait_until(lambda: api.get("/api/v1/ladders").json()["ladders"][0]["total"] == 2, "the queue filled")
    again = api.post("/api/v1/ladders", json=LADDER, headers=as_organiser())
    assert again.status_code == 200 and again.json()["id"] == lid
    assert client.xlen(keys.JOBS_STREAM) == 2
    stopped = api.delete(f"/api/v1/ladders/{lid}", headers=as_organiser())
    assert stopped.status_code == 200 and stopped.json()["queued"] == 2, stopped.text
    assert api.get("/api/v1/ladders").json() == {"ladders": []}
    assert client.hget(keys.LADDERS, lid) is None
    gone = api.delete(f"/api/v1/ladders/{lid}", headers=as_organiser())
    assert gone.status_code == 404 and "no ladder" in gone.json()["error"]
    malformed = api.delete("/api/v1/ladders/a%20b", headers=as_organiser())
    assert malformed.status_code == 400


def finish_queued(client: Any, lid: str) -> None:
    """Marks the ladder's queued matches finished (dead), as the recording script would count them,
    and wakes its loop: room for the next matches without a worker."""
    total, recorded, dead = (
        int(v or 0) for v in client.hmget(keys.tournament(lid), ["total", "recorded", "dead"])
    )
    client.hincrby(keys.tournament(lid), "dead", total - recorded - dead)
    client.xadd(keys.tournament_done(lid), {"match_id": f"{lid}-m{total}", "status": "dead"})


def test_a_ladder_goes_on_without_a_bot_its_owner_removed(api: Any, client: Any) -> None:
    """One participant removing their bot must not stop everyone's ladder: the next refill leaves it
    out while a table can still be filled."""
    secret = owner_secret(api)
    body = {**LADDER, "bots": ["mine", "greedy", "random"]}
    lid = api.post("/api/v1/ladders", json=body, headers=as_organiser()).json()["id"]
    wait_until(lambda: api.get("/api/v1/ladders").json()["ladders"][0]["total"] == 2, "the queue filled")
    assert api.delete("/api/v1/bots/mine", headers=as_organiser(secret)).status_code == 200
    finish_queued(client, lid)  # the next refill resolves the bots again: 'mine' is gone
    wait_until(lambda: api.get("/api/v1/ladders").json()["ladders"][0]["total"] == 4, "the next refill")
    shown = api.get("/api/v1/ladders").json()["ladders"][0]
    assert shown["state"] != "failed", shown
    later = [load_job(client, f"{lid}-m{n}")[0] for n in (2, 3)]
    assert all(job is not None and "mine" not in job.bots for job in later), later
    assert api.delete(f"/api/v1/ladders/{lid}", headers=as_organiser()).status_code == 200


def test_a_ladder_that_loses_a_bot_is_listed_failed_and_not_resumed(
    api: Any, client: Any, redis_url: str, organiser_file: Path
) -> None:
    secret = owner_secret(api)
    body = {**LADDER, "bots": ["mine", "greedy"]}
    lid = api.post("/api/v1/ladders", json=body, headers=as_organiser()).json()["id"]
    wait_until(lambda: api.get("/api/v1/ladders").json()["ladders"][0]["total"] == 2, "the queue filled")
    assert api.delete("/api/v1/bots/mine", headers=as_organiser(secret)).status_code == 200
    finish_queued(client, lid)  # the next refill resolves the bots again: 'mine' is gone
    wait_until(lambda: api.get("/api/v1/ladders").json()["ladders"][0]["state"] == "failed", "the failure")
    shown = api.get("/api/v1/ladders").json()["ladders"][0]
    assert "mine" in shown["error"] and "cannot go on" in shown["error"] and shown["total"] == 2, shown
    client.hset(keys.LADDERS, "ninjan-ladder-0000000000", "{not json")
    config = ServerConfig(organiser=OrganiserToken.from_file(organiser_file))
    with TestClient(create_app(redis_url, config, client)) as restarted:  # resumes nothing of these
        listed = {ld["id"]: ld for ld in restarted.get("/api/v1/ladders").json()["ladders"]}
        assert (
            listed["ninjan-ladder-0000000000"]["state"] == "unreadable" and listed[lid]["state"] == "failed"
        )
        assert restarted.app.state.ladders.running() == []
        assert (
            restarted.delete("/api/v1/ladders/ninjan-ladder-0000000000", headers=as_organiser()).status_code
            == 200
        )


def test_a_server_restarted_in_process_resumes_a_running_ladder(
    api: Any, client: Any, redis_url: str, organiser_file: Path
) -> None:
    lid = api.post("/api/v1/ladders", json=LADDER, headers=as_organiser()).json()["id"]
    wait_until(lambda: api.get("/api/v1/ladders").json()["ladders"][0]["total"] == 2, "the queue filled")
    api.app.state.ladders.close()  # as at the server's shutdown: the record stays
    assert json.loads(client.hget(keys.LADDERS, lid))["state"] == "running"
    config = ServerConfig(organiser=OrganiserToken.from_file(organiser_file))
    with TestClient(create_app(redis_url, config, client)) as restarted:
        wait_until(lambda: restarted.app.state.ladders.running() == [lid], "the ladder resumed")
        finish_queued(client, lid)
        wait_until(lambda: restarted.get("/api/v1/ladders").json()["ladders"][0]["total"] == 4, "the refill")
        assert client.xlen(keys.JOBS_STREAM) == 4  # matches 3 and 4, numbered on from the record


def settle(client: Any, lid: str) -> None:
    """Records in the game's pair table that greedy beat random 70 of 80 times, both seatings (a pool
    whose order is certain), then counts the ladder's queued matches recorded and wakes its loop."""
    bots, versions = load_job(client, f"{lid}-m1")[0].bots, load_job(client, f"{lid}-m1")[0].versions
    greedy, rnd = (player_id(b, v) for b, v in sorted(zip(bots, versions, strict=True)))
    table = PairTable()
    for i in range(80):
        ranks = {greedy: 1, rnd: 2} if i % 8 else {greedy: 2, rnd: 1}
        seated = (greedy, rnd) if i % 2 else (rnd, greedy)
        table.add_match([Placement(p, ranks[p]) for p in seated], seats=True)
    client.hset(keys.pairs("ninjan"), mapping=table.to_fields())
    client.incrby(keys.rating_updates("ninjan"), 80)
    total, recorded = (int(v or 0) for v in client.hmget(keys.tournament(lid), ["total", "recorded"]))
    client.hincrby(keys.tournament(lid), "recorded", total - recorded)
    client.xadd(keys.tournament_done(lid), {"match_id": f"{lid}-m{total}", "status": "recorded"})


def test_a_ladder_started_until_confident_stops_by_itself_and_is_not_resumed(
    api: Any, client: Any, redis_url: str, organiser_file: Path
) -> None:
    """Issue 37 item 5 on the server: a ladder started with ``until_los`` plays until every neighbour's
    LOS reaches it, then schedules nothing more and is listed ``confident``; a restart leaves it so."""
    started = api.post("/api/v1/ladders", json={**LADDER, "until_los": 0.95}, headers=as_organiser())
    assert started.status_code == 201 and started.json()["until_los"] == 0.95, started.text
    lid = started.json()["id"]
    listed = lambda: api.get("/api/v1/ladders").json()["ladders"][0]  # noqa: E731
    wait_until(lambda: listed()["total"] == 2, "the queue filled")  # not confident on no results
    assert listed()["state"] == "running"
    settle(client, lid)
    wait_until(lambda: listed()["state"] == "confident", "the ladder to find itself confident")
    shown = listed()
    assert (shown["total"], shown["recorded"], shown["queued"], shown["error"]) == (2, 2, 0, None), shown
    assert api.app.state.ladders.running() == [] and client.xlen(keys.JOBS_STREAM) == 2
    config = ServerConfig(organiser=OrganiserToken.from_file(organiser_file))
    with TestClient(create_app(redis_url, config, client)) as restarted:  # resumes nothing of it
        assert restarted.get("/api/v1/ladders").json()["ladders"][0]["state"] == "confident"
        assert restarted.app.state.ladders.running() == []
    plain = api.post("/api/v1/ladders", json={**LADDER, "seed": 4}, headers=as_organiser()).json()
    assert plain["until_los"] is None and plain["state"] == "running"  # left out: runs until stopped


@pytest.fixture
def platform(tmp_path: Path) -> Iterator[HostedPlatform]:
    with hosted(tmp_path / "platform") as started:
        yield started


def ladder_of(platform: HostedPlatform, lid: str) -> dict | None:
    """Returns the ladder as the server lists it, None if it is not listed."""
    return next((ld for ld in get(f"{platform.url}/api/v1/ladders")["ladders"] if ld["id"] == lid), None)


def games(platform: HostedPlatform) -> dict[str, int]:
    """Returns each bot's games on the Ninjan leaderboard the server shows."""
    return {
        row["bot"]: row["games"] for row in get(f"{platform.url}/api/v1/games/ninjan/leaderboard")["rows"]
    }


@pytest.mark.e2e
@pytest.mark.slow
def test_the_organiser_runs_a_ladder_on_the_server_through_a_restart(
    platform: HostedPlatform, tmp_path: Path
) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "organiser"), "ARENA_REDIS_URL": ""}
    server = ["--server", platform.url]
    token = ["--organiser-token-file", str(platform.token_file)]
    submitted = run_arena(
        "bots", "submit", "mine", "--games", "ninjan", "--builtin", "random", "--json", *server
    )
    assert submitted.returncode == 0, submitted.stderr
    participant_file = tmp_path / "participant-token"
    participant_file.write_text(json.loads(submitted.stdout)["secret"] + "\n")
    start = ["ladder", "ninjan", "--bots", "random,greedy", "--seed", "7", "--ahead", "2", *server]
    refused = run_arena(*start, "--organiser-token-file", str(participant_file), env=env)
    assert refused.returncode == 2 and "wrong organiser token (HTTP 403)" in refused.stderr, refused.stderr
    assert (
        len(refused.stderr.strip().splitlines()) == 1 and not get(f"{platform.url}/api/v1/ladders")["ladders"]
    )

    proc = run_arena(*start, *token, "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    lid = json.loads(proc.stdout)["id"]
    assert f"stop it with 'arena ladder stop {lid}" in proc.stderr
    wait_until(lambda: ladder_of(platform, lid)["recorded"] >= 4, "the worker to play the ladder", LIMIT)
    before_crash = games(platform)
    assert set(before_crash) == {"random", "greedy"} and sum(before_crash.values()) >= 8, before_crash

    platform.kill_server()
    scheduled = int(platform.redis_client().hget(keys.tournament(lid), "total"))
    platform.start_server()  # resumes the ladder recorded in Redis
    wait_until(
        lambda: ladder_of(platform, lid)["recorded"] > scheduled, "matches scheduled after restart", LIMIT
    )
    assert ladder_of(platform, lid)["state"] == "running"
    after = games(platform)
    assert all(after[bot] > before_crash[bot] for bot in after), (before_crash, after)
    status = run_arena("ladder", "status", *server, env=env)
    assert status.returncode == 0 and f"{lid}: ninjan random,greedy — running" in status.stdout, status

    stopped = run_arena("ladder", "stop", lid, *server, *token, "--json", env=env)
    assert stopped.returncode == 0, stopped.stderr
    final = json.loads(stopped.stdout)["total"]
    assert ladder_of(platform, lid) is None
    # The worker plays what was queued: each result wakes nothing, since the ladder's thread is gone.
    finished = lambda: sum(ladder_of_hash(platform, lid)[k] for k in ("recorded", "dead"))  # noqa: E731
    wait_until(lambda: finished() == final, "the queued matches to be played", LIMIT)
    assert ladder_of_hash(platform, lid)["total"] == final
    again = run_arena("ladder", "stop", lid, *server, *token, env=env)
    assert again.returncode == 2 and "no ladder" in again.stderr


def ladder_of_hash(platform: HostedPlatform, lid: str) -> dict[str, int]:
    """Returns the ladder's counts from its tournament hash in Redis (read after it is stopped)."""
    fields = platform.redis_client().hmget(keys.tournament(lid), ["total", "recorded", "dead"])
    return dict(zip(("total", "recorded", "dead"), (int(v or 0) for v in fields), strict=True))


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["stop", "ninjan-ladder-0123456789"], "'arena ladder stop' is for a server's ladders: add --server"),
        (["status"], "'arena ladder status' is for a server's ladders"),
        (["ninjan", "oops", "--bots", "random,greedy"], "only 'stop' takes a ladder id"),
        (
            ["ninjan", "--bots", "random,greedy", "--server", "http://127.0.0.1:9", "--workers", "2"],
            "leave out --workers",
        ),
        (
            ["ninjan", "--bots", "random,greedy", "--server", "http://127.0.0.1:9"],
            "needs --organiser-token-file",
        ),
        (["stop", "--server", "http://127.0.0.1:9", "--organiser-token-file", "/nonexistent"], "cannot read"),
    ],
)
def test_the_cli_refuses_what_it_cannot_do_in_one_line(args: list[str], words: str) -> None:
    proc = run_arena("ladder", *args, env={"ARENA_SERVER": "", "ARENA_ORGANISER_TOKEN_FILE": ""})
    assert proc.returncode == 2 and words in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
