"""Win rates of the trained bot against a built-in, before and after training, with 95% intervals.

    python bots/python/trained/evaluate.py                    # 200 seeded 2-seat games against random
    python bots/python/trained/evaluate.py --games 100 --opponent greedy --players 3

Plays in this process (``arena.referee.inprocess``, what ``arena match --in-process`` runs: the same
match loop, seeds and seat rotation as the referee, and the SDK's own decoding of every observation),
first the untrained policy (zero weights: the uniform random policy), then the weights of
``--weights``, on the same seeds. A win is being ranked first alone (a shared first place is not one).
The intervals are Wilson score intervals.
"""

from __future__ import annotations

import argparse
import asyncio
import math
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

import ninjan_policy as policy
from bot import WEIGHTS, TrainedBot

from arena.games import get_game
from arena.referee.inprocess import from_spec, local_bot, run_local_series
from arena.referee.match import MatchConfig
from arena.referee.processes import resolve_bot
from arena.referee.runner import SeriesConfig

Z95 = 1.959964


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """Returns the Wilson score interval of a win rate (``z`` = 1.96: 95%)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    denominator = 1 + z * z / games
    return (centre - spread) / denominator, (centre + spread) / denominator


def wins(weights: policy.Weights, opponent: str, players: int, games: int, seed: int) -> tuple[int, int]:
    """Plays ``games`` seeded games of the bot with ``weights`` against ``players - 1`` copies of the
    built-in ``opponent`` (seats rotating); returns the bot's wins and its games lost by forfeit."""
    game = get_game("ninjan")
    bots = [local_bot("trained", lambda: TrainedBot(weights))]
    bots += [from_spec("ninjan", resolve_bot("ninjan", opponent)) for _ in range(players - 1)]
    config = SeriesConfig(games=games, seed=seed, match=MatchConfig(deadline=timedelta(seconds=10)))
    results = asyncio.run(run_local_series(game, bots, config))
    won = sum(1 for r in results if r.record.winner == "trained")
    forfeits = sum(1 for r in results for p in r.record.players if p.bot == "trained" and p.forfeit)
    return won, forfeits


def line(label: str, won: int, games: int, forfeits: int) -> str:
    low, high = wilson(won, games)
    return (
        f"{label:<16} {won:4d}/{games} wins  {won / games:6.1%}  95% CI {low:6.1%} .. {high:6.1%}"
        f"  forfeits {forfeits}"
    )


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument(
        "--seed", type=int, default=2026, help="the series' seed (both series play its games)"
    )
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponent", default="random", help="a built-in Ninjan bot (default random)")
    parser.add_argument(
        "--weights", type=Path, default=WEIGHTS, help="the trained weights (default: beside bot.py)"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(argv)
    print(f"ninjan, {args.players} seats, {args.games} games against {args.opponent}, seed {args.seed}")
    for label, weights in (
        ("before training", policy.zero_weights()),
        ("after training", policy.load(args.weights)),
    ):
        won, forfeits = wins(weights, args.opponent, args.players, args.games, args.seed)
        print(line(label, won, args.games, forfeits), flush=True)


if __name__ == "__main__":
    main()
