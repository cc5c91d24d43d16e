"""The hosted competition for real: ``compose.yaml`` on a real Docker daemon, Redis, the server and
workers in their containers, the bots in the real sandbox inside the workers.

An organiser and four participants follow README's "Hosting a competition" as written: each of its
runnable blocks is read from the README and run in bash (so the docs cannot drift from what works),
with only the substitutions in ``SUBSTITUTIONS`` (this run's address and worker count), each of
which must still be found in the README. Everything goes through the server with the CLI from the
host. Run by ``scripts/test-compose``, which starts the Docker daemon and cleans up the machine;
the tests run in order and share the stack (module scope).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from leaderboard import browser
from tests.conftest import REPO

RUN = Path(os.environ.get("ARENA_COMPOSE_RUN", "/nonexistent"))
DOCKER = "/usr/bin/docker"
PROJECT = f"arena-ci-{os.getpid()}"
BOTS = {"alice": "python", "bob": "node", "carol": "go", "dave": "c++"}  # README's bots, one per kit
ACCOUNTS = ("ann", "ben", "cleo", "dan")  # README's participants, an account each
SMOKE_SECONDS = 600  # a first Go build on a cold worker included
TOURNAMENT_SECONDS = 900


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


PORT = free_port()
URL = f"http://127.0.0.1:{PORT}"
# What this run changes in the README's commands, and nothing else.
SUBSTITUTIONS = {
    "--scale worker=4": "--scale worker=2",
    "http://arena.example:8080": URL,
    "http://localhost:8080": URL,
}


def readme_blocks(heading: str) -> list[str]:
    """Returns the ```sh blocks of README's '### heading' section (in 'Hosting a competition')."""
    hosting = (REPO / "README.md").read_text(encoding="utf-8").split("\n## Hosting a competition\n", 1)[1]
    section = hosting.split(f"\n### {heading}\n", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, flags=re.S)


def substituted(block: str) -> str:
    for old, new in SUBSTITUTIONS.items():
        block = block.replace(old, new)
    return block


def test_every_substitution_is_still_in_the_readme() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    for old in SUBSTITUTIONS:
        assert old in text, f"README no longer says {old!r}: update SUBSTITUTIONS with it"


class Stack:
    """The project copy the organiser works in, and how to run commands there as a person would."""

    def __init__(self, folder: Path, bin_dir: Path) -> None:
        self.folder = folder
        self.env = {
            **os.environ,
            "PATH": f"{bin_dir}:{REPO / '.venv' / 'bin'}:{os.environ['PATH']}",
            "COMPOSE_PROJECT_NAME": PROJECT,
            "ARENA_BIND": "127.0.0.1",
            "ARENA_PORT": str(PORT),
            "XDG_STATE_HOME": str(folder / ".state"),  # the host CLI keeps nothing of the user's
        }
        for name in ("ARENA_SERVER", "ARENA_BOT_SECRET", "ARENA_REDIS_URL"):
            self.env.pop(name, None)

    def bash(self, script: str, timeout: float = 900, **env: str) -> str:
        """Runs ``script`` in bash (errexit, pipefail) in the project folder; returns its output."""
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=self.folder,
            env={**self.env, **env},
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, (
            f"{script}\nexit {done.returncode}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
        )
        return done.stdout + done.stderr

    def compose(self, *args: str, timeout: float = 900) -> str:
        done = subprocess.run(
            [DOCKER, "compose", *args],
            cwd=self.folder,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert done.returncode == 0, f"docker compose {' '.join(args)}: {done.stderr[-4000:]}"
        return done.stdout

    def arena_json(self, *args: str) -> object:
        return json.loads(
            self.bash(" ".join(["arena", *args, "--json", "--server", URL]), timeout=120).strip()
        )

    def containers(self, service: str) -> list[str]:
        return self.compose("ps", "-q", service).split()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The organiser's copy of the project (the files git tracks), with ``docker`` (the daemon's own
    client) and, for root, ``sudo`` first on PATH; the stack is taken down, volumes and all, at the end."""
    folder = tmp_path_factory.mktemp("organiser") / "arena"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        source = REPO / name
        if source.is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
    bin_dir = folder.parent / "bin"
    bin_dir.mkdir()
    (bin_dir / "docker").symlink_to(DOCKER)
    if os.getuid() == 0:
        (bin_dir / "sudo").write_text('#!/bin/sh\nexec "$@"\n')
        (bin_dir / "sudo").chmod(0o755)
    stack = Stack(folder, bin_dir)
    try:
        yield stack
    finally:
        hold(folder)
        logs = subprocess.run(
            [DOCKER, "compose", "logs", "--no-color"],
            cwd=folder,
            env=stack.env,
            capture_output=True,
            text=True,
        )
        (RUN / "compose.log").write_text(logs.stdout + logs.stderr)
        subprocess.run([DOCKER, "compose", "down", "--volumes", "--timeout", "20"], cwd=folder, env=stack.env)


def hold(folder: Path) -> None:
    """With ARENA_COMPOSE_HOLD=1, keeps the stack up for a person to look at until the file
    ``$ARENA_COMPOSE_RUN/hold`` is removed (its path and the project's are printed)."""
    if os.environ.get("ARENA_COMPOSE_HOLD") != "1":
        return
    gate = RUN / "hold"
    gate.write_text(
        f"cd {folder} && COMPOSE_PROJECT_NAME={PROJECT} DOCKER_HOST={os.environ['DOCKER_HOST']}\n"
    )
    print(f"holding the stack: rm {gate} to go on", flush=True)
    while gate.exists():
        time.sleep(1)


def http_json(path: str) -> object:
    with urllib.request.urlopen(URL + path, timeout=30) as answer:
        return json.loads(answer.read())


def wait_for(what: str, check, seconds: float, every: float = 2.0):
    """Returns ``check()``'s first truthy value, polling; fails naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"{what}: not within {seconds:g} s"
        time.sleep(every)


# -- the organiser starts the stack ----------------------------------------------------------------


def test_the_organiser_starts_the_stack_as_the_readme_says(stack: Stack) -> None:
    (setup,) = readme_blocks("The organiser: start the stack")[:1]
    output = stack.bash(substituted(setup), timeout=1800)
    running = stack.compose("ps", "--format", "{{.Service}} {{.State}}").split("\n")
    states = sorted(line for line in running if line)
    assert states == ["redis running", "server running", "worker running", "worker running"], states
    first_lines = [line for line in output.splitlines() if "arena: bots run" in line]
    assert len(first_lines) == 2, output  # each worker's first line, grepped by the README's command
    for line in first_lines:
        assert "bots run sandboxed" in line
        # cgroup v1 host: no per-bot cgroup in a container: each seat pinned, the container's bounds named
        assert "CPU share 1 cores (pinned to 1 of this worker's 2 CPUs per seat: no writable cgroup)" in line
        assert "all bots together: this worker's cgroup (2 cores, 6144 MiB, 2048 processes)" in line, line
        for limit in ("memory 2048 MiB", "processes 512", "CPU time 3600 s", "open files 256", "disk 64 MiB"):
            assert limit in line, line


def test_redis_is_not_published_and_the_server_only_on_the_chosen_address(stack: Stack) -> None:
    for container in stack.containers("redis"):
        ports = json.loads(subprocess.check_output([DOCKER, "inspect", container]))[0]["NetworkSettings"][
            "Ports"
        ]
        assert all(not bound for bound in ports.values()), ports
    (server,) = stack.containers("server")
    ports = json.loads(subprocess.check_output([DOCKER, "inspect", server]))[0]["NetworkSettings"]["Ports"]
    assert ports["8080/tcp"] == [{"HostIp": "127.0.0.1", "HostPort": str(PORT)}]
    assert http_json("/api/v1/bots") is not None


def test_services_run_as_users_of_their_own(stack: Stack) -> None:
    def uid(container: str) -> str:
        return subprocess.check_output([DOCKER, "exec", container, "id", "-u"], text=True).strip()

    (server,) = stack.containers("server")
    assert uid(server) == "10001"
    assert {uid(c) for c in stack.containers("worker")} == {"10002"}
    host_users = {line.split(":")[2] for line in Path("/etc/passwd").read_text().splitlines() if ":" in line}
    assert not {"10001", "10002"} & host_users


# -- participants enter bots in every kit language -------------------------------------------------


def smoke_state(stack: Stack, bot: str) -> dict:
    shown = stack.arena_json("bots", "show", bot)
    assert isinstance(shown, dict)
    return shown


def smoke_done(stack: Stack, bot: str) -> dict | None:
    shown = smoke_state(stack, bot)
    smoke = shown.get("smoke") or {}
    return shown if smoke.get("status") in ("passed", "failed") else None


def test_participants_enter_a_bot_in_every_kit_language(stack: Stack, secrets_seen: dict[str, str]) -> None:
    account, entering = readme_blocks("A participant: enter a bot")[:2]
    output = stack.bash(substituted(account + entering), timeout=1200)
    assert "state:    active" in output, output  # arena account show
    assert set(re.findall(r"submitted (\w+) version", output)) == set(BOTS), output
    for person in ACCOUNTS:  # each token went to a file of its own, readable by its owner only
        token_file = stack.folder / f"{person}.token"
        assert token_file.stat().st_mode & 0o077 == 0, oct(token_file.stat().st_mode)
        secrets_seen[f"account token of {person}"] = token_file.read_text().strip()
    for bot in BOTS:
        shown = wait_for(f"{bot}'s smoke match", lambda bot=bot: smoke_done(stack, bot), SMOKE_SECONDS)
        assert shown["smoke"]["status"] == "passed", (bot, shown)
        assert shown["version"], shown  # the version tournaments use


# Hostile builds, run by the image's unprivileged worker: each fails its submission with its reason.
HOSTILE_BUILDS = {
    "fifo-maker": ("mkfifo pipe", "is a device or a fifo"),
    "disk-hider": (
        "exec 3>hidden && rm hidden && head -c 900000000 /dev/zero >&3",
        "No space left on device",
    ),
    "fork-bomber": ("for i in $(seq 2000); do sleep 30 & done; wait", "exited with code"),
}


def test_hostile_builds_fail_with_their_reason_on_an_unprivileged_worker(stack: Stack) -> None:
    folder = stack.folder / "hostile"
    folder.mkdir()
    (folder / "bot.py").write_text("print('never runs')\n")
    for name, (script, _) in HOSTILE_BUILDS.items():
        stack.bash(
            f"arena bots submit {name} --games ninjan --dir hostile --entry ./bot "
            f"--build {shlex.quote('sh -c ' + shlex.quote(script))} --server {URL}",
            timeout=120,
        )
    for name, (_, reason) in HOSTILE_BUILDS.items():
        shown = wait_for(f"{name}'s smoke match", lambda name=name: smoke_done(stack, name), SMOKE_SECONDS)
        assert shown["smoke"]["status"] == "failed", shown
        assert reason in shown["smoke"]["reason"], (name, shown["smoke"]["reason"])
        assert not shown["version"], shown  # never active
    for worker in stack.containers("worker"):  # no build's work folder is left in a worker's cache
        listed = subprocess.run(
            [
                DOCKER,
                "exec",
                worker,
                "sh",
                "-c",
                "ls -a /var/lib/arena/bots 2>/dev/null | grep -c -- -build- || true",
            ],
            capture_output=True,
            text=True,
        )
        assert listed.stdout.strip() in ("", "0"), listed.stdout


def test_a_participant_updates_a_bot_with_the_account_token_file_in_the_environment(stack: Stack) -> None:
    before = smoke_state(stack, "alice")["version"]
    update = readme_blocks("A participant: enter a bot")[2]
    output = stack.bash(substituted(update))
    assert "updated alice version" in output, output

    def new_active() -> dict | None:
        shown = smoke_state(stack, "alice")
        return shown if shown["version"] != before and shown["smoke"]["status"] == "passed" else None

    shown = wait_for("alice's new version", new_active, SMOKE_SECONDS)
    assert "take_richest.py" in json.dumps(shown)


# -- the organiser's tournament ----------------------------------------------------------------------


def test_the_organiser_runs_a_tournament_every_kit_plays_sandboxed_without_a_strike(stack: Stack) -> None:
    (block,) = readme_blocks("The organiser: run a tournament")
    output = stack.bash(substituted(block), timeout=TOURNAMENT_SECONDS)
    assert '"rows"' in output  # the curl line: the ratings as JSON
    leaderboard = http_json("/api/v1/games/ninjan/leaderboard")
    assert isinstance(leaderboard, dict)
    assert {row["bot"] for row in leaderboard["rows"]} >= {*BOTS, "random"}
    (tournament,) = [t for t in http_json("/api/v1/tournaments")["tournaments"] if t["game"] == "ninjan"]
    matches = 10 * 2 * 2  # every pair of 5 bots, both seatings, 2 rounds
    assert int(tournament["recorded"]) == int(tournament["total"]) == matches, tournament
    assert int(tournament.get("dead") or 0) == 0, tournament
    played = http_json("/api/v1/matches?game=ninjan&limit=200")["matches"]  # smoke matches are no results
    assert len(played) == matches
    for match in played:
        for player in match["players"]:
            assert not player["forfeit"] and not player["strikes"], match


def orphaned_zombies(container: str) -> list[str]:
    """Returns the finished processes in ``container`` that nobody reaps: zombies whose parent is the
    container's PID 1 (each still holds one of the container's ``pids_limit``)."""
    script = "for s in /proc/[0-9]*/stat; do cat $s 2>/dev/null; echo; done"
    stats = subprocess.run([DOCKER, "exec", container, "sh", "-c", script], capture_output=True, text=True)
    lines = [line for line in stats.stdout.splitlines() if line]
    assert stats.returncode == 0 and len(lines) > 1, stats.stderr  # PID 1 and the worker at least
    found = []
    for line in lines:
        state, parent = line.rsplit(") ", 1)[1].split()[:2]  # the fields after the command's name
        if state == "Z" and parent == "1":
            found.append(line[:80])
    return found


def test_a_workers_container_reaps_every_finished_bot_process(stack: Stack) -> None:
    """A bot's sandbox leaves processes whose parent exits first; in a container they are handed to
    its PID 1. With the worker as PID 1 nobody reaped them: the dress rehearsal's workers held 2039
    of their 2048 processes after 17 minutes and could start no bot (issue 38). Run after the
    tournament above (its 40 matches and the smoke matches before them)."""
    workers = stack.containers("worker")
    assert workers
    for container in workers:
        log = worker_log(container)
        assert log.count(": recorded") + log.count("smoke passed") > 0
        assert orphaned_zombies(container) == [], container


# -- what the organiser sees, and what nobody may ----------------------------------------------------


def test_the_leaderboard_reads_over_http_and_in_chromium(stack: Stack) -> None:
    rows = http_json("/api/v1/games/ninjan/leaderboard")["rows"]
    with browser.chromium() as chrome:
        page = browser.open_page(chrome, f"{URL}/games/ninjan")
        shown = page.eval_on_selector_all(
            "#leaderboard tbody tr td.bot .botname",
            "cells => cells.map(c => c.textContent)",  # no badge
        )
        page.screenshot(path=str(RUN / "leaderboard.png"), full_page=True)
        page.close()
    assert sorted(shown) == sorted(row["bot"] for row in rows), shown


@pytest.fixture(scope="module")
def secrets_seen() -> dict[str, str]:
    """Every secret this run learns (the organiser's files, the participants' account tokens)."""
    return {}


def test_no_secret_appears_in_any_argv_environment_inspect_history_or_log(
    stack: Stack, secrets_seen: dict[str, str]
) -> None:
    for name in ("redis_password", "organiser_token", "seed_key"):
        secrets_seen[name] = (stack.folder / "secrets" / name).read_text().strip()
    places: dict[str, str] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):  # every process, the containers' included
        for part in ("cmdline", "environ"):
            try:
                places[f"/proc/{pid}/{part}"] = (
                    Path(f"/proc/{pid}/{part}").read_bytes().decode(errors="replace")
                )
            except OSError:
                continue
    containers = stack.compose("ps", "-aq").split()
    places["docker inspect"] = subprocess.check_output([DOCKER, "inspect", *containers], text=True)
    places["image inspect"] = subprocess.check_output([DOCKER, "image", "inspect", "arena:latest"], text=True)
    places["image history"] = subprocess.check_output(
        [DOCKER, "history", "--no-trunc", "arena:latest"], text=True
    )
    places["compose logs"] = stack.compose("logs", "--no-color")
    for name, secret in secrets_seen.items():
        assert len(secret) >= 32, name
        leaks = [place for place, text in places.items() if secret in text]
        assert not leaks, f"{name} appears in {leaks}"


# -- growing and restarting ----------------------------------------------------------------------------


def test_a_third_worker_joins_and_plays(stack: Stack) -> None:
    """Scaled to three, the new worker takes jobs: with the first two paused, it plays a small
    tournament alone."""
    old = stack.containers("worker")
    stack.compose("up", "-d", "--wait", "--no-recreate", "--scale", "worker=3", timeout=600)
    (new,) = set(stack.containers("worker")) - set(old)
    # running is not yet checked: the worker says how bots run once its sandbox check has passed
    wait_for("the new worker's sandbox line", lambda: "arena: bots run sandboxed" in worker_log(new), 120)
    subprocess.run([DOCKER, "pause", *old], check=True)
    try:
        output = stack.bash(
            f"arena tournament ninjan --bots alice,random --rounds 1 --server {URL} "
            "--organiser-token-file secrets/organiser_token",
            timeout=TOURNAMENT_SECONDS,
        )
    finally:
        subprocess.run([DOCKER, "unpause", *old], check=True)
    assert "alice" in output
    assert worker_log(new).count(": recorded") == 2, worker_log(new)  # both seatings, on the new worker


def worker_log(container: str) -> str:
    done = subprocess.run([DOCKER, "logs", container], capture_output=True, text=True, check=True)
    return done.stdout + done.stderr


def test_a_worker_without_the_sandbox_grants_says_why_in_one_line_and_exits(stack: Stack) -> None:
    """Docker's defaults (what today's workers had): the bot-identical check fails before any job, with
    bubblewrap's own words and the grants to add; the restart policy and the log carry the line."""
    done = subprocess.run(
        [DOCKER, "run", "--rm", "--user", "10002:10000", "arena:latest", "arena", "worker", "--burst"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done
    (line,) = done.stderr.splitlines()
    assert line.startswith("arena: error: the bot sandbox cannot start on this machine (bwrap: "), line
    assert "seccomp=unconfined, systempaths=unconfined and apparmor=unconfined" in line, line


def test_the_stack_restarts_with_every_result_still_there(stack: Stack) -> None:
    before = http_json("/api/v1/games/ninjan/leaderboard")["rows"]
    matches = http_json("/api/v1/matches?game=ninjan&limit=200")["matches"]
    stack.compose("down", "--timeout", "20")
    stack.compose("up", "-d", "--wait", "--scale", "worker=2", timeout=900)
    after = http_json("/api/v1/games/ninjan/leaderboard")["rows"]
    assert [(r["bot"], r["games"], round(r["elo"], 6)) for r in after] == [
        (r["bot"], r["games"], round(r["elo"], 6)) for r in before
    ]
    assert http_json("/api/v1/matches?game=ninjan&limit=200")["matches"] == matches
    for bot in BOTS:
        assert smoke_state(stack, bot)["smoke"]["status"] == "passed"
