"""Ninjan in words: each action and public event as the sentence ``arena match -v``, ``arena replay``
and the replay viewer's step panel show (``Game.describe_action`` / ``describe_event`` find this module
beside the engine).

The board's own numbering: piles are 1 to 3, left to right, as the viewer labels them (the engine
counts them from 0); seats by their names. A card is its suit and value ("rock 9"). Only what the
event carries is said, and every event is public.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.ninjan.engine import (
    Action,
    Card,
    CardPlaced,
    CardsRevealed,
    Event,
    PileTaken,
    PlacePile,
    PlayCard,
    TakePile,
)


def card(c: Card) -> str:
    """Returns a card in words: "rock 9"."""
    return f"{c.suit.name.lower()} {c.value}"


def pile(index: int) -> str:
    """Returns a pile as the board numbers it: the engine's pile 0 is "pile 1"."""
    return f"pile {index + 1}"


def name(names: Sequence[str], seat: int) -> str:
    """Returns a seat's name ("seat N" past the names given)."""
    return names[seat] if 0 <= seat < len(names) else f"seat {seat}"


def action_words(action: Action, names: Sequence[str]) -> str:
    """Returns what a seat did: "plays rock 9", "takes pile 2", "puts its card on pile 3"."""
    if isinstance(action, PlayCard):
        return f"plays {card(action.card)}"
    if isinstance(action, TakePile):
        return f"takes {pile(action.pile)}"
    assert isinstance(action, PlacePile)
    return f"puts its card on {pile(action.pile)}"


def event_words(event: Event, names: Sequence[str]) -> str:
    """Returns a public event as a sentence."""
    if isinstance(event, CardsRevealed):
        shown = ", ".join(f"{name(names, p.seat)} {card(p.card)}" for p in event.plays)
        return f"Round {event.round}: the cards are shown, highest first: {shown}."
    if isinstance(event, PileTaken):
        taken = ", ".join(card(c) for c in event.taken) or "nothing"
        return (
            f"{name(names, event.seat)} takes {pile(event.pile)} with {card(event.card)}, collecting "
            f"{taken}; {card(event.card)} starts the pile again."
        )
    assert isinstance(event, CardPlaced)
    return f"{name(names, event.seat)} puts {card(event.card)} on {pile(event.pile)}."
