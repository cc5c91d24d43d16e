"""The short dress rehearsal of tests/test_rehearsal.py against the compose stack: bench/rehearsal.py
``--against compose`` on the Docker daemon scripts/test-compose started (DOCKER_HOST), so the same
invariants (nothing lost or doubled, every broken bot refused or charged with its fault, every honest
bot rated, no unexplained error line, every figure there) hold for the containers as for the
processes. The report's checks are tests/test_rehearsal.py's own, run on this module's report.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.conftest import REPO
from tests.test_rehearsal import (  # noqa: F401 - collected here, on the compose report
    BOTS,
    MINUTES,
    TABLES,
    test_a_bot_that_only_times_out_is_told_so,
    test_every_broken_bot_is_refused_or_charged_with_its_fault,
    test_every_honest_and_hostile_bot_is_rated,
    test_no_error_line_is_unexplained,
    test_no_ladder_match_is_lost_or_recorded_twice,
    test_the_report_has_every_figure,
    test_viewers_and_submissions_got_answers,
)

pytestmark = [pytest.mark.timeout(1800)]  # the stack's start, the two minutes, the smoke matches, the drain


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Runs the short rehearsal against compose once for the module; returns its JSON report."""
    folder = tmp_path_factory.mktemp("rehearsal-compose")
    out = folder / "report.json"
    argv = [
        sys.executable, str(REPO / "bench" / "rehearsal.py"), "--against", "compose", "--minutes", MINUTES,
        "--bots", BOTS, "--participants", "6", "--workers", "2", "--hostile", "2", "--languages", "python",
        "--out", str(out), "--keep", str(folder / "state"), "--players", ",".join(map(str, TABLES)),
    ]  # fmt: skip
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, timeout=1500)
    assert proc.returncode == 0, proc.stderr[-4000:]
    found: dict[str, Any] = json.loads(out.read_text())
    return found
