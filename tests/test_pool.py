"""The bot pool reuses warm bot processes across matches, and replaces the ones that broke."""

from __future__ import annotations

import asyncio
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from arena.games import get_game
from arena.referee.match import MatchConfig
from arena.referee.pool import BotPool
from arena.referee.processes import resolve_bot
from arena.referee.replay import first_difference, reproduce
from tests.conftest import REPO, json_lines, reports_in_logs

pytestmark = pytest.mark.e2e
NINJAN = get_game("ninjan")


def test_warm_bots_are_reused_across_matches(tmp_path: Path) -> None:
    specs = [resolve_bot("ninjan", "greedy"), resolve_bot("ninjan", "random")]

    async def scenario() -> tuple[list, BotPool]:
        async with BotPool(tmp_path / "logs") as pool:
            results = []
            for i in range(5):
                order = specs if i % 2 == 0 else specs[::-1]
                names = [s.name for s in order]
                results.append(await pool.play(NINJAN, order, names, 40 + i, f"pool-{i}", MatchConfig()))
            return results, pool

    results, pool = asyncio.run(scenario())
    assert pool.stats.started == 2 and pool.stats.reused == 8
    for result in results:
        assert not any(p.forfeit or p.strikes for p in result.record.players)
        lines = json_lines(result.replay_text)
        assert first_difference(result.replay_text, reproduce(lines).text) is None


def test_a_bot_that_crashed_is_replaced_by_a_fresh_process(tmp_path: Path) -> None:
    crash = resolve_bot("ninjan", f"{sys.executable} {REPO / 'tests' / 'bots' / 'scripted.py'} crash-mid")
    good = resolve_bot("ninjan", "random")

    async def scenario() -> tuple[list, BotPool]:
        async with BotPool(tmp_path / "logs", join_timeout=timedelta(seconds=20)) as pool:
            config = MatchConfig()
            results = [
                await pool.play(NINJAN, [crash, good], ["crash", "random"], seed, f"m{seed}", config)
                for seed in range(3)
            ]
            return results, pool

    results, pool = asyncio.run(scenario())
    # each crashing bot joined and got its first decision before it crashed (crash-mid)
    decisions = [m for m in reports_in_logs(tmp_path / "logs", "SCRIPTED") if "decision" in m]
    assert len(decisions) == 3
    assert all(r.record.players[0].forfeit for r in results)
    assert not any(r.record.players[1].forfeit for r in results)
    assert pool.stats.started == 4 and pool.stats.reused == 2  # a new crashing bot each time, random kept
