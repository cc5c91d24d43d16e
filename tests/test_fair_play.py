"""Fair play, end to end: a cheating bot (tests/bots/cheater.py) against an honest one, through the real
``arena match`` and a real ``arena worker``, with the sandbox on as it is by default.

Each attack is one a hostile bot author tried against the platform before the sandbox; each test
checks that the attack got nothing, and that the honest opponent's result is unaffected (no strike,
no forfeit, a normal end). The last test's bot (tests/bots/rememberer.py) tries to carry its hand from
one rotation of a duplicate deal to the next, through every store it can reach, the kernel keyring
included.
"""

from __future__ import annotations

import errno
import json
import secrets
import sys
from pathlib import Path

import pytest
import redis

from arena.games.ninjan.engine import Ninjan
from arena.queue import keys, store
from arena.referee import cgroups, seccomp
from arena.referee.processes import BotLimits
from tests.conftest import REPO, RedisServer, game_lines, json_lines, processes_named, run_arena

pytestmark = pytest.mark.e2e
CHEATER = REPO / "tests" / "bots" / "cheater.py"
REMEMBERER = REPO / "tests" / "bots" / "rememberer.py"  # carries a duplicate deal's hand: the last test
DOCUMENTED_ENVIRONMENT = {"ARENA_ADDRESS", "ARENA_TOKEN", "HOME", "LANG", "PATH", "PWD", "TMPDIR"}


def cheat_reports(folder: Path) -> list[dict]:
    """Returns every report the cheater printed into a bot log under ``folder``."""
    from tests.conftest import reports_in_logs

    return reports_in_logs(folder, "CHEAT")


def bot_logs(folder: Path) -> str:
    return "\n".join(log.read_text(errors="replace") for log in sorted(folder.rglob("*.log")))


