"""The game registry: every playable game by name. Adding a game is one module plus one line here."""

from __future__ import annotations

from typing import Any

from arena.games.base import (
    Game,
    GameError,
    GameSpec,
    IllegalActionError,
    InvalidPlayersError,
    Termination,
)
from arena.games.ninja_burger import GAME as NINJA_BURGER
from arena.games.ninja_master import GAME as NINJA_MASTER
from arena.games.ninjan import GAME as NINJAN
from arena.games.pnrz import GAME as PNRZ

GAMES: dict[str, Game[Any, Any]] = {
    game.spec.name: game for game in (NINJAN, NINJA_BURGER, PNRZ, NINJA_MASTER)
}
ALIASES: dict[str, str] = {alias: g.spec.name for g in GAMES.values() for alias in g.spec.aliases}


class UnknownGameError(GameError):
    """No game has that name."""


def get_game(name: str) -> Game[Any, Any]:
    """Returns the game called ``name`` (or one of its aliases); raises UnknownGameError."""
    key = ALIASES.get(name, name)
    if key not in GAMES:
        valid = ", ".join(sorted(GAMES))
        raise UnknownGameError(f"unknown game {name!r}; valid games: {valid}")
    return GAMES[key]


__all__ = [
    "GAMES",
    "Game",
    "GameError",
    "GameSpec",
    "IllegalActionError",
    "InvalidPlayersError",
    "Termination",
    "UnknownGameError",
    "get_game",
]
