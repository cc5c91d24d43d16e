"""Elo fitted to all results at once: Bradley-Terry, maximum a posteriori, with error bars and LOS.

The model (Bradley-Terry on the Elo scale): player ``i`` scores against ``j`` with probability
``1 / (1 + 10 ** ((r_j - r_i) / 400))``, so 400 points are 10:1 odds; a draw counts as half a win to
each side. A match of ``k`` seats is read as its ``k(k-1)/2`` pairwise results, each weighing
``match_weight(k) = 3 / (k + 1)`` (1 for two seats). The estimator is the maximum a posteriori fit
with arena's prior: every player has also drawn two virtual games against a virtual opponent rated
1500. (Not BayesElo's prior, which spreads each player's two virtual draws over its real opponents:
3:1 in four games puts two players 145.8 Elo apart here, 120.4 under BayesElo's.) The prior makes
every rating finite (a player that never lost is rated above its opponents, not at infinity),
anchors the scale (the virtual opponent is 1500) and ties every player to it, so the fit exists even
when the players fall into groups that never met. Its pull is worth two games: negligible after a
few dozen, decisive after none.

Design detail, the weight (issue 37): the pairwise results of one match are not independent. Under
Plackett-Luce (each place drawn among the seats left with odds ``10 ** (r / 400)``) every pair is
exactly Bradley-Terry, so the pairwise reading finds the right ratings, but a seat's pairwise score
in one ``k``-seat match, ``k - rank``, has variance ``(k^2 - 1) / 12`` at even strengths: ``(k + 1) /
3`` times the ``(k - 1) / 4`` of independent pairs. Counted as independent, a match's evidence is
counted ``(k + 1) / 3`` times over, and the intervals were too narrow (coverage of the "95%" intervals
92% at 3 seats, 89% at 4, 83% at 6: bench/coverage_bench.py). Weighing each pair ``3 / (k + 1)``
makes the curvature the composite likelihood's sandwich variance (``H^-1 J H^-1`` with ``J = (k + 1)
/ 3 H``), so the intervals hold their 95% at every table size, while the fit still depends on the
results only through the pair table (now kept per table size) and costs what it did. A full
Plackett-Luce fit would gain a little precision (its information per 4-seat match is 6% higher) but
needs every distinct finishing line-up stored, which grows with the results: docs/ratings.md.

Design detail, the seat advantage: for a game that records seats (``arena.ratings.seating``), a
pairwise result of seats ``s`` and ``t`` of a ``k``-seat table compares ``r_i + a(k, s)`` with ``r_j +
a(k, t)``, where ``a(k, 0) = 0`` and every other ``a(k, s)`` is fitted with the ratings (the same
prior: two virtual draws against seat 0), reported in ``Fit.seat_advantage``.

Why a fit instead of the online Elo of ``arena.ratings.elo``: the fit depends on the results only
through the pair table (``arena.ratings.pairs``), so it does not depend on their order, and its cost
depends on the number of players, not of results.

Design detail, the method: Newton's method on the log-posterior in natural units
(``theta = (r - 1500) * ln(10) / 400``), from all players at 1500, with step halving whenever a step
would lower the posterior (it is concave, so this converges from any start); it stops when the largest
step is below ``TOLERANCE_ELO``. Each step solves the full Hessian system by Cholesky, ``O(n^3)`` for
``n`` players: about a fifth of a second for 100 players (bench/ratings_bench.py), independent of the
number of results. Sums run over players and pairs in sorted order, so the fit is deterministic. With a seat
advantage, the seats' parameters join the players' in the same system; their covariance with the
ratings is accounted for (the players' block of the inverse is their marginal covariance).

Design detail, the intervals: from the curvature of the log-posterior at its maximum. The covariance of
the ratings is the inverse of the full observed information (minus the Hessian, prior included), not a
per-player value with the others held fixed: ratings are relative, and the LOS of one player over the
next needs the covariance of the two (``var(a - b) = var a + var b - 2 cov(a, b)``). A bootstrap over
matches would cost hundreds of refits per page; the curvature costs one matrix inverse, and the prior
keeps it finite for a player that never lost, whose interval is then wide (open) rather than empty.
The covariance is then taken relative to the pool's average rating (``C' = P C P`` with ``P = I -
11^T / n``), as BayesElo reports its intervals: the prior places the pool on the scale, and a
rating's interval says how well the results place it among the others. Against the virtual opponent
instead, every interval would include the uncertainty of the whole pool's location, which only the prior's two
virtual games per player settle: about +/-140 for each member of a small pool, whatever its games.
Differences, and so LOS, are the same either way.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from operator import mul
from typing import Any

from arena.ratings.elo import INITIAL_RATING, expected_score
from arena.ratings.pairs import PLAIN, WEIGHT_UNITS, PairTable, match_weight, split_player

CENTER = INITIAL_RATING  # 1500: the virtual opponent's rating, and every player's before any result
ELO_PER_UNIT = 400.0 / math.log(10.0)  # Elo points per natural-log unit of odds (173.7...)
PRIOR_DRAWS = 2.0  # virtual draws of every player against the virtual 1500 (not BayesElo's prior)
TOLERANCE_ELO = 1e-6  # Newton stops when no rating moved by more than this (Elo points)
MAX_ITERATIONS = 100
Z95 = 1.959963984540054  # two-sided 95% quantile of the normal law
PROVISIONAL_HALF_WIDTH = 150.0  # a rating whose 95% interval is wider than +/- this is provisional
MIN_GAMES = 10  # as is the rating of a player with fewer matches than this


@dataclasses.dataclass(frozen=True)
class Fit:
    """The fitted ratings (Elo) of the players of a pair table, with their covariance (Elo squared)."""

    players: tuple[str, ...]
    ratings: Mapping[str, float]
    covariance: tuple[tuple[float, ...], ...]  # in the order of ``players``
    games: Mapping[str, int]  # matches played, from the pair table
    iterations: int
    # per seat tag "k:s" (seat s of a k-seat table, from 1): its advantage over seat 0, in Elo, and
    # its standard error; empty for a game fitted without seat advantage
    seat_advantage: Mapping[str, tuple[float, float]] = dataclasses.field(default_factory=dict)
    draw_ratio: float | None = None  # the share of pairwise results drawn (None: no result)

    def _index(self, player: str) -> int:
        return self.players.index(player)

    def sd(self, player: str) -> float:
        """Returns the standard error of ``player``'s rating (Elo)."""
        i = self._index(player)
        return math.sqrt(self.covariance[i][i])

    def interval(self, player: str) -> tuple[float, float]:
        """Returns the 95% interval of ``player``'s rating (rating -/+ 1.96 standard errors)."""
        half = Z95 * self.sd(player)
        return self.ratings[player] - half, self.ratings[player] + half

    def difference_sd(self, a: str, b: str) -> float:
        """Returns the standard error of the rating difference ``a - b`` (Elo)."""
        i, j = self._index(a), self._index(b)
        c = self.covariance
        return math.sqrt(max(c[i][i] + c[j][j] - 2.0 * c[i][j], 0.0))

    def los(self, a: str, b: str) -> float:
        """Returns the likelihood of superiority of ``a`` over ``b``: P(true r_a > true r_b)."""
        sd = self.difference_sd(a, b)
        diff = self.ratings[a] - self.ratings[b]
        if sd == 0.0:
            return 0.5 if diff == 0 else float(diff > 0)
        return 0.5 * (1.0 + math.erf(diff / sd / math.sqrt(2.0)))

    def win_probability(self, a: str, b: str) -> float:
        """Returns the expected score of ``a`` against ``b`` (a draw counting half) under the fit."""
        return expected_score(self.ratings[a], self.ratings[b])


