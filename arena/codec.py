"""Converts game objects to and from the wire (arena.v1 protobuf messages) and JSON.

This is the one module that knows both the engines and the wire. It works by reflection, not per
game: a game's observation, action and event dataclasses mirror its messages in
proto/arena/v1/<game>.proto field by field, so one converter serves every game.

The mapping (checked for every game by tests/test_conformance.py):

==============================  ==============================================================
Python (engine)                 protobuf
==============================  ==============================================================
dataclass field ``name``        message field ``name``
``int``, ``bool``, ``str``      scalar of that kind
``IntEnum`` member ``X = n``    enum value ``<ENUM>_X = n``
``tuple[T, ...]``               ``repeated T``
``T | None``                    ``optional T`` (or a message field, unset for None)
union of dataclasses            a message whose ``oneof kind`` has one field per member, named
                                in snake case after the member's class (``PlayCard`` ->
                                ``play_card``)
==============================  ==============================================================

JSON (replays, ``--json``) uses the same shapes: enums by member name, unions as
``{"play_card": {...}}``.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import re
import types
import typing
from typing import Any

from google.protobuf.message import Message

from arena.games.base import Game
from arena.v1 import arena_pb2 as pb


class CodecError(ValueError):
    """A message or JSON value does not describe a valid game object."""


# -- type introspection ---------------------------------------------------------------------------


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@functools.cache
def _members(py_type: Any) -> tuple[Any, ...]:
    """Returns the non-None members of a union type, or (py_type,) for any other type."""
    if isinstance(py_type, types.UnionType) or typing.get_origin(py_type) is typing.Union:
        return tuple(t for t in typing.get_args(py_type) if t is not type(None))
    return (py_type,)


def _is_optional(py_type: Any) -> bool:
    return type(None) in typing.get_args(py_type) if _is_union(py_type) else False


def _is_union(py_type: Any) -> bool:
    return isinstance(py_type, types.UnionType) or typing.get_origin(py_type) is typing.Union


def _is_tuple(py_type: Any) -> bool:
    return typing.get_origin(py_type) is tuple


@functools.cache
def _item_type(py_type: Any) -> Any:
    return typing.get_args(py_type)[0]


@dataclasses.dataclass(frozen=True)
class _Field:
    name: str
    py_type: Any  # with Optional stripped
    optional: bool
    repeated: bool


@functools.cache
def _fields(cls: type) -> tuple[_Field, ...]:
    """Returns the resolved field plan of a dataclass (cached: introspection is slow)."""
    hints = typing.get_type_hints(cls)
    plan = []
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        optional = _is_optional(hint)
        members = _members(hint)
        stripped = members[0] if optional and len(members) == 1 else hint
        plan.append(_Field(f.name, stripped, optional, _is_tuple(stripped)))
    return tuple(plan)


@functools.cache
def _union_by_name(py_type: Any) -> dict[str, type]:
    return {_snake(m.__name__): m for m in _members(py_type)}


@functools.cache
def _is_oneof(py_type: Any) -> bool:
    return len(_members(py_type)) > 1


# -- protobuf -------------------------------------------------------------------------------------


def encode_into(message: Message, value: Any, py_type: Any) -> None:
    """Fills ``message`` from ``value``, a dataclass (or a member of the union ``py_type``)."""
    if _is_oneof(py_type):
        name = _snake(type(value).__name__)
        if name not in _union_by_name(py_type):
            raise CodecError(f"{type(value).__name__} is not one of {py_type}")
        sub = getattr(message, name)
        sub.SetInParent()
        encode_into(sub, value, type(value))
        return
    for field in _fields(type(value)):
        item = getattr(value, field.name)
        if item is None:
            continue
        try:
            descriptor = message.DESCRIPTOR.fields_by_name[field.name]
        except KeyError:
            raise CodecError(f"{message.DESCRIPTOR.full_name} has no field {field.name!r}") from None
        target_is_message = descriptor.message_type is not None
        if field.repeated:
            repeated = getattr(message, field.name)
            if target_is_message:
                for element in item:
                    encode_into(repeated.add(), element, _item_type(field.py_type))
            else:
                repeated.extend(_scalar(element) for element in item)
        elif target_is_message:
            sub = getattr(message, field.name)
            sub.SetInParent()
            encode_into(sub, item, field.py_type)
        else:
            setattr(message, field.name, _scalar(item))


def _scalar(value: Any) -> Any:
    return int(value) if isinstance(value, enum.IntEnum) else value


def decode(message: Message, py_type: Any) -> Any:
    """Returns the game object of type ``py_type`` that ``message`` describes; raises CodecError."""
    if _is_oneof(py_type):
        which = message.WhichOneof("kind")
        if which is None:
            raise CodecError(f"{message.DESCRIPTOR.full_name} has none of its kinds set")
        return decode(getattr(message, which), _union_by_name(py_type)[which])
    cls = _members(py_type)[0]
    kwargs = {}
    for field in _fields(cls):
        if field.optional and not message.HasField(field.name):
            kwargs[field.name] = None
            continue
        raw = getattr(message, field.name)
        if field.repeated:
            kwargs[field.name] = tuple(_decode_value(x, _item_type(field.py_type)) for x in raw)
        else:
            kwargs[field.name] = _decode_value(raw, field.py_type)
    return cls(**kwargs)


def _decode_value(raw: Any, py_type: Any) -> Any:
    if isinstance(raw, Message):
        return decode(raw, py_type)
    if isinstance(py_type, type) and issubclass(py_type, enum.IntEnum):
        try:
            return py_type(raw)
        except ValueError:
            raise CodecError(f"{raw} is not a valid {py_type.__name__}") from None
    return raw


def observation_to_proto(game: Game, observation: Any) -> pb.Observation:
    """Returns the wire Observation for one seat's engine observation."""
    message = pb.Observation()
    encode_into(getattr(message, game.spec.wire_name), observation, game.observation_type)
    return message


