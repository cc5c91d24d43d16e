"""Logs beside decisions: a bot's output is stamped with the decision step during which it was
written, kept beside the replay with each decision's think time, and read back by ``arena logs`` and by
the viewer's data (``arena view``).

The end-to-end tests run ``arena match`` with a real bot process in the sandbox that writes a numbered
line on stderr while deciding and then answers at once (the case where a line and the answer race);
the n-th line must carry the step of that seat's n-th decision in the replay.
"""

from __future__ import annotations

import fcntl
import json
import os
import resource
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.referee.botlog import (
    LINE_CHARS,
    Line,
    StampedLog,
    Think,
    for_store,
    match_log_path,
    match_log_text,
    parse_match_log,
    read_match_log,
)
from arena.referee.replay import parse_lines
from leaderboard.app import leaderboard_app as create_app
from leaderboard.sources import view_data
from tests.conftest import run_arena

# Writes "call N" on stderr while deciding its N-th decision (and one line before its first).
TALKING_BOT = """
import sys

from arena.sdk import Bot


class Talk(Bot):
    name = "talk"
    calls = 0

    def on_match_start(self, match):
        print("hello before any decision", file=sys.stderr, flush=True)

    def choose(self, observation, legal_actions, deadline):
        self.calls += 1
        print(f"call {self.calls}", file=sys.stderr, flush=True)
        return len(legal_actions) - 1


if __name__ == "__main__":
    Talk().run()
"""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Plays one Ninja Burger game (simultaneous and sequential decisions) with the talking bot in
    seat 1; returns its --json result."""
    folder = tmp_path_factory.mktemp("logs")
    bot = folder / "talk.py"
    bot.write_text(TALKING_BOT, encoding="utf-8")
    proc = run_arena(
        "match", "ninja-burger", "random", str(bot), "random", "--seed", "3", "--json",
        "--replay-dir", str(folder / "replays"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[0])


def decision_steps_of(replay: Path, seat: int) -> list[int]:
    """Returns the steps at which ``seat``'s bot decided, in order."""
    lines = parse_lines(replay.read_text(encoding="utf-8"))
    return [x["step"] for x in lines if x["type"] == "decision" and x["seat"] == seat and x["by"] == "bot"]


