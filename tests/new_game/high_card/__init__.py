"""High Card: the whole game in one folder, the smallest example of what docs list for a new game.

engine.py   the rules (imports only ``arena.games.base`` and ``arena.games.rng``)
bots.py     the built-in bots: ``BOTS``, name -> ``arena.sdk.Bot`` class

It has no viewer.js: the replay pages fall back to their plain viewer. Importing the package gives the
engine only; the bots are never imported by it.
"""

from arena.games.high_card.engine import GAME

__all__ = ["GAME"]
