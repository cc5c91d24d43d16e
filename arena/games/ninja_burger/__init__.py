"""Ninja Burger: one folder holds the whole game (docs/new-game.md lists what goes where).

engine.py   the Game interface; cards.py the decks, constants and dice (read from ninjas.json,
            missions.json, fortune.json); table.py the state, the events and the rules that move it
bots/       the built-in bots: ``BOTS`` in bots/__init__.py; ninja.py, search.py, standing.py
            (with standing.json, written by ``bench/ninja_burger_standing.py``)
viewer.js   the replay viewer's drawing of a table (served as ``/static/viewers/<game>.js``)
ladder.json the stored round robin of the built-in bots (``bench/builtin_ladder.py`` writes it)
replays-001.zdict  the zstd dictionary of its stored replays (tag 1: ``arena.storage.dictionaries``)

Importing the package gives the engine only: the bots, the viewer and the data files beside it are
never imported by the engine (tests/test_layout.py holds it), so the referee never loads a bot.
"""

from arena.games.ninja_burger.engine import GAME

__all__ = ["GAME"]
