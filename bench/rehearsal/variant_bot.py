"""A rehearsal bot: a built-in bot of one game made weaker on purpose, as a participant would tune one.

Its folder holds this file as ``bot.py`` and ``variant.json``: ``game``, ``base`` (a built-in bot's
name), ``iterations`` (the search budget per decision, for the built-ins that search; 0 keeps theirs)
and ``random_share`` (the share of decisions answered by a uniformly random legal action); ``fault``
``illegal`` makes it a broken bot that answers every decision with an index past the legal ones. Mixing a
strong bot with random moves in a known share gives the rehearsal an intended order of strength
without a calibration run: more random moves, weaker bot.
"""

from __future__ import annotations

import inspect
import json
import random
from pathlib import Path
from typing import Any

from arena.bots import builtin_bots
from arena.bots.search import Budget
from arena.sdk import Bot


def variant() -> Bot:
    """Returns the built-in bot that ``variant.json`` names, with its budget and random share."""
    return from_spec(json.loads((Path(__file__).parent / "variant.json").read_text()))


def from_spec(spec: dict[str, Any]) -> Bot:
    """Returns the bot a ``variant.json`` describes (the calibration plays these in-process)."""
    base: Any = builtin_bots(spec["game"])[spec["base"]]
    share = float(spec.get("random_share", 0.0))
    illegal = spec.get("fault") == "illegal"
    draw = random.Random(spec.get("seed", 0))

    class Variant(base):
        def choose(self, observation: Any, legal_actions: Any, deadline: Any) -> Any:
            if illegal:
                return len(legal_actions) + 7
            if share and draw.random() < share:
                return draw.choice(list(legal_actions))
            return super().choose(observation, legal_actions, deadline)

    iterations = int(spec.get("iterations", 0))
    if iterations and "budget" in inspect.signature(base.__init__).parameters:
        return Variant(budget=Budget(iterations=iterations))
    return Variant()


if __name__ == "__main__":
    variant().run()
