"""The sequential probability ratio test (arena.ratings.sprt) on seeded simulated matches."""

from __future__ import annotations

import math
import random

import pytest

from arena.ratings.sprt import Sprt, SprtParams, SprtSpecError, llr, score_rate

FISHTEST_PAIRS = [10789, 19328, 33806, 19402, 10543]  # a pentanomial sample from fishtest's sources


def game_score(rng: random.Random, elo: float, draw_rate: float = 0.3) -> float:
    """Returns one game's score for a player ``elo`` stronger: draws at ``draw_rate``, the rest
    split so that the mean score is ``score_rate(elo)``."""
    win = score_rate(elo) - draw_rate / 2
    x = rng.random()
    return 1.0 if x < win else 0.5 if x < win + draw_rate else 0.0


def run(test: Sprt, rng: random.Random, elo: float, limit: int) -> Sprt:
    """Returns the test after feeding single games until a verdict or ``limit`` games."""
    while test.verdict is None and test.games < limit:
        test = test.with_game(game_score(rng, elo))
    return test


def test_parse_reads_the_hypotheses_and_defaults_the_error_rates() -> None:
    assert SprtParams.parse("elo0=0,elo1=10") == SprtParams(0.0, 10.0, 0.05, 0.05)
    assert SprtParams.parse(" elo0=-3 , elo1=1.5, beta=0.1,alpha=0.02") == SprtParams(-3, 1.5, 0.02, 0.1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("elo0=0", "missing elo1"),
        ("elo1=5", "missing elo0"),
        ("elo0=5,elo1=0", "greater than elo0"),
        ("elo0=0,elo1=0", "greater than elo0"),
        ("elo0=zero,elo1=5", "not a number"),
        ("elo0=inf,elo1=5", "finite"),
        ("elo0=0,elo1=5,gamma=1", "unknown"),
        ("elo0=0,elo1=5,elo1=6", "twice"),
        ("elo0=0,elo1=5,alpha=0", "alpha"),
        ("elo0=0,elo1=5,beta=0.5", "beta"),
        ("elo0=0;elo1=5", "not a number"),
        ("elo0 0,elo1=5", "name=value"),
    ],
)
def test_bad_sprt_text_is_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(SprtSpecError, match=message):
        SprtParams.parse(text)


def test_the_bounds_are_walds() -> None:
    params = SprtParams.parse("elo0=0,elo1=10")
    assert params.upper == pytest.approx(math.log(19))
    assert params.lower == pytest.approx(-math.log(19))
    assert SprtParams(0, 10, 0.1, 0.2).lower == pytest.approx(math.log(0.2 / 0.9))


def test_the_exact_ratio_agrees_with_fishtests_normal_approximation_on_its_sample() -> None:
    """For small Elo differences the generalized ratio is close to N (s1 - s0)(2 m - s0 - s1) / (2 v)
    with m, v the mean and variance of the per-game score (fishtest's LLR_alt2)."""
    n = sum(FISHTEST_PAIRS)
    scores = [k / 4 for k in range(5)]
    mean = sum(c * a for c, a in zip(FISHTEST_PAIRS, scores, strict=True)) / n
    var = sum(c * (a - mean) ** 2 for c, a in zip(FISHTEST_PAIRS, scores, strict=True)) / n
    s0, s1 = score_rate(-3), score_rate(1)
    approx = n * (s1 - s0) * (2 * mean - s0 - s1) / var / 2
    assert llr(FISHTEST_PAIRS, -3, 1) == pytest.approx(approx, rel=1e-3)
    assert llr(FISHTEST_PAIRS, -3, 1) == pytest.approx(2.131, abs=1e-3)


def test_no_games_no_evidence() -> None:
    test = Sprt.trinomial(SprtParams.parse("elo0=0,elo1=10"))
    assert test.llr == 0 and test.verdict is None and test.games == 0
    assert test.to_json() == {"verdict": "none", "games": 0, "llr": 0.0, "lower": -2.9444, "upper": 2.9444}


def test_a_clearly_stronger_player_is_accepted_as_h1_long_before_2000_games() -> None:
    test = run(Sprt.trinomial(SprtParams.parse("elo0=0,elo1=20")), random.Random(1), 150, 2000)
    assert test.verdict == "H1"
    assert test.games < 500
    assert test.llr >= test.params.upper
    assert test.to_json()["verdict"] == "H1"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_equal_players_are_accepted_as_h0_never_h1(seed: int) -> None:
    test = run(Sprt.trinomial(SprtParams.parse("elo0=0,elo1=20")), random.Random(seed), 0, 20000)
    assert test.verdict == "H0"


def test_a_weaker_player_is_accepted_as_h0_quickly() -> None:
    test = run(Sprt.trinomial(SprtParams.parse("elo0=0,elo1=20")), random.Random(4), -100, 2000)
    assert test.verdict == "H0" and test.games < 500


def paired_games(rng: random.Random, elo: float, seat_edge: float, pairs: int) -> list[tuple[float, float]]:
    """Returns seat-swapped pairs of games of a player ``elo`` stronger when the first seat is worth
    ``seat_edge`` Elo: the two games of a pair tend to split, one won by each seat."""
    return [(game_score(rng, elo + seat_edge), game_score(rng, elo - seat_edge)) for _ in range(pairs)]


