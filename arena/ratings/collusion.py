"""Collusion shows: pairs of accounts whose play together departs from what honest play predicts.

Pure statistics (no Redis, no I/O): the input is the recorded matches of one game, each seat with its
player (a bot version, as the rating fit names it), its *group* (the bot's account, or the bot itself
when it has none) and its finishing rank, and, where arena kept them, the seats' decisions with their
think times and a few numbers describing what the deciding seat alone could see (its hidden hand).
The output is every pair of groups that met, ranked by evidence, with p-values corrected for the
number of tests. Three tests, each on pairs of *different* groups (one account's own bots never
share a rated table: that is prevented, not detected):

- ``above``: for the ordered pair (A, B), the pairwise results of A's seats against B's seats at the
  tables they shared (A finished above B, or below; level results, equal ranks, are left out),
  against the probability the fitted ratings give each (Bradley-Terry, ``arena.ratings.fit``). Under
  Plackett-Luce, the model of a multi-seat finishing order whose pairwise marginals are
  Bradley-Terry's, the chance that A finishes above B at a table is ``E(A, B)`` whoever else sits
  there, so the expected count needs nothing but the fit. The fit is *leave-pair-out*: the two
  players' results against each other are taken out of it (by one Newton step from the full fit,
  exact to first order: ``d' = d - r q / (1 - w q)``, with ``d`` the fitted difference in natural
  units, ``r`` the pair's points minus their expectation, ``w`` its information ``n p (1 - p)`` and
  ``q`` the variance of the difference), so that a soft-player who always yields to its partner is
  judged against what it does against everybody else, not against ratings its own yielding bent.
  One-sided (A above B more often than predicted), an exact Poisson-binomial tail.
- ``yields``: at each table B shared, how many seats finished above A, against the law Plackett-Luce
  gives that count with the fitted strengths of everyone there; summed over the tables (an exact
  convolution), one-sided: a soft-player that throws its game when its partner sits at the table
  shows even when it is far weaker than its partner. Per table, not per pairwise result: a seat's
  results at one table go together (a poor deal loses to everybody).
- ``leak``: whether the think times of A's seats, at tables B shared, carry information about A's own
  hidden hand: a think time cannot be seen by a bot, so a bot whose waiting encodes its cards is
  signalling to someone who can time it (issue 36: 27 of 27 symbols passed that way). Think times are
  replaced by normal scores of their ranks within each *stratum* (the same player in the same public
  situation: for Ninjan phase, round and number of legal actions; ranked over every table of the
  report), the hidden numbers are centred within strata, and the regression of the first on the
  second is tested by its F statistic (``F(K, n - S - K)``: ``K`` numbers, ``S`` strata). Ranks make
  the test blind to a bot's speed and to heavy tails; strata make it blind to anything public (a bot
  may think longer with more cards in hand or more piles to choose from, which everybody sees).
- ``sync``: whether A's and B's think times at the same decisions (simultaneous moves of one table)
  are correlated, the same normal scores, Pearson's ``r`` and its t test, two-sided.

Design detail, the correction: **Holm's** step-down over every test of the report. Like Bonferroni it
keeps the family-wise error rate (the chance of flagging anything in an honest pool) at ``alpha``
whatever the dependence between tests, and it flags everything Bonferroni flags and sometimes more: it
needs no independence (the tests of one pool share tables and ratings, so Benjamini-Hochberg's false
discovery rate, or Hochberg's step-up, would assume more than holds), and the question an organiser
asks is "is anything here at all?", which is the family-wise rate. ``FLAG_ALPHA`` = 0.01 (a game's
report raises any flag in an honest pool at most 1% of the time, if the p-values are exact; measured:
docs/security.md, bench/collusion_bench.py). Pairs are ranked by their smallest raw p-value (the same
order as Holm's adjusted one).

Design detail, asymptotic p-values rather than a permutation null: a pool of 20 groups makes about
a thousand tests, so Holm's first threshold is about ``alpha / 1000``, and a permutation p-value that
small needs ~10^5 permutations per test. The F test on normal scores is exact when the scores are
normal and independent of the hidden numbers, which ranks within strata make them nearly; the bench's
honest pools measure how nearly (their share with any flag). ``permutation_p`` gives the seeded
permutation p-value of one leak test (within strata), to check a flagged pair by another route.

What it does not see, and what a flag is not: docs/security.md, "Collusion".
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from operator import mul
from statistics import NormalDist
from typing import Any, NamedTuple

from arena.ratings.elo import Placement
from arena.ratings.fit import CENTER, ELO_PER_UNIT, Fit, fit
from arena.ratings.pairs import table_of
from arena.ratings.significance import (
    correlation,
    explained,
    f_survival,
    holm,
    places_above,
    sum_tail,
    t_survival,
    upper_tail,
)

FLAG_ALPHA = 0.01  # family-wise false-alarm rate per report (Holm)
MIN_GAMES = 5  # pairwise results a results test needs
MIN_DEGREES = 10  # residual degrees of freedom a leak test needs (n - strata - numbers)
MIN_SHARED = 12  # shared decisions a sync test needs
TESTS = ("above", "yields", "leak", "sync")
_NORMAL = NormalDist()


@dataclasses.dataclass(frozen=True)
class Seat:
    """One seat of a recorded match: the player (``bot@version``), its group (account) and its rank."""

    player: str
    group: str
    rank: int


@dataclasses.dataclass(frozen=True)
class Decision:
    """One decision of one seat: its think time (ms), the public situation it was taken in
    (``stratum``, e.g. ``"commit-3-7"``) and numbers describing what that seat alone could see."""

    seat: int
    step: int
    stratum: str
    ms: float
    hidden: tuple[float, ...] = ()


@dataclasses.dataclass(frozen=True)
class Table:
    """One recorded match: its seats in seat order and, where kept, its decisions."""

    match_id: str
    seats: tuple[Seat, ...]
    decisions: tuple[Decision, ...] = ()


@dataclasses.dataclass(frozen=True)
class Finding:
    """One test of one pair: ``first`` is the group the test is about (it finished above ``second``
    too often; it lost too often at tables with ``second``; its think times leaked its hand at tables
    with ``second``; for ``sync`` either)."""

    test: str  # "above", "yields", "leak" or "sync"
    first: str
    second: str
    tables: int  # tables the two shared
    n: int  # pairwise results (above, yields) or decisions (leak, sync) the test used
    observed: float  # above: A's wins over B; yields: A's losses; leak: R squared; sync: correlation
    expected: float  # above, yields: their expectation; leak: K / (n - S) (chance R squared); sync: 0
    p: float
    p_holm: float = 1.0
    flagged: bool = False

    def to_json(self) -> dict[str, Any]:
        """Returns the finding as ``arena collusion --json`` prints it."""
        return {
            "test": self.test,
            "first": self.first,
            "second": self.second,
            "tables": self.tables,
            "n": self.n,
            "observed": round(self.observed, 4),
            "expected": round(self.expected, 4),
            "p": float(f"{self.p:.4g}"),
            "p_holm": float(f"{self.p_holm:.4g}"),
            "flagged": self.flagged,
        }


@dataclasses.dataclass(frozen=True)
class PairEvidence:
    """A pair of groups with every test of theirs, strongest first."""

    rank: int
    groups: tuple[str, str]
    findings: tuple[Finding, ...]

    @property
    def p(self) -> float:
        """Returns the smallest raw p-value of the pair's tests."""
        return self.findings[0].p

    @property
    def p_holm(self) -> float:
        """Returns the smallest Holm-adjusted p-value of the pair's tests."""
        return self.findings[0].p_holm

    @property
    def flagged(self) -> bool:
        """Returns whether any test of the pair is flagged."""
        return any(f.flagged for f in self.findings)

    def to_json(self) -> dict[str, Any]:
        """Returns the pair as ``arena collusion --json`` prints it."""
        return {
            "rank": self.rank,
            "groups": list(self.groups),
            "p": float(f"{self.p:.4g}"),
            "p_holm": float(f"{self.p_holm:.4g}"),
            "flagged": self.flagged,
            "findings": [f.to_json() for f in self.findings],
        }


