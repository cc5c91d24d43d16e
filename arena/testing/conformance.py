"""``check_game``: the engine contract, checked on seeded random playouts of one game.

What it checks, at every step of every playout (step n is the state after n applied steps, step 0 the
initial state):

- exactly the seats in ``to_move`` have legal actions, sorted and distinct, in ``action_order``;
- the game ends within ``spec.max_steps``; at the end nobody is to move, ``scores`` and ``ranks`` have
  one entry per seat, ranks are competition ranks (1 + the seats ranked strictly better) from 1;
- the game's own invariants, if given (``invariants.check_step(before, state)`` at every step, with
  ``before`` None at the start, and ``invariants.check_end(state)`` at the end);

and on the first ``fully_checked`` seeds of each player count, besides:

- every seat's observation, the public view, the actions taken and the events round-trip through the
  wire (``wire=True``: the game's messages in proto/arena/v1) and through JSON;
- no observation or event shows a seat, and the public view shows nobody, what ``hidden_from`` hides
  (cards named by id resolved: ``arena.testing.secrecy.check_state_secrecy``);
- a field the public view shares with the observations has the value some seat sees, and neither
  ``seat`` nor ``hand`` is one of them;
- ``apply`` (the checked path) of the actions drawn from the legal ones gives the state the driver's
  ``apply_legal`` gave; ``apply`` refuses missing actions, an action for a seat not to move, and any
  action once the game is over;
- the same seed plays the same game again, and another seed another game.

Once per game: a player count outside ``min_players..max_players`` is refused (InvalidPlayersError),
and with ``wire=True`` every IntEnum of an observation has the proto enum value of the same number and
name. Every failure is a ``ConformanceError`` (an AssertionError) naming the game, the player count,
the seed and the step.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable
from typing import Any, cast

from arena import codec
from arena.games.base import Game, IllegalActionError, InvalidPlayersError
from arena.testing.playouts import random_playout, walk
from arena.testing.secrecy import check_state_secrecy


class ConformanceError(AssertionError):
    """A game broke the engine contract; the message says where (game, players, seed, step) and what."""


@dataclasses.dataclass(frozen=True)
class Checked:
    """What ``check_game`` played: playouts, and the states checked in them."""

    game: str
    playouts: int
    states: int


def check_game(
    game: Game,
    seeds: Iterable[int] = range(20),
    players: int | Iterable[int] | None = None,
    *,
    fully_checked: int = 4,
    invariants: Any = None,
    wire: bool = True,
) -> Checked:
    """Plays a seeded random game for every seed at every player count and checks the engine contract
    at every step (this module's docstring lists the checks); raises ConformanceError at the first
    failure, naming the game, player count, seed and step. Returns what was played.

    ``players``: one count or several (default: every count the spec allows). ``fully_checked``: how
    many of the seeds, at each count, also get the costlier checks (round trips, secrecy, ``apply``,
    determinism). ``invariants``: the game's own rules checks, an object (a module) with
    ``check_step(before, state)`` and ``check_end(state)``. ``wire=False`` skips the protobuf round trips
    and enum check, for a game that has no messages in proto/arena/v1 yet.
    """
    name = game.spec.name
    seeds = list(seeds)
    counts = _player_counts(game, players)
    _once(name, "player counts", lambda: check_player_counts(game))
    if wire:
        _once(name, "enums", lambda: check_enums(game))
    playouts = states = 0
    for num_players in counts:
        trajectories: dict[int, list] = {}
        for index, seed in enumerate(seeds):
            full = index < fully_checked
            trajectory = check_playout(game, num_players, seed, full=full, invariants=invariants, wire=wire)
            playouts, states = playouts + 1, states + len(trajectory)
            if full:
                trajectories[seed] = trajectory
        check_determinism(game, num_players, trajectories)
    return Checked(name, playouts, states)


def check_playout(
    game: Game, num_players: int, seed: int, *, full: bool = True, invariants: Any = None, wire: bool = True
) -> list[tuple[Any, dict]]:
    """Plays one seeded random game, checking each step (with ``full``, the costlier checks too);
    returns its trajectory, (state, actions) per step; raises ConformanceError."""
    step, before, before_actions = 0, None, None
    trajectory: list[tuple[Any, dict]] = []
    try:
        for step, (state, actions) in enumerate(random_playout(game, num_players, seed)):
            trajectory.append((state, actions))
            check_contract(game, state, num_players)
            if invariants is not None:
                invariants.check_step(before, state)
            if full:
                check_roundtrips(game, state, actions, wire)
                check_state_secrecy(game, state)
                check_public_view_alike(game, state)
                check_apply(game, state, actions)
                if before is not None:
                    assert before_actions is not None  # set together with ``before``
                    after = game.apply(before, before_actions)
                    assert after == state, "apply and apply_legal of the same actions gave different states"
            assert step + 1 <= game.spec.max_steps + 1, "game exceeded its declared max_steps"
            before, before_actions = state, actions
        check_end(game, state, num_players)
        if invariants is not None:
            invariants.check_end(state)
    except Exception as error:
        where = f"{game.spec.name}, {num_players} players, seed {seed}, step {step}"
        raise ConformanceError(f"{where}: {_what(error)}") from error
    return trajectory


def check_contract(game: Game, state: Any, num_players: int) -> None:
    """Exactly the seats in ``to_move`` have legal actions: distinct, and in ``action_order``."""
    to_move = game.to_move(state)
    assert list(to_move) == sorted(set(to_move)), f"to_move {to_move} is not sorted and distinct"
    for seat in range(num_players):
        legal = game.legal_actions(state, seat)
        if seat in to_move:
            assert legal, f"seat {seat} must act but has no legal action"
            assert len(set(legal)) == len(legal), f"seat {seat}'s legal actions repeat one"
            assert list(legal) == sorted(legal, key=game.action_order), f"seat {seat}'s actions not in order"
        else:
            assert not legal, f"seat {seat} is not to move but has legal actions"


def check_end(game: Game, state: Any, num_players: int) -> None:
    """The game is over, nobody is to move, and every seat has a score and a competition rank."""
    assert game.is_terminal(state) and game.to_move(state) == (), "the playout ended before the game"
    ranks, scores = game.ranks(state), game.scores(state)
    assert len(ranks) == len(scores) == num_players, f"ranks {ranks} and scores {scores} for {num_players}"
    assert min(ranks) == 1, f"nobody ranks first: {ranks}"
    expected = tuple(1 + sum(other < mine for other in ranks) for mine in ranks)
    assert tuple(ranks) == expected, f"ranks {ranks} are not competition ranks"
    assert isinstance(game.termination(state), str), "termination is not a string"


def check_roundtrips(game: Game, state: Any, actions: dict, wire: bool = True) -> None:
    """Every view of ``state`` and every action taken round-trips through JSON (and the wire)."""
    for seat in range(_num_players(game, state)):
        obs = game.observe(state, seat)
        assert isinstance(obs, game.observation_type), f"seat {seat}'s observation is a {type(obs)}"
        if wire:
            assert codec.observation_from_proto(game, codec.observation_to_proto(game, obs)) == obs, (
                f"seat {seat}'s observation changed through the wire"
            )
        assert codec.from_json(codec.to_json(obs, game.observation_type), game.observation_type) == obs, (
            f"seat {seat}'s observation changed through JSON"
        )
    view = game.public_view(state)
    assert isinstance(view, game.public_view_type), f"the public view is a {type(view)}"
    assert codec.from_json(codec.to_json(view, type(view)), type(view)) == view, "public view through JSON"
    for action in actions.values():
        if wire:
            assert codec.action_from_proto(game, codec.action_to_proto(game, action)) == action, (
                f"{action!r} changed through the wire"
            )
        assert codec.from_json(codec.to_json(action, game.action_type), game.action_type) == action, (
            f"{action!r} changed through JSON"
        )
    for event in game.events(state):
        if wire:
            assert codec.event_from_proto(game, codec.event_to_proto(game, event, 1)) == event, (
                f"{event!r} changed through the wire"
            )
        assert codec.from_json(codec.to_json(event, game.event_type), game.event_type) == event, (
            f"{event!r} changed through JSON"
        )


def check_public_view_alike(game: Game, state: Any) -> None:
    """A field the public view shares with the observations has the value some seat sees, and no
    field that differs from seat to seat (a seat's own hand, its seat number) is in the public view."""
    view = game.public_view(state)
    seen = [game.observe(state, seat) for seat in range(_num_players(game, state))]
    names = {f.name for f in dataclasses.fields(seen[0])}
    shared = {f.name for f in dataclasses.fields(view)} & names
    for field in sorted(shared):
        value = getattr(view, field)
        assert value in [getattr(obs, field) for obs in seen], f"the public view's {field} no seat sees"
    assert "seat" not in shared and "hand" not in shared, "the public view has a seat's own field"


def check_apply(game: Game, state: Any, actions: dict) -> None:
    """``apply`` refuses missing actions, an action for a seat that is not to move, and any action
    once the game is over (IllegalActionError)."""
    to_move = game.to_move(state)
    if game.is_terminal(state):
        _refused(lambda: game.apply(state, {}), "apply after the end of the game")
        return
    if not to_move:
        return
    _refused(lambda: game.apply(state, {}), f"apply without the actions of seats {list(to_move)}")
    not_moving = [s for s in range(_num_players(game, state)) if s not in to_move]
    if not_moving:
        foreign = {not_moving[0]: game.legal_actions(state, to_move[0])[0]}
        _refused(lambda: game.apply(state, foreign), f"apply with an action of seat {not_moving[0]}")
    assert set(actions) == set(to_move), "the driver's actions are not those of the seats to move"


def check_determinism(game: Game, num_players: int, trajectories: dict[int, list]) -> None:
    """The same seed gives the same game again, and the first two seeds two games (``trajectories``:
    the trajectory of each fully checked seed; with one, the next seed is played to compare)."""
    name = game.spec.name
    for seed, trajectory in trajectories.items():
        if list(random_playout(game, num_players, seed)) != trajectory:
            raise ConformanceError(f"{name}, {num_players} players, seed {seed}: played again, it differs")
    seeds = list(trajectories)[:2]
    if len(seeds) == 1:  # compare with the next seed
        seeds.append(seeds[0] + 1)
        trajectories = {**trajectories, seeds[1]: list(random_playout(game, num_players, seeds[1]))}
    if len(seeds) == 2 and trajectories[seeds[0]] == trajectories[seeds[1]]:
        same = f"seeds {seeds[0]} and {seeds[1]} play one game"
        raise ConformanceError(f"{name}, {num_players} players: {same}")


def check_player_counts(game: Game) -> None:
    """A player count outside ``min_players..max_players`` is refused."""
    for bad in (game.spec.min_players - 1, game.spec.max_players + 1):
        _refused(lambda bad=bad: game.initial_state(bad, 1), f"{bad} players", InvalidPlayersError)


def check_enums(game: Game) -> None:
    """Every IntEnum member of an observation has the proto enum value of the same number and name."""
    from google.protobuf.descriptor import Descriptor

    from arena.v1 import arena_pb2

    field = arena_pb2.Observation.DESCRIPTOR.fields_by_name[game.spec.wire_name]
    message = cast(Descriptor, field.message_type)  # each game's Observation field is a message
    proto_enums = list(message.file.enum_types_by_name.values())
    state = game.initial_state(game.spec.min_players, 1)
    for obj in walk(game.observe(state, 0)):
        for value in vars(obj).values():
            if isinstance(value, enum.IntEnum):
                same = [e for t in proto_enums for e in t.values if e.number == int(value)]
                assert any(e.name.endswith("_" + value.name) for e in same), f"{value!r} is not in the proto"


def _refused(call: Any, what: str, error: type[Exception] = IllegalActionError) -> None:
    try:
        call()
    except error:
        return
    raise AssertionError(f"{what} was not refused with {error.__name__}")


def _once(name: str, what: str, check: Any) -> None:
    try:
        check()
    except Exception as error:
        raise ConformanceError(f"{name}, {what}: {_what(error)}") from error


def _what(error: Exception) -> str:
    """Returns an assertion's message as it is, any other error with its type."""
    if isinstance(error, AssertionError) and str(error):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _player_counts(game: Game, players: int | Iterable[int] | None) -> list[int]:
    if players is None:
        return list(range(game.spec.min_players, game.spec.max_players + 1))
    return [players] if isinstance(players, int) else list(players)


def _num_players(game: Game, state: Any) -> int:
    return len(game.scores(state))
