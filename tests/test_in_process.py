"""The in-process path (``arena.referee.inprocess``, ``arena match --in-process``) against the
referee: the same seeds and bots give the same replays, byte for byte."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path

import pytest

from arena.games import GAMES
from arena.referee.inprocess import from_spec, run_local_series
from arena.referee.match import MatchConfig
from arena.referee.processes import BotLimits, resolve_bot
from arena.referee.runner import GameResult, SeriesConfig, run_series
from tests.conftest import run_arena

HASHED = str(Path(__file__).parent / "bots" / "hashed.py")
GAMES_PER_CASE = 10
CASES = [
    (name, players)
    for name, game in GAMES.items()
    for players in range(game.spec.min_players, game.spec.max_players + 1)
]


def line_up(players: int) -> list[str]:
    """Returns the bot arguments of a table: the hashed file bot (strikes, a forfeit and the seeded
    fallback), built-in random bots (seeded by the match id they are told) and, from three seats,
    a second hashed bot (named #2)."""
    bots = [HASHED, "random", HASHED, "random", "random", "random"]
    return bots[:players]


@pytest.mark.parametrize(("game_name", "players"), CASES)
def test_in_process_replays_are_the_referees_byte_for_byte(
    game_name: str, players: int, tmp_path: Path
) -> None:
    """Ten seeded games per game and player count, played by bot processes through the referee and
    in this process, give identical replay files (and identical records)."""
    game = GAMES[game_name]
    specs = [resolve_bot(game_name, bot) for bot in line_up(players)]

    def config(folder: str) -> SeriesConfig:
        return SeriesConfig(
            games=GAMES_PER_CASE,
            seed=1000 + players,
            # generous: a late answer would strike on one path and not the other
            match=MatchConfig(deadline=timedelta(seconds=60), max_strikes=3),
            replay_dir=tmp_path / folder,
            log_dir=tmp_path / "logs",
            bot_limits=BotLimits(sandbox=False),  # the sandbox changes nothing a replay records
        )

    referee = asyncio.run(run_series(game, specs, config("referee")))
    local = asyncio.run(run_local_series(game, [from_spec(game_name, s) for s in specs], config("local")))
    assert len(referee) == len(local) == GAMES_PER_CASE
    for theirs, ours in zip(referee, local, strict=True):
        assert theirs.replay is not None and ours.replay is not None
        assert ours.replay.name == theirs.replay.name
        assert ours.replay.read_bytes() == theirs.replay.read_bytes()
        assert ours.record == theirs.record
    struck = sum(r.replay_text.count('"type":"strike"') for r in local)
    assert struck > 0  # the strike rule was exercised, not only good answers


SLOW = """
import time

from arena.sdk import Bot


class Slow(Bot):
    name = "slow"

    def choose(self, observation, legal_actions, deadline):
        time.sleep(2 * deadline.total_seconds())  # always past the deadline, however loaded the machine
        return 0
"""

CRASHING = """
from arena.sdk import Bot


class Crashing(Bot):
    name = "crashing"

    def choose(self, observation, legal_actions, deadline):
        raise RuntimeError("bug in choose")
"""


def play_local(tmp_path: Path, source: str, games: int = 1, deadline_ms: int = 2000) -> list[GameResult]:
    """Plays ``games`` Ninjan games in-process between the bot ``source`` defines and ``random``."""
    path = tmp_path / "my_bot.py"
    path.write_text(source)
    bots = [
        from_spec("ninjan", resolve_bot("ninjan", str(path))),
        from_spec("ninjan", resolve_bot("ninjan", "random")),
    ]
    config = SeriesConfig(
        games=games, seed=3, match=MatchConfig(deadline=timedelta(milliseconds=deadline_ms))
    )
    return asyncio.run(run_local_series(GAMES["ninjan"], bots, config))


def test_a_late_in_process_answer_is_struck_as_the_referee_strikes_it(tmp_path: Path) -> None:
    """A bot slower than the deadline gets the referee's TIMEOUT strikes, then forfeits; the seeded
    fallback plays its seat to the end."""
    (result,) = play_local(tmp_path, SLOW, deadline_ms=20)
    lines = [json.loads(line) for line in result.replay_text.splitlines()]
    strikes = [line for line in lines if line["type"] == "strike"]
    assert [s["code"] for s in strikes] == ["ERROR_CODE_TIMEOUT"] * 3
    assert strikes[0]["message"] == "no answer within 20 ms"
    assert [line["reason"] for line in lines if line["type"] == "forfeit"] == ["3 strikes"]
    seat = next(p for p in result.record.players if p.bot == "slow")
    assert seat.forfeit and seat.strikes == 3


def test_a_bot_that_raises_forfeits_and_the_next_game_starts_a_fresh_one(tmp_path: Path) -> None:
    """As a crashed bot process: its seat forfeits ("disconnected"), the note names the exception,
    and the series goes on with a new instance of the bot."""
    results = play_local(tmp_path, CRASHING, games=2)
    for result in results:
        seat = next(p for p in result.record.players if p.bot == "crashing")
        assert seat.forfeit
        assert '"reason":"disconnected"' in result.replay_text
        assert result.notes == [
            "bot crashing raised RuntimeError: bug in choose",
            "bot crashing disconnected during the game",
        ]
        assert result.failures  # counted as a bot failure, as by the referee


def test_arena_match_in_process_says_so_and_plays(tmp_path: Path) -> None:
    """``--in-process`` warns on every run that bots run unsandboxed in the process, and plays."""
    proc = run_arena(
        "match", "ninjan", "random", HASHED, "--in-process", "--seed", "4", "--replay-dir", str(tmp_path)
    )
    assert proc.returncode == 0, proc.stderr
    assert "in-process: bots run inside this process, unsandboxed" in proc.stderr
    assert "for bots you trust only" in proc.stderr
    assert len(list(tmp_path.glob("ninjan-*.jsonl"))) == 1


@pytest.mark.parametrize("bot", ["sh -c 'exit 0'", "@wait"])
def test_arena_match_in_process_refuses_a_bot_that_is_not_python(bot: str, tmp_path: Path) -> None:
    """A shell command or a hand-started bot cannot run in-process: one line says so."""
    proc = run_arena("match", "ninjan", "random", bot, "--in-process", "--replay-dir", str(tmp_path))
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("arena: error: --in-process plays Python bots only")
