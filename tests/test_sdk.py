"""End to end: a Python bot on the SDK, as a real process, is handed every public event of its matches,
in order and before the decisions that follow them, whichever message carried them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, json_lines, run_arena

pytestmark = pytest.mark.e2e
# The recorder writes to the file RECORDER_LOG names: its stdout here, which the referee keeps in the
# bot's log (a sandboxed bot can write no file of the test's, and gets only the variables it declares).
RECORDER = f"RECORDER_LOG=/dev/stdout {sys.executable} {REPO / 'tests' / 'bots' / 'recorder.py'}"


@pytest.mark.parametrize("game", ["ninjan", "ninja-burger"])
def test_the_sdk_hands_the_bot_every_event_in_order(tmp_path: Path, game: str) -> None:
    proc = run_arena(
        "match",
        game,
        RECORDER,
        "random",
        "--games",
        "3",
        "--seed",
        "11",
        "--json",
        "--replay-dir",
        str(tmp_path / "replays"),
    )
    assert proc.returncode == 0, proc.stderr
    (log,) = (tmp_path / "replays" / "logs").glob("0-recorder.log")  # one process for the whole series
    seen = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    results = json_lines(proc.stdout)
    assert [e["match_id"] for e in seen if e["type"] == "start"] == [r["match_id"] for r in results]
    starts = [i for i, e in enumerate(seen) if e["type"] == "start"] + [len(seen)]
    for number, result in enumerate(results):
        match = seen[starts[number] : starts[number + 1]]
        assert match[-1] == {"type": "result", "match_id": result["match_id"]}
        replay = json_lines(Path(result["replay"]).read_text())
        seat = match[0]["seat"]
        # the bot saw the replay's events and its own decisions, interleaved as they happened
        expected = [
            {"type": "event", "event": line["event"]} if line["type"] == "event" else {"type": "decision"}
            for line in replay
            if line["type"] == "event" or (line["type"] == "decision" and line["seat"] == seat)
        ]
        assert [e for e in match if e["type"] in ("event", "decision")] == expected
