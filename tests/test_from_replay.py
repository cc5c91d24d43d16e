"""Branching from a replay: ``arena match --from REPLAY --step K BOT...`` starts at the position of
step K of a recorded game, with its seed and history, and the bots given.

The recorded games are made in-process (``replay_of_random_game``: the replay the referee writes for a
seeded random game); the branches are played by ``arena match`` as a user runs it, with real bot
processes in the sandbox.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.games import GAMES, get_game
from arena.referee.branch import branch
from arena.referee.replay import ReplayError, parse_lines
from tests.conftest import SMALLEST, replay_of_random_game, run_arena

PLAYERS = SMALLEST


def recorded(tmp_path: Path, game: str, seed: int = 11) -> tuple[Path, list[dict]]:
    """Writes a seeded random game's replay; returns its path and parsed lines."""
    bots = [f"old{seat}" for seat in range(PLAYERS[game])]
    text, _ = replay_of_random_game(game, seed, bots, f"{game}-recorded")
    path = tmp_path / "recorded.jsonl"
    path.write_text(text, encoding="utf-8")
    return path, parse_lines(text)


def history(lines: list[dict], before: int) -> list[dict]:
    """Returns the decision and event lines of the steps before ``before``."""
    return [x for x in lines if x["type"] in ("decision", "event") and x["step"] < before]


def decision_steps(lines: list[dict]) -> int:
    """Returns the number of decision steps of a replay."""
    return 1 + max(x["step"] for x in lines if x["type"] == "decision")


def test_every_game_has_players_here() -> None:
    assert sorted(PLAYERS) == sorted(GAMES)


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_a_branch_reproduces_the_recorded_steps_up_to_k_exactly(tmp_path: Path, game: str) -> None:
    path, lines = recorded(tmp_path, game)
    k = decision_steps(lines) // 2
    bots = ["random"] * PLAYERS[game]
    out = tmp_path / "out"
    proc = run_arena(
        "match", "--from", str(path), "--step", str(k), *bots, "--json", "--replay-dir", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[0])
    assert result["game"] == game and result["seed"] == lines[0]["seed"]
    assert result["replay"].endswith(f"-from{k}.jsonl")
    branched = parse_lines(Path(result["replay"]).read_text(encoding="utf-8"))
    assert branched[0]["from"] == {"match_id": f"{game}-recorded", "step": k}
    assert [p["bot"] for p in branched[0]["players"]] == [p["bot"] for p in result["players"]]
    assert history(branched, k) == history(lines, k)
    assert any(x["type"] == "decision" and x["step"] == k for x in branched)  # the new bots played on
    verified = run_arena("replay", "-q", result["replay"])
    assert verified.returncode == 0, verified.stderr
    assert "reproduce byte for byte" in verified.stdout


def test_the_game_may_be_named_and_step_zero_is_the_start(tmp_path: Path) -> None:
    path, lines = recorded(tmp_path, "ninjan")
    proc = run_arena(
        "match", "ninjan", "greedy", "random", "--from", str(path), "--step", "0", "--json",
        "--replay-dir", str(tmp_path / "out"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[0])
    assert [p["bot"] for p in sorted(result["players"], key=lambda p: p["seat"])] == ["greedy", "random"]
    assert result["seed"] == lines[0]["seed"]


def test_the_position_is_the_engines_after_the_recorded_decisions(tmp_path: Path) -> None:
    _, lines = recorded(tmp_path, "pnrz", seed=4)
    k = decision_steps(lines) // 3
    start = branch(lines, k)
    assert start.step == k and start.seed == lines[0]["seed"]
    assert [d.index for s in start.history for d in s.decisions] == [
        x["index"] for x in lines if x["type"] == "decision" and x["step"] < k
    ]
    assert start.driver().turn().step == k
    game = get_game("pnrz")
    assert branch(lines, 0).state == game.initial_state(2, lines[0]["seed"])


def test_a_step_past_the_end_is_refused_saying_which_steps_exist(tmp_path: Path) -> None:
    path, lines = recorded(tmp_path, "ninjan")
    last = decision_steps(lines) - 1
    with pytest.raises(ReplayError, match=f"no step {last + 1} to play: give --step from 0 to {last}"):
        branch(lines, last + 1)
    assert branch(lines, last).step == last
    proc = run_arena("match", "--from", str(path), "--step", "100000", "random", "random")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"arena: error: {path}: the recorded game has no step 100000 to play: give --step from 0 to {last}"
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ninjan", "random", "--step", "3"], "--step needs --from REPLAY"),
        (["--from", "{path}", "random", "random"], "--from needs --step K"),
        (["--from", "{path}", "--step", "1", "random", "random", "random"], "played by 2 bots: give 2"),
        (["--from", "{path}", "--step", "1", "a", "b", "--sprt", "elo0=0,elo1=5"], "give one of them"),
        (["--from", "/nonexistent.jsonl", "--step", "1", "random", "random"], "cannot read"),
    ],
)
def test_bad_branch_arguments_get_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    path, _ = recorded(tmp_path, "ninjan")
    proc = run_arena("match", *[a.replace("{path}", str(path)) for a in args])
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: ") and message in lines[0], proc.stderr
