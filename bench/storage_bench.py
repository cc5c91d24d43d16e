"""Storage benchmark (issue 18): a million matches recorded, then what each one costs to keep and what
each web page costs to show, at a hundredth, a tenth and all of them.

    python bench/storage_bench.py --pack-once           # 1,000,000 matches (about 15 minutes on 2 cores)
    python bench/storage_bench.py                       # the same, each match's engine re-run (2-3 hours)
    python bench/storage_bench.py --matches 200000      # a fifth of it
    python bench/storage_bench.py --store folder        # replays in a folder store (default: Redis store)
    python bench/storage_bench.py --matches 2000 --out /tmp/storage.json

Matches are synthetic but of realistic size: real replays of the four games (seeded random play at
every player count from 2 to 6 the game allows, written by the referee's ``ReplayWriter``), each
recorded match one of them with a new match id and new bots (100 bots, drawn per match) in its
header and result. Every match goes through the real recording path, ``arena.queue.store.record``
(what a worker calls after a game: the Lua script, and the replay store wherever the recording path
puts replays), from ``--jobs`` processes with ``--threads`` threads each, into a private redis-server
the benchmark starts (no persistence, never 127.0.0.1:6379). With ``--pack-once`` the engine
re-run that ``compact.pack`` spends on each match to check its decisions form is done once per
template and checked against the real ``pack`` (``packed_once``): the same bytes are stored.

At each checkpoint (``--matches`` / 100, / 10 and all of it: 10,000, 100,000 and 1,000,000 by
default) it reports:

* ``redis_bytes_per_match``: the growth of Redis's ``used_memory`` since the empty server, divided
  by the matches recorded;
* ``store_bytes_per_match``: the replay store's stored bytes (``ReplayStore.entries``) per match,
  and for a folder store the disk it takes (``du``); None when replays are kept raw in Redis;
* ``pages_ms``: each web page's time, the sum of the API calls its script makes, through Starlette's
  TestClient against ``leaderboard.app.leaderboard_app``: the best of ``--repeats`` views, the pages
  taking turns (``pages_median_ms``: their median), after a warm-up view that also refits the
  ratings (``refit_ms``: the first view after the burst of results), and ``results_head_ms``:
  ``arena results GAME --json | head -n 10`` as a shell runs it, best of three.

``ratios`` holds each page's time at the last checkpoint over its time at the first: issue 18 asks
for at most 2. The best of several views, not their median, because the other work on a shared
machine only ever adds time, and a ratio of medians taken minutes apart measures that work. Prints
the figures as JSON (and writes them to ``--out``).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

import redis  # noqa: E402
from queue_bench import private_redis  # noqa: E402

from arena.games import GAMES, get_game  # noqa: E402
from arena.games.play import play  # noqa: E402
from arena.queue import keys, store  # noqa: E402
from arena.queue.connection import connect  # noqa: E402
from arena.queue.jobs import MatchJob  # noqa: E402
from arena.referee import compact  # noqa: E402
from arena.referee.record import MatchRecord, final_record  # noqa: E402
from arena.referee.replay import ReplayWriter  # noqa: E402

BOTS = [f"bot{i:03d}" for i in range(100)]
SEEDS = 2  # template replays per game and player count
CHUNK = 500  # matches per task handed to a recording process
GAME = "ninjan"  # the game whose pages are timed
API = "/api/v1"  # the web API (leaderboard.app)
RAW_LIMIT = 0.5  # most of the free memory raw replays in Redis may take before the bench refuses


@dataclasses.dataclass(frozen=True)
class Template:
    """A real replay: its text between header and result, and its record (ranks, scores, steps)."""

    game: str
    seed: int
    body: str
    record: MatchRecord


def templates() -> list[Template]:
    """Returns real replays of every game at every player count from 2 to 6 it allows, ``SEEDS``
    each, the games taking turns (a match's template is its number modulo their count, so any four
    consecutive matches are one of each game)."""
    per_game = []
    for name in sorted(GAMES):
        spec = get_game(name).spec
        counts = range(max(2, spec.min_players), min(6, spec.max_players) + 1)
        per_game.append([_template(name, n, seed) for n in counts for seed in range(1, SEEDS + 1)])
    longest = max(len(found) for found in per_game)
    return [found[k] for k in range(longest) for found in per_game if k < len(found)]


def _template(name: str, players: int, seed: int) -> Template:
    """Returns the replay of one seeded random game, as the referee writes it."""
    game = get_game(name)
    bots = BOTS[:players]
    writer = ReplayWriter(ReplayWriter.header("template", name, seed, bots, 2000, 3))
    rng = random.Random(seed)
    state, steps = game.initial_state(players, seed), 0
    for step in play(game, state, lambda turn, seat: rng.randrange(len(turn.legal[seat]))):
        writer.step(game, step)
        state, steps = step.state, step.number + (1 if step.decisions else 0)
    record = final_record(game, state, "template", seed, bots, [False] * players, [0] * players, steps)
    return Template(name, seed, "".join(line + "\n" for line in writer.lines[1:]), record)


def synthetic(number: int, pool: list[Template]) -> tuple[MatchJob, MatchRecord, str]:
    """Returns match ``number``: its job, record and replay text (a template's, renamed)."""
    template = pool[number % len(pool)]
    bots = random.Random(number).sample(BOTS, len(template.record.players))
    match_id = f"bench-{number:07d}"
    players = tuple(dataclasses.replace(p, bot=bots[p.seat]) for p in template.record.players)
    record = dataclasses.replace(template.record, match_id=match_id, players=players)
    writer = ReplayWriter(ReplayWriter.header(match_id, template.game, template.seed, bots, 2000, 3))
    writer.result(record)
    header, result = writer.lines
    job = MatchJob(match_id, template.game, template.seed, tuple(bots), versions=("v1",) * len(bots))
    return job, record, f"{header}\n{template.body}{result}\n"


# -- recording, in worker processes ---------------------------------------------------------------

_worker: dict[str, Any] = {}


def _start_worker(url: str, threads: int, pack_once: bool) -> None:
    """Builds a recording process's templates, client and thread pool (once per process)."""
    _worker["pool"] = templates()
    if pack_once:
        compact.pack = packed_once(_worker["pool"])
    _worker["client"] = connect(url)
    _worker["threads"] = concurrent.futures.ThreadPoolExecutor(threads)


def _record_range(start: int, stop: int) -> int:
    """Records matches ``start`` to ``stop - 1`` through the real recording path; returns how many
    were new."""
    client, pool = _worker["client"], _worker["pool"]

    def one(number: int) -> bool:
        job, record, replay = synthetic(number, pool)
        return store.record(client, job, record, replay, "0-1")

    return sum(_worker["threads"].map(one, range(start, stop)))


def packed_once(pool: list[Template]) -> Callable[[str], str]:
    """Returns ``compact.pack`` for synthetic matches with each template's engine re-run done once.

    ``pack`` re-runs the engine to check each decisions form (1-28 ms a match): a million re-runs of
    the same few dozen games would measure only the CPU, and take hours. A synthetic match's form is
    its template's decision rows under its own header and digest, so this gives exactly what
    ``pack`` gives (checked here against the real ``pack`` for two renamed copies of every template;
    the bench stops if one differs) and leaves everything else on the recording path as it is.
    """
    real = compact.pack
    rows: dict[str, str] = {}
    for number in range(len(pool)):
        form = real(synthetic(number, pool)[2])
        if not compact.is_decisions_form(form):
            raise SystemExit(
                f"bench: template {number} is not kept as its decisions: run without --pack-once"
            )
        rows[pool[number].body] = form.split("\n", 1)[1]

    def pack(text: str) -> str:
        header, rest = text.split("\n", 1)
        body = rest[: rest.rindex("\n", 0, len(rest) - 1) + 1]  # the replay without its result line
        return compact.first_row(json.loads(header), compact.digest(text)) + "\n" + rows[body]

    for number in range(len(pool), 3 * len(pool)):
        text = synthetic(number, pool)[2]
        if pack(text) != real(text):
            raise SystemExit(f"bench: --pack-once differs from compact.pack for match {number}")
    return pack


def record_until(executor: concurrent.futures.Executor, start: int, stop: int) -> float:
    """Records matches ``start`` to ``stop - 1`` in chunks over the processes; returns the seconds."""
    began = time.perf_counter()
    tasks = [executor.submit(_record_range, s, min(s + CHUNK, stop)) for s in range(start, stop, CHUNK)]
    recorded = sum(t.result() for t in tasks)
    if recorded != stop - start:
        raise SystemExit(f"bench: recorded {recorded} new matches of {stop - start}")
    return time.perf_counter() - began


# -- what is kept ---------------------------------------------------------------------------------


def replay_store(client: redis.Redis, probe: str) -> Any:
    """Returns the replay store the recording path put the probe match's replay in, or None when it
    kept the replay raw in Redis (``keys.replay``)."""
    if client.exists(keys.replay(probe)):
        return None
    from arena.storage import replays

    return replays.store_from_env(client)


def store_bytes(found: Any, folder: Path | None) -> dict[str, float] | None:
    """Returns the replay store's bytes (sum of its entries) and, for a folder, the disk it takes."""
    if found is None:
        return None
    out = {"stored": float(sum(size for _, _, size in found.entries()))}
    if folder is not None:
        du = subprocess.run(["du", "-sb", "--apparent-size", str(folder)], capture_output=True, text=True)
        disk = subprocess.run(["du", "-sB1", str(folder)], capture_output=True, text=True)
        out["apparent"] = float(du.stdout.split()[0])
        out["disk"] = float(disk.stdout.split()[0])
    return out


# -- pages ----------------------------------------------------------------------------------------


def page_calls(
    client: redis.Redis, recorded: int, pool: list[Template], bots: list[str]
) -> dict[str, Callable[[int], list[str]]]:
    """Returns per page the API paths its script fetches, with ``bots`` (three that played ``GAME``)
    as the bot page's, the head to head's and the bot filter's (a function of the repeat number, so
    the replay page shows a new match each time: the app keeps re-run replays in memory)."""
    half = client.llen(keys.results(GAME)) // 2
    same = [f"bench-{n:07d}" for n in range(recorded - 1, -1, -1) if n % len(pool) == 0]
    return {
        "home": lambda k: [f"{API}/games", f"{API}/tournaments", f"{API}/stamp"],
        "game": lambda k: [
            f"{API}/games",
            f"{API}/games/{GAME}/leaderboard",
            f"{API}/matches?game={GAME}&limit=15",
        ],
        "bot": lambda k: [f"{API}/games/{GAME}/bots/{bots[0]}"],
        "head_to_head": lambda k: [f"{API}/games/{GAME}/head-to-head?a={bots[0]}&b={bots[1]}&limit=20"],
        "matches": lambda k: [f"{API}/games", f"{API}/matches?limit=100"],
        "matches_of_bot": lambda k: [f"{API}/matches?bot={bots[2]}&limit=100"],
        "matches_deep_page": lambda k: [f"{API}/matches?game={GAME}&limit=100&after={GAME}:{half}"],
        "replay": lambda k: [
            f"{API}/matches/{same[k % len(same)]}",
            f"{API}/matches/{same[k % len(same)]}/replay",
        ],
    }


def time_pages(
    url: str, client: redis.Redis, recorded: int, pool: list[Template], bots: list[str], repeats: int
) -> dict:
    """Returns the refit time of the first view and each page's best and median time (ms) over
    ``repeats`` views, the pages taking turns."""
    from starlette.testclient import TestClient

    from leaderboard.app import leaderboard_app as create_app

    calls = page_calls(client, recorded, pool, bots)
    with TestClient(create_app(url)) as web:

        def view(paths: list[str]) -> float:
            began = time.perf_counter()
            for path in paths:
                response = web.get(path)
                if response.status_code != 200:
                    raise SystemExit(f"bench: {path} answered {response.status_code}: {response.text[:200]}")
            return 1000 * (time.perf_counter() - began)

        refit = view([f"{API}/games/{GAME}/leaderboard"])
        for paths in calls.values():
            view(paths(repeats))
        times: dict[str, list[float]] = {page: [] for page in calls}
        for k in range(repeats):
            for page, paths in calls.items():
                times[page].append(view(paths(k)))
    return {
        "refit_ms": round(refit, 1),
        "pages_ms": {p: round(min(t), 2) for p, t in times.items()},
        "pages_median_ms": {p: round(statistics.median(t), 2) for p, t in times.items()},
    }


def results_head_ms(url: str, repeats: int) -> float:
    """Returns the best wall time (ms) of ``arena results GAME --json | head -n 10``, run by a shell."""
    command = f"{sys.executable} -m arena.cli results {GAME} --json --redis {url} | head -n 10 > /dev/null"
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command], cwd=REPO, capture_output=True, text=True
        )
        times.append(1000 * (time.perf_counter() - began))
        if done.returncode != 0 or done.stderr:
            raise SystemExit(f"bench: arena results | head failed: {done.stderr.strip()[-300:]}")
    return round(min(times), 1)


