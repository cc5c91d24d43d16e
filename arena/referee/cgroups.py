"""Control groups for bot processes: a memory, CPU and process budget that holds for a bot's whole
process tree, and a record of when a bot hit one.

Each bot gets its own cgroup under the referee's own, in every hierarchy that can be written:
cgroup v2 (one unified tree) or v1 (``memory``, ``cpu``, ``pids`` mounted apart, as on these
machines). The bot's launcher joins it before it execs the sandbox, so the limits bind from the
first instruction and every child inherits them. Where no hierarchy is writable (an unprivileged
user without a delegated cgroup, a container), nothing is created and the caller falls back to
rlimits, saying so (``CgroupSupport.describe``).

Design detail: cgroups rather than rlimits because rlimits are per process (a bot with 10 processes
gets 10 times the memory), ``RLIMIT_NPROC`` counts the processes of the whole user and does not bind
root at all, and no rlimit caps a share of the CPU, which is what stops a bot from starving its
opponent of the time it needs to answer.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import secrets
import signal
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
CPU_PERIOD_US = 100_000  # the CFS period a CPU quota is a share of
BOT_PREFIX = "arena-bot-"  # a bot's cgroup: arena-bot-<pid of the process that made it>-<random>


@dataclasses.dataclass(frozen=True)
class CgroupLimits:
    """What one bot's cgroup allows; ``None`` leaves a resource unbounded."""

    memory_bytes: int | None
    cpus: float | None  # cores; 1.0 is one core's worth of time per period
    processes: int | None  # tasks (processes and threads)


@dataclasses.dataclass(frozen=True)
class CgroupSupport:
    """Which controllers arena can use here: controller name -> the folder to create bot cgroups in."""

    version: int  # 2, 1, or 0 when none is writable
    parents: dict[str, Path]

    def describe(self) -> str:
        """Returns one phrase for the operator: which limits the cgroups enforce."""
        if not self.parents:
            return "no writable cgroup"
        return f"cgroup v{self.version} ({', '.join(sorted(self.parents))})"


