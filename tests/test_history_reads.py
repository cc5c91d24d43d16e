"""Reads in proportion to what is shown: the match list, a bot's matches, head to head and ``arena
results`` page through the history with cursors, and no page reads the whole of it.

Matches are recorded through the queue's own recording function (``arena.queue.store.record``, as a
worker does) into a private redis-server (conftest's ``client``, never the Redis on 6379). What a
page reads is checked by counting, on a client that notes every command it sends, the list entries
and results it fetched.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from typing import Any

import pytest
import redis

from arena.games.base import Termination
from arena.queue import keys, store
from arena.queue.jobs import MatchJob
from arena.referee.record import MatchRecord
from arena.results import PlayerResult
from leaderboard import data
from leaderboard.app import leaderboard_app as create_app
from tests.conftest import REPO

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")

BOTS = ["ann", "bob", "cy", "dee", "eve"]


def record(client: redis.Redis, game: str, match_id: str, bots: list[str]) -> None:
    """Records a match of ``bots`` (seat order = finishing order) through the real recording path."""
    players = tuple(PlayerResult(seat, bot, 10 - seat, seat + 1, False, 0) for seat, bot in enumerate(bots))
    match = MatchRecord(match_id, game, 1, players, Termination.NORMAL, 12)
    job = MatchJob(match_id, game, 1, tuple(bots), versions=("v1",) * len(bots))
    assert store.record(client, job, match, '{"type":"header"}\n', "0-1")


def record_many(
    client: redis.Redis, game: str, count: int, seed: int = 0, prefix: str = ""
) -> list[list[str]]:
    """Records ``count`` matches of 2 or 3 random distinct bots; returns each match's bots, in order."""
    rng = random.Random(seed)
    seats = []
    for n in range(count):
        bots = rng.sample(BOTS, rng.choice((2, 3)))
        record(client, game, f"{prefix}{game}-{n}", bots)
        seats.append(bots)
    return seats


class Counting(redis.Redis):
    """A client that counts the list entries (LRANGE) and results (MGET) its direct commands fetch."""

    entries = 0
    results = 0

    def execute_command(self, *args: Any, **options: Any) -> Any:
        reply = super().execute_command(*args, **options)
        if args[0] == "LRANGE":
            self.entries += len(reply)
        elif args[0] == "MGET":
            self.results += len(reply)
        return reply


def counting(client: redis.Redis) -> Counting:
    return Counting(connection_pool=client.connection_pool)


def walk(fetch: Any) -> list[dict]:
    """Returns every match of a paged list, following ``next`` from the first page."""
    shown, after = [], None
    while True:
        page = fetch(after)
        shown += page["matches"]
        after = page["next"]
        if after is None:
            return shown


@pytest.fixture
def api(client: redis.Redis, redis_url: str) -> Any:
    from starlette.testclient import TestClient

    with TestClient(create_app(redis_url)) as test_client:
        yield test_client


def test_game_pages_walk_the_list_newest_first_and_stay_put_while_matches_arrive(
    client: redis.Redis, api: Any
) -> None:
    record_many(client, "ninjan", 25)
    record_many(client, "pnrz", 7)
    first = api.get("/api/v1/matches", params={"game": "ninjan", "limit": 4}).json()
    assert [m["match_id"] for m in first["matches"]] == [f"ninjan-{n}" for n in (24, 23, 22, 21)]
    assert [m["number"] for m in first["matches"]] == [25, 24, 23, 22]
    record(client, "ninjan", "ninjan-late", ["ann", "bob"])  # a new match does not shift the pages
    rest = walk(
        lambda c: api.get("/api/v1/matches", params={"game": "ninjan", "limit": 4, "after": c}).json()
    )
    assert [m["match_id"] for m in rest] == ["ninjan-late", *(f"ninjan-{n}" for n in range(24, -1, -1))]
    second = api.get("/api/v1/matches", params={"game": "ninjan", "limit": 4, "after": first["next"]})
    assert [m["match_id"] for m in second.json()["matches"]] == [f"ninjan-{n}" for n in (20, 19, 18, 17)]
    every = walk(lambda c: api.get("/api/v1/matches", params={"limit": 6, "after": c}).json())
    pnrz = [f"pnrz-{n}" for n in range(6, -1, -1)]
    assert [m["match_id"] for m in every] == [m["match_id"] for m in rest] + pnrz  # game by game
    assert every[0]["players"][0]["bot"] in BOTS and every[-1]["game"] == "pnrz"


