"""Ninjan: rock, paper, scissors with 48 numbered cards, 9 simultaneous rounds and 3 piles.

Rules as implemented: docs/rules/ninjan.md. In short: every round each player commits one card face
down at the same time; the cards are revealed and resolved from the highest value down. A card that
beats the top card of a pile (by rock-paper-scissors) takes that whole pile and starts a new pile in
its place; a card that beats no pile is put on a pile of its owner's choice. After 9 rounds the values
of the collected cards are added up.

=====================  =========================================================
players                2 to 5
decisions              simultaneous (commit), then sequential (take / place choices)
chance                 one seeded shuffle at the start
information            imperfect: hands and the set-aside cards are hidden
length                 9 commits + at most 9 choices per player
=====================  =========================================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from enum import IntEnum
from typing import Any, TypeVar

from arena.games.base import Game, GameSpec, IllegalActionError, evolve
from arena.games.rng import derive

T = TypeVar("T")

ROUNDS = 9
HAND_SIZE = 9
NUM_PILES = 3
VALUES = (-6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)


class Suit(IntEnum):
    ROCK = 1
    PAPER = 2
    SCISSORS = 3


BEATS = {Suit.ROCK: Suit.SCISSORS, Suit.SCISSORS: Suit.PAPER, Suit.PAPER: Suit.ROCK}
SUIT_LETTER = {Suit.ROCK: "R", Suit.PAPER: "P", Suit.SCISSORS: "S"}


class Phase(IntEnum):
    COMMIT = 1
    TAKE = 2
    PLACE = 3
    OVER = 4


@dataclasses.dataclass(frozen=True, order=True)
class Card:
    suit: Suit
    value: int

    def beats(self, other: Card) -> bool:
        """Returns whether this card's suit beats ``other``'s (values do not matter)."""
        return BEATS[self.suit] == other.suit

    def __str__(self) -> str:
        return f"{SUIT_LETTER[self.suit]}{self.value}"


FULL_DECK: tuple[Card, ...] = tuple(Card(suit, value) for suit in Suit for value in VALUES)


@dataclasses.dataclass(frozen=True)
class Play:
    seat: int
    card: Card


@dataclasses.dataclass(frozen=True)
class Pile:
    cards: tuple[Card, ...]


@dataclasses.dataclass(frozen=True)
class Round:
    round: int
    plays: tuple[Play, ...]


@dataclasses.dataclass(frozen=True)
class Player:
    seat: int
    hand_size: int
    collected: tuple[Card, ...]
    score: int


@dataclasses.dataclass(frozen=True)
class Observation:
    seat: int
    round: int
    phase: Phase
    hand: tuple[Card, ...]
    piles: tuple[Pile, ...]
    players: tuple[Player, ...]
    revealed: tuple[Play, ...]
    resolving: int | None
    history: tuple[Round, ...]


@dataclasses.dataclass(frozen=True)
class PublicView:
    """What a spectator sees: an observation without a seat and its hand (hands show only as sizes)."""

    round: int
    phase: Phase
    piles: tuple[Pile, ...]
    players: tuple[Player, ...]
    revealed: tuple[Play, ...]
    resolving: int | None
    history: tuple[Round, ...]


# Actions ---------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, order=True)
class PlayCard:
    card: Card


@dataclasses.dataclass(frozen=True, order=True)
class TakePile:
    pile: int


@dataclasses.dataclass(frozen=True, order=True)
class PlacePile:
    pile: int


Action = PlayCard | TakePile | PlacePile

# Events ----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class CardsRevealed:
    round: int
    plays: tuple[Play, ...]


@dataclasses.dataclass(frozen=True)
class PileTaken:
    seat: int
    pile: int
    card: Card
    taken: tuple[Card, ...]


@dataclasses.dataclass(frozen=True)
class CardPlaced:
    seat: int
    pile: int
    card: Card


Event = CardsRevealed | PileTaken | CardPlaced


@dataclasses.dataclass(frozen=True)
class NinjanState:
    """The whole table. ``revealed``/``resolving`` describe the round being resolved."""

    seed: int
    hands: tuple[tuple[Card, ...], ...]
    piles: tuple[tuple[Card, ...], ...]
    collected: tuple[tuple[Card, ...], ...]
    set_aside: tuple[Card, ...]
    round: int = 1
    revealed: tuple[Play, ...] = ()
    resolving: int | None = None
    history: tuple[Round, ...] = ()
    last_events: tuple[Event, ...] = ()

    @property
    def num_players(self) -> int:
        return len(self.hands)


def resolution_order(plays: list[Play]) -> tuple[Play, ...]:
    """Returns the plays in resolution order: descending value; at equal value, the card whose suit
    beats the other's first, and Rock, Scissors, Paper when all three suits share a value."""
    by_value: dict[int, list[Play]] = {}
    for play in plays:
        by_value.setdefault(play.card.value, []).append(play)
    ordered: list[Play] = []
    for value in sorted(by_value, reverse=True):
        group = by_value[value]
        if len(group) == 2 and group[1].card.beats(group[0].card):
            group = [group[1], group[0]]
        elif len(group) == 3:
            rank = {Suit.ROCK: 0, Suit.SCISSORS: 1, Suit.PAPER: 2}
            group = sorted(group, key=lambda p: rank[p.card.suit])
        ordered.extend(group)
    return tuple(ordered)


