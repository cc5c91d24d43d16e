"""The README's table of built-in bots is the one the code has: every game's built-in bots, strongest
first, with their other names and stored 2-seat Elo (``arena bots builtin`` prints the same)."""

from __future__ import annotations

import pytest

from arena.bots.ladder import load, rows
from arena.games import GAMES
from tests.conftest import REPO, run_arena


def readme_row(game: str) -> str:
    """Returns the README's table row of ``game``'s built-in bots, made from the stored ladder."""
    cells = []
    for row in rows(load(game, 2)):
        also = "".join(f" (also `{alias}`)" for alias in row["aliases"])
        cells.append(f"`{row['bot']}`{also} {row['elo']:.0f}")
    return f"| {game} | {' · '.join(cells)} |"


@pytest.mark.parametrize("game", list(GAMES))
def test_the_readme_lists_every_built_in_bot_of_the_game(game: str) -> None:
    readme = (REPO / "README.md").read_text()
    assert readme_row(game) in readme.splitlines(), f"README.md needs the row:\n{readme_row(game)}"


def test_arena_bots_builtin_without_a_game_lists_every_game() -> None:
    proc = run_arena("bots", "builtin")
    assert proc.returncode == 0, proc.stderr
    listed = {tuple(line.split()[:2]) for line in proc.stdout.splitlines()[2:-1]}
    expected = {(game, row["bot"]) for game in GAMES for row in rows(load(game, 2))}
    assert listed == expected, proc.stdout
    assert "arena bots builtin" in (REPO / "README.md").read_text()
