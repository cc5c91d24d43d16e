"""The ladder's efficiency: games until the ranking is right with 95% confidence, ladder pairing
against plain round robin.

    python bench/ladder_bench.py                      # 8 seeds, 2 players (about 20 s of CPU)
    python bench/ladder_bench.py --seeds 1            # a smoke run (tests/test_ladder.py)
    python bench/ladder_bench.py --players 3 --out /tmp/ladder.json

The pool: Ninjan's fast built-in bots, ``random`` and ``greedy``, and between them bots that play
greedy's move with probability p and random's otherwise (``greedy-20`` ... ``greedy-80``), so that
neighbours in the true order are close contests and the ends are far apart, as on a real ladder.
(Ninjan's ``search`` takes half a second a game: too slow for thousands of games.) Games are played
in-process between the bot classes (``arena.testing.play_bots``: no processes, no Redis): what is
measured is the pairing policy, and the ladder's goes through the function ``arena ladder`` uses
(``arena.ratings.pairing.choose_group``), with ``--ahead`` matches chosen before their results are in,
as the ladder keeps jobs queued ahead.

The true order comes from a long round robin (``--truth-games`` per pair, seeds apart from the runs')
and is checked: each neighbour must be ahead of the next with LOS of at least 99.9%. A run stops at the
first game after which the fit (``arena.ratings.fit``) ranks the pool in the true order and every
adjacent LOS is at least 95%; it gives up at ``--max-games``. Round robin plays every group in every
seat rotation, round after round, in a fixed order. Both policies play the same deals (game ``n`` of a
run has the same seed under both). Prints a table, one row per seed, and writes JSON
(bench/ladder_results.json, or ``--out``); the ladder must need at least 30% fewer games (the median
over seeds), or the exit code is 1.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bots import builtin_bots
from arena.games import get_game
from arena.games.rng import derive, derive_seed
from arena.ratings import Placement
from arena.ratings.fit import Fit, fit
from arena.ratings.pairing import choose_group
from arena.ratings.pairs import PairTable
from arena.schedule.plan import rotations
from arena.sdk import Bot
from arena.testing import play_bots

GAME = "ninjan"
MIXES = (0.2, 0.4, 0.6, 0.8)  # greedy's share of the mixed bots' moves
CONFIDENCE = 0.95  # every adjacent LOS at least this, and the order right: the run is over
TRUTH_CONFIDENCE = 0.999  # the long run's adjacent LOS must reach this
TARGET_SAVING = 0.30  # the ladder needs at least this share fewer games than round robin
RESULTS = Path(__file__).resolve().parent / "ladder_results.json"


class MixedBot(Bot):
    """Plays greedy's move with probability ``share``, else random's: a bot between the two."""

    name = "mixed"

    def __init__(self, share: float) -> None:
        bots = builtin_bots(GAME)
        self.share, self.greedy, self.random = share, bots["greedy"](), bots["random"]()
        self.rng = random.Random(0)

    def on_match_start(self, match) -> None:
        self.greedy.on_match_start(match)
        self.random.on_match_start(match)
        self.rng = random.Random(f"{match.match_id}/{match.seat}/{self.share}")

    def choose(self, observation, legal_actions, deadline):
        bot = self.greedy if self.rng.random() < self.share else self.random
        return bot.choose(observation, legal_actions, deadline)


def pool() -> dict[str, Callable[[], Bot]]:
    """Returns the bench's bots by name, weakest first by construction (the long run checks it)."""
    bots = builtin_bots(GAME)
    mixed = {f"greedy-{round(100 * s)}": (lambda s=s: MixedBot(s)) for s in MIXES}
    return {"random": bots["random"], **mixed, "greedy": bots["greedy"]}


def play(makers: dict[str, Callable[[], Bot]], seats: Sequence[str], seed: int) -> list[Placement]:
    """Returns the placements of one in-process game between the named bots, seat 0 first."""
    game = get_game(GAME)
    state = play_bots(game, [makers[name]() for name in seats], seed=seed, match_id=f"bench-{seed}")
    return [Placement(name, rank) for name, rank in zip(seats, game.ranks(state), strict=True)]


def round_robin(names: Sequence[str], size: int) -> Iterator[tuple[str, ...]]:
    """Yields every group of ``size`` in every seat rotation, round after round, forever."""
    groups = [seats for group in itertools.combinations(names, size) for seats in rotations(group)]
    yield from itertools.cycle(groups)


def settled(result: Fit, truth: Sequence[str], confidence: float) -> bool:
    """Returns whether the fit ranks ``truth`` (best first) in that order, each neighbour ahead of the
    next with LOS of at least ``confidence``."""
    if any(p not in result.ratings for p in truth):
        return False
    return all(
        result.ratings[a] > result.ratings[b] and result.los(a, b) >= confidence
        for a, b in itertools.pairwise(truth)
    )