def beaten_piles(card: Card, piles: tuple[tuple[Card, ...], ...]) -> tuple[int, ...]:
    """Returns the indices of the piles whose top card ``card`` beats."""
    return tuple(i for i, pile in enumerate(piles) if pile and card.beats(pile[-1]))


def _replace_at(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*items[:index], value, *items[index + 1 :])


class Ninjan(Game[NinjanState, Action]):
    spec = GameSpec(
        name="ninjan",
        wire_name="ninjan",
        title="Ninjan",
        min_players=2,
        max_players=5,
        simultaneous=True,
        chance=True,
        perfect_information=False,
        max_steps=ROUNDS * 6,
        description="Rock-paper-scissors cards: commit one card a round, beat a pile's top card to take it.",
    )
    observation_type = Observation
    public_view_type = PublicView
    action_type = Action
    event_type = Event

    def initial_state(self, num_players: int, seed: int) -> NinjanState:
        """Returns the dealt table: 3 face-up piles, 9 cards per hand, the rest set aside unseen."""
        self.check_players(num_players)
        deck = list(FULL_DECK)
        derive(seed, "deal").shuffle(deck)
        piles = tuple((card,) for card in deck[:NUM_PILES])
        hands = tuple(
            tuple(sorted(deck[NUM_PILES + i * HAND_SIZE : NUM_PILES + (i + 1) * HAND_SIZE]))
            for i in range(num_players)
        )
        rest = tuple(deck[NUM_PILES + num_players * HAND_SIZE :])
        return NinjanState(seed=seed, hands=hands, piles=piles, collected=((),) * num_players, set_aside=rest)

    def phase(self, state: NinjanState) -> Phase:
        """Returns what the game waits for now."""
        if state.round > ROUNDS:
            return Phase.OVER
        if state.resolving is None:
            return Phase.COMMIT
        card = state.revealed[state.resolving].card
        return Phase.TAKE if beaten_piles(card, state.piles) else Phase.PLACE

    def to_move(self, state: NinjanState) -> tuple[int, ...]:
        phase = self.phase(state)
        if phase is Phase.OVER:
            return ()
        if phase is Phase.COMMIT:
            return tuple(range(state.num_players))
        assert state.resolving is not None
        return (state.revealed[state.resolving].seat,)

    def legal_actions(self, state: NinjanState, seat: int) -> tuple[Action, ...]:
        if seat not in self.to_move(state):
            return ()
        phase = self.phase(state)
        if phase is Phase.COMMIT:
            return tuple(PlayCard(card) for card in state.hands[seat])
        assert state.resolving is not None
        if phase is Phase.TAKE:
            card = state.revealed[state.resolving].card
            return tuple(TakePile(i) for i in beaten_piles(card, state.piles))
        return tuple(PlacePile(i) for i in range(NUM_PILES))

    def apply_legal(self, state: NinjanState, actions: Mapping[int, Action]) -> NinjanState:
        state = evolve(state, last_events=())
        if self.phase(state) is Phase.COMMIT:
            return self._commit(state, actions)
        ((seat, action),) = actions.items()
        if isinstance(action, TakePile):
            state = self._take(state, action.pile)
        elif isinstance(action, PlacePile):
            state = self._place(state, action.pile)
        else:
            raise IllegalActionError(f"seat {seat} must choose a pile, not {action!r}")
        return self._resolve_forward(state)

    def _commit(self, state: NinjanState, actions: Mapping[int, Action]) -> NinjanState:
        plays = []
        hands = list(state.hands)
        for seat in sorted(actions):
            action = actions[seat]
            if not isinstance(action, PlayCard):
                raise IllegalActionError(f"seat {seat} must commit a card, not {action!r}")
            plays.append(Play(seat, action.card))
            hands[seat] = tuple(c for c in hands[seat] if c != action.card)
        revealed = resolution_order(plays)
        state = evolve(
            state,
            hands=tuple(hands),
            revealed=revealed,
            resolving=0,
            last_events=(CardsRevealed(state.round, revealed),),
        )
        return self._resolve_forward(state)

    def _take(self, state: NinjanState, pile: int) -> NinjanState:
        assert state.resolving is not None
        play = state.revealed[state.resolving]
        taken = state.piles[pile]
        event = PileTaken(play.seat, pile, play.card, taken)
        return evolve(
            state,
            piles=_replace_at(state.piles, pile, (play.card,)),
            collected=_replace_at(state.collected, play.seat, state.collected[play.seat] + taken),
            resolving=state.resolving + 1,
            last_events=(*state.last_events, event),
        )

    def _place(self, state: NinjanState, pile: int) -> NinjanState:
        assert state.resolving is not None
        play = state.revealed[state.resolving]
        return evolve(
            state,
            piles=_replace_at(state.piles, pile, (*state.piles[pile], play.card)),
            resolving=state.resolving + 1,
            last_events=(*state.last_events, CardPlaced(play.seat, pile, play.card)),
        )

    def _resolve_forward(self, state: NinjanState) -> NinjanState:
        """Resolves cards that need no decision (exactly one pile beaten) and closes a finished round."""
        while state.resolving is not None:
            if state.resolving == len(state.revealed):
                return evolve(
                    state,
                    history=(*state.history, Round(state.round, state.revealed)),
                    revealed=(),
                    resolving=None,
                    round=state.round + 1,
                )
            beaten = beaten_piles(state.revealed[state.resolving].card, state.piles)
            if len(beaten) != 1:
                return state
            state = self._take(state, beaten[0])
        return state

    def is_terminal(self, state: NinjanState) -> bool:
        return state.round > ROUNDS

    def scores(self, state: NinjanState) -> tuple[int, ...]:
        return tuple(sum(card.value for card in cards) for cards in state.collected)

    def observe(self, state: NinjanState, seat: int) -> Observation:
        return Observation(seat=seat, hand=state.hands[seat], **self._shared(state))

    def public_view(self, state: NinjanState) -> PublicView:
        return PublicView(**self._shared(state))

    def _shared(self, state: NinjanState) -> dict[str, Any]:
        """Returns the fields every seat's observation and the public view have alike."""
        scores = self.scores(state)
        players = tuple(
            Player(s, len(state.hands[s]), state.collected[s], scores[s]) for s in range(state.num_players)
        )
        return {
            "round": min(state.round, ROUNDS),
            "phase": self.phase(state),
            "piles": tuple(Pile(p) for p in state.piles),
            "players": players,
            "revealed": state.revealed,
            "resolving": state.resolving,
            "history": state.history,
        }

    def events(self, state: NinjanState) -> tuple[Event, ...]:
        return state.last_events

    def hidden_from(self, state: NinjanState, seat: int) -> frozenset[Card]:
        """Returns the other hands and the set-aside cards."""
        others = (card for s, hand in enumerate(state.hands) if s != seat for card in hand)
        return frozenset((*others, *state.set_aside))

    def legend(self) -> str:
        suits = ", ".join(f"{letter} {suit.name.lower()}" for suit, letter in SUIT_LETTER.items())
        return f"cards: suit letter and value ({suits}); piles left to right"

    def render(self, state: NinjanState) -> str:
        piles = " | ".join(" ".join(map(str, pile)) for pile in state.piles)
        scores = " ".join(f"seat{s}={v}" for s, v in enumerate(self.scores(state)))
        return f"round {min(state.round, ROUNDS)}  piles: {piles}  scores: {scores}"


GAME = Ninjan()
