"""Which group a ladder plays next: pure functions over the current fit and the matches in flight.

A ladder (``arena ladder GAME``, ``arena.schedule.ladder``) plays matches among a fixed set of *players*
(each active bot's latest version, ``arena.ratings.pairs.player_id``) for as long as it runs. Every
match it schedules is chosen here, in this order of precedence:

1. **A random group**, with probability ``random_share`` (20% by default): a uniformly random group of
   ``size`` players. Whatever the fit says, every player keeps meeting every other, so no bot is
   starved and a wrong early ranking cannot hide a pair from being tested.
2. **A new player**: one with fewer than ``NEW_GAMES`` matches (those in flight counted), the one with
   fewest first, meets the players rated nearest to it. A new version is placed before anything else
   is refined, and its opponents move with its estimate, as in a binary search.
3. **The least certain adjacent pair** in the current ranking: the pair ``(a, b)`` of neighbours with
   the largest ``uncertainty`` (``1 - |2 LOS - 1|`` times the standard error of ``r_a - r_b``): LOS near
   50% says the order is unsettled, a wide interval says one game there still teaches a lot. A pair
   far apart in the ranking is never chosen here: its order follows from the neighbours'.

For games of 3 to 6 players the group is widened around the new player or the pair, one neighbour in
the ranking at a time, the one rated nearest to the group's edge first (``window``): the other seats
are also close contests. The seats are then shuffled.

Design detail, matches in flight: a ladder keeps several jobs queued ahead and chooses them from the
same fit, which would pick the same pair every time. So ``pending`` (the groups queued and not yet
recorded) counts as played for a new player's games, and the adjacent pair with the fewest matches in
flight wins before uncertainty is compared; opponents of a new player with fewer matches in flight
against it are preferred. Each choice draws from ``draw`` only (``arena.games.rng.Draw``, seeded by
the caller from the ladder's seed and the match's number), so the same fit, pending list and seed give
the same group on any machine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from arena.games.rng import Draw
from arena.ratings.fit import CENTER, MIN_GAMES, Fit

RANDOM_SHARE = 0.2  # the share of matches that are uniformly random groups
NEW_GAMES = MIN_GAMES  # a player with fewer matches than this (in flight included) is placed first
SHARE_RESOLUTION = 1_000_000  # the random share is drawn as an integer below this
REASONS = ("random", "new", "uncertain")


@dataclasses.dataclass(frozen=True)
class Choice:
    """A group to play, in seat order, and why it was chosen (one of ``REASONS``)."""

    seats: tuple[str, ...]
    reason: str


def choose_group(
    result: Fit,
    players: Sequence[str],
    size: int,
    draw: Draw,
    pending: Sequence[Sequence[str]] = (),
    random_share: float = RANDOM_SHARE,
) -> Choice:
    """Returns the next group of ``size`` of ``players`` to play, seats shuffled (see the module
    docstring); ``result`` may lack players that never played (they count as new, rated 1500).

    >>> from arena.games.rng import derive
    >>> from arena.ratings.fit import fit
    >>> from arena.ratings.pairs import PairTable
    >>> nobody = fit(PairTable())  # no results yet: everyone is new, the first by name goes first
    >>> choice = choose_group(nobody, ["b", "a", "c"], 2, derive(1, "ladder", 1), random_share=0.0)
    >>> choice.reason, sorted(choice.seats)
    ('new', ['a', 'b'])
    >>> choice == choose_group(nobody, ["b", "a", "c"], 2, derive(1, "ladder", 1), random_share=0.0)
    True
    """
    _check(players, size, random_share)
    if draw.below(SHARE_RESOLUTION) < random_share * SHARE_RESOLUTION:
        group, reason = _random_group(players, size, draw), "random"
    else:
        order = ranking(result, players)
        newcomer = newest(result, players, pending)
        if newcomer is not None:
            group, reason = window(result, order, [newcomer], size, pending), "new"
        else:
            a, b = focus_pair(result, order, pending)
            group, reason = window(result, order, [a, b], size, pending), "uncertain"
    seats = list(group)
    draw.shuffle(seats)
    return Choice(tuple(seats), reason)


def _check(players: Sequence[str], size: int, random_share: float) -> None:
    """Raises ``ValueError`` for a pool the ladder cannot pair."""
    if len(set(players)) != len(players):
        raise ValueError(f"each player may be listed once: {list(players)}")
    if not 2 <= size <= len(players):
        raise ValueError(
            f"a group of {size} needs at least {size} players (and at least 2), not {len(players)}"
        )
    if not 0.0 <= random_share <= 1.0:
        raise ValueError(f"the random share must be from 0 to 1, not {random_share}")


def _random_group(players: Sequence[str], size: int, draw: Draw) -> list[str]:
    """Returns ``size`` players drawn uniformly without replacement."""
    pool = sorted(players)
    draw.shuffle(pool)
    return pool[:size]


def rating(result: Fit, player: str) -> float:
    """Returns ``player``'s fitted rating, or 1500 (the prior's centre) if it has not played."""
    return result.ratings.get(player, CENTER)


def ranking(result: Fit, players: Sequence[str]) -> list[str]:
    """Returns ``players`` best first by fitted rating (name breaks ties, so the order is stable)."""
    return sorted(players, key=lambda p: (-rating(result, p), p))


def in_flight(player: str, pending: Sequence[Sequence[str]]) -> int:
    """Returns how many of the pending groups include ``player``."""
    return sum(player in group for group in pending)


def together(a: str, b: str, pending: Sequence[Sequence[str]]) -> int:
    """Returns how many of the pending groups include both ``a`` and ``b``."""
    return sum(a in group and b in group for group in pending)


def newest(result: Fit, players: Sequence[str], pending: Sequence[Sequence[str]]) -> str | None:
    """Returns the player with the fewest matches (in flight included) if that is below
    ``NEW_GAMES``, else None; the name breaks ties."""
    counts = {p: result.games.get(p, 0) + in_flight(p, pending) for p in players}
    player = min(players, key=lambda p: (counts[p], p))
    return player if counts[player] < NEW_GAMES else None


def uncertainty(result: Fit, a: str, b: str) -> float:
    """Returns how unsettled the order of ``a`` and ``b`` is: ``(1 - |2 LOS - 1|)`` times the standard
    error of their difference (Elo); infinite if either has not played."""
    if a not in result.ratings or b not in result.ratings:
        return float("inf")
    return (1.0 - abs(2.0 * result.los(a, b) - 1.0)) * result.difference_sd(a, b)


def focus_pair(result: Fit, order: Sequence[str], pending: Sequence[Sequence[str]]) -> tuple[str, str]:
    """Returns the adjacent pair of ``order`` to play next: fewest matches in flight together, then
    the largest ``uncertainty``, then the higher place."""
    candidates = range(len(order) - 1)
    best = min(
        candidates,
        key=lambda i: (
            together(order[i], order[i + 1], pending),
            -uncertainty(result, order[i], order[i + 1]),
            i,
        ),
    )
    return order[best], order[best + 1]


def window(
    result: Fit, order: Sequence[str], members: Sequence[str], size: int, pending: Sequence[Sequence[str]]
) -> list[str]:
    """Returns ``members`` widened to ``size`` players by neighbours in ``order``: at each step the
    player just above or just below the group, the one with fewer matches in flight with the group,
    then the one rated nearer to the group's edge (``members`` must be adjacent in ``order``)."""
    places = sorted(order.index(m) for m in members)
    low, high = places[0], places[-1]
    while high - low + 1 < size:
        group = order[low : high + 1]
        options = []
        if low > 0:
            options.append((_closeness(result, order[low - 1], order[low], group, pending), low - 1))
        if high + 1 < len(order):
            options.append((_closeness(result, order[high + 1], order[high], group, pending), high + 1))
        place = min(options)[1]
        low, high = min(low, place), max(high, place)
    return list(order[low : high + 1])


def _closeness(
    result: Fit, candidate: str, edge: str, group: Sequence[str], pending: Sequence[Sequence[str]]
) -> tuple[int, float, str]:
    """Returns the sort key of a candidate neighbour: matches in flight with the group, rating gap to
    the group's edge, name."""
    busy = sum(together(candidate, member, pending) for member in group)
    return busy, abs(rating(result, candidate) - rating(result, edge)), candidate
