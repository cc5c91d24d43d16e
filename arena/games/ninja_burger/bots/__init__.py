"""Built-in Ninja Burger bots, weakest first: ``random``, ``ninja`` (reasons with the dice's exact
odds, ``ninja.py``) and ``search`` (also ``best``: the ninja's choices weighed by sampled missions,
``search.py``, with the standing table of ``standing.py``)."""

from __future__ import annotations

from arena.bots.common import RandomBot
from arena.games.ninja_burger.bots.ninja import NinjaBot
from arena.games.ninja_burger.bots.search import SearchBot
from arena.sdk import Bot

__all__ = ["BOTS", "NinjaBot", "SearchBot"]

BOTS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "ninja": NinjaBot,
    "search": SearchBot,
    "best": SearchBot,  # the strongest built-in bot of the game, whatever its name
}
