"""A Ninjan bot one step up from random: takes the richest pile it can and plays its weakest card
when it cannot take anything. Shows how to read the typed observation.

    arena match ninjan bots/python/take_richest.py random --games 20
"""

from arena.games.ninjan.engine import PlacePile, PlayCard, TakePile, beaten_piles
from arena.sdk import Bot


def value(cards):
    return sum(card.value for card in cards)


class TakeRichest(Bot):
    name = "take-richest"

    def choose(self, observation, legal_actions, deadline):
        piles = [pile.cards for pile in observation.piles]
        first = legal_actions[0]
        if isinstance(first, TakePile):
            return max(legal_actions, key=lambda a: value(piles[a.pile]))
        if isinstance(first, PlacePile):
            return min(legal_actions, key=lambda a: value(piles[a.pile]))
        assert isinstance(first, PlayCard)

        def gain(action):
            beaten = beaten_piles(action.card, tuple(piles))
            return max((value(piles[i]) for i in beaten), default=-1), -action.card.value

        return max(legal_actions, key=gain)


if __name__ == "__main__":
    TakeRichest().run()
