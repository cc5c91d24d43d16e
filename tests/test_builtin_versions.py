"""A built-in bot's version changes exactly when its moves do.

A built-in bot's version (``registry.builtin_version``) hashes its name, class and declared
``revision``: moving a module, adding types or rewording a docstring keeps the version, so the bot's
ratings go on. What keeps that honest is this file: every built-in bot class plays seeded games
in-process (against the random bot, its search budget's wall-time guard lifted so a loaded machine
plays the same games) and the hash of its moves is held against ``tests/golden/builtin_bots.json``.
A change of its moves fails here until its ``revision`` is bumped and the fingerprints written again:

    ARENA_UPDATE_BOT_FINGERPRINTS=1 .venv/bin/python -m pytest -q tests/test_builtin_versions.py
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from datetime import timedelta
from typing import Any

import pytest

from arena.bots import builtin_bots
from arena.bots.common import RandomBot
from arena.bots.ladder import ladder_bots
from arena.bots.search import Budget
from arena.games import GAMES
from arena.submissions.registry import builtin_version
from arena.testing import play_bots
from tests.conftest import REPO

GOLDEN = REPO / "tests" / "golden" / "builtin_bots.json"
UPDATE = os.environ.get("ARENA_UPDATE_BOT_FINGERPRINTS") == "1"
SEEDS = (1, 2)
CASES = [(game, name) for game in sorted(GAMES) for name in sorted(ladder_bots(game))]


def unguarded(bot: Any) -> Any:
    """Returns ``bot`` with its search budget's wall-time guard lifted: only iterations count."""
    budget = getattr(bot, "budget", None)
    if isinstance(budget, Budget):
        bot.budget = dataclasses.replace(budget, cap=timedelta(days=1), share=1e6)
    return bot


def fingerprint(game_name: str, cls: type) -> str:
    """Returns the hash of ``cls``'s moves (and its default search budget) in seeded games at a table
    of three (two for a two-seat game) against the random bot, from each seat in turn."""
    game = GAMES[game_name]
    seats = max(game.spec.min_players, min(3, game.spec.max_players))
    digest = hashlib.sha256(repr(getattr(cls(), "budget", None)).encode())
    for seed in SEEDS:
        seat = seed % seats
        bots = [unguarded(cls()) if s == seat else RandomBot() for s in range(seats)]
        steps: list[Any] = []
        play_bots(game, bots, seed=seed, on_step=steps.append)
        moves = (repr(d.action) for step in steps for d in step.decisions if d.seat == seat)
        digest.update("\n".join(moves).encode())
    return digest.hexdigest()[:16]


def stored() -> dict[str, dict[str, Any]]:
    return json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}


def test_every_built_in_bot_declares_its_revision() -> None:
    for game in GAMES:
        for name, cls in builtin_bots(game).items():
            assert isinstance(vars(cls).get("revision"), int), f"{game} {name}: add 'revision = 1' to {cls}"


@pytest.mark.parametrize(("game", "name"), CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_a_change_of_moves_comes_with_a_new_revision(game: str, name: str) -> None:
    cls = ladder_bots(game)[name]
    key = f"{game}/{name}"
    now = {"class": cls.__qualname__, "revision": vars(cls)["revision"], "moves": fingerprint(game, cls)}
    if UPDATE:
        table = stored()
        table[key] = now
        GOLDEN.write_text(json.dumps(dict(sorted(table.items())), indent=1) + "\n")
        return
    before = stored().get(key)
    assert before is not None, f"no fingerprint for {key}: run with ARENA_UPDATE_BOT_FINGERPRINTS=1"
    if now["moves"] != before["moves"]:
        assert now["revision"] != before["revision"], (
            f"the moves of {key} changed: bump {cls.__qualname__}.revision (its version changes and its "
            "ratings start again), then run with ARENA_UPDATE_BOT_FINGERPRINTS=1"
        )
    assert now == before, f"{key}: write the fingerprints again (ARENA_UPDATE_BOT_FINGERPRINTS=1)"


def test_the_version_follows_the_revision_not_the_source(monkeypatch: pytest.MonkeyPatch) -> None:
    cls = builtin_bots("ninjan")["greedy"]
    first = builtin_version("greedy", ("ninjan",))
    monkeypatch.setattr(cls, "__doc__", "reworded")
    assert builtin_version("greedy", ("ninjan",)) == first
    monkeypatch.setattr(cls, "revision", vars(cls)["revision"] + 1)
    assert builtin_version("greedy", ("ninjan",)) != first
