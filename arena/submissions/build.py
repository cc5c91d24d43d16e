"""Build commands: source submissions in compiled languages, built once per version on each worker.

A version may carry a build command (``arena bots submit --build "go build -o bot ."``, stored as a
JSON argv in the version record's field ``build``). The first time a worker needs that version it
builds it confined exactly as its bots run: inside the bot sandbox (``arena.referee.sandbox``: no
network, no host files but the system runtime, its own user, the same seccomp filter), in a cgroup of
its own with the bot limits (memory, CPU share, processes; rlimits where no cgroup can be made) and a
time limit. The unpacked version is bound read-only at ``/src``; the build works on a copy of it at
``BUILD_INSIDE``, inside the sandbox's private ``/tmp``, a tmpfs of ``BUILD_DISK_MB``: the kernel bounds
what a build can write (files deleted but still open included), and nothing a build writes touches
the worker's disk. When the command succeeds, the sandbox packs the built folder as a tar.gz onto a
pipe only the packing step holds (the build's own processes are killed first); the worker reads at
most the unpacked limit of it and unpacks it with a submitted archive's checks (``extract_archive``: no
link, no FIFO, no device, within the size and file limits) into ``<cache>/<version>-built``, the
folder the bot then runs from, read-only, whose ``--entry`` is then checked.

A build that fails, runs out of time, breaks a limit or leaves what a bot may not hold raises
``BuildError`` with the reason and its output's tail (the owner reads it in ``arena bots show``);
nothing is cached for it. A sandbox that never started the build is the platform's failure
(``BuildPlatformError``): the job is retried, as for a bot whose sandbox did not start.

Design detail: the result is unpacked under a temporary name beside the final folder and renamed into
place, so two workers sharing a cache never run a half-built bot; the loser of the race throws its
copy away.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
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

import redis

from arena.queue import keys
from arena.referee import cgroups, sandbox
from arena.referee.processes import MIB, BotLimits, pinned_cpus
from arena.submissions.archives import (
    ArchiveError,
    ArchiveLimits,
    SubmissionError,
    extract_archive,
    pack,
    remove_tree,
)
from arena.submissions.entries import check_entry

LIMITS = ArchiveLimits()  # what a built folder may hold, as a submitted archive (the workers' defaults)

DEFAULT_BUILD_TIMEOUT = timedelta(seconds=120)
OUTPUT_KEPT = 64 * 1024  # bytes of the build's output kept (its end) for the error message
BUILD_DISK_MB = 512  # the build's private /tmp: its copy of the bot and its caches (HOME), a tmpfs
BUILD_INSIDE = "/tmp/bot"  # where the build runs inside its sandbox (its working directory)
SOURCE_INSIDE = "/src"  # the unpacked version, read-only
PYTHON_WORDS = frozenset({"python", "python3"})
STARTED_LINE = "arena: build sandbox ready"  # printed inside before the copy: the sandbox started
# The toolchains' settings a build gets from the worker's environment, and nothing else of it (no
# secret is one): the image sets Go's (GOPATH mode over the contract's code and Debian's libraries,
# static binaries, no module downloads), so ``go build -o bot .`` works as bots/go/build.sh builds.
TOOLCHAIN_VARIABLES = ("GOPATH", "GO111MODULE", "CGO_ENABLED", "GOFLAGS", "GOPROXY")

# Runs inside the sandbox as its user: copies the source, runs the build ("$@") with its output on the
# worker's output pipe (stderr) and not the result pipe (stdout), kills whatever the build left running
# (kill -1: every process of the sandbox but this shell and its init), then packs the folder onto
# stdout. Exit codes: the build's own when it failed; 125 and 124 for the copy and the pack.
_SCRIPT = f"""\
echo "{STARTED_LINE}" >&2
cp -R {SOURCE_INSIDE}/. {BUILD_INSIDE}/ && chmod -R u+w {BUILD_INSIDE} || exit 125
"$@" </dev/null 1>&2
code=$?
kill -KILL -1 2>/dev/null
[ "$code" -eq 0 ] || exit "$code"
cd {BUILD_INSIDE} && tar -czf - . || exit 124
"""


class BuildError(Exception):
    """A build command that failed, ran out of time, broke a limit or left what a bot may not hold;
    the message says which and ends with its output's tail."""


