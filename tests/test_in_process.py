"""The in-process path (``arena.referee.inprocess``, ``arena match --in-process``) against the
referee: the same seeds and bots give the same replays, byte for byte."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest

from arena.games import GAMES
from arena.referee.inprocess import from_spec, run_local_series
from arena.referee.match import MatchConfig
from arena.referee.processes import BotLimits, resolve_bot
from arena.referee.runner import SeriesConfig, run_series

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
