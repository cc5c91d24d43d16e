"""``arena storage migrate`` on a Redis filled the way recording worked before the replay store, and
the ``arena storage`` / ``arena replay --redis`` commands as a user runs them (new processes)."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest
import redis

from arena.games import GAMES
from arena.queue import keys, store
from arena.queue.jobs import MatchJob, enqueue
from arena.ratings import seating
from arena.ratings.fit import fit
from arena.ratings.pairs import PairTable
from arena.referee.replay import first_difference, parse_lines, reproduce
from arena.storage import migrate, replays
from arena.testing.legacy import old_record
from tests.conftest import replay_of_random_game, run_arena
from tests.test_replay_store import kind_of_store, record_random  # noqa: F401 (a fixture)

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")


def fill_the_old_way(client: redis.Redis) -> dict[str, str]:
    """Enqueues and records one match per game the old way; returns replay text by match id."""
    texts = {}
    for n, game in enumerate(GAMES):
        job = MatchJob(f"old-{game}", game, 70 + n, ("a", "b", "c"), tournament="t0")
        enqueue(client, job)
        texts[job.match_id], _ = replay_of_random_game(game, job.seed, list(job.bots), job.match_id)
        old_record(client, job, texts[job.match_id])
    return texts


def test_migration_moves_old_replays_into_the_store_once(client: redis.Redis, kind_of_store: str) -> None:  # noqa: F811
    texts = fill_the_old_way(client)
    old_memory = sum(client.memory_usage(keys.replay(m)) for m in texts)
    report = migrate.migrate(client)
    assert (report.replays, report.results, report.jobs) == (4, 4, 4)
    assert report.old_bytes == sum(len(t.encode()) for t in texts.values())
    for match_id, text in texts.items():
        stored = store.replay_text(client, match_id)
        assert stored == text and first_difference(stored, reproduce(parse_lines(stored)).text) is None
        result = store.result_fields(client.get(keys.result(match_id)))
        assert "replay_lines" not in result and result["replay_sha256"] == replays.digest(text)
        assert result["recorded_at"] > 0 and result["players"][0]["bot"] == "a"
        raw = json.loads(client.get(keys.result(match_id)))  # the one shape recording writes, too
        assert "winner" not in raw and all("seat" not in p for p in raw["players"])
        assert client.hgetall(keys.job(match_id)) == {"status": "recorded"}
    assert client.keys(keys.replay("*")) == []
    stored_memory = sum(client.memory_usage(keys.stored(m)) or 0 for m in texts)
    assert stored_memory < old_memory / 5
    assert migrate.migrate(client) == migrate.MigrationReport()  # idempotent: nothing left to do


def test_an_interrupted_migration_is_finished_by_a_rerun(client: redis.Redis, kind_of_store: str) -> None:  # noqa: F811
    texts = fill_the_old_way(client)
    first = next(iter(texts))
    replays.store_for(client).put(first, replays.REPLAY, texts[first].encode())  # put, then it died
    assert migrate.migrate(client).replays == 4
    assert all(store.replay_text(client, m) == t for m, t in texts.items())


def as_json(value: object) -> str:
    """Returns ``value`` as a replay line writes it (compact, characters unescaped)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def test_replay_cli_tells_the_recorded_file_from_an_edited_one(
    client: redis.Redis,
    redis_url: str,
    tmp_path: Path,
    kind_of_store: str,  # noqa: F811
) -> None:
    text = record_random(client, "ninjan", 2, 5, "t1-cli")
    fetched = tmp_path / "t1-cli.jsonl"
    run = run_arena("storage", "replay", "t1-cli", "-o", str(fetched), "--redis", redis_url)
    assert run.returncode == 0, run.stderr
    assert fetched.read_text() == text
    same = run_arena("replay", "-q", str(fetched), "--redis", redis_url)
    assert same.returncode == 0, same.stderr
    assert "reproduce byte for byte; matches the platform's record of match t1-cli" in same.stdout
    forged = tmp_path / "forged.jsonl"  # bot1's win given to another name: still self-consistent
    forged.write_text(text.replace('"bot":"bot1"', '"bot":"evil"'))
    assert forged.read_text() != text
    local = run_arena("replay", "-q", str(forged), env={"ARENA_REDIS_URL": ""})
    assert local.returncode == 0 and "replay verified" in local.stdout  # no platform named: not checked
    edited = run_arena("replay", "-q", str(forged), "--redis", redis_url)
    assert edited.returncode == 1 and "replay verified" not in edited.stdout
    assert "differs from the platform's record of match t1-cli: it was edited" in edited.stderr
    missing = run_arena("storage", "replay", "nope", "--redis", redis_url)
    assert missing.returncode == 2 and "no replay is stored for match 'nope'" in missing.stderr
    # A replay the platform never recorded is not verified against it, however well it reproduces:
    # another id, or the recorded id with a trailing invisible character (a look-alike).
    for forged_id, says in (
        ("t1-cli-2", "has no record of match t1-cli-2: it did not record it"),
        ("t1-cli\u200b", "it names no match the platform could have recorded"),
        ("t1-cl\u0456", "it names no match the platform could have recorded"),
    ):
        renamed = tmp_path / "renamed.jsonl"
        renamed.write_text(text.replace('"match_id":"t1-cli"', as_json({"match_id": forged_id})[1:-1], 1))
        unknown = run_arena("replay", "-q", str(renamed), "--redis", redis_url)
        assert unknown.returncode == 1, (forged_id, unknown.stdout, unknown.stderr)
        assert "replay verified" not in unknown.stdout and says in unknown.stderr, unknown.stderr


