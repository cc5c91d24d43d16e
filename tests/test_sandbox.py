"""The bot sandbox and its limits, process by process (the attacks end to end: tests/test_fair_play.py).

Each test starts real processes in a real bubblewrap sandbox, as the referee does.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.referee import cgroups, sandbox, sandbox_check
from arena.referee.processes import BotLimits, BotProcess, BotSpec, resolve_bot
from tests.conftest import REPO, run_arena


def run_inside(
    tmp_path: Path, program: str, limits: BotLimits | None = None, slot: int = 0, **spec: object
) -> str:
    """Runs the Python ``program`` as a sandboxed bot process (in seat ``slot``); returns what it printed."""
    fields = {"name": "probe", "argv": (sys.executable, "-c", program), "kind": "builtin", **spec}
    process = BotProcess(
        BotSpec(**fields), {"ARENA_TOKEN": "t0ken"}, tmp_path / "probe.log", limits or BotLimits(), slot=slot
    )
    until = time.monotonic() + 60
    while process.exit_code is None:
        assert time.monotonic() < until, "hang guard"
        time.sleep(0.02)
    process.stop()
    return (tmp_path / "probe.log").read_text()


def test_the_environment_is_exactly_the_documented_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_REDIS_URL", "redis://:hunter2@127.0.0.1:6379/0")
    out = run_inside(tmp_path, "import os; print(sorted(os.environ.items()))", env=(("DEPTH", "3"),))
    env = dict(eval(out))
    assert set(env) == {"ARENA_ADDRESS", "ARENA_TOKEN", "PATH", "HOME", "LANG", "TMPDIR", "PWD", "DEPTH"}
    assert env["ARENA_TOKEN"] == "t0ken" and env["DEPTH"] == "3"
    assert env["ARENA_ADDRESS"] == sandbox.ADDRESS_INSIDE
    assert env["HOME"] == sandbox.HOME_INSIDE


def test_the_token_is_not_on_any_command_line(tmp_path: Path) -> None:
    """A command line is readable by every user of the machine; the token travels in the environment."""
    request = sandbox.SandboxRequest(("true",), (), Path("/tmp"), None, {"ARENA_TOKEN": "s3cret"})
    argv, env = sandbox.command(request)
    assert "s3cret" not in " ".join(argv) and env["ARENA_TOKEN"] == "s3cret"


def test_the_bot_is_nobody_alone_in_its_pid_namespace_and_offline(tmp_path: Path) -> None:
    code = (
        "import os, socket\n"
        "print(os.getuid(), os.getgid(), sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"
        "s = socket.socket(); print(s.connect_ex(('127.0.0.1', 6379)))\n"
        "print(sorted(socket.if_nameindex()))\n"
    )
    lines = run_inside(tmp_path, code).splitlines()
    assert lines[0] == "65534 65534 [1, 2]"
    assert lines[1] != "0"  # the host's Redis on 6379 is not reachable
    assert lines[2] == "[(1, 'lo')]"  # its own loopback, no other interface


def test_code_is_read_only_and_tmp_is_private_and_capped(tmp_path: Path) -> None:
    code_dir = tmp_path / "code"
    code_dir.mkdir()
    (code_dir / "mine.txt").write_text("mine")
    code = (
        "import os\n"
        f"print(open({str(code_dir / 'mine.txt')!r}).read())\n"
        "try:\n"
        f"    open({str(code_dir / 'new.txt')!r}, 'w')\n"
        "except OSError as e:\n"
        "    print('write refused:', e.strerror)\n"
        "written = 0\n"
        "try:\n"
        "    with open('/tmp/fill', 'wb') as f:\n"
        "        while written < 1 << 30:\n"
        "            f.write(b'x' * (1 << 20)); f.flush(); written += 1 << 20\n"
        "except OSError as e:\n"
        "    print('disk full at', written, e.strerror)\n"
        "print(sorted(os.listdir('/tmp')))\n"
    )
    out = run_inside(tmp_path, code, BotLimits(disk_mb=8), code=(code_dir,), cwd=code_dir).splitlines()
    assert out[0] == "mine"
    assert out[1] == "write refused: Read-only file system"
    assert out[2].startswith("disk full at") and int(out[2].split()[3]) <= 8 << 20
    # the mount points of what is bound from under the host's /tmp (the code; the runtime of a clone)
    bound = [code_dir, *sandbox.python_runtime()]
    skeleton = {p.parts[2] for p in bound if len(p.parts) > 2 and p.parts[1] == "tmp"}
    assert set(eval(out[3])) == {"fill", "home"} | skeleton
    assert not (code_dir / "new.txt").exists()


def test_arenas_private_folders_inside_the_code_folder_are_hidden(tmp_path: Path) -> None:
    replays = tmp_path / "replays"
    replays.mkdir()
    (replays / "ninjan-1.jsonl").write_text("{}")
    spec = BotSpec(
        "probe", (sys.executable, "-c", f"import os; print(os.listdir({str(replays)!r}))"), "command"
    )
    spec = BotSpec(spec.name, spec.argv, spec.kind, tmp_path, (tmp_path,))
    process = BotProcess(spec, {}, tmp_path / "p.log", BotLimits(), private=(replays,))
    process.stop(grace=30)
    assert (tmp_path / "p.log").read_text().strip() == "[]"


def test_a_command_bot_sees_only_its_own_folder(tmp_path: Path) -> None:
    """Its script's folder (never the repository it was started from); a file bot's folder."""
    spec = resolve_bot("ninjan", f"{sys.executable} {REPO / 'bots' / 'node' / 'bot.js'} --fast")
    assert spec.code == (REPO / "bots" / "node",)
    assert resolve_bot("ninjan", "random").code == ()
    assert resolve_bot("ninjan", str(REPO / "bots" / "python" / "first_bot.py")).code == (
        REPO / "bots" / "python",
    )


def test_declared_variables_are_split_from_the_command() -> None:
    assert sandbox.declared_variables(("A=1", "B=x=y", "python", "C=2")) == (
        {"A": "1", "B": "x=y"},
        ("python", "C=2"),
    )


def test_the_cgroup_gets_the_limits_and_the_bot_runs_in_it(tmp_path: Path) -> None:
    limits = BotLimits(memory_mb=300, processes=40, cpus=0.5)
    if not cgroups.support().parents:  # an unprivileged user without a delegated cgroup: rlimits only
        line = limits.describe()
        assert (
            "CPU share 0.5 cores (pinned to 1 of" in line
            or "(not enforced per bot: no writable cgroup)" in line
        )
        pytest.skip("no writable cgroup here (an unprivileged user): the limits line says so")
    group = cgroups.BotCgroup(limits.cgroup_limits())
    try:
        folders = group.folders
        if group.support.version == 1:
            assert (folders["memory"] / "memory.limit_in_bytes").read_text().strip() == str(300 << 20)
            assert (folders["pids"] / "pids.max").read_text().strip() == "40"
            assert (folders["cpu"] / "cpu.cfs_quota_us").read_text().strip() == "50000"
        else:
            assert (folders["memory"] / "memory.max").read_text().strip() == str(300 << 20)
            assert (folders["pids"] / "pids.max").read_text().strip() == "40"
            assert (folders["cpu"] / "cpu.max").read_text().split() == ["50000", "100000"]
    finally:
        group.remove()
    assert all(not folder.exists() for folder in group.folders.values())
    spec = BotSpec("sleeper", ("/bin/sleep", "30"), "builtin")
    process = BotProcess(spec, {}, tmp_path / "sleeper.log", limits)
    try:
        assert process.cgroup is not None
        until = time.monotonic() + 30
        while len(process.cgroup.pids()) < 2:  # the launcher joins, then bwrap starts the bot
            assert time.monotonic() < until, "hang guard"
            time.sleep(0.01)
        assert process.pid in process.cgroup.pids()
    finally:
        process.stop(grace=0)
    assert all(not folder.exists() for folder in process.cgroup.folders.values())


def test_the_limits_line_says_how_bots_run_and_what_is_enforced_where() -> None:
    line = BotLimits().describe()
    assert line.startswith("arena: bots run sandboxed (bubblewrap")
    assert "disk 64 MiB (tmpfs)" in line and "open files 256 (rlimit)" in line
    if "memory" in cgroups.support().parents:
        assert "memory 2048 MiB (cgroup + rlimit)" in line
    unconfined = BotLimits(sandbox=False).describe()
    assert "WARNING: --no-sandbox" in unconfined and "disk" not in unconfined


def test_arena_match_says_which_limits_are_in_force_first(tmp_path: Path) -> None:
    proc = run_arena("match", "ninjan", "random", "random", "-v", "--replay-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0].startswith("arena: bots run sandboxed (bubblewrap")


def test_no_sandbox_is_announced_on_every_run(tmp_path: Path) -> None:
    proc = run_arena("match", "ninjan", "random", "random", "--no-sandbox", "--replay-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "WARNING: --no-sandbox: bots run unconfined" in proc.stderr


def test_without_bubblewrap_arena_says_why_and_what_to_do_in_one_line(tmp_path: Path) -> None:
    """A PATH without bwrap stands for a machine without it (or without user namespaces)."""
    python_only = tmp_path / "bin"
    python_only.mkdir()
    (python_only / "python").symlink_to(sys.executable)
    env = {"PATH": str(python_only)}
    proc = subprocess.run(
        [sys.executable, "-m", "arena.cli", "match", "ninjan", "random", "random"],
        capture_output=True, text=True, timeout=120, env={**os.environ, **env}, cwd=REPO,
    )  # fmt: skip
    assert proc.returncode == 2
    (line,) = proc.stderr.splitlines()
    assert line.startswith("arena: error: the bot sandbox needs bubblewrap")
    assert "apt-get install bubblewrap" in line and "--no-sandbox" in line


def test_the_self_check_runs_a_probe_in_a_sandbox_made_as_a_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker's check starts the same BotProcess as a submitted bot (limits, mounts, /bot, the
    socket): a probe that finds the sandbox wrong makes the check fail in one line saying what."""
    sandbox_check.check_sandbox(BotLimits())  # holds on this machine
    started = []
    monkeypatch.setattr(sandbox_check, "BotProcess", lambda *a, **k: started.append(a) or BotProcess(*a, **k))
    sandbox_check._checked.cache_clear()
    sandbox_check.check_sandbox(BotLimits(memory_mb=512))
    ((spec, env, _, limits, endpoint),) = started
    assert spec.kind == "submitted" and limits.memory_mb == 512 and endpoint.socket is not None
    assert env == {"ARENA_TOKEN": "sandbox-check"}
    monkeypatch.setattr(sandbox_check, "PROBE", sandbox_check.PROBE.replace("!= 65534", "== 65534"))
    sandbox_check._checked.cache_clear()
    with pytest.raises(sandbox.SandboxError) as refused:
        sandbox_check.check_sandbox(BotLimits())
    (line,) = str(refused.value).splitlines()
    assert "(arena-sandbox-probe: runs as uid 65534, not 65534)" in line
    sandbox_check._checked.cache_clear()


