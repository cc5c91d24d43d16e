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
import json
import re
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from google.protobuf import message_factory
from google.protobuf.message import Message

from arena.games.base import Game
from arena.v1 import arena_pb2 as pb

F = TypeVar("F", bound=Callable[..., Any])


class CodecError(ValueError):
    """A message or JSON value does not describe a valid game object."""


# -- type introspection ---------------------------------------------------------------------------


def _cached(function: F) -> F:
    """``functools.cache`` for functions of classes, with their signature kept for the type checker:
    typeshed's cached function takes any ``Hashable`` arguments, and mypy does not count a class as
    ``Hashable`` (python/mypy#11470)."""
    return cast(F, functools.cache(function))


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


@_cached
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
#
# Design detail: the converters are compiled once per (dataclass, message type) pair into small Python
# functions (plain attribute reads and writes, no per-field introspection), because observations are
# encoded on every decision and a reflective walk cost several times the gRPC round trip. Decoders of
# leaf dataclasses (cards, positions: scalar and enum fields only) memoise their values by field values:
# a bot decodes the same few dozen cards in every observation, and game values are frozen, so sharing
# one instance is safe.

MEMO_LIMIT = 65536  # distinct values remembered per leaf dataclass; the rest are built each time


def _message_class(descriptor: Any) -> type[Message]:
    return message_factory.GetMessageClass(descriptor)


def _enum_converter(enum_type: type[enum.IntEnum]) -> Any:
    members = {int(m): m for m in enum_type}
    name = enum_type.__name__

    def convert(raw: int) -> Any:
        member = members.get(raw)
        if member is None:
            raise CodecError(f"{raw} is not a valid {name}")
        return member

    return convert


def _is_enum(py_type: Any) -> bool:
    return isinstance(py_type, type) and issubclass(py_type, enum.IntEnum)


@_cached
def _encoder(py_type: Any, message_type: type[Message]) -> Any:
    """Returns ``encode(message, value)`` for values of ``py_type`` (a dataclass or a union of them)."""
    if _is_oneof(py_type):
        return _union_encoder(py_type, message_type)
    env: dict[str, Any] = {}
    lines = ["def encode(msg, v):"]
    for i in range(len(_fields(py_type))):
        lines += _field_lines(py_type, message_type, i, env)
    if len(lines) == 1:
        lines.append("    pass")
    exec("\n".join(lines), env)  # code built above from dataclass field names only
    return env["encode"]


def _wire_field(cls: type, message_type: type[Message], i: int) -> tuple[Any, Any, Any]:
    """Returns field ``i`` of dataclass ``cls``, its message type in ``message_type`` (None for a
    scalar) and the type of one of its values (an item's, for a repeated field); raises CodecError
    when ``message_type`` has no such field. One lookup for the encoders and the decoders."""
    field = _fields(cls)[i]
    by_name = message_type.DESCRIPTOR.fields_by_name
    if field.name not in by_name:
        raise CodecError(f"{message_type.DESCRIPTOR.full_name} has no field {field.name!r}")
    item = _item_type(field.py_type) if field.repeated else field.py_type
    return field, by_name[field.name].message_type, item


def _field_lines(
    cls: type, message_type: type[Message], i: int, env: dict[str, Any], value: str = ""
) -> list[str]:
    """Returns the lines that set field ``i`` of message ``msg`` from dataclass value ``v`` (or from
    the variable ``value`` when named); puts the encoders they call in ``env``."""
    field, target, item = _wire_field(cls, message_type, i)
    name = field.name
    read = value or f"v.{name}"
    if target is not None:
        env[f"e{i}"] = _encoder(item, _message_class(target))
    if field.repeated and target is not None:
        return [f"    add = msg.{name}.add", f"    for x in {read}:", f"        e{i}(add(), x)"]
    if field.repeated:
        return [f"    msg.{name}.extend({read})"]
    if target is not None:
        return [
            f"    x = {read}",
            "    if x is not None:",
            f"        s = msg.{name}",
            "        s.SetInParent()",
            f"        e{i}(s, x)",
        ]
    if field.optional:
        return [f"    x = {read}", "    if x is not None:", f"        msg.{name} = x"]
    return [f"    msg.{name} = {read}"]


@_cached
def field_encoders(cls: type, message_type: type[Message]) -> tuple[Callable[[Any], bytes], ...]:
    """Returns, for each field of the dataclass ``cls`` in order, ``encode(value) -> bytes``: the
    wire bytes of that field alone (its entries, tags included; b"" for a default) in a
    ``message_type``. Concatenated, they are the message: for writers that encode a message field
    by field and reuse the bytes of fields that did not change (``arena.referee.match``)."""
    encoders = []
    for i in range(len(_fields(cls))):
        env: dict[str, Any] = {"new": message_type}
        lines = ["def encode(value):", "    msg = new()", *_field_lines(cls, message_type, i, env, "value")]
        exec("\n".join([*lines, "    return msg.SerializeToString()"]), env)  # from field names only
        encoders.append(env["encode"])
    return tuple(encoders)


