"""Built-in Pirates, Ninjas, Robots & Zombies bots, weakest first: ``random`` and ``builder`` (greedy,
``pnrz_builder``)."""

from __future__ import annotations

from arena.bots.common import RandomBot
from arena.bots.pnrz_builder import BuilderBot
from arena.sdk import Bot

__all__ = ["BOTS", "BuilderBot"]

BOTS: dict[str, type[Bot]] = {"random": RandomBot, "builder": BuilderBot}
