"""The shipped harness (issue 35, item 3): ``arena.testing`` passes a stranger's small sound game and
fails each way of breaking it with a message naming the game, seed and step; its docstring's example
runs; it needs no pytest; and ``bench/`` uses it, never ``tests/``."""

from __future__ import annotations

import ast
import dataclasses
import doctest
import random
import subprocess
import sys
from collections.abc import Mapping
from typing import Any, ClassVar

import pytest

import arena.testing
from arena.games.base import Game, GameSpec, IllegalActionError
from arena.testing import ConformanceError, check_game, random_playout
from tests.conftest import REPO

# -- a stranger's game: high card, one simultaneous bet, the highest card takes the pot --------------


@dataclasses.dataclass(frozen=True, order=True)
class Card:
    number: int


@dataclasses.dataclass(frozen=True, order=True)
class Bet:
    amount: int


@dataclasses.dataclass(frozen=True)
class Observation:
    seat: int
    card: Card
    bets: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class PublicView:
    bets: tuple[int, ...]
    shown: tuple[Card, ...]  # the cards, once the bets are in


@dataclasses.dataclass(frozen=True)
class Showdown:
    cards: tuple[Card, ...]


@dataclasses.dataclass(frozen=True)
class State:
    cards: tuple[Card, ...]
    bets: tuple[int, ...]  # 0 until the bets are in


class HighCard(Game[State, Bet]):
    """Sound: what the harness must pass."""

    spec: ClassVar[GameSpec] = GameSpec(
        "high-card", "high_card", "High card", 2, 3, True, True, False, 1, "The highest card takes the pot."
    )
    observation_type: ClassVar[type] = Observation
    public_view_type: ClassVar[type] = PublicView
    action_type: ClassVar[Any] = Bet
    event_type: ClassVar[Any] = Showdown

    def initial_state(self, num_players: int, seed: int) -> State:
        self.check_players(num_players)
        numbers = random.Random(seed).sample(range(1, 11), num_players)
        return State(tuple(Card(n) for n in numbers), (0,) * num_players)

    def to_move(self, state: State) -> tuple[int, ...]:
        return () if self.is_terminal(state) else tuple(range(len(state.cards)))

    def legal_actions(self, state: State, seat: int) -> tuple[Bet, ...]:
        return (Bet(1), Bet(2)) if seat in self.to_move(state) else ()

    def apply_legal(self, state: State, actions: Mapping[int, Bet]) -> State:
        return dataclasses.replace(state, bets=tuple(actions[s].amount for s in range(len(state.cards))))

    def is_terminal(self, state: State) -> bool:
        return all(state.bets)

    def scores(self, state: State) -> tuple[int, ...]:
        if not self.is_terminal(state):
            return (0,) * len(state.cards)
        winner = state.cards.index(max(state.cards))
        return tuple(sum(state.bets) - b if s == winner else -b for s, b in enumerate(state.bets))

    def observe(self, state: State, seat: int) -> Observation:
        return Observation(seat, state.cards[seat], state.bets)

    def public_view(self, state: State) -> PublicView:
        return PublicView(state.bets, state.cards if self.is_terminal(state) else ())

    def events(self, state: State) -> tuple[Showdown, ...]:
        return (Showdown(state.cards),) if self.is_terminal(state) else ()

    def hidden_from(self, state: State, seat: int) -> frozenset[Card]:
        if self.is_terminal(state):
            return frozenset()
        return frozenset(card for s, card in enumerate(state.cards) if s != seat)


class Peeking(HighCard):
    def observe(self, state: State, seat: int) -> Observation:
        return Observation(seat, state.cards[(seat + 1) % len(state.cards)], state.bets)


class TellingSpectators(HighCard):
    def public_view(self, state: State) -> PublicView:
        return PublicView(state.bets, state.cards)