class BuildPlatformError(Exception):
    """The build's sandbox never started it: the platform's failure, retried like one."""


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
    """Returns ``<cache>/<version>-built`` (beside ``folder``, the unpacked version), building it the
    first time; raises BuildError when the build fails or leaves no program that ``entry`` (the bot's
    entry command) can start.

    Design detail: the entry of a version with a build command is checked here, after the build, not
    at submission: the program it starts (``./bot``) is usually what the build makes.
    """
    final = folder.parent / f"{version}-built"
    if final.is_dir():
        return final
    result = run_build(argv, folder, limits, timeout)
    work = Path(tempfile.mkdtemp(prefix=f".{version}-build-", dir=folder.parent))
    try:
        copy = work / "bot"
        try:
            extract_archive(result, copy, LIMITS)
        except ArchiveError as exc:
            raise BuildError(f"the build left what a bot may not hold: {exc}") from None
        if entry:
            check_built_entry(copy, entry)
        _rename_folder(copy, final)
    finally:
        remove_tree(work)
    return final


def check_built_entry(folder: Path, entry: Sequence[str]) -> None:
    """Raises BuildError unless ``entry`` can start in the built ``folder`` (the checks a submission
    without a build gets at once, ``arena.submissions.entries``)."""
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


def run_build(argv: Sequence[str], folder: Path, limits: BotLimits, timeout: timedelta) -> bytes:
    """Runs ``argv`` on a copy of ``folder`` confined as a bot (sandboxed unless ``limits.sandbox`` is
    off); returns the built folder as a tar.gz. Raises BuildError with the output's tail when the build
    exits non-zero, outlives ``timeout`` or leaves more than a bot may hold, and BuildPlatformError
    when its sandbox never started."""
    support = cgroups.support()
    group = cgroups.BotCgroup(limits.cgroup_limits(), support) if support.parents else None
    try:
        if limits.sandbox:
            return _run_confined(argv, folder, limits, timeout, group)
        return _run_unconfined(argv, folder, limits, timeout, group)
    finally:
        if group is not None:
            group.remove()


def _pinned(limits: BotLimits, group: cgroups.BotCgroup | None) -> list[int]:
    """Returns the CPUs a build is pinned to where no cgroup caps its CPU share, as a bot's."""
    if limits.cpus is None or (group is not None and "cpu" in group.folders):
        return []
    return pinned_cpus(limits.cpus, 0)


def _split(argv: Sequence[str]) -> tuple[dict[str, str], tuple[str, ...]]:
    """Returns a build command's declared variables and its words, ``python`` being the worker's
    interpreter (as for a bot's entry)."""
    declared, words = sandbox.declared_variables(argv)
    if words and words[0] in PYTHON_WORDS:
        words = (sys.executable, *words[1:])
    return declared, words


def _run_confined(
    argv: Sequence[str], folder: Path, limits: BotLimits, timeout: timedelta, group: cgroups.BotCgroup | None
) -> bytes:
    declared, words = _split(argv)
    request = sandbox.SandboxRequest(
        argv=("/bin/sh", "-c", _SCRIPT, "arena-build", *sandbox.with_variables(declared, words)),
        code=((folder, Path(SOURCE_INSIDE)),),
        cwd=Path(BUILD_INSIDE),
        socket=None,  # a build talks to no referee, and has no network at all
        env={name: os.environ[name] for name in TOOLCHAIN_VARIABLES if name in os.environ},
        disk_bytes=BUILD_DISK_MB * MIB,
        processes=limits.processes_inside(),
    )
    command, env = sandbox.command(request)
    wrapped = limits.wrap(tuple(command), group.procs_files if group else [], _pinned(limits, group))
    proc = _start(wrapped, None, env, split=True)
    code, output, result = _wait(proc, timeout, group)
    started = (STARTED_LINE + "\n").encode()
    if started not in output:
        raise BuildPlatformError(f"the build's sandbox did not start{_tail(output)}")
    output = output.replace(started, b"", 1)  # the owner reads the build's own output
    _raise_unless_built(argv, code, output, timeout, group)
    if result is None:
        raise BuildError(f"the build command {shlex.join(argv)!r} left {_too_much()}{_tail(output)}")
    return result


