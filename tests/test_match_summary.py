"""``arena match A B --games N`` ends as cutechess-cli ends a match: "Score of A vs B: W - L - D", then
"Elo difference: X +/- Y, LOS: Z %, DrawRatio: W %", recomputed here from the printed counts with
cutechess-cli's own formulas (written out again below, from its ``elo.cpp``); with --json, a last
``{"summary": ...}`` line; with more seats, the first bot against each other bot, pair by pair."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from arena.ratings.summary import Score, head_to_head
from tests.conftest import game_lines, json_lines, run_arena

SCORE_LINE = re.compile(r"Score of (\S+) vs (\S+): (\d+) - (\d+) - (\d+)  \[(\d\.\d{3})\] (\d+)")
ELO_LINE = re.compile(r"Elo difference: (\S+) \+/- (\S+), LOS: (\S+) %, DrawRatio: (\S+) %")


def cutechess(wins: int, losses: int, draws: int) -> tuple[float, float, float, float]:
    """Returns cutechess-cli's (Elo difference, 95% error, LOS %, draw ratio %) of W/L/D, line by line
    as its ``Elo`` class computes them (``projects/lib/src/elo.cpp``), NaN/inf where C++ gives them."""
    n = wins + losses + draws
    w, l_, d = wins / n, losses / n, draws / n
    mu = w + d / 2.0
    stdev = math.sqrt(w * (1.0 - mu) ** 2 + l_ * (0.0 - mu) ** 2 + d * (0.5 - mu) ** 2) / math.sqrt(n)

    def diff(p: float) -> float:  # -400 log10(1/p - 1), with C++'s inf and NaN
        if p == 1.0 or p == 0.0:
            return math.copysign(math.inf, p - 0.5)
        return math.nan if not 0.0 < p < 1.0 else -400.0 * math.log10(1.0 / p - 1.0)

    def erf_inv(x: float) -> float:
        pi = 3.1415926535897
        a = 8.0 * (pi - 3.0) / (3.0 * pi * (4.0 - pi))
        y = math.log(1.0 - x * x)
        z = 2.0 / (pi * a) + y / 2.0
        ret = math.sqrt(math.sqrt(z * z - y / a) - z)
        return -ret if x < 0.0 else ret

    def phi_inv(p: float) -> float:
        return math.sqrt(2.0) * erf_inv(2.0 * p - 1.0)

    low, high = mu + phi_inv(0.025) * stdev, mu + phi_inv(0.975) * stdev
    margin = math.inf if low <= 0.0 or high >= 1.0 else (diff(high) - diff(low)) / 2.0  # cutechess: NaN
    decisive = wins + losses
    los = (
        math.nan
        if not decisive
        else 100 * (0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2.0 * decisive)))
    )
    return diff(mu), margin, los, 100.0 * draws / n


def same(printed: str, value: float, tolerance: float) -> bool:
    """Returns whether a printed number is ``value`` to ``tolerance`` (inf and nan printed as such)."""
    if not math.isfinite(value):
        return printed == f"{value}"
    return abs(float(printed) - value) <= tolerance


@pytest.mark.parametrize(
    ("wins", "losses", "draws", "printed"),
    [  # lines printed by cutechess-cli itself, under "Score of ...: W - L - D"
        (99, 97, 104, "Elo difference: 2.3 +/- 31.8, LOS: 55.7 %, DrawRatio: 34.7 %"),
        (45, 37, 18, "Elo difference: 27.9 +/- 62.4, LOS: 81.2 %, DrawRatio: 18.0 %"),
    ],
)
def test_the_estimate_is_cutechess_clis_to_the_digit(
    wins: int, losses: int, draws: int, printed: str
) -> None:
    score = Score(wins=wins, draws=draws, losses=losses)
    assert score.elo_line() == printed
    assert score.score_line("a", "b") == f"Score of a vs b: {wins} - {losses} - {draws}  " + (
        f"[{(wins + draws / 2) / (wins + losses + draws):.3f}] {wins + losses + draws}"
    )


def test_a_clean_sweep_is_infinite_as_in_cutechess_and_null_in_json() -> None:
    sweep = Score(wins=5)
    assert sweep.elo_line() == "Elo difference: inf +/- inf, LOS: 98.7 %, DrawRatio: 0.0 %"
    lopsided = Score(wins=1, draws=1, losses=18)  # cutechess-cli: "-436.4 +/- nan"
    assert lopsided.elo_line() == "Elo difference: -436.4 +/- inf, LOS: 0.0 %, DrawRatio: 5.0 %"
    assert sweep.to_json()["elo"] is None and sweep.to_json()["elo_error"] is None
    assert Score(draws=3).to_json() | {"los": "n/a"} == {
        "games": 3, "wins": 0, "draws": 3, "losses": 0, "score": 0.5, "elo": 0.0, "elo_error": 0.0,
        "los": "n/a", "draw_ratio": 1.0,
    }  # fmt: skip
    assert Score(draws=3).to_json()["los"] is None  # no decisive game: cutechess-cli's 0/0


def test_a_multi_seat_game_counts_for_each_pair_by_finishing_order() -> None:
    games = [[("a", 1), ("b", 2), ("c", 2)], [("a", 3), ("b", 1), ("c", 2)], [("b", 1), ("c", 2)]]
    assert head_to_head(games, "a", "b") == Score(wins=1, losses=1)
    assert head_to_head(games, "a", "c") == Score(wins=1, losses=1)
    assert head_to_head(games, "b", "c") == Score(wins=2, draws=1)


@pytest.mark.e2e
def test_a_series_prints_cutechess_clis_summary_recomputable_from_its_counts(tmp_path: Path) -> None:
    """The issue's command with fewer games (search is slow: about 7 s a game on a shared machine; the
    200-game run is in docs/ratings.md): the Elo difference and its error recomputed from the printed
    W/L/D with cutechess-cli's formulas agree to 0.1 Elo, and the counts are the table's."""
    proc = run_arena(
        "match", "ninjan", "search", "greedy", "--games", "4", "--seed", "5", "--replay-dir", str(tmp_path)
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    (score_at,) = [i for i, line in enumerate(lines) if SCORE_LINE.fullmatch(line)]
    counts = SCORE_LINE.fullmatch(lines[score_at])
    elo = ELO_LINE.fullmatch(lines[score_at + 1])
    assert counts and elo, proc.stdout
    assert counts[1] == "search" and counts[2] == "greedy" and counts[7] == "4"
    wins, losses, draws = map(int, counts.groups()[2:5])
    assert wins + losses + draws == 4
    difference, error, los, draw_ratio = cutechess(wins, losses, draws)
    assert same(elo[1], difference, 0.1) and same(elo[2], error, 0.1), (
        lines[score_at + 1],
        difference,
        error,
    )
    assert same(elo[3], los, 0.1) and same(elo[4], draw_ratio, 0.1)
    table = {line.split()[0]: line.split() for line in lines if line.startswith(("  search ", "  greedy "))}
    assert (int(table["search"][2]), int(table["greedy"][2]), int(table["search"][3])) == (
        wins,
        losses,
        draws,
    )


@pytest.mark.e2e
def test_json_ends_with_the_summary_and_more_seats_are_scored_pair_by_pair(tmp_path: Path) -> None:
    proc = run_arena(
        "match", "ninjan", "greedy", "random", "random", "--games", "3", "--seed", "2", "--json",
        "--replay-dir", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    *_, last = json_lines(proc.stdout)
    games = game_lines(proc.stdout)
    assert len(games) == 3 and list(last) == ["summary"]
    summary = last["summary"]
    assert (summary["game"], summary["games"]) == ("ninjan", 3)
    assert [(p["bot"], p["opponent"]) for p in summary["pairs"]] == [
        ("greedy", "random"),
        ("greedy", "random#2"),
    ]
    for pair in summary["pairs"]:
        ranks = [{p["bot"]: p["rank"] for p in g["players"]} for g in games]
        ahead = sum(r["greedy"] < r[pair["opponent"]] for r in ranks)
        level = sum(r["greedy"] == r[pair["opponent"]] for r in ranks)
        assert (pair["wins"], pair["draws"], pair["losses"]) == (ahead, level, 3 - ahead - level)
        difference = cutechess(pair["wins"], pair["losses"], pair["draws"])[0]
        assert pair["elo"] == (round(difference, 2) if math.isfinite(difference) else None)
