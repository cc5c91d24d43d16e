"""Ratings benchmark: the cost of recording a result and of refitting, with few and many recorded.

    python bench/ratings_bench.py            # 100 bots, 1,000 and 100,000 matches (a few minutes)
    python bench/ratings_bench.py --quick    # tiny counts, to check that it runs

The fit runs on the pair table (``arena.ratings.pairs``), whose size is bounded by the number of pairs
of players, and recording a match is a fixed number of O(1) Redis writes, so neither cost should grow
with the number of recorded matches: ``record_ratio`` and ``refit_ratio`` (the time with the most
matches over the time with the fewest) are the figures issue 17 bounds by 2.

Per size, against a private redis-server (appendonly, as arena's own): the game's keys are first filled
as ``size`` recordings would leave them (pair table, list of placements, recorded set, counters: the
keys the recording script reads or appends to; the per-match result and replay strings are left out),
then ``RECORDS`` more matches are recorded one by one through the real script
(``arena.queue.store.record``, a worker's call, replay text of a typical size) -> ``record_us``, the
median of their times (the median, because other work on the machine delays single calls); then
the refit as a reader runs it (``arena.storage.fits.refit``: the MULTI snapshot, parsing, the fit, the
views, storing them) -> ``refit_ms``, best of ``repeats``. Each size has its own server, and the sizes
take turns (``_interleaved``), so that the machine's load falls on both alike. Also, in memory: the fit alone
(``fit_ms``), parsing the stored fields (``load_ms``), adding a match to a table (``add_result_us``).
Matches are seeded synthetic ones (``arena.ratings.calibration.synthetic_results``) of 2 to 6 seats
among bots of known strengths; times are the best of ``repeats`` runs (the least disturbed by other
work on the machine). ``figures()`` returns the dict that ``bench/run.py`` can print or store.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import redis
from queue_bench import private_redis

from arena.games.base import Termination
from arena.queue import keys, store
from arena.queue.connection import connect
from arena.queue.jobs import MatchJob
from arena.ratings.calibration import synthetic_results
from arena.ratings.elo import Result
from arena.ratings.fit import fit
from arena.ratings.pairs import PairTable, split_player, table_of
from arena.referee.record import MatchRecord
from arena.results import PlayerResult
from arena.storage import fits

ADDS = 2000  # matches added one by one to a table in memory, to time a single addition
RECORDS = 1200  # matches recorded one by one through the recording script, per size
GAME = "ninjan"  # the game whose keys are filled (any registered name)
REPLAY = "x" * 6000 + "\n"  # a replay of typical size (a 2-seat Ninjan replay is ~6 kB)
FILL_CHUNK = 5000  # writes per pipeline when filling the keys
BATCHES = 12  # the recordings are timed in this many batches, the sizes taking turns


def _best(repeats: int, action) -> float:
    """Returns the shortest wall time (seconds) of ``repeats`` calls of ``action``."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def figures(
    players: int = 100, sizes: tuple[int, ...] = (1000, 100_000), seed: int = 0, repeats: int = 5
) -> dict:
    """Returns per size the recording and refit figures (Redis and in memory) and their ratios."""
    rng = random.Random(seed)
    true = {f"bot{i:03d}@v1": 1100 + 800 * rng.random() for i in range(players)}
    results = synthetic_results(true, max(sizes) + max(ADDS, RECORDS), seed)
    tables = {size: table_of(r.placements for r in results[:size]) for size in sizes}
    with contextlib.ExitStack() as stack:
        clients = {size: stack.enter_context(_redis()) for size in sizes}
        for size, client in clients.items():
            _fill(client, results[:size], tables[size].to_fields())
        record, refit = _interleaved(clients, results[max(sizes) : max(sizes) + RECORDS], repeats)
    out: dict = {"players": players, "sizes": {}}
    for size, table in tables.items():
        fields = table.to_fields()
        out["sizes"][str(size)] = {
            "matches": size,
            "pairs": sum(1 for _ in table.pairs()),
            "stored_fields": len(fields),
            "newton_steps": fit(table).iterations,
            "record_us": round(1e6 * record[size], 1),
            "refit_ms": round(1000 * refit[size], 1),
            "fit_ms": round(1000 * _best(repeats, lambda table=table: fit(table)), 1),
            "load_ms": round(1000 * _best(repeats, lambda fields=fields: PairTable.from_fields(fields)), 2),
        }
    big = tables[max(sizes)]
    extra = [r.placements for r in results[max(sizes) : max(sizes) + ADDS]]

    def add_all() -> None:
        for placements in extra:
            big.add_match(placements)

    out["add_result_us"] = round(1e6 * _best(1, add_all) / len(extra), 2)
    for figure, unit in (("record", "us"), ("refit", "ms")):
        timings = [out["sizes"][str(s)][f"{figure}_{unit}"] for s in sizes]
        out[f"{figure}_ratio"] = round(timings[-1] / timings[0], 2)
    return out


