"""Trains the Ninjan policy of ``bot.py`` by self-play: REINFORCE on the engine, in this process.

    python bots/python/trained/train.py                       # 10 minutes at most, 2 worker processes
    python bots/python/trained/train.py --games 2000 --out /tmp/w.json --seed 3

Every seat of every game plays the current policy (``ninjan_policy``: a linear softmax over each
decision's legal actions), sampling its actions; at the end each seat's decisions are pushed towards
its result, the rank reward of docs/rl.md (+1 for the winner alone, -1 for the last, shared ranks in
between). The games are played by the engine itself (``Game.apply``), not through the referee: no
bots, no codec, no replays, so a game costs only the engine and the policy. The observation each seat
decides on is ``Game.observe``'s, the value the SDK hands ``bot.py`` at play time.

Needs numpy (``pip install arena[rl]``, or numpy alone); the bot it trains does not. Each batch is
split between ``--workers`` processes (2 by default: the machine's two cores), which return the
summed policy gradient of their games; the weights are updated once per batch (Adam).
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import time
from collections.abc import Sequence
from pathlib import Path

import ninjan_policy as policy
import numpy as np

from arena.games.base import ranks_from_scores
from arena.games.ninjan.engine import GAME, NinjanState
from arena.games.rng import derive_seed

HERE = Path(__file__).resolve().parent
Grads = dict[str, np.ndarray]


def rank_rewards(state: NinjanState) -> list[float]:
    """Returns each seat's reward from the finishing ranks: (seats below - seats above) / (n - 1)."""
    ranks = ranks_from_scores(GAME.scores(state))
    n = len(ranks)
    return [(sum(r > mine for r in ranks) - sum(r < mine for r in ranks)) / (n - 1) for mine in ranks]


def self_play(weights: policy.Weights, players: int, seed: int, rng: random.Random) -> Grads:
    """Plays one game with every seat sampling the policy; returns the sum over its decisions of
    reward x grad log pi(action) (the REINFORCE estimate of the gradient of the expected reward)."""
    state = GAME.initial_state(players, seed)
    taken: list[tuple[int, str, np.ndarray]] = []  # seat, kind, grad log pi of the action taken
    while not GAME.is_terminal(state):
        actions = {}
        for seat in GAME.to_move(state):
            legal = GAME.legal_actions(state, seat)
            kind, rows = policy.features(GAME.observe(state, seat), legal)
            probs = policy.softmax(policy.logits(weights, kind, rows))
            choice = rng.choices(range(len(legal)), probs)[0]
            actions[seat] = legal[choice]
            x = np.asarray(rows)
            taken.append((seat, kind, x[choice] - np.asarray(probs) @ x))
        state = GAME.apply(state, actions)
    rewards = rank_rewards(state)
    grads = {kind: np.zeros(width) for kind, width in policy.WIDTH.items()}
    for seat, kind, grad in taken:
        grads[kind] += rewards[seat] * grad
    return grads


def batch(job: tuple[policy.Weights, Sequence[tuple[int, int]], int]) -> tuple[Grads, int]:
    """Plays the games ``(players, seed)`` of one worker's share of a batch; returns their summed
    gradient and how many decisions it counts. A top-level function, for multiprocessing."""
    weights, games, sample_seed = job
    rng = random.Random(sample_seed)
    total = {kind: np.zeros(width) for kind, width in policy.WIDTH.items()}
    for players, seed in games:
        grads = self_play(weights, players, seed, rng)
        for kind in total:
            total[kind] += grads[kind]
    return total, len(games)


