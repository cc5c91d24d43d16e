"""The online Elo (the calibration's baseline) by worked examples: two-player known values, multiplayer
pairwise updates, ties, and rebuild."""

from __future__ import annotations

import doctest
import random

import pytest

import arena.ratings.elo
from arena.ratings import (
    INITIAL_RATING,
    K_FACTOR,
    Placement,
    Result,
    apply,
    expected_score,
    rebuild,
)


def result(match_id: str, *ranked: tuple[str, int]) -> Result:
    return Result(match_id, "ninjan", tuple(Placement(bot, rank) for bot, rank in ranked))


def test_constants_are_the_documented_ones() -> None:
    assert (INITIAL_RATING, K_FACTOR) == (1500.0, 32.0)


def test_doctests() -> None:
    assert doctest.testmod(arena.ratings.elo).failed == 0


def test_expected_score_known_values() -> None:
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1600, 1400) == pytest.approx(0.7597, abs=1e-4)
    assert expected_score(1400, 1600) == pytest.approx(0.2403, abs=1e-4)
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)


def test_equal_ratings_win_moves_sixteen_points() -> None:
    table = apply({}, result("m1", ("a", 1), ("b", 2)))
    assert table == {"a": 1516.0, "b": 1484.0}


def test_favourite_gains_little_underdog_gains_much() -> None:
    before = {"fav": 1600.0, "dog": 1400.0}
    win = apply(before, result("m1", ("fav", 1), ("dog", 2)))
    assert win["fav"] == pytest.approx(1600 + 32 * (1 - 0.75974693), abs=1e-6)  # +7.69
    upset = apply(before, result("m2", ("dog", 1), ("fav", 2)))
    assert upset["dog"] == pytest.approx(1400 + 32 * 0.75974693, abs=1e-6)  # +24.31
    assert sum(upset.values()) == pytest.approx(3000)


def test_two_player_tie_between_equals_changes_nothing() -> None:
    assert apply({}, result("m1", ("a", 1), ("b", 1))) == {"a": 1500.0, "b": 1500.0}


def test_two_player_tie_pulls_ratings_together() -> None:
    table = apply({"hi": 1600.0, "lo": 1400.0}, result("m1", ("hi", 1), ("lo", 1)))
    assert table["hi"] == pytest.approx(1600 + 32 * (0.5 - 0.75974693), abs=1e-6)
    assert table["lo"] == pytest.approx(1400 + 32 * (0.5 - 0.24025307), abs=1e-6)


def test_three_players_pairwise_with_k_split_over_opponents() -> None:
    # all at 1500: each pair expects 0.5; K/(n-1) = 16 per pair
    table = apply({}, result("m1", ("a", 1), ("b", 2), ("c", 3)))
    assert table == {"a": 1500 + 16 * (0.5 + 0.5), "b": 1500 + 16 * (0.5 - 0.5), "c": 1500 - 16 * 1.0}


def test_multiplayer_uses_ratings_from_before_the_match_for_every_pair() -> None:
    before = {"a": 1600.0, "b": 1500.0, "c": 1400.0, "d": 1500.0}
    table = apply(before, result("m1", ("c", 1), ("a", 2), ("b", 2), ("d", 4)))
    share = K_FACTOR / 3
    for bot, rank in [("c", 1), ("a", 2), ("b", 2), ("d", 4)]:
        ranks = {"c": 1, "a": 2, "b": 2, "d": 4}
        delta = 0.0
        for other, other_rank in ranks.items():
            if other != bot:
                score = 0.5 if rank == other_rank else float(rank < other_rank)
                delta += score - expected_score(before[bot], before[other])
        assert table[bot] == pytest.approx(before[bot] + share * delta)
    assert sum(table.values()) == pytest.approx(sum(before.values()))  # Elo is zero-sum
    # the seat order inside a match does not matter
    shuffled = apply(before, result("m1", ("d", 4), ("b", 2), ("c", 1), ("a", 2)))
    assert shuffled == pytest.approx(table)


def test_five_way_tie_at_equal_ratings_changes_nothing() -> None:
    table = apply({}, result("m1", *((bot, 1) for bot in "abcde")))
    assert table == dict.fromkeys("abcde", 1500.0)


def test_a_bot_in_two_seats_is_refused() -> None:
    with pytest.raises(ValueError, match="two seats"):
        apply({}, result("m1", ("a", 1), ("a", 2)))


def random_results(count: int, seed: int) -> list[Result]:
    rng = random.Random(seed)
    bots = ["strong", "middle", "weak", "coin"]
    strength = {"strong": 3.0, "middle": 2.0, "weak": 0.5, "coin": 1.0}
    out = []
    for i in range(count):
        seated = rng.sample(bots, rng.choice([2, 3, 4]))
        noisy = sorted(seated, key=lambda b: -(strength[b] + rng.gauss(0, 1)))
        ranks = {bot: place + 1 for place, bot in enumerate(noisy)}
        if rng.random() < 0.1:  # an occasional tie for first
            ranks[noisy[1]] = 1
        out.append(result(f"m{i}", *((b, ranks[b]) for b in seated)))
    return out


def test_rebuild_reproduces_the_running_table_exactly() -> None:
    results = random_results(300, seed=5)
    running: dict[str, float] = {}
    for r in results:
        running = apply(running, r)
    assert rebuild(results) == running  # bit for bit, not approximately


def test_rebuild_ranks_by_strength() -> None:
    table = rebuild(random_results(400, seed=1))
    assert sorted(table, key=lambda b: -table[b]) == ["strong", "middle", "coin", "weak"]
