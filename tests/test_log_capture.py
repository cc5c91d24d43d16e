"""A bot's whole output in its match's log (issue 39, items 6 and 13): what it wrote before ``Join``
(a crash's traceback included), while deciding, after its last decision and at its exit, locally
(``arena match``, ``arena logs REPLAY``) and in a tournament (a real worker, the real sandbox and a
private Redis; ``arena logs MATCH_ID``), and each line stamped alike in both.

Nothing here waits on time: each bot writes its lines at points of the protocol (before joining, on
``MatchStart``, while deciding, on ``MatchResult``, at exit), and the referee reads them at points of
its own (the match beginning, each answer, the process's end).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import redis

from arena.queue import keys
from arena.queue.worker import READY_LINE, Worker, WorkerConfig
from arena.referee.botlog import STORE_KIND, MatchLog, parse_match_log, read_match_log
from arena.referee.replay import parse_lines
from arena.schedule import plan
from arena.storage import replays
from arena.submissions import registry
from tests.conftest import SEED_KEY, game_lines, run_arena
from tests.test_forfeits import QUITTER, sandbox_works, submit_files
from tests.test_queue import FAST

pytestmark = [
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
    pytest.mark.skipif(not sandbox_works(), reason="needs a working bubblewrap sandbox"),
]

CRASHER = 'print("booting the crasher", flush=True)\nraise RuntimeError("cannot load my model")\n'

# Writes a line before joining, one on MatchStart, one per decision (and one more on stdout left in
# Python's buffer until the process exits), and one on MatchResult naming the process's match and how
# many decisions it made.
TALKER = """
import sys

print("booting the talker", file=sys.stderr, flush=True)

from arena.sdk import Bot


class Talk(Bot):
    name = "talk"
    calls = 0
    matches = 0

    def on_match_start(self, match):
        self.calls = 0
        self.matches += 1
        print("hello", file=sys.stderr, flush=True)

    def choose(self, observation, legal_actions, deadline):
        self.calls += 1
        print(f"call {self.calls}", file=sys.stderr, flush=True)
        print(f"buffered {self.calls}")  # stdout to a pipe: written out at exit
        return len(legal_actions) - 1

    def on_result(self, result):
        print(f"result of match {self.matches} after {self.calls} calls", file=sys.stderr, flush=True)


if __name__ == "__main__":
    Talk().run()
"""


def texts(log: MatchLog, seat: int) -> list[str]:
    return [line.text for where, line in log.lines if where == seat]


def steps_of(log: MatchLog, seat: int, text: str) -> list[int | None]:
    return [line.step for where, line in log.lines if where == seat and line.text == text]


def first_decision(replay_text: str, seat: int) -> int:
    """Returns the step of ``seat``'s first decision in a replay."""
    rows = parse_lines(replay_text)
    return next(r["step"] for r in rows if r["type"] == "decision" and r["seat"] == seat)


def test_arena_logs_shows_the_traceback_of_a_bot_that_crashed_before_joining(tmp_path: Path) -> None:
    bot = tmp_path / "crasher.py"
    bot.write_text(CRASHER, encoding="utf-8")
    proc = run_arena("match", "ninjan", str(bot), "random", "--json", "--replay-dir", str(tmp_path / "r"))
    replay = Path(json.loads(proc.stdout.splitlines()[0])["replay"])
    shown = run_arena("logs", str(replay), "--seat", "0")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == "step start  seat 0 crasher  | booting the crasher"
    assert lines[-1] == "step start  seat 0 crasher  | RuntimeError: cannot load my model"
    assert any("Traceback (most recent call last)" in line for line in lines)


def test_a_line_written_on_match_start_goes_with_the_first_decision_in_every_game(tmp_path: Path) -> None:
    """``on_match_start`` runs as the first request is on its way: the line was ``step 0`` in one run and
    ``start`` in the next. Now it is the seat's first decision, in every game of a series (warm
    processes) as in a tournament (below); ``start`` is what the process wrote before its first match."""
    bot = tmp_path / "talk.py"
    bot.write_text(TALKER, encoding="utf-8")
    args = ["--games", "6", "--json", "--replay-dir", str(tmp_path / "r")]
    proc = run_arena("match", "ninjan", str(bot), "random", *args)
    assert proc.returncode == 0, proc.stderr
    games = [Path(line["replay"]) for line in game_lines(proc.stdout)]
    assert len(games) == 6
    for number, replay in enumerate(games):
        log = read_match_log(replay)
        seat = next(s for s in range(2) if log.bot(s) != "random")
        assert steps_of(log, seat, "hello") == [first_decision(replay.read_text(), seat)], replay
        assert steps_of(log, seat, "booting the talker") == ([None] if number == 0 else [])


