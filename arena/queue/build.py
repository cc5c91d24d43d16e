"""Build commands: source submissions in compiled languages, built once per version on each worker.

A version may carry a build command (``arena bots submit --build "go build -o bot ."``, stored as a
JSON argv in the version record's field ``build``). The first time a worker needs that version it
copies the unpacked folder, runs the command in the copy inside the bot sandbox (same bubblewrap as
bots, ``arena.referee.sandbox``: no network, no host files but the system runtime, its own user),
with the bot limits and a time limit, and renames the copy to ``<cache>/<version>-built``: the folder
the bot then runs from, bound read-only like any bot's code. A failed or timed-out build raises
``BuildError`` carrying the tail of the build's output; nothing is cached for it, so a later job tries
again (a failed version never becomes active: its smoke match fails, see ``arena.queue.smoke``).

Design detail: the copy is built under a temporary name beside the final folder and renamed into
place, so two workers sharing a cache never run a half-built bot; the loser of the race throws its
copy away.

Design detail, disk: the copy is the one writable place a build has on the worker's own disk, so what
it may write there is bounded while it runs, not only checked afterwards (a build writing without end
would fill the worker's disk before any check): ``RLIMIT_FSIZE`` stops each file at the unpacked limit
(the write fails with ``EFBIG``), and a watcher measures the copy every ``WATCH_SECONDS`` and ends the
build once it holds more than a bot may, so the disk a build can take is about the limit plus what it
writes in one interval.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import resource
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import IO

import redis

from arena.queue import keys
from arena.queue.archives import ArchiveLimits, SubmissionError, remove_tree
from arena.queue.entries import check_entry
from arena.referee import sandbox
from arena.referee.processes import MIB, BotLimits

LIMITS = ArchiveLimits()  # what a built folder may hold, as a submitted archive (the workers' defaults)

DEFAULT_BUILD_TIMEOUT = timedelta(seconds=120)
OUTPUT_KEPT = 64 * 1024  # bytes of the build's output kept (its end) for the error message
BUILD_DISK_MB = 512  # the build's private /tmp (and HOME: compilers' caches), a tmpfs
PYTHON_WORDS = frozenset({"python", "python3"})
WATCH_SECONDS = 0.1  # how often a running build's folder is measured
# The toolchains' settings a build gets from the worker's environment, and nothing else of it (no
# secret is one): the image sets Go's (GOPATH mode over the contract's code and Debian's libraries,
# static binaries, no module downloads), so ``go build -o bot .`` works as bots/go/build.sh builds.
TOOLCHAIN_VARIABLES = ("GOPATH", "GO111MODULE", "CGO_ENABLED", "GOFLAGS", "GOPROXY")


class BuildError(Exception):
    """A build command that failed or ran out of time; the message ends with its output's tail."""


@dataclasses.dataclass(frozen=True)
class _BuildLimits(BotLimits):
    """The bot limits plus ``RLIMIT_FSIZE``: no file a build writes grows past ``file_bytes``."""

    file_bytes: int = ArchiveLimits().unpacked_bytes

    def rlimits(self) -> list[tuple[int, int]]:
        return [*super().rlimits(), (resource.RLIMIT_FSIZE, self.file_bytes)]


def build_command(client: redis.Redis, version: str) -> tuple[str, ...] | None:
    """Returns the build argv stored with ``version``, or None when it has none."""
    text = client.hget(keys.bot_version(version), "build")
    if not text:
        return None
    argv = json.loads(text)
    if not isinstance(argv, list) or not argv or not all(isinstance(w, str) for w in argv):
        raise BuildError(f"bot version {version}: malformed build command {text[:200]!r}: resubmit the bot")
    return tuple(argv)


