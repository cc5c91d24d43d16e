"""The leaderboard: running Elo, a bootstrap 95% interval, and per-bot counts.

Counts per bot: ``wins`` are matches it finished first alone, ``draws`` matches where it shared first
place, ``losses`` the rest. The ``score_rate`` is its mean pairwise score (the share of opponents it
finished ahead of, ties counting half), which is what Elo predicts, and so comparable across player
counts.

Design detail: the interval comes from bootstrap resampling of whole matches (seeded, so the same
results always print the same interval): each resample draws as many matches as were played, with
replacement, in random order, and rebuilds Elo from them; the interval is the 2.5th to 97.5th
percentile of a bot's rating over the resamples. It reflects both the sampling noise of the results
and Elo's dependence on their order.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping, Sequence

from arena.ratings.elo import INITIAL_RATING, Result, pair_score, rebuild

DEFAULT_RESAMPLES = 200
DEFAULT_SEED = 0


@dataclasses.dataclass
class BotStats:
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0  # sum of pairwise scores
    pairings: int = 0  # number of opponents met, summed over games

    @property
    def score_rate(self) -> float:
        """Returns the mean pairwise score (0..1), 0 before any game."""
        return self.points / self.pairings if self.pairings else 0.0


@dataclasses.dataclass(frozen=True)
class Row:
    rank: int
    bot: str
    elo: float
    low: float  # 95% interval
    high: float
    games: int
    wins: int
    draws: int
    losses: int
    score_rate: float
    version: str = ""  # the version the bot played in its latest match ("" if not known)

    def to_json(self) -> dict:
        """Returns the row as the ``arena leaderboard --json`` object."""
        return {
            "rank": self.rank,
            "bot": self.bot,
            "version": self.version,
            "elo": round(self.elo, 1),
            "interval": [round(self.low, 1), round(self.high, 1)],
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score_rate": round(self.score_rate, 4),
        }


def stats(results: Sequence[Result]) -> dict[str, BotStats]:
    """Returns games, wins, draws, losses and pairwise points per bot."""
    table: dict[str, BotStats] = {}
    for result in results:
        best = min(p.rank for p in result.placements)
        firsts = sum(p.rank == best for p in result.placements)
        for seat in result.placements:
            s = table.setdefault(seat.bot, BotStats())
            s.games += 1
            if seat.rank == best:
                if firsts == 1:
                    s.wins += 1
                else:
                    s.draws += 1
            else:
                s.losses += 1
            for other in result.placements:
                if other is not seat:
                    s.points += pair_score(seat.rank, other.rank)
                    s.pairings += 1
    return table


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    """Returns the q-quantile (0..1) of sorted values, interpolating linearly."""
    position = q * (len(sorted_values) - 1)
    low = int(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


def bootstrap_intervals(
    results: Sequence[Result], resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> dict[str, tuple[float, float]]:
    """Returns each bot's 95% Elo interval from ``resamples`` bootstrap resamples of the matches."""
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {}
    for _ in range(resamples if results else 0):
        drawn = [results[rng.randrange(len(results))] for _ in results]
        for bot, rating in rebuild(drawn).items():
            samples.setdefault(bot, []).append(rating)
    intervals = {}
    for bot, values in samples.items():
        values.sort()
        intervals[bot] = (_percentile(values, 0.025), _percentile(values, 0.975))
    return intervals


def leaderboard(
    results: Sequence[Result],
    ratings: Mapping[str, float] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    versions: Mapping[str, str] | None = None,
) -> list[Row]:
    """Returns the rows, best Elo first; ``ratings`` defaults to the table rebuilt from ``results``;
    ``versions`` gives each bot's version to show."""
    elo = dict(ratings) if ratings is not None else rebuild(results)
    counts = stats(results)
    intervals = bootstrap_intervals(results, resamples, seed)
    bots = sorted(set(elo) | set(counts), key=lambda b: (-elo.get(b, INITIAL_RATING), b))
    rows = []
    for rank, bot in enumerate(bots, 1):
        s = counts.get(bot, BotStats())
        rating = elo.get(bot, INITIAL_RATING)
        low, high = intervals.get(bot, (rating, rating))
        version = (versions or {}).get(bot, "")
        rows.append(
            Row(rank, bot, rating, low, high, s.games, s.wins, s.draws, s.losses, s.score_rate, version)
        )
    return rows
