"""arena.rl: the PettingZoo AEC environments of the four games (docs/rl.md).

PettingZoo's own ``api_test`` and ``seed_test`` run for every game and table size; the secrecy tests
show that what a seat may not see (another hand, the deck order, a simultaneous choice already made)
never changes that seat's encoded observation or action mask; the install tests show that the base
install never imports the rl extra and that arena.rl names it in one line when it is missing.
"""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import arena.rl
from arena.games import GAMES, get_game
from arena.rl.aec import reward_from_ranks

TABLES = [(g.spec.name, n) for g in GAMES.values() for n in range(g.spec.min_players, g.spec.max_players + 1)]


@pytest.mark.parametrize(("game", "players"), TABLES)
def test_pettingzoo_api_test_and_seed_test_pass(game: str, players: int) -> None:
    api_test(arena.rl.env(game, players, seed=11), num_cycles=1000)
    seed_test(lambda: arena.rl.env(game, players), num_cycles=300)


@pytest.mark.parametrize(("game", "players"), TABLES)
def test_a_random_game_plays_to_the_end_with_rank_rewards(game: str, players: int) -> None:
    env = arena.rl.env(game, players, seed=5, render_mode="ansi")
    env.reset()
    picker = random.Random(players)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        assert observation["observation"].shape == env.observation_space(agent)["observation"].shape
        env.step(picker.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    expected = reward_from_ranks(env.game.ranks(env.state))
    assert [totals[a] for a in env.possible_agents] == expected
    assert isinstance(env.render(), str)


def test_rank_rewards_share_ties_and_sum_to_zero() -> None:
    assert reward_from_ranks([1, 2]) == [1.0, -1.0]
    assert reward_from_ranks([1, 1, 3]) == [0.5, 0.5, -1.0]
    assert reward_from_ranks([2, 1, 3, 4]) == [1 / 3, 1.0, -1 / 3, -1.0]


def test_an_illegal_index_is_refused_in_one_line() -> None:
    env = arena.rl.env("ninjan", 2, seed=1)
    env.reset()
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not legal now"):
        env.step(illegal)


def _played(game_name: str, players: int, seed: int, steps: int) -> Any:
    """Returns the state after ``steps`` seeded random decisions (a table in mid-game)."""
    game = get_game(game_name)
    state = game.initial_state(players, seed)
    picker = random.Random(seed)
    for _ in range(steps):
        if game.is_terminal(state):
            break
        state = game.apply_legal(
            state, {s: picker.choice(game.legal_actions(state, s)) for s in game.to_move(state)}
        )
    return state


def _swap_hidden(game_name: str, state: Any) -> Any:
    """Returns ``state`` with seat 1's hidden cards exchanged with undrawn ones and the deck reordered:
    everything seat 0 may see is unchanged."""
    if game_name == "ninjan":
        hand, aside = state.hands[1], state.set_aside
        hands = (state.hands[0], aside[: len(hand)], *state.hands[2:])
        return dataclasses.replace(state, hands=hands, set_aside=(*hand, *aside[len(hand) :]))
    if game_name == "pnrz":
        hand, pile = state.hands[1], state.pile
        hands = (state.hands[0], pile[: len(hand)], *state.hands[2:])
        rest = (*hand, *pile[len(hand) :])
        return dataclasses.replace(state, hands=hands, pile=tuple(reversed(rest)))
    assert game_name == "ninja-burger"
    hand, deck = state.hands[1], state.fortune_deck
    hands = (state.hands[0], deck[: len(hand)], *state.hands[2:])
    return dataclasses.replace(
        state,
        hands=hands,
        fortune_deck=tuple(reversed((*hand, *deck[len(hand) :]))),
        mission_deck=tuple(reversed(state.mission_deck)),
    )


def _seen_by(game_name: str, state: Any, seat: int) -> tuple[list[float], list[int]]:
    """Returns the seat's encoded observation and the indices its action mask marks."""
    game, encoding = get_game(game_name), arena.rl.encoding_of(game_name)
    observation = game.observe(state, seat)
    mask = encoding.indices(observation, game.legal_actions(state, seat))
    return encoding.encode(observation), sorted(mask)


@pytest.mark.parametrize(("game", "steps"), [("ninjan", 3), ("pnrz", 12), ("ninja-burger", 20)])
def test_hidden_cards_of_another_seat_never_change_a_seats_encoding(game: str, steps: int) -> None:
    state = _played(game, 3, seed=4, steps=steps)
    other = _swap_hidden(game, state)
    assert _seen_by(game, state, 0) == _seen_by(game, other, 0)
    assert _seen_by(game, state, 1) != _seen_by(game, other, 1)  # the swap is there to be seen by its owner


@pytest.mark.parametrize("game", ["ninjan", "ninja-master"])
def test_a_simultaneous_choice_already_made_is_not_seen_by_the_seats_still_choosing(game: str) -> None:
    env = arena.rl.env(game, 3, seed=2)
    env.reset()
    while len(env.game.to_move(env.state)) < 3:  # Ninja Master rolls first
        agent = env.agent_selection
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    before = env.observe("player_1")
    first = np.flatnonzero(env.observe("player_0")["action_mask"])
    assert env.agent_selection == "player_0"
    env.step(int(first[-1]))
    after = env.observe("player_1")
    assert env.agent_selection == "player_1"
    assert np.array_equal(before["observation"], after["observation"])
    assert np.array_equal(before["action_mask"], after["action_mask"])


def test_the_base_install_never_imports_the_rl_extra() -> None:
    code = (
        "import sys, arena, arena.games, arena.cli.main, arena.referee, arena.sdk\n"
        "for name in ('ninjan', 'ninja_burger', 'pnrz', 'ninja_master'):\n"
        "    __import__(f'arena.games.{name}.engine'); __import__(f'arena.games.{name}.bots')\n"
        "print(sorted(m for m in ('numpy', 'gymnasium', 'pettingzoo') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_arena_rl_without_the_extra_says_what_to_install_in_one_line() -> None:
    code = "import sys\nsys.modules['pettingzoo'] = None\nimport arena.rl\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode != 0
    last = out.stderr.strip().splitlines()[-1]
    assert last == "ImportError: arena.rl needs numpy, gymnasium and pettingzoo: pip install arena[rl]"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_docs_rl_states_each_games_widths(game: str) -> None:
    encoding = arena.rl.encoding_of(game)
    docs = (Path(__file__).parent.parent / "docs" / "rl.md").read_text()
    assert f"Observation: {encoding.layout.width} columns." in docs
    assert f"Actions: {len(encoding.actions)} indices." in docs
