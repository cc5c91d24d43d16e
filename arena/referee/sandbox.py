"""The bot sandbox: every bot process the referee starts runs inside bubblewrap (``bwrap``).

A bot is hostile code. Inside its sandbox it has its own user, PID, IPC, UTS, cgroup and network
namespaces and runs as uid 65534; it sees the read-only system runtime (``/usr``, a few files of
``/etc``), the Python environment arena runs from (read-only, so SDK bots work), its own code
(read-only), and a private writable ``/tmp`` (its ``HOME`` too) that is a size-capped tmpfs and
vanishes with it. It has no network at all: it reaches the referee through one Unix socket bound
into the sandbox. Its environment is exactly ``ARENA_ADDRESS``, ``ARENA_TOKEN``, ``PATH``,
``HOME``, ``LANG``, ``TMPDIR`` (and ``PWD``, set by bwrap) and the variables its own entry command
declares (``NAME=value`` words before the program).
When the referee stops it, the PID namespace ends and every process it started dies with it.
A seccomp filter (``arena.referee.seccomp``) refuses the system calls no bot needs: the kernel
keyring, other processes' memory, mounts, namespaces, BPF, io_uring and the like. ``/proc/keys`` and
``/proc/key-users`` are empty, and ``/proc/stat`` and ``/proc/loadavg`` are constant files: the real
ones show every process's CPU use live, the opponent's thinking included.

What this rules out, each with its test in tests/test_sandbox.py and tests/test_fair_play.py:
reading another process's environment or token (no other process is visible), signalling another
bot, the referee or the worker, reaching Redis or anything on the host's loopback, reading replays,
the bot cache, other bots' code or arena's state folder, and leaving files (or kernel keys: see
tests/test_seccomp.py) for a later match.

Design detail: bubblewrap, not a container runtime: it is one small Debian package, needs no daemon,
starts in a few milliseconds, and works as root (as in CI and containers) and, where the kernel
allows user namespaces, as an ordinary user.
"""

from __future__ import annotations

import base64
import dataclasses
import fcntl
import functools
import os
import re
import shlex
import shutil
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from arena.referee import sandbox_start, seccomp

SANDBOX_UID = 65534  # "nobody": the bot's uid inside its user namespace
SOCKET_INSIDE = "/run/arena/referee.sock"  # where the referee's Unix socket appears in the sandbox
BOT_INSIDE = Path("/bot")  # where a submitted bot's files appear (its working directory)
ADDRESS_INSIDE = f"unix://{SOCKET_INSIDE}"
HOME_INSIDE = "/tmp/home"
ENV_PROGRAM = "/usr/bin/env"  # sets an entry's declared variables inside the sandbox (with_variables)
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
# Files of /etc that programs need to start (dynamic linker, time zone, name lookups of no host);
# nothing of /etc that holds secrets or the host's configuration.
ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/alternatives",  # Debian's /usr/bin/* symlinks (awk, java, ...) point into it
    "/etc/nsswitch.conf",
    "/etc/mime.types",
)
MFD_EXEC = 0x0010  # memfd_create(2): executable even where vm.memfd_noexec says otherwise (Linux 6.3)
# /proc files that show the whole machine's activity live (every process's CPU time, the run queue, the
# last pid), the opponent's thinking included: covered with constant files (``proc_files``).
LOADAVG_INSIDE = "0.00 0.00 0.00 1/1 1\n"
# /proc files that list the kernel keys (and each uid's count) the uid the sandbox maps to may see:
# covered with empty files
HIDDEN_PROC_FILES = ("/proc/keys", "/proc/key-users")
INSTALL_HINT = (
    "install bubblewrap (sudo apt-get install bubblewrap) and allow user namespaces "
    "(sudo sysctl -w kernel.unprivileged_userns_clone=1 where that setting exists), "
    "or run only bots you trust with --no-sandbox"
)


class SandboxError(RuntimeError):
    """The sandbox cannot work on this machine; the message says why and what to do."""