class Adam:
    """Adam's update (Kingma & Ba), ascending the gradient, one moment pair per kind of decision."""

    def __init__(self, lr: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8) -> None:
        self.lr, self.beta1, self.beta2, self.eps, self.t = lr, beta1, beta2, eps, 0
        self.m = {kind: np.zeros(width) for kind, width in policy.WIDTH.items()}
        self.v = {kind: np.zeros(width) for kind, width in policy.WIDTH.items()}

    def step(self, weights: Grads, grads: Grads) -> None:
        self.t += 1
        for kind, g in grads.items():
            self.m[kind] = self.beta1 * self.m[kind] + (1 - self.beta1) * g
            self.v[kind] = self.beta2 * self.v[kind] + (1 - self.beta2) * g * g
            m_hat = self.m[kind] / (1 - self.beta1**self.t)
            v_hat = self.v[kind] / (1 - self.beta2**self.t)
            weights[kind] += self.lr * m_hat / (np.sqrt(v_hat) + self.eps)


def as_lists(weights: Grads) -> policy.Weights:
    return {kind: [float(x) for x in w] for kind, w in weights.items()}


def train(args: argparse.Namespace) -> tuple[policy.Weights, dict[str, object]]:
    """Runs self-play until ``args.games`` games or ``args.minutes`` minutes; returns the weights and
    what the run did (saved beside them)."""
    weights = {kind: np.zeros(width) for kind, width in policy.WIDTH.items()}
    adam = Adam(args.lr)
    start = time.monotonic()
    played = updates = 0
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        while played < args.games and time.monotonic() - start < args.minutes * 60:
            size = min(args.batch, args.games - played)
            games = [
                (args.players[k % len(args.players)], derive_seed(args.seed, "train", k))
                for k in range(played, played + size)
            ]
            jobs = [
                (as_lists(weights), games[w :: args.workers], derive_seed(args.seed, "sample", updates, w))
                for w in range(args.workers)
            ]
            results = pool.map(batch, jobs)
            grads = {kind: sum(r[0][kind] for r in results) / size for kind in weights}
            adam.step(weights, grads)
            played += size
            updates += 1
            if updates % args.report_every == 0:
                minutes = (time.monotonic() - start) / 60
                print(f"{played:6d} games  {minutes:5.2f} min  {_show(weights)}", flush=True)
    minutes = (time.monotonic() - start) / 60
    meta: dict[str, object] = {
        "games": played,
        "minutes": round(minutes, 2),
        "updates": updates,
        "seed": args.seed,
        "players": list(args.players),
        "batch": args.batch,
        "lr": args.lr,
        "workers": args.workers,
    }
    return as_lists(weights), meta


def _show(weights: Grads) -> str:
    return "  ".join(f"{kind}[{' '.join(f'{x:+.2f}' for x in w)}]" for kind, w in weights.items())


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games", type=int, default=1_000_000, help="most self-play games (default: no limit)"
    )
    parser.add_argument(
        "--minutes",
        type=float,
        default=9.5,
        help="most wall-clock minutes (default 9.5: the last batch ends within 10)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seeds the deals and the sampled actions")
    parser.add_argument("--out", type=Path, default=HERE / "weights.json", help="where the weights go")
    parser.add_argument("--players", type=_players, default=(2, 3), help="seat counts, cycled (default 2,3)")
    parser.add_argument("--batch", type=int, default=64, help="games per update (default 64)")
    parser.add_argument("--lr", type=float, default=0.05, help="Adam's step size (default 0.05)")
    parser.add_argument("--workers", type=int, default=2, help="processes playing each batch (default 2)")
    parser.add_argument("--report-every", type=int, default=10, help="print the weights every N updates")
    return parser.parse_args(argv)


def _players(text: str) -> tuple[int, ...]:
    counts = tuple(int(part) for part in text.split(","))
    if not counts or any(not 2 <= n <= 5 for n in counts):
        raise argparse.ArgumentTypeError("seat counts are 2 to 5, comma-separated")
    return counts


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(argv)
    weights, meta = train(args)
    policy.save(args.out, weights, meta)
    print(f"{meta['games']} games in {meta['minutes']} minutes, {meta['updates']} updates: {args.out}")


if __name__ == "__main__":
    main()