def test_pentanomial_sees_the_seat_advantage_the_trinomial_counts_as_noise() -> None:
    """On the same games, seat-swapped with a strong seat advantage, both models lean to H1, and
    the pentanomial one (which knows the pairs) has the larger ratio, so it stops sooner."""
    params = SprtParams.parse("elo0=0,elo1=20")
    tri, penta = Sprt.trinomial(params), Sprt.pentanomial(params)
    for first, second in paired_games(random.Random(9), 40, 300, 300):
        tri = tri.with_game(first).with_game(second)
        penta = penta.with_pair(first + second)
    assert tri.games == penta.games == 600
    assert 0 < tri.llr < penta.llr


def test_without_a_seat_advantage_both_models_agree() -> None:
    params = SprtParams.parse("elo0=0,elo1=20")
    tri, penta = Sprt.trinomial(params), Sprt.pentanomial(params)
    for first, second in paired_games(random.Random(9), 40, 0, 2000):
        tri = tri.with_game(first).with_game(second)
        penta = penta.with_pair(first + second)
    assert penta.llr == pytest.approx(tri.llr, rel=0.1)


def test_results_must_fit_the_model() -> None:
    params = SprtParams.parse("elo0=0,elo1=5")
    with pytest.raises(ValueError, match="with_pair"):
        Sprt.pentanomial(params).with_game(1)
    with pytest.raises(ValueError, match="with_game"):
        Sprt.trinomial(params).with_pair(2)
    with pytest.raises(ValueError, match=r"multiple of 0\.5"):
        Sprt.trinomial(params).with_game(0.25)
    with pytest.raises(ValueError, match=r"multiple of 0\.5"):
        Sprt.pentanomial(params).with_pair(2.5)


def test_each_result_returns_a_new_state() -> None:
    empty = Sprt.trinomial(SprtParams.parse("elo0=0,elo1=5"))
    after = empty.with_game(1).with_game(0.5)
    assert empty.counts == (0, 0, 0) and after.counts == (0, 1, 1)
    assert after.llr == pytest.approx(llr([0, 1, 1], 0, 5))


def test_a_test_at_its_budget_decides_by_the_side_of_the_bounds_middle() -> None:
    """Issue 37 (item 3): between the bounds the verdict at the budget is H1 at or above their middle
    (0 when alpha = beta), H0 below; a crossed bound keeps its verdict; unequal error rates move the
    middle."""
    params = SprtParams.parse("elo0=-25,elo1=0")
    leaning_h1, leaning_h0 = Sprt(params, (0, 1, 3, 1, 0)), Sprt(params, (1, 2, 2, 0, 0))
    assert leaning_h1.verdict is None and 0 < leaning_h1.llr < params.upper
    assert leaning_h0.verdict is None and params.lower < leaning_h0.llr < 0
    assert (leaning_h1.verdict_at_budget(), leaning_h0.verdict_at_budget()) == ("H1", "H0")
    crossed = Sprt(params, (90, 10, 0, 0, 0))
    assert crossed.verdict == crossed.verdict_at_budget() == "H0"
    lopsided = SprtParams(-25, 0, alpha=0.05, beta=0.2)
    assert lopsided.midpoint == pytest.approx((math.log(0.2 / 0.95) + math.log(0.8 / 0.05)) / 2)
    assert 0 < leaning_h1.llr < lopsided.midpoint  # above 0, below the lopsided middle: H0 there
    assert Sprt(lopsided, leaning_h1.counts).verdict_at_budget() == "H0"
    assert Sprt(params, (0, 0, 0, 0, 0)).verdict_at_budget() == "H1"  # LLR 0 is the middle: H1


def bisected_llr(counts: list[int], elo0: float, elo1: float) -> float:
    """The ratio as it was computed before issue 37, each tilt found by bisection alone."""
    if sum(counts) == 0:
        return 0.0
    regular = [c if c else 1e-3 for c in counts]
    total = sum(regular)
    freq = [c / total for c in regular]
    scores = [k / (len(counts) - 1) for k in range(len(counts))]

    def tilt(mean: float) -> float:
        lo, hi = -1.0 / (max(scores) - mean), -1.0 / (min(scores) - mean)
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid in (lo, hi):
                break
            if sum(f * (a - mean) / (1.0 + mid * (a - mean)) for f, a in zip(freq, scores, strict=True)) > 0:
                lo = mid
            else:
                hi = mid
        return 0.5 * (lo + hi)

    s0, s1 = score_rate(elo0), score_rate(elo1)
    x0, x1 = tilt(s0), tilt(s1)
    return total * sum(
        f * (math.log1p(x0 * (a - s0)) - math.log1p(x1 * (a - s1))) for f, a in zip(freq, scores, strict=True)
    )


def test_the_newton_tilt_gives_the_ratio_bisection_gave() -> None:
    rng = random.Random(37)
    for _ in range(2000):
        counts = [rng.choice([0, 0, 1, 3, 40, rng.randint(0, 2000)]) for _ in range(rng.choice([3, 5]))]
        elo0 = rng.uniform(-300, 50)
        elo1 = elo0 + rng.uniform(5, 300)
        assert llr(counts, elo0, elo1) == pytest.approx(bisected_llr(counts, elo0, elo1), rel=1e-9, abs=1e-9)
