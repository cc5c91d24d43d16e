"""A submitted Ninjan bot that plays to lose (for the end-to-end test): it commits its lowest card,
takes the poorest pile, and places its card on the richest pile, for someone else to take."""

from arena.games.ninjan.engine import PlacePile, PlayCard, TakePile
from arena.sdk import Bot


def value(cards):
    return sum(card.value for card in cards)


class Weak(Bot):
    name = "weak"

    def choose(self, observation, legal_actions, deadline):
        piles = [pile.cards for pile in observation.piles]
        first = legal_actions[0]
        if isinstance(first, TakePile):
            return min(legal_actions, key=lambda a: value(piles[a.pile]))
        if isinstance(first, PlacePile):
            return max(legal_actions, key=lambda a: value(piles[a.pile]))
        assert isinstance(first, PlayCard)
        return min(legal_actions, key=lambda a: a.card.value)


if __name__ == "__main__":
    Weak().run()