def _interleaved(
    clients: dict[int, redis.Redis], matches: Sequence[Result], repeats: int
) -> tuple[dict[int, float], dict[int, float]]:
    """Returns per size the median time of recording one of ``matches`` and the best time of a refit.

    Design detail: the sizes take turns, batch by batch and refit by refit, in alternating order, so
    that the load other work puts on the shared machine falls on every size alike."""
    batches = [matches[k::BATCHES] for k in range(BATCHES)]
    times: dict[int, list[float]] = {size: [] for size in clients}
    refits: dict[int, list[float]] = {size: [] for size in clients}
    for turn, batch in enumerate(batches):
        for size in sorted(clients, reverse=bool(turn % 2)):
            times[size] += _record_times(clients[size], batch)
    for turn in range(repeats):
        for size in sorted(clients, reverse=bool(turn % 2)):
            refits[size].append(_best(1, lambda c=clients[size]: fits.refit(c, fits.game_source(GAME))))
    return {s: statistics.median(t) for s, t in times.items()}, {s: min(t) for s, t in refits.items()}


@contextlib.contextmanager
def _redis() -> Iterator[redis.Redis]:
    """Yields a client of a private redis-server in a temporary folder, stopped afterwards."""
    with tempfile.TemporaryDirectory(prefix="arena-ratings-bench-") as folder:
        proc, url = private_redis(Path(folder))
        try:
            yield connect(url)
        finally:
            proc.kill()
            proc.wait()


def _placements(result: Result) -> dict:
    """Returns a synthetic match as the recording script stores it (``store.placements_json``)."""
    players = [
        {"bot": bot, "version": version, "rank": p.rank}
        for p in result.placements
        for bot, version in [split_player(p.bot)]
    ]
    return {"match_id": result.match_id, "players": players}


def _fill(client: redis.Redis, results: Sequence[Result], fields: dict[str, str]) -> None:
    """Leaves the game's keys as recording ``results`` would: pair table, list, set, counters."""
    client.flushall()
    items = list(fields.items())
    with client.pipeline(transaction=False) as pipe:
        for start in range(0, len(results), FILL_CHUNK):
            chunk = results[start : start + FILL_CHUNK]
            pipe.rpush(
                keys.results(GAME), *(json.dumps(_placements(r), separators=(",", ":")) for r in chunk)
            )
            pipe.sadd(keys.RECORDED_SET, *(r.match_id for r in chunk))
            pipe.execute()
        for start in range(0, len(items), FILL_CHUNK):
            pipe.hset(keys.pairs(GAME), mapping=dict(items[start : start + FILL_CHUNK]))
        pipe.set(keys.rating_updates(GAME), len(results))
        latest = {
            bot: version for r in results for bot, version in map(split_player, (p.bot for p in r.placements))
        }
        pipe.hset(keys.played_versions(GAME), mapping=latest)
        pipe.execute()


def _record_times(client: redis.Redis, results: Sequence[Result]) -> list[float]:
    """Records each match through the recording script, as a worker does after playing it; returns
    the wall time of each recording (building the commands and the round trip)."""
    times = []
    for result in results:
        seats = [split_player(p.bot) for p in result.placements]
        bots = tuple(bot for bot, _ in seats)
        players = tuple(
            PlayerResult(seat, bot, 0, p.rank, False, 0)
            for seat, ((bot, _), p) in enumerate(zip(seats, result.placements, strict=True))
        )
        match = MatchRecord(result.match_id, GAME, 1, players, Termination.NORMAL, 20)
        job = MatchJob(result.match_id, GAME, 1, bots, versions=tuple(v for _, v in seats))
        start = time.perf_counter()
        store.record(client, job, match, REPLAY, "0-1")
        times.append(time.perf_counter() - start)
    return times


def main(argv: list[str]) -> int:
    """Prints the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 bots, 100 and 1,000 matches")
    args = parser.parse_args(argv)
    result = figures(10, (100, 1000), repeats=1) if args.quick else figures()
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
