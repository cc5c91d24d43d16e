"""The replay store (arena.storage.replays), recording through it (arena.queue.store), retention
(arena.storage.retention), against a private redis-server and tmp folders; never the Redis on 6379."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import threading
import time
import zlib
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import redis
import zstandard

from arena.games import GAMES, folder_of
from arena.queue import keys, store
from arena.queue.connection import connect
from arena.queue.jobs import MAX_ATTEMPTS, MatchJob, enqueue, load_job
from arena.queue.worker import Worker, WorkerConfig
from arena.referee.replay import first_difference, parse_lines, reproduce
from arena.storage import dictionaries, replays, retention
from arena.storage.replays import FolderStore, RedisStore, ReplayStoreError
from tests import test_queue_faults as faults
from tests.conftest import Gate, RedisServer, replay_of_random_game
from tests.test_queue_faults import _stop_leftover_tournaments, gate, server  # noqa: F401 (fixtures)

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")


@pytest.fixture(params=["redis", "folder"])
def kind_of_store(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs a test once with each store, as ``ARENA_REPLAY_STORE`` selects it."""
    if request.param == "folder":
        monkeypatch.setenv(replays.ENV_STORE, str(tmp_path / "store"))
    else:
        monkeypatch.delenv(replays.ENV_STORE, raising=False)
    return request.param


def stores(client: redis.Redis, root: Path) -> Iterator[replays.ReplayStore]:
    yield RedisStore(client)
    yield FolderStore(root)


def record_random(
    client: redis.Redis, game: str, players: int, seed: int, match_id: str, **job_fields
) -> str:
    """Enqueues and records a seeded random game of ``game`` through the real recording script;
    returns its replay text."""
    bots = tuple(f"bot{i}" for i in range(players))
    text, record = replay_of_random_game(game, seed, list(bots), match_id)
    job = MatchJob(match_id, game, seed, bots, **job_fields)
    enqueue(client, job)
    assert store.record(client, job, record, text, "0-1")
    return text


def test_names_that_could_leave_the_folder_are_refused(tmp_path: Path, client: redis.Redis) -> None:
    for target in stores(client, tmp_path):
        for bad in ["", "../x", "a/b", ".hidden", "x" * 201, "tab\there"]:
            with pytest.raises(ReplayStoreError, match="match id"):
                target.put(bad, "replay", b"x")
        with pytest.raises(ReplayStoreError, match="kind"):
            target.put("m1", "../replay", b"x")
    assert not any(tmp_path.iterdir())


def test_each_store_round_trips_kinds_apart_and_deletes(tmp_path: Path, client: redis.Redis) -> None:
    for target in stores(client, tmp_path):
        data = os.urandom(3000) + b"\n" * 5000
        target.put("t1-r1-g1-s1", "replay", data)
        target.put("t1-r1-g1-s1", "log-0", b"bot log")
        assert target.get("t1-r1-g1-s1") == data and target.get("t1-r1-g1-s1", "log-0") == b"bot log"
        assert target.get("t1-r1-g1-s1", "log-1") is None and target.get("other") is None
        listed = sorted((m, k) for m, k, _ in target.entries())
        assert listed == [("t1-r1-g1-s1", "log-0"), ("t1-r1-g1-s1", "replay")]
        assert target.delete("t1-r1-g1-s1", "log-0") == 1 and target.get("t1-r1-g1-s1") == data
        assert target.delete("t1-r1-g1-s1") == 1 and target.get("t1-r1-g1-s1") is None
        assert list(target.entries()) == []
    assert list(tmp_path.iterdir()) == []  # empty fan-out folders go with their last entry


def test_a_corrupt_entry_is_a_clear_error_not_a_traceback(tmp_path: Path) -> None:
    target = FolderStore(tmp_path)
    target.put("m1", "replay", b"text")
    (target.folder("m1") / "replay.z").write_bytes(b"not zlib")
    with pytest.raises(ReplayStoreError, match="corrupt"):
        target.get("m1")


def test_an_unusable_folder_setting_is_named(tmp_path: Path, client: redis.Redis, monkeypatch) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.setenv(replays.ENV_STORE, str(tmp_path / "file"))
    with pytest.raises(ReplayStoreError, match=r"ARENA_REPLAY_STORE=.*file"):
        replays.store_from_env(client)
    monkeypatch.delenv(replays.ENV_STORE)
    assert isinstance(replays.store_for(client), RedisStore)
    assert replays.store_for(client) is replays.store_for(client)  # one pool per client


