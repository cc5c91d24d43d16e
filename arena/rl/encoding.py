"""What a game declares to become an environment: its tuple capacities and its action enumeration.

Each game's module under arena/rl/ builds one ``Encoding``; ``arena.rl.env`` turns it into a
PettingZoo AEC environment. The encoding sees only a seat's observation and its legal actions (what
the referee sends a bot), so it cannot carry what the seat may not see.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.games import Game, get_game
from arena.rl.flat import Layout, compile_layout


def _same(value: Any, _observation: Any = None) -> Any:
    return value


@dataclasses.dataclass(frozen=True)
class Encoding:
    """One game's encoding. ``actions`` is every action the game can ever offer, in a fixed order (an
    action's index is its place); ``frame`` rewrites an observation into the coordinates the encoding
    uses and ``canonical`` an action into them (both the identity for all but PNRZ, whose unbounded
    board is seen from its own corner)."""

    game_name: str
    capacities: Mapping[str, int]
    actions: Sequence[Any]
    frame: Callable[[Any], Any] = _same
    canonical: Callable[[Any, Any], Any] = _same

    @property
    def game(self) -> Game[Any, Any]:
        return get_game(self.game_name)

    @functools.cached_property
    def layout(self) -> Layout:
        return compile_layout(self.game.observation_type, self.capacities)

    @functools.cached_property
    def index(self) -> dict[Any, int]:
        """Each enumerated action's index."""
        return {action: i for i, action in enumerate(self.actions)}

    def encode(self, observation: Any) -> list[float]:
        """Returns the flat columns of a seat's observation (``layout.names`` names them)."""
        return self.layout.encode(self.frame(observation))

    def indices(self, observation: Any, legal: Sequence[Any]) -> dict[int, Any]:
        """Returns the legal actions by their index in the enumeration. Raises ValueError naming an
        action outside it (a bug of the enumeration, never of the player)."""
        by_index: dict[int, Any] = {}
        for action in legal:
            canonical = self.canonical(action, observation)
            if canonical not in self.index:
                raise ValueError(f"{self.game_name}: {action!r} is outside the action enumeration")
            by_index[self.index[canonical]] = action
        return by_index


def ordered(game_name: str, actions: Sequence[Any]) -> tuple[Any, ...]:
    """Returns ``actions`` without repeats, in the game's own action order (``Game.action_order``):
    the order ``legal_actions`` lists them in, so a bot's index and an environment's agree in rank."""
    game = get_game(game_name)
    return tuple(sorted(set(actions), key=game.action_order))
