"""Pirates, Ninjas, Robots & Zombies: one folder holds the whole game (docs/new-game.md: what goes
where).

engine.py   the rules; board.py the tiles (read from tiles.txt) and board geometry;
            scoring.py the sections, scores and frontier kept on the state
bots/       the built-in bots: ``BOTS`` in bots/__init__.py; builder.py, search.py
viewer.js   the replay viewer's drawing of a table (served as ``/static/viewers/<game>.js``)
ladder.json the stored round robin of the built-in bots (``bench/builtin_ladder.py`` writes it)
replays-004.zdict  the zstd dictionary of its stored replays (tag 4: ``arena.storage.dictionaries``)

Importing the package gives the engine only: the bots, the viewer and the data files beside it are
never imported by the engine (tests/test_layout.py holds it), so the referee never loads a bot.
"""

from arena.games.pnrz.engine import GAME

__all__ = ["GAME"]
