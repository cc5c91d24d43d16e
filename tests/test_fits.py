"""The fitted ratings as recorded and served (issue 17): results recorded through the queue's own
recording script (``arena.queue.store.record``) land in the pair tables; a reader refits once per burst
(``arena.storage.fits``); ``arena leaderboard --json`` reflects every recorded result and equals an
independent refit of ``arena results --json``; a tournament's standings and crosstable come from its own
results only; provisional bots are ranked by their rating among the others, marked.

Against the private redis-server of ``tests.conftest`` (never the Redis on 6379).
"""

from __future__ import annotations

import json
import random
import shutil
import threading
from collections.abc import Mapping

import pytest
import redis

from arena.games.base import Termination
from arena.queue import keys, store
from arena.queue.jobs import MatchJob
from arena.ratings import PairTable, Placement, player_id, seating, standings, table_of, views
from arena.ratings.fit import fit
from arena.referee.record import MatchRecord
from arena.results import PlayerResult
from arena.storage import fits
from tests.conftest import run_arena

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")

VERSIONS = {"a": "aaaaaaaaaaaa", "b": "bbbbbbbbbbbb", "c": "cccccccccccc", "new": "dddddddddddd"}
SEATS = seating.records_seats("ninjan")  # whether its results are stored with their seats (issue 37)


def record_result(
    client: redis.Redis, match_id: str, ranks: Mapping[str, int], tournament: str = "", **versions: str
) -> None:
    """Records a match with the given finishing ranks (bot -> rank, in seat order) through the
    queue's recording script, as a worker does; every bot plays its ``VERSIONS`` entry unless
    ``versions`` names another."""
    bots = tuple(ranks)
    players = tuple(PlayerResult(seat, bot, 0, ranks[bot], False, 0) for seat, bot in enumerate(bots))
    record = MatchRecord(match_id, "ninjan", 1, players, Termination.NORMAL, 10)
    played = tuple(versions.get(b, VERSIONS[b]) for b in bots)
    job = MatchJob(match_id, "ninjan", 1, bots, tournament=tournament, versions=played)
    assert store.record(client, job, record, "{}\n", "0-1")


def record_random(client: redis.Redis, count: int, seed: int, start: int = 0) -> None:
    """Records ``count`` seeded matches of 2 or 3 seats among a, b, c (a strongest)."""
    rng = random.Random(seed)
    strength = {"a": 2.0, "b": 1.0, "c": 0.0}
    for i in range(start, start + count):
        seated = rng.sample(sorted(strength), rng.choice([2, 3]))
        order = sorted(seated, key=lambda b: -(strength[b] + rng.gauss(0, 1.5)))
        record_result(client, f"m{i}", {b: order.index(b) + 1 for b in seated})