def test_every_game_recorded_reproduces_byte_for_byte_through_the_store(
    client: redis.Redis, kind_of_store: str
) -> None:
    for n, (game, engine) in enumerate(sorted(GAMES.items())):
        for players in (engine.spec.min_players, engine.spec.max_players):
            match_id = f"t1-{game}-{players}"
            text = record_random(client, game, players, 40 + n, match_id)
            stored = store.replay_text(client, match_id)
            assert stored == text
            assert first_difference(stored, reproduce(parse_lines(stored)).text) is None
            result = store.result_fields(client.get(keys.result(match_id)))
            assert result["replay_sha256"] == replays.digest(text) == store.recorded_digest(client, match_id)
    assert client.keys(keys.replay("*")) == []  # nothing the old way


def test_redis_keeps_little_per_match(client: redis.Redis, kind_of_store: str) -> None:
    record_random(client, "ninjan", 2, 7, "t1-m1", tournament="t1")
    # the job's hash keeps only its status; enqueueing the id again is still a no-op
    assert client.hgetall(keys.job("t1-m1")) == {"status": "recorded"}
    assert load_job(client, "t1-m1")[1]["status"] == "recorded"
    assert not enqueue(client, MatchJob("t1-m1", "ninjan", 7, ("bot0", "bot1")))
    assert 0 < client.ttl(keys.job("t1-m1")) <= store.JOB_TTL
    client.delete(keys.job("t1-m1"))  # expired: the recorded set alone keeps it recorded
    assert not enqueue(client, MatchJob("t1-m1", "ninjan", 7, ("bot0", "bot1")))
    replay_bytes = client.memory_usage(keys.stored("t1-m1")) or 0
    assert (replay_bytes > 0) == (kind_of_store == "redis")
    assert client.zcard(keys.STORE_PENDING) == 0


