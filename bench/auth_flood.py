"""Authentication under a flood of wrong tokens (issue 33, item 4): how long an honest read takes.

    .venv/bin/python bench/auth_flood.py [--samples 60] [--rounds 3] [--rate 200] [--connections 16]

Starts a private redis-server on a free loopback port (never 127.0.0.1:6379) and a real ``arena server``
with its default limits on another, registers 16 bots, then measures an honest ``GET /api/v1/bots``
from 127.0.0.1 (``--samples`` requests, one at a time, 20 ms apart, on a kept-alive connection) in
each scenario, the scenarios taking turns for ``--rounds`` rounds (other work on a shared machine
then weighs on them alike); a row gives the median, the 90th percentile and the slowest of its
rounds' requests together:

* ``no flood``: nothing else runs;
* ``no-token flood, 127.0.0.2``: the reference: ``--connections`` kept-alive connections from
  127.0.0.2 sending ``GET /api/v1/nothing`` (a 404 that needs no credential): what any flood of
  requests costs the server, whatever authentication does;
* ``wrong tokens, 127.0.0.2``: the same connections sending ``GET /api/v1/bots/NAME`` with a new,
  well-formed, wrong owner secret each time (the bots' names in turn);
* ``wrong tokens, 64 addresses``: the same from 127.0.1.1 to 127.0.1.64, one connection each;
* ``64 addresses, limits lifted``: the last flood against a second server (over the same Redis)
  with the failure limits and the hashing cap out of the way (``--auth-failure-burst 1000000
  --secret-checks 64``): every wrong token is hashed, as before issue 33, though on the server's own
  low-priority hashing threads, which it did not have then (``--no-lifted`` leaves it out).

Each connection sends its next request once the last is answered, and the flood as a whole at most
``--rate`` requests a second (200: far beyond any honest client; ``--rate 0``: as fast as answers
come, when even the no-token flood slows reads several times on a 2-core machine whose cores the
flooding client shares with the server: compare the rows with that one). The flood runs
in a process of its own (asyncio, raw sockets) from a second before the first honest request to the
last, for at most ``--seconds`` and 500,000 requests; its answers are counted by status: a 403 is a
wrong token that was hashed, a 429 or 503 one that was not. Everything is loopback. Target: the median
under a wrong-token flood within 2x of the median without.

Figures of one run (a 2-core machine shared with other work, load average 11 to 29 meanwhile;
defaults: at most 10 failures per address and per name, then 10 a minute, 2 hashes at once):

    scenario                     median ms     x  p90 ms  max ms flood req  req/s  flood answers
    no flood                           7.3  1.00    18.9   228.6         0      0  -
    no-token flood, 127.0.0.2          6.8  0.94    19.3    44.9      1584    182  404:1584
    wrong tokens, 127.0.0.2            8.1  1.11    18.2    84.5      1581    174  403:18, 429:1437, 503:126
    wrong tokens, 64 addresses         7.2  0.99    23.9   105.8      1596    171  403:46, 503:1550
    64 addresses, limits lifted       37.5  5.15   252.2  1084.1       340     12  403:340

Unpaced (``--rate 0 --rounds 2 --no-lifted``), the no-token flood itself makes the median 7.5 times
slower (2,500 answers a second); wrong tokens from 127.0.0.2 5.7 times, from 64 addresses (64
connections, not 16) 12 times.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import http.client
import multiprocessing
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from arena.testing import RedisServer, free_port  # noqa: E402  (after the path is set)

BOTS = 16
ORGANISER_TOKEN = secrets.token_hex(32)
MAX_FLOOD_REQUESTS = 500_000
LIFTED = ("--auth-failure-burst", "1000000", "--auth-failures-per-minute", "1000000", "--secret-checks", "64")


@contextlib.contextmanager
def arena_server(redis_url: str, folder: Path, *options: str) -> Iterator[int]:
    """Runs ``arena server`` over ``redis_url`` with ``options``; yields its port once it answers."""
    token_file = folder / "organiser-token"
    token_file.write_text(ORGANISER_TOKEN + "\n")
    port = free_port()
    env = {
        **os.environ,
        "ARENA_REDIS_URL": redis_url,
        "ARENA_SEED_KEY": secrets.token_hex(32),
        "XDG_STATE_HOME": str(folder),
    }
    argv = [sys.executable, "-m", "arena.cli", "server", "--port", str(port), "--write-burst", "1000"]
    argv += ["--organiser-token-file", str(token_file), *options]
    proc = subprocess.Popen(argv, env=env, cwd=REPO, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"bench: arena server exited with {proc.returncode}")
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            if time.monotonic() > deadline:
                raise SystemExit("bench: arena server did not answer within 60 s")
            time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def request(conn: http.client.HTTPConnection, method: str, path: str) -> tuple[int, bytes]:
    conn.request(method, path)
    response = conn.getresponse()
    return response.status, response.read()


def register(port: int) -> list[str]:
    """Registers ``BOTS`` built-in bots; returns their names."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    names = [f"bench{n:02}" for n in range(BOTS)]
    for name in names:
        status, body = request(conn, "POST", f"/api/v1/bots/{name}?games=ninjan&builtin=random")
        if status != 201:
            raise SystemExit(f"bench: registering {name} answered {status}: {body[:200]!r}")
    conn.close()
    return names


