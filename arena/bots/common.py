"""Bots that play any game."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from arena.sdk import Bot, MatchInfo


class RandomBot(Bot):
    """Picks a uniformly random legal action, seeded by the match id and seat (so runs repeat)."""

    name = "random"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def on_match_start(self, match: MatchInfo) -> None:
        self.rng = random.Random(f"{match.match_id}/{match.seat}")

    def choose(self, observation: Any, legal_actions: Sequence[Any], deadline: timedelta) -> int:
        return self.rng.randrange(len(legal_actions))
