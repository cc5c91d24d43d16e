"""The legal actions a bot is handed: a sequence that decodes an action only when the bot reads it.

A decision carries every legal action (a Pirates, Ninjas, Robots & Zombies turn can have well over a
hundred), but most bots read a few of them, and a bot that answers with one of the actions it read
needs no other. ``LegalActions`` holds the request's wire actions and decodes item ``i`` the first
time it is read, keeping it, so reading it again gives the same object. It also remembers which index
each object it handed out came from, so the SDK turns an answer that is one of those objects back
into its index without comparing it with anything.

It is a ``collections.abc.Sequence``: ``len``, indexing (negative too), slices (a list),
iteration, ``in``, ``index`` and ``count`` work as on the list the SDK handed bots before, as do
``random.choice``, ``max(..., key=...)`` and ``list(...)``.

>>> from arena.games import GAMES
>>> from arena import codec
>>> game = GAMES["ninjan"]
>>> actions = game.legal_actions(game.initial_state(2, 3), 0)
>>> legal = LegalActions(game, codec.legal_actions_to_proto(game, actions))
>>> len(legal) == len(actions), legal.decoded
(True, 0)
>>> legal[-1] == actions[-1], legal.decoded
(True, 1)
>>> legal.find(legal[-1]) == len(actions) - 1, legal.decoded
(True, 1)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from operator import index as as_index
from typing import Any, overload

from arena import codec
from arena.v1 import arena_pb2 as pb

_UNREAD = object()  # a slot whose action has not been decoded yet


class LegalActions(Sequence[Any]):
    """The legal actions of one decision, in the referee's order, each decoded when first read."""

    __slots__ = ("_game", "_indexes", "_items", "_messages")

    def __init__(self, game: Any, messages: Sequence[pb.Action]) -> None:
        self._game = game
        self._messages = messages
        self._items: list[Any] = [_UNREAD] * len(messages)
        # Design detail: the index each decoded object came from, keyed by id(), not by value: every
        # object in it is also in _items, so its id cannot be reused while this sequence lives, and an
        # identity test is all an answer needs. (Legal actions are distinct, so an object has one index.)
        self._indexes: dict[int, int] = {}

    @property
    def decoded(self) -> int:
        """Returns how many of the actions have been decoded so far (what laziness saved: the rest)."""
        return sum(1 for item in self._items if item is not _UNREAD)

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, i: int) -> Any: ...

    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...

    def __getitem__(self, i: int | slice) -> Any:
        """Returns action ``i`` (decoding it on first read), or a list of the actions a slice selects."""
        if isinstance(i, slice):
            return [self._get(j) for j in range(*i.indices(len(self._items)))]
        i = as_index(i)
        if i < 0:
            i += len(self._items)
        if not 0 <= i < len(self._items):
            raise IndexError("legal action index out of range")
        return self._get(i)

    def _get(self, i: int) -> Any:
        item = self._items[i]
        return self._decode(i) if item is _UNREAD else item

    def _decode(self, i: int) -> Any:
        item = codec.action_from_proto(self._game, self._messages[i])
        self._items[i] = item
        self._indexes[id(item)] = i
        return item

    def __iter__(self) -> Iterator[Any]:
        # Design detail: _decode inlined, as bots that weigh every action iterate; _items is never
        # resized, only filled in, so enumerating it while filling it is safe.
        items, messages, game, indexes = self._items, self._messages, self._game, self._indexes
        for i, item in enumerate(items):
            if item is _UNREAD:
                item = items[i] = codec.action_from_proto(game, messages[i])
                indexes[id(item)] = i
            yield item

    def __contains__(self, action: object) -> bool:
        return self.find(action) is not None

    def index(self, action: Any, start: int = 0, stop: int | None = None) -> int:
        """Returns the index in [start, stop) holding ``action``; raises ValueError if none does."""
        if start == 0 and stop is None:
            found = self.find(action)
            if found is not None:
                return found
            raise ValueError(f"{action!r} is not a legal action")
        return super().index(action, start, len(self._items) if stop is None else stop)

    def find(self, action: Any) -> int | None:
        """Returns the index of ``action``, or None if it is not legal.

        An object this sequence handed out is found by identity, decoding nothing; any other is
        compared with each action in turn, decoding those not read yet, until one is equal.
        """
        i = self._indexes.get(id(action))
        if i is not None and self._items[i] is action:
            return i
        for i, item in enumerate(self._items):
            if item is _UNREAD:
                item = self._decode(i)
            if item is action or item == action:
                return i
        return None

    def __repr__(self) -> str:
        return f"LegalActions({list(self)!r})"  # decodes them all: printing is for debugging
