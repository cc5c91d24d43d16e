"""Calibration: how well ratings predict results they were not fitted to, scored by log loss.

The results are split by a hash of each match id (one match in ``HOLDOUT_EVERY`` held out), so the
split does not depend on the order or the number of the results and a match is always on the same
side. Both estimators see the same fitted part: the Bradley-Terry fit (``arena.ratings.fit``) its
pair table, the online Elo (``arena.ratings.elo``) its matches in their recorded order. Each held-out
match is then read as its pairwise results (as everywhere in ``arena.ratings``) and every pair is
scored by the log loss of the predicted expected score ``p`` against the actual one ``s`` (1, 0.5 or
0): ``-(s ln p + (1 - s) ln(1 - p))``. Lower is better; always predicting 0.5 scores ln 2 = 0.693.
A player absent from the fitted part is predicted at 1500 by both.

Why log loss: it rewards confidence that was earned and punishes confidence that was not, which is
what an interval and an LOS rely on; a hit rate would not see the difference between 51% and 99%.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.ratings.elo import Placement, Result, expected_score, rebuild
from arena.ratings.fit import CENTER, ELO_PER_UNIT, fit
from arena.ratings.pairs import table_of

HOLDOUT_EVERY = 5  # one match in five is held out
CLAMP = 1e-12  # predictions are kept this far from 0 and 1 so a log loss stays finite


@dataclasses.dataclass(frozen=True)
class Calibration:
    """Held-out log loss per pairwise result of the fit and of the online Elo, with the sizes."""

    fit_log_loss: float
    elo_log_loss: float
    fitted_matches: int
    held_out_matches: int
    held_out_pairs: int

    def to_json(self) -> dict[str, Any]:
        """Returns the figures as a JSON object (log losses to 5 decimals)."""
        data = dataclasses.asdict(self)
        data["fit_log_loss"] = round(self.fit_log_loss, 5)
        data["elo_log_loss"] = round(self.elo_log_loss, 5)
        return data


def is_held_out(match_id: str, every: int = HOLDOUT_EVERY) -> bool:
    """Returns whether a match belongs to the held-out part (by the SHA-256 of its id)."""
    digest = hashlib.sha256(match_id.encode()).digest()
    return int.from_bytes(digest[:8], "big") % every == 0


def calibrate(results: Sequence[Result], every: int = HOLDOUT_EVERY) -> Calibration:
    """Returns the held-out log loss of the fit and of the online Elo, both fitted on the rest."""
    fitted = [r for r in results if not is_held_out(r.match_id, every)]
    held = [r for r in results if is_held_out(r.match_id, every)]
    bt = fit(table_of(r.placements for r in fitted)).ratings
    elo = rebuild(fitted)

    def predictor(ratings: dict[str, float]) -> Callable[[str, str], float]:
        return lambda a, b: expected_score(ratings.get(a, CENTER), ratings.get(b, CENTER))

    fit_loss, pairs = log_loss(predictor(dict(bt)), held)
    elo_loss, _ = log_loss(predictor(elo), held)
    return Calibration(fit_loss, elo_loss, len(fitted), len(held), pairs)


def synthetic_results(
    true_ratings: Mapping[str, float], matches: int, seed: int, game: str = "synthetic"
) -> list[Result]:
    """Returns ``matches`` seeded matches of 2 to 6 distinct seats among ``true_ratings``' players,
    ranked by Bradley-Terry strength plus Gumbel noise: for any two seats, the one with ``r_a`` finishes
    ahead of ``r_b`` with the model's probability ``1 / (1 + 10 ** ((r_b - r_a) / 400))`` (Luce's
    choice axiom), so a fit should recover ``true_ratings`` up to a shift. No ties. For calibration
    tests and benchmarks; draws only ``random()`` of a seeded generator (reproducible everywhere)."""
    rng = random.Random(seed)
    players = sorted(true_ratings)
    results = []
    for m in range(matches):
        size = min(2 + int(rng.random() * 5), len(players))
        seats: list[str] = []
        while len(seats) < size:
            pick = players[int(rng.random() * len(players))]
            if pick not in seats:
                seats.append(pick)
        noise = {p: -math.log(-math.log(rng.random() or 1e-300)) for p in seats}
        order = sorted(seats, key=lambda p: -(true_ratings[p] / ELO_PER_UNIT + noise[p]))
        placements = tuple(Placement(p, rank) for rank, p in enumerate(order, 1))
        results.append(Result(f"{game}-{seed}-{m}", game, placements))
    return results


def log_loss(predict: Callable[[str, str], float], results: Sequence[Result]) -> tuple[float, int]:
    """Returns the mean log loss of ``predict(a, b)`` (a's expected score) over every pair of seats of
    ``results``, and the number of pairs (the mean is 0 when there are none)."""
    total, count = 0.0, 0
    for result in results:
        seats = result.placements
        for i, a in enumerate(seats):
            for b in seats[i + 1 :]:
                s = 0.5 if a.rank == b.rank else float(a.rank < b.rank)
                p = min(max(predict(a.bot, b.bot), CLAMP), 1.0 - CLAMP)
                total -= s * math.log(p) + (1.0 - s) * math.log(1.0 - p)
                count += 1
    return (total / count if count else 0.0), count