def honest(port: int, samples: int) -> list[float]:
    """Returns the milliseconds of ``samples`` honest ``GET /api/v1/bots``, one at a time."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=("127.0.0.1", 0))
    times = []
    for n in range(samples + 3):
        started = time.perf_counter()
        status, _ = request(conn, "GET", "/api/v1/bots")
        elapsed = (time.perf_counter() - started) * 1000
        if status != 200:
            raise SystemExit(f"bench: the honest read answered {status}")
        if n >= 3:  # the first ones warm the connection and the server up
            times.append(elapsed)
        time.sleep(0.02)
    conn.close()
    return times


def flood_request(kind: str, names: list[str], n: int) -> bytes:
    """Returns the ``n``-th request of a flood: a wrong owner secret, or a plain 404 (``kind``)."""
    if kind == "plain":
        return b"GET /api/v1/nothing HTTP/1.1\r\nHost: arena\r\n\r\n"
    token = secrets.token_urlsafe(32)
    name = names[n % len(names)]
    return (
        f"GET /api/v1/bots/{name} HTTP/1.1\r\nHost: arena\r\nAuthorization: Bearer {token}\r\n\r\n".encode()
    )


async def flood_connection(
    port: int, source: str, kind: str, names: list[str], interval: float, stop_at: float, counts: Any
) -> None:
    """Sends ``kind`` requests from ``source`` on kept-alive connections until ``stop_at``, each at
    least ``interval`` seconds after the one before."""
    reader = writer = None
    n, next_at = 0, time.monotonic()
    while time.monotonic() < stop_at and counts.total() < MAX_FLOOD_REQUESTS:
        wait = next_at - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        next_at = max(next_at + interval, time.monotonic())  # late: no burst to catch up
        if writer is None:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        assert reader is not None
        n += 1
        try:
            writer.write(flood_request(kind, names, n))
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            length, close = 0, False
            for line in head.split(b"\r\n")[1:]:
                key, _, value = line.partition(b":")
                if key.strip().lower() == b"content-length":
                    length = int(value)
                elif key.strip().lower() == b"connection" and value.strip().lower() == b"close":
                    close = True
            await reader.readexactly(length)
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            status, close = 0, True  # counted as "no answer"
        counts[status] += 1
        if close:
            writer.close()
            writer = None
    if writer is not None:
        writer.close()


def flood(
    port: int, sources: list[str], kind: str, names: list[str], args: argparse.Namespace, stop: Any, out: Any
) -> None:
    """The flooding process: one connection per source, until ``stop`` is set or ``--seconds`` pass."""
    counts: collections.Counter = collections.Counter()
    interval = len(sources) / args.rate if args.rate > 0 else 0.0

    async def run() -> None:
        stop_at = time.monotonic() + args.seconds
        tasks = [
            asyncio.create_task(flood_connection(port, s, kind, names, interval, stop_at, counts))
            for s in sources
        ]
        while not stop.is_set() and time.monotonic() < stop_at and not all(t.done() for t in tasks):
            await asyncio.sleep(0.05)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(run())
    out.put(dict(counts))


def scenario(
    port: int, names: list[str], args: argparse.Namespace, sources: tuple[str, ...] = (), kind: str = "wrong"
) -> dict[str, Any]:
    """Measures the honest read while ``sources`` flood with ``kind`` requests (none: no flood);
    returns its times, the flood's answers by status and how long the flood ran."""
    if not sources:
        return {"times": honest(port, args.samples), "statuses": collections.Counter(), "seconds": 0.0}
    ctx = multiprocessing.get_context("spawn")
    stop, out = ctx.Event(), ctx.Queue()
    worker = ctx.Process(target=flood, args=(port, list(sources), kind, names, args, stop, out))
    worker.start()
    time.sleep(1.0)  # the flood is under way before the first honest request
    started = time.monotonic()
    times = honest(port, args.samples)
    seconds = time.monotonic() - started + 1.0
    stop.set()
    counts = out.get(timeout=args.seconds + 60)
    worker.join(timeout=30)
    return {"times": times, "statuses": collections.Counter(counts), "seconds": seconds}


