"""A bot process started at a lower CPU priority, and given the referee's priority back later.

``arena match --sprt`` starts the next game's bots while the current game plays (each game needs fresh
processes: a deal is played twice, and a process must not remember it). Starting a Python bot costs
hundreds of milliseconds of CPU, so those processes start ``niced``: the seats of the game being played
keep the CPU they decide with. When their own game begins they must decide at the same priority as
any seat, so every thread of their process tree gets the referee's priority back (``restore``).

Design detail: raising a priority again (a lower nice value) needs CAP_SYS_NICE or a large enough
RLIMIT_NICE; an ordinary user has neither. ``can_restore`` finds out once, on a process of its own,
and where it cannot, the caller starts no process early: a seat left niced would lose CPU to the
machine's other work in the middle of its decisions.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterable

PRESTART_NICENESS = 10  # added to the referee's own nice value for a process started early


def lower(pid: int, by: int = PRESTART_NICENESS) -> None:
    """Lowers the priority of process ``pid`` (called at once after starting it, so that the children
    and threads it creates inherit the lower priority); a process already gone is left alone."""
    with contextlib.suppress(ProcessLookupError):
        os.setpriority(os.PRIO_PROCESS, pid, min(19, os.getpriority(os.PRIO_PROCESS, 0) + by))


def can_restore() -> bool:
    """Returns whether this process may give a niced process of its own its priority back, tried on
    a short-lived child (the capability may be granted in a namespace that the kernel does not count)."""
    try:
        child = subprocess.Popen(["sleep", "30"], stdin=subprocess.DEVNULL)
    except OSError:
        return False
    try:
        lower(child.pid)
        os.setpriority(os.PRIO_PROCESS, child.pid, os.getpriority(os.PRIO_PROCESS, 0))
        return True
    except PermissionError:
        return False
    finally:
        child.kill()
        child.wait()


def restore(roots: Iterable[int]) -> None:
    """Gives every thread of the process trees under ``roots`` the referee's own priority.

    Raises ``PermissionError`` where that is not allowed (see ``can_restore``)."""
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    for pid in descendants(roots):
        for tid in _threads(pid):
            with contextlib.suppress(ProcessLookupError):
                os.setpriority(os.PRIO_PROCESS, tid, mine)


def descendants(roots: Iterable[int]) -> list[int]:
    """Returns the pids of ``roots`` and of every process below them (from /proc: a sandboxed bot's
    processes are in a PID namespace of their own, but have pids out here too)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            parent = _parent(int(name))
            if parent is not None:
                children.setdefault(parent, []).append(int(name))
    found, todo = [], list(roots)
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _parent(pid: int) -> int | None:
    """Returns the parent pid of ``pid`` (None for a process that is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read()
    except OSError:
        return None
    return int(text[text.rindex(b")") + 2 :].split()[1])  # after "pid (comm) state"


def _threads(pid: int) -> list[int]:
    """Returns the thread ids of process ``pid`` ([] when it is gone)."""
    try:
        return [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return []