@dataclasses.dataclass(frozen=True)
class SandboxRequest:
    """What one bot's sandbox must contain: its command, its code, its socket and its variables."""

    argv: tuple[str, ...]  # the bot's command, as run inside
    code: tuple[tuple[Path, Path], ...]  # (on the host, inside): the bot's code, bound read-only
    cwd: Path  # its working directory inside
    socket: Path | None  # the referee's Unix socket on the host (None: the bot gets no referee)
    env: dict[str, str]  # ARENA_TOKEN and the entry's declared variables
    hide: tuple[Path, ...] = ()  # folders inside ``code`` covered by an empty tmpfs (arena's state)
    disk_bytes: int | None = 64 << 20  # size of the private /tmp
    writable: bool = False  # bind ``code`` writable (a build command's copy of the bot), not read-only
    # RLIMIT_NPROC, set inside (``command``): there it counts this sandbox's tasks alone (None: unset)
    processes: int | None = None


@functools.cache
def prlimit_path() -> str:
    """Returns util-linux's prlimit, which sets a sandbox's process limit inside it; raises
    SandboxError when it is missing (or outside /usr, the only system folder a sandbox sees)."""
    path = shutil.which("prlimit", path="/usr/bin:/usr/sbin")
    if path is None:
        raise SandboxError("the bot sandbox needs prlimit (sudo apt-get install util-linux)")
    return path


@functools.cache
def bwrap_path() -> str:
    """Returns the bubblewrap binary; raises SandboxError when it is missing."""
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxError(f"the bot sandbox needs bubblewrap, which is not installed: {INSTALL_HINT}")
    return path


def _namespaces() -> list[str]:
    return [
        "--unshare-all",  # user (below), PID, network, IPC, UTS and cgroup namespaces
        "--unshare-user",  # also when run as root: the bot is never root, not even inside
        "--disable-userns",  # no nested user namespace to regain capabilities in
        "--uid", str(SANDBOX_UID),
        "--gid", str(SANDBOX_UID),
        "--hostname", "arena-bot",
        "--die-with-parent",  # the sandbox ends when its bwrap process (the one the referee holds) dies
        "--new-session",  # no TIOCSTI into a terminal
    ]  # fmt: skip


def _usr_links() -> list[str]:
    """Returns the root's links into /usr (Debian's merged /usr: /bin, /lib, /lib64, /sbin)."""
    links = []
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        target = Path("/") / name
        if target.is_symlink():
            links += ["--symlink", os.readlink(target), str(target)]
        elif target.is_dir():
            links += ["--ro-bind", str(target), str(target)]
    return links


def python_runtime() -> tuple[Path, ...]:
    """Returns the folders of the Python that arena runs on (the venv and its base interpreter) and
    arena's own package when it lives elsewhere (an editable install), all read-only inside."""
    import arena

    folders = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), Path(sys.prefix)}
    folders.add(Path(arena.__file__).resolve().parent)
    return tuple(sorted(p for p in folders if not under(p, Path("/usr"))))