class BetThatDoesNotApply(HighCard):
    def legal_actions(self, state: State, seat: int) -> tuple[Bet, ...]:
        return (*super().legal_actions(state, seat), Bet(3)) if seat in self.to_move(state) else ()

    def apply_legal(self, state: State, actions: Mapping[int, Bet]) -> State:
        if any(bet.amount > 2 for bet in actions.values()):
            raise IllegalActionError("bets are 1 or 2")
        return super().apply_legal(state, actions)


class Unsorted(HighCard):
    def legal_actions(self, state: State, seat: int) -> tuple[Bet, ...]:
        return super().legal_actions(state, seat)[::-1]


class ApplyUnchecked(HighCard):
    def apply(self, state: State, actions: Mapping[int, Bet]) -> State:
        return self.apply_legal(state, {s: actions.get(s, Bet(1)) for s in range(len(state.cards))})


class Unseeded(HighCard):
    def initial_state(self, num_players: int, seed: int) -> State:
        return super().initial_state(num_players, random.randrange(10**9))


class AnyPlayers(HighCard):
    def initial_state(self, num_players: int, seed: int) -> State:
        numbers = random.Random(seed).sample(range(1, 11), num_players)
        return State(tuple(Card(n) for n in numbers), (0,) * num_players)


class NobodyWins(HighCard):
    def ranks(self, state: State) -> tuple[int, ...]:
        return (2,) * len(state.cards)


class Endless(HighCard):
    spec: ClassVar[GameSpec] = dataclasses.replace(HighCard.spec, max_steps=0)


def test_a_sound_game_passes() -> None:
    checked = check_game(HighCard(), seeds=range(10), wire=False)
    assert (checked.game, checked.playouts, checked.states) == ("high-card", 20, 40)


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        (Peeking, r"high-card, 2 players, seed 0, step 0: seat 0 can see hidden \['Card\(number="),
        (TellingSpectators, r"high-card, 2 players, seed 0, step 0: the public view shows what seat 0"),
        (BetThatDoesNotApply, r"high-card, 2 players, seed \d, step 0: IllegalActionError: bets are 1 or 2"),
        (Unsorted, r"high-card, 2 players, seed 0, step 0: seat 0's actions not in order"),
        (ApplyUnchecked, r"high-card, 2 players, seed 0, step 0: apply without the actions of seats"),
        (Unseeded, r"high-card, 2 players, seed 0: played again, it differs"),
        (AnyPlayers, r"high-card, player counts: 1 players was not refused with InvalidPlayersError"),
        (NobodyWins, r"high-card, 2 players, seed 0, step 1: nobody ranks first"),
        (Endless, r"high-card, 2 players, seed 0, step 1: game exceeded its declared max_steps"),
    ],
)
def test_each_broken_game_fails_naming_where(broken: type[HighCard], message: str) -> None:
    with pytest.raises(ConformanceError, match=message):
        check_game(broken(), seeds=range(10), wire=False)


def test_a_failure_replays_from_its_seed() -> None:
    """The seed a failure names is all it takes to play that game again, step by step."""
    with pytest.raises(ConformanceError, match=r"seed (\d+)") as failure:
        check_game(BetThatDoesNotApply(), seeds=range(10), wire=False)
    seed = int(str(failure.value).split("seed ")[1].split(",")[0])
    with pytest.raises(IllegalActionError):
        list(random_playout(BetThatDoesNotApply(), 2, seed))


def test_the_docstring_example_runs() -> None:
    result = doctest.testmod(arena.testing, raise_on_error=False)
    assert result.attempted >= 3 and result.failed == 0


def test_the_harness_needs_no_pytest() -> None:
    code = "import sys, arena.testing; assert 'pytest' not in sys.modules, 'pytest imported'"
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_no_bench_script_imports_the_tests() -> None:
    """bench/ (and the stored ladders it writes) uses arena.testing, never the test suite."""
    offenders = []
    for path in sorted((REPO / "bench").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            where = f"{path.relative_to(REPO)}:{getattr(node, 'lineno', 0)}"
            offenders += [f"{where} {n}" for n in names if n.partition(".")[0] == "tests"]
    assert offenders == [], offenders
