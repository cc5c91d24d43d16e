"""Does ``arena ladder --until-confident`` stop on the right order? 30 seeded runs against bots of
known Elo.

    python bench/confident_ladder.py                   # 30 runs, 2 seats, LOS 0.95 (about a minute of CPU)
    python bench/confident_ladder.py --players 3       # 3-seat tables (Plackett-Luce finishing orders)
    python bench/confident_ladder.py --runs 2 --out /tmp/c.json   # a smoke run

The pool: synthetic bots with true Elo ``TRUE_ELO`` (neighbours 50 to 100 Elo apart). A match's
finishing order is drawn from Plackett-Luce on the Elo scale (each place drawn among the seats left
with odds ``10 ** (elo / 400)``; for two seats, Bradley-Terry), no draws, from the run's seed.
Each run follows the ladder's own loop (``arena.schedule.ladder.run`` with ``--until-confident``):
``--ahead`` groups chosen by ``arena.ratings.pairing.choose_group`` from the current fit before their
results are in; after every result the fit (``arena.ratings.fit``) is redone and the stopping rule
(``arena.ratings.confidence.confident``, the function the ladder asks) read; while it holds nothing more
is scheduled, and once the groups in flight are played the run stops if it still holds. A run that
stops with the fit's order not the true one is a *wrong stop*. Prints one row per run and the totals,
writes JSON (bench/confident_ladder.json, or ``--out``); exit code 1 if any run stopped on a wrong
order or gave up at ``--max-matches``.

Why not bench/ladder_bench.py's loop: that one plays real Ninjan games between built-in bots and stops
on a *known* true order (to compare the ladder with round robin); this one needs bots of exactly known
Elo, thousands of matches in seconds, and the rule that reads the fit alone.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.games.rng import derive
from arena.ratings import Placement
from arena.ratings.confidence import LOS_DEFAULT, check_los, confident
from arena.ratings.fit import fit
from arena.ratings.pairing import RANDOM_SHARE, choose_group
from arena.ratings.pairs import PairTable

TRUE_ELO = {"a": 1800.0, "b": 1700.0, "c": 1625.0, "d": 1550.0, "e": 1500.0}  # best first
RESULTS = Path(__file__).resolve().parent / "confident_ladder.json"


def finishing_order(seats: Sequence[str], rng: random.Random) -> list[Placement]:
    """Returns a Plackett-Luce draw of the seats' places (1 = first), in seat order."""
    left, places = list(seats), {}
    for place in range(1, len(seats) + 1):
        weights = [10 ** (TRUE_ELO[s] / 400) for s in left]
        winner = rng.choices(left, weights)[0]
        places[winner] = place
        left.remove(winner)
    return [Placement(s, places[s]) for s in seats]


def run(seed: int, size: int, ahead: int, los: float, max_matches: int) -> dict:
    """Returns one ladder run: matches played until the rule stopped it, and the order it stopped on."""
    rng = random.Random(f"confident-ladder/{seed}")
    players = sorted(TRUE_ELO)
    table, result = PairTable(), fit(PairTable())
    queued: collections.deque[tuple[str, ...]] = collections.deque()
    number = 0

    def fill() -> None:
        nonlocal number
        while len(queued) < ahead:
            number += 1
            draw = derive(seed, "confident-ladder", number)
            queued.append(choose_group(result, players, size, draw, list(queued), RANDOM_SHARE).seats)

    fill()
    for matches in range(1, max_matches + 1):
        table.add_match(finishing_order(queued.popleft(), rng))
        result = fit(table)
        if not confident(result, players, los):
            fill()
        elif not queued:
            order = sorted(players, key=lambda p: -result.ratings[p])
            return {"seed": seed, "matches": matches, "stopped": True, "order": order}
    return {"seed": seed, "matches": max_matches, "stopped": False, "order": []}


def figures(
    runs: int = 30,
    players: int = 2,
    ahead: int = 2,
    los: float = LOS_DEFAULT,
    max_matches: int = 20_000,
    report: Callable[[str], None] = lambda line: None,
) -> dict:
    """Returns the simulation's figures (the JSON it writes); ``report`` gets the table's lines."""
    started = time.perf_counter()
    truth = sorted(TRUE_ELO, key=lambda p: -TRUE_ELO[p])
    report(f"true order: {' > '.join(f'{p} {TRUE_ELO[p]:g}' for p in truth)}; {players} seats, LOS {los}")
    rows = []
    for seed in range(1, runs + 1):
        row = run(seed, players, ahead, los, max_matches)
        row["wrong"] = row["stopped"] and row["order"] != truth
        rows.append(row)
        verdict = "WRONG ORDER" if row["wrong"] else ("right order" if row["stopped"] else "gave up")
        report(f"run {seed:>3}: {row['matches']:>6} matches, {verdict}: {' > '.join(row['order'])}")
    stopped = [r for r in rows if r["stopped"]]
    wrong = sum(r["wrong"] for r in rows)
    mean = statistics.mean(r["matches"] for r in stopped) if stopped else None
    median = statistics.median(r["matches"] for r in stopped) if stopped else None
    report(
        f"{len(stopped)} of {runs} runs stopped, {wrong} on a wrong order; matches to stop: mean "
        f"{mean if mean is None else round(mean, 1)}, median {median}"
    )
    return {
        "true_elo": TRUE_ELO,
        "players": players,
        "ahead": ahead,
        "los": los,
        "random_share": RANDOM_SHARE,
        "runs": rows,
        "stopped": len(stopped),
        "wrong_order": wrong,
        "mean_matches": mean,
        "median_matches": median,
        "seconds": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="seeded runs [30]")
    parser.add_argument("--players", type=int, default=2, help="seats per match [2]")
    parser.add_argument("--ahead", type=int, default=2, help="groups chosen before their results [2]")
    parser.add_argument("--los", type=float, default=LOS_DEFAULT, help=f"the rule's LOS [{LOS_DEFAULT}]")
    parser.add_argument("--max-matches", type=int, default=20_000, help="a run gives up after this many")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"where to write the JSON [{RESULTS}]")
    args = parser.parse_args(argv)
    summary = figures(args.runs, args.players, args.ahead, check_los(args.los), args.max_matches, print)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0 if summary["wrong_order"] == 0 and summary["stopped"] == args.runs else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