@dataclasses.dataclass(frozen=True)
class Standing:
    """One row of a ranking: a player's fitted rating, its 95% interval and its LOS over the next row."""

    rank: int
    player: str
    bot: str
    version: str
    elo: float
    low: float
    high: float
    games: int
    provisional: bool
    los_next: float | None  # P(this player is stronger than the next row's); None on the last row
    # P(this player is stronger than the next established row's): the LOS a reader compares when the
    # provisional rows are hidden; None when no established row is below
    los_next_established: float | None

    def to_json(self) -> dict[str, Any]:
        """Returns the row as ``arena leaderboard --json`` prints it (Elo to 0.1, LOS to 0.001)."""
        return {
            "rank": self.rank,
            "bot": self.bot,
            "version": self.version,
            "elo": round(self.elo, 1),
            "low": round(self.low, 1),
            "high": round(self.high, 1),
            "games": self.games,
            "provisional": self.provisional,
            "los_next": _rounded_los(self.los_next),
            "los_next_established": _rounded_los(self.los_next_established),
        }


def _rounded_los(los: float | None) -> float | None:
    return None if los is None else round(los, 3)


def is_provisional(result: Fit, player: str) -> bool:
    """Returns whether ``player``'s rating is too uncertain to take its rank at face value: too few
    games or too wide an interval (its row is marked, not moved)."""
    return result.games[player] < MIN_GAMES or Z95 * result.sd(player) > PROVISIONAL_HALF_WIDTH