def test_a_replay_staged_by_a_worker_that_died_is_committed_or_swept(
    client: redis.Redis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that staged the replay, recorded, and died before committing: the sweep commits it.
    One that staged and died before recording: its rerun records; a match never recorded is swept."""
    monkeypatch.setenv(replays.ENV_STORE, str(tmp_path / "store"))
    target = replays.store_for(client)
    assert isinstance(target, FolderStore)
    text, record = replay_of_random_game("ninjan", 3, ["a", "b"], "died")
    job = MatchJob("died", "ninjan", 3, ("a", "b"))
    enqueue(client, job)
    sha = replays.digest(text)
    assert store._stage(client, target, "died", {"replay": text.encode()}, sha)
    # recorded by the script, then the worker died: not yet readable, and pending
    monkeypatch.setattr(store, "commit_staged", lambda *a: None)
    assert store.record(client, job, record, text, "0-1")
    monkeypatch.undo()
    monkeypatch.setenv(replays.ENV_STORE, str(tmp_path / "store"))
    assert store.replay_text(client, "died") is None and client.zcard(keys.STORE_PENDING) == 1
    # never recorded: another match staged and abandoned
    other, _ = replay_of_random_game("ninjan", 4, ["a", "b"], "orphan")
    assert store._stage(client, target, "orphan", {"replay": other.encode()}, replays.digest(other))
    assert retention.sweep(client).committed == 0  # younger than an hour: left alone
    report = retention.sweep(client, now=time.time() + retention.ORPHAN_AGE + 5)
    assert (report.committed, report.orphans) == (1, 1)
    assert store.replay_text(client, "died") == text and target.get("orphan") is None
    assert client.zcard(keys.STORE_PENDING) == 0
    assert sorted(m for m, _, _ in target.entries()) == ["died"]


def test_two_runs_of_one_match_keep_only_the_recorded_replay(
    client: redis.Redis, tmp_path: Path, kind_of_store: str
) -> None:
    """A stale job rerun while its first worker still ran: both record; the second finds it recorded
    and its (different) replay never replaces the recorded one."""
    first, record = replay_of_random_game("ninjan", 3, ["a", "b"], "twice")
    second = first.replace('"b"', '"b" ', 1)  # played differently: other bytes
    job = MatchJob("twice", "ninjan", 3, ("a", "b"))
    enqueue(client, job)
    assert store.record(client, job, record, first, "0-1")
    assert not store.record(client, job, record, second, "0-2")
    assert store.replay_text(client, "twice") == first
    assert store.recorded_digest(client, "twice") == replays.digest(first)


def test_retention_by_days_and_per_bot_keeps_results(client: redis.Redis, kind_of_store: str) -> None:
    ids = [f"t1-m{i}" for i in range(6)]
    for i, match_id in enumerate(ids):  # a and b play m0..m5; c joins m4 and m5 (3 seats)
        players = 3 if i >= 4 else 2
        bots = ("a", "b", "c")[:players]
        text, record = replay_of_random_game("ninjan", 10 + i, list(bots), match_id)
        job = MatchJob(match_id, "ninjan", 10 + i, bots)
        enqueue(client, job)
        assert store.record(client, job, record, text, "0-1")
    assert "kept forever" in retention.describe(client)
    with pytest.raises(ValueError, match="replay-days must be 0"):
        retention.set_retention(client, retention.Retention(replay_days=-1))
    retention.set_retention(client, retention.Retention(replays_per_bot=2))
    assert "each bot's last 2 matches" in retention.describe(client)
    assert retention.sweep(client).by_bot == 4
    assert [store.replay_text(client, m) is not None for m in ids] == [False] * 4 + [True] * 2
    assert retention.sweep(client) == retention.SweepReport()  # the cursors: nothing read twice
    retention.set_retention(client, retention.Retention(replay_days=1))
    assert retention.sweep(client).by_days == 0
    assert retention.sweep(client, now=time.time() + 2 * retention.DAY).by_days == 2
    assert all(store.replay_text(client, m) is None for m in ids)
    assert all(client.get(keys.result(m)) for m in ids) and client.llen(keys.results("ninjan")) == 6


def test_a_worker_sweeps_at_most_once_an_hour(client: redis.Redis, monkeypatch) -> None:
    said: list[str] = []
    monkeypatch.setattr(retention, "_next_check", 0.0)
    calls = []
    monkeypatch.setattr(retention, "sweep", lambda c: calls.append(1) or retention.SweepReport(by_bot=1))
    retention.sweep_if_due(client, said.append)
    monkeypatch.setattr(retention, "_next_check", 0.0)
    retention.sweep_if_due(client, said.append)  # another worker, same hour
    assert calls == [1] and said == [f"arena: retention sweep: {retention.SweepReport(by_bot=1).describe()}"]
    assert 0 < client.ttl(keys.RETENTION_SWEPT) <= retention.SWEEP_EVERY


def test_two_runs_staged_together_commit_only_the_recorded_one(
    client: redis.Redis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(replays.ENV_STORE, str(tmp_path / "store"))
    target = replays.store_for(client)
    first, record = replay_of_random_game("ninjan", 3, ["a", "b"], "race")
    second = first.replace('"b"', '"b" ', 1)
    job = MatchJob("race", "ninjan", 3, ("a", "b"))
    enqueue(client, job)
    staged = store._stage
    monkeypatch.setattr(
        store,
        "_stage",
        lambda c, t, m, r, s: (
            staged(c, t, m, {"replay": second.encode()}, replays.digest(second)) and staged(c, t, m, r, s)
        ),
    )
    assert store.record(client, job, record, first, "0-1")  # the loser staged first, then the winner
    monkeypatch.setattr(store, "_stage", staged)
    assert not store.record(client, job, record, second, "0-2")
    assert store.replay_text(client, "race") == first
    assert [k for m, k, _ in target.entries()] == ["replay"]  # the loser's candidate went at the commit


def test_redis_crashed_mid_run_with_the_folder_store_loses_no_replay(
    server: RedisServer,  # noqa: F811
    gate: Gate,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fault test of tests/test_queue_faults.py, run again with a folder store (the tournament's
    workers inherit ARENA_REPLAY_STORE): afterwards every recorded match's replay is in the folder,
    is the one its result's digest names, and nothing is left pending."""
    monkeypatch.setenv(replays.ENV_STORE, str(tmp_path / "store"))
    faults.test_redis_crashed_and_restarted_mid_run_loses_and_doubles_nothing(server, gate, tmp_path)
    client = connect(server.url)
    recorded = client.smembers(keys.RECORDED_SET)
    assert recorded and client.zcard(keys.STORE_PENDING) == 0
    target = replays.store_for(client)
    assert isinstance(target, FolderStore)
    for match_id in recorded:
        text = store.replay_text(client, match_id)
        assert text is not None and replays.digest(text) == store.recorded_digest(client, match_id)
    assert client.keys(keys.stored("*")) == [] and client.keys(keys.replay("*")) == []


def test_bot_logs_recorded_with_the_replay_share_its_fate(client: redis.Redis, kind_of_store: str) -> None:
    text, record = replay_of_random_game("ninjan", 8, ["a", "b"], "logged")
    job = MatchJob("logged", "ninjan", 8, ("a", "b"))
    enqueue(client, job)
    logs = {"log-0": b"seat 0 thinks\n", "log-1": b"\xffbinary is fine"}
    assert store.record_and_take(client, job, record, text, "0-1", extras=logs)[0]
    target = replays.store_for(client)
    assert [target.get("logged", k) for k in logs] == list(logs.values())
    assert sorted(k for _, k, _ in target.entries()) == ["log-0", "log-1", "replay"]
    assert target.delete("logged") == 3 and target.get("logged", "log-0") is None


def test_a_writer_that_died_mid_write_leaves_nothing_behind_a_delete(tmp_path: Path) -> None:
    target = FolderStore(tmp_path)
    target.put("m1", "replay", b"text")
    (target.folder("m1") / ".put-abandoned").write_bytes(b"half")  # killed before its rename
    assert target.get("m1") == b"text" and [k for _, k, _ in target.entries()] == ["replay"]
    target.delete("m1")
    assert list(tmp_path.iterdir()) == []


def raw_entry(client: redis.Redis, target: replays.ReplayStore, match_id: str) -> bytes:
    """Returns the replay of ``match_id`` as ``target`` keeps it (compressed, tag first)."""
    return target.read(match_id, "replay")


def write_raw(client: redis.Redis, target: replays.ReplayStore, match_id: str, stored: bytes) -> None:
    """Puts ``stored`` as the replay of ``match_id`` exactly as given, bypassing ``encode``."""
    target.write(match_id, "replay", stored)


def test_every_game_has_a_shipped_dictionary_that_is_small_and_unchanged() -> None:
    assert {game for game, _ in dictionaries.DICTIONARIES.values()} == set(GAMES)
    assert not set(dictionaries.DICTIONARIES) & dictionaries.RESERVED
    for tag, (game, _) in dictionaries.DICTIONARIES.items():
        path = dictionaries.path_of(tag, game)
        assert path.parent == folder_of(game)  # each game's dictionaries sit in its folder
        assert path.stat().st_size <= 64 * 1024
        assert dictionaries.load(tag).as_bytes() == path.read_bytes()  # its sha256 is the registered one


def test_each_game_replay_is_kept_with_its_dictionary_and_round_trips(
    tmp_path: Path, client: redis.Redis
) -> None:
    for target in stores(client, tmp_path):
        for n, (game, engine) in enumerate(sorted(GAMES.items())):
            for players in (engine.spec.min_players, engine.spec.max_players):
                match_id = f"t1-{game}-{players}"
                text = replay_of_random_game(game, 60 + n, [f"b{i}" for i in range(players)], match_id)[0]
                target.put(match_id, "replay", text.encode())
                stored = raw_entry(client, target, match_id)
                assert stored[0] == dictionaries.newest(game) and len(stored) < len(
                    zlib.compress(text.encode(), 9)
                )
                assert target.get(match_id) == text.encode()
        target.put("t1-log", "log-0", b"no header, no dictionary")
        assert target.get("t1-log", "log-0") == b"no header, no dictionary"


def test_an_entry_written_with_zlib_before_dictionaries_still_reads(
    tmp_path: Path, client: redis.Redis
) -> None:
    text = replay_of_random_game("pnrz", 3, ["a", "b"], "old")[0].encode()
    for target in stores(client, tmp_path):
        write_raw(client, target, "old", zlib.compress(text, 9))  # what the store wrote before tags
        assert target.get("old") == text


@pytest.mark.parametrize(
    ("stored", "says"),
    [
        (b"", "empty"),
        (b"\x78garbage", "corrupt"),
        (zlib.compress(b"cut short " * 100, 9)[:-8], "cut short"),
        (zlib.compress(b"\0" * (replays.MAX_PLAIN + 1), 9), "inflates past"),  # a zlib bomb
        (b"\x00" + zstandard.ZstdCompressor(write_content_size=False).compress(b"x"), "claims -1 bytes"),
        (b"\x00" + zstandard.ZstdCompressor().compress(b"\0" * (replays.MAX_PLAIN + 1)), "claims 33554433"),
        (b"\xfe" + zstandard.ZstdCompressor().compress(b"text"), "written by a newer arena"),
        (b"\x00not a zstd frame", "corrupt"),
    ],
)
def test_a_corrupt_or_hostile_entry_is_a_clear_error_within_bounded_memory(
    tmp_path: Path, client: redis.Redis, stored: bytes, says: str
) -> None:
    for target in stores(client, tmp_path):
        write_raw(client, target, "bad", stored)
        with pytest.raises(ReplayStoreError, match=says):
            target.get("bad")


def test_a_flipped_byte_in_a_dictionary_entry_is_caught(tmp_path: Path, client: redis.Redis) -> None:
    text = replay_of_random_game("ninjan", 4, ["a", "b"], "flip")[0].encode()
    target = FolderStore(tmp_path)
    target.put("flip", "replay", text)
    stored = bytearray(raw_entry(client, target, "flip"))
    for at in range(8, len(stored), max(1, len(stored) // 40)):  # header, blocks, checksum
        changed = bytearray(stored)
        changed[at] ^= 0x55
        write_raw(client, target, "flip", bytes(changed))
        try:
            assert target.get("flip") == text  # a change zstd cannot notice must not change the text
        except ReplayStoreError as exc:
            assert "corrupt" in str(exc)


def test_an_entry_too_large_to_read_back_is_refused_when_put(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(replays, "MAX_PLAIN", 1000)
    with pytest.raises(ReplayStoreError, match="1001 bytes is more than the store keeps"):
        FolderStore(tmp_path).put("big", "replay", b"x" * 1001)
    assert list(tmp_path.iterdir()) == []


def test_a_store_write_that_fails_is_retried_then_dead_lettered_not_a_crash(
    client: redis.Redis, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder store that cannot write (a file stands where the match's folder goes: the OSError a
    full disk raises too) fails the attempt in one line and the job is retried, then dead-lettered; a
    match id the store would refuse is dead-lettered too (the referee refuses it first); the worker
    goes on with the next job."""
    root = tmp_path / "store"
    monkeypatch.setenv(replays.ENV_STORE, str(root))
    fan_out = {m: FolderStore(root).folder(m).parts[-3] for m in [f"t1-m{i}" for i in range(9)]}
    blocked, fine = "t1-m0", next(m for m in fan_out if fan_out[m] != fan_out["t1-m0"])
    root.mkdir()
    (root / fan_out[blocked]).write_text("in the way")
    for match_id in (blocked, "t1/refused", fine):
        enqueue(client, MatchJob(match_id, "ninjan", 5, ("greedy", "random")))
    said: list[str] = []
    config = WorkerConfig(redis_url, idle_timeout=timedelta(seconds=2), block=timedelta(milliseconds=200))
    Worker(client, config, say=said.append).run(burst=True)
    dead = {e["match_id"]: e for _, e in client.xrange(keys.DEAD_STREAM)}
    assert set(dead) == {blocked, "t1/refused"} and client.sismember(keys.RECORDED_SET, fine)
    assert int(dead[blocked]["attempts"]) == MAX_ATTEMPTS and "Not a directory" in dead[blocked]["error"]
    assert "may hold only ASCII letters, digits and '-_.:'" in dead["t1/refused"]["error"]
    failures = [line for line in said if "replay store" in line]
    assert len(failures) == MAX_ATTEMPTS and all(blocked in line and "\n" not in line for line in failures)
    assert store.replay_text(client, fine) is not None
    monkeypatch.setattr(replays, "MAX_PLAIN", 1000)  # now every replay is more than the store keeps
    enqueue(client, MatchJob("t1-large", "ninjan", 5, ("greedy", "random")))
    said.clear()
    Worker(client, config, say=said.append).run(burst=True)
    assert len(said) == 1 and "more than the store keeps" in said[0] and said[0].endswith("job is dead")


def test_a_later_dictionary_is_used_for_new_entries_and_the_earlier_still_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dictionaries are only added: a game's newest writes, every shipped one keeps reading."""
    text = replay_of_random_game("ninjan", 9, ["a", "b"], "later")[0].encode()
    target = FolderStore(tmp_path)
    target.put("earlier", "replay", text)
    first = dictionaries.newest("ninjan")
    later = dictionaries.next_tag()
    assert later not in dictionaries.RESERVED and later > max(dictionaries.DICTIONARIES)
    pnrz_file = dictionaries.path_of(
        *next((t, g) for t, (g, _) in dictionaries.DICTIONARIES.items() if g == "pnrz")
    )
    added = tmp_path / f"replays-{later:03d}.zdict"
    added.write_bytes(pnrz_file.read_bytes())
    shipped = dictionaries.path_of
    registry = {
        **dictionaries.DICTIONARIES,
        later: ("ninjan", hashlib.sha256(pnrz_file.read_bytes()).hexdigest()),
    }
    monkeypatch.setattr(
        dictionaries, "path_of", lambda tag, game: added if tag == later else shipped(tag, game)
    )
    monkeypatch.setattr(dictionaries, "DICTIONARIES", registry)
    monkeypatch.setattr(replays, "_CODECS", threading.local())
    try:
        target.put("later", "replay", text)
        assert (target.folder("later") / "replay.z").read_bytes()[0] == later
        assert (target.folder("earlier") / "replay.z").read_bytes()[0] == first
        assert target.get("later") == target.get("earlier") == text
    finally:
        dictionaries.load.cache_clear()  # the added tag must not outlive the test


def test_a_compact_stored_result_reads_as_the_whole_result_and_older_whole_ones_still_read() -> None:
    text, record = replay_of_random_game("ninjan", 7, ["alpha", "beta", "gamma"], "compact")
    forfeited = (dataclasses.replace(record.players[0], forfeit=True, strikes=3), *record.players[1:])
    for played in (record, dataclasses.replace(record, players=forfeited)):
        stored = store.record_json(played, "compact", replays.digest(text), 1700000000.5)
        whole = {**played.to_json(), "replay_sha256": replays.digest(text), "recorded_at": 1700000000}
        assert store.result_fields(stored) == whole
        assert list(store.result_fields(stored)) == list(whole)  # the fields in arena match --json's order
        assert store.result_fields(json.dumps(whole)) == whole  # a result stored whole before
        assert len(stored) < len(json.dumps(whole, separators=(",", ":"))) - 30 * len(played.players)


def test_placements_keep_no_empty_version_and_read_back_whole() -> None:
    placements = {
        "match_id": "m1",
        "players": [{"bot": "alpha", "version": "", "rank": 2}, {"bot": "beta", "version": "v3", "rank": 1}],
    }
    stored = store.stored_placements(placements)
    assert '"version":""' not in stored and '"version":"v3"' in stored
    assert store.placements_fields(stored) == placements
    assert store.placements_fields(json.dumps(placements)) == placements  # an entry stored before


def test_an_entry_a_worker_writes_is_read_by_a_server_of_another_user_in_its_group() -> None:
    """As compose runs them: the worker (uid 10002) writes, the server (uid 10001) reads, both of group
    10000 (the Dockerfile's folder is setgid to it). Here root writes into such a folder, and a
    process of uid 10001, group 10000 reads the entry back (a folder under /tmp: pytest's own
    temporary folders are root's alone). scripts/test runs the suite as root, as CI does."""
    import subprocess
    import tempfile

    assert os.geteuid() == 0, "this test switches to another user: run the suite as root (CI does)"
    with tempfile.TemporaryDirectory(prefix="arena-replays-") as where:
        root = Path(where) / "replays"
        root.mkdir()
        Path(where).chmod(0o755)
        os.chown(root, 10002, 10000)
        root.chmod(0o2775)
        target = FolderStore(root)
        target.put("m1", "replay", b"a replay")
        path = target.folder("m1") / "replay.z"
        as_server = ["setpriv", "--reuid", "10001", "--regid", "10000", "--clear-groups", "cat", str(path)]
        read = subprocess.run(as_server, capture_output=True, timeout=30)
        assert read.returncode == 0, read.stderr.decode()
        assert read.stdout == path.read_bytes() and replays.decode("replay", read.stdout) == b"a replay"
