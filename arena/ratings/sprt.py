"""SPRT: stop a head-to-head match as soon as the results decide between two Elo differences.

H0 says the tested player is ``elo0`` Elo stronger than its opponent, H1 that it is ``elo1`` stronger
(``elo1 > elo0``; logistic Elo: a score rate ``s = 1 / (1 + 10 ** (-elo / 400))``). After every game
(or pair of games) the test computes the log-likelihood ratio ``llr`` of H1 against H0 and stops at
Wald's bounds: ``llr >= upper = ln((1 - beta) / alpha)`` accepts H1, ``llr <= lower =
ln(beta / (1 - alpha))`` accepts H0, where ``alpha`` is the chance of accepting H1 when H0 holds
and ``beta`` that of accepting H0 when H1 holds.

The ratio is fishtest's generalized one (its "logistic" model): the results are a multinomial over
the possible scores, with no model of draws or of the seat. Single games are trinomial (scores 0,
0.5, 1); pairs of games (the seats swapped on one seed, or duplicate deals) are pentanomial (a pair
scores 0, 0.5, 1, 1.5 or 2), which sees that the two games of a pair are correlated (a seat
advantage makes pairs split 1-1 more often) and so needs fewer games when they are. For each
hypothesis the likelihood is maximized over all distributions with the hypothesized mean score, and
``llr = N * sum_k f_k * ln(p1_k / p0_k)``, with ``f_k`` the observed frequencies and ``N`` the number
of games or pairs. The maximizing distribution with mean ``s`` is ``p_k = f_k / (1 + x (a_k - s))``,
``a_k`` the per-game score of outcome ``k``, where ``x`` solves ``sum_k f_k (a_k - s) / (1 + x (a_k -
s)) = 0`` (found by bisection). As in fishtest, an outcome never seen counts ``REGULARIZE`` times, so
that every mean in (0, 1) stays reachable. Unlike fishtest, there is no overshoot correction: the
bounds are Wald's, which makes the test slightly conservative (error rates a little below alpha, beta).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence
from typing import Any

from arena.ratings.elo import expected_score

DEFAULT_ALPHA = 0.05
DEFAULT_BETA = 0.05
REGULARIZE = 1e-3  # the count given to an outcome never seen (fishtest's value)
TRINOMIAL = 3  # outcomes of a single game: loss, draw, win
PENTANOMIAL = 5  # outcomes of a pair of games: 0, 0.5, 1, 1.5, 2 points


class SprtSpecError(ValueError):
    """A ``--sprt`` text that does not describe a test."""


@dataclasses.dataclass(frozen=True)
class SprtParams:
    """The two hypotheses (Elo of the tested player over its opponent) and the error rates."""

    elo0: float
    elo1: float
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA

    @property
    def lower(self) -> float:
        """Returns the bound at or below which the test accepts H0: ln(beta / (1 - alpha))."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Returns the bound at or above which the test accepts H1: ln((1 - beta) / alpha)."""
        return math.log((1.0 - self.beta) / self.alpha)

    @property
    def midpoint(self) -> float:
        """Returns the middle of the bounds, which a test stopped at its budget is decided against
        (``Sprt.verdict_at_budget``): 0 when alpha equals beta."""
        return (self.lower + self.upper) / 2

    @staticmethod
    def parse(text: str) -> SprtParams:
        """Returns the parameters of a text such as ``"elo0=0,elo1=10[,alpha=0.05,beta=0.05]"``.

        >>> SprtParams.parse("elo0=0,elo1=10")
        SprtParams(elo0=0.0, elo1=10.0, alpha=0.05, beta=0.05)
        """
        values: dict[str, float] = {}
        if not text.strip():
            raise SprtSpecError("empty SPRT text: expected elo0=A,elo1=B[,alpha=0.05,beta=0.05]")
        for item in text.split(","):
            key, sep, raw = (part.strip() for part in item.partition("="))
            if not sep or not key:
                raise SprtSpecError(f"{item.strip()!r} is not name=value (in {text!r})")
            if key not in ("elo0", "elo1", "alpha", "beta"):
                raise SprtSpecError(f"unknown SPRT parameter {key!r}: use elo0, elo1, alpha, beta")
            if key in values:
                raise SprtSpecError(f"{key} is given twice")
            try:
                values[key] = float(raw)
            except ValueError:
                raise SprtSpecError(f"{key}={raw!r} is not a number") from None
            if not math.isfinite(values[key]):
                raise SprtSpecError(f"{key}={raw!r} is not a finite number")
        missing = [k for k in ("elo0", "elo1") if k not in values]
        if missing:
            raise SprtSpecError(f"missing {' and '.join(missing)} (e.g. elo0=0,elo1=10)")
        params = SprtParams(**values)
        if params.elo1 <= params.elo0:
            raise SprtSpecError(f"elo1 ({params.elo1:g}) must be greater than elo0 ({params.elo0:g})")
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(params, name) < 0.5:
                raise SprtSpecError(f"{name} must be between 0 and 0.5 (exclusive)")
        return params


