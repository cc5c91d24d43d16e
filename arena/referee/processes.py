"""Bot processes: what a bot argument of ``arena match`` means, and how its process is run.

A bot is a built-in name (``random``), a path to a Python file that uses the SDK, or any shell command
(quoted, e.g. ``"node bots/node/bot.js"``). Each runs as its own process in its own process group and
session, with the referee address and its seat token in the environment, under the resource limits
of ``BotLimits`` (docs/security.md). Stopping it stops the whole group, and every process that still
carries its marker variable (children that left the group with setsid).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import resource
import secrets
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from arena.bots import builtin_bots

MARKER_VARIABLE = "ARENA_BOT_INSTANCE"  # set in every bot's environment; its descendants inherit it
MIB = 1 << 20
SIGNAL_CAUSES = {  # what a bot's death by this signal usually means
    "SIGXCPU": " (the CPU time limit, --bot-cpu-seconds)",
    "SIGSEGV": " (perhaps the address space limit, --bot-memory-mb)",
    "SIGABRT": " (perhaps the address space limit, --bot-memory-mb)",
}


@dataclasses.dataclass(frozen=True)
class BotLimits:
    """Resource limits the referee sets on every bot process (setrlimit, before the bot's exec).

    ``None`` leaves a limit as the referee's own. The limits apply per process (processes: per user)
    and last the bot's whole life, which is a whole series of games: the per-decision time is the
    deadline, not ``cpu_seconds``. Their effect is described in docs/security.md.
    """

    memory_mb: int | None = 2048  # RLIMIT_AS, address space; Node.js needs about 1 GiB of it to start
    cpu_seconds: int | None = 3600  # RLIMIT_CPU, CPU time over the process's life; then SIGXCPU/SIGKILL
    open_files: int | None = 256  # RLIMIT_NOFILE, open file descriptors
    processes: int | None = 512  # RLIMIT_NPROC, processes of the *user*; root is exempt (see docs)
    log_bytes: int = MIB  # bytes of stdout+stderr kept in the bot's log; the rest is dropped

    def rlimits(self) -> list[tuple[int, int]]:
        """Returns (resource, value) for every limit that is set."""
        pairs = [
            (resource.RLIMIT_AS, None if self.memory_mb is None else self.memory_mb * MIB),
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_NOFILE, self.open_files),
            (resource.RLIMIT_NPROC, self.processes),
        ]
        return [(res, value) for res, value in pairs if value is not None]

    def settings(self) -> list[tuple[int, int, int]]:
        """Returns (resource, soft, hard) for every limit that is set, never above the referee's own
        hard limit (raising it would need privileges). The hard CPU limit is one second above the soft
        one: SIGXCPU first, SIGKILL if the bot catches that."""
        out = []
        for res, value in self.rlimits():
            hard = value + 1 if res == resource.RLIMIT_CPU else value
            ceiling = resource.getrlimit(res)[1]
            if ceiling != resource.RLIM_INFINITY:
                value, hard = min(value, ceiling), min(hard, ceiling)
            out.append((res, value, hard))
        return out

    def wrap(self, argv: tuple[str, ...]) -> tuple[str, ...]:
        """Returns a command that sets the limits and then execs ``argv`` (same pid, same env).

        Design Detail: not ``preexec_fn``. That makes subprocess fork() the multi-threaded referee
        instead of vfork(); gRPC's fork handlers then restart its poller thread in the child, and
        closing the inherited descriptors before exec made that thread abort ("epoll_wait error: Bad
        file descriptor") in about one start in six. A ``python -S`` launcher costs ~20 ms per start.
        """
        numbers = [str(n) for setting in self.settings() for n in setting]
        return (sys.executable, "-S", "-E", "-c", _LAUNCHER, str(len(numbers) // 3), *numbers, *argv)


_LAUNCHER = """\
import os, resource, sys
count = int(sys.argv[1])
numbers = [int(x) for x in sys.argv[2 : 2 + 3 * count]]
for i in range(count):
    resource.setrlimit(numbers[3 * i], (numbers[3 * i + 1], numbers[3 * i + 2]))
argv = sys.argv[2 + 3 * count :]
try:
    os.execvp(argv[0], argv)
except OSError as exc:
    print(f"arena: cannot start bot {argv[0]!r}: {exc.strerror}", file=sys.stderr)
    sys.exit(127)
"""


DEFAULT_LIMITS = BotLimits()


class BotSpecError(ValueError):
    """A bot argument that names nothing runnable."""


@dataclasses.dataclass(frozen=True)
class BotSpec:
    name: str  # display name
    argv: tuple[str, ...]  # the command; for a shell command, ("/bin/sh", "-c", text)
    kind: str  # "builtin", "file", "command" or "submitted"
    cwd: Path | None = None  # the process's working directory; None: the referee's


def resolve_bot(game: str, text: str) -> BotSpec:
    """Returns how to run the bot that ``text`` names for ``game``; raises BotSpecError."""
    builtins = builtin_bots(game)
    if text in builtins:
        return BotSpec(text, (sys.executable, "-m", "arena.bots", game, text), "builtin")
    path = Path(text)
    if path.suffix == ".py" and " " not in text:
        if not path.is_file():
            raise BotSpecError(f"bot file {text} does not exist")
        return BotSpec(path.stem, (sys.executable, str(path.resolve())), "file")
    words = shlex.split(text) if text.strip() else []
    if len(words) > 1 or (words and (os.access(text, os.X_OK) and path.is_file())):
        return BotSpec(_command_name(words), ("/bin/sh", "-c", text), "command")
    valid = ", ".join(sorted(builtins)) or "none"
    raise BotSpecError(
        f"unknown bot {text!r} for {game}: built-in bots are {valid}; "
        "or give a path to a Python bot file (my_bot.py) or a quoted shell command ('node bots/node/bot.js')"
    )


def _command_name(words: list[str]) -> str:
    for word in reversed(words):
        if "/" in word or "." in word:
            return Path(word).stem or word
    return Path(words[0]).name


class BotProcess:
    """One running bot process, started under ``limits``. Its stdout and stderr go to ``log_path``.

    Design Detail: the bot's output goes through a pipe to a reader thread that writes at most
    ``limits.log_bytes`` bytes to the log and discards the rest (still draining the pipe, so the bot
    never blocks on a full pipe). RLIMIT_FSIZE was the alternative, but it would kill a bot for writing
    its own files and counts bytes an earlier process appended to the same log.
    """

    def __init__(
        self, spec: BotSpec, env: dict[str, str], log_path: Path, limits: BotLimits = DEFAULT_LIMITS
    ) -> None:
        self.spec = spec
        self.log_path = log_path
        self.limits = limits
        self.marker = secrets.token_hex(8)  # inherited by every descendant: finds escaped children
        log_path.parent.mkdir(parents=True, exist_ok=True)
        self.popen = subprocess.Popen(
            limits.wrap(spec.argv),
            env={**os.environ, **env, MARKER_VARIABLE: self.marker},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=spec.cwd,
        )
        self._reader = threading.Thread(
            target=_copy_capped,
            args=(self.popen.stdout, log_path, limits.log_bytes),
            name=f"bot-log-{spec.name}",
            daemon=True,
        )
        self._reader.start()

    @property
    def pid(self) -> int:
        """Returns the process id of the bot (also its process group and session id)."""
        return self.popen.pid

    @property
    def exit_code(self) -> int | None:
        """Returns the exit code, or None while the process runs (-N: killed by signal N)."""
        return self.popen.poll()

    def exit_description(self) -> str:
        """Returns how the process ended, naming the limit when a resource limit's signal killed it."""
        code = self.popen.poll()
        if code is None:
            return "still running"
        if code >= 0:
            return f"exited with code {code}"
        try:
            name = signal.Signals(-code).name
        except ValueError:
            return f"killed by signal {-code}"
        return f"killed by {name}" + SIGNAL_CAUSES.get(name, "")

    def log_tail(self, lines: int = 5) -> str:
        """Returns the last lines the bot printed, joined by ' | ' (each cut to 200 characters)."""
        try:
            with open(self.log_path, "rb") as log:
                log.seek(0, os.SEEK_END)
                log.seek(max(0, log.tell() - 8192))
                text = log.read().decode("utf-8", errors="replace")
        except OSError:
            return ""
        tail = [line.strip()[:200] for line in text.splitlines() if line.strip()][-lines:]
        return " | ".join(tail)

    def stop(self, grace: float = 2.0) -> None:
        """Lets the process exit by itself within ``grace`` seconds, then ends its whole process group
        and every other process that inherited its marker (children that left the group)."""
        deadline = time.monotonic() + grace
        while self.popen.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.popen.pid, sig)
            except (ProcessLookupError, PermissionError):
                break
            try:
                self.popen.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                continue
            if sig is signal.SIGTERM:
                # the leader is gone; make sure no child it left in the group survives
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.popen.pid, signal.SIGKILL)
                break
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=1.0)
        kill_marked(self.marker)
        self._reader.join(timeout=1.0)

    def survivors(self) -> list[int]:
        """Returns the pids still alive that belong to this bot (its group, or carrying its marker)."""
        return sorted(set(_marked_pids(self.marker)) | set(_group_pids(self.popen.pid)))