@dataclasses.dataclass(frozen=True)
class Report:
    """Every pair of groups that met, ranked by evidence; ``tests`` is Holm's ``m``."""

    matches: int
    groups: int
    tests: int
    alpha: float
    pairs: tuple[PairEvidence, ...]

    @property
    def flagged(self) -> tuple[PairEvidence, ...]:
        """Returns the flagged pairs, strongest first."""
        return tuple(p for p in self.pairs if p.flagged)

    def to_json(self, limit: int | None = None) -> dict[str, Any]:
        """Returns the report (the first ``limit`` pairs) as ``arena collusion --json`` prints it."""
        return {
            "matches": self.matches,
            "groups": self.groups,
            "tests": self.tests,
            "alpha": self.alpha,
            "correction": "holm",
            "flagged": len(self.flagged),
            "pairs": [p.to_json() for p in self.pairs[:limit]],
        }


def analyse(tables: Sequence[Table], alpha: float = FLAG_ALPHA) -> Report:
    """Returns every pair of groups that shared a table, ranked by its strongest test, with p-values
    adjusted by Holm over all tests and those at or below ``alpha`` flagged."""
    decisions = timed(tables)
    findings = [
        *results_findings(tables),
        *leak_findings(tables, decisions),
        *sync_findings(tables, decisions),
    ]
    adjusted = holm([f.p for f in findings])
    findings = [
        dataclasses.replace(f, p_holm=a, flagged=a <= alpha) for f, a in zip(findings, adjusted, strict=True)
    ]
    by_pair: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    for f in findings:
        by_pair[_pair_key(f.first, f.second)].append(f)
    ordered = sorted(
        (sorted(fs, key=lambda f: (f.p, TESTS.index(f.test), f.first)) for fs in by_pair.values()),
        key=lambda fs: (fs[0].p, _pair_key(fs[0].first, fs[0].second)),
    )
    pairs = tuple(
        PairEvidence(rank, _pair_key(fs[0].first, fs[0].second), tuple(fs))
        for rank, fs in enumerate(ordered, 1)
    )
    groups = {s.group for t in tables for s in t.seats}
    return Report(len(tables), len(groups), len(findings), alpha, pairs)


