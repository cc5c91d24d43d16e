"""The server and the workers keep their C heap to few malloc arenas (``arena.malloc``; issue 38's
dress rehearsal: the server's memory grew 42% an hour, held in glibc's per-thread arenas, 16 of them,
while its Python objects barely grew).

Arenas are counted from outside, in ``/proc/PID/maps``: glibc reserves each thread arena's heap as 64
MiB aligned on 64 MiB (``HEAP_MAX_SIZE`` on 64-bit), the part in use read-write and the rest
inaccessible. The main arena lives in the program's ``[heap]``, so N arenas show as N - 1 such heaps
(more only once an arena outgrows 64 MiB, which none here does).
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from arena.malloc import SERVICE_ARENAS, TRIM_THREAD
from tests.conftest import REPO, run_arena
from tests.hosted import hosted

HEAP_MAX = 64 << 20


def thread_heaps(maps: str) -> list[int]:
    """Returns the start addresses of the glibc thread-arena heaps in a ``/proc/PID/maps`` listing."""
    regions = []
    for line in maps.splitlines():
        fields = line.split()
        low, high = (int(x, 16) for x in fields[0].split("-"))
        regions.append((low, high, fields[1], fields[5] if len(fields) > 5 else ""))
    heaps = []
    for (low, high, perms, name), after in zip(regions, [*regions[1:], None], strict=True):
        if name or perms != "rw-p" or low % HEAP_MAX:
            continue
        end = high  # the heap's reservation: the part in use and the inaccessible rest right after it
        if after is not None and after[0] == high and after[2] == "---p" and not after[3]:
            end = after[1]
        if end - low == HEAP_MAX:
            heaps.append(low)
    return heaps


EIGHT_THREADS = """
import sys, threading
from arena.malloc import few_arenas
if sys.argv[1] == "few":
    assert few_arenas()
started = threading.Barrier(9)
done = threading.Event()
def allocate():
    kept = [bytearray(4096) for _ in range(64)]  # over pymalloc's 512 bytes: malloc's
    started.wait()
    done.wait()
threads = [threading.Thread(target=allocate) for _ in range(8)]
for thread in threads:
    thread.start()
started.wait()
print(open("/proc/self/maps").read(), end="")
done.set()
"""


def heaps_of_eight_threads(mode: str) -> int:
    """Returns the thread heaps of a process whose eight threads hold memory at once."""
    argv = [sys.executable, "-c", EIGHT_THREADS, mode]
    proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, check=True, timeout=60)
    return len(thread_heaps(proc.stdout))


def test_few_arenas_caps_the_heaps_a_process_threads_get() -> None:
    assert heaps_of_eight_threads("default") >= 4  # glibc's default: an arena per thread, up to 8 a core
    assert heaps_of_eight_threads("few") <= SERVICE_ARENAS - 1


FREED_BELOW_A_BLOCK = """
import ctypes, sys, time
from arena import malloc
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
def rss_mb():
    return int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) / 1024
blocks = [libc.malloc(1024) for _ in range(96 * 1024)]  # 96 MiB in small blocks: from the heap
for block in blocks:
    ctypes.memset(block, 1, 1024)
for block in blocks[:-1]:
    libc.free(block)  # all but the top one: free() gives back only from a heap's top
held = rss_mb()
if sys.argv[1] == "now":
    assert malloc.trim()
else:
    assert malloc.trim_every(0.05) is not None
    deadline = time.monotonic() + 60
    while rss_mb() > held - 64 and time.monotonic() < deadline:
        time.sleep(0.05)
print(held, rss_mb())
"""


def rss_before_and_after_trimming(mode: str) -> tuple[float, float]:
    """Returns the RSS (MB) of a process holding 96 MiB it freed, before and after it is trimmed."""
    argv = [sys.executable, "-c", FREED_BELOW_A_BLOCK, mode]
    proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, check=True, timeout=120)
    before, after = map(float, proc.stdout.split())
    return before, after


@pytest.mark.parametrize("mode", ["now", "every"])
def test_what_was_freed_below_a_block_in_use_goes_back_to_the_system(mode: str) -> None:
    """Without a trim the freed 96 MiB stay resident (free() returns only a heap's top); ``trim`` gives
    them back at once, ``trim_every``'s thread within its period."""
    before, after = rss_before_and_after_trimming(mode)
    assert before > 96 and after < before - 64, (before, after)


def thread_names(pid: int) -> list[str]:
    return [(task / "comm").read_text().strip() for task in Path(f"/proc/{pid}/task").iterdir()]


@pytest.mark.e2e
def test_the_server_and_a_worker_keep_to_few_arenas_while_they_serve_and_play(tmp_path: Path) -> None:
    with hosted(tmp_path / "platform", workers=1) as platform:
        token = ["--organiser-token-file", str(platform.token_file)]
        args = ["tournament", "ninjan", "--bots", "random,greedy", "--rounds", "2", "--seed", "3"]
        played = run_arena(*args, "--server", platform.url, *token, env={"XDG_STATE_HOME": str(tmp_path)})
        assert played.returncode == 0, played.stderr

        def read(path: str) -> int:
            with urllib.request.urlopen(f"{platform.url}{path}", timeout=30) as answer:
                return len(json.loads(answer.read()))

        paths = ["/api/v1/bots", "/api/v1/games/ninjan/leaderboard", "/api/v1/ladders"] * 40
        with ThreadPoolExecutor(16) as readers:  # the server's thread pool grows to meet them
            assert all(list(readers.map(read, paths)))
        assert platform.server is not None
        for proc in [platform.server, *platform.worker_procs]:
            heaps = thread_heaps(Path(f"/proc/{proc.pid}/maps").read_text())
            assert len(heaps) <= SERVICE_ARENAS - 1, (proc.args, [hex(h) for h in heaps])
            assert TRIM_THREAD in thread_names(proc.pid), proc.args  # and they trim (arena.malloc)
