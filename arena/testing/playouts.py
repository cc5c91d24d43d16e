"""Seeded games played in-process: random playouts, the replay a referee would write of one, and games
between SDK bot instances. No referee, no gRPC, no processes: engines (and bot classes) alone."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator
from typing import Any

from arena.games import get_game
from arena.games.base import Game
from arena.games.play import Choose, play


def random_policy(seed: int, policy_seed: int = 0) -> Callable[[Any, int], int]:
    """Returns the seeded random policy of ``random_playout``: (turn, seat) -> an index into the seat's
    legal actions, drawn uniformly."""
    rng = random.Random(f"{seed}/{policy_seed}")
    return lambda turn, seat: rng.randrange(len(turn.legal[seat]))


def random_playout(
    game: Game, num_players: int, seed: int, policy_seed: int = 0
) -> Iterator[tuple[Any, dict]]:
    """Yields (state, actions) for every step of a seeded random game, then (final state, {}).

    The game deals from ``seed``; every acting seat picks uniformly among its legal actions with a
    generator seeded by ``seed`` and ``policy_seed``: the same arguments give the same game.
    """
    state = game.initial_state(num_players, seed)
    for step in play(game, state, random_policy(seed, policy_seed)):
        yield state, {d.seat: d.action for d in step.decisions}
        state = step.state
    yield state, {}


def replay_of_random_game(game_name: str, seed: int, bots: list[str], match_id: str) -> tuple[str, Any]:
    """Returns (replay text, MatchRecord) of a seeded random game, as the referee would write them."""
    return replay_of_game(game_name, seed, bots, match_id, random_policy(seed))


def replay_of_game(
    game_name: str, seed: int, bots: list[str], match_id: str, choose: Choose[Any, Any]
) -> tuple[str, Any]:
    """Returns (replay text, MatchRecord) of a game whose seats choose by ``choose`` (the driver's
    ``(turn, seat) -> index``), as the referee would write them (deadline 2000 ms, 3 strikes)."""
    from arena.referee.record import final_record
    from arena.referee.replay import ReplayWriter

    game = get_game(game_name)
    writer = ReplayWriter(ReplayWriter.header(match_id, game.spec.name, seed, bots, 2000, 3))
    state, steps = game.initial_state(len(bots), seed), 0
    for step in play(game, state, choose):
        writer.step(game, step)
        state, steps = step.state, step.number + (1 if step.decisions else 0)
    none = [False] * len(bots)
    record = final_record(game, state, match_id, seed, bots, none, [0] * len(bots), steps)
    writer.result(record)
    return writer.text(), record


def play_bots(
    game: Game,
    bots: list,
    seed: int,
    match_id: str | None = None,
    watch: Callable[[Any], None] | None = None,
    on_step: Callable[[Any], None] | None = None,
) -> Any:
    """Plays one game in-process between SDK bot instances (seat i = bots[i]); returns the final state.

    No referee, no gRPC: for rules tests, strength checks of built-in bots and the stored ladders
    (bench/builtin_ladder.py). ``watch`` sees the true state before each decision (a measurement's
    oracle; never a bot's view); ``on_step`` gets every ``Step`` (its events included) as it is played.
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

    def choose(turn: Any, seat: int) -> int:
        if watch is not None:
            watch(turn.state)
        legal = turn.legal[seat]
        choice = bots[seat].choose(game.observe(turn.state, seat), legal, timedelta(seconds=2))
        return choice if isinstance(choice, int) else legal.index(choice)

    state = game.initial_state(len(bots), seed)
    for step in play(game, state, choose):
        state = step.state
        if on_step is not None:
            on_step(step)
    return state


def walk(value: Any) -> Iterator[Any]:
    """Yields every dataclass instance nested in ``value`` (itself included), depth first."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        yield value
        for field in dataclasses.fields(value):
            yield from walk(getattr(value, field.name))
    elif isinstance(value, tuple | list):
        for item in value:
            yield from walk(item)
