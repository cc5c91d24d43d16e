"""Built-in bots: each game's package holds its own (``arena/games/<game>/bots``, a ``BOTS`` dict);
this package finds them, runs one as its own process through the SDK like any other bot
(``python -m arena.bots GAME NAME``), and holds what bots of every game share (``common``,
``search``, ``ladder``)."""

from __future__ import annotations

import importlib

from arena.games import package_of
from arena.sdk import Bot


def builtin_bots(game: str) -> dict[str, type[Bot]]:
    """Returns the built-in bots of ``game`` by name: the ``BOTS`` of its package's ``bots`` module
    (empty when the game has none)."""
    try:
        module = importlib.import_module(f"{package_of(game)}.bots")
    except ModuleNotFoundError as exc:
        if exc.name != f"{package_of(game)}.bots":
            raise
        return {}
    return dict(module.BOTS)