def test_a_burst_of_results_is_refitted_once_and_every_read_reflects_every_result(
    client: redis.Redis,
) -> None:
    source = fits.game_source("ninjan")
    record_random(client, 30, seed=1)
    views_read = [fits.view(client, source) for _ in range(3)]
    assert fits.refits(client, source) == 1
    assert all(v == views_read[0] for v in views_read) and views_read[0]["matches"] == 30
    for extra in range(3):  # a read after each new result sees it: one refit per read
        record_random(client, 1, seed=2 + extra, start=30 + extra)
        assert fits.view(client, source)["matches"] == 31 + extra
    assert fits.refits(client, source) == 4
    # threads of one process asking at once after a burst: one refit between them; a thread that
    # finds it under way is answered with the last view stored (33 matches), never a third one
    record_random(client, 10, seed=9, start=40)
    seen: list[dict] = []
    readers = [threading.Thread(target=lambda: seen.append(fits.view(client, source))) for _ in range(4)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    assert fits.refits(client, source) == 5 and 43 in [v["matches"] for v in seen]
    assert {v["matches"] for v in seen} <= {33, 43}
    # the served view is the fit of every stored placement, whatever their order
    stored = [store.rated_placements(m) for m in store.iter_results(client, "ninjan")]
    random.Random(0).shuffle(stored)
    latest = {bot: VERSIONS[bot] for bot in "abc"}
    expected = json.loads(json.dumps(views.leaderboard(table_of(stored, SEATS), latest)))
    bots = expected.pop("bots")
    assert fits.view(client, source) == {"matches": 43, **expected}
    assert fits.view(client, source, fits.bot_part("a")) == bots["a"] and fits.refits(client, source) == 5
    assert [r["bot"] for r in fits.view(client, source)["rows"]] == ["a", "b", "c"]


def test_a_reader_finding_a_refit_under_way_gets_the_last_view_at_once_not_after_it(
    client: redis.Redis,
) -> None:
    source = fits.game_source("ninjan")
    record_random(client, 12, seed=3)
    before = fits.view(client, source)
    record_random(client, 3, seed=4, start=12)
    refitting = fits._lock(source.name)  # what a thread refitting this source holds
    with refitting:
        during = fits.view(client, source)
        bot_during = fits.view(client, source, fits.bot_part("a"))
    assert during == before and during["matches"] == 12 and bot_during is not None
    assert fits.refits(client, source) == 1  # nothing refitted while the other thread held it
    assert fits.view(client, source)["matches"] == 15 and fits.refits(client, source) == 2


def test_arena_results_refits_to_the_numbers_of_arena_leaderboard(
    client: redis.Redis, redis_url: str
) -> None:
    record_random(client, 25, seed=3)
    record_result(client, "b-new", {"b": 1, "c": 2}, b="eeeeeeeeeeee")  # b's latest version
    results = run_arena("results", "ninjan", "--json", "--redis", redis_url)
    board = run_arena("leaderboard", "ninjan", "--json", "--redis", redis_url)
    assert results.returncode == 0 and board.returncode == 0, results.stderr + board.stderr
    matches = [json.loads(line) for line in results.stdout.splitlines()]
    assert [m["match_id"] for m in matches] == [f"m{i}" for i in range(25)] + ["b-new"]
    table = table_of(
        ([Placement(player_id(p["bot"], p["version"]), p["rank"]) for p in m["players"]] for m in matches),
        SEATS,
    )
    latest = {p["bot"]: player_id(p["bot"], p["version"]) for m in matches for p in m["players"]}
    rows = [s.to_json() for s in standings(fit(table), list(latest.values()))]
    assert json.loads(board.stdout) == rows
    assert {r["bot"]: r["version"] for r in rows} == {
        "a": VERSIONS["a"],
        "b": "eeeeeeeeeeee",
        "c": VERSIONS["c"],
    }
    assert set(rows[0]) == {
        "rank",
        "bot",
        "version",
        "elo",
        "low",
        "high",
        "games",
        "provisional",
        "los_next",
        "los_next_established",
    }
    # a bot's every version is rated, and shown on its page's data
    versions = fits.view(client, fits.game_source("ninjan"), fits.bot_part("b"))["versions"]
    assert sorted(v["version"] for v in versions) == sorted(["bbbbbbbbbbbb", "eeeeeeeeeeee"])


def test_tournament_standings_and_crosstable_count_only_its_own_results(
    client: redis.Redis, redis_url: str
) -> None:
    store.save_tournament(
        client, "t1", {"game": "ninjan", "format": "round-robin", "bots": "a,b,c", "total": 5}
    )
    known = [{"a": 1, "b": 2}, {"a": 1, "b": 2}, {"b": 1, "a": 2}, {"a": 1, "c": 1}, {"c": 1, "b": 2, "a": 3}]
    for i, ranks in enumerate(known):
        record_result(client, f"t1-{i}", ranks, tournament="t1")
    record_result(client, "outside", {"c": 1, "a": 2})  # a match of the game, not of the tournament
    shown = fits.tournament_standings(client, "t1")
    assert shown is not None and (shown["matches"], shown["total"], shown["game"]) == (5, 5, "ninjan")
    expected = table_of(
        ([Placement(player_id(b, VERSIONS[b]), r) for b, r in ranks.items()] for ranks in known), SEATS
    )
    assert shown["rows"] == [s.to_json() for s in standings(fit(expected))]
    cross = {line["bot"]: {c["bot"]: c for c in line["against"]} for line in shown["crosstable"]}
    assert {k: cross["a"]["b"][k] for k in ("wins", "draws", "losses", "score")} == {
        "wins": 2,
        "draws": 0,
        "losses": 2,
        "score": 2.0,
    }
    assert (cross["a"]["c"]["draws"], cross["a"]["c"]["losses"], cross["c"]["b"]["wins"]) == (1, 1, 1)
    totals = {line["bot"]: (line["score"], line["games"]) for line in shown["crosstable"]}
    assert totals == {"a": (2.5, 6), "b": (2.0, 5), "c": (2.5, 3)}
    assert fits.view(client, fits.game_source("ninjan"))["matches"] == 6  # the game counts all six
    text = run_arena("tournament", "standings", "t1", "--redis", redis_url)
    assert text.returncode == 0, text.stderr
    assert "crosstable" in text.stdout and "2-0-2" in text.stdout and "5 of 5 matches" in text.stdout
    assert fits.tournament_standings(client, "nosuch") is None


def in_seats(ranks: dict[str, int], match: int) -> dict[str, int]:
    """Returns ``ranks`` with its seats in the order given for even matches, swapped for odd ones."""
    return ranks if match % 2 == 0 else dict(reversed(ranks.items()))


def test_provisional_bots_are_ranked_by_their_rating_and_marked(
    client: redis.Redis,
) -> None:
    for i in range(40):  # each pair in both seatings, as a schedule plays them
        record_result(client, f"ab{i}", in_seats({"a": 1 if i % 3 else 2, "b": 2 if i % 3 else 1}, i))
        record_result(client, f"bc{i}", in_seats({"b": 1 if i % 3 else 2, "c": 2 if i % 3 else 1}, i))
        record_result(client, f"ac{i}", in_seats({"a": 1 if i % 4 else 2, "c": 2 if i % 4 else 1}, i))
    record_result(client, "lucky-1", {"new": 1, "a": 2})
    record_result(client, "lucky-2", {"new": 1, "b": 2})
    rows = fits.view(client, fits.game_source("ninjan"))["rows"]
    assert [(r["bot"], r["provisional"]) for r in rows] == [
        ("new", True),  # rated highest, on luck: first, and marked
        ("a", False),
        ("b", False),
        ("c", False),
    ]
    assert rows[0]["games"] == 2
    assert rows[-1]["los_next"] is None and all(r["los_next"] > 0.5 for r in rows[:-1])


def test_a_view_cached_before_the_weights_is_refitted_once(client: redis.Redis) -> None:
    """Issue 37: a view cached by an older arena (no ``format``) reflects the same count of matches
    but the old fit; it is refitted on the first read (with the draw ratio), and then served."""
    record_random(client, 12, seed=4)
    source = fits.game_source("ninjan")
    fresh = fits.view(client, source)
    assert fresh is not None and "draw_ratio" in fresh
    old = {k: v for k, v in fresh.items() if k != "draw_ratio"}
    client.hset(keys.fit("ninjan"), mapping={"view": json.dumps(old)})
    client.hdel(keys.fit("ninjan"), "format")
    refits = fits.refits(client, source)
    assert fits.view(client, source) == fresh
    assert fits.refits(client, source) == refits + 1
    assert fits.view(client, source) == fresh and fits.refits(client, source) == refits + 1


def test_a_game_with_a_seat_advantage_records_the_seats_and_fits_them(
    client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 37: ninja-burger is listed in ``arena.ratings.seating``: its pairwise results are stored
    with the seats held, and its fit has a seat advantage; a game not listed (ninjan, taken off the
    list here: all four games are listed) stores its results without seats, as before."""
    monkeypatch.setattr(seating, "SEAT_ADVANTAGE", seating.SEAT_ADVANTAGE - {"ninjan"})
    for i, (ranks, game) in enumerate(
        [((1, 2, 3), "ninja-burger"), ((2, 1), "ninja-burger"), ((1, 2), "ninjan")]
    ):
        bots = ("a", "b", "c")[: len(ranks)]
        players = tuple(
            PlayerResult(s, b, 0, r, False, 0) for s, (b, r) in enumerate(zip(bots, ranks, strict=True))
        )
        job = MatchJob(f"s{i}", game, 1, bots, versions=tuple(VERSIONS[b] for b in bots))
        assert store.record(
            client, job, MatchRecord(f"s{i}", game, 1, players, Termination.NORMAL, 10), "{}\n", "0-1"
        )
    a, b, c = (player_id(x, VERSIONS[x]) for x in "abc")
    burger = client.hgetall(keys.pairs("ninja-burger"))
    assert {f"{a}>{b}/3/0.1", f"{a}>{c}/3/0.2", f"{b}>{c}/3/1.2", f"{b}>{a}/2/1.0"} <= set(burger)
    assert set(client.hgetall(keys.pairs("ninjan"))) == {a, b, f"{a}>{b}"}
    fitted = fit(PairTable.from_fields(burger))
    assert set(fitted.seat_advantage) == {"2:1", "3:1", "3:2"}
