"""The flat encoding of a seat's observation: one fixed-length vector of numbers per game.

Why one generic encoder rather than four hand-written ones: every game's observation is a frozen
dataclass whose fields are numbers, flags, enums, optional values, nested dataclasses and tuples of
them, so one walk over its type hints lays out every game, and docs/rl.md lists each game's columns
from the same walk (``column_names``). What the walk reads is the seat's own observation (the value
``Game.observe`` returns, which the referee sends a bot), never the state: an encoding cannot carry
what the observation does not.

The rules, per type (each game fixes the capacity of its tuples in its module under arena/rl/):

- ``int``: one column, the number as it is.
- ``bool``: one column, 0 or 1.
- an ``IntEnum``: one column per member, one-hot.
- ``X | None``: a presence column (1 when set) followed by the columns of ``X`` (zeros when unset).
- ``tuple[X, ...]``: ``capacity`` slots, each a presence column followed by the columns of ``X``;
  a tuple longer than its capacity keeps its *last* ``capacity`` items (the most recent history).
- a dataclass: its fields' columns in declaration order.
- ``str``: no column (the games' strings are names and pictures fixed by an id encoded beside them).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

Writer = Callable[[Any, list[float]], None]


@dataclasses.dataclass(frozen=True)
class Layout:
    """The compiled encoding of one observation type: its column names and the function filling them."""

    names: tuple[str, ...]
    write: Writer

    @property
    def width(self) -> int:
        return len(self.names)

    def encode(self, value: Any) -> list[float]:
        """Returns the columns of ``value``, exactly ``width`` of them."""
        out: list[float] = []
        self.write(value, out)
        return out


class LayoutError(TypeError):
    """An observation type the flat encoding cannot lay out (a missing capacity, an unknown type)."""


def compile_layout(observation_type: type, capacities: Mapping[str, int]) -> Layout:
    """Returns the layout of ``observation_type``; ``capacities`` gives each tuple field's slot count
    by its dotted path (``"history.plays"``). Raises LayoutError for a tuple without a capacity."""
    return _compile(observation_type, "", capacities)


def _compile(tp: Any, path: str, capacities: Mapping[str, int]) -> Layout:
    """Returns the layout of a value of type ``tp`` found at ``path``."""
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        members = [m for m in typing.get_args(tp) if m is not type(None)]
        if len(members) != 1:
            raise LayoutError(f"{path}: only 'X | None' unions can be laid out, not {tp}")
        return _optional(_compile(members[0], path, capacities), path)
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) != 2 or args[1] is not Ellipsis:
            raise LayoutError(f"{path}: only tuple[X, ...] can be laid out, not {tp}")
        if path not in capacities:
            raise LayoutError(f"{path}: no capacity given for this tuple")
        return _sequence(_compile(args[0], path, capacities), path, capacities[path])
    if isinstance(tp, type) and issubclass(tp, enum.IntEnum):
        return _one_hot(tp, path)
    if tp is bool:
        return Layout((path,), lambda v, out: out.append(1.0 if v else 0.0))
    if tp is int:
        return Layout((path,), lambda v, out: out.append(float(v)))
    if tp is str:
        return Layout((), lambda v, out: None)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _record(tp, path, capacities)
    raise LayoutError(f"{path}: cannot lay out a value of type {tp!r}")


def _one_hot(members: type[enum.IntEnum], path: str) -> Layout:
    """One column per member of the enum, 1 in the member's."""
    order = {member: i for i, member in enumerate(members)}

    def write(value: Any, out: list[float]) -> None:
        start = len(out)
        out.extend([0.0] * len(order))
        out[start + order[value]] = 1.0

    return Layout(tuple(f"{path}={m.name}" for m in members), write)


def _optional(inner: Layout, path: str) -> Layout:
    """A presence column, then the inner columns (zeros when the value is None)."""

    def write(value: Any, out: list[float]) -> None:
        if value is None:
            out.extend([0.0] * (inner.width + 1))
        else:
            out.append(1.0)
            inner.write(value, out)

    return Layout((f"{path}?", *inner.names), write)


def _sequence(item: Layout, path: str, capacity: int) -> Layout:
    """``capacity`` slots of a presence column and the item's columns; the last items are kept."""
    names = tuple(
        name for i in range(capacity) for name in (f"{path}[{i}]?", *(_slot(n, path, i) for n in item.names))
    )

    def write(values: Any, out: list[float]) -> None:
        kept = tuple(values)[-capacity:] if capacity else ()
        for value in kept:
            out.append(1.0)
            item.write(value, out)
        out.extend([0.0] * ((item.width + 1) * (capacity - len(kept))))

    return Layout(names, write)


def _slot(name: str, path: str, index: int) -> str:
    """Returns an item's column name with its slot number after the tuple's own path."""
    return f"{path}[{index}]{name[len(path) :]}"


def _record(cls: type, path: str, capacities: Mapping[str, int]) -> Layout:
    """The fields' columns in declaration order."""
    hints = typing.get_type_hints(cls)
    fields = [f.name for f in dataclasses.fields(cls)]
    parts = [(name, _compile(hints[name], f"{path}.{name}" if path else name, capacities)) for name in fields]

    def write(value: Any, out: list[float]) -> None:
        for name, layout in parts:
            layout.write(getattr(value, name), out)

    return Layout(tuple(n for _, layout in parts for n in layout.names), write)
