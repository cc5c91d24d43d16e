"""The Python bot SDK. See bots/README.md for the protocol and bots/python/ for examples."""

from arena.results import PlayerResult
from arena.sdk.bot import Bot
from arena.sdk.legal import LegalActions
from arena.sdk.match import MatchInfo, MatchResult

__all__ = ["Bot", "LegalActions", "MatchInfo", "MatchResult", "PlayerResult"]