def _union_encoder(py_type: Any, message_type: type[Message]) -> Any:
    by_name = message_type.DESCRIPTOR.fields_by_name
    table = {}
    for name, member in _union_by_name(py_type).items():
        if name not in by_name:
            raise CodecError(f"{message_type.DESCRIPTOR.full_name} has no kind {name!r}")
        table[member] = (name, _encoder(member, _message_class(by_name[name].message_type)))

    def encode(msg: Message, value: Any) -> None:
        try:
            name, encoder = table[type(value)]
        except KeyError:
            raise CodecError(f"{type(value).__name__} is not one of {py_type}") from None
        sub = getattr(msg, name)
        sub.SetInParent()
        encoder(sub, value)

    return encode


@_cached
def _decoder(py_type: Any, message_type: type[Message]) -> Any:
    """Returns ``decode(message) -> value`` for ``py_type`` (a dataclass or a union of them)."""
    if _is_oneof(py_type):
        return _union_decoder(py_type, message_type)
    cls = _members(py_type)[0]
    env: dict[str, Any] = {"cls": cls, "memo": {}, "limit": MEMO_LIMIT}
    args = [f"{field.name}={_field_expr(cls, message_type, i, env)}" for i, field in enumerate(_fields(cls))]
    # a leaf: only scalar and enum fields, each always present: memoised (the Design detail above)
    leaf = all(
        message_type.DESCRIPTOR.fields_by_name[f.name].message_type is None and not (f.repeated or f.optional)
        for f in _fields(cls)
    )
    body = f"    return cls({', '.join(args)})"
    if leaf and args:
        key = "".join(f"m.{field.name}, " for field in _fields(cls))
        body = (
            f"    key = ({key})\n    value = memo.get(key)\n    if value is None:\n"
            f"        value = cls({', '.join(args)})\n"
            "        if len(memo) < limit:\n            memo[key] = value\n    return value"
        )
    exec(f"def decode(m):\n{body}", env)  # built from field names only
    return env["decode"]


def _field_expr(cls: type, message_type: type[Message], i: int, env: dict[str, Any]) -> str:
    """Returns the expression that decodes field ``i`` of dataclass ``cls`` from message ``m``; puts
    the converters it calls in ``env``."""
    field, target, item = _wire_field(cls, message_type, i)
    raw = f"m.{field.name}"
    if target is not None:
        env[f"d{i}"] = _decoder(item, _message_class(target))
        one = f"d{i}"
    elif _is_enum(item):
        env[f"d{i}"] = _enum_converter(item)
        one = f"d{i}"
    else:
        one = ""
    if field.repeated:
        expr = f"tuple(map({one}, {raw}))" if one else f"tuple({raw})"
    else:
        expr = f"{one}({raw})" if one else raw
    if field.optional:
        expr = f"({expr} if m.HasField({field.name!r}) else None)"
    return expr


@_cached
def field_decoders(cls: type, message_type: type[Message]) -> tuple[tuple[str, int, Any], ...]:
    """Returns, for each field of the dataclass ``cls`` in order, (its name, its field number in
    ``message_type``, ``decode(message)`` of that field alone): for readers that decode a message
    field by field and reuse the fields that did not change (``arena.sdk.wire``)."""
    plan = []
    for i, field in enumerate(_fields(cls)):
        env: dict[str, Any] = {}
        exec(f"def decode(m):\n    return {_field_expr(cls, message_type, i, env)}", env)  # field names only
        number = message_type.DESCRIPTOR.fields_by_name[field.name].number
        plan.append((field.name, number, env["decode"]))
    return tuple(plan)


def _union_decoder(py_type: Any, message_type: type[Message]) -> Any:
    by_name = message_type.DESCRIPTOR.fields_by_name
    table = {
        name: _decoder(member, _message_class(by_name[name].message_type))
        for name, member in _union_by_name(py_type).items()
    }
    full_name = message_type.DESCRIPTOR.full_name

    def decode(msg: Message) -> Any:
        which = msg.WhichOneof("kind")
        decoder = table.get(which) if which is not None else None
        if decoder is None:
            raise CodecError(f"{full_name} has {'none' if which is None else which!r} of its kinds set")
        return decoder(getattr(msg, which))

    return decode


def encode_into(message: Message, value: Any, py_type: Any) -> None:
    """Fills ``message`` from ``value``, a dataclass (or a member of the union ``py_type``)."""
    _encoder(py_type, type(message))(message, value)


