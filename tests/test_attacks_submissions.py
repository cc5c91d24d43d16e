"""Red team of the worker's side of a submission (issue 16): a hostile participant's build command and
stored versions, run by the real code with the real sandbox (bubblewrap) and a real private Redis.

Each test is an attack and asserts the platform's answer: a build cannot fill the worker's disk
through the one folder it may write (each file stops at the unpacked limit, the whole folder is
measured while the build runs), cannot write anywhere else on the host, and leaves no process behind;
a name removed and registered again inherits neither the old secret nor the old bot's versions; a bot
that plays its smoke match honestly and then walks out of the matches it fears loses each of them,
recorded and rated, none dead-lettered.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
import redis

from arena.queue import keys, store
from arena.ratings.pairs import PairTable, Record, player_id
from arena.referee.processes import BotLimits
from arena.schedule import plan
from arena.submissions import build, registry, smoke
from arena.submissions.archives import extract_archive, pack
from tests.conftest import SEED_KEY, processes_named
from tests.test_forfeits import pytestmark, submit_files, worker  # noqa: F401  (pytestmark: redis-server, a sandbox)

MIB = 2**20
LIMIT_MIB = build.LIMITS.unpacked_bytes // MIB  # what a built folder may hold (100 MiB)


def unpacked_bot(tmp_path: Path, files: dict[str, str]) -> Path:
    """Returns a bot folder unpacked as a worker unpacks a stored version: read-only, in a cache."""
    source = tmp_path / "src"
    source.mkdir()
    for name, text in files.items():
        (source / name).write_text(text)
    folder = tmp_path / "cache" / "0123456789ab"
    extract_archive(pack(source).archive, folder)
    return folder


def python_build(code: str) -> tuple[str, ...]:
    """Returns the build argv running ``code`` with the worker's Python (as ``python -c`` would)."""
    return ("python", "-c", code)


def run(tmp_path: Path, argv: tuple[str, ...], folder: Path | None = None) -> Path:
    """Builds a bot (``folder``, else a new one) with ``argv`` in the sandbox; returns the built
    folder (raises BuildError)."""
    folder = folder or unpacked_bot(tmp_path, {"bot.py": "print('bot')\n"})
    return build.built(folder, "0123456789ab", argv, BotLimits(), timedelta(seconds=120))


def leftovers(tmp_path: Path) -> list[str]:
    """Returns what a refused build left in the cache beside the unpacked version."""
    return sorted(p.name for p in (tmp_path / "cache").iterdir() if p.name != "0123456789ab")


# Writes 1 MiB at a time into one file of the build's folder, up to 300 MiB, and says where it stopped.
ONE_BIG_FILE = """
import sys
written = 0
try:
    with open("big", "wb") as out:
        for _ in range(300):
            out.write(b"x" * 2**20)
            out.flush()
            written += 1
except OSError as exc:
    print(f"stopped at {written} MiB: {exc.strerror}", flush=True)
    sys.exit(1)
print(f"wrote {written} MiB", flush=True)
"""


def test_a_build_that_leaves_more_than_a_bot_may_hold_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    """The build works in its tmpfs; what it leaves is unpacked with an archive's limits, so a 300 MiB
    file (past the 100 MiB a bot may hold) fails the build with that reason, and nothing is cached."""
    with pytest.raises(build.BuildError) as refused:
        run(tmp_path, python_build(ONE_BIG_FILE))
    message = str(refused.value)
    assert message.startswith("the build left what a bot may not hold: the bot archive is too big"), message
    assert f"more than {LIMIT_MIB} MiB" in message
    assert leftovers(tmp_path) == []


# Writes files of 50 MiB each (each under the per-file limit) up to 4 GiB in all, printing the total.
MANY_BIG_FILES = """
total = 0
for n in range(80):
    with open(f"part{n}", "wb") as out:
        for _ in range(50):
            out.write(b"x" * 2**20)
    total += 50
    print(f"total {total} MiB", flush=True)
"""


