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
from typing import Any

CONFIDENT = 0.95
GAP = 0.25


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
                "order": [(row["bot"], round(float(row["elo"]))) for row in rows],
                "los_curve": curve,
            }
        return out