def observation_from_proto(game: Game, message: pb.Observation) -> Any:
    """Returns the engine observation carried by a wire Observation."""
    return decode(_payload(game, message, "observation"), game.observation_type)


def action_to_proto(game: Game, action: Any) -> pb.Action:
    """Returns the wire Action for an engine action."""
    message = pb.Action()
    encode_into(getattr(message, game.spec.wire_name), action, game.action_type)
    return message


def action_from_proto(game: Game, message: pb.Action) -> Any:
    """Returns the engine action a wire Action describes; raises CodecError if it is malformed."""
    return decode(_payload(game, message, "action"), game.action_type)


def event_to_proto(game: Game, event: Any, step: int) -> pb.Event:
    """Returns the wire Event for a public engine event."""
    message = pb.Event(step=step)
    encode_into(getattr(message, game.spec.wire_name), event, game.event_type)
    return message


def event_from_proto(game: Game, message: pb.Event) -> Any:
    """Returns the engine event a wire Event carries."""
    return decode(_payload(game, message, "event"), game.event_type)


def _payload(game: Game, message: Message, what: str) -> Message:
    which = message.WhichOneof("game")
    if which != game.spec.wire_name:
        got = "nothing" if which is None else f"a {which} {what}"
        raise CodecError(f"expected a {game.spec.wire_name} {what}, got {got}")
    return getattr(message, which)


# -- JSON -----------------------------------------------------------------------------------------


def to_json(value: Any, py_type: Any) -> Any:
    """Returns a JSON-ready form of a game object (enums by name, unions tagged by kind)."""
    if _is_oneof(py_type):
        return {_snake(type(value).__name__): to_json(value, type(value))}
    if dataclasses.is_dataclass(value):
        out = {}
        for field in _fields(type(value)):
            item = getattr(value, field.name)
            if item is None:
                out[field.name] = None
            elif field.repeated:
                out[field.name] = [to_json(x, _item_type(field.py_type)) for x in item]
            else:
                out[field.name] = to_json(item, field.py_type)
        return out
    if isinstance(value, enum.Enum):
        return value.name
    return value


def from_json(data: Any, py_type: Any) -> Any:
    """Returns the game object of type ``py_type`` described by ``data``; raises CodecError."""
    try:
        return _from_json(data, py_type)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CodecError(f"not a valid {getattr(py_type, '__name__', py_type)}: {data!r}") from exc


def _from_json(data: Any, py_type: Any) -> Any:
    if _is_oneof(py_type):
        ((name, body),) = data.items()
        return _from_json(body, _union_by_name(py_type)[name])
    cls = _members(py_type)[0]
    if dataclasses.is_dataclass(cls):
        kwargs = {}
        for field in _fields(cls):
            item = data[field.name]
            if item is None and field.optional:
                kwargs[field.name] = None
            elif field.repeated:
                kwargs[field.name] = tuple(_from_json(x, _item_type(field.py_type)) for x in item)
            else:
                kwargs[field.name] = _from_json(item, field.py_type)
        return cls(**kwargs)
    if isinstance(cls, type) and issubclass(cls, enum.Enum):
        return cls[data]
    if cls in (int, bool, str, float) and not isinstance(data, cls):
        raise TypeError(f"expected {cls.__name__}, got {data!r}")
    return data
