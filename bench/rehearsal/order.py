"""Is the ladder's order right, and since when is it sure? Read from the leaderboard's public answer.

Confident: every neighbour's likelihood of superiority is at least 95%, neighbours among the honest
Python bots (hostile ones all play the first legal action and the kits their one default strategy:
equal by construction, never told apart), read
from the leaderboard's ``los`` table (its rows' ``los_next`` where the table is missing).

The Kendall distance is the share of discordant pairs among those whose intended strengths
differ by at least ``GAP`` (the random-share chain of ``roster``: a quarter of moves random or more),
both rated: 0 is the intended order, 1 its reverse.
"""

from __future__ import annotations

import itertools
import math
from statistics import NormalDist
from typing import Any

CONFIDENT = 0.95
GAP = 0.25
Z_CONFIDENT = NormalDist().inv_cdf(CONFIDENT)  # the z of a neighbour LOS of 95%: 1.645


def min_neighbour_los(board: dict[str, Any], keep: set[str] | None = None) -> float | None:
    """Returns the lowest LOS between neighbours of the board's rows (only the ``keep`` bots' rows when
    given); None with fewer than two rows."""
    rows = [row for row in board.get("rows", []) if keep is None or row["bot"] in keep]
    table = board.get("los") or {}
    values = []
    for upper, lower in itertools.pairwise(rows):
        los = (table.get(upper["bot"]) or {}).get(lower["bot"]) if table else upper.get("los_next")
        values.append(float(los) if los is not None else 0.0)
    return min(values) if values else None


def minutes_to_confident(board: dict[str, Any], keep: set[str], minute: float) -> dict[str, Any]:
    """Returns when every neighbour's LOS would reach 95% if the ladder kept playing as it did for
    its first ``minute`` minutes, extrapolated from the board's LOS: a pair's LOS is Phi(gap / sd) and
    the sd of a difference shrinks as 1/sqrt(matches), so with its gap as estimated now a pair at
    z = Phi^-1(LOS) needs (1.645 / z)^2 times the matches it has. The slowest pair bounds it
    (``bound_by``); a pair at LOS <= 50% cannot be extrapolated (``minutes`` None): the ladder does not
    yet know which of the two is stronger."""
    rows = [row for row in board.get("rows", []) if row["bot"] in keep]
    table = board.get("los") or {}
    slowest: tuple[float, str, float] | None = None
    for upper, lower in itertools.pairwise(rows):
        los = (table.get(upper["bot"]) or {}).get(lower["bot"]) if table else upper.get("los_next")
        los = min(float(los if los is not None else 0.0), 1 - 1e-12)
        z = NormalDist().inv_cdf(los) if los > 0 else -math.inf
        need = minute * (Z_CONFIDENT / z) ** 2 if z > 0 else math.inf
        if los < CONFIDENT and (slowest is None or need > slowest[0]):
            slowest = (need, f"{upper['bot']}>{lower['bot']}", round(los, 3))
    if slowest is None:
        return {"minutes": round(minute, 1) if rows else None, "bound_by": None, "los": None}
    need, pair, los = slowest
    return {"minutes": None if math.isinf(need) else round(need, 1), "bound_by": pair, "los": los}


def kendall(rows: list[dict[str, Any]], intended: dict[str, float | None]) -> dict[str, Any]:
    """Returns the Kendall distance of the rows' Elo order from the intended one, and the pairs counted."""
    elo = {row["bot"]: float(row["elo"]) for row in rows}
    known = {bot: value for bot, value in intended.items() if value is not None and bot in elo}
    pairs = discordant = 0
    for a, b in itertools.combinations(sorted(known), 2):
        gap = known[a] - known[b]
        if abs(gap) < GAP:
            continue
        pairs += 1
        discordant += (elo[a] - elo[b]) * gap < 0
    return {
        "pairs": pairs,
        "discordant": discordant,
        "distance": round(discordant / pairs, 3) if pairs else None,
    }


class OrderWatch:
    """The leaderboard of each game sampled over the run: the LOS curve and the first confident time."""

    def __init__(self, games: list[str], honest: set[str]) -> None:
        self.honest = honest
        self.curve: dict[str, list[tuple[float, float | None, int]]] = {game: [] for game in games}
        self.confident_at: dict[str, float | None] = {game: None for game in games}
        self.last: dict[str, dict[str, Any]] = {}

    def sample(self, game: str, minute: float, board: dict[str, Any]) -> None:
        """Notes one leaderboard answer of ``game`` read ``minute`` minutes into the ladder."""
        low = min_neighbour_los(board, self.honest)
        self.curve[game].append((round(minute, 2), low, int(board.get("matches", 0))))
        self.last[game] = board
        if low is not None and low >= CONFIDENT and self.confident_at[game] is None:
            self.confident_at[game] = round(minute, 2)
        elif low is not None and low < CONFIDENT:
            self.confident_at[game] = None  # confident means it stayed so

    def report(self, intended: dict[str, float | None]) -> dict[str, Any]:
        """Returns per game: first minute confident (and stayed), last min LOS, Kendall, the curve."""
        out = {}
        for game, curve in self.curve.items():
            rows = self.last.get(game, {}).get("rows", [])
            out[game] = {
                "confident_minute": self.confident_at[game],
                "min_neighbour_los": curve[-1][1] if curve else None,
                "min_neighbour_los_all_rows": min_neighbour_los(self.last.get(game, {})),
                "matches": curve[-1][2] if curve else 0,
                "kendall": kendall(rows, intended),
                "minutes_to_confident": minutes_to_confident(
                    self.last.get(game, {}), self.honest, curve[-1][0] if curve else 0.0
                ),
                "order": [(row["bot"], round(float(row["elo"]))) for row in rows],
                "los_curve": curve,
            }
        return out
