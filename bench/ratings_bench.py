"""Ratings benchmark: the cost of recording a result in the pair table and of refitting from it.

    python bench/ratings_bench.py            # 100 bots, 1,000 and 100,000 matches (about a minute)
    python bench/ratings_bench.py --quick    # tiny counts, to check that it runs

The fit runs on the pair table (``arena.ratings.pairs``), whose size is bounded by the number of pairs
of players, so its cost should not grow with the number of recorded matches: ``refit_ratio`` (the
refit time with the most matches over the time with the fewest) is the figure issue 17 bounds by 2.
Matches are seeded synthetic ones (``arena.ratings.calibration.synthetic_results``) of 2 to 6 seats
among bots of known strengths; times are the best of ``repeats`` runs (the least disturbed by other
work on the machine). ``figures()`` returns the dict that ``bench/run.py`` can print or store.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.ratings.calibration import synthetic_results
from arena.ratings.fit import fit
from arena.ratings.pairs import PairTable, table_of

ADDS = 2000  # matches added one by one to time a single recording


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
    """Returns per size the pair-table and refit figures, the cost of one recording, and the ratio."""
    rng = random.Random(seed)
    true = {f"bot{i:03d}@v1": 1100 + 800 * rng.random() for i in range(players)}
    results = synthetic_results(true, max(sizes) + ADDS, seed)
    out: dict = {"players": players, "sizes": {}}
    for size in sizes:
        table = table_of(r.placements for r in results[:size])
        fields = table.to_fields()
        refit = _best(repeats, lambda table=table: fit(table))
        load = _best(repeats, lambda fields=fields: PairTable.from_fields(fields))
        out["sizes"][str(size)] = {
            "matches": size,
            "pairs": sum(1 for _ in table.pairs()),
            "stored_fields": len(fields),
            "newton_steps": fit(table).iterations,
            "load_ms": round(1000 * load, 2),
            "refit_ms": round(1000 * refit, 1),
        }
    big = table_of(r.placements for r in results[: max(sizes)])
    extra = [r.placements for r in results[max(sizes) :]]

    def add_all() -> None:
        for placements in extra:
            big.add_match(placements)

    out["add_result_us"] = round(1e6 * _best(1, add_all) / len(extra), 2)
    timings = [out["sizes"][str(s)]["refit_ms"] for s in sizes]
    out["refit_ratio"] = round(timings[-1] / timings[0], 2)
    return out


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