# Results -----------------------------------------------------------------------------------------


def results_findings(tables: Sequence[Table]) -> list[Finding]:
    """Returns the ``above`` and ``yields`` tests of every ordered pair of groups with enough pairwise
    results (see the module docstring)."""
    fitted = fit(table_of([Placement(s.player, s.rank) for s in t.seats] for t in tables))
    records = _player_records(tables)
    expected: dict[tuple[str, str], float] = {}

    def chance(a: str, b: str) -> float:
        if (a, b) not in expected:
            expected[(a, b)] = leave_pair_out(fitted, a, b, records)
            expected[(b, a)] = 1.0 - expected[(a, b)]
        return expected[(a, b)]

    above: dict[tuple[str, str], list[float]] = defaultdict(list)  # (A, B) -> P(A above B) per result
    above_wins: dict[tuple[str, str], int] = defaultdict(int)
    beside: dict[tuple[str, str], list[list[float]]] = defaultdict(list)  # (A, B) -> per table with B:
    beside_losses: dict[tuple[str, str], int] = defaultdict(int)  # the law of the seats above A; their count
    shared: dict[tuple[str, str], set[str]] = defaultdict(set)
    strength = {p: math.exp((r - CENTER) / ELO_PER_UNIT) for p, r in fitted.ratings.items()}
    for t in tables:
        groups = sorted({s.group for s in t.seats})
        for a in t.seats:
            rivals = [b for b in t.seats if b.group != a.group]
            for b in rivals:
                if a.rank != b.rank:
                    above[(a.group, b.group)].append(chance(a.player, b.player))
                    above_wins[(a.group, b.group)] += a.rank < b.rank
            law = places_above(strength[a.player], [strength[b.player] for b in rivals])
            for partner in groups:
                if partner != a.group:
                    beside[(a.group, partner)].append(law)
                    beside_losses[(a.group, partner)] += sum(1 for b in rivals if b.rank < a.rank)
        for i, first in enumerate(groups):
            for second in groups[i + 1 :]:
                shared[(first, second)].add(t.match_id)
    out = []
    for (first, second), ps in sorted(above.items()):
        if len(ps) >= MIN_GAMES:
            k, together = above_wins[(first, second)], len(shared[_pair_key(first, second)])
            out.append(Finding("above", first, second, together, len(ps), k, sum(ps), upper_tail(ps, k)))
    for (first, second), laws in sorted(beside.items()):
        if len(laws) >= MIN_GAMES:
            k, together = beside_losses[(first, second)], len(shared[_pair_key(first, second)])
            mean = sum(j * q for law in laws for j, q in enumerate(law))
            out.append(Finding("yields", first, second, together, len(laws), k, mean, sum_tail(laws, k)))
    return out


def _player_records(tables: Sequence[Table]) -> dict[tuple[str, str], tuple[int, float]]:
    """Returns (pairwise results, points of the first) for every ordered pair of players."""
    counts: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0.0])
    for t in tables:
        for i, a in enumerate(t.seats):
            for b in t.seats[i + 1 :]:
                score = 1.0 if a.rank < b.rank else 0.5 if a.rank == b.rank else 0.0
                for key, s in (((a.player, b.player), score), ((b.player, a.player), 1.0 - score)):
                    counts[key][0] += 1
                    counts[key][1] += s
    return {k: (int(v[0]), v[1]) for k, v in counts.items()}