def test_a_line_written_while_deciding_step_k_is_stamped_k_in_arena_logs(played: dict) -> None:
    replay = Path(played["replay"])
    steps = decision_steps_of(replay, 1)
    assert len(steps) > 10
    proc = run_arena("logs", str(replay), "--seat", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    calls = [r for r in rows if r["text"].startswith("call ")]
    assert [r["text"] for r in calls] == [f"call {n}" for n in range(1, len(steps) + 1)]
    assert [r["step"] for r in calls] == steps
    # on_match_start runs as the first request is on its way: the line goes with that first decision
    hello = next(r for r in rows if r["text"] == "hello before any decision")
    assert hello["step"] == steps[0]
    assert all(r["seat"] == 1 and r["bot"] == "talk" for r in rows)
    k = steps[len(steps) // 2]
    text = run_arena("logs", str(replay), "--seat", "1", "--step", str(k)).stdout
    assert text.splitlines() == [f"step {k:>5}  seat 1 talk  | call {len(steps) // 2 + 1}"]


def test_the_same_line_is_at_step_k_in_the_viewers_data(played: dict) -> None:
    replay = Path(played["replay"])
    steps = decision_steps_of(replay, 1)
    data = view_data(replay)
    assert data["match_log"]["found"]
    by_frame = {
        frame["step"]: [line["text"] for line in frame["logs"] if line["seat"] == 1]
        for frame in data["frames"][1:]
        if frame["decisions"]
    }
    for number, step in enumerate(steps, 1):
        hello = ["hello before any decision"] if number == 1 else []
        assert by_frame[step] == [*hello, f"call {number}"]
    assert data["frames"][0]["logs"] == []  # a file bot writes nothing before its match begins


def test_every_decision_has_a_think_time_outside_the_replay(played: dict) -> None:
    replay = Path(played["replay"])
    log = read_match_log(replay)
    assert log.header["deadline_ms"] == 2000
    for seat in range(3):
        asked = [t.step for t in log.think if t.seat == seat]
        assert asked == decision_steps_of(replay, seat)
    assert all(t.answered and 0 < t.ms < 2000 for t in log.think)
    assert '"ms"' not in replay.read_text(encoding="utf-8")
    summary = run_arena("logs", str(replay), "--think").stdout
    assert "think: seat 1 talk: " in summary and "(deadline 2000 ms)" in summary
    assert played["match_log"] == str(match_log_path(replay))


def pipe_log(tmp_path: Path, cap: int = 1 << 20) -> tuple[StampedLog, int, Path]:
    """Returns a StampedLog reading a fresh pipe, the pipe's write end, and the log file."""
    read_end, write_end = os.pipe()
    path = tmp_path / "bot.log"
    return StampedLog(os.fdopen(read_end, "rb", buffering=0), path, cap), write_end, path


def test_lines_take_the_step_being_decided_when_written(tmp_path: Path) -> None:
    log, pipe, path = pipe_log(tmp_path)
    os.write(pipe, b"before\n")
    log.mark(0)
    os.write(pipe, b"zero\nhalf")  # a line still open when the step changes keeps its first step
    log.drain()
    log.mark(1)
    os.write(pipe, b" done\none\n")
    log.mark(2)
    os.write(pipe, b"unfinished")
    assert log.take() == [
        Line(None, "before"),
        Line(0, "zero"),
        Line(0, "half done"),
        Line(1, "one"),
        Line(2, "unfinished"),
    ]
    os.write(pipe, b" after the last decision\n")
    assert log.take()[-1] == Line(2, "unfinished after the last decision")  # kept until the next match
    os.close(pipe)
    log.join(5)
    assert path.read_bytes() == b"before\nzero\nhalf done\none\nunfinished after the last decision\n"


def test_each_line_goes_with_the_match_and_decision_the_bot_was_told_of(tmp_path: Path) -> None:
    """Before the first match (while starting and joining): that match's, at "start"; between the
    match's start and the seat's first request (on_match_start): that first decision, however late
    the referee reads it; after the last decision: that match, never the next one."""
    log, pipe, _ = pipe_log(tmp_path)
    os.write(pipe, b"booting\n")
    log.mark(None)  # the first match begins: the bot joined
    os.write(pipe, b"hello\n")  # on_match_start, read with the first request
    log.mark(3)
    os.write(pipe, b"deciding 3\n")
    log.drain()
    os.write(pipe, b"game over\n")
    first = [Line(None, "booting"), Line(3, "hello"), Line(3, "deciding 3"), Line(3, "game over")]
    assert log.take() == first
    log.mark(None)  # the next match begins: what the last one held is not the next one's
    os.write(pipe, b"hello again\n")
    log.mark(0)
    assert log.take() == [Line(0, "hello again")]
    log.mark(None)
    os.write(pipe, b"crashed before deciding\n")
    assert log.take() == [Line(None, "crashed before deciding")]  # no request came: not restamped
    os.close(pipe)
    log.join(5)


def test_a_pipe_numbered_past_select_s_limit_is_still_read(tmp_path: Path) -> None:
    """select() refuses a descriptor past 1023: the reader thread ended and closed the pipe, and every
    later line of that bot was lost (a busy referee has that many descriptors open)."""
    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] <= 1100:
        pytest.skip("needs descriptors numbered past 1023")
    read_end, write_end = os.pipe()
    high = fcntl.fcntl(read_end, fcntl.F_DUPFD, 1024)
    os.close(read_end)
    log = StampedLog(os.fdopen(high, "rb", buffering=0), tmp_path / "bot.log", 1 << 20)
    log.mark(0)
    for number in range(3):
        os.write(write_end, f"line {number}\n".encode())
        log.join(0.05)  # the reader thread's turn (it must not have ended)
    log.drain()
    assert log.take() == [Line(0, f"line {n}") for n in range(3)]
    os.close(write_end)
    log.join(5)


def test_a_flood_is_capped_in_memory_and_on_disk(tmp_path: Path) -> None:
    log, pipe, path = pipe_log(tmp_path, cap=100)
    log.mark(None)
    log.mark(4)
    for number in range(50):
        os.write(pipe, f"line {number:04}\n".encode())
    lines = log.take()
    assert len(lines) == 11 and lines[-1].text.startswith("[arena: more than 100 bytes this match")
    assert lines[0] == Line(4, "line 0000") and lines[9] == Line(4, "line 0009")
    log.mark(None)
    os.write(pipe, b"next match\n")
    assert log.take() == [Line(None, "next match")]  # a fresh cap for the next match
    os.close(pipe)
    log.join(5)
    text = path.read_bytes()
    assert text.startswith(b"line 0000\n") and text.endswith(b"the rest of the output is dropped]\n")
    assert len(text) < 200


def test_output_without_newlines_is_cut_into_bounded_lines(tmp_path: Path) -> None:
    log, pipe, _ = pipe_log(tmp_path, cap=1 << 16)
    log.mark(2)
    for _ in range(100):
        os.write(pipe, b"x" * 1000)  # 100 kB, never a newline
    lines = log.take()
    assert len(lines) == 65536 // (LINE_CHARS + 1) + 1 and all(len(x.text) <= LINE_CHARS for x in lines)
    assert lines[-1].text.startswith("[arena: more than 65536 bytes this match")
    os.close(pipe)
    log.join(5)


def test_arena_logs_shows_a_bots_text_escaped(tmp_path: Path) -> None:
    replay = tmp_path / "x.jsonl"
    rows = [
        {"type": "log-header", "match_id": "m", "game": "ninjan", "deadline_ms": 0,
         "players": [{"seat": 0, "bot": "evil\u001b[2J"}]},
        {"type": "line", "seat": 0, "step": 3, "text": "\u001b]0;owned\u0007 red"},
        {"type": "think", "seat": 0, "step": 3, "ms": 5.0, "answered": False},
    ]  # fmt: skip
    match_log_path(replay).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    proc = run_arena("logs", str(replay), "--think")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout
    assert "step     3  seat 0 evil" in proc.stdout
    assert "1 without a usable answer" in proc.stdout and "(no deadline)" in proc.stdout


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        (None, [], "no match log at"),
        ("[1, 2]\n", [], "is not a match log"),
        ('{"type": "log-header"}\n{"type": "line", "seat": "x"}\n', [], "is not a match log"),
        ("\x00\xff", [], "is not a match log"),
        ('{"type": "log-header", "players": [{"seat": 0, "bot": "a"}]}\n', ["--seat", "3"], "seats 0 to 0"),
    ],
)
def test_a_missing_or_broken_match_log_is_one_line(
    tmp_path: Path, content: str | None, args: list[str], message: str
) -> None:
    replay = tmp_path / "y.jsonl"
    if content is not None:
        match_log_path(replay).write_text(content, encoding="utf-8")
    proc = run_arena("logs", str(replay), *args)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: ") and message in lines[0], proc.stderr


