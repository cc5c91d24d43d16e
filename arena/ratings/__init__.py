"""Ratings, computed purely from match results (no Redis, no I/O).

A match result is the finishing rank of every seat, and every pair of seats counts as a two-player
game (win 1, tie 0.5, loss 0). Two estimators read it:

- the online Elo (``elo``, ``table``): each seat's K factor is split over its opponents, so a
  five-player match moves a rating about as far as one two-player game does. ``apply`` is the one
  place where a result changes a table; ``rebuild`` replays stored results in order and therefore gives
  the same table the running updates gave. ``leaderboard`` adds a bootstrap 95% interval and counts.
- the fit to all results (``pairs``, ``fit``): a pair table of wins/draws/losses per pair of bot
  versions, fitted by Bradley-Terry with BayesElo's prior, independent of the order of the results,
  with intervals from the curvature, LOS and provisional marks (docs/ratings.md).

``calibration`` scores both on held-out results; ``sprt`` stops a head-to-head match early. (The fit
itself is ``arena.ratings.fit.fit``: not re-exported, so that ``arena.ratings.fit`` stays the module.)
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
from arena.ratings.fit import Fit, Standing, mle_ratings, standings, win_table
from arena.ratings.pairs import PairTable, Record, player_id, split_player, table_of
from arena.ratings.sprt import Sprt, SprtParams, SprtSpecError
from arena.ratings.table import BotStats, Row, bootstrap_intervals, leaderboard, stats

__all__ = [
    "INITIAL_RATING",
    "K_FACTOR",
    "BotStats",
    "Fit",
    "PairTable",
    "Placement",
    "Record",
    "Result",
    "Row",
    "Sprt",
    "SprtParams",
    "SprtSpecError",
    "Standing",
    "apply",
    "bootstrap_intervals",
    "expected_score",
    "leaderboard",
    "mle_ratings",
    "player_id",
    "rebuild",
    "split_player",
    "standings",
    "stats",
    "table_of",
    "win_table",
]