def python_path_inside() -> dict[str, str]:
    """Returns ``{"PYTHONPATH": folder}`` when this arena was imported through PYTHONPATH (a source
    folder that no install points at, such as a copy of the project), so that built-in and SDK bots
    import the same arena inside (``python_runtime`` binds it); else nothing, the documented
    environment unchanged."""
    import arena

    folder = str(Path(arena.__file__).resolve().parent.parent)
    entries = {str(Path(p).resolve()) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    return {"PYTHONPATH": folder} if folder in entries else {}


def under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _ro_binds(paths: Iterable[Path]) -> list[str]:
    args = []
    for path in sorted(set(paths)):
        if path.exists():
            args += ["--ro-bind", str(path), str(path)]
    return args


def command(request: SandboxRequest) -> tuple[list[str], dict[str, str]]:
    """Returns the bwrap command line that runs ``request.argv`` confined, and the whole environment
    to start it with (bwrap passes it on unchanged).

    Design detail: the environment is not given as ``--setenv`` arguments: a command line is
    readable by every user of the machine (``ps``), and the seat token is a secret. The environment
    is the referee's alone: variables an entry command declares are set inside by ``with_variables``.
    The private /tmp is mounted before the bot's code, so code that lives under the host's /tmp (a
    test's folder) is still bound; ``code_folder`` never binds /tmp itself. Once everything is in
    place, the root and /dev are remounted read-only: both are tmpfs mounts of no size, so a process
    writing to /anything or /dev/anything would take the worker's memory past ``disk_bytes``; its
    writable places are its sized /tmp (and its folder, when ``writable``). /dev/null still works.

    Design detail: bwrap's options are not on any command line either: they name the host's folders,
    and bwrap is the sandbox's pid 1, whose ``/proc/1/cmdline`` the bot reads. The command returned
    runs ``sandbox_start.py`` (``starter``), which finds them in the environment
    (``sandbox_start.VARIABLE``) with the seccomp filter and the constant /proc files, hands each to
    bwrap on a descriptor and execs ``bwrap --args N -- ARGV``. Arguments added after the starter go
    to bwrap before those options.
    """
    bwrap = bwrap_path()
    files = _files()  # at descriptors 3, 4, ...: the seccomp filter, then the /proc files
    fd = iter(range(sandbox_start.FIRST_FD, sandbox_start.FIRST_FD + len(files)))
    args = [*_namespaces(), "--seccomp", str(next(fd))]
    args += ["--ro-bind", "/usr", "/usr", *_usr_links()]
    args += _ro_binds(Path(p) for p in ETC_FILES)
    args += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev"]
    for name in _proc_files():
        args += ["--perms", "0444", "--ro-bind-data", str(next(fd)), name]
    if request.disk_bytes is not None:
        args += ["--size", str(request.disk_bytes)]
    args += ["--tmpfs", "/tmp", "--dir", HOME_INSIDE]
    args += _ro_binds(python_runtime())
    for outside, inside in request.code:
        args += ["--bind" if request.writable else "--ro-bind", str(outside), str(inside)]
    for folder in request.hide:
        if any(under(folder, outside) and outside == inside for outside, inside in request.code):
            args += ["--tmpfs", str(folder)]
    if request.socket is not None:
        args += ["--bind", str(request.socket), SOCKET_INSIDE]
    env = {
        "PATH": _path_inside(),
        "HOME": HOME_INSIDE,
        "LANG": "C.UTF-8",
        "TMPDIR": "/tmp",
        **python_path_inside(),
        **request.env,
        "ARENA_ADDRESS": ADDRESS_INSIDE,
    }
    args += ["--dir", str(request.cwd), "--remount-ro", "/", "--chdir", str(request.cwd)]
    options, argv = "\0".join(args).encode(), b"\0".join(os.fsencode(arg) for arg in inside_argv(request))
    blobs = [os.fsencode(bwrap), *files, options, argv]
    env[sandbox_start.VARIABLE] = ",".join(base64.b64encode(blob).decode("ascii") for blob in blobs)
    return [starter()], env


def starter() -> str:
    """Returns the program that starts every sandbox: ``sandbox_start.py`` with this interpreter in its
    ``#!`` line, in a sealed memfd of this process, as ``/proc/PID/fd/N`` (the processes it starts
    exec it by that path).

    Design detail: an executable file on disk would not do: a wheel keeps no execute bit (pip installs
    arena's files 0644), and a copy written at run time needs a private folder that allows exec. The
    memfd is made once per process, and sealed: nothing can change it.
    """
    pid = os.getpid()
    return f"/proc/{pid}/fd/{_starter_fd(pid)}"


@functools.cache
def _starter_fd(pid: int) -> int:  # one per process: a forked child makes its own
    interpreter = os.fsencode(sys.executable)
    if not interpreter or any(c in interpreter for c in b" \t\n") or len(interpreter) > 200:
        raise SandboxError(f"the bot sandbox needs a Python at a path without spaces, not {sys.executable!r}")
    script = b"#!" + interpreter + b" -SE\n" + Path(sandbox_start.__file__).read_bytes()
    flags = os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING
    try:
        fd = os.memfd_create("arena-sandbox-start", flags | MFD_EXEC)
    except OSError:  # a kernel before 6.3 knows no MFD_EXEC
        fd = os.memfd_create("arena-sandbox-start", flags)
    view = memoryview(script)
    while view:
        view = view[os.write(fd, view) :]
    seals = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    return fd


def _files() -> list[bytes]:
    """Returns the files bwrap reads from descriptors: the seccomp filter, then ``_proc_files``'s."""
    try:
        program = seccomp.program()
    except seccomp.SeccompUnavailable as exc:
        raise SandboxError(str(exc)) from None
    return [program, *(text.encode() for text in _proc_files().values())]


@functools.cache
def _proc_files() -> dict[str, str]:
    """Returns the constant contents of /proc/stat and /proc/loadavg inside the sandbox, and the empty
    /proc/keys and /proc/key-users (where the kernel has them).

    /proc/stat keeps one line per CPU (glibc counts them there for ``os.cpu_count()`` where /sys is
    not mounted, as in the sandbox) and the boot time, with constant times and counters.
    """
    cpus, boot = 1, 0
    try:
        text = Path("/proc/stat").read_text()
        cpus = max(1, len(re.findall(r"^cpu\d+ ", text, re.MULTILINE)))
        boot = int(re.search(r"^btime (\d+)$", text, re.MULTILINE).group(1))  # type: ignore[union-attr]
    except (OSError, AttributeError, ValueError):
        pass
    times = " 0 0 0 {} 0 0 0 0 0 0"
    lines = [f"cpu {times.format(100 * cpus)}", *(f"cpu{n}{times.format(100)}" for n in range(cpus))]
    lines += ["intr 0", "ctxt 0", f"btime {boot}", "processes 1", "procs_running 1", "procs_blocked 0"]
    lines += ["softirq 0 0 0 0 0 0 0 0 0 0 0"]
    hidden = {name: "" for name in HIDDEN_PROC_FILES if Path(name).exists()}
    return {"/proc/stat": "\n".join(lines) + "\n", "/proc/loadavg": LOADAVG_INSIDE, **hidden}


def code_folder(path: Path) -> Path:
    """Returns what to bind for a bot file: its folder (for the modules beside it), or the file
    alone when the folder is one that holds far more than a bot (/, /tmp, the home folder)."""
    return path if path.parent in broad_folders() else path.parent


def broad_folders() -> tuple[Path, ...]:
    """Returns the folders that hold far more than a bot (/, /tmp, the home folder): never bound whole."""
    return (Path("/"), Path("/tmp"), Path.home().resolve(), Path.home())


def _path_inside() -> str:
    """Returns PATH inside: the venv's bin first (so ``python`` is arena's), then the system's."""
    return f"{Path(sys.prefix) / 'bin'}:{DEFAULT_PATH}"


def inside_argv(request: SandboxRequest) -> tuple[str, ...]:
    """Returns the command bwrap runs: the request's, under ``prlimit --nproc`` when it has a process
    limit.

    Design detail: RLIMIT_NPROC counts the tasks of a user, and since Linux 5.14 it does so per user
    namespace, checking every namespace up to the first one. Set on bwrap from outside, the count
    it is checked against is the worker user's: every thread of every bot of every worker running as
    that user (compose's workers share one uid), and a bot failed to start ("Creating new namespace
    failed: Resource temporarily unavailable") once they held 512 together. Set inside the
    sandbox's own user namespace, it counts that sandbox's tasks alone; the bot cannot raise it
    (that needs CAP_SYS_RESOURCE in the first namespace)."""
    if request.processes is None:
        return request.argv
    limit = f"--nproc={request.processes}:{request.processes}"
    return (prlimit_path(), limit, "--", *request.argv)


def with_variables(declared: dict[str, str], argv: Sequence[str]) -> tuple[str, ...]:
    """Returns the command that sets an entry's declared variables (``NAME=value`` words) inside the
    sandbox and runs ``argv``.

    Design detail: a variable given to the sandbox's environment is in the environment of the host
    processes that start it (the rlimit launcher, bwrap) too, and there ``LD_PRELOAD=`` or
    ``LD_LIBRARY_PATH=`` naming a library the submitter left on the worker (another of their bots,
    unpacked in the cache) would run the submitter's code as the worker's user, outside the sandbox.
    ``env`` sets them inside instead; they are no secret (an entry command is public).
    """
    if not declared:
        return tuple(argv)
    return (ENV_PROGRAM, "--", *(f"{name}={value}" for name, value in declared.items()), *argv)


def declared_variables(argv: Sequence[str]) -> tuple[dict[str, str], tuple[str, ...]]:
    """Splits an entry command into the variables it declares (leading NAME=value words, as a shell
    reads them) and the command itself.

    >>> declared_variables(("DEPTH=3", "python", "bot.py"))
    ({'DEPTH': '3'}, ('python', 'bot.py'))
    """
    env: dict[str, str] = {}
    words = list(argv)
    while words and "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    return env, tuple(words)


def shell_words(text: str) -> list[str]:
    """Returns the words of a shell command (for finding the files a command names)."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()
