"""The platform a rehearsal runs against with ``--against compose``: ``compose.yaml`` on the Docker
daemon ``DOCKER_HOST`` names (bench/rehearsal.py starts one of its own with scripts/with-docker), run
from an organiser's copy of the project (the files git tracks) with secrets made as README's "Hosting a
competition" says, the server published on a free loopback port, Redis on the compose network only.

The one change to the organiser's stack is a compose override file beside ``compose.yaml`` that adds
the rehearsal's server options (its raised per-address limits: one address stands for every
participant) to the server's command, as an organiser would add their own. Each container's output is
copied to ``logs/<name>.log`` (``server``, ``redis``, ``worker-N``) whenever the rehearsal samples and
at the end, and the replay store out of its volume into ``replays/`` at the end, so the report reads
the same files as with the local stack. Usage is read from the host's
/proc for the container's first process and its descendants (the same figures as the local stack's)
and from the container's cgroup (all it ran, the page cache in its memory).
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, NamedTuple

import psutil  # type: ignore[import-untyped]
import yaml  # type: ignore[import-untyped]

from arena.testing import free_port

from .roster import REPO
from .stack import StackError, answers, tree_usage

DOCKER = "/usr/bin/docker"  # Debian's client, the version of the daemon scripts/with-docker starts
OVERRIDE = "compose.rehearsal.yaml"
UP_LIMIT_S = 1800  # the image's first build included
SERVER_UID, WORKER_GID = 10001, 10000  # compose.yaml's users: the secrets must be theirs to read


class Container(NamedTuple):
    """One running container of the stack, by its host pid (its first process's)."""

    pid: int
    id: str


class ComposeStack:
    """``compose.yaml`` brought up under ``folder/project``, a compose project of the rehearsal's own."""

    def __init__(self, folder: Path, server_options: list[str]) -> None:
        self.folder = folder
        self.logs = folder / "logs"
        self.project = folder / "project"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.organiser = ""  # read from the secret file once made
        self.server_options = server_options
        self.started: dict[int, float] = {}  # pid -> monotonic time it was first seen
        self.known: dict[str, Container] = {}  # name -> running container, kept after the stack stops
        self.ids: dict[str, str] = {}  # name -> container id, every container seen (for the logs)
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("ARENA_")},
            "COMPOSE_PROJECT_NAME": f"arena-rehearsal-{os.getpid()}",
            "COMPOSE_FILE": f"compose.yaml:{OVERRIDE}",
            "ARENA_BIND": "127.0.0.1",
            "ARENA_PORT": str(self.port),
        }

    def start(self, workers: int) -> None:
        """Copies the project, makes the secrets and the override, and brings the stack up (returns
        once the server is healthy and ``workers`` workers run)."""
        if not os.environ.get("DOCKER_HOST"):
            raise StackError("--against compose needs a Docker daemon: run it under scripts/with-docker")
        self.project.mkdir(parents=True, exist_ok=True)
        try:
            self.compose("version")
        except StackError:
            raise StackError(
                "--against compose needs Docker Compose v2 (`docker compose version` fails here): "
                "run it under scripts/with-docker, which installs it"
            ) from None
        self.logs.mkdir(parents=True, exist_ok=True)
        self._copy_project()
        self._make_secrets()
        self._write_override()
        self.compose("up", "-d", "--build", "--wait", "--scale", f"worker={workers}", timeout=UP_LIMIT_S)
        self._refresh()
        if not answers(self.url):
            raise StackError(f"the server container does not answer on {self.url}: see {self.logs}")

    def _copy_project(self) -> None:
        tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
        for name in filter(None, tracked.decode().split("\0")):
            if (REPO / name).is_file():
                (self.project / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(REPO / name, self.project / name)

    def _make_secrets(self) -> None:
        """The secrets as README's "The organiser: start the stack" makes them (its modes and owners)."""
        folder = self.project / "secrets"
        folder.mkdir(exist_ok=True)
        password = secrets.token_hex(32)
        self.organiser = secrets.token_hex(32)
        values = {
            "redis_password": password,
            "redis_url": f"redis://:{password}@redis:6379/0",
            "organiser_token": self.organiser,
            "seed_key": secrets.token_hex(32),
        }
        for name, value in values.items():
            (folder / name).write_text(value + "\n")
            (folder / name).chmod(0o640 if name in ("redis_url", "seed_key") else 0o600)
            if name != "redis_password":
                try:
                    os.chown(folder / name, SERVER_UID, WORKER_GID)
                except PermissionError:
                    raise StackError(
                        f"the secrets must belong to uid {SERVER_UID} (README: sudo chown): run it as root"
                    ) from None

    def _write_override(self) -> None:
        """The server's command from compose.yaml with the rehearsal's options added. The workers run
        as shipped: compose.yaml's ``cpu_shares`` gives them less CPU weight than the server's, which
        is what the local stack's ``WORKER_NICE`` does (a nice would not cross containers)."""
        shipped = yaml.safe_load((self.project / "compose.yaml").read_text())
        command = [*shipped["services"]["server"]["command"], *self.server_options]
        override = {"services": {"server": {"command": command}}}
        (self.project / OVERRIDE).write_text(yaml.safe_dump(override))

    def compose(self, *args: str, timeout: float = 600) -> str:
        """Runs ``docker compose ARGS`` in the project; raises StackError with its output's tail."""
        try:
            done = subprocess.run(
                [DOCKER, "compose", *args], cwd=self.project, env=self.env,
                capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise StackError(f"docker compose {' '.join(args)}: {exc}") from None
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-20:])
            raise StackError(f"docker compose {' '.join(args)} exited {done.returncode}:\n{tail}")
        return done.stdout

    def _refresh(self) -> None:
        """Reads the project's containers into ``ids`` and the running ones into ``known`` (names:
        redis, server, worker-N)."""
        label = "label=com.docker.compose.project=" + self.env["COMPOSE_PROJECT_NAME"]
        fields = "{{.ID}} " + " ".join(
            f'{{{{.Label "com.docker.compose.{key}"}}}}' for key in ("service", "container-number")
        )
        listed = docker("ps", "--all", "--filter", label, "--format", fields).split("\n")
        for line in filter(None, listed):
            cid, service, number = line.split()
            name = f"worker-{int(number) - 1}" if service == "worker" else service
            self.ids[name] = cid
            pid = arena_process(int(docker("inspect", "--format", "{{.State.Pid}}", cid).strip() or 0))
            if pid:
                self.started.setdefault(pid, time.monotonic())
                self.known[name] = Container(pid, cid)

    def add_worker(self) -> int:
        """Scales the workers up by one (the running ones untouched); returns the new one's index."""
        count = sum(1 for name in self.known if name.startswith("worker-"))
        self.compose("up", "-d", "--wait", "--no-recreate", "--scale", f"worker={count + 1}")
        self._refresh()
        return count

    def components(self) -> dict[str, Container]:
        """Returns the containers by name, as last seen (also once the stack is down)."""
        return dict(self.known)

    def usage(self) -> dict[str, dict[str, float]]:
        """Returns each container's usage: its first process's tree from /proc (as ``tree_usage``),
        and its cgroup's CPU seconds and memory (``cgroup_cpu_s``, ``cgroup_mem_mb``)."""
        self._refresh()
        return {name: tree_usage(c.pid) | cgroup_usage(c.pid) for name, c in self.known.items()}

    def refresh_logs(self) -> None:
        """Writes each container's whole output so far to ``logs/<name>.log``."""
        for name, cid in self.ids.items():
            done = subprocess.run([DOCKER, "logs", cid], capture_output=True, timeout=120)
            if done.returncode == 0:  # a container already removed keeps the log last written
                (self.logs / f"{name}.log").write_bytes(done.stdout + done.stderr)

    def redis_client(self) -> Any:
        """Returns a client of the stack's Redis, at its container's address on the compose network
        (Redis is not published), with the password from the secret file."""
        from arena.queue.connection import connect

        networks = "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}"
        address = docker("inspect", "--format", networks, self.known["redis"].id).split()[0]
        password = (self.project / "secrets" / "redis_password").read_text().strip()
        return connect(f"redis://:{password}@{address}:6379/0")

    def stop(self) -> None:
        """Stops the containers (30 s grace), keeps their logs, then removes the stack and its volumes."""
        if not (self.project / OVERRIDE).exists():
            return  # never brought up
        try:
            self._refresh()  # the containers of an `up` that failed too
            self.compose("stop", "--timeout", "30", timeout=300)
        except StackError as exc:
            print(f"bench/rehearsal.py: {exc}", flush=True)
        self.refresh_logs()
        self._copy_replays()
        try:
            self.compose("down", "--volumes", "--timeout", "20", timeout=300)
        except StackError as exc:
            print(f"bench/rehearsal.py: {exc}", flush=True)

    def _copy_replays(self) -> None:
        """Copies the replay store out of its volume into ``folder/replays`` (where the report measures
        it, as with the local stack), before the volume goes."""
        server = self.known.get("server")
        if server is not None:
            done = subprocess.run(
                [DOCKER, "cp", f"{server.id}:/var/lib/arena/replays", str(self.folder / "replays")],
                capture_output=True, text=True, timeout=600,
            )  # fmt: skip
            if done.returncode != 0:
                print(f"bench/rehearsal.py: the replays were not copied: {done.stderr.strip()}", flush=True)