def test_storage_commands_set_show_and_apply_retention(client: redis.Redis, redis_url: str) -> None:
    for i in range(3):
        record_random(client, "ninjan", 2, 20 + i, f"t1-r{i}")
    run = run_arena("storage", "retention", "--replays-per-bot", "1", "--redis", redis_url)
    assert run.returncode == 0 and "each bot's last 1 matches" in run.stdout
    run = run_arena("storage", "retention", "--replay-days", "9", "--redis", redis_url)
    assert "for 9 days and while among each bot's last 1 matches" in run.stdout  # the other one kept
    swept = run_arena("storage", "sweep", "--redis", redis_url)
    assert swept.returncode == 0 and "2 beyond the last per bot" in swept.stdout
    assert [store.replay_text(client, f"t1-r{i}") is None for i in range(3)] == [True, True, False]
    bad = run_arena("storage", "retention", "--replay-days", "-3", "--redis", redis_url)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--replay-days" in bad.stderr


def test_migration_indexes_old_matches_ahead_of_new_ones_in_each_bots_list(client: redis.Redis) -> None:
    """Bot pages and head to head read ``keys.bot_matches``: matches recorded before those lists
    existed are put at their heads, oldest first, ahead of a match recorded since the upgrade."""
    fill_the_old_way(client)  # bots a, b, c: one old match per game
    new_job = MatchJob("new-ninjan", "ninjan", 90, ("a", "b"))
    enqueue(client, new_job)
    text, match = replay_of_random_game("ninjan", 90, ["a", "b"], "new-ninjan")
    assert store.record(client, new_job, match, text, "0-1")
    assert client.lrange(keys.bot_matches("ninjan", "a"), 0, -1) == ["new-ninjan"]
    report = migrate.migrate(client)
    assert report.indexed == 4
    assert client.lrange(keys.bot_matches("ninjan", "a"), 0, -1) == ["old-ninjan", "new-ninjan"]
    assert client.lrange(keys.bot_matches("ninjan", "c"), 0, -1) == ["old-ninjan"]
    assert client.lrange(keys.bot_matches("pnrz", "b"), 0, -1) == ["old-pnrz"]
    assert migrate.migrate(client).indexed == 0  # a rerun indexes nothing twice
    assert client.llen(keys.bot_matches("ninjan", "a")) == 2


