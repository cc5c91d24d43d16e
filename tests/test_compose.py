"""compose.yaml: it parses, Redis persists its data, the worker can scale, and every arena service's
command is a real ``arena`` command line (checked by running it with ``--help``). No Docker here."""

from __future__ import annotations

import subprocess
import sys

import yaml

from tests.conftest import REPO

COMPOSE = yaml.safe_load((REPO / "compose.yaml").read_text(encoding="utf-8"))
SERVICES = COMPOSE["services"]


def arena_services() -> dict[str, dict]:
    """Returns the services that run the arena image (built from the Dockerfile)."""
    return {name: s for name, s in SERVICES.items() if "build" in s or s.get("image", "").startswith("arena")}


def help_exit_code(argv: list[str]) -> int:
    """Returns the exit code of the arena command line ``argv`` with --help appended."""
    assert argv[0] == "arena", f"{argv}: an arena service must run the arena command"
    command = [sys.executable, "-m", "arena.cli", *argv[1:], "--help"]
    return subprocess.run(command, capture_output=True, cwd=REPO, timeout=60).returncode


def test_every_arena_service_runs_a_real_arena_command() -> None:
    services = arena_services()
    assert set(services) == {"worker", "leaderboard"}
    for name, service in services.items():
        assert isinstance(service["command"], list), f"{name}: give the command as a list (no shell)"
        assert help_exit_code(service["command"]) == 0, (
            f"{name}: {service['command']} is not an arena command"
        )
    assert (REPO / "Dockerfile").is_file()


def test_the_command_check_rejects_what_is_not_an_arena_command() -> None:
    assert help_exit_code(["arena", "nosuch"]) != 0
    assert help_exit_code(["arena", "worker", "--no-such-option"]) != 0


def test_redis_persists_and_the_worker_scales() -> None:
    redis = SERVICES["redis"]
    command = redis["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert any(volume.endswith(":/data") for volume in redis["volumes"])
    assert redis["volumes"][0].split(":")[0] in COMPOSE["volumes"]
    worker = SERVICES["worker"]
    assert worker["environment"]["ARENA_REDIS_URL"] == "redis://redis:6379/0"
    assert "container_name" not in worker and "ports" not in worker  # both would break --scale
    assert worker["depends_on"]["redis"]["condition"] == "service_healthy"