# -- the run --------------------------------------------------------------------------------------


def checkpoints(total: int, given: str | None) -> list[int]:
    """Returns the counts at which everything is measured: ``given`` (comma-separated), else a
    hundredth, a tenth and all (at least one match of each game: matches take the games in turn);
    raises SystemExit naming a count that is not from 1 to ``total``."""
    if not given:
        return sorted({max(len(GAMES), total // 100), max(len(GAMES), total // 10), total})
    counts = [int(c) for c in given.split(",") if c.strip().isdigit()]
    if len(counts) != len(given.split(",")) or not all(1 <= c <= total for c in counts):
        raise SystemExit(
            f"bench: --checkpoints {given!r}: give whole numbers from 1 to --matches, comma-separated"
        )
    return sorted(set(counts) | {total})


@dataclasses.dataclass(frozen=True)
class Settings:
    """What one run records, where, and how it measures."""

    total: int
    counts: list[int]  # the checkpoints (the last is ``total``)
    jobs: int
    threads: int
    repeats: int
    folder: Path | None  # a folder store's root; None: the Redis store
    pack_once: bool = False  # each template's decisions form checked once, not per match


@dataclasses.dataclass
class Run:
    """A run in progress: the server, the templates, the replay store and what was measured."""

    url: str
    client: redis.Redis
    pool: list[Template]
    base: int  # used_memory of the empty server
    found: Any  # the replay store in use; None: replays raw in Redis
    bots: list[str] = dataclasses.field(default_factory=list)


def run(settings: Settings) -> dict[str, Any]:
    """Records ``settings.total`` matches and measures at each checkpoint; returns the figures."""
    pool = templates()
    mean = round(statistics.mean(len(synthetic(n, pool)[2]) for n in range(len(pool))))
    with _server() as (url, client):
        base = client.info("memory")["used_memory"]
        found = replay_store(client, _probe(client, pool))
        if found is None:
            check_room(mean, settings.total)
        state = Run(url, client, pool, base, found)
        out: dict[str, Any] = {
            "matches": settings.total,
            "bots": len(BOTS),
            "templates": len(pool),
            "replay_bytes_mean": mean,
            "replays": "raw in Redis" if found is None else found.describe(),
            "recording": f"{settings.jobs} processes x {settings.threads} threads, arena.queue.store.record"
            + (", each template's decisions form checked once (--pack-once)" if settings.pack_once else ""),
            "checkpoints": [],
        }
        initargs = (url, settings.threads, settings.pack_once)
        with concurrent.futures.ProcessPoolExecutor(settings.jobs, None, _start_worker, initargs) as executor:
            done = 1
            for count in settings.counts:
                seconds = record_until(executor, done, count) if count > done else 0.0
                state.bots = state.bots or (sorted(client.hkeys(keys.played_versions(GAME))) * 3)[:3]
                if not state.bots:
                    raise SystemExit(f"bench: no match of {GAME} among the first {count}: measure later")
                figures = _measure(state, settings, count, (count - done) / seconds if seconds else None)
                out["checkpoints"].append({"record_s": round(seconds, 1), **figures})
                print(json.dumps(out["checkpoints"][-1]), file=sys.stderr, flush=True)
                done = count
    first, last = out["checkpoints"][0], out["checkpoints"][-1]
    out["ratios"] = {p: round(last["pages_ms"][p] / first["pages_ms"][p], 2) for p in first["pages_ms"]}
    out["ratios"]["results_head"] = round(last["results_head_ms"] / first["results_head_ms"], 2)
    return out


def check_room(mean: float, total: int) -> None:
    """Refuses, in one line, a run whose raw replays in Redis would take most of the free memory."""
    free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    if mean * total > RAW_LIMIT * free:
        raise SystemExit(
            f"bench: the recording path keeps replays raw in Redis ({mean / 1000:.1f} kB each): {total:,} "
            f"matches need {mean * total / 1e9:.1f} GB of {free / 1e9:.1f} GB free; pass a smaller --matches"
        )


def _probe(client: redis.Redis, pool: list[Template]) -> str:
    """Records match 0 in this process, to see where the recording path puts its replay."""
    job, record, replay = synthetic(0, pool)
    store.record(client, job, record, replay, "0-1")
    return job.match_id


def _measure(state: Run, settings: Settings, count: int, rate: float | None) -> dict[str, Any]:
    """Returns the figures of one checkpoint."""
    used = state.client.info("memory")["used_memory"]
    kept = store_bytes(state.found, settings.folder)
    return {
        "matches": count,
        "matches_per_s": None if rate is None else round(rate),
        "redis_used_memory": used,
        "redis_bytes_per_match": round((used - state.base) / count),
        "store_bytes_per_match": None if kept is None else {k: round(v / count) for k, v in kept.items()},
        **time_pages(state.url, state.client, count, state.pool, state.bots, settings.repeats),
        "results_head_ms": results_head_ms(state.url, 3),
    }


class _server:
    """A private redis-server in a temporary folder (no persistence), flushed; stopped at exit."""

    def __enter__(self) -> tuple[str, redis.Redis]:
        self.folder = tempfile.TemporaryDirectory(prefix="arena-storage-bench-")
        self.proc, url = private_redis(Path(self.folder.name))
        client = connect(url)
        client.config_set("appendonly", "no")
        client.flushall()
        return url, client

    def __exit__(self, *exc: object) -> None:
        self.proc.kill()
        self.proc.wait()
        self.folder.cleanup()


def _folder_store(kind: str) -> Iterator[Path | None]:
    """Yields the folder of a folder store (named in ``ARENA_REPLAY_STORE`` for the recording
    processes and the web app), or None for the Redis store."""
    if kind != "folder":
        os.environ.pop("ARENA_REPLAY_STORE", None)
        yield None
        return
    root = Path(tempfile.mkdtemp(prefix="arena-storage-bench-replays-"))
    os.environ["ARENA_REPLAY_STORE"] = str(root)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str]) -> int:
    """Runs the benchmark; prints the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--matches", type=int, default=1_000_000, help="matches to record (default 1,000,000)"
    )
    parser.add_argument(
        "--checkpoints", help="comma-separated counts to measure at (default: /100, /10, all)"
    )
    parser.add_argument("--store", choices=("redis", "folder"), default="redis", help="the replay store")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="recording processes")
    parser.add_argument("--threads", type=int, default=4, help="recording threads per process")
    parser.add_argument("--repeats", type=int, default=11, help="views per page and checkpoint")
    parser.add_argument(
        "--pack-once",
        action="store_true",
        help="re-run the engine to check each template's decisions form once, not for every match",
    )
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    if args.matches < len(GAMES) or args.jobs < 1 or args.threads < 1 or args.repeats < 1:
        parser.error(f"--matches must be at least {len(GAMES)}, --jobs, --threads and --repeats at least 1")
    counts = checkpoints(args.matches, args.checkpoints)
    folders = _folder_store(args.store)
    folder = next(folders)
    try:
        figures = run(
            Settings(args.matches, counts, args.jobs, args.threads, args.repeats, folder, args.pack_once)
        )
    finally:
        folders.close()
    text = json.dumps(figures, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