def _own_path(controller: str) -> str:
    """Returns this process's cgroup path in the hierarchy of ``controller`` ('' for v2)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, names, path = line.split(":", 2)
            if controller in names.split(",") or (controller == "" and names == ""):
                return path.lstrip("/")
    return ""


def _writable(folder: Path) -> bool:
    """Returns whether a child cgroup can be made (and removed) in ``folder``."""
    probe = folder / f"arena-probe-{secrets.token_hex(4)}"
    try:
        probe.mkdir()
    except OSError:
        return False
    with contextlib.suppress(OSError):
        probe.rmdir()
    return True


@functools.cache
def support() -> CgroupSupport:
    """Returns what this machine allows (probed once per process: the machine does not change), and
    removes the empty cgroups that processes no longer alive left there (``remove_stale``)."""
    found = _probe()
    for parent in set(found.parents.values()):
        remove_stale(parent)
    return found


def remove_stale(parent: Path) -> None:
    """Removes the bot cgroups under ``parent`` whose maker is no longer alive and which hold no
    process. A worker killed at once (SIGKILL, the OOM killer) cannot remove its
    bots' cgroups, and each left behind keeps some kernel memory for as long as the machine runs.

    Design detail: only empty ones, and the kernel refuses to remove a cgroup with a process in it, so
    a bot that outlived its worker, or a worker of another PID namespace whose number is free here,
    loses nothing."""
    for folder in parent.glob(f"{BOT_PREFIX}*"):
        maker = folder.name.removeprefix(BOT_PREFIX).split("-", 1)[0]
        if maker.isdigit() and int(maker) > 0 and not _alive(int(maker)):
            with contextlib.suppress(OSError):  # not empty (or already gone): left alone
                folder.rmdir()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, and someone else's
        pass
    return True


def _probe() -> CgroupSupport:
    """Returns which controllers can be written here, and where."""
    if (ROOT / "cgroup.controllers").is_file():  # v2: one tree; controllers must be enabled below us
        parent = ROOT / _own_path("")
        wanted = {"memory", "cpu", "pids"}
        available = set((parent / "cgroup.controllers").read_text().split()) & wanted
        with contextlib.suppress(OSError):
            (parent / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in sorted(available)))
        enabled = set((parent / "cgroup.subtree_control").read_text().split()) & available
        if enabled and _writable(parent):
            return CgroupSupport(2, {name: parent for name in sorted(enabled)})
        return CgroupSupport(0, {})
    parents = {}
    for name in ("memory", "cpu", "pids"):
        folder = ROOT / name / _own_path(name)
        if folder.is_dir() and _writable(folder):
            parents[name] = folder
    return CgroupSupport(1 if parents else 0, parents)


def enclosing_bounds() -> str:
    """Returns the CPU, memory and process bounds of the cgroup this process runs in, as read at the
    cgroup mount's root ('' when there are none): in a container without a writable cgroup they bound
    all of its bots together (compose.yaml's ``cpus``, ``mem_limit``, ``pids_limit``)."""
    v2 = (ROOT / "cgroup.controllers").is_file()
    files = (
        {"cpu": ROOT / "cpu.max", "memory": ROOT / "memory.max", "pids": ROOT / "pids.max"}
        if v2
        else {
            "cpu": ROOT / "cpu" / "cpu.cfs_quota_us",
            "memory": ROOT / "memory" / "memory.limit_in_bytes",
            "pids": ROOT / "pids" / "pids.max",
        }
    )
    values = {}
    for name, path in files.items():
        with contextlib.suppress(OSError):
            values[name] = path.read_text().split()
    parts = []
    cpu = values.get("cpu", [])
    if cpu and cpu[0] not in ("max", "-1"):
        period = int(cpu[1]) if v2 and len(cpu) > 1 else _v1_period()
        parts.append(f"{int(cpu[0]) / period:g} cores")
    memory = values.get("memory", [])
    if memory and memory[0] != "max" and int(memory[0]) < 1 << 60:
        parts.append(f"{int(memory[0]) >> 20} MiB")
    pids = values.get("pids", [])
    if pids and pids[0] != "max":
        parts.append(f"{pids[0]} processes")
    return ", ".join(parts)


def enclosing_processes() -> tuple[int | None, int | None]:
    """Returns (tasks, limit) of the cgroup this process runs in, as read at the pids mount's root
    (None where unknown or unlimited)."""
    folder = ROOT if (ROOT / "cgroup.controllers").is_file() else ROOT / "pids"
    values: list[int | None] = []
    for name in ("pids.current", "pids.max"):
        try:
            text = (folder / name).read_text().strip()
            values.append(None if text == "max" else int(text))
        except (OSError, ValueError):
            values.append(None)
    return values[0], values[1]


def _v1_period() -> int:
    try:
        return int((ROOT / "cpu" / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return CPU_PERIOD_US


class BotCgroup:
    """One bot's cgroups (one folder per v1 controller, or one v2 folder), made with its limits."""

    def __init__(self, limits: CgroupLimits, cgroup_support: CgroupSupport | None = None) -> None:
        self.support = cgroup_support or support()
        self.name = f"{BOT_PREFIX}{os.getpid()}-{secrets.token_hex(6)}"
        self.folders: dict[str, Path] = {}
        for controller, parent in self.support.parents.items():
            folder = parent / self.name
            if folder not in self.folders.values():
                folder.mkdir()
            self.folders[controller] = folder
        self.limits = limits
        self._write_limits(limits)

    def _write_limits(self, limits: CgroupLimits) -> None:
        v2 = self.support.version == 2
        if limits.memory_bytes is not None and "memory" in self.folders:
            if v2:
                self._write("memory", "memory.max", limits.memory_bytes)
                self._write("memory", "memory.swap.max", 0, optional=True)
            else:
                self._write("memory", "memory.limit_in_bytes", limits.memory_bytes)
                self._write("memory", "memory.memsw.limit_in_bytes", limits.memory_bytes, optional=True)
        if limits.cpus is not None and "cpu" in self.folders:
            quota = max(1000, int(limits.cpus * CPU_PERIOD_US))
            if v2:
                self._write("cpu", "cpu.max", f"{quota} {CPU_PERIOD_US}")
            else:
                self._write("cpu", "cpu.cfs_period_us", CPU_PERIOD_US)
                self._write("cpu", "cpu.cfs_quota_us", quota)
        if limits.processes is not None and "pids" in self.folders:
            self._write("pids", "pids.max", limits.processes)

    def _write(self, controller: str, file: str, value: object, optional: bool = False) -> None:
        try:
            (self.folders[controller] / file).write_text(str(value))
        except OSError:
            if not optional:
                raise

    @property
    def procs_files(self) -> list[str]:
        """Returns the cgroup.procs files a process writes its pid to, to join every folder."""
        return sorted({str(folder / "cgroup.procs") for folder in self.folders.values()})

    def enforced(self) -> set[str]:
        """Returns which of memory, cpu and processes this cgroup bounds."""
        names = {"memory": "memory", "cpu": "cpu", "pids": "processes"}
        return {names[c] for c in self.folders}

    def pids(self) -> list[int]:
        """Returns the pids in the bot's cgroup (all its processes, wherever they moved in session)."""
        found: set[int] = set()
        for file in self.procs_files:
            with contextlib.suppress(OSError):
                found.update(int(x) for x in Path(file).read_text().split())
        return sorted(found)

    def limits_hit(self) -> list[str]:
        """Returns a phrase per limit the bot ran into (for its log and the operator's note)."""
        hits = []
        if "pids" in self.folders:
            count = self._event_count("pids", "pids.events", "max")
            if count:
                hits.append(f"the process limit ({self.limits.processes}) refused {count} forks")
        if "memory" in self.folders:
            if self.support.version == 2:
                count = self._event_count("memory", "memory.events", "oom_kill")
            else:
                count = self._event_count("memory", "memory.oom_control", "oom_kill")
                count = count or (1 if self._read_int("memory", "memory.failcnt") else 0)
            if count:
                mib = (self.limits.memory_bytes or 0) >> 20
                hits.append(f"the memory limit ({mib} MiB) was reached")
        return hits

    def _read_int(self, controller: str, file: str) -> int:
        try:
            return int((self.folders[controller] / file).read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return 0

    def _event_count(self, controller: str, file: str, key: str) -> int:
        try:
            lines = (self.folders[controller] / file).read_text().splitlines()
        except OSError:
            return 0
        for line in lines:
            name, _, value = line.partition(" ")
            if name == key and value.strip().isdigit():
                return int(value)
        return 0

    def kill_all(self) -> None:
        """Sends SIGKILL to every process in the cgroup."""
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def remove(self, timeout: float = 2.0) -> None:
        """Kills what is left and removes the folders (a folder can go once its processes are gone)."""
        until = time.monotonic() + timeout
        for folder in set(self.folders.values()):
            while True:
                self.kill_all()
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > until:
                        break
                    time.sleep(0.01)
