"""Whether the worker itself was sound while a match ran: who is charged when no seat joined.

A match in which no seat's bot joined used to be counted as the platform's failure (retried, then
dead-lettered), since every bot failing at once usually points at the worker. It is also what two bots
of one owner produce by exiting before they join, which voided any match their owner expected to
lose. So the worker now asks, at that moment, whether it could have run a bot: a fresh bot-identical
sandbox self-check (``sandbox_check.check_sandbox_now``), and whether the host ran out of memory
(the kernel's ``oom_kill`` counter in ``/proc/vmstat`` moved during the match, or less memory is
available than one bot may use) or out of processes (the enclosing cgroup's ``pids.current`` near its
``pids.max``, or the machine's near ``kernel.pid_max``). Only when one of these fails is the match the
platform's failure; otherwise every seat forfeits and the match is recorded like any other.
"""

from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path

from arena.referee import cgroups
from arena.referee.processes import MIB, BotLimits
from arena.referee.sandbox import SandboxError
from arena.referee.sandbox_check import check_sandbox_now

FULL = 0.9  # a share of the process limit past which the host counts as out of processes


@dataclasses.dataclass(frozen=True)
class HostSnapshot:
    """What is read before a match to compare with after it."""

    oom_kills: int


def snapshot() -> HostSnapshot:
    """Returns the host's counters now (before a match)."""
    return HostSnapshot(_oom_kills())


def platform_problem(since: HostSnapshot, limits: BotLimits) -> str:
    """Returns why the worker could not have run a bot during a match begun at ``since``, or ''."""
    if _oom_kills() > since.oom_kills:
        return "the host's kernel killed processes for want of memory during the match"
    available = _meminfo("MemAvailable")
    needed = (limits.memory_mb or 256) * MIB
    if available is not None and available < min(needed, 256 * MIB):
        return f"the host has only {available // MIB} MiB of memory available"
    crowded = _processes_near_limit()
    if crowded:
        return crowded
    if limits.sandbox:
        try:
            check_sandbox_now(limits)
        except SandboxError as exc:
            return f"the worker's sandbox self-check fails now: {exc}"
    return ""


def _oom_kills() -> int:
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/vmstat").read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == "oom_kill":
                return int(value)
    return 0


def _meminfo(field: str) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return None


def _processes_near_limit() -> str:
    """Returns a phrase when the worker's cgroup or the machine is near its process limit, else ''."""
    current, limit = cgroups.enclosing_processes()
    if current is not None and limit is not None and current >= FULL * limit:
        return f"the worker's cgroup holds {current} of its {limit} processes"
    with contextlib.suppress(OSError, ValueError, IndexError):
        total = int(Path("/proc/loadavg").read_text().split()[3].split("/")[1])
        pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
        if total >= FULL * pid_max:
            return f"the machine runs {total} of its {pid_max} processes"
    return ""