def standings(result: Fit, players: Sequence[str] | None = None) -> list[Standing]:
    """Returns the ranking of ``players`` (default: all), by rating alone, provisional players among
    the others and marked (``provisional``): moving them below every established player would show
    rank 1 to a bot that scored less, and readers take rank 1 at face value; the mark, and the
    interval beside it, say how far to trust a row.

    Each row's ``los_next`` compares it with the row below, the one a reader compares it with; pass
    the players to show (say, each bot's latest version) so that LOS is taken between shown rows. A
    reader who hides the provisional rows compares each established row with the next established
    one, so each row also carries that LOS (``los_next_established``).
    """
    shown = sorted(result.players if players is None else players, key=lambda p: (-result.ratings[p], p))
    provisional = {p: is_provisional(result, p) for p in shown}
    next_established: dict[str, str | None] = {}
    nearest: str | None = None
    for player in reversed(shown):
        next_established[player] = nearest
        nearest = nearest if provisional[player] else player
    rows = []
    for rank, player in enumerate(shown, 1):
        below = shown[rank] if rank < len(shown) else None
        established_below = next_established[player]
        low, high = result.interval(player)
        bot, version = split_player(player)
        rows.append(
            Standing(
                rank,
                player,
                bot,
                version,
                result.ratings[player],
                low,
                high,
                result.games[player],
                provisional[player],
                None if below is None else result.los(player, below),
                None if established_below is None else result.los(player, established_below),
            )
        )
    return rows


def win_table(result: Fit, players: Sequence[str] | None = None) -> dict[str, dict[str, float]]:
    """Returns ``table[a][b]``: the expected score of ``a`` against ``b`` for every two players shown."""
    shown = list(result.players if players is None else players)
    return {a: {b: result.win_probability(a, b) for b in shown if b != a} for a in shown}


def fit(table: PairTable, prior_draws: float = PRIOR_DRAWS) -> Fit:
    """Returns the maximum a posteriori fit of the table, with the full covariance of the ratings."""
    if prior_draws <= 0:
        raise ValueError("the MAP fit needs a positive prior; use mle_ratings for the prior-free fit")
    players = table.players()
    pairs, seats = _terms(table, players)
    size = len(players) + len(seats)
    theta, iterations, factor = _newton(size, pairs, prior_draws, free=None)
    inverse = _inverse(factor)
    n = len(players)
    block = _centered([row[:n] for row in inverse[:n]])
    covariance = tuple(tuple(v * ELO_PER_UNIT**2 for v in row) for row in block)
    ratings = {p: CENTER + t * ELO_PER_UNIT for p, t in zip(players, theta[:n], strict=True)}
    games = {p: table.games(p) for p in players}
    advantage = {
        tag: (theta[k] * ELO_PER_UNIT, math.sqrt(inverse[k][k]) * ELO_PER_UNIT) for tag, k in seats.items()
    }
    return Fit(tuple(players), ratings, covariance, games, iterations, advantage, table.draw_ratio())


def mle_ratings(table: PairTable) -> dict[str, float]:
    """Returns the prior-free maximum likelihood ratings, shifted so that their mean is 1500.

    They exist (are finite) only if every split of the players into two groups has each group scoring
    against the other (a win or a draw); otherwise this raises ``ValueError``. For two players with
    a 3:1 score they are ``400 * log10(3)`` = 190.8 points apart.
    """
    players = table.players()
    if len(players) < 2:
        return {p: CENTER for p in players}
    _require_finite_mle(table, players)
    pairs, seats = _terms(table, players)
    if seats:
        raise ValueError("the prior-free ratings are fitted without seat advantage")
    theta, _, _ = _newton(len(players), pairs, 0.0, free=range(1, len(players)))
    mean = sum(theta) / len(theta)
    return {p: CENTER + (t - mean) * ELO_PER_UNIT for p, t in zip(players, theta, strict=True)}


# (i, j, games, score of i, seat term of i, seat term of j): parameter indices, the games and score
# weighted (``match_weight``); a seat term is NO_SEAT for seat 0 or a result recorded without seats
_Pair = tuple[int, int, float, float, int, int]
NO_SEAT = -1


