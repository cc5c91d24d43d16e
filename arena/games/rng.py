"""The project's own randomness for pure games: the same numbers on every machine, Python version and
language.

Games never touch a global RNG, nor Python's ``random`` (whose ``shuffle``, ``choice`` and
``randrange`` may change between versions: only ``random()`` is promised). Every draw is derived from
the match seed and labels that name *what* is drawn (``"deal"``, ``"roll", 3``), so a state only has
to carry its seed, and a new kind of draw never shifts the numbers of an existing one.

The algorithm, exactly (``docs/rng.md`` has it with test vectors, for re-implementations):

1. ``derive_seed(seed, *labels)``: the text ``"/".join([str(seed), *map(str, labels)])`` in UTF-8,
   hashed with SHA-256; the first 8 bytes, big-endian, are a 64-bit seed.
2. ``Draw(seed64)``: a SplitMix64 generator (Steele, Lea, Flood 2014) on that seed. Each ``next64``:
   ``state += 0x9E3779B97F4A7C15``; ``z = state``; ``z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9``;
   ``z = (z ^ (z >> 27)) * 0x94D049BB133111EB``; ``return z ^ (z >> 31)`` (all mod 2**64).
3. ``below(n)``, an integer in [0, n): draw ``x = next64()`` until ``x < 2**64 - 2**64 % n``
   (rejection: no bias), then return ``x % n``.
4. ``shuffle(items)``: Fisher-Yates from the end: for ``i`` from ``len - 1`` down to 1,
   ``j = below(i + 1)``, swap ``items[i]`` and ``items[j]``. ``choice(seq) = seq[below(len(seq))]``;
   ``randrange(n) = below(n)``; ``randint(a, b) = a + below(b - a + 1)``.

>>> derive(7, "deal").below(100) == derive(7, "deal").below(100)
True
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

VERSION = "splitmix64-sha256/1"  # recorded in replay headers: a replay names the generator it needs
MASK = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15


def derive_seed(seed: int | str, *labels: object) -> int:
    """Returns a 64-bit seed derived from ``seed`` (a match seed, or a text key such as a bot seat's) and
    ``labels`` (stable across processes)."""
    text = "/".join([str(seed), *map(str, labels)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


class Draw:
    """A SplitMix64 generator with the few draws the engines need (see the module's algorithm)."""

    __slots__ = ("state",)

    def __init__(self, seed64: int) -> None:
        self.state = seed64 & MASK

    def next64(self) -> int:
        """Returns the next 64-bit output."""
        self.state = (self.state + GOLDEN_GAMMA) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Returns an integer in [0, n), without bias."""
        if not 0 < n <= 1 << 64:
            raise ValueError(f"below({n}): n must be in 1..2**64")
        limit = (1 << 64) - (1 << 64) % n
        while (x := self.next64()) >= limit:
            pass
        return x % n

    def randrange(self, n: int) -> int:
        """Returns an integer in [0, n)."""
        return self.below(n)

    def randint(self, low: int, high: int) -> int:
        """Returns an integer in [low, high], both included."""
        return low + self.below(high - low + 1)

    def choice(self, items: Sequence[T]) -> T:
        """Returns one item of a non-empty sequence."""
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffles ``items`` in place (Fisher-Yates from the end)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def derive(seed: int, *labels: object) -> Draw:
    """Returns a fresh generator for one labelled draw of the match with this seed."""
    return Draw(derive_seed(seed, *labels))