def true_order(makers: dict[str, Callable[[], Bot]], games: int, size: int) -> tuple[list[str], list[float]]:
    """Returns the pool ranked by a long round robin (``games`` matches per group, its rotations in
    turn), best first, and each neighbour's LOS over the next; exits if the order is not clear."""
    table = PairTable()
    schedule = round_robin(list(makers), size)
    for n in range(games * math.comb(len(makers), size)):
        table.add_match(play(makers, next(schedule), derive_seed(0, "truth", n)))
    result = fit(table)
    order = sorted(result.players, key=lambda p: -result.ratings[p])
    los = [result.los(a, b) for a, b in itertools.pairwise(order)]
    if min(los) < TRUTH_CONFIDENCE:
        raise SystemExit(f"the long run does not settle the order ({order}, LOS {los}): raise --truth-games")
    return order, los


def run(
    makers: dict[str, Callable[[], Bot]],
    truth: Sequence[str],
    policy: str,
    seed: int,
    size: int,
    ahead: int,
    max_games: int,
) -> dict:
    """Returns how many games one run of ``policy`` ("ladder" or "round-robin") needed, and the share
    of each reason the ladder chose its groups for."""
    table, result = PairTable(), fit(PairTable())
    schedule = round_robin(sorted(makers), size)
    queued: collections.deque[tuple[str, ...]] = collections.deque()
    reasons: collections.Counter[str] = collections.Counter()
    number = 0

    def schedule_one() -> None:
        nonlocal number
        number += 1
        if policy == "round-robin":
            queued.append(next(schedule))
            return
        draw = derive(seed, "ladder-bench", number)
        choice = choose_group(result, list(makers), size, draw, pending=list(queued))
        reasons[choice.reason] += 1
        queued.append(choice.seats)

    for _ in range(ahead):
        schedule_one()
    for games in range(1, max_games + 1):
        table.add_match(play(makers, queued.popleft(), derive_seed(seed, "game", games)))
        result = fit(table)
        if settled(result, truth, CONFIDENCE):
            return {"games": games, "settled": True, "reasons": dict(reasons)}
        schedule_one()
    return {"games": max_games, "settled": False, "reasons": dict(reasons)}


def figures(
    seeds: int = 8,
    players: int = 2,
    ahead: int = 2,
    truth_games: int = 400,
    max_games: int = 20_000,
    report: Callable[[str], None] = lambda line: None,
) -> dict:
    """Returns the benchmark's figures (the JSON it writes); ``report`` gets the table's lines."""
    makers = pool()
    started = time.perf_counter()
    truth, truth_los = true_order(makers, truth_games, players)
    report(f"true order ({GAME}, {players} players): {' > '.join(truth)}")
    report("adjacent LOS: " + ", ".join(f"{p:.4f}" for p in truth_los))
    rows = []
    report(f"{'seed':>4} {'round robin':>12} {'ladder':>8} {'saving':>7}   ladder's reasons")
    for seed in range(1, seeds + 1):
        rr = run(makers, truth, "round-robin", seed, players, ahead, max_games)
        ladder = run(makers, truth, "ladder", seed, players, ahead, max_games)
        saving = 1 - ladder["games"] / rr["games"]
        rows.append({"seed": seed, "round_robin": rr, "ladder": ladder, "saving": round(saving, 3)})
        report(f"{seed:>4} {rr['games']:>12} {ladder['games']:>8} {saving:>7.1%}   {ladder['reasons']}")
    median_rr = statistics.median(r["round_robin"]["games"] for r in rows)
    median_ladder = statistics.median(r["ladder"]["games"] for r in rows)
    saving = 1 - median_ladder / median_rr
    ok = saving >= TARGET_SAVING and all(r["ladder"]["settled"] for r in rows)
    report(
        f"median: round robin {median_rr:g}, ladder {median_ladder:g}: {saving:.1%} fewer "
        f"(target: at least {TARGET_SAVING:.0%}) {'yes' if ok else 'NO'}"
    )
    return {
        "game": GAME,
        "players": players,
        "ahead": ahead,
        "truth": truth,
        "truth_los": [round(x, 5) for x in truth_los],
        "runs": rows,
        "median_round_robin": median_rr,
        "median_ladder": median_ladder,
        "saving": round(saving, 4),
        "mean_round_robin": statistics.mean(r["round_robin"]["games"] for r in rows),
        "mean_ladder": statistics.mean(r["ladder"]["games"] for r in rows),
        "target": TARGET_SAVING,
        "ok": ok,
        "seconds": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=8, help="runs per policy [8]")
    parser.add_argument("--players", type=int, default=2, help="bots per match [2]")
    parser.add_argument("--ahead", type=int, default=2, help="ladder matches chosen before results [2]")
    parser.add_argument("--truth-games", type=int, default=400, help="long-run games per pair [400]")
    parser.add_argument("--max-games", type=int, default=20_000, help="a run gives up after this many")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"where to write the JSON [{RESULTS}]")
    args = parser.parse_args(argv)
    summary = figures(args.seeds, args.players, args.ahead, args.truth_games, args.max_games, print)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
