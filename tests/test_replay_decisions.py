"""Replays kept as their decisions (arena.referee.compact) in the replay store: every byte comes back,
a replay the engine does not regenerate is kept whole, other rules are a clear error, and
``arena storage expand`` rewrites them whole before an upgrade. Private redis-server, tmp folders."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import redis

from arena import codec
from arena.games import GAMES, get_game
from arena.queue import store
from arena.referee import compact
from arena.referee import replay as replay_module
from arena.referee.replay import OtherVersion, parse_lines, reproduce
from arena.storage import migrate, replays
from arena.storage.replays import FolderStore, RedisStore, ReplayStoreError
from tests.conftest import replay_of_random_game, run_arena
from tests.test_replay_store import record_random, stores

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")


def refereed_replay(game: str, seed: int) -> str:
    """Returns a 2-player replay in which the referee struck seat 0 at step 0 (its move a fallback),
    then seat 0 forfeited at step 2 (every later move of it a fallback), as the referee writes one."""
    text = replay_of_random_game(game, seed, ["a", "b"], f"ref-{game}")[0]
    strike = {
        "type": "strike",
        "step": 0,
        "seat": 0,
        "code": "ERROR_CODE_TIMEOUT",
        "message": "late",
        "strikes": 1,
    }
    forfeit = {"type": "forfeit", "step": 2, "seat": 0, "reason": "disconnected"}
    marked = []
    for line in parse_lines(text):
        if line["type"] in ("event", "result"):
            continue  # the engine writes them again
        if line["type"] == "decision" and line["seat"] == 0 and line["step"] != 1:
            marked += [strike] if line["step"] == 0 else [forfeit] if line["step"] == 2 else []
            line["by"] = "fallback"
        marked.append(line)
    return reproduce(marked).text


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_is_kept_as_its_decisions_and_comes_back_byte_for_byte(game: str) -> None:
    engine = GAMES[game]
    for players in (engine.spec.min_players, engine.spec.max_players):
        text = replay_of_random_game(game, 70 + players, [f"b{i}" for i in range(players)], f"d-{game}")[0]
        form = compact.pack(text)
        assert compact.is_decisions_form(form) and len(form) * 4 < len(text)
        assert compact.expand(form) == text
        stored = replays.encode(replays.REPLAY, text.encode())
        assert len(stored) < len(replays.compress(text.encode())) * 0.8  # what the store saves
        assert replays.decode(replays.REPLAY, stored) == text.encode()


def test_strikes_forfeits_and_fallbacks_survive_the_decisions_form() -> None:
    text = refereed_replay("ninjan", 5)
    assert '"type":"strike"' in text and '"type":"forfeit"' in text and '"by":"fallback"' in text
    form = compact.pack(text)
    assert compact.is_decisions_form(form) and '"fallback"' in form
    assert compact.expand(form) == text


def test_a_replay_the_engine_does_not_regenerate_is_kept_whole() -> None:
    text = replay_of_random_game("pnrz", 3, ["a", "b"], "whole")[0]
    edited = text.replace('"type":"event","step":1,', '"type":"event","step":1, ', 1)
    assert edited != text and compact.pack(edited) == edited  # its bytes are not the engine's
    lines = text.splitlines(keepends=True)
    header = json.loads(lines[0])
    branched = "".join([json.dumps({**header, "from": {"match_id": "m", "step": 3}}) + "\n", *lines[1:]])
    assert compact.pack(branched) == branched  # a branched game does not start where its seed does
    assert compact.pack("not a replay\n") == "not a replay\n"


def test_a_bot_log_that_looks_like_decisions_is_kept_as_written(tmp_path: Path, client: redis.Redis) -> None:
    hostile = b'{"type":"decisions","game":"ninjan"}\n[0,0,99]\n'
    for target in stores(client, tmp_path):
        target.put("m1", "log-0", hostile)
        assert target.get("m1", "log-0") == hostile


def test_a_corrupt_decisions_form_is_a_clear_error(tmp_path: Path, client: redis.Redis) -> None:
    text = replay_of_random_game("ninjan", 3, ["a", "b"], "bad")[0]
    form = compact.pack(text).splitlines(keepends=True)
    for bad in ("[0,0]\n", "[0,0,999]\n", "{oops\n"):
        for target in stores(client, tmp_path):
            target.write("bad", "replay", replays.compress("".join([form[0], bad, *form[2:]]).encode()))
            with pytest.raises(ReplayStoreError, match="is corrupt") as caught:
                target.get("bad")
            assert "expand" not in str(caught.value)  # nothing an upgrade would mend


def test_an_engine_that_regenerates_other_bytes_without_new_rules_is_refused(
    tmp_path: Path, client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change that makes other bytes (here: the result line) without a new rules version is caught
    by the form's digest: a clear error naming 'arena storage expand', never a replay never played."""
    text = replay_of_random_game("ninjan", 3, ["a", "b"], "drift")[0]
    form = compact.pack(text)
    assert compact.expand(form) == text

    def drifted(value: object) -> str:
        extra = {"note": 1} if isinstance(value, dict) and value.get("type") == "result" else {}
        return codec.compact_json({**value, **extra} if extra else value)

    monkeypatch.setattr(replay_module, "_dumps", drifted)
    with pytest.raises(OtherVersion, match="other bytes"):
        compact.expand(form)
    for target in stores(client, tmp_path):
        target.write("drift", "replay", replays.compress(form.encode()))
        with pytest.raises(ReplayStoreError, match="arena storage expand"):
            target.get("drift")