def test_a_build_filling_its_disk_is_stopped_by_the_kernel_at_its_tmpfs_size(tmp_path: Path) -> None:
    """Everything a build writes is in its sized tmpfs, deleted-but-open files included: the kernel
    refuses the write past BUILD_DISK_MB (no walker measuring a folder), and the worker's disk never
    holds a byte of it."""
    with pytest.raises(build.BuildError) as refused:
        run(tmp_path, python_build(MANY_BIG_FILES))
    message = str(refused.value)
    assert "No space left on device" in message, message
    totals = [int(word) for word in message.replace("|", " ").split() if word.isdigit()]
    assert max(totals) <= build.BUILD_DISK_MB, message
    assert leftovers(tmp_path) == []


# Opens a file, deletes it and keeps writing to it (space no folder walk sees), then reports.
DELETED_BUT_OPEN = """
import os
out = open("hidden", "wb")
os.unlink("hidden")
written = 0
try:
    for _ in range(4000):
        out.write(b"x" * 2**20)
        out.flush()
        written += 1
except OSError as exc:
    print(f"stopped at {written} MiB: {exc.strerror}", flush=True)
    raise SystemExit(1)
"""


def test_a_build_cannot_hide_disk_in_deleted_but_open_files(tmp_path: Path) -> None:
    with pytest.raises(build.BuildError) as refused:
        run(tmp_path, python_build(DELETED_BUT_OPEN))
    written = int(re.search(r"stopped at (\d+) MiB: No space left on device", str(refused.value)).group(1))
    assert written <= build.BUILD_DISK_MB
    assert leftovers(tmp_path) == []


def test_a_build_that_hides_a_folder_it_made_unlistable_fails_and_leaves_nothing(tmp_path: Path) -> None:
    script = "mkdir -p hide/deep && head -c 1000000 /dev/zero > hide/deep/blob && chmod 0300 hide"
    with pytest.raises(build.BuildError) as refused:
        run(tmp_path, ("sh", "-c", script))
    assert "left a folder that cannot be packed" in str(refused.value), refused.value
    assert leftovers(tmp_path) == []


def test_a_build_cannot_leave_a_link_a_fifo_or_a_device(tmp_path: Path) -> None:
    other = tmp_path / "cache" / "another-bot"
    other.mkdir(parents=True)
    (other / "secret.txt").write_text("another bot's file")
    folder = unpacked_bot(tmp_path, {"bot.py": "print('bot')\n"})
    for making, kind in (
        (f"ln -s {other}/secret.txt stolen", "is a symbolic link"),
        ("mkfifo pipe", "is a device or a fifo"),
    ):
        with pytest.raises(build.BuildError) as refused:
            run(tmp_path, ("sh", "-c", making), folder)
        assert kind in str(refused.value), refused.value
        assert leftovers(tmp_path) == ["another-bot"]


def test_a_build_past_its_process_or_memory_limit_fails_with_its_reason(tmp_path: Path) -> None:
    limits = BotLimits(processes=32, memory_mb=256)
    folder = unpacked_bot(tmp_path, {"bot.py": "print('bot')\n"})
    forks = "for i in $(seq 80); do sleep 30 & done; wait"
    with pytest.raises(build.BuildError) as refused:
        build.built(folder, "0123456789ab", ("sh", "-c", forks), limits, timedelta(seconds=60))
    assert "exited with code" in str(refused.value) or "the process limit" in str(refused.value)
    hog = "x = bytearray(600 * 2**20); print(len(x))"
    with pytest.raises(build.BuildError) as refused:
        build.built(folder, "0123456789ab", python_build(hog), limits, timedelta(seconds=60))
    assert "MemoryError" in str(refused.value) or "memory" in str(refused.value), refused.value
    assert leftovers(tmp_path) == []


# Tries to write into the host's folders it can see, and reports each attempt on a line of its own.
ESCAPES = """
import os
for path in ["/usr/escape", "/usr/bin/escape", "/proc/1/escape", "/proc/sys/kernel/escape",
             "/tmp/ok", "inside", "/src/escape", "/bot/escape"]:
    try:
        with open(path, "w") as f:
            f.write("x")
        outcome = "written"
    except OSError as exc:
        outcome = exc.strerror
    print(f"ESCAPE {path} -> {outcome}", flush=True)
raise SystemExit(3)
"""


