"""One conformance suite for every registered game (OpenSpiel's games_sim_test, PettingZoo's seed test).

Seeded random playouts at every player count, checking at each step: the acting seats have legal
actions, sorted and distinct; observations, actions and events round-trip through the wire and JSON;
observations and events never contain what the seat may not see; the same seed gives the same game;
the game ends within its declared bound.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from typing import Any

import pytest

from arena import codec
from arena.games import GAMES, get_game
from arena.games.base import CARD_KIND, Game, IllegalActionError, InvalidPlayersError, evolve
from tests.conftest import random_playout, walk

GAME_NAMES = sorted(GAMES)
PLAYOUTS_PER_GAME = 240  # seeded random games per game, spread evenly over its player counts
FULLY_CHECKED = 4  # of them per player count: every view round-tripped and searched for secrets


def check_roundtrips(game: Game, state, actions: dict) -> None:
    for seat in range(_num_players(game, state)):
        obs = game.observe(state, seat)
        assert isinstance(obs, game.observation_type)
        assert codec.observation_from_proto(game, codec.observation_to_proto(game, obs)) == obs
        assert codec.from_json(codec.to_json(obs, game.observation_type), game.observation_type) == obs
    view = game.public_view(state)
    assert isinstance(view, game.public_view_type)
    assert codec.from_json(codec.to_json(view, type(view)), type(view)) == view
    for action in actions.values():
        assert codec.action_from_proto(game, codec.action_to_proto(game, action)) == action
        assert codec.from_json(codec.to_json(action, game.action_type), game.action_type) == action
    for event in game.events(state):
        assert codec.event_from_proto(game, codec.event_to_proto(game, event, 1)) == event


def check_secrecy(game: Game, state) -> None:
    for seat in range(_num_players(game, state)):
        hidden = game.hidden_from(state, seat)
        seen = shown(game, game.observe(state, seat)) | shown(game, game.events(state))
        leaked = hidden & seen
        assert not leaked, f"seat {seat} can see hidden {sorted(map(str, leaked))[:5]}"
    public = shown(game, game.public_view(state))
    for seat in range(_num_players(game, state)):
        leaked = sorted(map(str, game.hidden_from(state, seat) & public))
        assert not leaked, f"the public view shows what seat {seat} may not see: {leaked[:5]}"


def shown(game: Game, view) -> set:
    """Returns every object in ``view``, with the cards it names by id (``card_ids`` fields) resolved
    through the game's catalogue, so that a hidden card shown as a bare id counts as shown."""
    objects = set(walk(view))
    for obj in list(objects):
        for name, kind in _card_fields(type(obj)):
            value = getattr(obj, name)
            ids = value if isinstance(value, tuple) else (value,)
            objects.update(_cards_by_id(game, kind)[i] for i in ids if i is not None)
    return objects


@functools.cache
def _card_fields(cls: type) -> tuple[tuple[str, str], ...]:
    """Returns (field name, catalogue kind) of a view class's ``card_ids`` fields."""
    if not dataclasses.is_dataclass(cls):
        return ()
    return tuple((f.name, f.metadata[CARD_KIND]) for f in dataclasses.fields(cls) if CARD_KIND in f.metadata)


@functools.cache
def _cards_by_id(game: Game, kind: str) -> dict:
    return {card.id: card for card in game.catalogue()[kind]}


