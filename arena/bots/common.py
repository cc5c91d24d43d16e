"""Bots that play any game."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from arena.sdk import Bot, MatchInfo


class RandomBot(Bot):
    """Picks a uniformly random legal action.

    Its generator is seeded by the match id, its seat and its first observation, so the same deal
    gives the same play (runs repeat) while different deals give different play; nothing the bot
    may not see goes into the seed.
    """

    name = "random"
    revision = 1  # of its moves: bump it when they change (tests/test_builtin_versions.py)

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self._fresh = True

    def on_match_start(self, match: MatchInfo) -> None:
        self._key = f"{match.match_id}/{match.seat}"
        self._fresh = True

    def choose(self, observation: Any, legal_actions: Sequence[Any], deadline: timedelta) -> int:
        if self._fresh:
            self.rng = random.Random(f"{getattr(self, '_key', '')}/{observation!r}")
            self._fresh = False
        return self.rng.randrange(len(legal_actions))
