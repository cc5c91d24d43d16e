"""The benchmark keeps working: its quick mode runs every layer and writes every figure (no timing
is asserted here: the machines are shared and noisy; `python bench/run.py` is for measuring)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games import GAMES
from tests.conftest import REPO

pytestmark = pytest.mark.e2e


def test_quick_benchmark_reports_every_layer(tmp_path: Path) -> None:
    out = tmp_path / "results.json"  # not bench/results.json: that holds the last full run's figures
    proc = subprocess.run(
        [sys.executable, "bench/run.py", "--quick", "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    for figure in (
        "referee: wall time per decision (us)",
        "queue: matches/s, 2 workers",
        "scale: matches lost",
        "sandbox: start time the sandbox adds (ms)",
        "sandbox: wall time per decision, sandboxed (us)",
    ):
        assert figure in proc.stdout
    results = json.loads(out.read_text())
    assert results["quick"] is True
    assert sorted(results["engines"]) == sorted(GAMES)
    for figures in results["engines"].values():
        assert figures["playouts_per_s"] > 0 and figures["step_us"] > 0 and figures["encode_us"] > 0
    assert results["round_trip_us"] > 0 and results["aio_round_trip_us"] > 0
    assert results["referee_step_us"] > 0
    assert set(results["matches_per_s"]) == {"1", "2"}
    assert sorted(results["in_process"]) == sorted(GAMES)  # games/s in-process and over gRPC, per game
    for rates in results["in_process"].values():
        assert rates["in_process_games_per_s"] > 0 and rates["grpc_games_per_s"] > 0
    queue = results["queue"]
    assert set(queue) == {"1", "2", "drain"}
    assert all(run["lost"] == 0 and run["redis_calls_per_match"] > 0 for run in queue.values())
    assert queue["drain"]["matches"] == 20
    for kind in ("sandboxed", "unconfined"):
        assert results["sandbox"][kind]["start_ms"] > 0 and results["sandbox"][kind]["decision_us"] > 0
    assert results["unix_round_trip_us"] > 0
    named = ("referee_decision_ratio", "referee_echo_ratio", "pnrz_step_ratio", "sdk_ratio", "unix_ratio")
    named += ("ratings_refit_ratio",)
    assert all(results["ratios"][ratio] > 0 for ratio in named), results["ratios"]


def test_repeated_passes_report_each_figures_median() -> None:
    """--repeat N: every figure is the median of its N measurements, ratios included (each pass's
    ratio is measured side by side in that pass); a figure measured once (the drain) stays."""
    sys.path.insert(0, str(REPO / "bench"))
    from run import Row, measured, median_rows

    passes = [
        [measured("a_ratio", "a", value, floor, "<= 1"), Row("drain_s", "drain", 9.0)]
        for value, floor in ((3.0, 2.0), (1.0, 1.0), (9.0, 3.0))
    ]
    passes[1] = passes[1][:1]
    a, drain = median_rows(passes)
    assert (a.value, a.floor, a.ratio, a.target) == (3.0, 2.0, 1.5, "<= 1")
    assert drain.value == 9.0 and drain.ratio is None
