"""One conformance suite for every registered game (OpenSpiel's games_sim_test, PettingZoo's seed test).

The checks are the shipped harness's (``arena.testing.check_game``, whose module docstring lists them):
seeded random playouts at every player count, checking at each step: the acting seats have legal
actions, sorted and distinct; observations, actions and events round-trip through the wire and JSON;
observations, events and the public view never contain what a seat may not see; ``apply`` agrees with
the driver and refuses what it must; the same seed gives the same game; the game ends within its
declared bound. Here they run over the registry, with each game's own rules invariants
(``check_step`` and ``check_end`` of its rules-test module), and are shown able to fail.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

import pytest

from arena.games import GAMES, get_game
from arena.games.base import evolve
from arena.testing import check_game, check_state_secrecy, random_playout

GAME_NAMES = sorted(GAMES)
PLAYOUTS_PER_GAME = 240  # seeded random games per game, spread evenly over its player counts
FULLY_CHECKED = 4  # of them per player count: every view round-tripped and searched for secrets


def rules_tests(name: str) -> Any:
    """Returns the game's rules-test module, which holds its invariants: ``check_step(before, state)``
    at every step (``before`` is None at the start) and ``check_end(state)`` once the game is over."""
    return importlib.import_module(f"tests.test_{name.replace('-', '_')}")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_random_playouts_keep_the_engine_contract(name: str) -> None:
    """The budget: PLAYOUTS_PER_GAME seeded random games, spread over the player counts, each step
    checked against the engine contract and the game's own invariants; the first FULLY_CHECKED of each
    player count also round-trip every view through the wire, are searched for hidden cards, go
    through ``apply`` and are played twice."""
    game, rules = get_game(name), rules_tests(name)
    assert callable(rules.check_step) and callable(rules.check_end)
    counts = range(game.spec.min_players, game.spec.max_players + 1)
    seeds = range(PLAYOUTS_PER_GAME // len(counts))
    checked = check_game(game, seeds=seeds, players=counts, fully_checked=FULLY_CHECKED, invariants=rules)
    assert checked.playouts == len(seeds) * len(counts)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_hand_in_the_public_view_is_caught(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The secrecy check is not vacuous: a public view that carried a seat's observation leaks."""
    game = get_game(name)
    if game.spec.perfect_information:
        pytest.skip("nothing is hidden")
    monkeypatch.setattr(type(game), "public_view", lambda self, state: self.observe(state, 0))
    with pytest.raises(AssertionError, match="public view"):
        for state, _ in random_playout(game, game.spec.max_players, 1):
            check_state_secrecy(game, state)


def test_a_hidden_card_shown_by_its_id_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The secrecy check resolves card ids: a seat's view that names another seat's ninja options by
    id (Ninja Burger's players show ninjas by id) leaks, though no card object appears in it."""
    game = get_game("ninja-burger")
    state = game.initial_state(3, 1)
    honest = type(game).observe

    def naming_a_neighbours_option(self, state, seat):
        obs = honest(self, state, seat)
        secret = state.ninja_options[(seat + 1) % state.num_players][0].id
        players = (dataclasses.replace(obs.players[0], ninja=secret), *obs.players[1:])
        return dataclasses.replace(obs, players=players)

    check_state_secrecy(game, state)
    monkeypatch.setattr(type(game), "observe", naming_a_neighbours_option)
    with pytest.raises(AssertionError, match="can see hidden"):
        check_state_secrecy(game, state)


def test_legal_actions_out_of_order_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The order check is not vacuous: a game listing its actions reversed fails it."""
    game = get_game("ninjan")
    listed = type(game).legal_actions
    monkeypatch.setattr(
        type(game), "legal_actions", lambda self, state, seat: listed(self, state, seat)[::-1]
    )
    with pytest.raises(AssertionError, match="not in order"):
        test_random_playouts_keep_the_engine_contract("ninjan")


def test_evolve_changes_fields_and_refuses_unknown_names() -> None:
    """States are copied with ``evolve``: the named fields change, the original stays, and a misspelt
    field name is an error rather than a silently ignored attribute."""
    state = get_game("ninjan").initial_state(3, 1)
    later = evolve(state, round=state.round + 1)
    assert later.round == state.round + 1 and later.hands == state.hands and later != state
    with pytest.raises(TypeError, match="has no field rounds"):
        evolve(state, rounds=2)
