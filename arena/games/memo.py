"""A memo keyed by identity, for pure functions of immutable values that are costly to hash.

A board of fifty placements costs more to hash than a decision step may take, yet the engines pass the
very same tuple from step to step while it does not change. ``IdentityMemo`` remembers the results for
the last few argument objects, keeping them alive, so an id is never reused while its entry lives and a
hit is always the same object. It never changes a result, only how often it is computed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")


class IdentityMemo(Generic[V]):
    """Wraps ``function``; a call with the same argument objects (by ``is``) returns the stored result."""

    def __init__(self, function: Callable[..., V], size: int = 64) -> None:
        self._function = function
        self._size = size
        self._entries: dict[tuple[int, ...], tuple[tuple[object, ...], V]] = {}
        self._lock = threading.Lock()

    def __call__(self, *args: object) -> V:
        key = tuple(map(id, args))
        hit = self._entries.get(key)
        if hit is not None:
            return hit[1]  # the entry holds its arguments, so equal ids mean the very same objects
        value = self._function(*args)
        with self._lock:  # threads may share an engine (the leaderboard's replay pages)
            if len(self._entries) >= self._size:
                del self._entries[next(iter(self._entries))]  # the oldest
            self._entries[key] = (args, value)
        return value
