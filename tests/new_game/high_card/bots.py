"""Built-in High Card bots: ``random``, ``stay`` (never swaps) and ``best`` (swaps a card of 3 or
less: the deck's average card is 3.5)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from arena.bots.common import RandomBot
from arena.games.high_card.engine import Action, Observation, Stay, Swap
from arena.sdk import Bot

SWAP_AT_MOST = 3  # ``best`` swaps a card of this value or less


class StayBot(Bot):
    """Always keeps its card."""

    name = "stay"
    revision = 1  # of its moves: a new revision is a new version (docs/new-game.md)

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], deadline: timedelta
    ) -> Action:
        """Returns Stay()."""
        return next(action for action in legal_actions if isinstance(action, Stay))


class BestBot(Bot):
    """Swaps a low card (at most ``SWAP_AT_MOST``), keeps a high one."""

    name = "best"
    revision = 1  # of its moves: a new revision is a new version (docs/new-game.md)

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], deadline: timedelta
    ) -> Action:
        """Returns Swap() for a card of 3 or less, else Stay()."""
        kind = Swap if observation.card.value <= SWAP_AT_MOST else Stay
        return next(action for action in legal_actions if isinstance(action, kind))


BOTS: dict[str, type[Bot]] = {"random": RandomBot, "stay": StayBot, "best": BestBot}
