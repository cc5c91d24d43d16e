"""``arena ladder --until-confident``: the stopping rule on a fit (``arena.ratings.confidence``), and a
real ladder (real workers, real sandbox, private Redis) that stops by itself and says so."""

from __future__ import annotations

import importlib.util
import json
import re

import pytest

from arena.ratings import Placement
from arena.ratings.confidence import check_los, confident
from arena.ratings.fit import Fit, fit
from arena.ratings.pairs import PairTable
from tests.conftest import REPO, SEED_KEY_ENV, run_arena


def fitted(*scores: tuple[str, str, int, int]) -> Fit:
    """Returns the fit of two-player results: each ``(a, b, a's wins, b's wins)``."""
    table = PairTable()
    for a, b, wins, losses in scores:
        for _ in range(wins):
            table.add_match([Placement(a, 1), Placement(b, 2)])
        for _ in range(losses):
            table.add_match([Placement(a, 2), Placement(b, 1)])
    return fit(table)


SEPARATED = fitted(("a", "b", 40, 5), ("b", "c", 40, 5))  # a > b > c, each clearly
UNSETTLED = fitted(("a", "b", 40, 5), ("b", "c", 22, 20))  # b and c: a coin toss so far


def test_a_clear_order_is_confident_and_an_unsettled_pair_is_not() -> None:
    assert confident(SEPARATED, ["a", "b", "c"], 0.95)
    assert not confident(UNSETTLED, ["a", "b", "c"], 0.95)
    assert confident(UNSETTLED, ["a", "b"], 0.95), "the rule reads the players asked about only"


def test_the_rule_reads_the_fits_own_order_not_the_order_given() -> None:
    assert confident(SEPARATED, ["c", "a", "b"], 0.95)


def test_the_threshold_decides() -> None:
    los_bc = SEPARATED.los("b", "c")
    assert confident(SEPARATED, ["a", "b", "c"], los_bc - 1e-9)
    assert not confident(SEPARATED, ["a", "b", "c"], min(los_bc + 1e-9, 0.999999))


def test_a_provisional_or_unplayed_player_keeps_the_ladder_unconfident() -> None:
    few = fitted(("a", "b", 40, 5), ("b", "c", 40, 5), ("c", "new", 9, 0))  # new: 9 matches, far below
    assert few.los("c", "new") >= 0.95, "its LOS alone would pass"
    assert not confident(few, ["a", "b", "c", "new"], 0.95)
    assert not confident(SEPARATED, ["a", "b", "c", "never-played"], 0.95)
    assert not confident(SEPARATED, ["a"], 0.95), "one player is no order"


@pytest.mark.parametrize("los", [0.5, 1.0, 0.0, 1.5, -0.95])
def test_an_los_out_of_range_is_refused(los: float) -> None:
    with pytest.raises(ValueError, match=r"above 0\.5 and below 1"):
        check_los(los)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--until-confident", "--los", "1.5"), "--los must be above 0.5 and below 1 (e.g. 0.95), not 1.5"),
        (("--until-confident", "--los", "0.5"), "--los must be above 0.5 and below 1 (e.g. 0.95), not 0.5"),
        (("--los", "0.9"), "--los is the LOS --until-confident stops at: add --until-confident"),
    ],
)
def test_arena_ladder_refuses_a_bad_los_in_one_line(args: tuple[str, ...], said: str) -> None:
    proc = run_arena(
        "ladder", "ninjan", "--bots", "greedy,random", *args, "--redis", "redis://nowhere.invalid:1"
    )
    assert proc.returncode == 2
    assert proc.stderr == f"arena: error: {said}\n"


@pytest.mark.e2e
def test_arena_ladder_until_confident_stops_by_itself_and_says_so(client, redis_url: str) -> None:
    args = ("ladder", "ninjan", "--bots", "greedy,random", "--until-confident", "--workers", "1")
    proc = run_arena(*args, "--redis", redis_url, "--seed", "5", "--json", env=SEED_KEY_ENV, timeout=600)
    assert proc.returncode == 0, proc.stderr
    said = re.search(
        r"arena: ladder confident: every neighbour's LOS >= 95% after (\d+) matches\n", proc.stderr
    )
    assert said, proc.stderr
    matches = int(said[1])
    assert f"{matches} finished in all, 0 still queued" in proc.stderr, "it stops with nothing in flight"
    rows = json.loads(proc.stdout)
    assert [r["bot"] for r in rows] == ["greedy", "random"]
    assert rows[0]["los_next"] >= 0.95 and not any(r["provisional"] for r in rows)
    # run again, it is confident already: it stops at once, scheduling nothing
    again = run_arena(*args, "--redis", redis_url, "--seed", "5", env=SEED_KEY_ENV, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"0 matches scheduled in this run, {matches} finished in all" in again.stderr


def test_the_bench_runs_the_ladders_rule_seeded() -> None:
    """A smoke run of bench/confident_ladder.py (the full run is 30 seeds): the same figures twice."""
    spec = importlib.util.spec_from_file_location("confident_ladder", REPO / "bench" / "confident_ladder.py")
    assert spec is not None and spec.loader is not None
    confident_ladder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(confident_ladder)
    first = confident_ladder.figures(runs=2)
    assert first["stopped"] == 2 and first["wrong_order"] == 0
    assert all(r["order"] == ["a", "b", "c", "d", "e"] for r in first["runs"])
    assert confident_ladder.figures(runs=2)["runs"] == first["runs"], "seeded: the same runs again"