def test_expand_reports_a_corrupt_entry_and_goes_on(tmp_path: Path, client: redis.Redis) -> None:
    for target in stores(client, tmp_path):
        texts = {f"ok-{n}": replay_of_random_game("ninjan", n, ["a", "b"], f"ok-{n}")[0] for n in range(2)}
        for match_id, text in texts.items():
            target.put(match_id, "replay", text.encode())
        target.write("broken", "replay", b"\x01not a zstd frame")
        report = migrate.expand_stored(target)
        assert report.expanded == 2 and len(report.failed) == 1 and report.failed[0].startswith("broken: ")
        assert all(target.get(m) == text.encode() for m, text in texts.items())


def test_expand_takes_in_a_replay_a_dead_worker_staged_but_did_not_commit(
    tmp_path: Path, client: redis.Redis, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "store"
    monkeypatch.setenv(replays.ENV_STORE, str(folder))
    with monkeypatch.context() as dying:
        dying.setattr(store, "commit_staged", lambda *args: None)  # the worker dies after recording
        text = record_random(client, "ninjan", 2, 90, "staged")
    target = replays.store_for(client)
    assert target.read("staged", "replay") is None  # recorded, its replay still only staged
    proc = run_arena("storage", "expand", "--redis", redis_url, env={replays.ENV_STORE: str(folder)})
    assert proc.returncode == 0, proc.stderr
    assert "rewrote 1 replays" in proc.stdout
    stored = target.read("staged", "replay")
    assert stored is not None and not replays.is_decisions_form(stored)
    assert store.replay_text(client, "staged") == text


def test_other_rules_are_a_clear_error_until_the_store_is_expanded(
    tmp_path: Path, client: redis.Redis, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(replays.ENV_STORE, str(tmp_path / "store"))
    texts = {f"x-{n}": record_random(client, "ninjan", 2, 80 + n, f"x-{n}") for n in range(3)}
    target = replays.store_for(client)
    assert isinstance(target, FolderStore) and all(
        replays.is_decisions_form(target.read(m, "replay")) for m in texts
    )
    spec = get_game("ninjan").spec
    newer_rules = type(spec)(**{**vars(spec), "rules": spec.rules + 1})
    with monkeypatch.context() as upgraded:
        upgraded.setattr(get_game("ninjan"), "spec", newer_rules)
        with pytest.raises(ReplayStoreError, match=r"ninjan rules 1.*arena storage expand"):
            store.replay_text(client, "x-0")
    proc = run_arena(
        "storage", "expand", "--redis", redis_url, env={replays.ENV_STORE: str(tmp_path / "store")}
    )
    assert proc.returncode == 0, proc.stderr
    assert "rewrote 3 replays" in proc.stdout
    assert migrate.expand_stored(target).expanded == 0  # done: a rerun rewrites nothing
    with monkeypatch.context() as upgraded:
        upgraded.setattr(get_game("ninjan"), "spec", newer_rules)
        assert all(store.replay_text(client, m) == text for m, text in texts.items())


def test_the_redis_store_expands_in_place(client: redis.Redis) -> None:
    target = RedisStore(client)
    text = replay_of_random_game("ninja-master", 9, ["a", "b", "c"], "nm")[0]
    target.put("nm", "replay", text.encode())
    before = len(target.read("nm", "replay"))
    assert migrate.expand_stored(target).expanded == 1
    assert len(target.read("nm", "replay")) > before and target.get("nm") == text.encode()


def test_the_web_pages_name_a_replay_they_cannot_regenerate(client: redis.Redis, redis_url: str) -> None:
    from starlette.testclient import TestClient

    from leaderboard.app import ServerConfig, leaderboard_app, server_app

    form = compact.pack(replay_of_random_game("ninjan", 3, ["a", "b"], "bad")[0]).splitlines(keepends=True)
    RedisStore(client).write("bad", "replay", replays.compress("".join([form[0], "[0,0,999]\n"]).encode()))
    with TestClient(leaderboard_app(redis_url, client)) as web:
        answer = web.get("/api/matches/bad/replay")
        assert answer.status_code == 500 and "corrupt" in answer.json()["error"]
    with TestClient(server_app(redis_url, ServerConfig(), client)) as api:
        answer = api.get("/api/v1/matches/bad/log")
        assert answer.status_code == 500 and "corrupt" in answer.text
