"""The sandbox self-check: before a worker (or ``arena match``) says "bots run sandboxed", it starts one
sandbox exactly as it starts every bot's and runs a tiny program in it.

A check that starts a bare ``bwrap true`` passes where every bot then fails: inside a Docker container
with the default settings, bubblewrap can make its namespaces but the kernel refuses the fresh
``/proc`` a bot's sandbox mounts, and ``--disable-userns`` cannot write ``/proc/sys``. So the probe here
goes through the same ``BotProcess`` as a submitted bot: the same launcher, rlimits and cgroup, the
same mounts (``/proc``, ``/dev``, the Python runtime, its code read-only at ``/bot``, a private ``/tmp``,
the referee's socket), the same namespaces and user. The program is Python (what most bots run) and
prints one line only when what a bot relies on holds inside: its uid, its own ``/proc``, its code, the
socket, a writable ``/tmp``, no network, and the seccomp filter (``add_key`` and ``keyctl`` refused
with EPERM, ``/proc/keys`` empty, the constant ``/proc/loadavg``), so that no worker says "sandboxed"
without it.
"""

from __future__ import annotations

import contextlib
import functools
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from arena.referee import sandbox, seccomp
from arena.referee.processes import BotLimits, BotProcess, BotSpec, RefereeEndpoint
from arena.referee.sandbox import INSTALL_HINT, SandboxError

PROBE_OK = "arena-sandbox-probe: ok"
PROBE_SECONDS = 30.0  # a cold start of the interpreter on a loaded machine takes well under this
APPARMOR_USERNS = Path("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")

PROBE_CALLS = ("add_key", "keyctl")  # the probe's @add_key@ and @keyctl@: their numbers on this machine

# Runs inside the sandbox as the bot would; prints PROBE_OK only when every check holds, else the
# first failed check (which the worker then reports). The calls it makes do nothing where the filter
# is missing (add_key of no key, keyctl of no command): they fail, with another errno.
PROBE = f"""\
import ctypes, errno, os, socket, sys
def fail(why):
    print("arena-sandbox-probe: " + why)
    sys.exit(1)
if os.getuid() != {sandbox.SANDBOX_UID}:
    fail("runs as uid %d, not {sandbox.SANDBOX_UID}" % os.getuid())
pids = [p for p in os.listdir("/proc") if p.isdigit()]
if not os.path.exists("/proc/self/status") or len(pids) > 8:
    fail("/proc is not the sandbox's own (%d processes visible)" % len(pids))
if os.getcwd() != "{sandbox.BOT_INSIDE}" or not os.path.isfile("probe.py"):
    fail("its code is not at {sandbox.BOT_INSIDE}")
if not os.path.exists("{sandbox.SOCKET_INSIDE}"):
    fail("the referee's socket is not at {sandbox.SOCKET_INSIDE}")
with open("/tmp/probe", "w") as f:
    f.write("ok")
try:
    socket.create_connection(("1.1.1.1", 53), timeout=1).close()
    fail("it reached the network")
except OSError:
    pass
with open("/proc/self/status") as f:
    if "Seccomp:\t2" not in f.read():
        fail("no seccomp filter is on")
libc = ctypes.CDLL(None, use_errno=True)
for name, call in (("add_key", (@add_key@, 0, 0, 0, 0, 0)), ("keyctl", (@keyctl@, -1, 0, 0, 0, 0))):
    if libc.syscall(*(ctypes.c_long(a) for a in call)) != -1 or ctypes.get_errno() != errno.EPERM:
        fail(name + " is not refused with EPERM: the seccomp filter is not arena's")
for name in {sandbox.HIDDEN_PROC_FILES!r}:
    if os.path.exists(name) and open(name).read():
        fail(name + " lists kernel keys")
if open("/proc/loadavg").read() != {sandbox.LOADAVG_INSIDE!r}:
    fail("/proc/loadavg is the machine's, not the sandbox's constant one")
print("{PROBE_OK}")
"""


