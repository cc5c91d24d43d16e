"""``arena match A B --sprt``: a head-to-head test that stops once the SPRT decides, on pairs of games
that share a deal with the seats swapped, keeping every game played and leaving no bot running."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.referee import niceness
from tests.conftest import (
    GATED_BOT,
    REPO,
    Gate,
    game_lines,
    json_lines,
    processes_named,
    reports_in_logs,
    run_arena,
)

pytestmark = pytest.mark.e2e

SPRT_KEYS = ["verdict", "games", "llr", "lower", "upper"]


def sprt_run(tmp_path: Path, *args: str) -> tuple[list[dict], dict]:
    """Runs ``arena match ... --json`` with the given arguments; returns the game lines and the last
    line's ``sprt`` object, after checking that the last line is exactly that object and the one before
    it the series' summary (its W/D/L over every game played)."""
    proc = run_arena("match", "ninjan", *args, "--json", "--replay-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    *games, summary, last = json_lines(proc.stdout)
    assert list(last) == ["sprt"] and list(last["sprt"]) == SPRT_KEYS, last
    assert list(summary) == ["summary"] and summary["summary"]["games"] == len(games), summary
    assert proc.stdout.splitlines()[-1] == json.dumps(last)
    return games, last["sprt"]


def test_the_issue_command_accepts_h1_long_before_the_games_run_out(tmp_path: Path) -> None:
    games, sprt = sprt_run(
        tmp_path, "greedy", "random", "--sprt", "elo0=0,elo1=20", "--games", "2000", "--seed", "1"
    )
    assert sprt["verdict"] == "H1" and sprt["llr"] >= sprt["upper"] == pytest.approx(2.9444, abs=1e-4)
    assert sprt["lower"] == pytest.approx(-2.9444, abs=1e-4)
    # greedy wins ~95% of games; with --seed 1 the test decides after 106 games
    assert sprt["games"] == len(games) < 400
    for first, second in zip(games[::2], games[1::2], strict=True):  # one deal, seats swapped
        assert first["seed"] == second["seed"]
        assert [p["bot"] for p in first["players"]] == [p["bot"] for p in reversed(second["players"])]
    assert len({g["seed"] for g in games}) == len(games) // 2
    assert sorted(tmp_path.glob("*.jsonl")) == sorted(Path(g["replay"]) for g in games)


def test_a_bot_against_itself_does_not_accept_h1(tmp_path: Path) -> None:
    games, sprt = sprt_run(
        tmp_path, "greedy", "greedy", "--sprt", "elo0=0,elo1=20", "--games", "20", "--seed", "1"
    )
    assert sprt["verdict"] != "H1"
    assert sprt["games"] == len(games) <= 20


def test_stopping_early_keeps_the_summary_and_replays_and_stops_the_bots(tmp_path: Path) -> None:
    tag = secrets.token_hex(8)
    bot = tmp_path / "bots" / f"greedy_{tag}.py"  # the tag is in the bot process's command line
    bot.parent.mkdir()
    bot.write_text(
        "import sys\n"
        "from arena.bots import builtin_bots\n"
        "print('STARTED', '{\"argv\": \"%s\"}' % sys.argv[0], flush=True)\n"
        "builtin_bots('ninjan')['greedy']().run()\n"
    )
    replays = tmp_path / "replays"
    proc = run_arena(
        "match",
        "ninjan",
        str(bot),
        "random",
        "--sprt",
        "elo0=0,elo1=200",
        "--seed",
        "1",
        "--replay-dir",
        str(replays),
    )
    assert proc.returncode == 0, proc.stderr
    verdict = proc.stdout.strip().splitlines()[-1]
    found = re.fullmatch(
        r"SPRT greedy vs random \(.*\) after (\d+) games: H1 accepted \(LLR [^)]*\); "
        r"W - L - D: (\d+) - (\d+) - (\d+), Elo difference: \S+ \+/- \S+, LOS: \S+ %, DrawRatio: \S+ %",
        verdict,
    )
    assert found, verdict
    played = int(found[1])
    assert sum(map(int, found.groups()[1:])) == played  # the estimate beside the verdict: every game
    assert played < 20000  # --sprt without --games plays at most 20,000
    assert f"{played} games of ninjan" in proc.stdout
    assert len(list(replays.glob("*.jsonl"))) == played
    started = reports_in_logs(replays / "logs", "STARTED")
    assert started and all(tag in r["argv"] for r in started)
    assert not processes_named(tag), "a bot process outlived the series"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sprt", "elo0=0"], "Invalid value for '--sprt': missing elo1"),
        (["--sprt", "elo0=10,elo1=0"], "Invalid value for '--sprt': elo1 (0) must be greater than elo0 (10)"),
        (["random", "--sprt", "elo0=0,elo1=10"], "--sprt compares two bots, not 3"),
        (["--sprt", "elo0=0,elo1=10", "--games", "1"], "--games 2 or more"),
    ],
)
def test_bad_sprt_input_gets_one_line_and_exit_code_2(args: list[str], message: str) -> None:
    proc = run_arena("match", "ninjan", "greedy", "random", *args)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("arena: error: ") and message in lines[0], lines[0]