def test_a_build_writes_nowhere_on_the_host_but_its_own_copy(tmp_path: Path) -> None:
    folder = unpacked_bot(tmp_path, {"bot.py": "print('bot')\n"})
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    with pytest.raises(build.BuildError) as refused:
        run(tmp_path, python_build(ESCAPES), folder)
    output = str(refused.value).split("exited with code 3: ", 1)[1]
    report = dict(re.findall(r"ESCAPE (\S+) -> ([^|]+?)(?: \||$)", output))
    assert len(report) == 8, report
    written = sorted(path for path, outcome in report.items() if outcome == "written")
    assert written == ["/tmp/ok", "inside"], report  # its tmpfs, its own copy in it; never its source
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before  # and the failed copy is gone
    assert not Path("/usr/escape").exists() and not Path("/usr/bin/escape").exists()


def test_a_build_leaves_no_process_behind_even_one_that_left_its_session(tmp_path: Path) -> None:
    tag = f"arena-build-orphan-{os.getpid()}"
    code = (
        "import os, subprocess\n"
        f"subprocess.Popen(['sh', '-c', 'exec -a {tag} sleep 600'], start_new_session=True)\n"
        f"os.system('setsid sh -c \"exec -a {tag}-2 sleep 600\" &')\n"
        "open('bot.bin', 'w').write('built')\n"
    )
    built = run(tmp_path, python_build(code))
    assert (built / "bot.bin").read_text() == "built"
    assert processes_named(tag) == []  # the sandbox's PID namespace ended with the build


def test_a_name_removed_and_registered_again_gets_no_old_secret_or_version(client: redis.Redis) -> None:
    first, old_secret = registry.submit(client, "phoenix", ["ninjan"], builtin="greedy")
    assert old_secret is not None
    registry.remove(client, "phoenix", old_secret)
    second, new_secret = registry.submit(client, "phoenix", ["ninjan"], builtin="greedy")
    assert new_secret not in (None, old_secret)
    assert second.version != first.version and second.versions == (second.version,)
    before = client.hgetall(keys.bot("phoenix"))
    with pytest.raises(registry.SubmissionError, match="wrong owner secret"):
        registry.submit(client, "phoenix", ["ninjan"], builtin="random", secret=old_secret)
    with pytest.raises(registry.SubmissionError, match="wrong owner secret"):
        registry.remove(client, "phoenix", old_secret)
    assert client.hgetall(keys.bot("phoenix")) == before
    assert player_retired(client, "phoenix", first.version)
    assert not player_retired(client, "phoenix", second.version)


def player_retired(client: redis.Redis, name: str, version: str) -> bool:
    """Returns whether the leaderboard leaves bot ``name`` at ``version`` out (a removed name)."""
    return bool(client.sismember(keys.retired_players("ninjan"), player_id(name, version)))


# Plays honestly in its smoke match (the match id says which one it is), and walks out of every other.
DODGER = """
import os
from arena.bots.common import RandomBot


class Dodger(RandomBot):
    def on_match_start(self, match):
        if not match.match_id.startswith("smoke-"):
            print(f"dodger: not playing {match.match_id} against {match.players}", flush=True)
            os._exit(0)
        super().on_match_start(match)


Dodger().run()
"""


