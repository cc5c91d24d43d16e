"""Shared fixtures and helpers for the test suite."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

from arena.games.base import Game


def random_playout(
    game: Game, num_players: int, seed: int, policy_seed: int = 0
) -> Iterator[tuple[Any, dict]]:
    """Yields (state, actions) for every step of a seeded random game, then (final state, {})."""
    rng = random.Random(f"{seed}/{policy_seed}")
    state = game.initial_state(num_players, seed)
    while not game.is_terminal(state):
        actions = {seat: rng.choice(game.legal_actions(state, seat)) for seat in game.to_move(state)}
        yield state, actions
        state = game.apply(state, actions)
    yield state, {}


def walk(value: Any) -> Iterator[Any]:
    """Yields every dataclass instance nested in ``value`` (itself included), depth first."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        yield value
        for field in dataclasses.fields(value):
            yield from walk(getattr(value, field.name))
    elif isinstance(value, tuple | list):
        for item in value:
            yield from walk(item)


def play_bots(game: Game, bots: list, seed: int, match_id: str | None = None) -> Any:
    """Plays one game in-process between SDK bot instances (seat i = bots[i]); returns the final state.

    No referee, no gRPC: for rules tests and strength checks of built-in bots.
    """
    from datetime import timedelta

    from arena.sdk import MatchInfo

    names = tuple(type(b).name for b in bots)
    for seat, bot in enumerate(bots):
        bot.on_match_start(
            MatchInfo(
                match_id or f"local-{seed}", game.spec.name, seat, len(bots), names, timedelta(seconds=2), 3
            )
        )
    state = game.initial_state(len(bots), seed)
    while not game.is_terminal(state):
        actions = {}
        for seat in game.to_move(state):
            legal = game.legal_actions(state, seat)
            choice = bots[seat].choose(game.observe(state, seat), legal, timedelta(seconds=2))
            actions[seat] = legal[choice] if isinstance(choice, int) else choice
        state = game.apply(state, actions)
    return state


REPO = __import__("pathlib").Path(__file__).resolve().parent.parent


def run_arena(*args: str, env: dict | None = None, timeout: float = 240) -> Any:
    """Runs the arena CLI as a user would (a new process); returns the CompletedProcess."""
    import os
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        cwd=REPO,
    )


def json_lines(text: str) -> list[dict]:
    """Returns the JSON objects of a JSON Lines text."""
    import json

    return [json.loads(line) for line in text.splitlines() if line.strip()]