def row(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Returns a scenario's figures over its ``runs`` (one a round)."""
    times = sorted(t for run in runs for t in run["times"])
    statuses = sum((run["statuses"] for run in runs), collections.Counter())
    seconds = sum(run["seconds"] for run in runs)
    return {
        "median_ms": statistics.median(times),
        "p90_ms": times[int(0.9 * (len(times) - 1))],
        "max_ms": times[-1],
        "flood_requests": statuses.total(),
        "flood_per_second": statuses.total() / seconds if seconds else 0.0,
        "statuses": statuses,
    }


def table(rows: list[tuple[str, dict[str, Any]]]) -> str:
    base = rows[0][1]["median_ms"]
    head = (
        f"{'scenario':<28} {'median ms':>9} {'x':>5} {'p90 ms':>7} {'max ms':>7} "
        f"{'flood req':>9} {'req/s':>6}  flood answers"
    )
    lines = [head, "-" * len(head)]
    for label, r in rows:
        answers = ", ".join(f"{k}:{v}" for k, v in sorted(r["statuses"].items())) or "-"
        lines.append(
            f"{label:<28} {r['median_ms']:>9.1f} {r['median_ms'] / base:>5.2f} {r['p90_ms']:>7.1f} "
            f"{r['max_ms']:>7.1f} {r['flood_requests']:>9} {r['flood_per_second']:>6.0f}  {answers}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--samples", type=int, default=60, help="honest reads per scenario a round (default 60)"
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds of every scenario in turn, pooled (default 3)"
    )
    parser.add_argument(
        "--rate", type=float, default=200, help="flood requests a second in all (default 200; 0: unpaced)"
    )
    parser.add_argument(
        "--connections", type=int, default=16, help="flood connections from 127.0.0.2 (default 16)"
    )
    parser.add_argument("--seconds", type=float, default=30, help="longest a flood runs (default 30)")
    parser.add_argument("--no-lifted", action="store_true", help="leave out the flood with limits lifted")
    args = parser.parse_args()
    one = ("127.0.0.2",) * args.connections
    many = tuple(f"127.0.1.{n}" for n in range(1, 65))
    runs: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="arena-auth-flood-")))
        redis = RedisServer(folder)
        redis.start()
        stack.callback(redis.kill)
        (folder / "default").mkdir()
        port = stack.enter_context(arena_server(redis.url, folder / "default"))
        lifted = None
        if not args.no_lifted:
            (folder / "lifted").mkdir()
            lifted = stack.enter_context(arena_server(redis.url, folder / "lifted", *LIFTED))
        names = register(port)
        for _ in range(args.rounds):
            runs["no flood"].append(scenario(port, names, args))
            runs["no-token flood, 127.0.0.2"].append(scenario(port, names, args, one, "plain"))
            runs["wrong tokens, 127.0.0.2"].append(scenario(port, names, args, one))
            runs["wrong tokens, 64 addresses"].append(scenario(port, names, args, many))
            if lifted is not None:
                runs["64 addresses, limits lifted"].append(scenario(lifted, names, args, many))
    rate = f"at most {args.rate:g} requests/s" if args.rate > 0 else "unpaced"
    print(
        f"honest GET /api/v1/bots ({BOTS} bots) from 127.0.0.1, {args.samples} samples x {args.rounds} "
        f"rounds per scenario; flood {rate}; x = median / median without flood"
    )
    print(table([(label, row(r)) for label, r in runs.items()]))


if __name__ == "__main__":
    main()
