"""compose.yaml: it parses; Redis is private, password-protected from a secret file and persists its
data; the server is the one published service; the workers scale and hold the sandbox's grants; no
credential is on a command line; and every arena command it runs is a real ``arena`` command line
(run with ``--help``). No Docker here."""

from __future__ import annotations

import re
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


def test_the_server_is_published_on_a_configurable_host_side_and_the_workers_scale() -> None:
    server, worker = SERVICES["server"], SERVICES["worker"]
    port = option(server["command"], "--port")
    assert option(server["command"], "--host") == "0.0.0.0"
    (published,) = server["ports"]
    assert published == f"${{ARENA_BIND:-0.0.0.0}}:${{ARENA_PORT:-{port}}}:{port}"  # default unchanged
    assert "container_name" not in worker and "ports" not in worker  # both would break --scale
    for service in (server, worker):
        assert service["depends_on"]["redis"]["condition"] == "service_healthy"
        mounts = dict(volume.split(":") for volume in service["volumes"])
        assert set(mounts) <= set(COMPOSE["volumes"])
        assert mounts["replays"] == service["environment"]["ARENA_REPLAY_STORE"]
    assert dict(v.split(":") for v in worker["volumes"])["arena-state"] == "/var/lib/arena"  # the bot cache


def test_the_workers_get_what_the_sandbox_needs_in_a_container_and_no_privilege() -> None:
    """What tests/compose/test_stack.py's run needs: without seccomp=unconfined bubblewrap cannot make
    its user namespace, without systempaths=unconfined the kernel refuses the bot's fresh /proc."""
    worker = SERVICES["worker"]
    options = set(worker["security_opt"])
    assert {"seccomp=unconfined", "systempaths=unconfined"} <= options
    assert options <= {"seccomp=unconfined", "systempaths=unconfined", "apparmor=unconfined"}
    assert not worker.get("privileged") and not worker.get("cap_add")
    assert not any("cgroup" in volume for volume in worker["volumes"])  # never the host's cgroupfs
    assert worker.get("cgroup") != "host"
    # a cgroup v1 host gives no per-bot cgroup in a container: each worker container is bounded whole
    assert worker["cpus"] and worker["mem_limit"] and worker["pids_limit"]


def test_the_server_outweighs_each_worker_for_the_cpu() -> None:
    """Pages stay quick while matches play: each worker container's CPU weight is below the server's
    (Docker's default 1024), as the local stack nices its workers (a nice would not cross containers)."""
    assert "cpu_shares" not in SERVICES["server"]
    assert 2 <= SERVICES["worker"]["cpu_shares"] <= 1024 // 4


def test_services_run_as_users_of_their_own_which_can_read_their_secrets() -> None:
    """Server and workers run as different non-root users of the image, and the README's chown and
    chmod make each secret file readable by the services that mount it (and by no one else)."""
    server, worker = SERVICES["server"]["user"], SERVICES["worker"]["user"]
    server_uid, server_gid = server.split(":")
    worker_uid, worker_gid = worker.split(":")
    assert server_uid != worker_uid and "0" not in (server_uid, worker_uid)
    assert int(server_uid) >= 10000 and int(worker_uid) >= 10000  # above the host's usual user ids
    dockerfile = (REPO / "Dockerfile").read_text(encoding="utf-8")
    assert f"--uid {server_uid} --gid {server_gid}" in dockerfile
    assert f"--uid {worker_uid} --gid {worker_gid}" in dockerfile
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    chown = re.search(r"sudo chown (\d+):(\d+) ([^\n]+)", readme)
    assert chown and chown.group(1) == server_uid and chown.group(2) == server_gid
    owned = {name.removeprefix("secrets/") for name in chown.group(3).split()}
    group_readable = set(re.search(r"chmod 640 ([^\n]+)", readme).group(1).replace("secrets/", "").split())
    for name, service in SERVICES.items():
        if name not in ("server", "worker"):
            continue
        uid = service["user"].split(":")[0]
        for secret in service["secrets"]:
            assert secret in owned, f"{secret} is not given to the image's users"
            assert uid == server_uid or secret in group_readable, f"{name} cannot read {secret}"
    assert "redis_password" not in owned  # read by Redis's entrypoint as root only


def test_the_project_image_is_built_never_pulled_and_secrets_stay_out_of_git_and_builds() -> None:
    for name, service in arena_services().items():
        if "build" in service:
            assert service["pull_policy"] == "build", name
        else:
            assert service["pull_policy"] in ("never", "build"), name
    ignored = (REPO / ".gitignore").read_text().split()
    assert "secrets/" in ignored or "secrets" in ignored
    assert "secrets" in (REPO / ".dockerignore").read_text().split()


def test_the_image_carries_every_kit_language_and_the_sandbox() -> None:
    dockerfile = (REPO / "Dockerfile").read_text(encoding="utf-8")
    for package in ("bubblewrap", "nodejs", "golang-go", "golang-google-grpc-dev", "protoc-gen-go-grpc"):
        assert package in dockerfile, package
    assert "COPY arena " in dockerfile and "COPY leaderboard " in dockerfile  # the server mounts it
    assert "USER arena-server" in dockerfile


def test_the_commands_in_the_files_comments_are_the_readmes_which_the_stack_test_runs() -> None:
    """compose.yaml's header repeats the organiser's commands; they are README's, word for word, and
    tests/compose/test_stack.py runs README's (so neither can drift into a command that fails)."""
    header = (REPO / "compose.yaml").read_text(encoding="utf-8").split("\nname:", 1)[0]
    commands = [line.removeprefix("#   ") for line in header.splitlines() if line.startswith("#   ")]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(commands) >= 6
    for command in commands:
        assert command.split("  #")[0].strip() in readme, command