def built(
    folder: Path,
    version: str,
    argv: Sequence[str],
    limits: BotLimits,
    timeout: timedelta = DEFAULT_BUILD_TIMEOUT,
    entry: Sequence[str] = (),
) -> Path:
    """Returns ``<cache>/<version>-built`` (beside ``folder``, the unpacked version), running the
    build in a copy of ``folder`` the first time; raises BuildError when the build fails or leaves
    no program that ``entry`` (the bot's entry command) can start.

    Design detail: the entry of a version with a build command is checked here, after the build, not
    at submission: the program it starts (``./bot``) is usually what the build makes.
    """
    final = folder.parent / f"{version}-built"
    if final.is_dir():
        return final
    work = Path(tempfile.mkdtemp(prefix=f".{version}-build-", dir=folder.parent))
    try:
        copy = work / "bot"
        shutil.copytree(folder, copy, symlinks=True)
        set_writable(copy, True)  # the unpacked tree is read-only (arena.queue.archives)
        run_build(argv, copy, limits, timeout)
        check_size(copy, LIMITS)
        if entry:
            check_built_entry(copy, entry)
        set_writable(copy, False)
        _rename_folder(copy, final)
    finally:
        remove_tree(work)
    return final


def check_built_entry(folder: Path, entry: Sequence[str]) -> None:
    """Raises BuildError unless ``entry`` can start in the built ``folder`` (the checks a submission
    without a build gets at once, ``arena.queue.entries``)."""
    try:
        check_entry(folder, entry)
    except SubmissionError as exc:
        shown = str(exc).replace(f"--dir {folder}", "the built folder")
        raise BuildError(f"the build succeeded, but {shown}") from None


def _rename_folder(copy: Path, final: Path) -> None:
    """Moves the read-only built ``copy`` to ``final``; a build another worker finished first wins.

    Design detail: moving a folder to another parent rewrites its ``..`` entry, which needs write
    permission on the folder itself: root has it anyway, the image's unprivileged worker does not,
    so the folder is writable for the move and read-only again right after.
    """
    mode = stat.S_IMODE(copy.stat().st_mode)
    os.chmod(copy, mode | stat.S_IWUSR)
    try:
        os.rename(copy, final)
    except OSError:
        if not final.is_dir():
            raise
        return
    os.chmod(final, mode)


def check_size(folder: Path, limits: ArchiveLimits) -> None:
    """Raises BuildError when the built tree holds more bytes or entries than an unpacked bot may
    (the same limits as a submitted archive's), so a build cannot grow a bot past what was checked."""
    if over_size(folder, limits):
        raise BuildError(f"the build left {_too_much(limits)}")


def _too_much(limits: ArchiveLimits) -> str:
    return (
        f"more than {limits.unpacked_bytes // MIB} MiB or {limits.files:,} files in the bot's folder: "
        "build less (caches belong in $HOME or /tmp, which are dropped)"
    )


def over_size(folder: Path, limits: ArchiveLimits) -> bool:
    """Returns True as soon as the tree is found to hold more bytes or entries than ``limits`` allow
    (it stops counting there, so a tree of a million files costs no more than one at the limit).
    Entries that vanish while it counts (a build still running) are skipped."""
    total, entries = 0, 0
    for root, dirs, files in os.walk(folder):
        entries += len(dirs) + len(files)
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
        if total > limits.unpacked_bytes or entries > limits.files:
            return True
    return False


def set_writable(folder: Path, writable: bool) -> None:
    """Gives the owner write permission on every folder and file of the tree, or takes it from all
    together with the setuid, setgid and sticky bits.

    Design detail: the build's files belong to the worker's user on the host (the sandbox's user is
    mapped to it), and a build may ``chmod 6755`` its own file: left so, the cache would hold a
    setuid program of the worker's user, made by a stranger's build."""
    special = stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files, ""]:
            path = os.path.join(root, name)
            if os.path.islink(path):
                continue
            mode = stat.S_IMODE(os.stat(path).st_mode)
            os.chmod(path, (mode | stat.S_IWUSR) if writable else (mode & ~0o222 & ~special))


