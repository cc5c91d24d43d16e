"""Built-in Ninjan bots: ``random`` and ``greedy``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from arena.bots.common import RandomBot
from arena.games.ninjan import Action, Card, Observation, PlacePile, PlayCard, TakePile, beaten_piles
from arena.sdk import Bot


def pile_value(cards: Sequence[Card]) -> int:
    """Returns the points a pile is worth to whoever takes it."""
    return sum(card.value for card in cards)


class GreedyBot(Bot):
    """Takes the richest pile it can, commits the card with the best immediate trade-off, and never
    leaves a rich pile behind when it has to place a card.

    Committing card c is scored as: the value of the best pile c beats now, discounted by how likely
    that pile is still there when c resolves (high cards resolve first), minus the part of c's own
    value that it hands to the table (a played card is never collected by its owner directly).
    """

    name = "greedy"
    GIVEAWAY = 0.5  # share of a played card's value that an opponent is expected to collect later

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], deadline: timedelta
    ) -> Action:
        piles = tuple(pile.cards for pile in observation.piles)
        first = legal_actions[0]
        if isinstance(first, TakePile):
            return max(legal_actions, key=lambda a: (pile_value(piles[a.pile]), -a.pile))
        if isinstance(first, PlacePile):
            card = observation.revealed[observation.resolving or 0].card
            return min(legal_actions, key=lambda a: (pile_value(piles[a.pile]) + card.value, a.pile))
        return max(legal_actions, key=lambda a: self.commit_score(a, piles, observation))

    def commit_score(self, action: PlayCard, piles: tuple[tuple[Card, ...], ...], obs: Observation) -> float:
        """Returns the expected net points of committing ``action.card`` this round."""
        card = action.card
        beaten = beaten_piles(card, piles)
        gain = max((pile_value(piles[i]) for i in beaten), default=0)
        # A card resolves before most others when its value is high: the chance that the pile it
        # aims at is still the same when its turn comes grows with its value (-6 .. 10).
        survive = 0.35 + 0.65 * (card.value + 6) / 16 if gain > 0 else 1.0
        return gain * survive - self.GIVEAWAY * card.value


BOTS: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot}
