"""Which games' fits include a seat advantage (issue 37): measured, then declared here.

A game listed in ``SEAT_ADVANTAGE`` records every pairwise result with the seats its two players
held (``arena.ratings.pairs.match_fields(..., seats=True)``), and its fit then gives every seat of
every table size an advantage over seat 0 (``Fit.seat_advantage``), fitted with the ratings. A game
not listed records no seats, and its fit has none: the ratings of a game whose seats are even stay
as precise as they can be, rather than spending evidence on parameters that are zero.

Why a list rather than always on: the seats multiply a pair's stored fields by up to the number of
seat pairs (15 at six seats), and the fit's cost with them, for nothing where seats do not matter.
The list comes from ``bench/seat_advantage.py`` (each built-in bot against itself, every copy in
every seat): a game is listed when a seat's 99% interval leaves out 0 (99% rather than 95%: about
twenty intervals are looked at, and one in twenty would leave out 0 by chance; docs/ratings.md).
Results recorded before a game was listed have no seats and count as before.
"""

from __future__ import annotations

# Measured by bench/seat_advantage.py (docs/ratings.md, "Seat advantage"): ninja-master (a later seat
# wins far more often: +142 Elo for seat 1 of two, +296 and +269 for seats 1 and 2 of three),
# ninja-burger (seat 1 of three -76), pnrz (seat 1 of three -127) and ninjan (seat 1 of two +73).
SEAT_ADVANTAGE: frozenset[str] = frozenset({"ninja-burger", "ninja-master", "ninjan", "pnrz"})


def records_seats(game: str) -> bool:
    """Returns whether ``game``'s results are recorded with their seats (its fit has a seat advantage)."""
    return game in SEAT_ADVANTAGE