def _num_players(game: Game, state) -> int:
    return len(game.scores(state))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_random_playouts_keep_the_engine_contract(name: str) -> None:
    """The budget: PLAYOUTS_PER_GAME seeded random games, spread over the player counts, each step
    checked against the engine contract and the game's own invariants; the first FULLY_CHECKED of each
    player count also round-trip every view through the wire and search it for hidden cards."""
    game, rules = get_game(name), rules_tests(name)
    counts = range(game.spec.min_players, game.spec.max_players + 1)
    for num_players in counts:
        for seed in range(PLAYOUTS_PER_GAME // len(counts)):
            before = None
            for steps, (state, actions) in enumerate(random_playout(game, num_players, seed), 1):
                check_contract(game, state, num_players)
                rules.check_step(before, state)
                if seed < FULLY_CHECKED:
                    check_roundtrips(game, state, actions)
                    check_secrecy(game, state)
                assert steps <= game.spec.max_steps + 1, "game exceeded its declared max_steps"
                before = state
            assert game.is_terminal(state) and game.to_move(state) == ()
            assert len(game.ranks(state)) == len(game.scores(state)) == num_players
            assert min(game.ranks(state)) == 1
            rules.check_end(state)


def check_contract(game: Game, state, num_players: int) -> None:
    """Exactly the seats in ``to_move`` have legal actions: distinct, and in ``action_order``."""
    to_move = game.to_move(state)
    assert list(to_move) == sorted(set(to_move))
    for seat in range(num_players):
        legal = game.legal_actions(state, seat)
        if seat in to_move:
            assert legal, f"seat {seat} must act but has no legal action"
            assert len(set(legal)) == len(legal)
            assert list(legal) == sorted(legal, key=game.action_order), "not in order"
        else:
            assert not legal


def rules_tests(name: str) -> Any:
    """Returns the game's rules-test module, which holds its invariants: ``check_step(before, state)``
    at every step (``before`` is None at the start) and ``check_end(state)`` once the game is over."""
    return importlib.import_module(f"tests.test_{name.replace('-', '_')}")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_public_view_is_what_every_seat_sees_alike(name: str) -> None:
    """A field the public view shares with the observations has the value some seat sees, and no
    field that differs from seat to seat (a seat's own hand, its seat number) is in the public view."""
    game = get_game(name)
    for seed in range(3):
        for state, _ in random_playout(game, game.spec.max_players, seed):
            view = game.public_view(state)
            seen = [game.observe(state, seat) for seat in range(game.spec.max_players)]
            names = {f.name for f in dataclasses.fields(seen[0])}
            shared = {f.name for f in dataclasses.fields(view)} & names
            for field in shared:
                assert getattr(view, field) in [getattr(obs, field) for obs in seen], field
            assert "seat" not in shared and "hand" not in shared


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_hand_in_the_public_view_is_caught(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The secrecy check is not vacuous: a public view that carried a seat's observation leaks."""
    game = get_game(name)
    if game.spec.perfect_information:
        pytest.skip("nothing is hidden")
    monkeypatch.setattr(type(game), "public_view", lambda self, state: self.observe(state, 0))
    with pytest.raises(AssertionError, match="public view"):
        for state, _ in random_playout(game, game.spec.max_players, 1):
            check_secrecy(game, state)


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

    check_secrecy(game, state)
    monkeypatch.setattr(type(game), "observe", naming_a_neighbours_option)
    with pytest.raises(AssertionError, match="can see hidden"):
        check_secrecy(game, state)


def test_legal_actions_out_of_order_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The order check is not vacuous: a game listing its actions reversed fails it."""
    game = get_game("ninjan")
    listed = type(game).legal_actions
    monkeypatch.setattr(
        type(game), "legal_actions", lambda self, state, seat: listed(self, state, seat)[::-1]
    )
    with pytest.raises(AssertionError, match="not in order"):
        test_random_playouts_keep_the_engine_contract("ninjan")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_same_seed_same_game(name: str) -> None:
    game = get_game(name)
    for seed in range(5):
        first = list(random_playout(game, game.spec.max_players, seed))
        second = list(random_playout(game, game.spec.max_players, seed))
        assert first == second
    other = list(random_playout(game, game.spec.max_players, 999))
    assert other != first


@pytest.mark.parametrize("name", GAME_NAMES)
def test_apply_rejects_missing_and_foreign_actions(name: str) -> None:
    game = get_game(name)
    state = game.initial_state(game.spec.min_players, 3)
    while not game.to_move(state):
        state = game.apply(state, {})
    seat = game.to_move(state)[0]
    with pytest.raises(IllegalActionError):
        game.apply(state, {})
    not_moving = [s for s in range(game.spec.min_players) if s not in game.to_move(state)]
    if not_moving:
        with pytest.raises(IllegalActionError):
            game.apply(state, {not_moving[0]: game.legal_actions(state, seat)[0]})


@pytest.mark.parametrize("name", GAME_NAMES)
def test_player_count_is_checked(name: str) -> None:
    game = get_game(name)
    for bad in (game.spec.min_players - 1, game.spec.max_players + 1):
        with pytest.raises(InvalidPlayersError):
            game.initial_state(bad, 1)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_python_enums_match_the_proto(name: str) -> None:
    """Every IntEnum member used on the wire has the proto enum value of the same number and name."""
    import enum

    game = get_game(name)
    state = game.initial_state(game.spec.min_players, 1)
    for obj in walk(game.observe(state, 0)):
        for value in vars(obj).values():
            if isinstance(value, enum.IntEnum):
                proto_enums = [e for f in _all_enum_types(game) for e in f.values if e.number == int(value)]
                assert any(e.name.endswith("_" + value.name) for e in proto_enums), value


def _all_enum_types(game: Game):
    from arena.v1 import arena_pb2

    file = arena_pb2.Observation.DESCRIPTOR.fields_by_name[game.spec.wire_name].message_type.file
    return list(file.enum_types_by_name.values())


def test_evolve_changes_fields_and_refuses_unknown_names() -> None:
    """States are copied with ``evolve``: the named fields change, the original stays, and a misspelt
    field name is an error rather than a silently ignored attribute."""
    state = get_game("ninjan").initial_state(3, 1)
    later = evolve(state, round=state.round + 1)
    assert later.round == state.round + 1 and later.hands == state.hands and later != state
    with pytest.raises(TypeError, match="has no field rounds"):
        evolve(state, rounds=2)