def play(tmp_path: Path, attack: str, *options: str, games: int = 1, opponent: str = "random") -> list[dict]:
    """Plays ``games`` Ninjan games, cheater against ``opponent``; returns the --json results."""
    command = f"{sys.executable} {CHEATER} {attack}"
    proc = run_arena(
        "match", "ninjan", command, opponent, "--json", "--games", str(games),
        "--replay-dir", str(tmp_path / "replays"), *options,
        env={"XDG_STATE_HOME": str(tmp_path / "state"), "ARENA_REDIS_URL": "redis://:hunter2@127.0.0.1:1/0"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    results = game_lines(proc.stdout)
    assert len(results) == games
    return results


def assert_honest_side_untouched(results: list[dict], honest: str = "random") -> None:
    for result in results:
        assert result["termination"] == "normal"
        for player in result["players"]:
            if player["bot"] == honest:
                assert (player["strikes"], player["forfeit"]) == (0, False), result


def test_a_bot_sees_no_process_secret_network_or_file_outside_its_sandbox(tmp_path: Path) -> None:
    state = tmp_path / "state" / "arena"
    (state / "bots" / "someone-elses-bot").mkdir(parents=True)
    targets = [
        str(tmp_path / "replays"),  # replays and bot logs of this very match
        str(state),  # arena's state: the bot cache, the private Redis, the seed key
        str(REPO / "tests" / "golden"),  # other files of the repository the bot lives in
        str(REPO / "bots" / "python"),  # the other bot's code
        str(Path.home() / ".local"),
        "/etc/shadow",
    ]
    results = play(tmp_path, "snoop " + " ".join(targets), opponent=str(REPO / "bots/python/first_bot.py"))
    assert_honest_side_untouched(results, honest="first")  # its Join name
    (report,) = [r for r in cheat_reports(tmp_path / "replays") if "pids" in r]
    assert report["uid"] == 65534
    assert report["other_tokens"] == [] and report["secrets"] == []
    assert set(report["environment"]) <= DOCUMENTED_ENVIRONMENT
    # the sandbox's init, the shell of the command and the bot: no other bot, no referee, no worker
    assert report["pids"] == [1, 2, 3]
    assert report["open_ports"] == []  # nothing on loopback: not Redis, not the referee's TCP port
    assert report["readable"] == {}, report["readable"]


def test_a_bot_cannot_signal_any_other_process(tmp_path: Path) -> None:
    results = play(tmp_path, "kill", games=2)
    assert_honest_side_untouched(results)
    reports = [r for r in cheat_reports(tmp_path / "replays") if "kill_attempts" in r]
    assert reports and all(r["kill_attempts"] == "done" and r["signalled"] == 0 for r in reports)


def test_a_child_that_leaves_the_session_and_clears_its_environment_dies_with_the_bot(tmp_path: Path) -> None:
    tag = f"{secrets.randbelow(10**6)}.{secrets.randbelow(10**6)}"
    results = play(tmp_path, f"escape {tag}")
    assert_honest_side_untouched(results)
    assert [r for r in cheat_reports(tmp_path / "replays") if "escaped_child" in r]
    assert not processes_named(tag), "the escaped child outlived the match"


def test_two_bots_at_one_table_cannot_read_each_others_files(tmp_path: Path) -> None:
    command = f"{sys.executable} {CHEATER} leave"
    proc = run_arena(
        "match", "ninjan", command, command, "--json", "--replay-dir", str(tmp_path / "replays"),
        env={"XDG_STATE_HOME": str(tmp_path / "state")},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    reports = [r for r in cheat_reports(tmp_path / "replays") if "found_left" in r]
    assert len(reports) == 2
    for report in reports:
        assert all(not name.startswith("hand-") for names in report["found_left"].values() for name in names)


# -- limits: each attack is stopped by its limit, reported in the bot's log, and the match goes on --


def test_a_fork_bomb_is_stopped_by_the_process_limit(tmp_path: Path) -> None:
    results = play(tmp_path, "forkbomb", "--bot-processes", "64")
    assert_honest_side_untouched(results)
    (report,) = [r for r in cheat_reports(tmp_path / "replays") if "forkbomb_stopped" in r]
    assert report["forkbomb_stopped"] < 64
    if "pids" in cgroups.support().parents:
        assert "[arena: the process limit (64) refused" in bot_logs(tmp_path / "replays")


def test_a_disk_fill_is_stopped_by_the_private_tmp_size(tmp_path: Path) -> None:
    results = play(tmp_path, "diskfill", "--bot-disk-mb", "16")
    assert_honest_side_untouched(results)
    (report,) = [r for r in cheat_reports(tmp_path / "replays") if "disk_stopped_at" in r]
    assert report["disk_stopped_at"] <= 16 << 20
    assert report["why"] == "No space left on device"


def test_a_memory_hog_is_stopped_by_the_memory_limit(tmp_path: Path) -> None:
    results = play(tmp_path, "memory", "--bot-memory-mb", "300")
    assert_honest_side_untouched(results)
    (report,) = [r for r in cheat_reports(tmp_path / "replays") if "memory_stopped_at" in r]
    assert report["memory_stopped_at"] <= 300 << 20


def test_a_bot_burning_every_core_does_not_make_its_opponent_time_out(tmp_path: Path) -> None:
    """The burner spins two processes per core all match long; its cgroup's quota keeps it to one
    core, so the honest bot and the referee keep the other and answer within a tight deadline."""
    if "cpu" not in cgroups.support().parents:  # e.g. an unprivileged user: the operator is told so
        line = BotLimits().describe()
        assert (
            "CPU share 1 cores (pinned to 1 of" in line
            or "(not enforced per bot: no writable cgroup)" in line
        )
        pytest.skip("no writable cpu cgroup here (an unprivileged user): the CPU share cannot be capped")
    results = play(tmp_path, "burn", "--deadline-ms", "250", "--bot-cpus", "1", games=6)
    assert_honest_side_untouched(results)


# -- a real worker: submitted bots, duplicate deals, a Redis with a password ----------------------


@pytest.fixture
def private_redis(tmp_path: Path):
    server = RedisServer(tmp_path / "redis-data")
    (tmp_path / "redis-data").mkdir()
    server.start()
    yield server
    server.kill()


def test_through_a_worker_no_bot_reaches_redis_or_remembers_a_duplicate_deal(
    tmp_path: Path, private_redis: RedisServer
) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "TMPDIR": str(tmp_path), "ARENA_REDIS_URL": ""}
    url = private_redis.url
    snoop = f"snoop {tmp_path / 'state'} {REPO / 'tests'} {REPO / 'bots'}"
    for name, attack in (("snooper", snoop), ("leaver", "leave")):
        entry = f"python cheater.py {attack}"
        proc = run_arena(
            "bots", "submit", name, "--games", "ninjan", "--dir", str(CHEATER.parent), "--entry", entry,
            "--redis", url, env=env,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
    proc = run_arena(
        "tournament", "ninjan", "--bots", "snooper,leaver,random", "--duplicate-deals", "--workers", "1",
        "--redis", url, env=env, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    logs = tmp_path  # the worker's bot logs are in a temporary folder under TMPDIR
    reports = cheat_reports(logs)
    snoops = [r for r in reports if "pids" in r]
    assert snoops
    for report in snoops:
        assert report["pids"] == [1, 2] and report["uid"] == 65534, report
        assert report["open_ports"] == [] and report["secrets"] == [] and report["other_tokens"] == [], report
        assert report["readable"] == {}, report
    leaves = [r for r in reports if "found_left" in r]
    assert len(leaves) == 4  # leaver plays 2 groups x 2 rotations, each in a fresh process
    for report in leaves:
        assert all(not n.startswith("hand-") for names in report["found_left"].values() for n in names)
    status = run_arena("leaderboard", "ninjan", "--json", "--redis", url, env=env)
    rows = json.loads(status.stdout)
    assert {row["bot"] for row in rows} == {"snooper", "leaver", "random"}


# The stores a sandboxed bot may write (its private tmpfs, its memory, its own children, its own IPC
# namespace): each takes the hand, and each is gone when the rotation's sandbox ends.
WRITABLE_STORES = {"memory", "keeper", "tmp", "home", "sysv_shm"}
# The stores it may not write: /dev and the root are read-only, and so is its code folder (its cwd).
READ_ONLY_STORES = {"dev_shm", "var_tmp", "run_arena", "code_folder", "cwd"}


def host_keys() -> str:
    """Returns the machine's /proc/keys as this test sees it (only read: the test adds no key)."""
    try:
        return Path("/proc/keys").read_text()
    except OSError:
        return ""


def test_through_a_worker_no_bot_carries_its_hand_to_the_next_rotation_of_a_duplicate_deal(
    tmp_path: Path, private_redis: RedisServer
) -> None:
    """A submitted bot (tests/bots/rememberer.py) plays a --duplicate-deals tournament on a real
    worker: each rotation of a deal is a fresh sandboxed process, and the cards it holds in one
    rotation are its opponent's hand in the other. Each process looks for what an earlier one left,
    predicts from it, then stores its hand everywhere it might reach: its memory, a child of its own
    that serves it on an abstract socket, files in /tmp, HOME, /dev/shm, /var/tmp, /run/arena and its
    code folder, a System V shared memory segment, and the kernel keyring (add_key into @s, @u, @us and
    a named session keyring, keyctl link into every keyring /proc/keys names and into @u and @us). No
    process finds anything or predicts anything; the keyring calls fail with EPERM, /proc/keys is empty,
    and the bot plays every move legally (no strike, no forfeit).

    The test itself never touches a kernel key; the bot tries the keyring only where its harmless probes
    of add_key, request_key and keyctl fail with EPERM (it is never run unsandboxed here either)."""
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "TMPDIR": str(tmp_path), "ARENA_REDIS_URL": ""}
    url = private_redis.url
    numbers = " ".join(str(seccomp.number(name)) for name in ("add_key", "request_key", "keyctl"))
    proc = run_arena(
        "bots", "submit", "rememberer", "--games", "ninjan", "--dir", str(REMEMBERER.parent),
        "--entry", f"python {REMEMBERER.name} {numbers}", "--redis", url, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    proc = run_arena(
        "tournament", "ninjan", "--bots", "rememberer,random", "--duplicate-deals", "--rounds", "2",
        "--deadline-ms", "10000", "--workers", "1", "--redis", url, env=env, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    listed = run_arena("results", "ninjan", "--json", "--redis", url, env=env)
    match_ids = [match["match_id"] for match in json_lines(listed.stdout)]
    assert len(match_ids) == 4, match_ids  # 2 deals x 2 rotations
    client = redis.Redis.from_url(url)
    played: dict[str, list[tuple[str, list[str], list[str]]]] = {}  # deal: (match, hand, opponent's hand)
    for match_id in match_ids:
        result = store.result_fields(client.get(keys.result(match_id)))
        assert result["termination"] == "normal", result
        for player in result["players"]:  # the bot played every move legally: no strike, no forfeit
            assert (player["strikes"], player["forfeit"]) == (0, False), result
        logs = run_arena("logs", match_id, "--json", "--redis", url, env=env)
        assert logs.returncode == 0, logs.stderr
        lines = [line["text"] for line in json_lines(logs.stdout) if line["bot"] == "rememberer"]
        reports = [json.loads(text[len("REMEMBER ") :]) for text in lines if text.startswith("REMEMBER ")]
        (look,) = [r for r in reports if "looked" in r]
        (first,) = [r for r in reports if "prediction" in r]
        (stored,) = [r for r in reports if "stored" in r]
        (holds,) = [r for r in reports if "keeper_holds" in r]
        # sandboxed, and a fresh process: nothing in its memory, this is its first match
        assert (look["uid"], look["seccomp"]) == (65534, True), look
        assert look["looked"]["memory"] == {} and look["looked"]["matches_played"] == 0, look
        # 1. every store comes back empty
        places = (WRITABLE_STORES | READ_ONLY_STORES) - {"memory"}
        assert {place: look["looked"][place] for place in places} == dict.fromkeys(places), look
        assert (look["proc_keys"], look["key_users"]) == ("", ""), look
        keyring = look["keyring"]
        assert keyring["probes"] == dict.fromkeys(("add_key", "request_key", "keyctl"), -errno.EPERM), look
        assert keyring["results"] and set(keyring["results"].values()) == {-errno.EPERM}, look
        assert keyring["found"] == [], look
        # 2. so it predicts nothing
        assert first["prediction"] is None and first["found"] == [], first
        assert (first["memory"], first["matches_played"]) == ({}, 1), first
        # the stores it may write took the hand (read back at once), the others refused it
        assert {s for s, outcome in stored["stored"].items() if outcome == "ok"} == WRITABLE_STORES, stored
        assert set(stored["stored"]) == WRITABLE_STORES | READ_ONLY_STORES, stored
        assert stored["kept"] == {"tmp": True, "home": True, "sysv_shm": True}, stored
        assert holds["keeper_holds"] == {first["deal"]: first["hand"]}, holds
        # every keyring call fails with EPERM: add_key into @s, @u, @us and a named ring, every link
        calls = stored["keyring"]
        assert {"add_key @s", "add_key @u", "add_key @us", "add_key named ring", "link into @u"} <= set(calls)
        assert set(calls.values()) == {-errno.EPERM}, calls
        # the deal, from the match's recorded seed: the bot's hand, and the one a store would have named
        (seat,) = [p["seat"] for p in result["players"] if p["bot"] == "rememberer"]
        hands = [sorted(map(str, hand)) for hand in Ninjan().initial_state(2, result["seed"]).hands]
        assert first["hand"] == hands[seat], (first, hands)
        played.setdefault(first["deal"], []).append((match_id, hands[seat], hands[1 - seat]))
    # what a store would have carried was worth it: each rotation's hand is the opponent's in the other
    assert len(played) == 2, played
    for (one, hand_one, opponent_one), (other, hand_other, opponent_other) in played.values():
        assert one.rsplit("-s", 1)[0] == other.rsplit("-s", 1)[0]  # two rotations of one deal
        assert hand_one != hand_other and (opponent_one, opponent_other) == (hand_other, hand_one)
    # nothing outlived its sandbox on the machine either: no key, no keeper
    assert "arena-rememberer" not in host_keys()
    assert not processes_named("arena-rememberer-keeper")