def check_sandbox(limits: BotLimits) -> None:
    """Starts one bot-identical sandbox under ``limits`` (once per process and limits); raises
    SandboxError with one line saying why bots cannot run here and what to do."""
    _checked(limits)


def check_sandbox_now(limits: BotLimits) -> None:
    """The same check, run again now (not the answer this process got at its start): a worker asks
    it when no seat of a match joined, to tell its own failure from the bots'."""
    _check(limits)


@functools.cache
def _checked(limits: BotLimits) -> None:
    _check(limits)


def _check(limits: BotLimits) -> None:
    sandbox.bwrap_path()  # raises SandboxError when bubblewrap is missing
    with tempfile.TemporaryDirectory(prefix="arena-sandbox-check-") as folder:
        work = Path(folder)
        code = work / "bot"
        code.mkdir()
        (code / "probe.py").write_text(_probe(), encoding="utf-8")
        code.chmod(0o755)
        (code / "probe.py").chmod(0o644)
        referee = work / "referee.sock"
        with _listening(referee):
            spec = BotSpec("sandbox-check", (sys.executable, "-I", "probe.py"), "submitted", code, (code,))
            output = _run_probe(spec, limits, referee, work / "probe.log")
    if PROBE_OK not in output.splitlines():
        raise SandboxError(f"the bot sandbox cannot start on this machine ({_why(output)}): {_hint(output)}")


def _probe() -> str:
    """Returns PROBE with the numbers of the system calls it makes on this machine's architecture."""
    text = PROBE
    try:
        for name in PROBE_CALLS:
            text = text.replace(f"@{name}@", str(seccomp.number(name)))
    except seccomp.SeccompUnavailable as exc:
        raise SandboxError(f"the bot sandbox cannot start on this machine: {exc}") from None
    return text


@contextlib.contextmanager
def _listening(path: Path):
    """A Unix socket at ``path`` for the probe's sandbox to bind, as the referee's is for a bot's."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
        server.listen(1)
        yield
    finally:
        server.close()


def _run_probe(spec: BotSpec, limits: BotLimits, referee: Path, log: Path) -> str:
    """Runs the probe as a bot process; returns what it printed (bubblewrap's own errors included)."""
    endpoint = RefereeEndpoint("127.0.0.1:9", referee)
    try:
        process = BotProcess(spec, {"ARENA_TOKEN": "sandbox-check"}, log, limits, endpoint)
    except OSError as exc:
        raise SandboxError(f"the bot sandbox cannot start ({exc}): {INSTALL_HINT}") from None
    try:
        process.popen.wait(timeout=PROBE_SECONDS)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
    process.stop(grace=0.0)
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    if timed_out:
        text += f"\nthe probe did not finish within {PROBE_SECONDS:g} s"
    return text


def _why(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip() and "[arena:" not in line]
    return lines[-1][:300] if lines else "it printed nothing"


def _hint(output: str) -> str:
    """Returns what to do, naming the setting that most likely refused the sandbox."""
    if "bwrap:" not in output:  # bubblewrap started, and the probe found a sandbox that does not hold
        return "arena's sandbox does not confine bots here as it must: report this with the line above"
    if _apparmor_restricts_userns():
        return (
            "the host's AppArmor refuses unprivileged user namespaces "
            "(kernel.apparmor_restrict_unprivileged_userns=1): on the host run "
            "'sysctl -w kernel.apparmor_restrict_unprivileged_userns=0', or give the worker an "
            "AppArmor profile that allows 'userns' (security_opt: apparmor=PROFILE)"
        )
    if _in_container():
        return (
            "in a container, the worker needs security_opt seccomp=unconfined, systempaths=unconfined "
            "and apparmor=unconfined (compose.yaml's worker service has them)"
        )
    return INSTALL_HINT


def _apparmor_restricts_userns() -> bool:
    with contextlib.suppress(OSError, ValueError):
        return int(APPARMOR_USERNS.read_text().strip()) == 1
    return False


def _in_container() -> bool:
    return Path("/.dockerenv").exists() or Path("/run/.containerenv").exists()