def run_build(argv: Sequence[str], folder: Path, limits: BotLimits, timeout: timedelta) -> None:
    """Runs ``argv`` in ``folder`` (writable), sandboxed unless ``limits.sandbox`` is off; raises
    BuildError with the output's tail when it exits non-zero or outlives ``timeout``."""
    command, cwd, env = _confined(argv, folder, limits)
    build_limits = _BuildLimits(**dataclasses.asdict(limits), file_bytes=LIMITS.unpacked_bytes)
    proc = subprocess.Popen(
        build_limits.wrap(command),
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    kept = bytearray()
    reader = threading.Thread(target=_keep_tail, args=(proc.stdout, kept), daemon=True)
    reader.start()
    done, overflowed = threading.Event(), threading.Event()
    watcher = threading.Thread(target=_watch_size, args=(proc, folder, done, overflowed), daemon=True)
    watcher.start()
    try:
        code: int | None = proc.wait(timeout=timeout.total_seconds())
    except subprocess.TimeoutExpired:
        code = None
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # the build's whole session, finished or not
        proc.wait()
        done.set()
        reader.join(timeout=5)
        watcher.join()
    if overflowed.is_set():
        stopped = f"the build command {shlex.join(argv)!r} was stopped while it ran: it wrote "
        raise BuildError(stopped + _too_much(LIMITS) + _tail(bytes(kept)))
    if code == 0:
        return
    why = f"ran longer than {timeout.total_seconds():g} s" if code is None else f"exited with code {code}"
    raise BuildError(f"the build command {shlex.join(argv)!r} {why}" + _tail(bytes(kept)))


def _watch_size(
    proc: subprocess.Popen, folder: Path, done: threading.Event, overflowed: threading.Event
) -> None:
    """Measures the build's folder until ``done``; past the limits, sets ``overflowed`` and kills the
    build's session (see the module docstring)."""
    while not done.wait(WATCH_SECONDS):
        if over_size(folder, LIMITS):
            overflowed.set()
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            return


def _confined(
    argv: Sequence[str], folder: Path, limits: BotLimits
) -> tuple[tuple[str, ...], Path | None, dict[str, str]]:
    """Returns (command, working directory, environment) that run the build as the worker's bots run."""
    declared, words = sandbox.declared_variables(argv)
    if words and words[0] in PYTHON_WORDS:  # the worker's interpreter, as for the bot's entry
        words = (sys.executable, *words[1:])
    if not limits.sandbox:
        names = ("PATH", "HOME", "LANG", "TMPDIR", *TOOLCHAIN_VARIABLES)
        basics = {k: os.environ[k] for k in names if k in os.environ}
        return tuple(words), folder, {**basics, **declared}
    request = sandbox.SandboxRequest(
        argv=sandbox.with_variables(declared, words),
        code=((folder, sandbox.BOT_INSIDE),),
        cwd=sandbox.BOT_INSIDE,
        socket=None,  # a build talks to no referee, and has no network at all
        env={name: os.environ[name] for name in TOOLCHAIN_VARIABLES if name in os.environ},
        disk_bytes=BUILD_DISK_MB * MIB,
        writable=True,
    )
    command, env = sandbox.command(request)
    return tuple(command), None, env


def _keep_tail(pipe: IO[bytes], kept: bytearray) -> None:
    """Reads the build's output to its end, keeping the last OUTPUT_KEPT bytes."""
    with pipe:
        while chunk := pipe.read1(65536):
            kept += chunk
            del kept[: max(0, len(kept) - OUTPUT_KEPT)]


def _tail(output: bytes, lines: int = 20) -> str:
    """Returns ': ' and the output's last lines joined by ' | ', or '' for no output."""
    text = output.decode("utf-8", errors="replace")
    last = [line.strip()[:200] for line in text.splitlines() if line.strip()][-lines:]
    return f": {' | '.join(last)}" if last else ""
