"""High Card: two seats, one hidden card each, one chance to swap it; the higher card wins.

A deliberately tiny game: tests/new_game installs it into a copy of the project to prove that adding a
game takes only the steps of the checklist (a package under arena/games/, a .proto, a registry line).

A deck of six cards, 1 to 6, is shuffled with the match seed; each seat is dealt one card face down.
Seat 0 and then seat 1 each either stays or swaps: the card goes face down onto a discard pile, unseen
by the other seat, and the top card of the deck replaces it. Then both cards are revealed: the higher
card wins (score 1, the other 0); equal cards cannot happen (every card exists once), but a tie would
give both 0 and rank 1.

=====================  =========================================================
players                2
decisions              sequential: seat 0, then seat 1, one choice each
chance                 one seeded shuffle at the start
information            imperfect: each seat sees its own card only, until the end
length                 2 decisions
=====================  =========================================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from arena.games.base import Game, GameSpec, IllegalActionError, evolve
from arena.games.rng import derive

SEATS = 2


@dataclasses.dataclass(frozen=True, order=True)
class Card:
    value: int  # 1..6; every value exists once

    def __str__(self) -> str:
        return str(self.value)


DECK: tuple[Card, ...] = tuple(Card(value) for value in range(1, 7))


@dataclasses.dataclass(frozen=True)
class Observation:
    seat: int
    card: Card  # this seat's own card, as it is now
    to_act: int | None  # the seat choosing now; None once the cards are revealed
    swapped: tuple[bool, ...]  # by seat, for the seats that have chosen: True for a swap
    revealed: tuple[Card, ...]  # both cards by seat once the game is over; empty before


@dataclasses.dataclass(frozen=True)
class PublicView:
    """What a spectator sees: who chose what, and the cards only once they are revealed."""

    to_act: int | None
    swapped: tuple[bool, ...]
    revealed: tuple[Card, ...]


# Actions ---------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, order=True)
class Stay:
    """Keep the card."""


@dataclasses.dataclass(frozen=True, order=True)
class Swap:
    """Discard the card face down and take the top card of the deck."""


Action = Stay | Swap

# Events ----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Swapped:
    seat: int  # which seat swapped; never which card it gave up or got


@dataclasses.dataclass(frozen=True)
class Revealed:
    cards: tuple[Card, ...]  # both final cards, by seat


Event = Swapped | Revealed


@dataclasses.dataclass(frozen=True)
class HighCardState:
    """The whole table: the seats' cards, the deck (top first), the discards and the choices made."""

    seed: int
    cards: tuple[Card, ...]
    deck: tuple[Card, ...]
    discards: tuple[Card, ...] = ()
    swapped: tuple[bool, ...] = ()
    last_events: tuple[Event, ...] = ()


class HighCard(Game[HighCardState, Action]):
    spec = GameSpec(
        name="high-card",
        wire_name="high_card",
        title="High Card",
        min_players=SEATS,
        max_players=SEATS,
        simultaneous=False,
        chance=True,
        perfect_information=False,
        max_steps=SEATS,
        description="One hidden card each, one chance to swap it for the top of the deck; high card wins.",
        rules=1,
    )
    observation_type = Observation
    public_view_type = PublicView
    action_type = Action
    event_type = Event

    def initial_state(self, num_players: int, seed: int) -> HighCardState:
        """Returns the dealt table: one card per seat, the other four in the deck."""
        self.check_players(num_players)
        deck = list(DECK)
        derive(seed, "deal").shuffle(deck)
        return HighCardState(seed=seed, cards=tuple(deck[:SEATS]), deck=tuple(deck[SEATS:]))

    def to_move(self, state: HighCardState) -> tuple[int, ...]:
        """Returns the one seat that has not chosen yet, lowest first; () once both have."""
        return () if self.is_terminal(state) else (len(state.swapped),)

    def legal_actions(self, state: HighCardState, seat: int) -> tuple[Action, ...]:
        """Returns (Stay(), Swap()) for the seat to move, () for any other."""
        return (Stay(), Swap()) if seat in self.to_move(state) else ()

    def apply_legal(self, state: HighCardState, actions: Mapping[int, Action]) -> HighCardState:
        """Returns the state after the seat to move stays or swaps (not checked: see ``apply``)."""
        ((seat, action),) = actions.items()
        events: tuple[Event, ...] = ()
        if isinstance(action, Swap):
            cards = (*state.cards[:seat], state.deck[0], *state.cards[seat + 1 :])
            state = evolve(
                state, cards=cards, deck=state.deck[1:], discards=(*state.discards, state.cards[seat])
            )
            events = (Swapped(seat),)
        elif not isinstance(action, Stay):
            raise IllegalActionError(f"seat {seat} must stay or swap, not {action!r}")
        state = evolve(state, swapped=(*state.swapped, isinstance(action, Swap)))
        if self.is_terminal(state):
            events = (*events, Revealed(state.cards))
        return evolve(state, last_events=events)

    def is_terminal(self, state: HighCardState) -> bool:
        """Returns whether both seats have chosen (the cards are then revealed)."""
        return len(state.swapped) == SEATS

    def scores(self, state: HighCardState) -> tuple[int, ...]:
        """Returns 1 for the higher card and 0 for the other once revealed; 0 each before."""
        if not self.is_terminal(state):
            return (0,) * SEATS
        best = max(state.cards)
        winners = [seat for seat, card in enumerate(state.cards) if card == best]
        return tuple(int(len(winners) == 1 and seat in winners) for seat in range(SEATS))

    def observe(self, state: HighCardState, seat: int) -> Observation:
        """Returns the seat's own card and what every seat sees alike."""
        return Observation(seat=seat, card=state.cards[seat], **self._shared(state))

    def public_view(self, state: HighCardState) -> PublicView:
        """Returns who is to act and who swapped, and both cards only once the game is over."""
        return PublicView(**self._shared(state))

    def _shared(self, state: HighCardState) -> dict[str, Any]:
        """Returns the fields every seat's observation and the public view have alike."""
        to_move = self.to_move(state)
        return {
            "to_act": to_move[0] if to_move else None,
            "swapped": state.swapped,
            "revealed": state.cards if self.is_terminal(state) else (),
        }

    def events(self, state: HighCardState) -> tuple[Event, ...]:
        """Returns the events of the last step: ``Swapped`` for a swap, ``Revealed`` at the end."""
        return state.last_events

    def hidden_from(self, state: HighCardState, seat: int) -> frozenset[Card]:
        """Returns the deck, the discards and, until the reveal, the other seat's card."""
        others = () if self.is_terminal(state) else tuple(c for s, c in enumerate(state.cards) if s != seat)
        return frozenset((*state.deck, *state.discards, *others))

    def render(self, state: HighCardState) -> str:
        """Returns the public state in one line (no hidden card)."""
        choices = " ".join(f"seat{s}={'swap' if sw else 'stay'}" for s, sw in enumerate(state.swapped))
        if not self.is_terminal(state):
            return f"seat {len(state.swapped)} to choose  {choices}".rstrip()
        cards = " ".join(f"seat{s}={card}" for s, card in enumerate(state.cards))
        return f"{choices}  cards: {cards}  scores: {self.scores(state)}"


GAME = HighCard()