def test_a_tournaments_match_logs_are_kept_with_its_results(redis_url: str, tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    args = ["tournament", "ninjan", "--bots", "random,greedy", "--rounds", "1", "--seed", "5"]
    proc = run_arena(*args, "--workers", "1", "--idle-timeout", "10", "--redis", redis_url, env=env)
    assert proc.returncode == 0, proc.stderr
    results = run_arena("results", "ninjan", "--json", "--redis", redis_url, env=env)
    match_ids = [json.loads(line)["match_id"] for line in results.stdout.splitlines()]
    assert len(match_ids) == 2
    shown = run_arena("logs", match_ids[0], "--think", "--redis", redis_url, env=env)
    assert shown.returncode == 0, shown.stderr
    assert "think: seat 0 " in shown.stdout and "think: seat 1 " in shown.stdout
    replay = TestClient(create_app(redis_url)).get(f"/api/matches/{match_ids[0]}/replay").json()
    assert replay["match_log"]["found"] and replay["deadline_ms"] == 2000
    assert len(replay["think"]) == sum(len(f["think"]) for f in replay["frames"]) > 10
    missing = run_arena("logs", "no-such-match", "--redis", redis_url, env=env)
    assert missing.returncode == 2 and "no log of a match 'no-such-match' is stored" in missing.stderr


def test_a_stored_log_is_capped_fairly_and_says_so() -> None:
    header = {"match_id": "m", "game": "ninjan", "deadline_ms": 10, "players": [{"seat": 0, "bot": "a"}] * 2}
    flood = {0: [Line(1, "x" * 100)] * 1000, 1: [Line(1, "quiet")]}
    think = [Think(1, 0, 2.0, True), Think(1, 1, 3.0, True)]
    stored = for_store(match_log_text(header, flood, think), limit=20_000)
    assert len(stored) < 21_000
    log = parse_match_log(stored.decode(), "stored")
    assert (1, Line(1, "quiet")) in log.lines and log.think == tuple(think)
    assert 120 < sum(seat == 0 for seat, _ in log.lines) < 140  # the room seat 1 left unused
    assert log.cut.startswith("[arena: ") and "bytes of output dropped" in log.cut