def _run_unconfined(
    argv: Sequence[str], folder: Path, limits: BotLimits, timeout: timedelta, group: cgroups.BotCgroup | None
) -> bytes:
    """A trusted worker's build (``--no-sandbox``): in a copy on the worker's disk, packed afterwards
    with a submitted folder's rules."""
    declared, words = _split(argv)
    names = ("PATH", "HOME", "LANG", "TMPDIR", *TOOLCHAIN_VARIABLES)
    env = {**{k: os.environ[k] for k in names if k in os.environ}, **declared}
    with tempfile.TemporaryDirectory(prefix="arena-build-") as work:
        copy = Path(work) / "bot"
        shutil.copytree(folder, copy, symlinks=True)
        for root, dirs, files in os.walk(copy):
            for name in [*dirs, *files, ""]:
                path = os.path.join(root, name)
                if not os.path.islink(path):
                    os.chmod(path, os.stat(path).st_mode | 0o200)
        proc = _start(
            limits.wrap(tuple(words), group.procs_files if group else [], _pinned(limits, group)), copy, env
        )
        code, output, _ = _wait(proc, timeout, group)
        _raise_unless_built(argv, code, output, timeout, group)
        try:
            return pack(copy, LIMITS).archive
        except ArchiveError as exc:
            raise BuildError(f"the build left what a bot may not hold: {exc}") from None


def _start(
    argv: Sequence[str], cwd: Path | None, env: dict[str, str], split: bool = False
) -> subprocess.Popen:
    """Starts the build in a session of its own; ``split``: stdout is the packed result and stderr
    the output, else both are the output."""
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE if split else subprocess.STDOUT,
        start_new_session=True,
    )


def _wait(
    proc: subprocess.Popen, timeout: timedelta, group: cgroups.BotCgroup | None
) -> tuple[int | None, bytes, bytes | None]:
    """Waits for the build (None: it ran out of time) and returns its exit code, its output's tail and
    what it packed (None when more than a bot may hold), killing everything it left."""
    split = proc.stderr is not None
    kept = bytearray()
    reader = threading.Thread(
        target=_keep_tail, args=(proc.stderr if split else proc.stdout, kept), daemon=True
    )
    reader.start()
    packed: list[bytes | None] = [b""]
    collector = None
    if split:
        collector = threading.Thread(target=_read_result, args=(proc.stdout, packed, proc), daemon=True)
        collector.start()
    try:
        code: int | None = proc.wait(timeout=timeout.total_seconds())
    except subprocess.TimeoutExpired:
        code = None
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # the build's whole session, finished or not
        if group is not None:
            group.kill_all()
        proc.wait()
        reader.join(timeout=5)
        if collector is not None:
            collector.join(timeout=5)
    return code, bytes(kept), packed[0]


def _read_result(pipe: io.BufferedReader, packed: list[bytes | None], proc: subprocess.Popen) -> None:
    """Reads the packed result up to the unpacked limit; past it, stops the build and keeps None."""
    data = bytearray()
    while chunk := pipe.read1(65536):
        data += chunk
        if len(data) > LIMITS.unpacked_bytes:
            packed[0] = None
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            return
    packed[0] = bytes(data)


def _raise_unless_built(
    argv: Sequence[str], code: int | None, output: bytes, timeout: timedelta, group: cgroups.BotCgroup | None
) -> None:
    if code == 0:
        return
    hits = group.limits_hit() if group is not None else []
    because = f" ({'; '.join(hits)})" if hits else ""
    if code is None:
        why = f"ran longer than {timeout.total_seconds():g} s"
    elif code == 125:
        why = "could not copy the bot's files"
    elif code == 124:
        why = "left a folder that cannot be packed (a file or folder it made unreadable?)"
    else:
        why = f"exited with code {code}"
    raise BuildError(f"the build command {shlex.join(argv)!r} {why}{because}{_tail(output)}")


def _too_much() -> str:
    return (
        f"more than {LIMITS.unpacked_bytes // MIB} MiB in the bot's folder: build less "
        "(caches belong in $HOME or /tmp, which are dropped)"
    )


def _keep_tail(pipe: io.BufferedReader, kept: bytearray) -> None:
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
