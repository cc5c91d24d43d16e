"""The arena CLI as a user meets it: a match, a series, replays, and one-line errors for bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.bots import builtin_bots
from arena.seeds import series_seed
from tests.conftest import game_lines, json_lines, run_arena

NINJAN_BOTS = ", ".join(sorted(builtin_bots("ninjan")))  # as the error lists them

pytestmark = pytest.mark.e2e


def test_games_lists_every_game_with_player_counts() -> None:
    proc = run_arena("games")
    assert proc.returncode == 0
    assert "ninjan" in proc.stdout and "2-5 players" in proc.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["match", "chess", "random", "random"], "unknown game 'chess'; valid games: "),
        (
            ["match", "ninjan", "random", "nosuchbot"],
            f"unknown bot 'nosuchbot' for ninjan: built-in bots are {NINJAN_BOTS}",
        ),
        (["match", "ninjan", "random"], "ninjan is for 2 to 5 players, not 1"),
        (["match", "ninjan", *["random"] * 6], "ninjan is for 2 to 5 players, not 6"),
        (["match", "ninjan", "random", "random", "--games", "many"], "Invalid value for '--games'"),
        (["match", "ninjan", "random", "random", "--games", "0"], "--games"),
        (["match", "ninjan", "random", "missing_bot.py"], "bot file missing_bot.py does not exist"),
        (["match", "ninjan", "random", "random", "--colour"], "No such option: --colour"),
        (["replay", "/nonexistent/replay.jsonl"], "cannot read /nonexistent/replay.jsonl"),
    ],
)
def test_bad_input_gets_one_line_and_exit_code_2(args: list[str], message: str) -> None:
    proc = run_arena(*args)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("arena: error: ") and message in lines[0], lines[0]


def test_one_match_prints_a_result_table_and_writes_a_replay(tmp_path: Path) -> None:
    proc = run_arena("match", "ninjan", "random", "greedy", "--seed", "3", "--replay-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "winner:" in proc.stdout and "greedy" in proc.stdout
    (replay,) = tmp_path.glob("*.jsonl")
    lines = json_lines(replay.read_text())
    assert lines[0]["type"] == "header" and lines[0]["game"] == "ninjan"
    assert lines[0]["seed"] == series_seed(3, 0)  # game g of a series plays a hash of --seed and g
    assert lines[0]["versions"]["protocol"] == "arena.v1"
    assert lines[-1]["type"] == "result"


def test_verbose_prints_a_play_by_play(tmp_path: Path) -> None:
    proc = run_arena("match", "ninjan", "random", "random", "-v", "--replay-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("* Round ") == 9  # the cards shown each round, in words
    assert "round 9" in proc.stdout


def test_two_hundred_games_json_greedy_beats_random(tmp_path: Path) -> None:
    proc = run_arena(
        "match",
        "ninjan",
        "random",
        "greedy",
        "--games",
        "200",
        "--seed",
        "1",
        "--json",
        "--replay-dir",
        str(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr
    games = game_lines(proc.stdout)
    assert len(games) == 200
    assert [g["seed"] for g in games] == [series_seed(1, g) for g in range(200)]
    for game in games:
        assert game["game"] == "ninjan"
        assert sorted(p["seat"] for p in game["players"]) == [0, 1]
        assert {p["bot"] for p in game["players"]} == {"random", "greedy"}
        assert not any(p["forfeit"] or p["strikes"] for p in game["players"])
        assert Path(game["replay"]).is_file()
        best = min(p["rank"] for p in game["players"])
        firsts = [p["bot"] for p in game["players"] if p["rank"] == best]
        assert game["winner"] == (firsts[0] if len(firsts) == 1 else None)
    # seats rotate: greedy sits in seat 1 in even games and seat 0 in odd ones
    assert {p["seat"] for g in games for p in g["players"] if p["bot"] == "greedy"} == {0, 1}
    greedy = sum(g["winner"] == "greedy" for g in games)
    random_ = sum(g["winner"] == "random" for g in games)
    assert greedy >= 150 and greedy > 4 * random_, (greedy, random_)


def test_same_seed_same_replay_bytes_and_replay_verifies(tmp_path: Path) -> None:
    for run in ("a", "b"):
        proc = run_arena(
            "match",
            "ninjan",
            "random",
            "greedy",
            "random",
            "--seed",
            "9",
            "--replay-dir",
            str(tmp_path / run),
        )
        assert proc.returncode == 0, proc.stderr
    name = f"ninjan-{series_seed(9, 0)}.jsonl"
    first, second = (tmp_path / "a" / name), (tmp_path / "b" / name)
    assert first.read_bytes() == second.read_bytes()
    proc = run_arena("replay", str(first))
    assert proc.returncode == 0, proc.stderr
    assert "reproduce byte for byte" in proc.stdout and "round 9" in proc.stdout


def test_a_tampered_replay_is_caught(tmp_path: Path) -> None:
    proc = run_arena("match", "ninjan", "random", "random", "--seed", "2", "--replay-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    path = tmp_path / f"ninjan-{series_seed(2, 0)}.jsonl"
    lines = path.read_text().splitlines()
    result = json.loads(lines[-1])
    result["players"][0]["score"] += 1
    lines[-1] = json.dumps(result, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n")
    proc = run_arena("replay", str(path), "-q")
    assert proc.returncode == 1
    assert "does NOT reproduce" in proc.stderr and f"line {len(lines)} differs" in proc.stderr


def test_python_file_bots_play(tmp_path: Path) -> None:
    proc = run_arena(
        "match",
        "ninjan",
        "bots/python/first_bot.py",
        "bots/python/take_richest.py",
        "--games",
        "4",
        "--json",
        "--replay-dir",
        str(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr
    games = game_lines(proc.stdout)
    assert len(games) == 4
    # the names the bots send in Join (first_bot.py's Bot.name is "first")
    assert {p["bot"] for g in games for p in g["players"]} == {"first", "take-richest"}
    assert not any(p["forfeit"] for g in games for p in g["players"])


def test_local_match_ids_follow_the_seed_and_line_up_and_never_repeat_across_runs() -> None:
    """The same command with the same seed gives the same ids (and replays); another seed, or another
    line-up, gives other ids, so the --json output of two runs can be merged."""

    def ids(*args: str) -> list[str]:
        ran = run_arena("match", "ninjan", *args, "--games", "2", "--json", "--no-sandbox")
        assert ran.returncode == 0, ran.stderr
        return [line["match_id"] for line in game_lines(ran.stdout)]

    first = ids("random", "greedy", "--seed", "4")
    assert len(set(first)) == 2 and all(re.fullmatch(r"ninjan-[0-9a-f]{12}", i) for i in first), first
    assert ids("random", "greedy", "--seed", "4") == first
    assert not set(ids("random", "greedy", "--seed", "5")) & set(first)
    assert not set(ids("greedy", "random", "--seed", "4")) & set(first)