def leave_pair_out(
    fitted: Fit, a: str, b: str, records: Mapping[tuple[str, str], tuple[int, float]]
) -> float:
    """Returns P(``a`` finishes above ``b``) under the fit with the two players' own results against
    each other taken out: one Newton step from the full fit (see the module docstring)."""
    n, s = records.get((a, b), (0, 0.0))
    d = (fitted.ratings[a] - fitted.ratings[b]) / ELO_PER_UNIT
    p = _sigmoid(d)
    q = (fitted.difference_sd(a, b) / ELO_PER_UNIT) ** 2
    w = n * p * (1.0 - p)
    room = 1.0 - w * q
    if room < 1e-6:  # the pair's results were all the fit knew of their difference
        return 0.5
    return _sigmoid(d - (s - n * p) * q / room)


# Think times -------------------------------------------------------------------------------------


class Timed(NamedTuple):
    """A decision placed for the think-time tests: its table (index), group, step, stratum (an id of
    the player and the public situation), think time, its normal score and the hidden numbers."""

    table: int
    group: str
    step: int
    stratum: int
    ms: float
    score: float
    hidden: tuple[float, ...]


def timed(tables: Sequence[Table]) -> list[Timed]:
    """Returns every decision with a think time, scored: the normal score of its think time's rank
    among the same player's decisions in the same stratum (over all the tables given)."""
    placed = [
        (i, t.seats[d.seat], d)
        for i, t in enumerate(tables)
        for d in t.decisions
        if 0 <= d.seat < len(t.seats) and math.isfinite(d.ms)
    ]
    ids: dict[tuple[str, str], int] = {}
    strata = [ids.setdefault((seat.player, d.stratum), len(ids)) for _, seat, d in placed]
    scores = _scores([d.ms for _, _, d in placed], strata)
    return [
        Timed(i, seat.group, d.step, stratum, d.ms, score, d.hidden)
        for (i, seat, d), stratum, score in zip(placed, strata, scores, strict=True)
    ]


def _tables_of_groups(tables: Sequence[Table]) -> dict[str, set[int]]:
    seated: dict[str, set[int]] = defaultdict(set)
    for i, t in enumerate(tables):
        for s in t.seats:
            seated[s.group].add(i)
    return seated


def leak_findings(tables: Sequence[Table], decisions: Sequence[Timed] | None = None) -> list[Finding]:
    """Returns the ``leak`` test of every ordered pair (A, B): A's think times at the tables it shared
    with B against A's hidden numbers there (``decisions``: ``timed(tables)``, if computed already)."""
    by_group: dict[str, dict[int, list[Timed]]] = defaultdict(lambda: defaultdict(list))
    for x in timed(tables) if decisions is None else decisions:
        if x.hidden:
            by_group[x.group][x.table].append(x)
    seated = _tables_of_groups(tables)
    out = []
    for first in sorted(by_group):
        mine = by_group[first]
        for second in sorted(seated):
            if second == first:
                continue
            together = seated[first] & seated[second]
            rows = [x for table in sorted(together) for x in mine.get(table, ())]
            if not rows:
                continue
            tested = leak_test(rows)
            if tested is None:
                continue
            r2, chance, p, n = tested
            out.append(Finding("leak", first, second, len(together), n, r2, chance, p))
    return out


def leak_test(rows: Sequence[Timed]) -> tuple[float, float, float, int] | None:
    """Returns (R squared, its chance value K / (n - S), F test p-value, n) of the regression of
    think-time scores on the hidden numbers, both centred within strata; None with too little data."""
    return _regression([x.score for x in rows], rows)


def _regression(scores: Sequence[float], rows: Sequence[Timed]) -> tuple[float, float, float, int] | None:
    strata = [x.stratum for x in rows]
    y = _centred(scores, strata)
    width = min(len(x.hidden) for x in rows)
    columns = [_centred([x.hidden[k] for x in rows], strata) for k in range(width)]
    columns = [c for c in columns if sum(map(mul, c, c)) > 1e-9]
    n, s, k = len(rows), len(set(strata)), len(columns)
    df2 = n - s - k
    total = sum(map(mul, y, y))
    if k == 0 or df2 < MIN_DEGREES or total <= 0:
        return None
    r2 = min(explained(y, columns) / total, 1.0)
    chance = k / (n - s)
    if r2 >= 1.0 - 1e-12:
        return r2, chance, 0.0, n
    f = (r2 / k) / ((1.0 - r2) / df2)
    return r2, chance, f_survival(f, k, df2), n


