"""The dress rehearsal, short (issue 38 item 4): bench/rehearsal.py for two minutes with a dozen honest
Python bots over the four games, the broken and hostile ones, two local workers (a third joins partway),
and the viewers reading the pages (the kits' bots are left to the benchmark: their builds take minutes).
Each game has a ladder at 2 seats and one at 3. The run is the benchmark's own command; these tests
read its report and hold the platform's invariants, never its speed: nothing lost or doubled, every
broken bot refused or charged with the right reason, every honest bot rated, no unexplained error line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,
    pytest.mark.timeout(900),  # the run takes its two minutes, plus smoke matches and the drain
]

MINUTES = "2"
BOTS = "12"
TABLES = (2, 3)  # a ladder per game at each size: the fit's seat terms at more than one table size
GAMES = ("ninjan", "ninja-burger", "pnrz", "ninja-master")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Runs the short rehearsal once for the module; returns its JSON report."""
    folder = tmp_path_factory.mktemp("rehearsal")
    out = folder / "report.json"
    argv = [
        sys.executable, str(REPO / "bench" / "rehearsal.py"), "--minutes", MINUTES, "--bots", BOTS,
        "--participants", "6", "--workers", "2", "--hostile", "2", "--languages", "python", "--out", str(out),
        "--keep", str(folder / "state"), "--players", ",".join(map(str, TABLES)),
    ]  # fmt: skip
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, timeout=840)
    assert proc.returncode == 0, proc.stderr[-4000:]
    found: dict[str, Any] = json.loads(out.read_text())
    return found


def test_no_ladder_match_is_lost_or_recorded_twice(report: dict[str, Any]) -> None:
    ledger = report["ledger"]
    assert set(ledger) == {*GAMES, *(f"{game}@3" for game in GAMES)}, report["ladders"]
    for game, counts in ledger.items():
        assert counts["scheduled"] > 0, game
        assert (counts["lost"], counts["doubled"], counts["in_flight"]) == (0, [], 0), (game, counts)
        assert counts["recorded_not_listed"] == [], (game, counts)
        assert counts["recorded"] + counts["dead"] == counts["scheduled"], (game, counts)


def test_every_broken_bot_is_refused_or_charged_with_its_fault(report: dict[str, Any]) -> None:
    broken = [v for v in report["verdicts"] if v["kind"] == "broken"]
    assert {v["bot"] for v in broken} == {
        "broken-crash",
        "broken-timeout",
        "broken-illegal",
        "broken-oversize",
    }
    for verdict in broken:
        assert verdict["ok"], verdict
        assert verdict["games"] == 0, verdict  # never rated


def test_every_honest_and_hostile_bot_is_rated(report: dict[str, Any]) -> None:
    rated = [v for v in report["verdicts"] if v["kind"] in ("honest", "hostile")]
    assert len(rated) == int(BOTS) + 2
    assert [v for v in rated if not v["ok"]] == []


def test_no_error_line_is_unexplained(report: dict[str, Any]) -> None:
    errors = report["errors"]
    running = [e for e in errors["unexplained_lines"] if e["phase"] == "run"]
    assert running == [], running
    assert errors["explained"] >= 2  # the crash and the forfeit of the broken bots at least


def test_viewers_and_submissions_got_answers(report: dict[str, Any]) -> None:
    assert report["pages"]["failure_count"] == 0, report["pages"]["failures"]
    assert report["accounts"]["refused"] == []
    assert set(report["submissions"]["refused"]) == {"broken-oversize"}, report["submissions"]


def test_a_bot_that_only_times_out_is_told_so(report: dict[str, Any]) -> None:
    """Each forfeit is charged with its own fault, never the other's (a9e58ae, found by this rehearsal:
    both were told 'illegal actions or missed deadlines')."""
    reasons = {v["bot"]: v["reason"].lower() for v in report["verdicts"]}
    assert "deadline" in reasons["broken-timeout"], reasons["broken-timeout"]
    assert "illegal" not in reasons["broken-timeout"] and "range" not in reasons["broken-timeout"]
    assert "deadline" not in reasons["broken-illegal"], reasons["broken-illegal"]


