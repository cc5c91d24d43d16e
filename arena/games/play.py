"""The one game loop: ask the acting seats, apply their choices, record the step.

Everything that plays a game goes through ``Driver``: the referee's match loop (which asks bots over
gRPC), replay reproduction, golden replays, the test helpers, the leaderboard's replay frames and the
benchmark. They differ only in how a seat's choice is made (a ``choose`` function, or an async one in
the referee) and in what they do with each ``Step``. So the rules of the loop live here once: each
acting seat's legal actions are listed once, a choice is an index into that list, the chosen action is
applied without a second legality check (it was taken from the list), and a step counts only when
someone acted.

No I/O, no threads: this is engine level, like the games.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Generic

from arena.games.base import A, Game, S


@dataclasses.dataclass(frozen=True)
class Decision(Generic[A]):
    """One seat's choice in a step: the index into its legal actions, the action, and who chose."""

    seat: int
    index: int
    action: A
    by: str = "bot"  # "bot", or "fallback" when the referee chose for the seat


@dataclasses.dataclass(frozen=True)
class Turn(Generic[S, A]):
    """What the acting seats must choose from: step number, state, and each acting seat's legal
    actions (listed once, in the engine's order)."""

    step: int
    state: S
    legal: Mapping[int, tuple[A, ...]]  # acting seat -> its legal actions


@dataclasses.dataclass(frozen=True)
class Step(Generic[S, A]):
    """One applied step: its number, the decisions (seat order), the new state and its public events.

    A step in which nobody acted (the game resolved by itself) has no decisions and shares its number
    with the next step.
    """

    number: int
    decisions: tuple[Decision[A], ...]
    state: S
    events: tuple[Any, ...]


class Driver(Generic[S, A]):
    """Plays one game from ``state``: ``turn()`` says who must choose from what, ``advance`` applies
    the choices. Usable from synchronous and asynchronous code alike."""

    def __init__(self, game: Game[S, A], state: S) -> None:
        self.game = game
        self.state = state
        self.step = 0  # the number of the next step in which someone acts

    def turn(self) -> Turn[S, A] | None:
        """Returns the next turn, or None when the game is over."""
        game, state = self.game, self.state
        if game.is_terminal(state):
            return None
        legal = {seat: game.legal_actions(state, seat) for seat in game.to_move(state)}
        return Turn(self.step, state, legal)

    def advance(self, turn: Turn[S, A], choices: Mapping[int, tuple[int, str]]) -> Step[S, A]:
        """Applies the choices of ``turn`` (seat -> (index, by)); returns the step.

        Raises IndexError for an index outside the seat's legal actions: callers that take indexes
        from outside (bots, replay files) check them first.
        """
        decisions = tuple(
            Decision(seat, index, turn.legal[seat][index], by)
            for seat, (index, by) in sorted(choices.items())
        )
        if set(choices) != set(turn.legal):
            raise ValueError(f"choices for seats {sorted(choices)}, but seats {sorted(turn.legal)} act")
        for decision in decisions:
            if decision.index < 0:
                raise IndexError(f"seat {decision.seat}: index {decision.index} is negative")
        state = self.game.apply_legal(turn.state, {d.seat: d.action for d in decisions})
        step = Step(turn.step, decisions, state, self.game.events(state))
        self.state = state
        if decisions:
            self.step += 1
        return step


Choose = Callable[[Turn[S, A], int], "int | tuple[int, str]"]  # (turn, seat) -> index, or (index, by)


def play(game: Game[S, A], state: S, choose: Choose[S, A]) -> Iterator[Step[S, A]]:
    """Yields every step of the game from ``state``, each seat's choice made by ``choose``."""
    driver: Driver[S, A] = Driver(game, state)
    while (turn := driver.turn()) is not None:
        choices: dict[int, tuple[int, str]] = {}
        for seat in turn.legal:
            choice = choose(turn, seat)
            choices[seat] = choice if isinstance(choice, tuple) else (choice, "bot")
        yield driver.advance(turn, choices)