@dataclasses.dataclass(frozen=True)
class Sprt:
    """The state of one test: its parameters and the counts of each outcome so far.

    ``counts`` has three entries (losses, draws, wins of single games) or five (pairs scoring 0,
    0.5, 1, 1.5, 2 points); ``with_game`` and ``with_pair`` return the state after one more result.
    """

    params: SprtParams
    counts: tuple[int, ...] = (0, 0, 0)

    def __post_init__(self) -> None:
        if len(self.counts) not in (TRINOMIAL, PENTANOMIAL) or min(self.counts) < 0:
            raise ValueError(f"counts must be 3 or 5 non-negative integers, not {self.counts}")

    @staticmethod
    def trinomial(params: SprtParams) -> Sprt:
        """Returns an empty test fed with single games."""
        return Sprt(params, (0,) * TRINOMIAL)

    @staticmethod
    def pentanomial(params: SprtParams) -> Sprt:
        """Returns an empty test fed with pairs of games."""
        return Sprt(params, (0,) * PENTANOMIAL)

    def with_game(self, score: float) -> Sprt:
        """Returns the test after one more single game that the tested player scored 0, 0.5 or 1."""
        if len(self.counts) != TRINOMIAL:
            raise ValueError("this test counts pairs of games: use with_pair")
        return self._with(score, 1)

    def with_pair(self, score: float) -> Sprt:
        """Returns the test after one more pair of games that scored 0, 0.5, 1, 1.5 or 2 points."""
        if len(self.counts) != PENTANOMIAL:
            raise ValueError("this test counts single games: use with_game")
        return self._with(score, 2)

    def _with(self, score: float, games: int) -> Sprt:
        k = score * 2
        if k != int(k) or not 0 <= k <= 2 * games:
            raise ValueError(f"a score of {games} game(s) is a multiple of 0.5 in 0..{games}, not {score}")
        counts = list(self.counts)
        counts[int(k)] += 1
        return Sprt(self.params, tuple(counts))

    @property
    def games(self) -> int:
        """Returns the number of games played (two per pair)."""
        return sum(self.counts) * (1 if len(self.counts) == TRINOMIAL else 2)

    @functools.cached_property
    def llr(self) -> float:
        """Returns the log-likelihood ratio of H1 against H0 for the results so far."""
        return llr(self.counts, self.params.elo0, self.params.elo1)

    @property
    def verdict(self) -> str | None:
        """Returns "H1" or "H0" once the ratio has crossed a bound, None while it lies between."""
        if self.llr >= self.params.upper:
            return "H1"
        if self.llr <= self.params.lower:
            return "H0"
        return None

    def verdict_at_budget(self) -> str:
        """Returns the verdict of a test that reached its budget of games: the bound crossed if any,
        else "H1" when the ratio lies at or above the middle of the bounds and "H0" below it.

        Why: a truncated SPRT that says nothing at its budget spends every game of its slowest
        cases for no answer (the old default said "none" in nearly every test of an unchanged bot).
        Deciding by the side of the middle the ratio ends on is the truncation rule of sequential
        testing, and the operating characteristics in ``docs/ratings.md`` count it."""
        if self.verdict is not None:
            return self.verdict
        return "H1" if self.llr >= self.params.midpoint else "H0"

    def to_json(self) -> dict[str, Any]:
        """Returns ``{"verdict": "H0" | "H1" | "none", "games", "llr", "lower", "upper"}``."""
        return {
            "verdict": self.verdict or "none",
            "games": self.games,
            "llr": round(self.llr, 4),
            "lower": round(self.params.lower, 4),
            "upper": round(self.params.upper, 4),
        }


def score_rate(elo: float) -> float:
    """Returns the expected score per game of a player ``elo`` points stronger (logistic Elo)."""
    return expected_score(elo, 0.0)


def llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """Returns the generalized log-likelihood ratio of mean score ``score_rate(elo1)`` against
    ``score_rate(elo0)`` for multinomial ``counts`` (3: L/D/W games, 5: pairs scoring 0..2)."""
    if sum(counts) == 0:
        return 0.0
    regular = [c if c else REGULARIZE for c in counts]
    total = sum(regular)
    freq = [c / total for c in regular]
    scores = [k / (len(counts) - 1) for k in range(len(counts))]  # per game: 0 .. 1
    s0, s1 = score_rate(elo0), score_rate(elo1)
    x0, x1 = _tilt(freq, scores, s0), _tilt(freq, scores, s1)
    return total * sum(
        f * (math.log1p(x0 * (a - s0)) - math.log1p(x1 * (a - s1))) for f, a in zip(freq, scores, strict=True)
    )


def _tilt(freq: Sequence[float], scores: Sequence[float], mean: float) -> float:
    """Returns ``x`` such that ``f_k / (1 + x (a_k - mean))`` has mean ``mean``: the root of a
    decreasing function on ``(-1 / (max a - mean), -1 / (min a - mean))``.

    Design detail: Newton's method from 0 (inside the bracket), falling back to bisection whenever a
    step would leave the bracket that the signs so far have narrowed; it reaches the root to the last
    bits in a handful of steps where bisection alone took some sixty (the simulations of
    ``bench/regression_oc.py`` compute the ratio after every pair of millions)."""
    lo, hi = -1.0 / (max(scores) - mean), -1.0 / (min(scores) - mean)
    x = 0.0
    for _ in range(200):
        excess = slope = 0.0
        for f, a in zip(freq, scores, strict=True):
            d = a - mean
            term = d / (1.0 + x * d)
            excess += f * term
            slope -= f * term * term
        if excess > 0:
            lo = x
        elif excess < 0:
            hi = x
        else:
            return x
        step = x - excess / slope if slope < 0 else lo - 1.0  # a flat slope: bisect
        if not lo < step < hi:
            step = 0.5 * (lo + hi)
        if step in (lo, hi) or abs(step - x) <= 1e-15 * abs(x):
            return step
        x = step
    return x
