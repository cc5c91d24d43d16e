"""Replay pages re-run their match in a process of their own (``leaderboard.rerun``), so a replay being
re-run never holds up the server's other pages; each answer is kept gzipped and served again as kept.

Against a real redis-server (a free port) and the app served by uvicorn over real HTTP: the
re-running process is stopped (SIGSTOP) while a replay is asked for, and the other pages must still
answer; killed, it is replaced at the next replay.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from arena.queue import store
from arena.queue.connection import connect
from arena.queue.jobs import MatchJob
from arena.referee import compact
from arena.storage import replays
from arena.testing import RedisServer
from arena.testing.playouts import replay_of_random_game
from leaderboard import browser, rerun
from leaderboard.app import ServerConfig, leaderboard_app, server_app

ANSWER_S = 60.0  # the longest a page may take here (a bound for a hang, not a speed figure)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[redis.Redis]:
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        found = connect(server.url)
        for seed in range(1, 5):
            record(found, "pnrz", seed)
        record(found, "ninjan", 9)
        yield found
    finally:
        server.kill()


def record(client: redis.Redis, game: str, seed: int) -> str:
    """Records one seeded random game through the queue's own transaction; returns its id."""
    match_id = f"{game}-rerun-{seed}"
    bots = ["random", "other"]
    text, result = replay_of_random_game(game, seed, bots, match_id)
    assert store.record(client, MatchJob(match_id, result.game, seed, tuple(bots)), result, text, "0-1")
    return match_id


@pytest.fixture
def site(client: redis.Redis) -> Iterator[tuple[str, Any]]:
    """The leaderboard app over real HTTP; yields its URL and its source (with the renderer)."""
    app = leaderboard_app("", client)
    try:
        with browser.serving(app) as url:
            yield url, app.state.source
    finally:
        app.state.source.close()


def get(url: str, gzipped: bool = False) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"} if gzipped else {})
    with urllib.request.urlopen(request, timeout=ANSWER_S) as answer:
        return answer.status, {k.lower(): v for k, v in answer.headers.items()}, answer.read()


def expected(client: redis.Redis, match_id: str) -> Any:
    """Returns the match's frames computed in this process, as the page must show them."""
    text = store.replay_text(client, match_id)
    assert text is not None
    return rerun.replay_frames(text, None, match_id, bot_output=True)


def test_while_a_replay_is_being_rerun_the_other_pages_answer(
    site: tuple[str, Any], client: redis.Redis
) -> None:
    url, source = site
    status, _, _ = get(f"{url}/api/v1/matches/pnrz-rerun-1/replay")  # starts the re-running process
    assert status == 200
    (pid,) = source.renderer.pids()
    assert pid != os.getpid()
    assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, os.nice(0) + rerun.RERUN_NICE)
    answers: dict[str, Any] = {}
    asked = threading.Thread(
        target=lambda: answers.update(replay=get(f"{url}/api/v1/matches/pnrz-rerun-2/replay"))
    )
    os.kill(pid, signal.SIGSTOP)
    try:
        asked.start()
        for page in ("/api/v1/games", "/api/v1/games/pnrz/leaderboard", "/api/v1/matches?game=pnrz"):
            assert get(url + page)[0] == 200, page
        assert get(f"{url}/api/v1/matches/pnrz-rerun-1/replay")[0] == 200  # kept: no re-run needed
        assert asked.is_alive(), "the replay was re-run although the re-running process is stopped"
    finally:
        os.kill(pid, signal.SIGCONT)
    asked.join(ANSWER_S)
    status, headers, body = answers["replay"]
    assert status == 200 and headers["content-type"] == "application/json"
    assert json.loads(body) == expected(client, "pnrz-rerun-2")


