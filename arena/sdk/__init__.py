"""The Python bot SDK. See bots/README.md for the protocol and bots/python/ for examples."""

from arena.results import PlayerResult
from arena.sdk.bot import Bot, MatchInfo, MatchResult
from arena.sdk.legal import LegalActions

__all__ = ["Bot", "LegalActions", "MatchInfo", "MatchResult", "PlayerResult"]
