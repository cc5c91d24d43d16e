"""Ninjan: one folder holds the whole game (docs/new-game.md lists what goes where).

engine.py   the rules (imports only ``arena.games``)
bots.py     the built-in bots: ``BOTS``, name -> ``arena.sdk.Bot`` class
viewer.js   the replay viewer's drawing of a table (served as ``/static/viewers/<game>.js``)
ladder.json the stored round robin of the built-in bots (``bench/builtin_ladder.py`` writes it)
replays-003.zdict  the zstd dictionary of its stored replays (tag 3: ``arena.storage.dictionaries``)

Importing the package gives the engine only: the bots, the viewer and the data files beside it are
never imported by the engine (tests/test_layout.py holds it), so the referee never loads a bot.
"""

from arena.games.ninjan.engine import GAME

__all__ = ["GAME"]
