"""Writes Ninja Burger's standing table (``arena.games.ninja_burger.bots.standing``) from self-play games.

    nice .venv/bin/python bench/ninja_burger_standing.py            # 40,000 games, ~4 min on 2 cores
    nice .venv/bin/python bench/ninja_burger_standing.py --games 2000 --out /tmp/table.json

Game ``g`` deals seed ``first_seed + g // 2`` and puts ``SharpNinja`` (weighing its stakes by the
logistic curve alone: an empty table) in seat ``g % 2`` against ``ninja``. Every position it passes
between missions (``game_positions``) is counted with how the game ended for it: 1 a win, 1/2 a
shared first place, 0 a loss. The games are seeded and the counts summed, so rerunning it with the
same arguments writes the same file, whatever ``--jobs``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.games.ninja_burger.bots.ninja import NinjaBot
from arena.games.ninja_burger.bots.search import SharpNinja
from arena.games.ninja_burger.bots.standing import STORED, StandingTable, game_positions
from arena.games.ninja_burger.engine import GAME
from arena.testing import play_bots


def count_games(first_seed: int, games: range) -> tuple[Counter, Counter]:
    """Returns (visits, score) per position over ``games`` (game numbers; see the module docstring)."""
    visits: Counter = Counter()
    score: Counter = Counter()
    for g in games:
        seat, seed = g % 2, first_seed + g // 2
        bots: list = [NinjaBot(), NinjaBot()]
        bots[seat] = SharpNinja(StandingTable())
        events: list = []
        final = play_bots(GAME, bots, seed, on_step=lambda step, kept=events: kept.extend(step.events))
        ranks = GAME.ranks(final)
        result = (ranks[seat] == 1) / ranks.count(1)
        start = GAME.initial_state(2, seed).honor
        for cell in game_positions(events, seat, start):
            visits[cell] += 1
            score[cell] += result
    return visits, score


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=40_000)
    parser.add_argument("--first-seed", type=int, default=1_000_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=STORED)
    args = parser.parse_args()
    chunks = [range(j, args.games, args.jobs) for j in range(args.jobs)]
    visits: Counter = Counter()
    score: Counter = Counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        for v, s in pool.map(count_games, [args.first_seed] * args.jobs, chunks):
            visits.update(v)
            score.update(s)
    table = StandingTable({cell: (visits[cell], score[cell]) for cell in visits})
    command = "python bench/ninja_burger_standing.py " + shlex.join(sys.argv[1:])
    args.out.write_text(table.to_json(command=command.strip(), games=args.games))
    print(f"{len(visits)} positions from {args.games} games -> {args.out}")


if __name__ == "__main__":
    main()
