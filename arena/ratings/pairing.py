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

One person's bots never share a table: given ``owners`` (player -> account, None for a built-in, which
shares with nobody), a group never holds two players of one account. The random group skips, in its
shuffled order, a player whose account is already seated; a player's "neighbour" is the nearest
player in the ranking of another account (for a pair) or of an account not yet at the table (when
widening). Without two players of one account every choice is exactly as without ``owners``.

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
from collections.abc import Mapping, Sequence

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
    owners: Mapping[str, str | None] | None = None,
) -> Choice:
    """Returns the next group of ``size`` of ``players`` to play, seats shuffled (see the module
    docstring); ``result`` may lack players that never played (they count as new, rated 1500).
    With ``owners`` (player -> account; None or missing: a built-in), no two players of one account
    are in the group; raises ValueError when the players' accounts cannot fill a group of ``size``.

    >>> from arena.games.rng import derive
    >>> from arena.ratings.fit import fit
    >>> from arena.ratings.pairs import PairTable
    >>> nobody = fit(PairTable())  # no results yet: everyone is new, the first by name goes first
    >>> choice = choose_group(nobody, ["b", "a", "c"], 2, derive(1, "ladder", 1), random_share=0.0)
    >>> choice.reason, sorted(choice.seats)
    ('new', ['a', 'b'])
    >>> choice == choose_group(nobody, ["b", "a", "c"], 2, derive(1, "ladder", 1), random_share=0.0)
    True
    >>> ann = {"a": "ann", "b": "ann"}  # a and b are one person's: b meets c, never a
    >>> sorted(choose_group(nobody, ["b", "a", "c"], 2, derive(1, "ladder", 1), (), 0.0, ann).seats)
    ['a', 'c']
    """
    owner_of = dict(owners or {})
    _check(players, size, random_share, owner_of)
    if draw.below(SHARE_RESOLUTION) < random_share * SHARE_RESOLUTION:
        group, reason = _random_group(players, size, draw, owner_of), "random"
    else:
        order = ranking(result, players)
        newcomer = newest(result, players, pending)
        if newcomer is not None:
            group, reason = window(result, order, [newcomer], size, pending, owner_of), "new"
        else:
            a, b = focus_pair(result, order, pending, owner_of)
            group, reason = window(result, order, [a, b], size, pending, owner_of), "uncertain"
    seats = list(group)
    draw.shuffle(seats)
    return Choice(tuple(seats), reason)


def _check(
    players: Sequence[str], size: int, random_share: float, owner_of: Mapping[str, str | None]
) -> None:
    """Raises ``ValueError`` for a pool the ladder cannot pair."""
    if len(set(players)) != len(players):
        raise ValueError(f"each player may be listed once: {list(players)}")
    if not 2 <= size <= len(players):
        raise ValueError(
            f"a group of {size} needs at least {size} players (and at least 2), not {len(players)}"
        )
    if not 0.0 <= random_share <= 1.0:
        raise ValueError(f"the random share must be from 0 to 1, not {random_share}")
    accounts = [owner_of.get(p) for p in players]
    seatable = len({a for a in accounts if a is not None}) + accounts.count(None)
    if seatable < size:
        raise ValueError(
            f"a group of {size} needs players of {size} accounts (a built-in counts as one), not {seatable}"
        )


def _random_group(
    players: Sequence[str], size: int, draw: Draw, owner_of: Mapping[str, str | None]
) -> list[str]:
    """Returns ``size`` players drawn uniformly without replacement, passing over a player whose
    account is already in the group."""
    pool = sorted(players)
    draw.shuffle(pool)
    group: list[str] = []
    for player in pool:
        if len(group) == size:
            break
        if _joins(player, group, owner_of):
            group.append(player)
    return group


def _joins(player: str, group: Sequence[str], owner_of: Mapping[str, str | None]) -> bool:
    """Returns True if ``player`` may sit with ``group``: a built-in, or of an account not in it."""
    account = owner_of.get(player)
    return account is None or all(owner_of.get(member) != account for member in group)


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


def focus_pair(
    result: Fit,
    order: Sequence[str],
    pending: Sequence[Sequence[str]],
    owners: Mapping[str, str | None] | None = None,
) -> tuple[str, str]:
    """Returns the adjacent pair of ``order`` to play next: fewest matches in flight together, then
    the largest ``uncertainty``, then the higher place. With ``owners``, a player's neighbour is the
    next one below it of another account (players of one account never meet)."""
    owner_of = owners or {}
    pairs = []
    for i, player in enumerate(order):
        below = next((j for j in range(i + 1, len(order)) if _joins(order[j], [player], owner_of)), None)
        if below is not None:
            pairs.append((i, below))
    best = min(
        pairs,
        key=lambda p: (
            together(order[p[0]], order[p[1]], pending),
            -uncertainty(result, order[p[0]], order[p[1]]),
            p[0],
        ),
    )
    return order[best[0]], order[best[1]]


def window(
    result: Fit,
    order: Sequence[str],
    members: Sequence[str],
    size: int,
    pending: Sequence[Sequence[str]],
    owners: Mapping[str, str | None] | None = None,
) -> list[str]:
    """Returns ``members`` widened to ``size`` players by neighbours in ``order``, best first: at each
    step the player just above or just below the group, the one with fewer matches in flight with the
    group, then the one rated nearer to the group's edge (``members`` must be adjacent in ``order``,
    but for players passed over). With ``owners``, a player of an account already in the group is
    passed over."""
    owner_of = owners or {}
    places = sorted(order.index(m) for m in members)
    while len(places) < size:
        group = [order[p] for p in places]
        low, high = places[0], places[-1]
        above = next((p for p in range(low - 1, -1, -1) if _joins(order[p], group, owner_of)), None)
        below = next((p for p in range(high + 1, len(order)) if _joins(order[p], group, owner_of)), None)
        options = []
        if above is not None:
            options.append((_closeness(result, order[above], order[low], group, pending), above))
        if below is not None:
            options.append((_closeness(result, order[below], order[high], group, pending), below))
        places = sorted([*places, min(options)[1]])
    return [order[p] for p in places]


def _closeness(
    result: Fit, candidate: str, edge: str, group: Sequence[str], pending: Sequence[Sequence[str]]
) -> tuple[int, float, str]:
    """Returns the sort key of a candidate neighbour: matches in flight with the group, rating gap to
    the group's edge, name."""
    busy = sum(together(candidate, member, pending) for member in group)
    return busy, abs(rating(result, candidate) - rating(result, edge)), candidate
