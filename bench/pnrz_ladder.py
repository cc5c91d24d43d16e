"""PNRZ's ladder of built-in bots: head-to-head results and the time each bot takes per decision.

    python bench/pnrz_ladder.py                                  # the ladder (a few hours of CPU)
    python bench/pnrz_ladder.py --pair search:builder --games 40 --players 3 --jobs 2

Each pair ``HERO:VILLAIN`` plays ``--games`` seeded games in-process (``arena.testing.play_bots``:
no referee, no gRPC), ``HERO`` in one seat and ``VILLAIN`` in the others: game ``g`` puts the hero in
seat ``g % players`` of seed ``first_seed + g // players``, so each deal is played from every seat
(the luck of the tiles cancels) and every figure repeats exactly. A win is rank 1 alone, a tie a
shared rank 1 (counted apart: neither win nor loss), anything else a loss (with 3 or 4 players, any
rank below first). LOS = Phi((W - L) / sqrt(W + L)); ``win_share`` counts ties half, to compare with
``fair_share`` (1 / players). The hero's decisions are timed in wall time and in CPU time of its
process (the machine may be loaded by other work: CPU time is the figure that does not depend on it).
Results are printed as one JSON object per pair.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bots import builtin_bots
from arena.games import get_game
from arena.testing import play_bots

LADDER = ("builder:random", "search:builder")


class Timed:
    """Wraps a bot and keeps the wall and CPU time of each of its decisions."""

    name = "timed"

    def __init__(self, bot) -> None:
        self.bot, self.times = bot, []

    def on_match_start(self, match) -> None:
        self.bot.on_match_start(match)

    def choose(self, observation, legal_actions, deadline):
        wall, cpu = time.perf_counter(), time.process_time()
        action = self.bot.choose(observation, legal_actions, deadline)
        self.times.append((time.perf_counter() - wall, time.process_time() - cpu))
        return action


def one_game(hero: str, villain: str, players: int, seed: int, seat: int) -> tuple[str, list]:
    """Returns ("win" | "loss" | "tie", the hero's decision times) of one seeded game."""
    game = get_game("pnrz")
    bots_by_name = builtin_bots("pnrz")
    timed = Timed(bots_by_name[hero]())
    bots = [timed if s == seat else bots_by_name[villain]() for s in range(players)]
    ranks = game.ranks(play_bots(game, bots, seed=seed))
    if ranks[seat] == 1:
        return ("win" if ranks.count(1) == 1 else "tie"), timed.times
    return "loss", timed.times


def percentile(values: list[float], share: float) -> float:
    """Returns the value below which ``share`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)]


def series(pair: str, games: int, players: int, first_seed: int, jobs: int) -> dict:
    """Returns the figures of one pair's series (see the module docstring)."""
    hero, villain = pair.split(":")
    args = [(hero, villain, players, first_seed + g // players, g % players) for g in range(games)]
    results = []
    with ProcessPoolExecutor(jobs) as pool:
        for result in pool.map(one_game, *zip(*args, strict=True)):
            results.append(result)
            print(f"{pair} {len(results)}/{games}: {result[0]}", file=sys.stderr, flush=True)
    counts = {kind: sum(r == kind for r, _ in results) for kind in ("win", "loss", "tie")}
    wins, losses = counts["win"], counts["loss"]
    los = 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * max(wins + losses, 1))))
    walls = [w * 1000 for _, times in results for w, _ in times]
    cpus = [c * 1000 for _, times in results for _, c in times]
    return {
        "pair": pair,
        "players": players,
        "games": games,
        "first_seed": first_seed,
        **counts,
        "win_share": round((wins + counts["tie"] / 2) / games, 3),
        "fair_share": round(1 / players, 3),
        "los": round(los, 4),
        "decisions": len(walls),
        "mean_ms": round(sum(walls) / len(walls), 1),
        "p99_ms": round(percentile(walls, 0.99), 1),
        "mean_cpu_ms": round(sum(cpus) / len(cpus), 1),
        "p99_cpu_ms": round(percentile(cpus, 0.99), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pair", action="append", help="HERO:VILLAIN (repeatable; default: the ladder)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    for pair in args.pair or LADDER:
        print(json.dumps(series(pair, args.games, args.players, args.first_seed, args.jobs)), flush=True)


if __name__ == "__main__":
    main()
