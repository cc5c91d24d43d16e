"""End to end (issue 16 "Must show"): a real Redis, a real ``arena server`` process and two ``arena
worker`` processes (the sandbox on), and everything else driven through the CLI with ``--server``
only. A participant whose environment holds no Redis URL submits, updates and removes bots; the
organiser runs a tournament through the server and its leaderboard ranks the bots by strength.

The workers read the Redis URL from a file (``--redis-url-file``) and the server from its
environment; neither has it on its command line.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, free_port, run_arena, secret_file
from tests.hosted import HostedPlatform, hosted
from tests.test_queue import wait_until

pytestmark = [
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
    pytest.mark.e2e,
    pytest.mark.slow,
]

SUBMITTED = REPO / "tests" / "bots" / "submitted"
SMOKE_LIMIT = 180.0  # seconds: a safety limit for a smoke match to be played, not a timing assertion


@pytest.fixture
def platform(tmp_path: Path) -> Iterator[HostedPlatform]:
    with hosted(tmp_path / "platform", workers=2) as started:
        yield started


def participant(tmp_path: Path, server: str) -> Any:
    """Returns a function running ``arena ARGS --server URL`` as a participant: no Redis URL anywhere
    in the environment, and a state folder of their own with no Redis in it."""
    env = {"XDG_STATE_HOME": str(tmp_path / "participant"), "ARENA_REDIS_URL": ""}

    def run(*args: str) -> subprocess.CompletedProcess:
        proc = run_arena(*args, "--server", server, env=env)
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc

    return run


def active(run: Any, name: str) -> str:
    """Returns the bot's active version ("" while its candidate waits for its smoke match)."""
    proc = run("bots", "show", name, "--json")
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(proc.stdout)
    assert shown["smoke"] is None or shown["smoke"]["status"] != "failed", shown
    return shown["version"]


def submit(run: Any, name: str, folder: Path, secret: str | None = None) -> dict:
    """Submits a folder bot through the server; returns the answer (JSON) after its smoke match passed."""
    args = ["bots", "submit", name, "--games", "ninjan", "--dir", str(folder), "--entry", "python bot.py"]
    proc = run(*args, "--json", *(["--secret-file", secret_file(folder.parent, secret)] if secret else []))
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    wait_until(lambda: active(run, name) == answer["candidate"], f"{name}'s smoke match", SMOKE_LIMIT)
    return answer


def test_a_participant_without_redis_and_an_organiser_use_only_the_server(
    platform: HostedPlatform, tmp_path: Path
) -> None:
    run = participant(tmp_path, platform.url)
    folders = {}
    for name, source in (("strong", "greedy"), ("weak", "weak"), ("spare", "random")):
        folders[name] = tmp_path / name
        shutil.copytree(SUBMITTED / source, folders[name])
    first = submit(run, "strong", folders["strong"])
    secret = first["secret"]
    assert secret and first["kind"] == "directory"
    (folders["strong"] / "notes.txt").write_text("version 2\n")
    refused = run(
        "bots",
        "submit",
        "strong",
        "--games",
        "ninjan",
        "--dir",
        str(folders["strong"]),
        "--entry",
        "python bot.py",
        "--secret-file",
        secret_file(tmp_path, "not-the-secret"),
    )
    assert refused.returncode == 2 and "wrong owner secret" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    second = submit(run, "strong", folders["strong"], secret)
    assert second["secret"] is None and second["candidate"] != first["candidate"]
    submit(run, "weak", folders["weak"])
    spare = submit(run, "spare", folders["spare"])
    assert run("bots", "remove", "spare", "--secret-file", secret_file(tmp_path, secret)).returncode == 2
    removed = run("bots", "remove", "spare", "--secret-file", secret_file(tmp_path, spare["secret"]))
    assert removed.returncode == 0 and "removed spare" in removed.stdout
    listed = run("bots", "list", "--json")
    assert [b["name"] for b in json.loads(listed.stdout)] == ["strong", "weak"]
    check_a_bot_that_never_joins_stays_inactive(run, tmp_path)

    no_token = run("tournament", "ninjan", "--bots", "strong,weak,random")
    assert no_token.returncode == 2 and "--organiser-token-file" in no_token.stderr
    token = ["--organiser-token-file", str(platform.token_file)]
    inactive = run("tournament", "ninjan", "--bots", "strong,quitter", *token)
    assert inactive.returncode == 2 and "no active version" in inactive.stderr, inactive.stderr
    args = ["tournament", "ninjan", "--bots", "weak,random,strong", "--rounds", "3", "--seed", "11"]
    proc = run(*args, "--organiser-token-file", str(platform.token_file), "--json")
    assert proc.returncode == 0, proc.stderr
    assert "18 matches of ninjan (18 newly queued)" in proc.stderr
    standings = json.loads(proc.stdout)
    assert standings, proc.stdout
    with urllib.request.urlopen(f"{platform.url}/api/v1/games/ninjan/leaderboard", timeout=10) as response:
        board = json.loads(response.read())
    rows = board["rows"]
    elo = {row["bot"]: row["elo"] for row in rows}  # rows list provisional ratings last: compare Elo
    assert elo["strong"] > max(elo["weak"], elo["random"]), rows  # weak vs random is too close to call
    assert {row["bot"]: row["games"] for row in standings["rows"]} == {"strong": 12, "weak": 12, "random": 12}
    assert {row["bot"]: row["version"] for row in rows}["strong"] == second["candidate"]
    status = run("tournament", "status")
    assert status.returncode == 0 and "18/18 done (18 recorded, 0 dead)" in status.stdout
    tid = re.search(r"tournament (\S+): 18 matches", proc.stderr).group(1)  # type: ignore[union-attr]
    check_results_page_by_page(platform.url, tid, 18)
    check_a_participant_verifies_a_replay_against_the_server(run, platform.url, tmp_path)


