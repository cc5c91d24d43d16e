"""The sandbox's seccomp filter, its hidden and constant /proc files and its hidden options (issue 33).

The attack that made them: a bot linked a key holding what it had seen into the kernel keyring of the
uid its sandbox maps to (root, on a worker run as root); in a --duplicate-deals tournament its fresh
process of the next rotation read the key back and named the opponent's whole hand. Each test starts
real bots in the real sandbox. Kernel keys are made only in a session keyring of the test's own (a
process that joins a new anonymous one), and removed by id.

Then every kit still plays under the filter: Python (a built-in bot and bots/python), Node
(bots/node) and Go (bots/go, built by ``go build`` as a submission's build command, in the sandbox),
all four games.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import shutil
import subprocess
import sys
import textwrap
import time
from datetime import timedelta
from pathlib import Path

import pytest

from arena.games import GAMES
from arena.referee import sandbox, sandbox_check, seccomp
from arena.referee.processes import BotLimits, BotProcess, BotSpec
from arena.submissions import build
from arena.submissions.archives import extract_archive, pack
from tests.conftest import REPO, json_lines, run_arena

REPORT = "REPORT "
HELPERS = """\
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def call(number, *args):
    '''Makes system call ``number``; returns its result, or -errno.'''
    words = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    result = libc.syscall(ctypes.c_long(number), *words)
    return result if result != -1 else -ctypes.get_errno()
def report(value):
    print("REPORT " + json.dumps(value), flush=True)