def _terms(table: PairTable, players: Sequence[str]) -> tuple[list[_Pair], dict[str, int]]:
    """Returns the fit's terms, weighted, and the parameter index of every seat tag ("k:s", s >= 1)
    the table holds (after the players'). A pair's results without seats are one term, whatever
    their table sizes: their counts less their weight deficits (``arena.ratings.pairs``), so the fit
    costs what it did before weights, and a table stored before them fits as it did."""
    index = {p: i for i, p in enumerate(players)}
    plain: list[tuple[int, int, list[int], tuple[int, int, int]]] = []
    seated: list[tuple[tuple[str, str, int, int, int], list[int]]] = []
    for cell, counts in table.counts():
        if cell[3] == PLAIN:
            plain.append((index[cell[0]], index[cell[1]], counts, table.deficit(cell[0], cell[1])))
        else:
            seated.append((cell, counts))
    tags = sorted({f"{c[2]}:{s}" for c, _ in seated for s in c[3:] if s > 0})
    seats = {tag: len(players) + k for k, tag in enumerate(tags)}
    terms: list[_Pair] = []
    for i, j, (wins, draws, losses), (lack_w, lack_d, lack_l) in sorted(plain):
        won, drawn = wins - lack_w / WEIGHT_UNITS, draws - lack_d / WEIGHT_UNITS
        games = won + drawn + losses - lack_l / WEIGHT_UNITS
        if games > 0:
            terms.append((i, j, games, won + drawn / 2, NO_SEAT, NO_SEAT))
    for (a, b, size, seat_a, seat_b), (wins, draws, losses) in sorted(seated):
        weight = match_weight(size)
        seat_i, seat_j = (seats.get(f"{size}:{s}", NO_SEAT) for s in (seat_a, seat_b))
        games, score = weight * (wins + draws + losses), weight * (wins + draws / 2)
        terms.append((index[a], index[b], games, score, seat_i, seat_j))
    return terms, seats


def _difference(theta: Sequence[float], term: _Pair) -> float:
    """Returns a term's strength difference: its players', and its seats' when it has seats."""
    i, j, _, _, si, sj = term
    d = theta[i] - theta[j]
    if si != NO_SEAT:
        d += theta[si]
    if sj != NO_SEAT:
        d -= theta[sj]
    return d


def _indices(term: _Pair) -> list[tuple[int, float]]:
    """Returns the parameters a term's difference moves with, and the sign of each."""
    i, j, _, _, si, sj = term
    out = [(i, 1.0), (j, -1.0)]
    return out + [(k, sign) for k, sign in ((si, 1.0), (sj, -1.0)) if k != NO_SEAT]


def _log_sigmoid(x: float) -> float:
    """Returns log(1 / (1 + exp(-x))) without overflow."""
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _log_posterior(theta: Sequence[float], pairs: Sequence[_Pair], prior: float) -> float:
    """Returns the log-likelihood of the pairs plus the prior's virtual draws (up to a constant)."""
    total = 0.0
    for term in pairs:
        d = _difference(theta, term)
        n, s = term[2], term[3]
        total += s * _log_sigmoid(d) + (n - s) * _log_sigmoid(-d)
    if prior:
        total += sum(0.5 * prior * (_log_sigmoid(t) + _log_sigmoid(-t)) for t in theta)
    return total


def _gradient(theta: Sequence[float], pairs: Sequence[_Pair], prior: float) -> list[float]:
    """Returns the gradient of ``_log_posterior``: each player's score minus its expected score."""
    g = [prior * (0.5 - _sigmoid(t)) for t in theta]
    for term in pairs:
        r = term[3] - term[2] * _sigmoid(_difference(theta, term))
        for k, sign in _indices(term):
            g[k] += sign * r
    return g


def _information(theta: Sequence[float], pairs: Sequence[_Pair], prior: float) -> list[list[float]]:
    """Returns minus the Hessian of ``_log_posterior`` (the observed information matrix)."""
    size = len(theta)
    h = [[0.0] * size for _ in range(size)]
    for i, t in enumerate(theta):
        p = _sigmoid(t)
        h[i][i] = prior * p * (1.0 - p)
    for term in pairs:
        p = _sigmoid(_difference(theta, term))
        w = term[2] * p * (1.0 - p)
        if term[4] == term[5] == NO_SEAT:
            i, j = term[0], term[1]
            h[i][i] += w
            h[j][j] += w
            h[i][j] -= w
            h[j][i] -= w
            continue
        moved = _indices(term)
        for a, sign_a in moved:
            for b, sign_b in moved:
                h[a][b] += sign_a * sign_b * w
    return h