FRESH_BOT = """import json, secrets
print("STARTED " + json.dumps({"nonce": secrets.token_hex(8)}), flush=True)
from arena.sdk import Bot


class FirstBot(Bot):
    def choose(self, observation, legal_actions, deadline):
        return 0


FirstBot().run()
"""


def test_each_game_of_a_paired_deal_meets_fresh_bot_processes(tmp_path: Path) -> None:
    """Paired games replay one deal with the seats swapped: a process that saw the first game would
    know the other hands in the second, so every game of an --sprt run starts fresh processes."""
    bot = tmp_path / "bot" / "fresh.py"
    bot.parent.mkdir()
    bot.write_text(FRESH_BOT)
    args = ["match", "ninjan", str(bot), "random", "--sprt", "elo0=0,elo1=20", "--games", "4"]
    proc = run_arena(*args, "--seed", "3", "--json", "--replay-dir", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    games = game_lines(proc.stdout)
    starts = {report["nonce"] for report in reports_in_logs(tmp_path / "out", "STARTED")}
    assert len(games) == 4 and len(starts) == 4


NICE_BOT = """import json, os
seen = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
print("STARTED " + json.dumps({"nice": os.nice(0), "seen": len(seen)}), flush=True)
from arena.sdk import Bot


class NiceBot(Bot):
    reported = False

    def choose(self, observation, legal_actions, deadline):
        if not self.reported:
            self.reported = True
            print("DECIDES " + json.dumps({"nice": os.nice(0)}), flush=True)
        return 0


NiceBot().run()
"""


def test_a_sprt_games_bots_decide_at_full_priority_and_see_no_other_bot(tmp_path: Path) -> None:
    """--sprt starts each game's fresh processes while the game before plays, niced where arena may
    give them their priority back: they decide at the referee's priority, and see no more of the
    machine than a bot started alone (no other bot's process, sandboxed)."""
    bot = tmp_path / "bot" / "nice.py"
    bot.parent.mkdir()
    bot.write_text(NICE_BOT)
    args = ["match", "ninjan", str(bot), "random", "--sprt", "elo0=-2,elo1=2", "--games", "6"]
    proc = run_arena(*args, "--seed", "3", "--json", "--replay-dir", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    starts = reports_in_logs(tmp_path / "out", "STARTED")
    decisions = reports_in_logs(tmp_path / "out", "DECIDES")
    assert len(starts) == 6 and len({s["seen"] for s in starts}) == 1, starts
    assert [d["nice"] for d in decisions] == [os.nice(0)] * 6  # the referee's: the test's children's


def test_the_next_games_bots_start_niced_while_a_game_plays(tmp_path: Path) -> None:
    """Each game is held at a gate (its opponent's first decision) until the next game's bot reported
    its start: every start but the first happens while a game plays, at a lower priority where arena
    may give it back, else none starts early (and so none is niced)."""
    bot = tmp_path / "bot" / "nice.py"
    bot.parent.mkdir()
    bot.write_text(NICE_BOT)
    gate = Gate(tmp_path / "gate")
    gated = f"GATE={gate.folder} {sys.executable} {GATED_BOT}"
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "arena.cli", "match", "ninjan", str(bot), gated, "--no-sandbox"]
    argv += ["--sprt", "elo0=-2,elo1=2", "--games", "4", "--seed", "3", "--replay-dir", str(out)]
    proc = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    early = niceness.can_restore()
    try:
        deadline = time.monotonic() + 240
        for game in range(4):  # game g goes on once game g + 1's bot started (the last: at once)
            started = game + 2 if early and game < 3 else game + 1
            while len(reports_in_logs(out, "STARTED")) < started:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
                time.sleep(0.05)
            gate.grant(1)
        _, err = proc.communicate(timeout=240)
    finally:
        gate.open()
        proc.kill()
    assert proc.returncode == 0, err
    mine = os.nice(0)
    niced = min(19, mine + niceness.PRESTART_NICENESS) if early else mine
    assert [s["nice"] for s in reports_in_logs(out, "STARTED")] == [mine, niced, niced, niced]
    assert [d["nice"] for d in reports_in_logs(out, "DECIDES")] == [mine] * 4
