"""The project's generator (arena/games/rng.py): published test vectors, so a replay reproduces on any
Python version and the generator can be written again in another language (docs/rng.md)."""

from __future__ import annotations

import collections

import pytest

from arena.games.rng import VERSION, Draw, derive, derive_seed

# SplitMix64's reference outputs (Vigna's splitmix64.c): seed 0, and seed 1234567.
SPLITMIX_SEED_0 = [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
SPLITMIX_SEED_1234567 = [6457827717110365317, 3203168211198807973, 9817491932198370423]


def test_splitmix64_matches_its_reference_outputs() -> None:
    zero, other = Draw(0), Draw(1234567)
    assert [zero.next64() for _ in range(3)] == SPLITMIX_SEED_0
    assert [other.next64() for _ in range(3)] == SPLITMIX_SEED_1234567


def test_derived_seeds_are_sha256_of_the_labelled_text() -> None:
    assert derive_seed(7, "deal") == 0x1D982439010F3165
    assert derive_seed(0) == 0x5FECEB66FFC86F38  # SHA-256("0")
    assert derive_seed(123456789, "roll", 3, 1, 0) == 0xB200A09419EDE403


def test_the_draws_give_the_published_vectors() -> None:
    draw = derive(7, "deal")
    assert [draw.below(10) for _ in range(10)] == [4, 1, 0, 3, 3, 2, 1, 0, 0, 0]
    items = list(range(10))
    derive(7, "deal").shuffle(items)
    assert items == [1, 8, 0, 6, 2, 3, 5, 9, 7, 4]
    dice = derive(1, "roll", 1, 0, 0)
    assert [dice.randint(1, 6) for _ in range(6)] == [6, 6, 2, 4, 1, 5]
    draw = derive(1, "x")
    assert (draw.choice("abcdef"), draw.below(3), draw.below(2**64)) == ("c", 1, 6934445607729213573)
    assert VERSION == "splitmix64-sha256/1"


def test_below_is_unbiased_and_covers_its_range() -> None:
    draw = Draw(99)
    counts = collections.Counter(draw.below(6) for _ in range(60_000))
    assert set(counts) == set(range(6))
    assert all(abs(count - 10_000) < 500 for count in counts.values())  # ~5 standard deviations


def test_below_refuses_an_empty_range() -> None:
    with pytest.raises(ValueError, match="below"):
        Draw(1).below(0)


def test_a_shuffle_reaches_every_order_of_three() -> None:
    orders = set()
    for seed in range(200):
        items = ["a", "b", "c"]
        Draw(seed).shuffle(items)
        orders.add(tuple(items))
    assert len(orders) == 6
