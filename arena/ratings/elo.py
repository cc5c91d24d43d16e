"""The online Elo: updates for matches of two or more seats, scored pairwise by finishing rank.

arena shows the fit to all results (``arena.ratings.fit``); this running Elo stays as the baseline the
calibration scores the fit against (``arena.ratings.calibration``), and ``expected_score`` is the one
Elo formula every module uses.

Design detail: the update of one match is computed entirely from the ratings *before* that match, and
every pair's expected score uses those same ratings, so the order of seats inside a match never
matters; only the order of matches does, which is why ``rebuild`` takes them in order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

INITIAL_RATING = 1500.0  # every bot's rating before its first game
K_FACTOR = 32.0  # the most a two-player game can move a rating; split over the opponents otherwise
SCALE = 400.0  # a 400-point gap means 10:1 odds


@dataclasses.dataclass(frozen=True)
class Placement:
    """One seat's finish: the bot and its rank (1 is best; equal ranks are a tie)."""

    bot: str
    rank: int


@dataclasses.dataclass(frozen=True)
class Result:
    """One finished match as the ratings see it."""

    match_id: str
    game: str
    placements: tuple[Placement, ...]


def expected_score(rating: float, opponent: float) -> float:
    """Returns the expected score of ``rating`` against ``opponent`` (0..1).

    >>> round(expected_score(1600, 1400), 4)
    0.7597
    """
    odds: float = 10.0 ** ((opponent - rating) / SCALE)  # typeshed's float ** float is Any (complex)
    return 1.0 / (1.0 + odds)


def pair_score(rank: int, opponent_rank: int) -> float:
    """Returns 1 for finishing ahead, 0.5 for a tie, 0 for finishing behind."""
    if rank == opponent_rank:
        return 0.5
    return 1.0 if rank < opponent_rank else 0.0


def apply(table: Mapping[str, float], result: Result, k: float = K_FACTOR) -> dict[str, float]:
    """Returns a new table with one match applied (bots new to the table start at INITIAL_RATING).

    >>> apply({}, Result("m", "g", (Placement("a", 1), Placement("b", 2))))
    {'a': 1516.0, 'b': 1484.0}
    """
    new = dict(table)
    _apply_in_place(new, result, k)
    return new


def rebuild(results: Iterable[Result], k: float = K_FACTOR) -> dict[str, float]:
    """Returns the table obtained by applying ``results`` in order to an empty table."""
    table: dict[str, float] = {}
    for result in results:
        _apply_in_place(table, result, k)
    return table


def _apply_in_place(table: dict[str, float], result: Result, k: float) -> None:
    """Applies one match to ``table``: the single implementation behind ``apply`` and ``rebuild``."""
    seats = result.placements
    bots = [p.bot for p in seats]
    if len(set(bots)) != len(bots):
        raise ValueError(f"match {result.match_id}: a bot holds two seats: {bots}")
    if len(seats) < 2:
        return
    before = [table.get(bot, INITIAL_RATING) for bot in bots]
    share = k / (len(seats) - 1)
    for i, seat in enumerate(seats):
        delta = 0.0
        for j, other in enumerate(seats):
            if j != i:
                delta += pair_score(seat.rank, other.rank) - expected_score(before[i], before[j])
        table[seat.bot] = before[i] + share * delta
