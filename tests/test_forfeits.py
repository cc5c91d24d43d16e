"""Failures charged to whoever caused them (issue 16, item 5), with a real Redis, a real worker and
the real sandbox (bubblewrap).

A bot that never joins or crashes mid-game forfeits: its matches are recorded and rated as losses,
none is dead-lettered, and each replay still reproduces with ``arena replay``. A sandbox that cannot
start is the platform's failure: retried, then dead-lettered, and nothing is recorded. Tournament
parameters are refused before anything is queued.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import redis

from arena.queue import health, keys, store
from arena.queue.jobs import JobStatus, MatchJob, enqueue, load_job
from arena.queue.worker import READY_LINE, Worker, WorkerConfig
from arena.ratings.pairs import PairTable, Record, player_id
from arena.referee.processes import DEFAULT_LIMITS, BotLimits
from arena.referee.sandbox import SandboxError
from arena.referee.sandbox_check import check_sandbox
from arena.schedule import plan
from arena.submissions import registry
from tests.conftest import REPO, SEED_KEY, run_arena
from tests.test_queue import FAST


def sandbox_works() -> bool:
    try:
        check_sandbox(DEFAULT_LIMITS)
    except SandboxError:
        return False
    return True


pytestmark = [
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
    pytest.mark.skipif(not sandbox_works(), reason="needs a working bubblewrap sandbox"),
]

QUITTER = 'import sys\nprint("quitter: refusing to play", flush=True)\nsys.exit(1)\n'


def submit_files(
    client: redis.Redis, parent: Path, name: str, files: dict[str, str], entry: str, **options: object
) -> str:
    """Submits a Ninjan bot made of ``files`` (name: text) under ``parent``; returns its new version
    (its candidate when submitted with ``activate=False``)."""
    folder = parent / f"{name}-src"
    folder.mkdir()
    for file, text in files.items():
        (folder / file).write_text(text)
    submitted, _ = registry.submit(client, name, ["ninjan"], directory=folder, entry=entry, **options)
    return client.hget(keys.bot(name), "candidate") or submitted.version


def scripted() -> dict[str, str]:
    """Returns the files of a bot made of tests/bots/scripted.py (its mode is its entry's argument)."""
    return {"bot.py": (REPO / "tests" / "bots" / "scripted.py").read_text()}


def worker(client: redis.Redis, url: str, cache: Path, **config: object) -> Worker:
    settings = {**FAST, **config}
    return Worker(client, WorkerConfig(url, bot_cache=cache, **settings), say=lambda _: None)


def test_bots_that_never_join_or_crash_lose_their_matches_which_are_rated(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    submit_files(client, tmp_path, "quitter", {"bot.py": QUITTER}, "python bot.py")
    submit_files(client, tmp_path, "crasher", scripted(), "python bot.py crash-mid")
    bots = ("quitter", "crasher", "random")
    versions = tuple(registry.resolve(client, "ninjan", b) for b in bots)
    spec = plan.TournamentSpec("ninjan", bots, seed=4, versions=versions)
    jobs, new = plan.queue(client, spec, SEED_KEY)
    assert new == len(jobs) == 6

    assert worker(client, redis_url, tmp_path / "cache").run(burst=True) == 6

    assert client.xlen(keys.DEAD_STREAM) == 0  # nobody dodged a match by failing to start
    assert client.smembers(keys.RECORDED_SET) == {j.match_id for j in jobs}
    for job in jobs:
        result = store.result_fields(client.get(keys.result(job.match_id)))
        by_bot = {p["bot"]: p for p in result["players"]}
        assert all(by_bot[b]["forfeit"] for b in {"quitter", "crasher"} & by_bot.keys()), result
        if "random" in by_bot:  # the one that played beats the forfeiting seat
            assert [p["rank"] for p in result["players"]] == [
                1 if p["bot"] == "random" else 2 for p in result["players"]
            ]
    # the losses are in the rating table: random beat each of them in both seatings
    table = PairTable.from_fields(client.hgetall(keys.pairs("ninjan")))
    quitter, crasher, rnd = (player_id(b, v) for b, v in zip(bots, versions, strict=True))
    assert table.games(rnd) == table.games(quitter) == table.games(crasher) == 4
    assert table.record(rnd, quitter) == table.record(rnd, crasher) == Record(wins=2, draws=0, losses=0)
    assert table.record(crasher, quitter) == Record(wins=0, draws=2, losses=0)  # both forfeited: tied last
    board = run_arena("leaderboard", "ninjan", "--json", "--redis", redis_url)
    assert board.returncode == 0, board.stderr
    rows = json.loads(board.stdout)
    assert rows[0]["bot"] == "random" and {r["bot"] for r in rows[1:]} == {"quitter", "crasher"}
    assert all(r["games"] == 4 for r in rows)

    # a forfeited match's replay reproduces: the absent seat is in it as a forfeit
    absent = next(j for j in jobs if j.bots[0] == "quitter")
    replay = tmp_path / "absent.jsonl"
    replay.write_text(store.replay_text(client, absent.match_id) or "")
    assert any(line.get("type") == "forfeit" for line in map(json.loads, replay.read_text().splitlines()))
    proc = run_arena("replay", str(replay), "--quiet")
    assert proc.returncode == 0, proc.stderr


def test_a_sandbox_that_cannot_start_is_retried_then_dead_lettered(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    """bwrap itself refuses to start (a zero-byte /tmp: '--size takes a non-zero number of bytes'):
    no bot ever ran, so nobody forfeits; the job is the platform's failure."""
    enqueue(client, MatchJob("no-sandbox-start", "ninjan", 5, ("greedy", "random")))
    broken = BotLimits(disk_mb=0)
    assert worker(client, redis_url, tmp_path / "cache", bot_limits=broken).run(burst=True) == 3

    _, fields = load_job(client, "no-sandbox-start")
    assert fields["status"] == JobStatus.DEAD and fields["attempts"] == "3"
    (dead,) = store.dead_letters(client)
    assert "the sandbox could not start the bot of seat 0 (greedy), seat 1 (random)" in dead["error"]
    assert "--size takes a non-zero number of bytes" in dead["error"]
    assert not client.exists(keys.result("no-sandbox-start"), keys.pairs("ninjan"))


def test_the_ready_line_is_printed_inside_the_sandbox_before_the_bot_runs(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    """The line that tells a bot's failure from the sandbox's comes first in the log, before the
    bot's own output, so no bot can take it away."""
    version = submit_files(client, tmp_path, "quitter", {"bot.py": QUITTER}, "python bot.py")
    random_version = registry.resolve(client, "ninjan", "random")
    enqueue(client, MatchJob("q", "ninjan", 6, ("quitter", "random"), versions=(version, random_version)))
    w = worker(client, redis_url, tmp_path / "cache")
    w.run(burst=True)
    assert w.handled == 1 and client.exists(keys.result("q"))
    logs = [p.read_text() for p in w.log_dir.glob("*quitter*.log")]
    assert logs and logs[0].splitlines()[:2] == [READY_LINE, "quitter: refusing to play"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"deadline_ms": 5_000_000_000}, "--deadline-ms must be from 1 to 4294967295, not 5000000000"),
        ({"players": 6, "bots": tuple("abcdef")}, "ninjan is for 2 to 5 players, not 6"),
        ({"game": "chess"}, "unknown game 'chess'"),
    ],
)
def test_tournament_parameters_past_the_protocol_or_the_game_are_refused(change: dict, message: str) -> None:
    fields = {"game": "ninjan", "bots": ("greedy", "random"), **change}
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        plan.TournamentSpec(**fields)


def test_queueing_refuses_seats_without_a_stored_version_and_queues_nothing(client: redis.Redis) -> None:
    bots = ("greedy", "random")
    with pytest.raises(ValueError, match="needs each bot's version"):
        plan.queue(client, plan.TournamentSpec("ninjan", bots), SEED_KEY)
    versions = (registry.resolve(client, "ninjan", "greedy"), "0123456789ab")
    with pytest.raises(ValueError, match="bot random: version 0123456789ab is not stored"):
        plan.queue(client, plan.TournamentSpec("ninjan", bots, versions=versions), SEED_KEY)
    assert client.xlen(keys.JOBS_STREAM) == 0 and not client.exists(keys.TOURNAMENTS_SET)


def test_a_seat_whose_build_fails_forfeits_its_match(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    """A version whose build fails on this worker (it passed elsewhere, or was activated without a
    smoke match) is the bot's failure: its seat prints the build's output and forfeits."""
    build = "sh -c 'echo compiler: syntax error; exit 2'"
    version = submit_files(client, tmp_path, "unbuilt", {"bot.py": QUITTER}, "python bot.py", build=build)
    random_version = registry.resolve(client, "ninjan", "random")
    job = MatchJob("b", "ninjan", 7, ("random", "unbuilt"), versions=(random_version, version))
    enqueue(client, job)
    w = worker(client, redis_url, tmp_path / "cache")
    assert w.run(burst=True) == 1
    result = store.result_fields(client.get(keys.result("b")))
    assert [(p["bot"], p["forfeit"], p["rank"]) for p in result["players"]] == [
        ("random", False, 1),
        ("unbuilt", True, 2),
    ]
    (log,) = w.log_dir.glob("*unbuilt*.log")
    assert "exited with code 2: compiler: syntax error" in log.read_text()
    assert client.xlen(keys.DEAD_STREAM) == 0


def test_a_match_no_seat_joined_is_charged_to_the_bots_on_a_sound_worker(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    """Two bots of one owner that both exit before joining cannot void a match they expect to lose:
    the worker's sandbox self-check passes at that moment and the host has memory and processes to
    spare, so every seat forfeits and the match is recorded (not retried, not dead-lettered)."""
    first = submit_files(client, tmp_path, "quitter", {"bot.py": QUITTER}, "python bot.py")
    second = submit_files(client, tmp_path, "quitter2", {"bot.py": QUITTER + "# 2\n"}, "python bot.py")
    enqueue(client, MatchJob("none", "ninjan", 8, ("quitter", "quitter2"), versions=(first, second)))
    assert worker(client, redis_url, tmp_path / "cache").run(burst=True) == 1
    assert client.xlen(keys.DEAD_STREAM) == 0
    result = store.result_fields(client.get(keys.result("none")))
    assert [(p["bot"], p["forfeit"]) for p in result["players"]] == [("quitter", True), ("quitter2", True)]


def test_a_match_no_seat_joined_is_the_platforms_failure_when_the_worker_is_unsound(
    client: redis.Redis, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same match on a worker whose sandbox self-check fails at that moment (or whose host ran out
    of memory or processes) points at the worker: retried, then dead-lettered, nobody charged."""

    def broken(limits: BotLimits) -> None:
        raise SandboxError("the bot sandbox cannot start on this machine (bwrap: test)")

    monkeypatch.setattr(health, "check_sandbox_now", broken)
    first = submit_files(client, tmp_path, "quitter", {"bot.py": QUITTER}, "python bot.py")
    second = submit_files(client, tmp_path, "quitter2", {"bot.py": QUITTER + "# 2\n"}, "python bot.py")
    enqueue(client, MatchJob("none", "ninjan", 8, ("quitter", "quitter2"), versions=(first, second)))
    assert worker(client, redis_url, tmp_path / "cache").run(burst=True) == 3
    (dead,) = store.dead_letters(client)
    assert dead["match_id"] == "none"
    assert dead["error"].startswith(
        "JobError: no seat's bot joined and the worker's sandbox self-check fails now"
    )
    assert not client.exists(keys.result("none"), keys.pairs("ninjan"))
