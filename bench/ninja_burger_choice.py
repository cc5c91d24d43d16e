"""Ninja Burger: what the choice of ninja is worth against ``ninja``, at 2 players (measurement only).

    nice .venv/bin/python bench/ninja_burger_choice.py --deals 300 --first-seed 500000

For each seed and each seat it deals the game, lets the other seat choose as ``ninja`` does, and
plays each of the seat's three dealt ninjas out to the end ``--playouts`` times (``SharpNinja``
against ``ninja``; the true cards, the decks in their dealt order, and fresh dice each time). That
mean is the true worth of each choice. It then scores four ways of choosing:

- ``sharp``: ``SharpNinja``'s own choice (the best average mission), as ``search`` plays it;
- ``random``: the mean of the three;
- ``search``: ``--search-deals`` deals of what the seat cannot see (``determinize``: the rival's
  dealt ninjas, the hands and the decks' order), each choice played out to the end in every deal;
- ``oracle``: the best choice by half of the true playouts, scored on the other half (and the
  reverse). It knows the order of the mission deck, which no seat may know: it bounds what any
  choice of ninja could gain.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import sys
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bots.ninja_burger_search import SharpNinja, determinize, estimate, playout, policy_actions
from arena.games.ninja_burger import GAME, NinjaBurgerState
from arena.games.rng import derive, derive_seed

_END = 10**6  # a last round no game reaches: playouts run to the end of the game


def worth(state: NinjaBurgerState, me: int, choice, others: dict, seeds) -> list[float]:
    """Returns ``me``'s result of playing ``choice`` in ``state``, once per dice seed in ``seeds``."""
    after = GAME.apply_legal(state, {**others, me: choice})
    return [estimate(playout(dataclasses.replace(after, seed=s), _END, me), me) for s in seeds]


def measure(task: tuple[int, int, int, int]) -> dict[str, float]:
    """Returns what each way of choosing scores for one seat of one deal."""
    seed, me, playouts, search_deals = task
    state = GAME.initial_state(2, seed)
    legal = GAME.legal_actions(state, me)
    obs = GAME.observe(state, me)
    others = policy_actions(state, [1 - me], me)
    seeds = [derive_seed(seed, "choice-bench", me, r) for r in range(playouts)]
    truth = [worth(state, me, choice, others, seeds) for choice in legal]
    means = [sum(t) / len(t) for t in truth]
    sharp = legal.index(SharpNinja().choose(obs, legal, timedelta(seconds=1)))
    draw = derive(seed, "choice-bench-search", me)
    searched = [0.0] * len(legal)
    for _ in range(search_deals):
        dealt = determinize(obs, draw)
        dealt_others = policy_actions(dealt, [1 - me], me)
        for k, choice in enumerate(legal):
            searched[k] += worth(dealt, me, choice, dealt_others, [dealt.seed])[0]
    half = playouts // 2
    first = [sum(t[:half]) / half for t in truth]
    second = [sum(t[half:]) / (playouts - half) for t in truth]
    oracle = (second[first.index(max(first))] + first[second.index(max(second))]) / 2
    return {
        "sharp": means[sharp],
        "random": sum(means) / len(means),
        "search": means[searched.index(max(searched))],
        "oracle": oracle,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=100, help="seeds, each measured from both seats")
    parser.add_argument("--first-seed", type=int, default=500000)
    parser.add_argument("--playouts", type=int, default=100, help="true playouts per choice")
    parser.add_argument("--search-deals", type=int, default=100, help="the search's deals per choice")
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    tasks = [
        (seed, me, args.playouts, args.search_deals)
        for seed in range(args.first_seed, args.first_seed + args.deals)
        for me in (0, 1)
    ]
    totals: dict[str, float] = {}
    with multiprocessing.Pool(args.processes) as pool:
        for done, row in enumerate(pool.imap_unordered(measure, tasks), 1):
            for way, value in row.items():
                totals[way] = totals.get(way, 0.0) + value
            if done % 50 == 0:
                print(f"{done}/{len(tasks)} seats", file=sys.stderr, flush=True)
    print(f"ninja choice, 2 players, seeds {args.first_seed}+, {len(tasks)} seats:")
    print("| way of choosing | score against ninja |\n|---|---|")
    for way in ("sharp", "random", "search", "oracle"):
        print(f"| {way} | {totals[way] / len(tasks):.3f} |")


if __name__ == "__main__":
    main()