"""


def inside(tmp_path: Path, program: str, *args: str, limits: BotLimits | None = None) -> object:
    """Runs Python ``program`` (after HELPERS) as a sandboxed bot; returns what it reported."""
    log = tmp_path / f"inside-{secrets.token_hex(4)}.log"
    spec = BotSpec("probe", (sys.executable, "-c", HELPERS + program, *args), "builtin")
    process = BotProcess(spec, {"ARENA_TOKEN": "t0ken"}, log, limits or BotLimits())
    until = time.monotonic() + 60
    while process.exit_code is None:
        assert time.monotonic() < until, "hang guard"
        time.sleep(0.02)
    process.stop()
    text = log.read_text()
    lines = [line[len(REPORT) :] for line in text.splitlines() if line.startswith(REPORT)]
    assert lines, text
    return json.loads(lines[-1])


# Run by a process of its own (so that only it joins a new session keyring): leaves a key in its
# session keyring, as the attacker's first process did, then starts the attacker's next process,
# unconfined (the attack works) and sandboxed (refused), and removes the key by id.
KEYRING_ATTACK = HELPERS + textwrap.dedent(
    """
    import time
    from pathlib import Path
    from arena.referee.processes import BotLimits, BotProcess, BotSpec
    ADD_KEY, KEYCTL, DESCRIPTION, NEXT_PROCESS, LOGS = sys.argv[1:6]
    ADD_KEY, KEYCTL = int(ADD_KEY), int(KEYCTL)
    KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_INVALIDATE, KEY_SPEC_SESSION_KEYRING = 1, 21, -3
    assert call(KEYCTL, KEYCTL_JOIN_SESSION_KEYRING, 0) > 0  # a new anonymous keyring, this process's
    hand = b"the opponent's hand"
    key = call(ADD_KEY, b"user", DESCRIPTION.encode(), hand, len(hand), KEY_SPEC_SESSION_KEYRING)
    assert key > 0, key
    try:
        seen = {"host": DESCRIPTION in Path("/proc/keys").read_text()}
        for sandboxed in (False, True):
            log = Path(LOGS) / f"next-{sandboxed}.log"
            argv = (sys.executable, "-c", NEXT_PROCESS, str(ADD_KEY), str(KEYCTL), str(key), DESCRIPTION)
            process = BotProcess(BotSpec("next", argv, "builtin"), {}, log, BotLimits(sandbox=sandboxed))
            until = time.monotonic() + 60
            while process.exit_code is None and time.monotonic() < until:
                time.sleep(0.02)
            process.stop()
            lines = [x for x in log.read_text().splitlines() if x.startswith("REPORT ")]
            found = json.loads(lines[-1][7:]) if lines else log.read_text()
            seen["sandboxed" if sandboxed else "unconfined"] = found
        report(seen)
    finally:
        call(KEYCTL, KEYCTL_INVALIDATE, key)
    """
)

# The attacker's next process: reads the key back, tries to leave another (removed at once, by id,
# where that works), and looks for keys in /proc/keys.
NEXT_PROCESS = HELPERS + textwrap.dedent(
    """
    ADD_KEY, KEYCTL, KEY = (int(a) for a in sys.argv[1:4])
    KEYCTL_GET_KEYRING_ID, KEYCTL_READ, KEYCTL_INVALIDATE, KEY_SPEC_SESSION_KEYRING = 0, 11, 21, -3
    buffer = ctypes.create_string_buffer(64)
    read = call(KEYCTL, KEYCTL_READ, KEY, buffer, 64)
    left = call(ADD_KEY, b"user", b"arena-test-left", b"x", 1, KEY_SPEC_SESSION_KEYRING)
    if left > 0:
        call(KEYCTL, KEYCTL_INVALIDATE, left)
    try:
        keys = open("/proc/keys").read()
    except OSError as exc:
        keys = exc.strerror
    report({
        "read": read, "payload": buffer.value.decode(errors="replace"), "add_key": left,
        "ring": call(KEYCTL, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0),
        "proc_keys": keys, "key_users": open("/proc/key-users").read(),
    })
    """
)


def test_a_key_left_in_the_keyring_is_out_of_reach_of_the_bots_next_process(tmp_path: Path) -> None:
    description = f"arena-test-{secrets.token_hex(6)}"
    argv = [
        sys.executable,
        "-c",
        KEYRING_ATTACK,
        str(seccomp.number("add_key")),
        str(seccomp.number("keyctl")),
    ]
    proc = subprocess.run(
        [*argv, description, NEXT_PROCESS, str(tmp_path)],
        capture_output=True, text=True, timeout=180, cwd=REPO,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith(REPORT)]
    seen = json.loads(line[len(REPORT) :])
    # the attack is real: the key is in the keyring, and an unconfined process reads it back
    assert seen["host"] is True
    assert seen["unconfined"]["payload"] == "the opponent's hand" and seen["unconfined"]["read"] == 19
    assert description in seen["unconfined"]["proc_keys"]
    # sandboxed, every keyring call is refused and /proc/keys is empty
    refused = -errno.EPERM
    sandboxed = seen["sandboxed"]
    assert isinstance(sandboxed, dict), sandboxed
    assert (sandboxed["read"], sandboxed["add_key"], sandboxed["ring"]) == (refused, refused, refused)
    assert sandboxed["payload"] == "" and sandboxed["proc_keys"] == "" and sandboxed["key_users"] == ""


# (label, system call, arguments, errno): each one harmless should the filter be missing (null
# pointers, no-op values), so the test never does what the filter is there to stop.
def refused_calls() -> list[tuple[str, str, list[int], int]]:
    special = {
        "clone": [],  # below, one per flag
        "personality": [],
        "socket": [],
        "ptrace": [3, 1, 0, 0],  # PTRACE_PEEKUSER of pid 1
        "keyctl": [-1, 0, 0, 0, 0],  # no such command
    }
    calls = []
    for refusal in seccomp.REFUSED:
        for name in refusal.names:
            if name in seccomp.skipped() or seccomp.number(name) < 0:  # not a native call here
                continue
            args = special.get(name, [0, 0, 0, 0, 0, 0])
            if args:
                calls.append((name, name, args, refusal.errno))
    sigchld = 17
    for flag, bit in seccomp.CLONE_NAMESPACES.items():
        calls.append((f"clone {flag}", "clone", [bit | sigchld, 0, 0, 0, 0], errno.EPERM))
    no_random = seccomp.ADDR_NO_RANDOMIZE
    calls.append(("personality ADDR_NO_RANDOMIZE", "personality", [no_random], errno.EPERM))
    calls.append(("personality ADDR_NO_RANDOMIZE|bit 31", "personality", [no_random | 1 << 31], errno.EPERM))
    calls.append(
        ("personality ADDR_NO_RANDOMIZE, upper half set", "personality", [no_random | 1 << 32], errno.EPERM)
    )
    for family, number in seccomp.SOCKET_FAMILIES.items():
        calls.append((f"socket {family}", "socket", [number, 1, 0], errno.EAFNOSUPPORT))
    vsock = seccomp.SOCKET_FAMILIES["AF_VSOCK"]
    calls.append(("socket AF_VSOCK, upper half set", "socket", [1 << 32 | vsock, 1, 0], errno.EAFNOSUPPORT))
    return calls


def test_every_refused_call_fails_with_its_errno(tmp_path: Path) -> None:
    calls = [(label, seccomp.number(name), args, code) for label, name, args, code in refused_calls()]
    program = "report([[label, call(nr, *args), -code] for label, nr, args, code in json.loads(sys.argv[1])])"
    results = inside(tmp_path, program, json.dumps(calls))
    wrong = {label: (got, errno.errorcode.get(-got, got)) for label, got, want in results if got != want}
    assert not wrong, wrong
    names = {label.split()[0] for label, _, _ in results}
    # the issue's list, each tried here
    issue = """add_key keyctl request_key bpf perf_event_open userfaultfd io_uring_setup io_uring_enter
        io_uring_register ptrace process_vm_readv process_vm_writev kexec_load kexec_file_load init_module
        finit_module delete_module mount umount2 pivot_root fsopen fsmount move_mount open_tree swapon
        swapoff reboot settimeofday clock_settime adjtimex clock_adjtime unshare setns clone clone3
        personality"""
    assert set(issue.split()) <= names, set(issue.split()) - names
    expected_enosys = {"clone3", "io_uring_setup", "io_uring_enter", "io_uring_register"}
    assert {label for label, got, _ in results if got == -errno.ENOSYS} == expected_enosys


def test_what_the_runtimes_need_still_works_under_the_filter(tmp_path: Path) -> None:
    """Threads, processes (glibc falls back from clone3 to clone), reading the persona, the sockets
    a bot uses, and the CPU count (glibc counts the CPUs in the constant /proc/stat)."""
    program = textwrap.dedent(
        f"""
        import socket, subprocess, threading
        done = []
        thread = threading.Thread(target=lambda: done.append(1))
        thread.start(); thread.join()
        child = subprocess.run(["/bin/sh", "-c", "echo child"], capture_output=True, text=True).stdout
        persona = call({seccomp.number("personality")}, 0xFFFFFFFF)
        socket.socket(socket.AF_UNIX).close(); socket.socket(socket.AF_INET).close()
        report([done, child, persona >= 0, os.cpu_count()])
        """
    )
    assert inside(tmp_path, program) == [[1], "child\n", True, os.cpu_count()]


# A 32-bit (int 0x80) and an x32 add_key, made by machine code: the filter covers every ABI of x86_64.
OTHER_ABIS = textwrap.dedent(
    """
    import mmap
    def run(code):
        page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        page.write(code)
        return ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))()
    # push rbx; mov eax, 286 (i386 add_key); zero ebx ecx edx esi edi; int 0x80; pop rbx; ret
    i386 = bytes.fromhex("53b81e01000031db31c931d231f631ffcd805bc3")
    # mov eax, 0x40000000 | 248 (x32 add_key); zero edi esi edx r10d r8d; syscall; ret
    x32 = bytes.fromhex("b8f800004031ff31f631d24531d24531c00f05c3")
    report([run(i386), run(x32)])
    """
)


def test_the_32_bit_and_x32_abis_are_filtered_too(tmp_path: Path) -> None:
    if os.uname().machine != "x86_64":  # elsewhere: the filter adds the native arch's own other ABIs
        assert seccomp.program()
        return
    unconfined = inside(tmp_path, OTHER_ABIS, limits=BotLimits(sandbox=False))
    assert unconfined == [-errno.EFAULT, -errno.ENOSYS]  # add_key reached the kernel
    assert inside(tmp_path, OTHER_ABIS) == [-errno.EPERM, -errno.EPERM]


def test_proc_stat_and_loadavg_are_constant_and_the_keys_files_empty(tmp_path: Path) -> None:
    """/proc/stat and /proc/loadavg show every process's CPU use live, an opponent's thinking
    included: inside they stay the same while the machine works."""
    program = textwrap.dedent(
        """
        import time
        NAMES = ("/proc/stat", "/proc/loadavg", "/proc/keys", "/proc/key-users")
        def files():
            return [open(name).read() for name in NAMES]
        before = files()
        until = time.monotonic() + 0.5
        while time.monotonic() < until:
            pass
        report([before, files()])
        """
    )
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        before, after = inside(tmp_path, program)
    finally:
        burner.kill()
        burner.wait()
    expected = sandbox._proc_files()
    assert before == after == [expected["/proc/stat"], sandbox.LOADAVG_INSIDE, "", ""]
    assert Path("/proc/loadavg").read_text() != sandbox.LOADAVG_INSIDE  # the host's moves (last pid)


def test_no_command_line_shows_the_sandboxs_options(tmp_path: Path) -> None:
    """bwrap's options name the host's folders (the bot's code, the referee's socket, the runtime):
    they reach bwrap on a descriptor, so its command line (the sandbox's /proc/1/cmdline, and what ps
    shows on the host) is ``bwrap --args N -- COMMAND``, COMMAND being the bot's under ``prlimit
    --nproc`` (``sandbox.inside_argv``). The token stays in the environment."""
    code = tmp_path / f"code-{secrets.token_hex(6)}"
    code.mkdir()
    (code / "bot.py").write_text(
        "import time\n"
        "print('CMDLINE', open('/proc/1/cmdline').read().split(chr(0)), flush=True)\n"
        "time.sleep(60)\n"
    )
    spec = BotSpec("quiet", ("python", "bot.py"), "submitted", code, (code,))
    log = tmp_path / "quiet.log"
    process = BotProcess(spec, {"ARENA_TOKEN": "s3cret-token"}, log, BotLimits())
    try:
        until = time.monotonic() + 60
        while "CMDLINE" not in (log.read_text() if log.exists() else ""):
            assert time.monotonic() < until and process.exit_code is None, log.read_text()
            time.sleep(0.02)
        host = subprocess.run(["ps", "-eww", "-o", "args"], capture_output=True, text=True, check=True).stdout
        cmdlines = [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in [process.pid]]
    finally:
        process.stop(grace=0)
    (inside_line,) = [x for x in log.read_text().splitlines() if x.startswith("CMDLINE")]
    pid1 = eval(inside_line.split(" ", 1)[1])
    limit = BotLimits().processes  # set inside the sandbox by prlimit before the bot's command
    command = [sandbox.prlimit_path(), f"--nproc={limit}:{limit}", "--", "python", "bot.py"]
    assert pid1[0] == sandbox.bwrap_path() and pid1[1] == "--args" and pid1[3:9] == ["--", *command]
    assert cmdlines[0].split(b"\0")[:-1] == [
        w.encode() for w in pid1[:-1]
    ]  # the bot's bwrap, seen from the host
    for shown in (inside_line, cmdlines[0].decode()):
        for secret in (str(code), "--ro-bind", "--unshare-all", "s3cret-token", str(sys.prefix)):
            assert secret not in shown, (secret, shown)
    for secret in (str(code), "s3cret-token"):  # no process of the host's shows them
        assert secret not in host


def test_the_self_check_fails_without_the_filter(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker never says "sandboxed" without the filter: with one that allows everything, the probe
    finds add_key unrefused and the check fails in one line."""
    allow_everything = bytes.fromhex("060000000000ff7f")  # BPF_RET|BPF_K SECCOMP_RET_ALLOW
    monkeypatch.setattr(seccomp, "program", lambda: allow_everything)
    sandbox_check._checked.cache_clear()
    try:
        with pytest.raises(sandbox.SandboxError) as refused:
            sandbox_check.check_sandbox(BotLimits())
    finally:
        sandbox_check._checked.cache_clear()
    (line,) = str(refused.value).splitlines()
    assert "add_key is not refused with EPERM" in line, line
    monkeypatch.undo()
    sandbox_check.check_sandbox(BotLimits())  # arena's own filter passes
    assert "seccomp filter on" in BotLimits().describe()


