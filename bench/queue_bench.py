"""Benchmark of the match queue: matches per second with 1 and 2 workers on the same job set, and the
queue's own overhead per match (time spent in Redis calls against time spent playing the match).

    python bench/queue_bench.py [--matches 40] [--workers 1,2] [--redis URL]

Without ``--redis`` it starts a private redis-server on a free loopback port in a temporary folder
(never the one on 6379); a ``--redis`` database must be empty. For each worker count it empties that
database, enqueues the same jobs (Ninjan, greedy against random, fixed seeds), starts that many worker
processes in burst mode, and waits until they exit. Each worker times every Redis round trip (commands
and transactions) and every match (from seating the bots to the replay), after its first job (which
also starts the bot processes), and reports them with the steady rate from there to the last job.
Prints a table and writes ``bench/results-queue.json``. ``bench/run.py`` runs the same measurement.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from datetime import timedelta  # noqa: E402
from typing import Any  # noqa: E402

import redis  # noqa: E402

from arena.queue import keys  # noqa: E402
from arena.queue import worker as queue_worker  # noqa: E402
from arena.queue.connection import connect, retrying  # noqa: E402
from arena.queue.jobs import MatchJob, enqueue, ensure_group  # noqa: E402

RESULTS = HERE / "results-queue.json"


class Timings:
    """Accumulated wall-clock seconds and counts of Redis calls and matches in one worker process.

    Design detail: the figures are of the steady state, after the worker's first job: that one also
    starts the bot processes, and the worker's first Redis read waits while the referee's gRPC server
    finishes starting (up to ~150 ms measured here), once per worker, not per match.
    """

    def __init__(self) -> None:
        self.redis_seconds = 0.0
        self.redis_calls = 0
        self.match_seconds = 0.0
        self.idle_seconds = 0.0  # polls that found no job: waiting for work, not queue overhead
        self.steady_jobs = -1  # jobs handled after the first
        self.steady_start = self.steady_end = 0.0  # time.time() at the end of the first and last job

    def counted(self, handle: Callable[..., Any]) -> Callable[..., Any]:
        """Returns the worker's ``_handle`` wrapped to start the steady-state figures after one job."""

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            result = handle(*args, **kwargs)
            self.steady_jobs += 1
            self.steady_end = time.time()
            if self.steady_jobs == 0:
                self.redis_seconds = self.match_seconds = self.idle_seconds = 0.0
                self.redis_calls = 0
                self.steady_start = self.steady_end
            return result

        return wrapper

    def timed(self, fn: Callable[..., Any], into: str) -> Callable[..., Any]:
        """Returns ``fn`` wrapped so that its duration is added to the attribute ``into``."""

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                setattr(self, into, getattr(self, into) + time.perf_counter() - start)
                if into == "redis_seconds":
                    self.redis_calls += 1

        return wrapper

    def idle_aware(self, take: Callable[..., Any]) -> Callable[..., Any]:
        """Returns the worker's ``_take`` wrapped so that a poll finding nothing counts as idle time."""

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start, seconds, calls = time.perf_counter(), self.redis_seconds, self.redis_calls
            took = take(*args, **kwargs)
            if took is None:
                self.idle_seconds += time.perf_counter() - start
                self.redis_seconds, self.redis_calls = seconds, calls
            return took

        return wrapper

    def timed_async(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Returns the coroutine function ``fn`` wrapped to add its duration to ``match_seconds``."""

        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await fn(*args, **kwargs)
            finally:
                self.match_seconds += time.perf_counter() - start

        return wrapper


def run_worker(url: str, out: Path) -> None:
    """Runs one instrumented worker in burst mode and writes its timings to ``out`` as JSON."""
    timings = Timings()
    pipeline = redis.client.Pipeline
    # Design detail: each wrapped call is one round trip: a command, a pipeline's execute, or a command
    # a WATCHing pipeline sends at once (commands queued for MULTI/EXEC are not calls of their own).
    redis.Redis.execute_command = timings.timed(redis.Redis.execute_command, "redis_seconds")
    pipeline.execute = timings.timed(pipeline.execute, "redis_seconds")
    pipeline.immediate_execute_command = timings.timed(pipeline.immediate_execute_command, "redis_seconds")
    queue_worker.play = timings.timed_async(queue_worker.play)
    queue_worker.Worker._take = timings.idle_aware(queue_worker.Worker._take)
    queue_worker.Worker._handle = timings.counted(queue_worker.Worker._handle)
    config = queue_worker.WorkerConfig(url, block=timedelta(milliseconds=100))
    start = time.perf_counter()
    handled = queue_worker.Worker(connect(url), config, say=lambda _: None).run(burst=True)
    wall = time.perf_counter() - start
    result = {
        "handled": handled,
        "wall_seconds": wall,
        "redis_seconds": timings.redis_seconds,
        "redis_calls": timings.redis_calls,
        "match_seconds": timings.match_seconds,
        "idle_seconds": timings.idle_seconds,
        "steady_jobs": timings.steady_jobs,
        "steady_start": timings.steady_start,
        "steady_end": timings.steady_end,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,  # the worker itself
    }
    out.write_text(json.dumps(result))


def job_set(matches: int) -> list[MatchJob]:
    """Returns the benchmark's jobs: greedy against random, seats alternating, fixed seeds."""
    bots = [("greedy", "random"), ("random", "greedy")]
    return [MatchJob(f"bench-{i}", "ninjan", 1000 + i, bots[i % 2]) for i in range(matches)]


def run_once(url: str, workers: int, jobs: list[MatchJob], folder: Path) -> dict[str, Any]:
    """Plays ``jobs`` on ``workers`` worker processes; returns the figures of the run."""
    client = connect(url)
    client.flushdb()  # the database was empty when the benchmark started (see main): it is ours
    ensure_group(client)
    for job in jobs:
        enqueue(client, job)
    outs = [folder / f"worker-{workers}-{i}.json" for i in range(workers)]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    argv = [sys.executable, str(Path(__file__).resolve()), "--worker", url]
    cpu_before, redis_cpu_before = _children_cpu_seconds(), _redis_cpu_seconds(client)
    start = time.perf_counter()
    procs = [subprocess.Popen([*argv, str(out)], env=env) for out in outs]
    for proc in procs:
        if proc.wait() != 0:
            raise SystemExit(f"bench: a worker exited with code {proc.returncode}")
    wall = time.perf_counter() - start
    cpu = _children_cpu_seconds() - cpu_before  # the workers and their bot processes
    redis_cpu = _redis_cpu_seconds(client) - redis_cpu_before
    stats = [json.loads(out.read_text()) for out in outs]
    recorded = client.scard(keys.RECORDED_SET)
    if recorded != len(jobs):
        raise SystemExit(f"bench: {recorded} of {len(jobs)} matches recorded")
    handled = sum(s["steady_jobs"] for s in stats)  # the figures below are of the steady state
    redis_s = sum(s["redis_seconds"] for s in stats)
    match_s = sum(s["match_seconds"] for s in stats)
    steady = max(s["steady_end"] for s in stats) - min(s["steady_start"] for s in stats)
    return {
        "workers": workers,
        "matches": len(jobs),
        "wall_seconds": round(wall, 3),
        "wall_matches_per_second": round(len(jobs) / wall, 3),  # with starting the processes
        "matches_per_second": round(handled / steady, 3),
        "match_ms_per_match": round(1000 * match_s / handled, 1),
        "redis_ms_per_match": round(1000 * redis_s / handled, 2),
        "redis_calls_per_match": round(sum(s["redis_calls"] for s in stats) / handled, 1),
        "queue_overhead_percent": round(100 * redis_s / match_s, 2),
        "worker_peak_rss_mib": [round(s["peak_rss_mib"], 1) for s in stats],
        "redis_peak_mib": round(int(client.info("memory")["used_memory_peak"]) / 2**20, 1),
        "lost": len(jobs) - recorded,
        "cores_busy": round((cpu + redis_cpu) / wall, 2),  # CPU seconds per second: workers, bots, Redis
        "cores_busy_redis": round(redis_cpu / wall, 2),
    }


def _children_cpu_seconds() -> float:
    """Returns the CPU time of the finished child processes and their waited-for children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _redis_cpu_seconds(client: redis.Redis) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def private_redis(folder: Path) -> tuple[subprocess.Popen, str]:
    """Starts a redis-server on a free loopback port (appendonly, as arena's own) and returns it."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit(
            "bench: no redis-server binary: install one (apt-get install redis-server) or use --redis"
        )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder), "--save", ""]
    proc = subprocess.Popen([*argv, "--appendonly", "yes"], stdout=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    retrying(url, connect(url).ping, lambda _: None, attempts=100)
    return proc, url


def format_table(rows: list[dict[str, Any]]) -> str:
    """Returns the results as a text table."""
    head = f"{'workers':>7} {'matches':>7} {'seconds':>8} {'matches/s':>9} {'match ms':>9} "
    head += f"{'redis ms':>9} {'redis calls':>11} {'queue overhead':>14}"
    lines = [head, "  (per match: time in the match, time and round trips in Redis; Redis time / match time)"]
    for r in rows:
        lines.append(
            f"{r['workers']:>7} {r['matches']:>7} {r['wall_seconds']:>8.1f} {r['matches_per_second']:>9.2f} "
            f"{r['match_ms_per_match']:>9.0f} {r['redis_ms_per_match']:>9.2f} "
            f"{r['redis_calls_per_match']:>11.1f} {r['queue_overhead_percent']:>13.2f}%"
        )
        lines.append(
            f"{'':>7} peak memory: workers {r['worker_peak_rss_mib']} MiB, Redis {r['redis_peak_mib']} MiB; "
            f"{r['lost']} of {r['matches']} matches lost; {r['cores_busy']} cores busy "
            f"({r['cores_busy_redis']} of them Redis)"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=40, help="jobs in the set (default 40)")
    parser.add_argument("--workers", default="1,2", help="worker counts to compare (default 1,2)")
    parser.add_argument(
        "--redis", help="an empty Redis database to use (emptied between runs); default: a private server"
    )
    parser.add_argument("--worker", nargs=2, metavar=("URL", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        run_worker(args.worker[0], Path(args.worker[1]))
        return
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        server, url = (None, args.redis) if args.redis else private_redis(Path(tmp))
        try:
            if args.redis and (held := connect(url).dbsize()):
                raise SystemExit(
                    f"bench: the Redis database at {url} holds {held} keys, and the benchmark empties "
                    "the database it uses: give an empty one (e.g. redis://HOST:6379/15) or omit --redis"
                )
            jobs = job_set(args.matches)
            rows = [run_once(url, int(w), jobs, Path(tmp)) for w in args.workers.split(",")]
        finally:
            if server is not None:
                server.kill()
                server.wait()
    print(format_table(rows))
    meta = {"cpus": os.cpu_count(), "load_average": os.getloadavg(), "python": sys.version.split()[0]}
    RESULTS.write_text(json.dumps({"runs": rows, "machine": meta}, indent=2) + "\n")
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
