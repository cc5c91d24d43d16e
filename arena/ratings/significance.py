"""P-values the collusion report needs, in pure Python: Holm's correction, the Poisson-binomial tail
and the tail of any sum of independent small counts, a seat's place under Plackett-Luce, Fisher's F and
Student's t (through the regularized incomplete beta function), and least squares.

Design detail: arena depends on no numerical library (``arena.ratings.fit`` solves its own Newton
steps), and these few functions are short: the incomplete beta by its continued fraction (modified
Lentz, as in Numerical Recipes' ``betacf``), checked in the doctests against values integrated
numerically, the Poisson-binomial tail by exact dynamic programming.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import mul
from statistics import NormalDist

EXACT_TAIL_MAX = 4000  # beyond this many trials the Poisson-binomial tail is normal
_NORMAL = NormalDist()


def holm(pvalues: Sequence[float]) -> list[float]:
    """Returns Holm's step-down adjusted p-values, in the order given.

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def upper_tail(probabilities: Sequence[float], k: int) -> float:
    """Returns P(X >= k) for X the number of successes of independent trials with these
    probabilities (Poisson-binomial): exact up to ``EXACT_TAIL_MAX`` trials, normal beyond.

    >>> round(upper_tail([0.5] * 10, 9), 6)
    0.010742
    """
    n = len(probabilities)
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    if n > EXACT_TAIL_MAX:
        mean = sum(probabilities)
        sd = math.sqrt(sum(p * (1.0 - p) for p in probabilities))
        return 1.0 - _NORMAL.cdf((k - 0.5 - mean) / sd) if sd > 0 else float(k <= mean)
    dist = [1.0]  # dist[j] = P(j successes so far)
    for p in probabilities:
        nxt = [0.0] * (len(dist) + 1)
        for j, mass in enumerate(dist):
            nxt[j] += mass * (1.0 - p)
            nxt[j + 1] += mass * p
        dist = nxt
    return min(1.0, max(0.0, math.fsum(dist[k:])))


def sum_tail(distributions: Sequence[Sequence[float]], k: int) -> float:
    """Returns P(X >= k) for X the sum of independent variables, the i-th taking the value j with
    probability ``distributions[i][j]``: exact (convolution) up to ``EXACT_TAIL_MAX`` variables,
    normal beyond.

    >>> round(sum_tail([[0.5, 0.5]] * 10, 9), 6), sum_tail([[0.0, 0.5, 0.5], [1.0]], 2)
    (0.010742, 0.5)
    """
    if k <= 0:
        return 1.0
    if len(distributions) > EXACT_TAIL_MAX:
        mean = sum(j * q for d in distributions for j, q in enumerate(d))
        var = sum(
            sum(j * j * q for j, q in enumerate(d)) - sum(j * q for j, q in enumerate(d)) ** 2
            for d in distributions
        )
        return 1.0 - _NORMAL.cdf((k - 0.5 - mean) / math.sqrt(var)) if var > 0 else float(k <= mean)
    dist = [1.0]  # dist[j] = P(the sum so far is j)
    for d in distributions:
        nxt = [0.0] * (len(dist) + len(d) - 1)
        for j, mass in enumerate(dist):
            if mass:
                for v, q in enumerate(d):
                    nxt[j + v] += mass * q
        dist = nxt
    return min(1.0, max(0.0, math.fsum(dist[k:])))


def places_above(strength: float, others: Sequence[float]) -> list[float]:
    """Returns ``P(j of the others finish above)`` for j = 0 .. len(others), under Plackett-Luce with
    these positive strengths (a finishing order drawn best first, each place to one of those left
    with probability proportional to its strength), by dynamic programming over the sets of others
    placed first (``2^m m`` steps: m is at most 5 at a 6-seat table).

    >>> [round(x, 4) for x in places_above(1.0, [1.0, 1.0])]
    [0.3333, 0.3333, 0.3333]
    """
    m = len(others)
    total = strength + sum(others)
    first = [0.0] * (1 << m)  # first[S]: P(the first |S| places go to exactly the others in S)
    first[0] = 1.0
    weight = [0.0] * (1 << m)
    out = [0.0] * (m + 1)
    for subset in range(1 << m):
        if subset:
            low = subset & -subset
            weight[subset] = weight[subset ^ low] + others[low.bit_length() - 1]
            first[subset] = sum(
                first[subset ^ (1 << i)] * others[i] / (total - weight[subset ^ (1 << i)])
                for i in range(m)
                if subset >> i & 1
            )
        out[bin(subset).count("1")] += first[subset] * strength / (total - weight[subset])
    return out


def explained(y: Sequence[float], columns: Sequence[Sequence[float]]) -> float:
    """Returns the sum of squares of ``y`` explained by least squares on ``columns`` (no intercept)."""
    k = len(columns)
    gram = [[0.0] * k for _ in range(k)]
    for i in range(k):
        for j in range(i + 1):
            gram[i][j] = gram[j][i] = sum(map(mul, columns[i], columns[j]))
    rhs = [sum(map(mul, c, y)) for c in columns]
    ridge = 1e-9 * max(gram[i][i] for i in range(k))
    for i in range(k):
        gram[i][i] += ridge
    beta = solve(gram, rhs)
    return max(0.0, math.fsum(map(mul, beta, rhs)))


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Returns ``x`` with ``a x = b`` (Gaussian elimination with partial pivoting; ``a`` is kept)."""
    n = len(b)
    m = [[*row, v] for row, v in zip(a, b, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        if abs(m[col][col]) < 1e-300:
            continue
        for r in range(col + 1, n):
            factor = m[r][col] / m[col][col]
            if factor:
                for c in range(col, n + 1):
                    m[r][c] -= factor * m[col][c]
    x = [0.0] * n
    for r in reversed(range(n)):
        if abs(m[r][r]) < 1e-300:
            continue
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x


def correlation(a: Sequence[float], b: Sequence[float]) -> float:
    """Returns Pearson's correlation of two centred sequences (0 when either is constant)."""
    saa = sum(map(mul, a, a))
    sbb = sum(map(mul, b, b))
    if saa <= 0 or sbb <= 0:
        return 0.0
    return max(-1.0, min(1.0, math.fsum(map(mul, a, b)) / math.sqrt(saa * sbb)))


def f_survival(f: float, d1: float, d2: float) -> float:
    """Returns P(F >= f) for Fisher's F with ``d1``, ``d2`` degrees of freedom.

    >>> round(f_survival(3.0, 4, 20), 4)
    0.0432
    """
    if f <= 0:
        return 1.0
    return incomplete_beta(d2 / 2.0, d1 / 2.0, d2 / (d2 + d1 * f))


def t_survival(t: float, df: float) -> float:
    """Returns P(T >= t) for Student's t with ``df`` degrees of freedom, ``t >= 0``.

    >>> round(t_survival(2.0, 10), 4)
    0.0367
    """
    return 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


def incomplete_beta(a: float, b: float, x: float) -> float:
    """Returns the regularized incomplete beta function ``I_x(a, b)`` (continued fraction, Lentz)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - incomplete_beta(b, a, 1.0 - x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h / a)