def test_the_servers_rerunning_process_is_ready_before_the_first_replay_is_asked_for(
    client: redis.Redis,
) -> None:
    """``arena server`` starts it with the app (``warm=True``): the first viewer of a replay does not
    wait for an interpreter to start and import the engines (seconds on a machine busy with matches)."""
    app = server_app("", ServerConfig(), client, warm=True)
    source = app.state.source
    try:
        assert source.renderer.warming is not None  # started with the app, before any request
        pid = source.renderer.warming.result(ANSWER_S)
        assert source.renderer.pids() == [pid] and pid != os.getpid()
        with browser.serving(app) as url:
            status, _, body = get(f"{url}/api/v1/matches/ninjan-rerun-9/replay")
        assert status == 200 and json.loads(body) == expected(client, "ninjan-rerun-9")
        assert source.renderer.pids() == [pid] and source.renderer.renders == 1  # re-run in it
    finally:
        source.close()
    assert leaderboard_app("", client).state.source.renderer.warming is None  # a read-only app: at need


def test_a_killed_rerunning_process_is_replaced_at_the_next_replay(
    site: tuple[str, Any], client: redis.Redis
) -> None:
    url, source = site
    assert get(f"{url}/api/v1/matches/pnrz-rerun-3/replay")[0] == 200
    (pid,) = source.renderer.pids()
    os.kill(pid, signal.SIGKILL)
    status, _, body = get(f"{url}/api/v1/matches/pnrz-rerun-4/replay")
    assert status == 200 and json.loads(body) == expected(client, "pnrz-rerun-4")
    assert source.renderer.pids() not in ([], [pid])


def test_a_replay_is_served_gzipped_as_kept_or_plain(site: tuple[str, Any], client: redis.Redis) -> None:
    url, source = site
    status, headers, body = get(f"{url}/api/v1/matches/ninjan-rerun-9/replay", gzipped=True)
    assert status == 200 and headers["content-encoding"] == "gzip" and "Accept-Encoding" in headers["vary"]
    assert json.loads(gzip.decompress(body)) == expected(client, "ninjan-rerun-9")
    renders = source.renderer.renders
    status, headers, plain = get(f"{url}/api/v1/matches/ninjan-rerun-9/replay")
    assert status == 200 and "content-encoding" not in headers
    assert plain == gzip.decompress(body)
    assert source.renderer.renders == renders  # the second answer was the kept one
    with pytest.raises(urllib.error.HTTPError) as missing:
        get(f"{url}/api/v1/matches/no-such-match/replay")
    assert missing.value.code == 404


def test_the_kept_replays_are_bounded_by_bytes_least_recently_served_first(tmp_path: Path) -> None:
    text, _ = replay_of_random_game("ninjan", 3, ["a", "b"], "m")
    size = len(rerun.render(text, None, "m", True))
    renderer = rerun.Renderer(cache_bytes=int(size * 2.5), in_process=True)
    reads: list[str] = []

    def read(match_id: str) -> Any:
        return lambda: (reads.append(match_id), (text, None))[1]

    for match_id in ("a", "b", "a", "c", "a", "b"):
        assert json.loads(gzip.decompress(renderer.gzipped(match_id, read(match_id), True)))["frames"]
    # a, b kept; a served again (most recent); c evicts b; a kept; b re-read
    assert reads == ["a", "b", "c", "b"] and renderer.renders == 4
    too_big = rerun.Renderer(cache_bytes=size - 1, in_process=True)
    too_big.gzipped("a", read("a"), True)
    too_big.gzipped("a", read("a"), True)
    assert too_big.renders == 2  # larger than the whole cache: served, never kept


def test_a_replay_kept_as_its_decisions_is_regenerated_by_the_rerunning_process_not_the_servers(
    site: tuple[str, Any], client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regenerating a replay from its decisions is an engine re-run: done in the server's interpreter
    it held the GIL as the frames did (and filled its caches with every game's events), so the server
    hands the decisions to the re-running process, which regenerates and re-runs them."""
    match_id = record(client, "ninjan", 11)
    stored = replays.store_for(client).read(match_id, replays.REPLAY)
    assert stored is not None and replays.is_decisions_form(stored)
    url, _ = site
    with monkeypatch.context() as patched:

        def refuse(text: str) -> str:
            raise AssertionError("the server regenerated a replay in its own interpreter")

        patched.setattr(compact, "expand", refuse)
        status, _, body = get(f"{url}/api/v1/matches/{match_id}/replay")
    assert status == 200 and json.loads(body) == expected(client, match_id)