def _newton(
    size: int, pairs: Sequence[_Pair], prior: float, free: Sequence[int] | range | None
) -> tuple[list[float], int, list[list[float]]]:
    """Returns the maximizing ``theta``, the number of Newton steps and the Cholesky factor of the
    information at the last step (which moved no rating by more than the tolerance, so it serves
    as the information at the maximum) for ``size`` parameters (the players', then the seats');
    ``free`` lists those that move (None: all), the others staying at 0 (the prior-free fit pins one
    player)."""
    theta = [0.0] * size
    free = list(range(size) if free is None else free)
    current = _log_posterior(theta, pairs, prior)
    for iteration in range(1, MAX_ITERATIONS + 1):
        g = _gradient(theta, pairs, prior)
        h = _information(theta, pairs, prior)
        factor = _cholesky([[h[i][j] for j in free] for i in free])
        step = _solve(factor, [g[i] for i in free])
        scale = 1.0
        for _ in range(60):
            trial = list(theta)
            for k, i in enumerate(free):
                trial[i] += scale * step[k]
            value = _log_posterior(trial, pairs, prior)
            if value >= current - 1e-12 * abs(current):
                break
            scale *= 0.5
        theta, current = trial, value
        if max(map(abs, step), default=0.0) * ELO_PER_UNIT < TOLERANCE_ELO:
            return theta, iteration, factor
    raise RuntimeError(f"the rating fit did not converge in {MAX_ITERATIONS} Newton steps")


def _cholesky(a: Sequence[Sequence[float]]) -> list[list[float]]:
    """Returns the lower-triangular ``L`` with ``L L^T = a`` (``a`` symmetric positive definite)."""
    n = len(a)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        row = low[i]
        for j in range(i + 1):
            other = low[j]
            s = a[i][j] - sum(map(mul, row[:j], other[:j]))
            if i == j:
                if s <= 0.0:
                    raise ValueError("the information matrix is not positive definite")
                row[i] = math.sqrt(s)
            else:
                row[j] = s / other[j]
    return low


def _solve(low: Sequence[Sequence[float]], b: Sequence[float]) -> list[float]:
    """Returns ``x`` with ``L L^T x = b``, by forward then backward substitution."""
    n = len(b)
    y = [0.0] * n
    for i in range(n):
        y[i] = (b[i] - sum(map(mul, low[i][:i], y[:i]))) / low[i][i]
    upper = [list(col) for col in zip(*low, strict=True)]  # L^T, row by row
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(map(mul, upper[i][i + 1 :], x[i + 1 :]))) / low[i][i]
    return x


def _inverse(low: Sequence[Sequence[float]]) -> list[list[float]]:
    """Returns ``(L L^T)^-1`` as ``M^T M`` with ``M = L^-1`` (lower triangular), column by column."""
    n = len(low)
    cols = []  # column j of M: zero above row j
    for j in range(n):
        col = [0.0] * n
        col[j] = 1.0 / low[j][j]
        for i in range(j + 1, n):
            col[i] = -sum(map(mul, low[i][j:i], col[j:i])) / low[i][i]
        cols.append(col)
    inv = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            inv[i][j] = inv[j][i] = sum(map(mul, cols[i][i:], cols[j][i:]))
    return inv


def _centered(c: Sequence[Sequence[float]]) -> list[list[float]]:
    """Returns the covariance of ``x_i - mean(x)`` given the covariance ``c`` of ``x``."""
    n = len(c)
    row_means = [sum(row) / n for row in c]
    grand = sum(row_means) / n if n else 0.0
    return [[c[i][j] - row_means[i] - row_means[j] + grand for j in range(n)] for i in range(n)]


def _require_finite_mle(table: PairTable, players: Sequence[str]) -> None:
    """Raises ``ValueError`` unless every player both reaches and is reached by every other through
    'scored against' links (a win or a draw): the condition for finite prior-free ratings."""
    scored: dict[str, set[str]] = {p: set() for p in players}
    for a, b, r in table.pairs():
        if r.wins or r.draws:
            scored[a].add(b)
        if r.losses or r.draws:
            scored[b].add(a)
    against: dict[str, set[str]] = {p: set() for p in players}
    for a, targets in scored.items():
        for b in targets:
            against[b].add(a)
    for links in (scored, against):
        seen, todo = {players[0]}, [players[0]]
        while todo:
            for nxt in links[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        if len(seen) != len(players):
            missing = sorted(set(players) - seen)
            raise ValueError(f"the prior-free ratings are infinite: {missing} never scored or never lost")
