"""Built-in Pirates, Ninjas, Robots & Zombies bots, weakest first: ``random``, ``builder`` (greedy,
``pnrz_builder``) and ``search`` (also ``best``: lookahead over sampled hands, ``pnrz_search``)."""

from __future__ import annotations

from arena.bots.common import RandomBot
from arena.games.pnrz.bots.builder import BuilderBot
from arena.games.pnrz.bots.search import SearchBot
from arena.sdk import Bot

__all__ = ["BOTS", "BuilderBot", "SearchBot"]

BOTS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "builder": BuilderBot,
    "search": SearchBot,
    "best": SearchBot,  # the strongest built-in bot of the game, whatever its name
}
