"""The JSON form of game objects (``arena.codec.to_json``): replays, ``--json`` and the replay page's
frames are written in it, so its compiled converters must give what the mapping in the codec's
docstring says, for every object the engines make. The reference below is that mapping written as a
plain reflective walk (the codec's own implementation until the replay page's re-runs needed it
compiled, issue 38); seeded random playouts of every game at every table size compare the two on every
seat's observation, the public view, every decision and every event."""

from __future__ import annotations

import dataclasses
import enum
import re
import typing
from typing import Any

import pytest

from arena import codec
from arena.games import GAMES
from arena.games.play import play
from arena.testing.playouts import random_policy


def reference(value: Any, py_type: Any) -> Any:
    """The mapping: dataclasses field by field, enums by name, unions tagged by their member's kind."""
    members = [t for t in typing.get_args(py_type) if t is not type(None)]
    if len(members) > 1:
        kind = re.sub(r"(?<!^)(?=[A-Z])", "_", type(value).__name__).lower()
        return {kind: reference(value, type(value))}
    if dataclasses.is_dataclass(value):
        hints = typing.get_type_hints(type(value))
        out: dict[str, Any] = {}
        for field in dataclasses.fields(value):
            item, hint = getattr(value, field.name), hints[field.name]
            parts = [t for t in typing.get_args(hint) if t is not type(None)] or [hint]
            stripped = parts[0] if len(parts) == 1 else hint
            if item is None:
                out[field.name] = None
            elif typing.get_origin(stripped) is tuple:
                out[field.name] = [reference(x, typing.get_args(stripped)[0]) for x in item]
            else:
                out[field.name] = reference(item, stripped)
        return out
    return value.name if isinstance(value, enum.Enum) else value


TABLES = [(name, n) for name, g in GAMES.items() for n in range(g.spec.min_players, g.spec.max_players + 1)]


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_every_view_decision_and_event_of_random_games_has_the_mappings_json(name: str, players: int) -> None:
    game = GAMES[name]
    compared = 0
    for seed in (1, 2):
        state = game.initial_state(players, seed)
        for step in play(game, state, random_policy(seed)):
            state = step.state
            pairs = [(game.public_view(state), type(game.public_view(state)))]
            pairs += [(game.observe(state, seat), game.observation_type) for seat in range(players)]
            pairs += [(d.action, game.action_type) for d in step.decisions]
            pairs += [(e, game.event_type) for e in step.events]
            for value, py_type in pairs:
                assert codec.to_json(value, py_type) == reference(value, py_type), (name, step.number, value)
                compared += 1
    assert compared > 100


class Colour(enum.IntEnum):
    RED = 1


@dataclasses.dataclass(frozen=True)
class Spot:
    x: int
    colour: Colour
    tags: tuple[int, ...]
    note: str | None = None


def test_a_plain_scalar_is_kept_and_an_enum_in_a_scalar_field_is_named() -> None:
    """A field typed ``int`` holding an IntEnum member is written by name, as the reflective walk did."""
    spot = Spot(x=Colour.RED, colour=Colour.RED, tags=(1, Colour.RED), note=None)
    assert codec.to_json(spot, Spot) == {"x": "RED", "colour": "RED", "tags": [1, "RED"], "note": None}
    assert codec.to_json(spot, Spot) == reference(spot, Spot)