def test_the_filter_is_libseccomps_program_for_this_machine() -> None:
    program = seccomp.program()
    assert program and len(program) % 8 == 0 and len(program) // 8 < 4096  # the kernel's limit
    assert not seccomp.ESSENTIAL & set(seccomp.skipped())
    assert set(seccomp.refused_names()) >= seccomp.ESSENTIAL


@pytest.fixture(scope="module")
def go_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bots/go, built by ``go build`` as a submission's build command, in the sandbox under the filter:
    the submitted folder is a GOPATH holding the bot and the contract's Go code (what the worker image
    keeps under /usr), built with Debian's gRPC-Go (scripts/install-go-kit)."""
    work = tmp_path_factory.mktemp("go-build")
    source = work / "src-folder"
    (source / "src" / "bot").mkdir(parents=True)
    for file in (REPO / "bots" / "go").glob("*.go"):
        shutil.copy(file, source / "src" / "bot" / file.name)
    proto = REPO / "proto"
    subprocess.run(
        ["protoc", "-I", str(proto), f"--go_out={source / 'src'}", f"--go-grpc_out={source / 'src'}",
         *map(str, sorted((proto / "arena" / "v1").glob("*.proto")))],
        check=True, timeout=120,
    )  # fmt: skip
    unpacked = work / "cache" / "0123456789ab"
    extract_archive(pack(source).archive, unpacked)
    command = (
        "sh", "-c",
        'GOPATH="$PWD:/usr/share/gocode" GO111MODULE=off CGO_ENABLED=0 GOPROXY=off go build -o bot ./src/bot',
    )  # fmt: skip
    built = build.built(
        unpacked, "0123456789ab", command, BotLimits(), timedelta(seconds=600), entry=("./bot",)
    )
    return built / "bot"


