"""Attaching a bot by hand: a ``@wait`` seat of ``arena match`` prints the referee's address and a
token, and waits for a bot the author started (from a debugger, an IDE) to join with them.

The tests run ``arena match`` as a user would and start the attached bot themselves once the address
line has been read (the line is the gate: no sleep). ``--deadline-ms 0`` sets no deadline, which the
Python SDK hands the bot as ``NO_DEADLINE``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import IO

import pytest

from arena.referee.processes import BotSpecError, resolve_bot
from tests.conftest import REPO, game_lines, run_arena

ADDRESS_LINE = re.compile(r"ARENA_ADDRESS=(\S+) ARENA_TOKEN=(\S+)")

# A bot that checks the deadline it is handed (none with --deadline-ms 0) and plays the first action.
PATIENT_BOT = """
import sys

from arena.sdk import Bot
from arena.sdk.match import NO_DEADLINE


class Patient(Bot):
    name = "patient"

    def choose(self, observation, legal_actions, deadline):
        if deadline != NO_DEADLINE:
            sys.exit(f"expected no deadline, got {deadline}")
        return 0


if __name__ == "__main__":
    Patient().run()
"""


def start_match(*args: str) -> subprocess.Popen:
    """Starts ``arena match`` with piped output, as a user would from a terminal."""
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "match", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )


def read_address(stderr: IO[str]) -> tuple[str, str, list[str]]:
    """Reads arena's stderr up to the ``@wait`` line; returns (address, token, the lines read)."""
    seen = []
    for line in stderr:
        seen.append(line)
        found = ADDRESS_LINE.search(line)
        if found:
            return found.group(1), found.group(2), seen
    raise AssertionError(f"arena printed no address for the @wait seat: {''.join(seen)}")


def attach(command: list[str], address: str, token: str) -> subprocess.CompletedProcess:
    """Runs a bot by hand against the referee, as the printed line says; returns when it ends."""
    env = {**os.environ, "ARENA_ADDRESS": address, "ARENA_TOKEN": token}
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, cwd=REPO)


def test_a_bot_started_by_hand_plays_a_wait_seat_with_no_deadline(tmp_path: Path) -> None:
    bot = tmp_path / "patient.py"
    bot.write_text(PATIENT_BOT, encoding="utf-8")
    arena = start_match(
        "ninjan", "random", "@wait:mine", "--deadline-ms", "0", "--seed", "5", "--json",
        "--replay-dir", str(tmp_path / "replays"),
    )  # fmt: skip
    try:
        address, token, _ = read_address(arena.stderr)
        assert address.startswith("127.0.0.1:")
        played = attach([sys.executable, str(bot)], address, token)
        stdout, stderr = arena.communicate(timeout=120)
    finally:
        arena.kill()
    assert played.returncode == 0, played.stderr
    assert arena.returncode == 0, stderr
    result = json.loads(stdout.splitlines()[0])
    mine = next(p for p in result["players"] if p["bot"] == "mine")
    assert mine["strikes"] == 0 and not mine["forfeit"]
    header = json.loads(Path(result["replay"]).read_text(encoding="utf-8").splitlines()[0])
    assert header["deadline_ms"] == 0


def test_a_bot_attached_once_plays_every_game_of_a_series(tmp_path: Path) -> None:
    """A built-in bot attached by hand plays two games on one stream: one address line suffices."""
    arena = start_match(
        "ninjan", "@wait", "random", "--games", "2", "--seed", "9", "--json",
        "--replay-dir", str(tmp_path / "replays"),
    )  # fmt: skip
    try:
        address, token, _ = read_address(arena.stderr)
        played = attach([sys.executable, "-m", "arena.bots", "ninjan", "greedy"], address, token)
        stdout, stderr = arena.communicate(timeout=120)
    finally:
        arena.kill()
    assert played.returncode == 0, played.stderr
    assert arena.returncode == 0, stderr
    results = game_lines(stdout)
    assert len(results) == 2
    assert all(p["strikes"] == 0 for r in results for p in r["players"])
    assert stderr.count("ARENA_TOKEN=") == 0  # the stream stayed open: no second announcement


def test_a_wait_seat_nobody_joins_forfeits_and_says_so(tmp_path: Path) -> None:
    proc = run_arena(
        "match", "ninjan", "random", "@wait", "--join-timeout", "0.5", "--seed", "1",
        "--replay-dir", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert "ARENA_TOKEN=" in proc.stderr
    assert "attached by hand (@wait) did not join within 0.5 s" in proc.stderr
    assert "bot attached (seat 1) never connected" in proc.stderr


@pytest.mark.parametrize("text", ["@wait:", "@wait:a b", "@wait:" + "x" * 41, "@wait:$(id)"])
def test_a_bad_wait_name_is_refused(text: str) -> None:
    if text == "@wait:":
        assert resolve_bot("ninjan", text).name == "attached"
        return
    with pytest.raises(BotSpecError, match="write @wait or @wait:NAME"):
        resolve_bot("ninjan", text)
