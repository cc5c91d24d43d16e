"""The C heap of arena's long-running processes (``arena server``, ``arena worker``): few malloc arenas.

glibc's malloc gives each new thread that allocates an arena of its own, until there are eight per
core, and an arena keeps the pages of what was freed in it for reuse by that arena only. The
server answers from a pool of threads (Starlette's, the ladders', the secret hasher's) and allocates
and frees large buffers in each (JSON bodies, replays, Redis replies), so its resident memory rose for
an hour while its Python objects barely grew: the dress rehearsal (issue 38) read 128 -> 298 MB in an
hour on the compose stack; in a local rehearsal, tracemalloc traced 42 -> 48 MB of Python memory over
ten minutes while the server held 16 arenas (the most glibc makes on 2 cores), 15 of them thread heaps
of 3-50 MB each; each worker held 16 too. Two arenas bound that at the cost of some lock contention
between threads that allocate at once, which these processes, serialised by the GIL, barely have.

This is the process's own setting, made before its threads start (``few_arenas``), not an environment
variable: it then holds however arena is started (compose, systemd, a shell). Elsewhere than glibc
(musl, macOS) nothing is changed.

Even in few arenas, glibc gives freed memory back to the system only from the top of a heap: what is
freed below a block still in use stays resident. A burst (a regression series starting, a client
reading every match) left the server ~10 MB larger for good: in a local dress rehearsal, malloc held
53 MB of which 27 MB were in use, and ``malloc_trim`` gave 10 MB back in 9 ms. So the long-running
processes also trim every ``TRIM_SECONDS`` (``trim_every``): what a burst freed is returned within
the period, at a cost of microseconds when there is nothing to return (Dask's workers do the same
for the same reason).
"""

from __future__ import annotations

import ctypes
import functools
import threading
import time

M_ARENA_MAX = -8  # glibc's malloc.h: mallopt's parameter for the most arenas
SERVICE_ARENAS = 2
TRIM_SECONDS = 30.0
PR_SET_NAME = 15  # prctl's option: the thread's name as ps and top -H show it
TRIM_THREAD = "arena-trim"  # the kernel keeps 15 bytes of a thread's name


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    """Returns the process's C library when it is glibc (only glibc has ``gnu_get_libc_version``)."""
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 - only glibc has it
        libc.mallopt  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


def few_arenas(arenas: int = SERVICE_ARENAS) -> bool:
    """Caps malloc's arenas at ``arenas`` for the rest of the process; returns False where it cannot
    (not glibc). Call it before the process starts its threads: an arena once made stays."""
    libc = _glibc()
    return bool(libc is not None and libc.mallopt(M_ARENA_MAX, arenas) == 1)


def trim() -> bool:
    """Gives the free pages of every malloc arena back to the system; returns False where it cannot
    (not glibc) or there was nothing to give back."""
    libc = _glibc()
    return bool(libc is not None and libc.malloc_trim(0) == 1)


def trim_every(seconds: float = TRIM_SECONDS) -> threading.Thread | None:
    """Starts a daemon thread (``TRIM_THREAD``, by that name in ps and top -H) that trims every
    ``seconds`` for the rest of the process; returns it, or None where malloc cannot be trimmed."""
    libc = _glibc()
    if libc is None:
        return None

    def run() -> None:
        libc.prctl(PR_SET_NAME, TRIM_THREAD.encode(), 0, 0, 0)
        while True:
            time.sleep(seconds)
            trim()

    thread = threading.Thread(target=run, name=TRIM_THREAD, daemon=True)
    thread.start()
    return thread
