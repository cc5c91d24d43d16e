"""Every registered game through the real referee: `arena match` with its built-in bots as processes,
at the smallest and largest player counts, and every replay verifies. The heuristic bots play three
games at both counts; each game's search-based `best` (tens of ms a decision) one game at the smallest."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots import builtin_bots
from arena.games import GAMES
from tests.conftest import game_lines, run_arena

pytestmark = pytest.mark.e2e


def heuristic(game: str) -> str:
    """Returns the game's simplest built-in bot above random: not random, not best nor its alias."""
    bots = builtin_bots(game)
    best = bots.get("best")
    return min(name for name, bot in bots.items() if name != "random" and bot is not best)


def lineups() -> list[tuple[str, list[str], int]]:
    cases = []
    for name, game in sorted(GAMES.items()):
        for players in sorted({game.spec.min_players, game.spec.max_players}):
            cases.append((name, [heuristic(name), *["random"] * (players - 1)], 3))
        cases.append((name, ["best", *["random"] * (game.spec.min_players - 1)], 1))
    return cases


@pytest.mark.parametrize(
    ("game", "bots", "games"), lineups(), ids=lambda x: x if isinstance(x, str) else f"{x}"
)
def test_full_games_through_the_referee(tmp_path: Path, game: str, bots: list[str], games: int) -> None:
    proc = run_arena(
        "match",
        game,
        *bots,
        "--games",
        str(games),
        "--seed",
        "7",
        "--json",
        "--replay-dir",
        str(tmp_path),
        "--deadline-ms",
        "10000",  # generous: a strike here must mean a broken bot, not a busy machine
    )
    assert proc.returncode == 0, proc.stderr
    results = game_lines(proc.stdout)
    assert len(results) == games
    for result in results:
        assert result["game"] == game
        assert sorted(p["seat"] for p in result["players"]) == list(range(len(bots)))
        assert not any(p["forfeit"] or p["strikes"] for p in result["players"]), result
        assert min(p["rank"] for p in result["players"]) == 1
        verify = run_arena("replay", result["replay"], "-q")
        assert verify.returncode == 0, verify.stderr
