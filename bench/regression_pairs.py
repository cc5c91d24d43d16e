"""How correlated the two games of a regression pair really are, in each game: measured once, stored.

    nice python bench/regression_pairs.py [--jobs 2]        # writes bench/regression_pairs.json

A regression series (``arena.schedule.series``) plays each deal twice with the seats swapped, each
game with fresh bots and its own match id, and its SPRT counts pairs scoring 0, 0.5, 1, 1.5 or 2
(pentanomial). How much that pairing helps depends on how the two games of a pair go together: a
deal that favours a seat makes pairs split 1-1 (the games' scores negatively correlated, a smaller
variance than independent games), a deal that favours one bot in both seats does the opposite. The
operating characteristics of the default test (``bench/regression_oc.py``) are simulated with the
pentanomial frequencies measured here.

Each matchup plays ``pairs`` deals in-process as a series does (``arena.testing.play_bots``: engines
and bot classes, no referee; the search bots' wall-time guard lifted, as ``bench/builtin_ladder.py``
does, so a loaded machine plays the same games): pair ``p`` deals seed ``FIRST_SEED + p``, game ``a``
puts the first bot in seat 0 under match id ``regression-measure-p{p}a``, game ``b`` in seat 1 under
``...p{p}b`` (the match id seeds the built-in bots' generators, as on a worker). A game scores as a
series scores it (``arena.schedule.series.half_points``: ranked ahead 1, level 0.5, behind 0).

Matchups: the game's best (search-tier) bot against its second one, where a game costs at most about
a second (pnrz's search takes ~10 s a game: pnrz has its second bot against itself only), and bots
against themselves (an unchanged version against its previous one). About 4 minutes of CPU in all.
The file records, per matchup: the pentanomial counts, the first bot's per-game W/D/L, the draw
ratio, the correlation of the first bot's scores in the two games of a pair, and the CPU seconds.
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from builtin_ladder import unguarded

from arena.bots.ladder import ladder_bots
from arena.games import get_game
from arena.testing import play_bots

OUT = Path(__file__).resolve().parent / "regression_pairs.json"
FIRST_SEED = 37_000
MATCHUPS = (  # (game, first bot, second bot, pairs)
    ("ninjan", "search", "greedy", 50),
    ("ninjan", "greedy", "greedy", 200),
    ("ninja-burger", "search", "ninja", 30),
    ("ninja-burger", "ninja", "ninja", 200),
    ("pnrz", "builder", "builder", 50),
    ("ninja-master", "planner", "master", 200),
    ("ninja-master", "planner", "planner", 200),
    ("ninja-master", "master", "master", 200),
)


def play_pair(task: tuple[str, str, str, int]) -> tuple[int, int, float]:
    """Returns the first bot's half points in games ``a`` and ``b`` of pair ``p``, and the CPU
    seconds the pair took."""
    game_name, first, second, pair = task
    game, bots = get_game(game_name), ladder_bots(game_name)
    started = time.process_time()
    points = []
    for half, seating in (("a", (first, second)), ("b", (second, first))):
        players = [unguarded(bots[name]()) for name in seating]
        state = play_bots(game, players, seed=FIRST_SEED + pair, match_id=f"regression-measure-p{pair}{half}")
        ranks = game.ranks(state)
        mine, theirs = (ranks[0], ranks[1]) if half == "a" else (ranks[1], ranks[0])
        points.append(2 if mine < theirs else 1 if mine == theirs else 0)
    return points[0], points[1], time.process_time() - started


def summary(pairs: list[tuple[int, int, float]]) -> dict:
    """Returns the stored figures of one matchup's pairs (half points of the first bot per game)."""
    penta = [0] * 5
    games = [0, 0, 0]  # losses, draws, wins of the first bot
    for a, b, _ in pairs:
        penta[a + b] += 1
        games[a] += 1
        games[b] += 1
    xs, ys = [a / 2 for a, _, _ in pairs], [b / 2 for _, b, _ in pairs]
    n = len(pairs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    correlation = sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else None
    score = (games[2] + games[1] / 2) / (2 * n)
    return {
        "pairs": n,
        "pentanomial": penta,
        "games_ldw": games,
        "score": round(score, 4),
        "draw_ratio": round(games[1] / (2 * n), 4),
        "correlation": None if correlation is None else round(correlation, 4),
        "cpu_seconds": round(sum(c for _, _, c in pairs), 1),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--jobs", type=int, default=2, help="processes (the file does not depend on it)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    measured = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for game, first, second, count in MATCHUPS:
            tasks = [(game, first, second, p) for p in range(count)]
            pairs = list(pool.map(play_pair, tasks))
            row = {"game": game, "first": first, "second": second, **summary(pairs)}
            print(json.dumps(row), flush=True)
            measured.append(row)
    data = {
        "command": "python bench/regression_pairs.py",
        "first_seed": FIRST_SEED,
        "how": __doc__.split("\n\n", 2)[2].strip(),
        "matchups": measured,
    }
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {args.out}", flush=True)


if __name__ == "__main__":
    main()