def test_the_self_check_names_bubblewraps_own_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sandbox bubblewrap refuses to make (here: a mount of a missing folder; in a container
    without compose.yaml's grants, the fresh /proc) fails the check with bubblewrap's own line."""
    made = sandbox.command
    monkeypatch.setattr(
        sandbox,
        "command",
        lambda request: (lambda c: ([c[0][0], "--ro-bind", "/nonexistent-source", "/x", *c[0][1:]], c[1]))(
            made(request)
        ),
    )
    sandbox_check._checked.cache_clear()
    with pytest.raises(sandbox.SandboxError) as refused:
        sandbox_check.check_sandbox(BotLimits())
    sandbox_check._checked.cache_clear()
    (line,) = str(refused.value).splitlines()
    assert line.startswith("the bot sandbox cannot start on this machine (bwrap: "), line
    assert "/nonexistent-source" in line


# Prints the CPUs the bot may run on, then tries to widen them to every CPU of the machine.
WIDEN = """
import os
print("CPUS", sorted(os.sched_getaffinity(0)))
try:
    os.sched_setaffinity(0, range(os.cpu_count()))
    print("WIDENED", sorted(os.sched_getaffinity(0)))
except OSError as exc:
    print("REFUSED", exc.strerror)
"""


def test_without_a_cpu_cgroup_each_seat_is_pinned_to_cpus_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where no cgroup can cap a bot's CPU share (a container on a cgroup v1 host), each seat's bot is
    pinned to CPUs of its own, and the seccomp filter keeps it from widening them."""
    monkeypatch.setattr(cgroups, "support", lambda: cgroups.CgroupSupport(0, {}))
    allowed = sorted(os.sched_getaffinity(0))
    assert len(allowed) >= 2, "needs two CPUs to pin two seats apart"
    seen = []
    for slot in (0, 1):
        (tmp_path / f"seat{slot}").mkdir()
        out = run_inside(tmp_path / f"seat{slot}", WIDEN, BotLimits(cpus=1.0), slot=slot)
        assert "REFUSED Operation not permitted" in out, out
        seen.append(eval(out.split("CPUS ", 1)[1].splitlines()[0]))
    assert all(len(cpus) == 1 for cpus in seen) and seen[0] != seen[1], seen
    assert "CPU share 1 cores (pinned to 1 of this worker's" in BotLimits(cpus=1.0).describe()


def test_a_bots_process_limit_counts_its_own_tasks_not_the_whole_users() -> None:
    """compose's workers all run as one uid: RLIMIT_NPROC set on bubblewrap from outside counted
    every task of that user, and with 600 of them running a bot could not start at all. Set inside
    the sandbox's own user namespace (``sandbox.inside_argv``), it counts the bot's tasks alone: the
    bot starts beside the user's 600, and its own fork loop stops at its limit. Run as uid 10002
    with util-linux's setpriv (root: scripts/test and CI run the suite as root)."""
    assert os.geteuid() == 0, "this test switches to another user: run the suite as root (CI does)"
    as_worker = ["setpriv", "--reuid", "10002", "--regid", "10000", "--clear-groups", "--"]
    forks = (  # Debian's python3 (the sandbox binds /usr): the fork loop's count, not a shell's death
        "import os, time\nn = 0\ntry:\n    while n < 200:\n        if os.fork() == 0:\n"
        "            time.sleep(5)\n            os._exit(0)\n        n += 1\nexcept OSError:\n    pass\n"
        "print('forked', n)"
    )
    request = sandbox.SandboxRequest(
        argv=("/usr/bin/python3", "-S", "-c", forks),
        code=(),
        cwd=Path("/"),
        socket=None,
        env={},
        processes=64,
    )
    minimal = [sandbox.bwrap_path(), "--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534"]
    minimal += ["--die-with-parent", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin"]
    minimal += ["--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--proc", "/proc"]
    minimal += ["--dev", "/dev", "--tmpfs", "/tmp", "--"]
    crowd = subprocess.Popen([*as_worker, "/bin/sh", "-c", "for i in $(seq 600); do sleep 120 & done; wait"])
    try:
        until = time.monotonic() + 60
        while (
            len(subprocess.run(["pgrep", "-u", "10002"], capture_output=True, text=True).stdout.split()) < 600
        ):
            assert time.monotonic() < until, "the 600 processes of uid 10002 did not start"
            time.sleep(0.1)
        from_outside = subprocess.run(
            [*as_worker, "prlimit", "--nproc=512:512", *minimal, "/bin/true"], capture_output=True, text=True
        )
        assert from_outside.returncode != 0, "the user's 600 tasks should be over a limit set from outside"
        inside = subprocess.run(
            [*as_worker, *minimal, *sandbox.inside_argv(request)], capture_output=True, text=True
        )
        assert inside.returncode == 0, inside.stderr
        forked = int(inside.stdout.split()[-1])
        assert 50 <= forked < 64, inside.stdout  # the shell, prlimit's exec and bwrap's pid 1 count too
    finally:
        subprocess.run(["pkill", "-u", "10002", "sleep"])
        crowd.kill()
        crowd.wait()


KILLED_WORKER = """
import os, signal
from arena.referee import cgroups
from arena.referee.processes import BotLimits
group = cgroups.BotCgroup(BotLimits(memory_mb=300, processes=40, cpus=0.5).cgroup_limits())
print(*sorted({str(f) for f in group.folders.values()}), flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer would: no finally block runs
"""


def test_the_cgroups_a_killed_worker_left_are_removed_by_the_next_process_that_makes_bots() -> None:
    """A worker killed at once cannot remove its bots' cgroups (found beside the dress rehearsal,
    issue 38: a killed local stack left three); each keeps kernel memory until the machine stops.
    The next process that makes bot cgroups removes those whose maker is gone, once they are empty,
    and leaves a live process's own, and one that still holds a process, alone."""
    assert os.geteuid() == 0, "bot cgroups need a writable cgroup: run the suite as root (CI does)"
    killed = subprocess.run([sys.executable, "-c", KILLED_WORKER], cwd=REPO, capture_output=True, text=True)
    assert killed.returncode == -9, killed.stderr
    left = [Path(folder) for folder in killed.stdout.split()]
    assert left and all(folder.is_dir() for folder in left)
    live = cgroups.BotCgroup(cgroups.CgroupLimits(None, None, None))
    maker = left[0].name.rsplit("-", 1)[0]  # arena-bot-<the killed worker's pid>
    occupied = sorted({parent / f"{maker}-0ccupied00" for parent in cgroups.support().parents.values()})
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        for folder in occupied:
            folder.mkdir()
            (folder / "cgroup.procs").write_text(str(sleeper.pid))
        cgroups.support.cache_clear()
        cgroups.support()
        assert not any(folder.exists() for folder in left)
        assert all(folder.is_dir() for folder in [*live.folders.values(), *occupied])
    finally:
        sleeper.kill()
        sleeper.wait()
        live.remove()
        for folder in occupied:
            folder.rmdir()