def decode(message: Message, py_type: Any) -> Any:
    """Returns the game object of type ``py_type`` that ``message`` describes; raises CodecError."""
    return _decoder(py_type, type(message))(message)


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


def legal_actions_to_proto(game: Game, actions: Sequence[Any]) -> list[pb.Action]:
    """Returns the wire Actions for a list of legal actions, to be copied into a DecisionRequest.

    Design detail: cached per action, as the same legal actions are sent over and over. The returned
    messages are shared: only copy them (a repeated field's ``extend`` does), never change them.
    """
    return [_cached_action_proto(game, action) for action in actions]


@functools.lru_cache(maxsize=16384)
def _cached_action_proto(game: Game, action: Any) -> pb.Action:
    return action_to_proto(game, action)


def action_from_proto(game: Game, message: pb.Action) -> Any:
    """Returns the engine action a wire Action describes; raises CodecError if it is malformed.

    Design detail: memoised by the message's bytes, as a bot decodes the same legal actions over and
    over (equal bytes describe equal actions, and actions are frozen values).
    """
    key = (game.spec.name, message.SerializeToString())
    action = _decoded_actions.get(key)
    if action is None:
        action = decode(_payload(game, message, "action"), game.action_type)
        if len(_decoded_actions) < MEMO_LIMIT:
            _decoded_actions[key] = action
    return action


_decoded_actions: dict[tuple[str, bytes], Any] = {}


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
    """Returns a JSON-ready form of a game object (enums by name, unions tagged by kind).

    Design detail: compiled once per dataclass into a function of plain attribute reads (``_json_of``),
    as the protobuf converters above are: a replay page re-runs a match into every seat's view at
    every step, and the reflective walk was two thirds of that re-run's time (issue 38)."""
    if _is_oneof(py_type):
        return _tagged(value)
    return _any_json(value)


_SCALARS = frozenset({int, str, bool, float, type(None)})  # their JSON form is themselves
_json_by_class: dict[type, Callable[[Any], Any]] = {}


def _any_json(value: Any) -> Any:
    """Returns the JSON form of a value of any class, found by its class (a dataclass, an enum, as is)."""
    convert = _json_by_class.get(value.__class__)
    if convert is None:
        convert = _json_by_class[value.__class__] = _json_of(value.__class__)
    return convert(value)


def _tagged(value: Any) -> dict[str, Any]:
    """Returns a union member's JSON form, tagged by its kind: ``{"play_card": {...}}``."""
    return {_snake(value.__class__.__name__): _any_json(value)}


def _json_of(cls: type) -> Callable[[Any], Any]:
    """Returns the JSON converter of ``cls``'s values: compiled for a dataclass (a scalar field is
    read as is unless its value is not a plain scalar, an IntEnum say), an enum's name, else as is."""
    if dataclasses.is_dataclass(cls):
        env: dict[str, Any] = {"S": _SCALARS, "c": _any_json, "u": _tagged}
        lines, items = ["def convert(v):"], []
        for i, field in enumerate(_fields(cls)):
            one = _item_type(field.py_type) if field.repeated else field.py_type
            each = "u(y)" if _is_oneof(one) else "y if y.__class__ in S else c(y)"
            if field.repeated:
                lines.append(f"    x{i} = v.{field.name}")
                lines.append(f"    x{i} = None if x{i} is None else [{each} for y in x{i}]")
            else:
                lines.append(f"    y = v.{field.name}")
                lines.append(f"    x{i} = {'None if y is None else ' * _is_oneof(one)}{each}")
            items.append(f"{field.name!r}: x{i}")
        exec("\n".join([*lines, f"    return {{{', '.join(items)}}}"]), env)  # from field names only
        return cast(Callable[[Any], Any], env["convert"])
    if issubclass(cls, enum.Enum):
        return lambda member: member.name
    return lambda value: value


def json_text(value: Any, py_type: Any) -> str:
    """Returns ``to_json(value, py_type)`` as compact JSON text, the form replays store.

    Design detail: cached, since the same actions and events recur step after step and game after
    game; a value that cannot be hashed is converted afresh.
    """
    try:
        return _cached_json_text(value, py_type)
    except TypeError:
        return compact_json(to_json(value, py_type))


@functools.lru_cache(maxsize=16384)
def _cached_json_text(value: Any, py_type: Any) -> str:
    return compact_json(to_json(value, py_type))


def compact_json(data: Any) -> str:
    """Returns ``data`` as JSON without spaces, non-ASCII characters kept: the replay format's bytes."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


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
    if isinstance(cls, type) and dataclasses.is_dataclass(cls):  # a class (to the checker too)
        kwargs: dict[str, Any] = {}
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
