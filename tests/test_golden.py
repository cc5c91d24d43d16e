"""Golden replays: every game, at its smallest and largest table, reproduces its committed replay byte for
byte, both from the seeded playout and from the replay's own decisions (``arena replay``), and shows
every seat and a spectator exactly the views whose digests are committed beside the replay.

After a deliberate change of the rules or of what a view shows: ``python -m tests.golden --update``, and
say why in the commit."""

from __future__ import annotations

import dataclasses
import functools
import json

import pytest

from arena.games import GAMES
from arena.referee.replay import first_difference, read_lines, reproduce
from tests import golden

CASES = golden.cases()
IDS = [f"{name}-{players}p-seed{seed}" for name, players, seed in CASES]


@functools.cache
def played(name: str, players: int, seed: int) -> tuple[str, str]:
    """Returns the golden playout's replay and view digests (played once per case for both tests)."""
    return golden.playout(GAMES[name], players, seed)


@pytest.mark.parametrize(("name", "players", "seed"), CASES, ids=IDS)
def test_the_seeded_playout_gives_the_committed_replay(name: str, players: int, seed: int) -> None:
    path = golden.path_of(name, players, seed)
    committed = golden.comparable(path.read_text(encoding="utf-8"))
    replay = golden.comparable(played(name, players, seed)[0])
    assert first_difference("\n".join(committed), "\n".join(replay)) is None


@pytest.mark.parametrize(("name", "players", "seed"), CASES, ids=IDS)
def test_the_seeded_playout_shows_the_committed_views(name: str, players: int, seed: int) -> None:
    committed = golden.digests_path_of(name, players, seed).read_text(encoding="utf-8")
    assert first_difference(committed, played(name, players, seed)[1]) is None


def test_changing_one_field_of_one_observation_breaks_the_digests(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ninjan's observation with one field off by one (its round) plays the very same replay, yet its
    view digests differ from the committed ones: in every seat's column, and in no public one."""
    name, players, seed = "ninjan", 2, 1
    game = GAMES[name]
    observe = type(game).observe

    def altered(self, state, seat):
        observation = observe(self, state, seat)
        return dataclasses.replace(observation, round=observation.round + 1)

    monkeypatch.setattr(type(game), "observe", altered)
    replay, views = golden.playout(game, players, seed)
    committed = golden.digests_path_of(name, players, seed).read_text(encoding="utf-8")
    assert golden.comparable(replay) == golden.comparable(golden.path_of(name, players, seed).read_text())
    assert first_difference(committed, views) is not None
    before = [json.loads(line) for line in committed.splitlines()]
    after = [json.loads(line) for line in views.splitlines()]
    assert [x["public"] for x in before] == [x["public"] for x in after]
    for x, y in zip(before, after, strict=True):
        assert all(a != b for a, b in zip(x["seats"], y["seats"], strict=True)), x["position"]


def test_changing_the_public_view_breaks_the_digests(monkeypatch: pytest.MonkeyPatch) -> None:
    """PNRZ's public view without its scored regions changes the public digests and no seat's."""
    name, players, seed = "pnrz", 2, 1
    game = GAMES[name]
    public_view = type(game).public_view

    def without_regions(self, state):
        return dataclasses.replace(public_view(self, state), regions=())

    monkeypatch.setattr(type(game), "public_view", without_regions)
    committed = golden.digests_path_of(name, players, seed).read_text(encoding="utf-8")
    before = [json.loads(line) for line in committed.splitlines()]
    after = [json.loads(line) for line in golden.playout(game, players, seed)[1].splitlines()]
    assert [x["seats"] for x in before] == [x["seats"] for x in after]
    assert [x["public"] for x in before] != [x["public"] for x in after]


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
    assert all(golden.digests_path_of(*case).exists() for case in CASES)
