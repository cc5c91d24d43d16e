"""Built-in bots, per game. A built-in bot is run like any other: as its own process, through the SDK
(``python -m arena.bots GAME NAME``)."""

from __future__ import annotations

import importlib

from arena.games import get_game
from arena.sdk import Bot

# game name -> module under arena.bots holding BOTS: dict[str, type[Bot]]
_MODULES = {
    "ninjan": "arena.bots.ninjan",
    "ninja-burger": "arena.bots.ninja_burger_search",  # its registry names the search bot too
    "ninja-master": "arena.bots.ninja_master",
    "pnrz": "arena.bots.pnrz",
}


def builtin_bots(game: str) -> dict[str, type[Bot]]:
    """Returns the built-in bots of ``game`` by name (empty when it has none)."""
    module = _MODULES.get(get_game(game).spec.name)
    return dict(importlib.import_module(module).BOTS) if module else {}