def _copy_capped(pipe: IO[bytes], log_path: Path, cap: int) -> None:
    """Copies the bot's output to its log until ``cap`` bytes, then drains and discards the rest."""
    written = 0
    with pipe, open(log_path, "ab") as log:
        while chunk := pipe.read1(65536):
            if written < cap:
                part = chunk[: cap - written]
                log.write(part)
                written += len(part)
                if written >= cap:
                    log.write(
                        f"\n[arena: log cut at {cap} bytes; the rest of the output is dropped]\n".encode()
                    )
                log.flush()


def _proc_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _marked_pids(marker: str) -> list[int]:
    """Returns the pids whose environment carries ``marker`` (Linux /proc; [] elsewhere)."""
    needle = f"{MARKER_VARIABLE}={marker}".encode()
    found = []
    with contextlib.suppress(FileNotFoundError):
        for pid in _proc_pids():
            try:
                with open(f"/proc/{pid}/environ", "rb") as environ:
                    if needle in environ.read().split(b"\0"):
                        found.append(pid)
            except OSError:
                continue
    return found


def _group_pids(pgid: int) -> list[int]:
    """Returns the live (non-zombie) pids in process group ``pgid`` (Linux /proc; [] elsewhere)."""
    found = []
    with contextlib.suppress(FileNotFoundError):
        for pid in _proc_pids():
            try:
                with open(f"/proc/{pid}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != b"Z":
                found.append(pid)
    return found


def kill_marked(marker: str) -> None:
    """Sends SIGKILL to every process that carries ``marker`` in its environment."""
    for pid in _marked_pids(marker):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