def test_arena_logs_shows_what_a_bot_wrote_after_its_last_decision_and_at_exit(tmp_path: Path) -> None:
    """A local series' last game: its processes end with it, so what the bot wrote on MatchResult and
    what it left in its stdout buffer until exit are in that game's log, each line once."""
    bot = tmp_path / "talk.py"
    bot.write_text(TALKER, encoding="utf-8")
    proc = run_arena(
        "match", "ninjan", str(bot), "random", "--games", "2", "--json", "--replay-dir", str(tmp_path / "r")
    )
    assert proc.returncode == 0, proc.stderr
    replay = Path(game_lines(proc.stdout)[-1]["replay"])
    log = read_match_log(replay)
    seat = next(s for s in range(2) if log.bot(s) != "random")
    calls = sum(t.seat == seat for t in log.think)
    lines = texts(log, seat)
    # The last game's line, once; the first game's may be here too when it reached the pipe after
    # this game began (a warm process: see arena.referee.botlog), which is why the lines are numbered.
    assert lines.count(f"result of match 2 after {calls} calls") == 1, lines
    assert f"buffered {calls}" in lines, lines  # the buffer's lines (both games') come at exit


@pytest.fixture
def talker_tournament(client: redis.Redis, redis_url: str, tmp_path: Path) -> tuple[redis.Redis, list]:
    """Plays a duplicate tournament (fresh processes for every match) of the talker against random
    and a bot that never joins, on a real worker; returns the client and the jobs."""
    submit_files(client, tmp_path, "talker", {"bot.py": TALKER}, "python bot.py")
    submit_files(client, tmp_path, "quitter", {"bot.py": QUITTER}, "python bot.py")
    bots = ("talker", "quitter", "random")
    versions = tuple(registry.resolve(client, "ninjan", b) for b in bots)
    spec = plan.TournamentSpec("ninjan", bots, seed=9, versions=versions, duplicate=True)
    jobs, _ = plan.queue(client, spec, SEED_KEY)
    config = WorkerConfig(redis_url, bot_cache=tmp_path / "cache", **FAST)
    assert Worker(client, config, say=lambda _: None).run(burst=True) == len(jobs)
    assert client.smembers(keys.RECORDED_SET) == {j.match_id for j in jobs}
    return client, jobs


def stored_log(client: redis.Redis, match_id: str) -> MatchLog:
    data = replays.store_for(client).get(match_id, STORE_KIND)
    assert data is not None, match_id
    return parse_match_log(data.decode(), match_id)


def test_a_tournament_match_keeps_a_bots_whole_output(talker_tournament: tuple) -> None:
    """Before Join, every decision, on MatchResult and at exit (a buffer flushed): all in the match's
    stored log, each line once; the line written after the last decision was dropped before."""
    client, jobs = talker_tournament
    played = [j for j in jobs if "talker" in j.bots]
    assert played
    for job in played:
        log = stored_log(client, job.match_id)
        seat = job.bots.index("talker")
        calls = sum(t.seat == seat for t in log.think)
        lines = texts(log, seat)
        assert lines[:2] == [READY_LINE, "booting the talker"], lines
        assert steps_of(log, seat, "booting the talker") == [None]
        assert [x for x in lines if x.startswith("call ")] == [f"call {n}" for n in range(1, calls + 1)]
        assert lines.count(f"result of match 1 after {calls} calls") == 1, lines
        assert sorted(x for x in lines if x.startswith("buffered ")) == sorted(
            f"buffered {n}" for n in range(1, calls + 1)
        )
        replay = replays.store_for(client).get(job.match_id, "replay")
        assert replay is not None
        assert steps_of(log, seat, "hello") == [first_decision(replay.decode(), seat)]


def test_a_bot_that_never_joins_leaves_its_output_in_the_match_log_for_its_owner(
    talker_tournament: tuple, redis_url: str
) -> None:
    client, jobs = talker_tournament
    job = next(j for j in jobs if j.bots[0] == "quitter")
    log = stored_log(client, job.match_id)
    assert texts(log, 0) == [READY_LINE, "quitter: refusing to play"]
    shown = run_arena("logs", job.match_id, "--bot", "quitter", "--redis", redis_url)
    assert shown.returncode == 0, shown.stderr
    assert "step start  seat 0 quitter  | quitter: refusing to play" in shown.stdout.splitlines()