def test_migration_counts_the_pair_table_of_results_recorded_before_pair_tables(client: redis.Redis) -> None:
    """Results recorded before pair tables existed (no version, no pair table, no counter) get their
    pair table from the migration, the same as recording would have counted, and then a rating."""
    placements = [
        {"match_id": "m1", "players": [{"bot": "a", "rank": 1}, {"bot": "b", "rank": 2}]},
        {"match_id": "m2", "players": [{"bot": "b", "rank": 1}, {"bot": "a", "rank": 1}]},
        {
            "match_id": "m3",
            "players": [{"bot": "a", "rank": 1}, {"bot": "b", "rank": 2}, {"bot": "c", "rank": 3}],
        },
    ]
    client.rpush(keys.results("ninjan"), *(json.dumps(p) for p in placements))
    report = migrate.migrate(client)
    assert report.pair_tables == 1
    assert client.hgetall(keys.pairs("ninjan")) == {
        "a": "3",
        "b": "3",
        "c": "1",
        # with the table size and the seats held, ninjan having a seat advantage (issue 37)
        "a>b/2/0.1": "1",
        "a=b/2/1.0": "1",  # a draw, a's seat first
        "a>b/3/0.1": "1",
        "a>c/3/0.2": "1",
        "b>c/3/1.2": "1",
    }
    assert client.get(keys.rating_updates("ninjan")) == "3"
    assert migrate.migrate(client).pair_tables == 0  # whole now: not counted twice
    job = MatchJob("m4", "ninjan", 4, ("a", "b"))
    enqueue(client, job)
    text, match = replay_of_random_game("ninjan", 4, ["a", "b"], "m4")
    assert store.record(client, job, match, text, "0-1")
    assert client.hget(keys.pairs("ninjan"), "a") == "4" and migrate.migrate(client).pair_tables == 0


def test_migration_gives_results_counted_before_the_weights_their_weight_once(
    client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 37: a pair table counted before the weights read a 3-seat match's pairs as duels
    (weight 1, the overconfident intervals); until migrated it is fitted as before (the fallback),
    and the migration recounts it once from the results, each result with the weight it lacks. For a
    game without a seat advantage (ninjan taken off the list here: a listed game's recount carries
    the seats, as the test above shows)."""
    monkeypatch.setattr(seating, "SEAT_ADVANTAGE", seating.SEAT_ADVANTAGE - {"ninjan"})
    placements = [
        {
            "match_id": f"m{k}",
            "players": [{"bot": b, "rank": r} for b, r in zip(order, (1, 2, 3), strict=True)],
        }
        for k, order in enumerate(["abc", "bca", "cab", "abc", "acb", "bac"] * 5)
    ]
    client.rpush(keys.results("ninjan"), *(json.dumps(p) for p in placements))
    for p in placements:  # counted as recording counted them before the weights: no deficit
        for bot_a, bot_b in itertools.combinations(p["players"], 2):
            winner, loser = (bot_a, bot_b) if bot_a["rank"] < bot_b["rank"] else (bot_b, bot_a)
            old_field = f"{winner['bot']}>{loser['bot']}"
            client.hincrby(keys.pairs("ninjan"), old_field, 1)
        for bot in p["players"]:
            client.hincrby(keys.pairs("ninjan"), bot["bot"], 1)
    client.set(keys.rating_updates("ninjan"), len(placements))
    before = fit(PairTable.from_fields(client.hgetall(keys.pairs("ninjan"))))  # read as duels
    assert migrate.migrate(client).pair_tables == 1
    after = fit(PairTable.from_fields(client.hgetall(keys.pairs("ninjan"))))
    fields = client.hgetall(keys.pairs("ninjan"))
    deficits = {f.removesuffix("/w"): int(n) for f, n in fields.items() if f.endswith("/w")}
    assert deficits == {f: 35 * int(n) for f, n in fields.items() if ">" in f and "/" not in f}
    assert after.sd("a") == pytest.approx(before.sd("a") * 2 / 3**0.5, rel=0.05)  # weight 3/4
    assert migrate.migrate(client).pair_tables == 0  # once
