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

What this rules out, each with its test in tests/test_sandbox.py and tests/test_fair_play.py:
reading another process's environment or token (no other process is visible), signalling another
bot, the referee or the worker, reaching Redis or anything on the host's loopback, reading replays,
the bot cache, other bots' code or arena's state folder, and leaving files for a later match.

Design detail: bubblewrap, not a container runtime: it is one small Debian package, needs no daemon,
starts in a few milliseconds, and works as root (as in CI and containers) and, where the kernel
allows user namespaces, as an ordinary user.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import shlex
import shutil
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

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
    """
    args = [bwrap_path(), *_namespaces()]
    args += ["--ro-bind", "/usr", "/usr", *_usr_links()]
    args += _ro_binds(Path(p) for p in ETC_FILES)
    args += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev"]
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
        **request.env,
        "ARENA_ADDRESS": ADDRESS_INSIDE,
    }
    args += ["--dir", str(request.cwd), "--remount-ro", "/", "--chdir", str(request.cwd)]
    return [*args, "--", *request.argv], env


def code_folder(path: Path) -> Path:
    """Returns what to bind for a bot file: its folder (for the modules beside it), or the file
    alone when the folder is one that holds far more than a bot (/, /tmp, the home folder)."""
    folder = path.parent
    broad = {Path("/"), Path("/tmp"), Path.home().resolve(), Path.home()}
    return path if folder in broad else folder


def _path_inside() -> str:
    """Returns PATH inside: the venv's bin first (so ``python`` is arena's), then the system's."""
    return f"{Path(sys.prefix) / 'bin'}:{DEFAULT_PATH}"


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