def test_a_bots_pages_come_from_its_own_list_and_read_only_what_they_show(
    client: redis.Redis, api: Any
) -> None:
    seats = record_many(client, "ninjan", 300, seed=3)
    theirs = [f"ninjan-{n}" for n, bots in enumerate(seats) if "cy" in bots][::-1]
    shown = walk(
        lambda c: api.get(
            "/api/v1/matches", params={"game": "ninjan", "bot": "cy", "limit": 7, "after": c}
        ).json()
    )
    assert [m["match_id"] for m in shown] == theirs
    assert [m["number"] for m in shown] == list(range(len(theirs), 0, -1))
    reader = counting(client)
    page = data.matches(reader, "ninjan", "cy", 7)
    assert len(page.items) == 7 and reader.entries == 7 and reader.results == 7
    deep = data.matches(reader, "ninjan", "cy", 7, f"ninjan:{len(theirs) // 2}")
    assert [m["match_id"] for m in deep.items] == theirs[len(theirs) - len(theirs) // 2 :][:7]
    assert reader.entries == 14 and reader.results == 14
    bot = api.get("/api/v1/games/ninjan/bots/cy", params={"limit": 5}).json()
    assert [m["match_id"] for m in bot["recent"]] == theirs[:5]
    more = api.get("/api/v1/matches", params={"game": "ninjan", "bot": "cy", "after": bot["recent_next"]})
    assert more.json()["matches"][0]["match_id"] == theirs[5]
    assert api.get("/api/v1/matches", params={"bot": "nobody"}).json() == {"matches": [], "next": None}


def test_head_to_head_walks_the_shorter_list_a_bounded_stretch_per_page(
    client: redis.Redis, api: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    seats = record_many(client, "ninjan", 120, seed=5)
    for n in range(30):  # ann plays much more than dee
        record(client, "ninjan", f"extra-{n}", ["ann", "bob"])
    met = [f"ninjan-{n}" for n, bots in enumerate(seats) if {"ann", "dee"} <= set(bots)][::-1]
    params = {"a": "ann", "b": "dee", "limit": 3}
    pair = api.get("/api/v1/games/ninjan/head-to-head", params=params).json()
    assert pair["walked"] == {"bot": "dee", "matches": client.llen(keys.bot_matches("ninjan", "dee"))}
    record_row = next(
        r for r in api.get("/api/v1/games/ninjan/bots/ann").json()["head_to_head"] if r["opponent"] == "dee"
    )
    assert pair["record"] == record_row and record_row["games"] == len(met)
    assert 0 < pair["expected"] < 1
    shown = walk(lambda c: api.get("/api/v1/games/ninjan/head-to-head", params={**params, "after": c}).json())
    assert [m["match_id"] for m in shown] == met
    monkeypatch.setattr(data, "H2H_SCAN", 4)  # a pair that rarely meets: pages of at most 4 ids read
    reader = counting(client)
    pages = []
    found = walk(
        lambda c: pages.append(data.head_to_head(reader, "ninjan", ("ann", "dee"), 50, c)) or pages[-1]
    )
    assert [m["match_id"] for m in found] == met
    assert all(p["scanned"] <= 4 for p in pages) and reader.results == pair["walked"]["matches"]
    assert pages[-1]["unread"] == 0 and len(pages) == -(-pair["walked"]["matches"] // 4)


@pytest.mark.parametrize(
    ("path", "params", "says"),
    [
        ("/api/v1/matches", {"limit": "0"}, "?limit= must be from 1 to 500"),
        ("/api/v1/matches", {"limit": "501"}, "?limit= must be"),
        ("/api/v1/matches", {"limit": "ten"}, "?limit= must be"),
        ("/api/v1/matches", {"limit": "\u00b2"}, "?limit= must be"),
        ("/api/v1/matches", {"after": "ninjan:\u00b2"}, "malformed page position"),
        ("/api/v1/matches", {"after": "garbage"}, "malformed page position 'garbage'"),
        ("/api/v1/matches", {"game": "ninjan", "after": "pnrz:3"}, "malformed page position"),
        ("/api/v1/matches", {"after": "ninjan:-1"}, "malformed page position"),
        ("/api/v1/matches", {"after": "ninjan:" + "9" * 40}, "malformed page position"),
        ("/api/v1/games/ninjan/head-to-head", {"a": "ann"}, "name two different bots"),
        ("/api/v1/games/ninjan/head-to-head", {"a": "ann", "b": "ann"}, "name two different bots"),
        (
            "/api/v1/games/ninjan/head-to-head",
            {"a": "ann", "b": "bob", "after": "2:4"},
            "malformed page position",
        ),
        ("/api/v1/games/ninjan/bots/ann", {"limit": "-3"}, "?limit= must be"),
    ],
)
def test_bad_page_parameters_get_one_line_saying_what_to_send(
    client: redis.Redis, api: Any, path: str, params: dict, says: str
) -> None:
    record_many(client, "ninjan", 3)
    response = api.get(path, params=params)
    assert response.status_code == 400 and says in response.json()["error"]
    assert "\n" not in response.json()["error"]


def test_unknown_bots_and_games_are_404(client: redis.Redis, api: Any) -> None:
    record_many(client, "ninjan", 3)
    assert api.get("/api/v1/games/ninjan/head-to-head", params={"a": "ann", "b": "nobody"}).status_code == 404
    assert api.get("/api/v1/games/nosuch/head-to-head", params={"a": "ann", "b": "bob"}).status_code == 404
    assert api.get("/api/v1/matches", params={"game": "nosuch"}).status_code == 404


def test_arena_results_json_into_head_stops_early_and_quietly(client: redis.Redis, redis_url: str) -> None:
    """20 pages of results; ``| head -n 3`` reads three lines: no traceback, exit 0, and arena stops
    after the page or two its pipe could hold (Redis counts the LRANGE calls)."""
    placements = [
        {"match_id": f"m{n}", "players": [{"bot": "a", "version": "", "rank": 1}]} for n in range(20_000)
    ]
    for start in range(0, len(placements), 5000):
        client.rpush(keys.results("ninjan"), *(json.dumps(p) for p in placements[start : start + 5000]))
    client.config_resetstat()
    arena = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "results", "ninjan", "--json", "--redis", redis_url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    head = subprocess.run(["head", "-n", "3"], stdin=arena.stdout, capture_output=True, text=True, check=True)
    arena.stdout.close()
    assert arena.wait(timeout=60) == 0 and arena.stderr.read() == b""
    assert [json.loads(line)["match_id"] for line in head.stdout.splitlines()] == ["m0", "m1", "m2"]
    calls = client.info("commandstats").get("cmdstat_lrange", {}).get("calls", 0)
    assert 1 <= calls <= 3


@pytest.mark.e2e
@pytest.mark.parametrize(("store_kind", "matches"), [("redis", 400), ("folder", 400)])
def test_storage_bench_reports_memory_store_bytes_and_every_page(
    tmp_path: Any, store_kind: str, matches: int
) -> None:
    """bench/storage_bench.py at a small count: the figures of every checkpoint and the ratios (no
    timing is asserted: the machine is shared; the full run is for measuring)."""
    figures = storage_bench(tmp_path, "--matches", str(matches), "--store", store_kind, "--repeats", "2")
    assert [c["matches"] for c in figures["checkpoints"]] == [matches // 100, matches // 10, matches]
    pages = {
        "home",
        "game",
        "bot",
        "head_to_head",
        "matches",
        "matches_of_bot",
        "matches_deep_page",
        "replay",
    }
    for point in figures["checkpoints"]:
        assert set(point["pages_ms"]) == pages and all(v > 0 for v in point["pages_ms"].values())
        assert point["redis_bytes_per_match"] > 0 and point["results_head_ms"] > 0 and point["refit_ms"] > 0
        assert point["store_bytes_per_match"]["stored"] > 0
    assert (figures["checkpoints"][-1]["matches_per_s"] or 0) > 0
    assert set(figures["ratios"]) == pages | {"results_head"}
    assert figures["replay_bytes_mean"] > 1000 and figures["bots"] == 100
    if store_kind == "folder":
        assert (
            "folder" in figures["replays"].lower()
            and figures["checkpoints"][-1]["store_bytes_per_match"]["disk"] > 0
        )


@pytest.mark.e2e
def test_storage_bench_pack_once_stores_the_same_bytes_as_packing_every_match(tmp_path: Any) -> None:
    """--pack-once (the million-match run's engine re-runs done once per template) stores exactly
    what the recording path stores when it packs every match itself."""
    stored = []
    for extra in ([], ["--pack-once"]):
        figures = storage_bench(tmp_path, "--matches", "300", "--repeats", "1", *extra)
        stored.append([c["store_bytes_per_match"]["stored"] for c in figures["checkpoints"]])
    assert stored[0] == stored[1] and len(stored[0]) == 3


def storage_bench(tmp_path: Any, *argv: str) -> dict[str, Any]:
    """Runs bench/storage_bench.py with ``argv``; returns its figures (checked to be what it printed)."""
    out = tmp_path / "storage.json"
    done = subprocess.run(
        [sys.executable, "bench/storage_bench.py", *argv, "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(out.read_text())
    assert figures == json.loads(done.stdout)
    return figures


def test_head_to_head_finds_bots_whose_names_need_escaping(client: redis.Redis, api: Any) -> None:
    odd = 'q"uo\\te é <b>'
    record(client, "ninjan", "odd-1", [odd, "ann"])
    record(client, "ninjan", "odd-2", ["bob", odd])
    record(client, "ninjan", "odd-3", ["ann", "bob", odd])
    pair = api.get("/api/v1/games/ninjan/head-to-head", params={"a": "ann", "b": odd}).json()
    assert [m["match_id"] for m in pair["matches"]] == ["odd-3", "odd-1"] and pair["record"]["games"] == 2
