"""Bot processes: what a bot argument of ``arena match`` means, and how its process is run.

A bot is a built-in name (``random``), a path to a Python file that uses the SDK, or any shell command
(quoted, e.g. ``"node bots/node/bot.js"``). Each runs as its own process, by default inside the bot
sandbox (``arena.referee.sandbox``: bubblewrap, no network, no view of other processes or of the
host's files) and in a cgroup of its own (``arena.referee.cgroups``: memory, CPU share, processes),
with the rlimits of ``BotLimits`` on top (docs/security.md). Stopping it ends its whole process tree.
Where a bot starts and what its seat is called: docs/bots.md ("Where a bot starts").

Why it is long: a bot argument's meaning (its command, its own folder, its name) and the process that
runs it (limits, sandbox, stopping) are read together whenever either changes; the naming rules
themselves are ``arena.referee.seat_names``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import resource
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from arena.bots import builtin_bots
from arena.referee import cgroups, sandbox
from arena.referee.botlog import StampedLog
from arena.referee.seat_names import GENERIC, NAME_RULE, clean, file_name, is_name, split_seat_name

MARKER_VARIABLE = "ARENA_BOT_INSTANCE"  # unsandboxed bots: their descendants inherit it and are found
MIB = 1 << 20
# The line a worker's seat wrapper prints first, inside the sandbox, before the bot's own program
# (arena.queue.seats): it tells a sandbox that never started from a bot that never joined, and is no
# bot's output, so a failure's log tail leaves it out.
READY_LINE = "arena: sandbox ready"
SIGNAL_CAUSES = {  # what a bot's death by this signal usually means
    "SIGXCPU": " (the CPU time limit, --bot-cpu-seconds)",
    "SIGSEGV": " (perhaps the memory limit, --bot-memory-mb)",
    "SIGABRT": " (perhaps the memory limit, --bot-memory-mb)",
}


@dataclasses.dataclass(frozen=True)
class BotLimits:
    """Resource limits of every bot process, and whether it runs in the sandbox.

    ``None`` turns a limit off. Memory, the CPU share and processes are enforced on the bot's whole
    process tree by a cgroup where the machine allows one; memory, CPU time, open files and processes
    are also set as rlimits on each process (the only bound where no cgroup can be made; see
    ``describe``). The disk is the size of the sandbox's private /tmp. The limits last the bot's
    whole life, which is a whole series of games: the per-decision time is the deadline.
    """

    # cgroup memory (the tree) + RLIMIT_DATA (each process). Not RLIMIT_AS: a Python gRPC bot reserves
    # ~800 MB of address space (64 MiB malloc arenas and 8 MiB stacks per thread) while using ~45 MB,
    # so an address-space cap of a few hundred MB made honest bots fail to start threads.
    memory_mb: int | None = 2048
    cpu_seconds: int | None = 3600  # RLIMIT_CPU, CPU time over the process's life; then SIGXCPU/SIGKILL
    open_files: int | None = 256  # RLIMIT_NOFILE, open file descriptors
    processes: int | None = 512  # cgroup pids.max (tasks); RLIMIT_NPROC counts the user's, root exempt
    log_bytes: int = MIB  # bytes of stdout+stderr kept in the bot's log; the rest is dropped
    cpus: float | None = 1.0  # cgroup CPU quota in cores: a busy bot cannot starve its opponent
    disk_mb: int | None = 64  # size of the sandbox's private /tmp (and HOME)
    sandbox: bool = True  # False: run unconfined (--no-sandbox), for trusted bots only

    def rlimits(self) -> list[tuple[int, int]]:
        """Returns (resource, value) for every rlimit that is set."""
        pairs = [
            (resource.RLIMIT_DATA, None if self.memory_mb is None else self.memory_mb * MIB),
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_NOFILE, self.open_files),
            # set inside the sandbox, where it counts the bot's own tasks (``sandbox.inside_argv``)
            (resource.RLIMIT_NPROC, None if self.sandbox else self.processes),
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

    def processes_inside(self) -> int | None:
        """Returns the process limit a sandbox sets inside itself (``sandbox.inside_argv``), never
        above the worker's own hard limit (raising it needs a privilege); None when unsandboxed
        (then it is an rlimit set from outside) or unlimited."""
        if not self.sandbox or self.processes is None:
            return None
        ceiling = resource.getrlimit(resource.RLIMIT_NPROC)[1]
        return self.processes if ceiling == resource.RLIM_INFINITY else min(self.processes, ceiling)

    def cgroup_limits(self) -> cgroups.CgroupLimits:
        """Returns what each bot's cgroup bounds."""
        memory = None if self.memory_mb is None else self.memory_mb * MIB
        return cgroups.CgroupLimits(memory, self.cpus, self.processes)

    def describe(self) -> str:
        """Returns the line that tells the operator how bots run and which limits are in force where."""
        support = cgroups.support()
        by_cgroup = {"memory": "memory", "cpu": "cpu", "pids": "processes"}
        enforced = {by_cgroup[c] for c in support.parents}

        def where(name: str, rlimit: bool) -> str:
            if name in enforced:
                return "cgroup" + (" + rlimit" if rlimit else "")
            if name == "processes" and self.sandbox:  # set in the sandbox's own user namespace
                return "rlimit, counted in the bot's own user namespace"
            if name == "processes":  # RLIMIT_NPROC counts the user's processes, not the bot's
                return "rlimit, shared by every process of this user: run workers as a user of their own"
            if name == "cpu" and self.cpus is not None and pinned_cpus(self.cpus, 0):
                count, total = len(pinned_cpus(self.cpus, 0)), len(os.sched_getaffinity(0))
                return f"pinned to {count} of this worker's {total} CPUs per seat: no writable cgroup"
            return "rlimit" if rlimit else "not enforced per bot: no writable cgroup"

        parts = [
            _limit("memory", self.memory_mb, "MiB", where("memory", True)),
            _limit("CPU share", self.cpus, "cores", where("cpu", False)),
            _limit("processes", self.processes, "", where("processes", True)),
            _limit("CPU time", self.cpu_seconds, "s", "rlimit"),
            _limit("open files", self.open_files, "", "rlimit"),
        ]
        if self.sandbox:
            parts.append(_limit("disk", self.disk_mb, "MiB", "tmpfs"))
            how = (
                "bots run sandboxed (bubblewrap: own user, PID, network, IPC, UTS and cgroup namespaces, "
                "uid 65534, no network, read-only code, private /tmp; seccomp filter on: no kernel keyring, "
                "ptrace, mounts, namespaces, BPF or io_uring)"
            )
        else:
            how = UNCONFINED_WARNING
        shared = cgroups.enclosing_bounds() if "cpu" not in enforced else ""
        together = f"; all bots together: this worker's cgroup ({shared})" if shared else ""
        return f"arena: {how}; limits per bot: {', '.join(parts)}{together}"

    def wrap(
        self, argv: tuple[str, ...], cgroup_files: Sequence[str] = (), cpus: Sequence[int] = ()
    ) -> tuple[str, ...]:
        """Returns a command that joins the cgroups, sets the limits, pins itself to ``cpus`` (when
        given) and then execs ``argv`` (same pid).

        Design Detail: not ``preexec_fn``. That makes subprocess fork() the multi-threaded referee
        instead of vfork(); gRPC's fork handlers then restart its poller thread in the child, and
        closing the inherited descriptors before exec made that thread abort ("epoll_wait error: Bad
        file descriptor") in about one start in six. A ``python -S`` launcher costs ~20 ms per start.
        """
        numbers = [str(n) for setting in self.settings() for n in setting]
        return (
            sys.executable, "-S", "-E", "-c", _LAUNCHER,
            str(len(cgroup_files)), *cgroup_files, str(len(numbers) // 3), *numbers,
            str(len(cpus)), *map(str, cpus), *argv,
        )  # fmt: skip


def pinned_cpus(share: float, slot: int) -> list[int]:
    """Returns the CPUs a bot in seat ``slot`` is pinned to where no cgroup can cap its CPU share (a
    container on a cgroup v1 host): ceil(share) of the worker's CPUs, a different block for each seat
    while there are enough, so that a bot spinning every thread it can keeps its opponents' CPUs
    free. [] when the worker has no more CPUs than one bot's share (pinning would separate nothing).

    Design detail: an affinity is inherited by every thread and child, needs no privilege, and the
    seccomp filter refuses ``sched_setaffinity`` inside the sandbox, so the bot cannot widen it.
    """
    allowed = sorted(os.sched_getaffinity(0))
    width = max(1, math.ceil(share))
    if width >= len(allowed):
        return []
    start = (slot * width) % len(allowed)
    return [allowed[(start + i) % len(allowed)] for i in range(width)]


UNCONFINED_WARNING = (
    "WARNING: --no-sandbox: bots run unconfined, as your user, with your files, network and processes "
    "within reach; use it only with bots you trust"
)


def _limit(name: str, value: float | None, unit: str, where: str) -> str:
    if value is None:
        return f"{name} unlimited"
    shown = f"{value:g}" + (f" {unit}" if unit else "")
    return f"{name} {shown} ({where})"


_LAUNCHER = """\
import os, resource, sys
args = sys.argv[1:]
for file in args[1 : 1 + int(args[0])]:
    with open(file, "w") as procs:
        procs.write(str(os.getpid()))
args = args[1 + int(args[0]) :]
count = int(args[0])
numbers = [int(x) for x in args[1 : 1 + 3 * count]]
for i in range(count):
    resource.setrlimit(numbers[3 * i], (numbers[3 * i + 1], numbers[3 * i + 2]))
args = args[1 + 3 * count :]
pinned = [int(x) for x in args[1 : 1 + int(args[0])]]
if pinned:
    os.sched_setaffinity(0, pinned)
argv = args[1 + len(pinned) :]
try:
    os.execvp(argv[0], argv)
except OSError as exc:
    print(f"arena: cannot start bot {argv[0]!r}: {exc.strerror}", file=sys.stderr)
    sys.exit(127)
"""


DEFAULT_LIMITS = BotLimits()


WAIT = "@wait"  # a seat written so is played by a bot the author starts by hand (a debugger, an IDE)


class BotSpecError(ValueError):
    """A bot argument that names nothing runnable."""


@dataclasses.dataclass(frozen=True)
class BotSpec:
    name: str  # display name
    argv: tuple[str, ...]  # the command; for a shell command, ("/bin/sh", "-c", text)
    kind: str  # "builtin", "file", "command", "submitted" or "wait" (started by hand: no argv)
    cwd: Path | None = None  # the process's working directory; None: the referee's (a temporary one inside)
    code: tuple[Path, ...] = ()  # what the bot reads: bound read-only into its sandbox, at the same path
    env: tuple[tuple[str, str], ...] = ()  # variables its entry command declares (NAME=value words)
    join_named: bool = False  # the name the bot sends in Join names its seat (the person named none)


@dataclasses.dataclass(frozen=True)
class RefereeEndpoint:
    """Where bots reach the referee: on loopback (unconfined bots) and on a Unix socket (sandboxed)."""

    tcp: str  # host:port
    socket: Path | None = None  # the Unix socket bound into every sandbox


def builtin_spec(game: str, bot: str, name: str = "") -> BotSpec:
    """Returns how to run built-in ``bot`` of ``game`` (the caller checked that it is one), shown as
    ``name`` (default: the bot's own name)."""
    return BotSpec(name or bot, (sys.executable, "-m", "arena.bots", game, bot), "builtin")


def resolve_bot(game: str, text: str) -> BotSpec:
    """Returns how to run the bot that ``text`` names for ``game`` (``NAME:BOT`` names its seat);
    raises BotSpecError.

    A file bot sees its own folder (read-only, its working directory). A shell command sees its own
    folder (``own_folder``: its file's, or the current one for ``sh -c '...'``) read-only at its own
    path, and starts in the current folder: run from the bot's folder, ``sh bin/wrap.sh`` starts where
    the same entry submitted (``--dir . --entry 'sh bin/wrap.sh'``) starts in /bot, with the same
    files. A seat not named by the person is named by its bot's ``Join`` (``arena.referee.seat_names``).
    """
    name, text = ("", text) if os.path.lexists(text) else split_seat_name(text)
    spec = _resolve(game, text)
    return dataclasses.replace(spec, name=name, join_named=False) if name else spec


def _resolve(game: str, text: str) -> BotSpec:
    if text == WAIT or text.startswith(WAIT + ":"):
        return wait_spec(text)
    builtins = builtin_bots(game)
    if text in builtins:
        return builtin_spec(game, text)
    path = Path(text)
    if path.suffix == ".py" and " " not in text:
        if not path.is_file():
            raise BotSpecError(f"bot file {text} does not exist")
        code = sandbox.code_folder(path.resolve())
        folder = path.resolve().parent
        name = file_name(path.resolve(), sandbox.broad_folders())
        return BotSpec(name, (sys.executable, str(path.resolve())), "file", folder, (code,), join_named=True)
    words = shlex.split(text) if text.strip() else []
    if len(words) > 1 or (words and (os.access(text, os.X_OK) and path.is_file())):
        return _command_spec(text, words)
    valid = ", ".join(sorted(builtins)) or "none"
    raise BotSpecError(
        f"unknown bot {text!r} for {game}: built-in bots are {valid}; "
        "or give a path to a Python bot file (my_bot.py) or a quoted shell command ('node bots/node/bot.js')"
    )


def _command_spec(text: str, words: list[str]) -> BotSpec:
    """Returns the spec of a shell command bot: its own folder (``own_folder``) bound read-only at its
    own path, started in the current folder (so that the command's relative paths work)."""
    here = Path.cwd()
    script = _script(words)
    folder = own_folder(script, here)
    name = _command_name(words, script, here)
    return BotSpec(
        name, ("/bin/sh", "-c", text), "command", here, (folder,) if folder else (), join_named=True
    )


def own_folder(script: Path | None, here: Path) -> Path | None:
    """Returns a command bot's own folder: the folder of the file it runs, or the one above while that
    says nothing of the bot (``mybot`` for ``mybot/bin/wrap.sh``: ``bin``, ``build``, ``src``...); the
    current folder for a command that runs no file of its own (``sh -c '...'``). Never a folder that
    holds far more than a bot (/, /tmp, the home folder): then the file alone, or nothing.
    """
    broad = sandbox.broad_folders()
    if script is None:
        return None if here in broad else here
    folder = script.parent
    while folder.name.lower() in GENERIC and folder.parent not in broad and folder.parent != folder:
        folder = folder.parent
    return sandbox.code_folder(script) if folder in broad else folder


def _command_name(words: list[str], script: Path | None, here: Path) -> str:
    """Returns the name of a command bot: its script's (``file_name``); else its program's, unless
    that is a system or Python program (``sh -c '...'``, ``python -m bot``): then its folder's."""
    broad = sandbox.broad_folders()
    if script is not None:
        return file_name(script, broad)
    program = (sandbox.declared_variables(words)[1] or ("command",))[0]
    found = shutil.which(program)
    runtime = (Path("/usr"), Path("/bin"), *sandbox.python_runtime())
    system = found is not None and any(sandbox.under(Path(os.path.abspath(found)), f) for f in runtime)
    if system and here not in broad and clean(here.name):
        return clean(here.name)
    return clean(Path(program).name) or "command"


def wait_spec(text: str) -> BotSpec:
    """Returns the spec of a seat whose bot the author starts by hand (``@wait`` or ``@wait:NAME``):
    no process; the referee prints an address and a token and waits for that bot to join."""
    name = text.removeprefix(WAIT).removeprefix(":")
    if name and not is_name(name):
        raise BotSpecError(f"bad seat {text!r}: write @wait or @wait:NAME, NAME of {NAME_RULE}")
    return BotSpec(name or "attached", (), "wait", join_named=not name)


def _script(words: list[str]) -> Path | None:
    """Returns the file a command runs: the first word that names an existing file outside the
    system and Python runtime (``./bot``, or ``bots/node/bot.js`` in ``node bots/node/bot.js``). Its
    folder is bound when it lies outside the command's own folder; it names the seat.
    """
    _, command = sandbox.declared_variables(words)
    runtime = (Path("/usr"), Path("/bin"), *sandbox.python_runtime())
    for word in command:
        if not os.path.isfile(word):
            continue
        path = Path(word).resolve()
        if not any(sandbox.under(Path(os.path.abspath(word)), folder) for folder in runtime):
            return path
    return None


class BotProcess:
    """One running bot process, started under ``limits``. Its stdout and stderr go to ``log_path``.

    Sandboxed (the default), the process is bwrap, which runs the bot in its own namespaces; the
    folders in ``private`` (replays, logs, arena's state) are covered with an empty tmpfs should the
    bot's code folder contain them. ``env`` holds ARENA_TOKEN; ARENA_ADDRESS comes from ``endpoint``.

    Design Detail: the bot's output goes through a pipe to a reader (``botlog.StampedLog``) that writes
    at most ``limits.log_bytes`` bytes to the log and discards the rest (still draining the pipe, so the
    bot never blocks on a full pipe), and stamps each line with the decision step it was written in.
    RLIMIT_FSIZE was the alternative, but it would kill a bot for writing
    its own files and counts bytes an earlier process appended to the same log.
    """

    def __init__(
        self,
        spec: BotSpec,
        env: dict[str, str],
        log_path: Path,
        limits: BotLimits = DEFAULT_LIMITS,
        endpoint: RefereeEndpoint | None = None,
        private: tuple[Path, ...] = (),
        slot: int = 0,
    ) -> None:
        self.spec = spec
        self.log_path = log_path
        self.limits = limits
        self.marker = secrets.token_hex(8)  # unsandboxed: inherited by every descendant
        self._hits: list[str] | None = None
        log_path.parent.mkdir(parents=True, exist_ok=True)
        argv, cwd, process_env = self._command(env, endpoint, private)
        support = cgroups.support()
        self.cgroup = cgroups.BotCgroup(limits.cgroup_limits(), support) if support.parents else None
        capped = self.cgroup is not None and "cpu" in self.cgroup.folders
        cpus = pinned_cpus(limits.cpus, slot) if limits.cpus is not None and not capped else []
        try:
            self.popen = subprocess.Popen(
                limits.wrap(argv, self.cgroup.procs_files if self.cgroup else [], cpus),
                env=process_env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                cwd=cwd,
            )
        except OSError:
            if self.cgroup:
                self.cgroup.remove()
            raise
        assert self.popen.stdout is not None
        self.output = StampedLog(self.popen.stdout, log_path, limits.log_bytes)

    def _command(
        self, env: dict[str, str], endpoint: RefereeEndpoint | None, private: tuple[Path, ...]
    ) -> tuple[tuple[str, ...], Path | None, dict[str, str]]:
        """Returns (argv, working directory, environment) of the process the referee starts."""
        declared = dict(self.spec.env)
        if self.limits.sandbox:
            if self.spec.kind == "submitted":  # its files at /bot: no path of the worker's shows
                code, cwd = tuple((p, sandbox.BOT_INSIDE) for p in self.spec.code), sandbox.BOT_INSIDE
            else:  # at the same path, so the command's relative paths work
                code, cwd = tuple((p, p) for p in self.spec.code if p.exists()), self.spec.cwd or Path("/tmp")
            request = sandbox.SandboxRequest(
                argv=sandbox.with_variables(declared, self.spec.argv),
                code=code,
                cwd=cwd,
                socket=endpoint.socket if endpoint and endpoint.socket else None,
                env=env,
                hide=private,
                disk_bytes=None if self.limits.disk_mb is None else self.limits.disk_mb * MIB,
                processes=self.limits.processes_inside(),
            )
            argv, inside = sandbox.command(request)
            return tuple(argv), None, inside
        basics = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "TMPDIR") if k in os.environ}
        address = {"ARENA_ADDRESS": endpoint.tcp} if endpoint else {}
        process_env = {**basics, **declared, **env, **address, MARKER_VARIABLE: self.marker}
        return self.spec.argv, self.spec.cwd, process_env

    @property
    def pid(self) -> int:
        """Returns the process id of the bot (sandboxed: of its bwrap; also its process group)."""
        return self.popen.pid

    @property
    def exit_code(self) -> int | None:
        """Returns the exit code, or None while the process runs (-N: killed by signal N)."""
        code = self.popen.poll()
        if code is not None and self.limits.sandbox and code > 128:
            return -(code - 128)  # bwrap exits with 128 + N when the bot was killed by signal N
        return code

    def exit_description(self) -> str:
        """Returns how the process ended, naming the limit that killed it when one did."""
        code = self.exit_code
        if code is None:
            return "still running"
        hits = self.limits_hit()
        because = f"; {', '.join(hits)}" if hits else ""
        if code >= 0:
            return f"exited with code {code}{because}"
        try:
            name = signal.Signals(-code).name
        except ValueError:
            return f"killed by signal {-code}{because}"
        return f"killed by {name}" + SIGNAL_CAUSES.get(name, "") + because

    def limits_hit(self) -> list[str]:
        """Returns the cgroup limits the bot ran into (fork refused, memory exhausted)."""
        if self._hits is not None:
            return self._hits
        return self.cgroup.limits_hit() if self.cgroup else []

    def log_tail(self, lines: int = 5) -> str:
        """Returns the last lines the bot printed, joined by ' | ' (each cut to 200 characters)."""
        try:
            with open(self.log_path, "rb") as log:
                log.seek(0, os.SEEK_END)
                log.seek(max(0, log.tell() - 8192))
                text = log.read().decode("utf-8", errors="replace")
        except OSError:
            return ""
        printed = [line.strip()[:200] for line in text.splitlines() if line.strip() and line != READY_LINE]
        return " | ".join(printed[-lines:])

    def stop(self, grace: float = 2.0) -> None:
        """Lets the process exit by itself within ``grace`` seconds, then ends its whole process tree:
        its process group, its cgroup, its PID namespace (sandboxed) or every process that inherited
        its marker (unconfined). The limits it ran into are added to its log."""
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
        if self.cgroup:
            self.cgroup.kill_all()
        if not self.limits.sandbox:
            kill_marked(self.marker)
        self.output.join(timeout=1.0)
        if self.cgroup and self._hits is None:
            self._hits = self.cgroup.limits_hit()
            self.cgroup.remove()
            if self._hits:
                with contextlib.suppress(OSError), open(self.log_path, "a", encoding="utf-8") as log:
                    log.write("".join(f"[arena: {hit}]\n" for hit in self._hits))


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
