"""Ratings, computed purely from match results (no Redis, no I/O).

A match result is the finishing rank of every seat, and every pair of seats counts as a two-player
game (win 1, tie 0.5, loss 0). Two estimators read it:

- the fit to all results (``pairs``, ``fit``), which arena shows: a pair table of wins/draws/losses
  per pair of bot versions and table size, fitted by Bradley-Terry (a k-seat match's pairs weighing
  3/(k+1)) with two virtual draws of every player against a virtual 1500, independent of the order
  of the results, with intervals from the curvature, LOS and provisional marks (docs/ratings.md);
  ``seating`` says which games' fits add a seat advantage;
  ``views`` turns a fit into what the leaderboard and a tournament's standings show.
- the online Elo (``elo``), kept as the baseline the fit is scored against: each seat's K factor is
  split over its opponents; ``apply`` adds one result, ``rebuild`` replays results in order.

``calibration`` scores both on held-out results; ``sprt`` stops a head-to-head match early;
``confidence`` says when a ladder's order is settled; ``summary`` is a series' cutechess-style
estimate. (The fit
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

__all__ = [
    "INITIAL_RATING",
    "K_FACTOR",
    "Fit",
    "PairTable",
    "Placement",
    "Record",
    "Result",
    "Sprt",
    "SprtParams",
    "SprtSpecError",
    "Standing",
    "apply",
    "expected_score",
    "mle_ratings",
    "player_id",
    "rebuild",
    "split_player",
    "standings",
    "table_of",
    "win_table",
]
