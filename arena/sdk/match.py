"""What a bot is told about a match: its start (``MatchInfo``), its deadline, its end (``MatchResult``).

Kept apart from ``arena.sdk.bot`` so that the client that fills them in (``arena.sdk.client``) and
the bot class that ``run()``s the client do not import each other.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from arena.results import PlayerResult

# The deadline a bot is given when the referee sets none (deadline_ms 0: a bot attached by hand with
# ``arena match ... @wait --deadline-ms 0``, stepped through in a debugger): as long as it takes.
NO_DEADLINE = timedelta.max


def deadline_from_ms(milliseconds: int) -> timedelta:
    """Returns the deadline of a wire ``deadline_ms``: 0 means none (``NO_DEADLINE``)."""
    return timedelta(milliseconds=milliseconds) if milliseconds else NO_DEADLINE


@dataclasses.dataclass(frozen=True)
class MatchInfo:
    """What a bot is told when a match starts."""

    match_id: str  # in a rated match a random label, not the recorded id
    game: str
    seat: int
    num_players: int
    players: tuple[str, ...]  # bot names by seat; in a rated match seat labels ("seat 0", "seat 1", ...)
    deadline: timedelta
    max_strikes: int


@dataclasses.dataclass(frozen=True)
class MatchResult:
    match_id: str
    players: tuple[PlayerResult, ...]
    termination: str  # a Termination value ("normal", "round_cap", "turn_cap")


__all__ = ["NO_DEADLINE", "MatchInfo", "MatchResult", "PlayerResult", "deadline_from_ms"]
