"""Ninja Burger: ``search`` (optionally with other settings) against ``ninja``, head to head, timed.

    nice .venv/bin/python bench/ninja_burger_h2h.py --games 200 --first-seed 5000
    nice .venv/bin/python bench/ninja_burger_h2h.py --players 4 --games 40 --deals 16 --horizon 0

Game ``g`` deals seed ``first_seed + g // players`` and puts ``search`` in seat ``g % players`` (every
deal is played from every seat, as in bench/builtin_ladder.py); the other seats play ``ninja``. A win
is first place alone, a draw a shared first place (half a win), a loss anything else. It prints the
score, the win share, the likelihood of superiority over ``ninja`` (draws left out), and the CPU time
of ``search``'s decisions: mean and 99th percentile, forced ones (a single legal action) included.

``--oracle`` (measurement only, never a bot) searches the TRUE table instead of sampled deals: ``full``
the very state (the other hand, missions, deck order and dice seed: every deal is the same, the dice
of the round foreseen), ``cards`` the true cards with a fresh dice seed per deal, ``hands`` only the
true hands (missions, decks and dice dealt as ``search`` deals them). It bounds what better deals
(opponent modelling, more of them) could gain with the same policy and horizon.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bots.search import Budget
from arena.games import get_game
from arena.games.ninja_burger.bots.ninja import NinjaBot
from arena.games.ninja_burger.bots.search import SearchBot, determinize
from arena.testing import play_bots
from bench.builtin_ladder import unguarded


class Oracle(SearchBot):
    """``search`` that searches the true table (``truth``, shown by ``see`` before each decision)."""

    def __init__(self, budget: Budget | None, knows: str) -> None:
        super().__init__(budget)
        self.knows, self.truth = knows, None

    def see(self, state) -> None:
        """Keeps the true state of the table (``play_bots`` calls it before each decision)."""
        self.truth = state

    def deal(self, observation, draw):
        if self.knows == "full":
            return self.truth
        if self.knows == "cards":
            return dataclasses.replace(self.truth, seed=draw.next64())
        return true_hands(determinize(observation, draw), self.truth, draw)


def true_hands(dealt, truth, draw):
    """Returns ``dealt`` with ``truth``'s hands, the fortune cards left over shuffled into its decks."""
    held = {c.id for h in truth.hands for c in h}
    rest = [c for c in dealt.fortune_deck + dealt.fortune_discard if c.id not in held]
    rest += [c for h in dealt.hands for c in h if c.id not in held]
    draw.shuffle(rest)
    size = len(dealt.fortune_deck)
    return dataclasses.replace(
        dealt, hands=truth.hands, fortune_deck=tuple(rest[:size]), fortune_discard=tuple(rest[size:])
    )


class Timed:
    """Wraps a bot and records the CPU time of each of its decisions."""

    name = "search"

    def __init__(self, bot, times: list[float]) -> None:
        self.bot, self.times = bot, times

    def on_match_start(self, match) -> None:
        self.bot.on_match_start(match)

    def choose(self, observation, legal_actions, deadline):
        start = time.process_time()
        action = self.bot.choose(observation, legal_actions, deadline)
        self.times.append(time.process_time() - start)
        return action


def los(wins: int, losses: int) -> float:
    """Returns the likelihood that the first side is the stronger (normal approximation)."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * (wins + losses))))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--first-seed", type=int, default=5000)
    parser.add_argument("--deals", type=int, help="deals per decision (default: the bot's budget)")
    parser.add_argument("--horizon", type=int, help="rounds after the current one (default: the bot's)")
    parser.add_argument("--trust", type=float, help="margin to overrule ninja (default: the bot's)")
    parser.add_argument("--oracle", choices=("full", "cards", "hands"), help="search the true table")
    args = parser.parse_args()
    game = get_game("ninja-burger")
    budget = Budget(iterations=args.deals) if args.deals else None
    times: list[float] = []
    wins = losses = draws = 0
    for g in range(args.games):
        seat, seed = g % args.players, args.first_seed + g // args.players
        oracle = Oracle(budget, args.oracle) if args.oracle else None
        hero = unguarded(oracle or SearchBot(budget))
        if args.horizon is not None:
            hero.HORIZON = args.horizon
        if args.trust is not None:
            hero.TRUST = args.trust
        bots = [Timed(hero, times) if s == seat else NinjaBot() for s in range(args.players)]
        watch = None if oracle is None else oracle.see
        ranks = game.ranks(play_bots(game, bots, seed, watch=watch))
        top = ranks[seat] == 1
        wins += top and ranks.count(1) == 1
        draws += top and ranks.count(1) > 1
        losses += not top
        if (g + 1) % 20 == 0 or g + 1 == args.games:
            print(f"{g + 1} games: {wins}:{losses}, {draws} draws", file=sys.stderr, flush=True)
    times.sort()
    share = (wins + draws / 2) / args.games
    print(
        f"{args.players}p seeds {args.first_seed}+: {args.oracle or ''} search {wins}:{losses}"
        f" ({draws} draws) in {args.games}"
        f" games, share {share:.3f}, LOS {los(wins, losses):.3f};"
        f" decision mean {1000 * sum(times) / len(times):.1f} ms,"
        f" p99 {1000 * times[int(0.99 * (len(times) - 1))]:.1f} ms over {len(times)}"
    )


if __name__ == "__main__":
    main()