def test_the_report_has_every_figure(report: dict[str, Any]) -> None:
    """The figures a long run is judged by are all there (their values are for the benchmark)."""
    throughput = report["throughput"]
    assert throughput["recorded"] > 0 and throughput["late_worker"] == "worker-2"
    assert set(throughput["jobs_per_worker"]) == {"worker-0", "worker-1", "worker-2"}
    for game in GAMES:
        assert report["order"][game]["kendall"]["pairs"] > 0, report["order"][game]
    for kind in ("leaderboard", "bot", "replay"):
        assert report["pages"]["load"][kind]["n"] > 0 and report["pages"]["idle"][kind]["n"] > 0
    assert report["storage"]["replay_store_bytes"] > 0 and report["storage"]["redis_bytes"] > 0
    assert set(report["memory"]) == {"redis", "server", "worker-0", "worker-1", "worker-2"}
    assert 0 < report["throughput"]["platform_share"] < 1


def test_compose_without_a_docker_daemon_says_so_in_one_line(tmp_path: Path) -> None:
    """``--against compose`` with DOCKER_HOST naming no daemon: no re-run under scripts/with-docker,
    and the rehearsal says what failed, exit 2, no traceback (the compose run itself is
    tests/compose/test_rehearsal.py, under scripts/test-compose)."""
    argv = [
        sys.executable,
        str(REPO / "bench" / "rehearsal.py"),
        "--against",
        "compose",
        "--languages",
        "python",
    ]
    env = {**os.environ, "DOCKER_HOST": f"unix://{tmp_path}/no-daemon.sock"}
    proc = subprocess.run(
        [*argv, "--keep", str(tmp_path / "s")], capture_output=True, text=True, cwd=REPO, env=env, timeout=120
    )
    assert proc.returncode == 2, proc.stderr
    assert "bench/rehearsal.py: " in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_the_time_to_confident_is_extrapolated_from_the_slowest_neighbour_pair() -> None:
    """A pair at z = Phi^-1(LOS) needs (1.645 / z)^2 times its matches: the slowest pair bounds it;
    a pair the ladder cannot order yet (LOS <= 50%) cannot be extrapolated."""
    from statistics import NormalDist

    from bench.rehearsal.order import minutes_to_confident

    half_z = NormalDist().cdf(NormalDist().inv_cdf(0.95) / 2)  # needs four times its matches
    rows = [{"bot": b} for b in ("a", "b", "c", "x")]
    board = {"rows": rows, "los": {"a": {"b": 0.99}, "b": {"c": half_z}, "c": {"x": 0.1}}}
    assert minutes_to_confident(board, {"a", "b", "c"}, 10.0) == {
        "minutes": 40.0,
        "bound_by": "b>c",
        "los": 0.795,
    }
    assert minutes_to_confident(board, {"a", "b"}, 10.0) == {"minutes": 10.0, "bound_by": None, "los": None}
    unknown = minutes_to_confident(board, {"a", "b", "c", "x"}, 10.0)
    assert unknown == {"minutes": None, "bound_by": "c>x", "los": 0.1}


def test_on_compose_a_workers_cpu_is_its_containers_cgroup_bots_included() -> None:
    """In a container the bots' sandbox processes go to the container's init when their parent exits,
    so /proc cannot count their CPU under the worker (the compose hour read a platform share of 0.86);
    the worker container's cgroup counts all it ran. Without one (local), /proc's tree is used."""
    from types import SimpleNamespace

    from bench.rehearsal.report import throughput

    def usage(worker: dict[str, float]) -> dict[str, dict[str, float]]:
        return {"worker-0": worker, "server": {"cpu_s": 0.0}, "redis": {"cpu_s": 0.0}}

    zero = {"cpu_s": 0.0, "own_cpu_s": 0.0, "cgroup_cpu_s": 0.0}
    end = usage({"cpu_s": 20.0, "own_cpu_s": 10.0, "cgroup_cpu_s": 200.0})
    end["server"], end["redis"] = {"cpu_s": 30.0}, {"cpu_s": 5.0}
    samples = [
        {"t": 0.0, "recorded": 0, "usage": usage(zero), "jobs": {}},
        {"t": 600.0, "recorded": 100, "usage": end, "jobs": {"worker-0": 100}},
    ]
    r = SimpleNamespace(samples=samples, timeline={"ladder": 0.0, "ladder_end": 600.0}, end={"usage": end})
    r.late_worker = None
    compose = throughput(r)  # type: ignore[arg-type]
    assert compose["per_worker_cpu_s"] == 0.5 and compose["platform_share"] == round(45 / 235, 3)
    for state in (samples[0]["usage"]["worker-0"], end["worker-0"]):
        del state["cgroup_cpu_s"]
    local = throughput(r)  # type: ignore[arg-type]
    assert local["per_worker_cpu_s"] == 5.0 and local["platform_share"] == round(45 / 55, 3)
