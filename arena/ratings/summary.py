"""Head-to-head summaries as chess testers print them: cutechess-cli's Elo estimate from W/D/L counts,
and the fit's likelihood of superiority for every pair of a leaderboard.

``Score`` holds one bot's wins, draws and losses against one opponent and computes what cutechess-cli's
``Elo`` class does (cutechess ``projects/lib/src/elo.cpp``), so a line of ``arena match`` reads, and
recomputes, like one of cutechess-cli's:

- the score ``mu = (W + D/2) / N``, and the Elo difference ``-400 log10(1/mu - 1)``;
- the per-game standard deviation from the trinomial W/D/L: ``sd = sqrt(w (1-mu)^2 + d (1/2-mu)^2 +
  l mu^2) / sqrt(N)`` with ``w, d, l`` the fractions of games;
- the 95% error: half the Elo distance between ``mu -/+ q sd``, ``q = phiInv(0.975) = sqrt(2)
  erfInv(0.95)``, with cutechess-cli's own ``erfInv`` (Winitzki's closed-form approximation, which puts
  ``q`` at 1.9572 instead of 1.9600: a margin 0.14% narrower than the exact quantile's, kept so the
  numbers are cutechess-cli's to the digit);
- LOS ``= 1/2 (1 + erf((W - L) / sqrt(2 (W + L))))`` and the draw ratio ``D / N``.

Where cutechess-cli's arithmetic gives an infinity or NaN (a score of 100% or 0%, no decisive game),
so does ``Score``: ``inf`` / ``nan`` on the terminal, ``null`` in JSON. One exception: where ``mu -/+ q
sd`` leaves 0..1 (a lopsided score over few games), cutechess-cli's margin is NaN (the logarithm of a
negative number) and arena's is ``inf``: the interval is unbounded on that side, which is what a reader
needs to know ("-436.4 +/- nan" reads like a bug).

``head_to_head`` is how a series is reduced to such counts, for any number of seats: in every game,
the bot is ahead of (a win), level with (a draw) or behind (a loss) the opponent in the finishing
order (a forfeited seat ranks last). For two seats that is the game's result; for ``k`` seats it is
the pair's result within the game, which under the Plackett-Luce model of finishing orders follows
exactly the Bradley-Terry law of the two bots' rating difference, so the Elo difference estimates the
same difference as the fit (docs/ratings.md, "Summaries and exports"). Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from arena.ratings.elo import SCALE
from arena.ratings.pairs import Record

_CUTECHESS_PI = 3.1415926535897  # the constant cutechess-cli's erfInv uses, kept for its digits


def cutechess_erf_inv(x: float) -> float:
    """Returns cutechess-cli's inverse error function of ``x`` (-1 < x < 1): Winitzki's approximation
    with ``a = 8 (pi - 3) / (3 pi (4 - pi))``.

    >>> round(cutechess_erf_inv(0.95) * math.sqrt(2), 4)
    1.9572
    """
    pi = _CUTECHESS_PI
    a = 8.0 * (pi - 3.0) / (3.0 * pi * (4.0 - pi))
    y = math.log(1.0 - x * x)
    z = 2.0 / (pi * a) + y / 2.0
    root = math.sqrt(math.sqrt(z * z - y / a) - z)
    return -root if x < 0.0 else root


def phi_inv(p: float) -> float:
    """Returns the standard normal quantile of ``p`` as cutechess-cli computes it."""
    return math.sqrt(2.0) * cutechess_erf_inv(2.0 * p - 1.0)


def elo_of_score(mu: float) -> float:
    """Returns the Elo difference of an expected score ``mu``: +/-inf at 1 and 0, NaN outside 0..1
    (where cutechess-cli's logarithm of a negative number gives NaN too).

    >>> round(elo_of_score(0.75), 1)
    190.8
    """
    if mu == 1.0:
        return math.inf
    if mu == 0.0:
        return -math.inf
    if not 0.0 < mu < 1.0:
        return math.nan
    return -SCALE * math.log10(1.0 / mu - 1.0) + 0.0  # + 0.0: an even score is 0.0, not -0.0


@dataclasses.dataclass(frozen=True)
class Score(Record):
    """One bot's wins, draws and losses against one opponent (a pair table's ``Record``), and
    cutechess-cli's estimates from them."""

    def add(self, mine: int, theirs: int) -> Score:
        """Returns the score with one more game, from the two finishing ranks (1 is best)."""
        if mine < theirs:
            return dataclasses.replace(self, wins=self.wins + 1)
        if mine == theirs:
            return dataclasses.replace(self, draws=self.draws + 1)
        return dataclasses.replace(self, losses=self.losses + 1)

    def point_ratio(self) -> float:
        """Returns the share of the points won (a draw half a point); NaN before any game."""
        return (self.wins + self.draws / 2.0) / self.games if self.games else math.nan

    def draw_ratio(self) -> float:
        """Returns the share of the games drawn; NaN before any game."""
        return self.draws / self.games if self.games else math.nan

    def _stdev(self) -> float:
        n = self.games
        mu = self.point_ratio()
        w, d, l_ = self.wins / n, self.draws / n, self.losses / n
        variance = w * (1.0 - mu) ** 2 + d * (0.5 - mu) ** 2 + l_ * mu**2
        return math.sqrt(variance) / math.sqrt(n)

    def elo(self) -> float:
        """Returns the Elo difference of the score (cutechess-cli's ``Elo::diff``)."""
        return elo_of_score(self.point_ratio()) if self.games else math.nan

    def elo_error(self) -> float:
        """Returns the 95% error margin of the Elo difference (cutechess-cli's ``Elo::errorMargin``)."""
        if not self.games:
            return math.nan
        mu, sd = self.point_ratio(), self._stdev()
        low, high = mu + phi_inv(0.025) * sd, mu + phi_inv(0.975) * sd
        if low <= 0.0 or high >= 1.0:
            return math.inf  # the interval is unbounded on one side (cutechess-cli: NaN)
        return (elo_of_score(high) - elo_of_score(low)) / 2.0

    def los(self) -> float:
        """Returns the likelihood of superiority, 0..1 (cutechess-cli's ``Elo::LOS`` / 100); NaN without
        a decisive game."""
        decisive = self.wins + self.losses
        if not decisive:
            return math.nan
        return 0.5 * (1.0 + math.erf((self.wins - self.losses) / math.sqrt(2.0 * decisive)))

    def score_line(self, bot: str, opponent: str) -> str:
        """Returns cutechess-cli's score line: ``Score of A vs B: W - L - D  [ratio] N``."""
        return (
            f"Score of {bot} vs {opponent}: {self.wins} - {self.losses} - {self.draws}  "
            f"[{self.point_ratio():.3f}] {self.games}"
        )

    def elo_line(self) -> str:
        """Returns cutechess-cli's estimate line: ``Elo difference: X +/- Y, LOS: Z %, DrawRatio: W %``."""
        return (
            f"Elo difference: {self.elo():.1f} +/- {self.elo_error():.1f}, LOS: {100 * self.los():.1f} %, "
            f"DrawRatio: {100 * self.draw_ratio():.1f} %"
        )

    def to_json(self) -> dict[str, Any]:
        """Returns the counts and estimates as JSON: fractions 0..1, Elo to 0.01, null for inf/NaN."""
        return {
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": _finite(self.point_ratio(), 4),
            "elo": _finite(self.elo(), 2),
            "elo_error": _finite(self.elo_error(), 2),
            "los": _finite(self.los(), 4),
            "draw_ratio": _finite(self.draw_ratio(), 4),
        }


def _finite(x: float, digits: int) -> float | None:
    return round(x, digits) if math.isfinite(x) else None


def head_to_head(games: Iterable[Sequence[tuple[str, int]]], bot: str, opponent: str) -> Score:
    """Returns ``bot``'s score against ``opponent`` over ``games``, each given as its seats' (bot, rank):
    ahead in the finishing order is a win, level a draw, behind a loss; a game without both is skipped."""
    score = Score()
    for seats in games:
        ranks = dict(seats)
        if bot in ranks and opponent in ranks:
            score = score.add(ranks[bot], ranks[opponent])
    return score


class Superiority(Protocol):
    """A fit that gives the likelihood of superiority of one player over another (``Fit`` does)."""

    def los(self, a: str, b: str) -> float: ...


def los_matrix(fit: Superiority, players: Sequence[str]) -> dict[str, dict[str, float]]:
    """Returns ``matrix[a][b]``: the fit's likelihood that ``a`` is stronger than ``b``, for every two
    of ``players``."""
    return {a: {b: fit.los(a, b) for b in players if b != a} for a in players}
