"""PettingZoo AEC environments of the four games, for training bots in process: ``pip install arena[rl]``.

    import arena.rl
    env = arena.rl.env("ninjan", players=3, seed=7)

The encodings (a flat vector of each seat's own observation, a fixed enumeration of the game's actions
with a mask of the legal ones) are documented in docs/rl.md. This package is the only part of arena
that needs numpy, gymnasium and pettingzoo; nothing else imports it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from arena.games import get_game

if TYPE_CHECKING:
    from arena.rl.aec import ArenaEnv
    from arena.rl.encoding import Encoding

MISSING_EXTRA = "arena.rl needs numpy, gymnasium and pettingzoo: pip install arena[rl]"

# game name -> the module under arena/rl/ holding its ENCODING
MODULES = {"ninjan": "ninjan", "ninja-burger": "ninja_burger", "pnrz": "pnrz", "ninja-master": "ninja_master"}


def _require_extra() -> None:
    """Raises ImportError with one line saying what to install when the rl extra is missing."""
    for name in ("numpy", "gymnasium", "pettingzoo"):
        try:
            importlib.import_module(name)
        except ImportError:
            raise ImportError(MISSING_EXTRA) from None


_require_extra()


def encoding_of(game: str) -> Encoding:
    """Returns the encoding of ``game`` (a name or alias of arena's game registry)."""
    name = get_game(game).spec.name
    module = importlib.import_module(f"{__name__}.{MODULES[name]}")
    found: Encoding = module.ENCODING
    return found


def env(game: str, players: int, seed: int | None = None, render_mode: str | None = None) -> ArenaEnv:
    """Returns a PettingZoo AEC environment of ``game`` at a table of ``players`` seats."""
    from arena.rl.aec import ArenaEnv

    return ArenaEnv(encoding_of(game), players, seed=seed, render_mode=render_mode)


__all__ = ["MISSING_EXTRA", "encoding_of", "env"]
