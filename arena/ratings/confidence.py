"""When a ladder is done: every neighbour in the fit's own order ahead of the next with a given LOS.

``arena ladder GAME --bots ... --until-confident [--los 0.95]`` (``arena.schedule.ladder``) stops
once ``confident`` holds for its players on the current fit: ranked by the fit's ratings (the order
``arena.ratings.fit.standings`` shows), each player's likelihood of superiority over the next one
(``los_next``) is at least ``los``. The rule reads only the fit, never a true order: it is what a
reader of the leaderboard would conclude from it. bench/confident_ladder.py measures how often it
stops on a wrong order (30 seeded runs against synthetic bots of known Elo).

Design detail, provisional players: the ladder is not confident while any of its players is
provisional (``arena.ratings.fit.is_provisional``: fewer than ``MIN_GAMES`` matches or an interval
wider than +/- 150 Elo), nor while one has no result at all. Reading the established rows alone
would let a ladder stop with a bot it has barely placed; a provisional bot is also exactly the one
the pairing places first, so waiting for it costs a few matches, not an open-ended run. With no
provisional row, ``los_next`` and ``los_next_established`` are the same number.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.ratings.fit import Fit, standings

LOS_DEFAULT = 0.95


def check_los(los: float) -> float:
    """Returns ``los`` if a ladder can be asked to reach it; raises ValueError saying the range.

    Design detail: 0.5 or less holds for any order (LOS of the higher-rated of two is at least 0.5),
    and 1 is never reached by a finite fit, so both ends are refused."""
    if not 0.5 < los < 1.0:
        raise ValueError(f"--los must be above 0.5 and below 1 (e.g. {LOS_DEFAULT}), not {los:g}")
    return los


def confident(result: Fit, players: Sequence[str], los: float = LOS_DEFAULT) -> bool:
    """Returns whether ``players`` (at least two) are ranked by ``result`` with every neighbour's LOS
    over the next at least ``los``, none of them provisional and each with a result."""
    if len(players) < 2 or any(not result.games.get(p) for p in players):
        return False
    rows = standings(result, players)
    if any(row.provisional for row in rows):
        return False
    return all(row.los_next >= los for row in rows if row.los_next is not None)
