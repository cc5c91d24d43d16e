"""Every registered game through the real referee: `arena match` with its built-in bots as processes,
at the smallest and largest player counts, and every replay verifies."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots import builtin_bots
from arena.games import GAMES
from tests.conftest import json_lines, run_arena

pytestmark = pytest.mark.e2e


def lineups() -> list[tuple[str, list[str]]]:
    cases = []
    for name, game in sorted(GAMES.items()):
        strong = sorted(b for b in builtin_bots(name) if b != "random")
        for players in sorted({game.spec.min_players, game.spec.max_players}):
            cases.append((name, [*strong[:1], *["random"] * (players - len(strong[:1]))]))
    return cases


@pytest.mark.parametrize(("game", "bots"), lineups(), ids=lambda x: x if isinstance(x, str) else len(x))
def test_full_games_through_the_referee(tmp_path: Path, game: str, bots: list[str]) -> None:
    proc = run_arena(
        "match",
        game,
        *bots,
        "--games",
        "3",
        "--seed",
        "7",
        "--json",
        "--replay-dir",
        str(tmp_path),
        "--deadline-ms",
        "10000",  # generous: a strike here must mean a broken bot, not a busy machine
    )
    assert proc.returncode == 0, proc.stderr
    results = json_lines(proc.stdout)
    assert len(results) == 3
    for result in results:
        assert result["game"] == game
        assert sorted(p["seat"] for p in result["players"]) == list(range(len(bots)))
        assert not any(p["forfeit"] or p["strikes"] for p in result["players"]), result
        assert min(p["rank"] for p in result["players"]) == 1
        verify = run_arena("replay", result["replay"], "-q")
        assert verify.returncode == 0, verify.stderr