def test_go_build_passes_as_a_build_command_under_the_filter(go_bot: Path) -> None:
    assert go_bot.is_file() and os.access(go_bot, os.X_OK)


@pytest.mark.e2e
@pytest.mark.parametrize("game", GAMES)
def test_every_kit_plays_every_game_under_the_filter(game: str, go_bot: Path, tmp_path: Path) -> None:
    """A built-in Python bot, bots/python, bots/node and the Go bot built above, at one table."""
    node = f"node {REPO / 'bots' / 'node' / 'bot.js'}"
    bots = ("random", str(REPO / "bots" / "python" / "first_bot.py"), node, str(go_bot))
    proc = run_arena("match", game, *bots, "--json", "-v", "--replay-dir", str(tmp_path), timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "seccomp filter on" in proc.stderr.splitlines()[0]
    (result,) = json_lines(
        "\n".join(x for x in proc.stdout.splitlines() if x.startswith("{"))
    )  # -v: the game too
    assert len(result["players"]) == 4, result
    for player in result["players"]:
        assert not player["forfeit"] and player["strikes"] == 0, player


def test_docs_security_lists_every_refused_call() -> None:
    text = (REPO / "docs" / "security.md").read_text()
    missing = [name for refusal in seccomp.REFUSED for name in refusal.names if f"`{name}`" not in text]
    missing += [family for family in seccomp.SOCKET_FAMILIES if f"`{family}`" not in text]
    assert not missing, missing