def docker(*args: str) -> str:
    """Returns the output of ``docker ARGS``; raises StackError when it fails."""
    done = subprocess.run([DOCKER, *args], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise StackError(f"docker {' '.join(args)}: {done.stderr.strip()[-1000:]}")
    return done.stdout


def arena_process(pid: int) -> int:
    """Returns the container's arena process given its first process (``pid``; 0: none): the init
    compose.yaml puts first (``init: true``: docker-init, which reaps what it is handed) runs it as
    its one child."""
    try:
        first = psutil.Process(pid)
        if first.name() in ("docker-init", "tini"):
            children = first.children()
            return children[0].pid if children else 0
    except psutil.Error:
        return 0
    return pid


def cgroup_usage(pid: int) -> dict[str, float]:
    """Returns a container's cgroup CPU seconds and memory in MiB (cgroup v1 or v2), found through
    /proc/PID/cgroup; empty when the process is gone."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return {}
    paths = {}
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(","):
            paths[controller] = path
    root = Path("/sys/fs/cgroup")
    try:
        if "" in paths and "cpuacct" not in paths:  # cgroup v2: one tree
            folder = root / paths[""].lstrip("/")
            stat = dict(line.split() for line in (folder / "cpu.stat").read_text().splitlines())
            cpu_s, memory = int(stat["usage_usec"]) / 1e6, int((folder / "memory.current").read_text())
        else:
            cpu = root / "cpuacct" / paths["cpuacct"].lstrip("/") / "cpuacct.usage"
            cpu_s = int(cpu.read_text()) / 1e9
            memory_file = root / "memory" / paths["memory"].lstrip("/") / "memory.usage_in_bytes"
            memory = int(memory_file.read_text())
    except (OSError, KeyError, ValueError):
        return {}
    return {"cgroup_cpu_s": cpu_s, "cgroup_mem_mb": memory / (1 << 20)}