def permutation_p(rows: Sequence[Timed], permutations: int = 999, seed: int = 0) -> float:
    """Returns the seeded permutation p-value of ``leak_test``'s R squared, the think-time scores
    permuted within strata: ``(1 + #{R2* >= R2}) / (1 + permutations)``."""
    observed = leak_test(rows)
    if observed is None:
        return 1.0
    rng = random.Random(f"collusion-permutation/{seed}")
    members: dict[int, list[int]] = defaultdict(list)
    for i, x in enumerate(rows):
        members[x.stratum].append(i)
    scores = [x.score for x in rows]
    above = 0
    for _ in range(permutations):
        for idx in members.values():
            values = [scores[i] for i in idx]
            rng.shuffle(values)
            for i, v in zip(idx, values, strict=True):
                scores[i] = v
        again = _regression(scores, rows)
        if again is not None and again[0] >= observed[0] - 1e-12:
            above += 1
    return (1 + above) / (1 + permutations)


def leak_rows(tables: Sequence[Table], first: str, second: str) -> list[Timed]:
    """Returns the decisions the ``leak`` test of (first, second) uses (for ``permutation_p``)."""
    seated = _tables_of_groups(tables)
    together = seated[first] & seated[second]
    return [x for x in timed(tables) if x.hidden and x.group == first and x.table in together]


def sync_findings(tables: Sequence[Table], decisions: Sequence[Timed] | None = None) -> list[Finding]:
    """Returns the ``sync`` test of every unordered pair: the correlation of the two groups' think-time
    scores over the decisions they took at the same step of the same table (Pearson, t test)."""
    at: dict[tuple[int, int], list[Timed]] = defaultdict(list)
    for x in timed(tables) if decisions is None else decisions:
        at[(x.table, x.step)].append(x)
    shared: dict[tuple[str, str], tuple[list[float], list[float], set[int]]] = {}
    for xs in at.values():
        for i, a in enumerate(xs):
            for b in xs[i + 1 :]:
                if a.group == b.group:
                    continue
                low, high = (a, b) if a.group < b.group else (b, a)
                lists = shared.setdefault((low.group, high.group), ([], [], set()))
                lists[0].append(low.score)
                lists[1].append(high.score)
                lists[2].add(a.table)
    out = []
    for (first, second), (xs_a, xs_b, where) in sorted(shared.items()):
        n = len(xs_a)
        if n < MIN_SHARED:
            continue
        mean_a, mean_b = sum(xs_a) / n, sum(xs_b) / n
        r = correlation([v - mean_a for v in xs_a], [v - mean_b for v in xs_b])
        df = n - 2
        t = r * math.sqrt(df / max(1e-300, 1.0 - r * r))
        p = min(1.0, 2.0 * t_survival(abs(t), df))
        out.append(Finding("sync", first, second, len(where), n, r, 0.0, p))
    return out


def _scores(values: Sequence[float], strata: Sequence[Any]) -> list[float]:
    """Returns each value's normal score (van der Waerden: ``Phi^-1(rank / (m + 1))``) among the values of
    its stratum, ties sharing their mean rank."""
    members: dict[Any, list[int]] = defaultdict(list)
    for i, s in enumerate(strata):
        members[s].append(i)
    out = [0.0] * len(values)
    for idx in members.values():
        idx.sort(key=lambda i: values[i])
        m, j = len(idx), 0
        while j < m:
            end = j
            while end + 1 < m and values[idx[end + 1]] == values[idx[j]]:
                end += 1
            score = _NORMAL.inv_cdf(((j + end) / 2 + 1) / (m + 1))
            for i in idx[j : end + 1]:
                out[i] = score
            j = end + 1
    return out


def _centred(values: Sequence[float], strata: Sequence[Any]) -> list[float]:
    """Returns each value minus the mean of its stratum."""
    sums: dict[Any, float] = defaultdict(float)
    counts: dict[Any, int] = defaultdict(int)
    for v, s in zip(values, strata, strict=True):
        sums[s] += v
        counts[s] += 1
    means = {s: sums[s] / counts[s] for s in sums}
    return [v - means[s] for v, s in zip(values, strata, strict=True)]


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _pair_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)