def test_a_bot_that_passes_its_smoke_match_and_then_dodges_loses_every_match_it_dodges(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    version = submit_files(client, tmp_path, "dodger", {"bot.py": DODGER}, "python bot.py", activate=False)
    smoke.request_smoke(client, "dodger", version)
    assert worker(client, redis_url, tmp_path / "cache").run(burst=True) == 1
    assert smoke.status(client, version)["status"] == smoke.SmokeStatus.PASSED
    assert client.hget(keys.bot("dodger"), "version") == version  # active: it may enter tournaments

    bots = ("dodger", "greedy", "random")
    versions = tuple(registry.resolve(client, "ninjan", b) for b in bots)
    jobs, _ = plan.queue(client, plan.TournamentSpec("ninjan", bots, seed=3, versions=versions), SEED_KEY)
    assert worker(client, redis_url, tmp_path / "cache").run(burst=True) == len(jobs) == 6

    assert client.xlen(keys.DEAD_STREAM) == 0  # no match dodged by failing: each is recorded
    assert client.smembers(keys.RECORDED_SET) == {j.match_id for j in jobs}
    dodged = [j for j in jobs if "dodger" in j.bots]
    for job in dodged:
        players = store.result_fields(client.get(keys.result(job.match_id)))["players"]
        dodger = next(p for p in players if p["bot"] == "dodger")
        assert dodger["forfeit"] and dodger["rank"] == 2, players  # a loss to whoever it dodged
    table = PairTable.from_fields(client.hgetall(keys.pairs("ninjan")))
    me = player_id("dodger", version)
    for other, other_version in zip(bots[1:], versions[1:], strict=True):
        # both seatings, rated: two losses and nothing else
        assert table.record(me, player_id(other, other_version)) == Record(wins=0, draws=0, losses=2)


# A shared library whose constructor appends "uid=U" to the file $PWN_OUT, wherever it is loaded.
EVIL_SO = r"""
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void pwn(void) {
    const char *out = getenv("PWN_OUT");
    FILE *f = out ? fopen(out, "a") : NULL;
    if (f) { fprintf(f, "uid=%d\n", (int)getuid()); fclose(f); }
}
"""


def evil_library(folder: Path) -> Path:
    """Compiles EVIL_SO into ``folder``/evil.so (the test is skipped without a C compiler)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("needs a C compiler to make the attacker's library")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "evil.c").write_text(EVIL_SO)
    library = folder / "evil.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(library), str(folder / "evil.c")], check=True)
    return library


def test_a_builds_declared_variables_reach_no_process_outside_its_sandbox(tmp_path: Path) -> None:
    # The attacker's first bot carries a library; a worker that played it has it unpacked in its
    # cache, at a path the attacker can tell (the cache folder and the public version). A second
    # build declares LD_PRELOAD to it: were the variable in the environment of the host processes
    # that start the sandbox, the library would run there, as the worker's user.
    carrier = tmp_path / "cache" / "aaaaaaaaaaaa"
    source = tmp_path / "carrier-src"
    evil_library(source)
    extract_archive(pack(source).archive, carrier)
    proof = tmp_path / "pwned"
    argv = (
        f"LD_PRELOAD={carrier}/evil.so",
        f"PWN_OUT={proof}",
        "GREETING=hello",
        "sh",
        "-c",
        "echo $GREETING > out",
    )
    built = run(tmp_path, argv)
    assert not proof.exists(), f"the library ran outside the sandbox: {proof.read_text()}"
    assert (built / "out").read_text() == "hello\n"  # declared variables still reach the build


def test_a_build_leaves_no_setuid_setgid_or_sticky_file_on_the_worker(tmp_path: Path) -> None:
    # The sandbox's user is the worker's user on the host: a build owns what it makes, may chmod it.
    script = "cp /usr/bin/true tool && chmod 6755 tool && mkdir shared && chmod 1777 shared"
    built = run(tmp_path, ("sh", "-c", script))
    for path in (built / "tool", built / "shared"):
        mode = path.lstat().st_mode
        assert not mode & (stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX), (path.name, oct(mode))
        assert not mode & 0o222, (path.name, oct(mode))  # read-only, like every bot's code


def test_a_build_cannot_take_memory_through_the_sandboxs_root_or_dev(tmp_path: Path) -> None:
    # bwrap's root and /dev are tmpfs mounts of no size, and a build has no cgroup: writable, they
    # would hold as much as a build wrote.
    script = (
        "for f in /escape /dev/escape /etc/escape /run/escape; do "
        "(echo x > $f) 2>/dev/null && echo WROTE $f; done; "
        "echo ok > /dev/null && echo ok > /tmp/ok && echo ok > inside && echo DONE"
    )
    with pytest.raises(build.BuildError) as refused:
        run(tmp_path, ("sh", "-c", script + "; exit 3"))
    output = str(refused.value).split("exited with code 3: ", 1)[1]
    assert "WROTE" not in output and output.endswith("DONE"), output


def test_a_bot_cannot_write_outside_its_capped_tmp(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    """The sandbox's root and /dev are tmpfs mounts of no size: writable, a bot would write past
    --bot-disk-mb into /anything or /dev/anything, the host's memory. sandbox.command remounts both
    read-only once set up; /dev/null and the bot's sized /tmp still work."""
    from arena.submissions import smoke
    from tests.test_forfeits import submit_files, worker
    from tests.test_smoke import RANDOM_BOT

    probe = (
        "written = []\n"
        "for path in ['/escape', '/dev/escape', '/etc/escape']:\n"
        "    try:\n"
        "        open(path, 'w').write('x' * 1000)\n"
        "        written.append(path)\n"
        "    except OSError:\n"
        "        pass\n"
        "print('WRITTEN', written, flush=True)\n"
    )
    version = submit_files(
        client, tmp_path, "filler", {"bot.py": probe + RANDOM_BOT}, "python bot.py", activate=False
    )
    smoke.request_smoke(client, "filler", version)
    worker(client, redis_url, tmp_path / "cache").run(burst=True)
    log = smoke.status(client, version)["log"]
    assert "WRITTEN []" in log, log


def test_a_bots_declared_variables_reach_no_process_outside_its_sandbox(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    """A sandbox escape, closed: an entry's declared variables (``NAME=value`` words) once went
    into the environment of the host processes that start the sandbox (the rlimit launcher, bwrap),
    so ``LD_PRELOAD=`` naming a library the attacker's other bot left unpacked in the worker's cache
    ran the attacker's code on the worker as its user. They are set inside the sandbox only
    (``sandbox.with_variables``), after the line that says the sandbox started."""
    from arena.submissions import registry, smoke
    from tests.test_attacks_submissions import evil_library
    from tests.test_forfeits import submit_files, worker
    from tests.test_smoke import RANDOM_BOT

    cache = tmp_path / "cache"
    source = tmp_path / "carrier-src"
    evil_library(source)
    (source / "bot.py").write_text(RANDOM_BOT)
    carrier, _ = registry.submit(client, "carrier", ["ninjan"], directory=source, entry="python bot.py")
    folder = registry.unpacked(client, carrier.version, carrier.entry, cache)  # as after its smoke match
    proof = tmp_path / "pwned"
    entry = f"LD_PRELOAD={folder}/evil.so PWN_OUT={proof} python bot.py"
    version = submit_files(client, tmp_path, "trigger", {"bot.py": RANDOM_BOT}, entry, activate=False)
    smoke.request_smoke(client, "trigger", version)
    worker(client, redis_url, cache).run(burst=True)
    assert not proof.exists(), f"the library ran outside the sandbox: {proof.read_text()}"


def test_a_bot_removed_while_its_matches_wait_forfeits_them_rather_than_voiding_them(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    """An owner with two bots in a tournament could let the first lose to their second, then
    remove it before it plays the second's rival: its queued matches were voided (dead-lettered), and
    the rival never got those wins. A removed version's seat forfeits instead."""
    from arena.queue import keys
    from arena.schedule import plan
    from arena.submissions import registry
    from tests.conftest import SEED_KEY
    from tests.test_forfeits import submit_files, worker
    from tests.test_smoke import RANDOM_BOT

    submit_files(client, tmp_path, "feeder", {"bot.py": RANDOM_BOT}, "python bot.py")
    bots = ("feeder", "greedy", "random")
    versions = tuple(registry.resolve(client, "ninjan", b) for b in bots)
    jobs, _ = plan.queue(client, plan.TournamentSpec("ninjan", bots, seed=5, versions=versions), SEED_KEY)
    secret = "the-owner-secret"  # submit_files does not return it: set a known one
    client.hset(keys.bot("feeder"), "secret_hash", registry.hash_secret(secret))
    registry.remove(client, "feeder", secret)  # before any of its matches is played
    worker(client, redis_url, tmp_path / "cache").run(burst=True)
    assert client.xlen(keys.DEAD_STREAM) == 0, "the removed bot's matches were voided, not forfeited"
    assert client.smembers(keys.RECORDED_SET) == {j.match_id for j in jobs}


def test_a_build_whose_entry_program_is_missing_fails_with_its_reason_after_the_build(
    client: redis.Redis, tmp_path: Path
) -> None:
    """The entry of a submission with a build names what the build makes, so it is accepted at
    submission and checked once the build is done: a build that makes no ``./bot`` fails the
    submission with that reason, and one that makes it passes."""
    folder = tmp_path / "submitted"
    folder.mkdir()
    (folder / "make.py").write_text(
        "import os, sys\nopen('bot', 'w').write('#!/bin/sh\\n')\nos.chmod('bot', 0o755)\n"
    )
    submitted, _ = registry.submit(
        client, "maker", ["ninjan"], directory=folder, entry="./bot", build="python make.py"
    )
    assert submitted.name == "maker"  # ./bot is not in the folder: no refusal before the build
    unpacked = unpacked_bot(tmp_path, {"make.py": "print('makes nothing')\n"})
    with pytest.raises(build.BuildError) as refused:
        build.built(
            unpacked,
            "0123456789ab",
            python_build("pass"),
            BotLimits(),
            timedelta(seconds=60),
            entry=("./bot",),
        )
    assert "the build succeeded, but --entry's program ./bot is not in the built folder" in str(refused.value)
    assert leftovers(tmp_path) == []
    made = build.built(
        unpacked,
        "0123456789ab",
        python_build(MAKES_BOT),
        BotLimits(),
        timedelta(seconds=60),
        entry=("./bot",),
    )
    assert os.access(made / "bot", os.X_OK)


MAKES_BOT = "import os\nopen('bot', 'w').write('#!/bin/sh\\n')\nos.chmod('bot', 0o755)\n"

# Builds a version as the image's unprivileged worker would (uid 10002 in compose.yaml), whose
# permissions on its own cache are only its owner's: no CAP_DAC_OVERRIDE (the test drops it from root,
# whose interpreter may live in a home no other user may enter). The built folder, read-only, must
# still be moved into place.
UNPRIVILEGED_BUILD = """
import sys
from datetime import timedelta
from pathlib import Path
from arena.submissions import build
from arena.referee.processes import BotLimits
folder = Path(sys.argv[1])
built = build.built(folder, "0123456789ab", ("/bin/sh", "-c", sys.argv[2]), BotLimits(sandbox=False),
                    timedelta(seconds=60), entry=("./bot",))
print(sorted(p.name for p in built.iterdir()), oct(built.stat().st_mode & 0o777))
"""
WITHOUT_PRIVILEGE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"] if os.getuid() == 0 else []


def test_a_build_works_for_an_unprivileged_worker(tmp_path: Path) -> None:
    unpacked = unpacked_bot(tmp_path, {"make.py": "print('bot maker')\n"})
    done = subprocess.run(
        [
            *WITHOUT_PRIVILEGE,
            sys.executable,
            "-c",
            UNPRIVILEGED_BUILD,
            str(unpacked),
            "printf 'x' > bot; chmod 755 bot",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["['bot',", "'make.py']", "0o555"], done.stdout
    assert leftovers(tmp_path) == ["0123456789ab-built"]


CPP_BOT = """#include <cstdio>
int main() { std::puts("built with g++"); return 0; }
"""


def test_a_cpp_compile_passes_as_a_build_command_under_the_seccomp_filter(tmp_path: Path) -> None:
    """The compiler, assembler and linker run confined as a bot (the filter, the cgroup, no network)."""
    folder = unpacked_bot(tmp_path, {"bot.cc": CPP_BOT})
    built = build.built(
        folder, "0123456789ab", ("g++", "-O1", "-o", "bot", "bot.cc"), BotLimits(), timedelta(seconds=120),
        entry=("./bot",),
    )  # fmt: skip
    done = subprocess.run([str(built / "bot")], capture_output=True, text=True, timeout=30)
    assert done.stdout == "built with g++\n"
