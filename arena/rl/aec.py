"""A PettingZoo AEC environment over any arena game, driven through the Game API alone.

Agents are ``player_0`` .. ``player_{n-1}``, one per seat. A simultaneous decision (Ninjan's commit,
Ninja Master's tick) is asked seat by seat in AEC order, and the step is applied once every seat of
it has chosen; until then each seat's observation is the game's own ``observe``, which holds no
other seat's pending choice. Steps the game resolves by itself (``to_move`` empty) are applied at
once. Rewards come only at the end, from the finishing ranks (``reward_from_ranks``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import AECEnv  # type: ignore[import-untyped]  # pettingzoo ships no py.typed

from arena.games.rng import derive_seed
from arena.rl.encoding import Encoding
from arena.seeds import fresh_seed

OBSERVATION_BOUND = 1e6  # loose bounds of every column: counts, scores, coordinates are far smaller


def reward_from_ranks(ranks: Sequence[int]) -> list[float]:
    """Returns each seat's reward: (seats ranked below it - seats ranked above it) / (n - 1). The
    winner alone gets +1, the last alone -1, shared ranks share; the rewards sum to 0."""
    n = len(ranks)
    return [sum((other > mine) - (other < mine) for other in ranks) / (n - 1) for mine in ranks]


class ArenaEnv(AECEnv):
    """One game at one table size. ``seed`` starts the env's seed stream (``arena.games.rng``): game
    ``k`` after ``reset(seed=s)`` is seeded ``derive_seed(s, "rl", k)``; without a seed, a fresh one."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "arena",
        "is_parallelizable": False,
    }

    def __init__(
        self, encoding: Encoding, players: int, seed: int | None = None, render_mode: str | None = None
    ) -> None:
        super().__init__()
        spec = encoding.game.spec
        if not spec.min_players <= players <= spec.max_players:
            raise ValueError(f"{spec.name} is played by {spec.min_players} to {spec.max_players} players")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}"
            )
        self.encoding = encoding
        self.game = encoding.game
        self.players = players
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        width, size = encoding.layout.width, len(encoding.actions)
        space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(
                    -OBSERVATION_BOUND, OBSERVATION_BOUND, (width,), np.float32
                ),
                "action_mask": gymnasium.spaces.Box(0, 1, (size,), np.int8),
            }
        )
        self.observation_spaces = {agent: space for agent in self.possible_agents}
        self.action_spaces = {agent: gymnasium.spaces.Discrete(size) for agent in self.possible_agents}
        self._seed_base = fresh_seed() if seed is None else seed
        self._games_started = 0
        self.state: Any = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Starts the next game of the seed stream (a new stream from ``seed`` when given)."""
        if seed is not None:
            self._seed_base, self._games_started = seed, 0
        game_seed = derive_seed(self._seed_base, "rl", self._games_started)
        self._games_started += 1
        self.state = self.game.initial_state(self.players, game_seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._chosen: dict[int, Any] = {}
        self._advance()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Returns the agent's encoded observation and its action mask (all zeros when not to act)."""
        seat = self.possible_agents.index(agent)
        observation = self.game.observe(self.state, seat)
        mask = np.zeros(len(self.encoding.actions), np.int8)
        if seat in self._waiting():
            mask[list(self._legal(seat, observation))] = 1
        encoded = np.asarray(self.encoding.encode(observation), np.float32)
        return {"observation": encoded, "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Takes the selected agent's action (its index in the enumeration; None once it is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.possible_agents.index(agent)
        legal = self._legal(seat, self.game.observe(self.state, seat))
        if action is None or int(action) not in legal:
            raise ValueError(f"{agent}: action {action} is not legal now (see the action mask)")
        self._chosen[seat] = legal[int(action)]
        self._cumulative_rewards[agent] = 0.0
        if not self._waiting():
            self.state = self.game.apply_legal(self.state, self._chosen)
            self._chosen = {}
        self._advance()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """Returns (``ansi``) or prints (``human``) the game's own text of the table."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode: env(..., render_mode='ansi')")
            return None
        text = self.game.render(self.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the game is a value in this process."""

    def _legal(self, seat: int, observation: Any) -> dict[int, Any]:
        return self.encoding.indices(observation, self.game.legal_actions(self.state, seat))

    def _waiting(self) -> list[int]:
        """Returns the seats of the current decision that have not chosen yet."""
        return [seat for seat in self.game.to_move(self.state) if seat not in self._chosen]

    def _advance(self) -> None:
        """Resolves steps nobody decides, ends the game when it is over, and selects the next agent."""
        while not self.game.is_terminal(self.state) and not self.game.to_move(self.state):
            self.state = self.game.apply_legal(self.state, {})
        if self.game.is_terminal(self.state):
            self._finish()
            return
        self.agent_selection = self.possible_agents[self._waiting()[0]]

    def _finish(self) -> None:
        """Hands out the rank rewards and marks every agent terminated (each then steps None once)."""
        if not any(self.terminations.values()):
            rewards = reward_from_ranks(self.game.ranks(self.state))
            for agent, reward in zip(self.possible_agents, rewards, strict=True):
                self.rewards[agent] = reward
                self.terminations[agent] = True
            self._accumulate_rewards()
        self.agent_selection = self.agents[0] if self.agents else self.agent_selection
