"""Built-in Ninja Master bots: ``random`` and ``master``."""

from __future__ import annotations

from arena.bots.common import RandomBot
from arena.sdk import Bot

BOTS: dict[str, type[Bot]] = {"random": RandomBot}
