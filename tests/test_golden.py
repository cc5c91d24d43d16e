"""Golden replays: every game, at its smallest and largest table, reproduces its committed replay byte for
byte, both from the seeded playout and from the replay's own decisions (``arena replay``).

After a deliberate change of the rules: ``python -m tests.golden --update``, and say why in the commit."""

from __future__ import annotations

import pytest

from arena.games import GAMES
from arena.referee.replay import first_difference, read_lines, reproduce
from tests import golden

CASES = golden.cases()
IDS = [f"{name}-{players}p-seed{seed}" for name, players, seed in CASES]


@pytest.mark.parametrize(("name", "players", "seed"), CASES, ids=IDS)
def test_the_seeded_playout_gives_the_committed_replay(name: str, players: int, seed: int) -> None:
    path = golden.path_of(name, players, seed)
    committed = golden.comparable(path.read_text(encoding="utf-8"))
    played = golden.comparable(golden.play(GAMES[name], players, seed))
    assert first_difference("\n".join(committed), "\n".join(played)) is None


@pytest.mark.parametrize(("name", "players", "seed"), CASES, ids=IDS)
def test_the_committed_replay_reproduces_from_its_decisions(name: str, players: int, seed: int) -> None:
    path = golden.path_of(name, players, seed)
    text = path.read_text(encoding="utf-8")
    reproduction = reproduce(read_lines(path))
    assert first_difference(text, reproduction.text) is None
    assert reproduction.record.steps == read_lines(path)[-1]["steps"]


def test_every_game_has_golden_replays() -> None:
    assert {name for name, _, _ in CASES} == set(GAMES)
    assert all(golden.path_of(*case).exists() for case in CASES)
