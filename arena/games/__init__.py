"""The game registry: every playable game by name.

A game is one package under ``arena/games/`` (its engine, built-in bots, viewer and data: see
docs/new-game.md) and one line in ``PACKAGES`` below; every list of games (the CLI, the web pages,
the tests) is derived from ``GAMES`` and each game's ``GameSpec``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from arena.games.base import (
    Game,
    GameError,
    GameSpec,
    IllegalActionError,
    InvalidPlayersError,
    Termination,
)

# The games, one package each under arena/games/, in the order `arena games` lists them.
PACKAGES: tuple[str, ...] = (
    "ninjan",
    "ninja_burger",
    "pnrz",
    "ninja_master",
)


def _load(package: str) -> Game[Any, Any]:
    """Returns the ``GAME`` of ``arena.games.<package>`` (its engine only: no bot is imported)."""
    game: Game[Any, Any] = importlib.import_module(f"{__name__}.{package}").GAME
    return game


GAMES: dict[str, Game[Any, Any]] = {game.spec.name: game for game in map(_load, PACKAGES)}
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


def package_of(name: str) -> str:
    """Returns the import name of the package holding game ``name`` (e.g. ``arena.games.ninjan``):
    its bots are ``<package>.bots``."""
    return type(get_game(name)).__module__.rsplit(".", 1)[0]


def folder_of(name: str) -> Path:
    """Returns the folder of game ``name``: its viewer, stored ladder and replay dictionaries."""
    return Path(importlib.import_module(package_of(name)).__file__ or "").resolve().parent


__all__ = [
    "GAMES",
    "PACKAGES",
    "Game",
    "GameError",
    "GameSpec",
    "IllegalActionError",
    "InvalidPlayersError",
    "Termination",
    "UnknownGameError",
    "folder_of",
    "get_game",
    "package_of",
]
