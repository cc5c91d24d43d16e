"""What search bots share: a generator seeded from what the seat sees, and a budget per decision.

A built-in bot must play the same way given the same match (runs repeat, results can be checked),
so its randomness comes from the project's generator (``arena.games.rng.Draw``) seeded by the match
id, its seat and the observation: nothing it may not see goes into the seed. For the same reason its
budget counts *iterations*, not wall time; the wall-time cap is only a guard that keeps a decision
inside the referee's deadline on a slow or loaded machine (when it cuts a search short, play depends
on the machine's speed, which the default budget avoids on this project's machines).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from arena.games.rng import Draw, derive_seed
from arena.sdk import MatchInfo


def seat_key(match: MatchInfo | None) -> str:
    """Returns the text naming this bot's seat in its match (empty outside a match)."""
    return f"{match.match_id}/{match.seat}" if match is not None else ""


def seat_draw(key: str, observation: Any) -> Draw:
    """Returns a generator seeded by the seat's key and the observation it is deciding on."""
    return Draw(derive_seed(key, repr(observation)))


@dataclasses.dataclass(frozen=True)
class Budget:
    """How much a decision may search: ``iterations`` (the reproducible limit) and a wall-time guard
    of ``share`` of the deadline, at most ``cap``."""

    iterations: int
    cap: timedelta = timedelta(seconds=1)
    share: float = 0.5

    def clock(self, deadline: timedelta) -> Clock:
        """Returns a clock for one decision with this budget and the referee's ``deadline``."""
        return Clock(time.perf_counter() + min(self.cap, deadline * self.share).total_seconds())


@dataclasses.dataclass
class Clock:
    """The wall-time guard of one decision."""

    stop: float

    def expired(self) -> bool:
        """Returns whether the decision's guard time has passed."""
        return time.perf_counter() >= self.stop


def deal_by_seat(sizes: Sequence[int], seat: int, own: tuple, pool: list) -> tuple[tuple, ...]:
    """Returns a hand per seat: ``own`` for ``seat``, for every other seat ``s`` the next ``sizes[s]``
    items of the (shuffled) ``pool``, which loses them."""
    hands = []
    for other, size in enumerate(sizes):
        if other == seat:
            hands.append(own)
        else:
            hands.append(tuple(pool[:size]))
            del pool[:size]
    return tuple(hands)
