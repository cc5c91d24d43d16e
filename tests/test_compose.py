"""compose.yaml: it parses; Redis is private, password-protected from a secret file and persists its
data; the server is the one published service; the workers scale and hold the sandbox's grants; no
credential is on a command line; and every arena command it runs is a real ``arena`` command line
(run with ``--help``). No Docker here."""

from __future__ import annotations

import subprocess
import sys

import yaml

from tests.conftest import REPO

COMPOSE = yaml.safe_load((REPO / "compose.yaml").read_text(encoding="utf-8"))
SERVICES = COMPOSE["services"]
SECRETS = "/run/secrets/"


def arena_services() -> dict[str, dict]:
    """Returns the services that run the arena image (built from the Dockerfile)."""
    return {name: s for name, s in SERVICES.items() if "build" in s or s.get("image", "").startswith("arena")}


def help_exit_code(argv: list[str]) -> int:
    """Returns the exit code of the arena command line ``argv`` with --help appended."""
    assert argv[0] == "arena", f"{argv}: an arena service must run the arena command"
    command = [sys.executable, "-m", "arena.cli", *argv[1:], "--help"]
    return subprocess.run(command, capture_output=True, cwd=REPO, timeout=60).returncode


def option(argv: list[str], name: str) -> str:
    """Returns the value given to ``name`` in ``argv``."""
    assert name in argv, f"{argv} lacks {name}"
    return argv[argv.index(name) + 1]


def test_every_arena_service_runs_a_real_arena_command() -> None:
    services = arena_services()
    assert set(services) == {"server", "worker"}
    for name, service in services.items():
        assert isinstance(service["command"], list), f"{name}: give the command as a list (no shell)"
        assert help_exit_code(service["command"]) == 0, (
            f"{name}: {service['command']} is not an arena command"
        )
    assert (REPO / "Dockerfile").is_file()


def test_the_command_check_rejects_what_is_not_an_arena_command() -> None:
    assert help_exit_code(["arena", "nosuch"]) != 0
    assert help_exit_code(["arena", "worker", "--no-such-option"]) != 0
    assert help_exit_code(["arena", "server", "--no-such-option"]) != 0


def test_redis_is_private_password_protected_and_persistent() -> None:
    redis = SERVICES["redis"]
    assert "ports" not in redis and "expose" not in redis  # reachable on the compose network only
    command = " ".join(redis["command"])
    assert "requirepass" in command and f"{SECRETS}redis_password" in command
    assert "--requirepass" not in command  # the password goes in a config file, not on argv
    assert "--appendonly yes" in command
    assert redis["secrets"] == ["redis_password"]
    assert f"{SECRETS}redis_password" in " ".join(redis["healthcheck"]["test"])
    assert any(volume.endswith(":/data") for volume in redis["volumes"])
    assert redis["volumes"][0].split(":")[0] in COMPOSE["volumes"]


def test_credentials_come_from_secret_files_never_a_command_line_or_the_environment() -> None:
    for name, service in arena_services().items():
        argv = service["command"]
        url_file = option(argv, "--redis-url-file")
        assert url_file.startswith(SECRETS) and url_file.removeprefix(SECRETS) in service["secrets"]
        assert "--redis" not in argv
        assert "ARENA_REDIS_URL" not in service.get("environment", {}), name
    server = SERVICES["server"]["command"]
    assert option(server, "--organiser-token-file") == f"{SECRETS}organiser_token"
    for secret in COMPOSE["secrets"].values():
        assert secret["file"].startswith("./secrets/")  # made by the organiser, never committed
    used = {s for service in SERVICES.values() for s in service.get("secrets", [])}
    assert used == set(COMPOSE["secrets"])


def test_the_server_is_published_and_the_workers_scale_with_the_sandbox_grants() -> None:
    server, worker = SERVICES["server"], SERVICES["worker"]
    port = option(server["command"], "--port")
    assert server["ports"] == [f"{port}:{port}"] and option(server["command"], "--host") == "0.0.0.0"
    assert "container_name" not in worker and "ports" not in worker  # both would break --scale
    assert set(worker["security_opt"]) == {"seccomp=unconfined", "apparmor=unconfined"}
    assert not worker.get("privileged") and not worker.get("cap_add")  # nothing beyond the namespaces
    for service in (server, worker):
        assert service["depends_on"]["redis"]["condition"] == "service_healthy"
        mounts = dict(volume.split(":") for volume in service["volumes"])
        assert set(mounts) <= set(COMPOSE["volumes"])
        assert mounts["replays"] == service["environment"]["ARENA_REPLAY_STORE"]
        assert mounts["arena-state"] == "/var/lib/arena"


def test_the_image_installs_bubblewrap_and_everything_the_services_import() -> None:
    dockerfile = (REPO / "Dockerfile").read_text(encoding="utf-8")
    assert "bubblewrap" in dockerfile
    assert "COPY arena " in dockerfile and "COPY leaderboard " in dockerfile  # the server mounts it
    assert "USER arena" in dockerfile