def check_a_participant_verifies_a_replay_against_the_server(run: Any, server: str, tmp_path: Path) -> None:
    """``arena replay FILE --server URL``: the file the server recorded verifies; an edited one, one of
    a match the server never recorded, or one whose id only looks like a recorded one does not."""
    match_id = get(f"{server}/api/v1/matches?game=ninjan&limit=1")["matches"][0]["match_id"]
    with urllib.request.urlopen(f"{server}/api/v1/matches/{match_id}/log", timeout=10) as response:
        text = response.read().decode()
    recorded = tmp_path / "recorded.jsonl"
    recorded.write_text(text)
    same = run("replay", "-q", str(recorded))  # run adds --server
    assert same.returncode == 0 and f"matches the server's record of match {match_id}" in same.stdout, same
    forged_lines = {
        "an unknown id": text.replace(f'"match_id":"{match_id}"', f'"match_id":"{match_id}-x"', 1),
        "a look-alike id": text.replace(f'"match_id":"{match_id}"', f'"match_id":"{match_id}\u200b"', 1),
    }
    for what, forged_text in forged_lines.items():
        forged = tmp_path / "forged.jsonl"
        forged.write_text(forged_text)
        refused = run("replay", "-q", str(forged))
        assert refused.returncode == 1 and "replay verified" not in refused.stdout, (what, refused)
        assert "no record of match" in refused.stderr or "no match the platform" in refused.stderr, what


def get(url: str) -> Any:
    """Returns the decoded answer of GET ``url`` (JSON, else text)."""
    with urllib.request.urlopen(url, timeout=10) as response:
        data = response.read().decode()
    return json.loads(data) if response.headers.get_content_type() == "application/json" else data


def check_results_page_by_page(server: str, tid: str, total: int) -> None:
    """Reads a tournament's results seven at a time: every match once, each with its result, and its
    log (the replay) readable."""
    seen: list[str] = []
    after = "0"
    while after is not None:
        page = get(f"{server}/api/v1/tournaments/{tid}/results?limit=7&after={after}")
        seen += [r["match_id"] for r in page["results"] if r["status"] == "recorded" and r["result"]]
        after = page["next"]
    assert len(seen) == len(set(seen)) == total
    log = get(f"{server}/api/v1/matches/{seen[0]}/log")
    assert json.loads(log.splitlines()[0])["game"] == "ninjan"


def check_a_bot_that_never_joins_stays_inactive(run: Any, tmp_path: Path) -> None:
    """A bot that exits at once fails its smoke match: it gets no active version, its owner sees the
    reason, and no tournament can enter it."""
    folder = tmp_path / "quitter"
    folder.mkdir()
    (folder / "bot.py").write_text("import sys\nprint('giving up')\nsys.exit(3)\n")
    args = [
        "bots",
        "submit",
        "quitter",
        "--games",
        "ninjan",
        "--dir",
        str(folder),
        "--entry",
        "python bot.py",
    ]
    assert run(*args).returncode == 0

    def smoke_state() -> dict:
        return json.loads(run("bots", "show", "quitter", "--json").stdout)["smoke"]

    wait_until(
        lambda: smoke_state()["status"] not in ("pending", "running"), "quitter's smoke match", SMOKE_LIMIT
    )
    shown = run("bots", "show", "quitter")
    assert "smoke:    failed" in shown.stdout and "reason:" in shown.stdout, shown.stdout
    assert "version:  (none active yet)" in shown.stdout


def test_a_server_that_is_down_is_one_clear_line(tmp_path: Path) -> None:
    run = participant(tmp_path, f"http://127.0.0.1:{free_port()}")
    for args in (("bots", "list"), ("bots", "show", "x"), ("tournament", "status")):
        proc = run(*args)
        assert proc.returncode == 2
        assert proc.stderr.startswith("arena: error: cannot reach the arena server at http://127.0.0.1:")
        assert len(proc.stderr.strip().splitlines()) == 1
    proc = run_arena("bots", "list", "--server", "ftp://example.org")
    assert proc.returncode == 2 and "not an http:// or https:// URL" in proc.stderr


def test_workers_refuse_a_password_on_the_command_line_and_servers_a_bad_token_file() -> None:
    proc = run_arena("worker", "--redis", "redis://:hunter2@127.0.0.1:1/0")
    assert proc.returncode == 2 and "--redis-url-file" in proc.stderr and "hunter2" not in proc.stderr
    proc = run_arena("server", "--organiser-token-file", "/nonexistent/token")
    assert proc.returncode == 2 and "cannot read the organiser token file" in proc.stderr
