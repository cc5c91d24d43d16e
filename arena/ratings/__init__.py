"""Ratings: Elo per game, computed purely from match results (no Redis, no I/O).

A match result is the finishing rank of every seat. Each pair of seats counts as a two-player game
(win 1, tie 0.5, loss 0), and each seat's K factor is split over its opponents, so a five-player match
moves a rating about as far as one two-player game does. ``apply`` is the one place where a result
changes a table; ``rebuild`` replays stored results in order and therefore gives the same table the
running updates gave. ``leaderboard`` adds a bootstrap 95% interval and per-bot counts.
"""

from arena.ratings.elo import (
    INITIAL_RATING,
    K_FACTOR,
    Placement,
    Result,
    apply,
    expected_score,
    rebuild,
)
from arena.ratings.table import BotStats, Row, bootstrap_intervals, leaderboard, stats

__all__ = [
    "INITIAL_RATING",
    "K_FACTOR",
    "BotStats",
    "Placement",
    "Result",
    "Row",
    "apply",
    "bootstrap_intervals",
    "expected_score",
    "leaderboard",
    "rebuild",
    "stats",
]
