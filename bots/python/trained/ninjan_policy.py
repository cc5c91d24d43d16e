"""The trained bot's policy: what it sees of a Ninjan decision (features) and how it scores the choices.

One module for training and for play, so that the bot encodes an observation exactly as the training
loop did: ``train.py`` plays the engine with it, ``bot.py`` plays the SDK's observations with it (the
SDK hands a bot the game's own ``Observation`` dataclass, the one ``Game.observe`` returns). Pure
Python on purpose: a submitted bot gets the worker's Python with arena and its dependencies but no
numpy (bots/README.md, "What a bot may depend on"), so only training uses numpy.

The policy is a linear softmax over the legal actions, one weight vector per kind of decision
(commit a card, take a pile, place a card on a pile): an action's logit is its features dotted with
its kind's weights. All legal actions of one decision are of one kind, so a feature only matters by
how it differs between the choices. Zero weights are the uniform random policy (the "before training"
baseline in README.md).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from pathlib import Path

from arena.games.ninjan.engine import BEATS, FULL_DECK, ROUNDS, Card, Observation, PlacePile, Suit, TakePile

ATTACKER = {beaten: suit for suit, beaten in BEATS.items()}  # the suit that beats each suit
SCALE = 10.0  # card values run -6..10: features are values over SCALE

FEATURES = {
    "commit": (
        "value",
        "beats_any",
        "best_gain",
        "best_gain_x_resolves_early",
        "piles_beaten",
        "value_if_beats_none",
        "poorest_pile_after_place",
        "value_x_round",
        "value_rank_in_hand",
        "same_suit_in_hand",
        "unseen_attackers",
        "unseen_prey",
        "best_gain_x_round",
        "score_margin_x_value",
    ),
    "take": ("pile_value", "pile_size"),
    "place": ("pile_after", "pile_size", "later_rival_takes_after"),
}
WIDTH = {kind: len(names) for kind, names in FEATURES.items()}

Weights = dict[str, list[float]]


def zero_weights() -> Weights:
    """Returns the untrained policy's weights: every logit 0, every legal action equally likely."""
    return {kind: [0.0] * width for kind, width in WIDTH.items()}


def pile_value(cards: Sequence[Card]) -> int:
    return sum(card.value for card in cards)


def kind_of(action: object) -> str:
    """Returns the kind of decision an action answers (all of one decision's actions share it)."""
    if isinstance(action, TakePile):
        return "take"
    if isinstance(action, PlacePile):
        return "place"
    return "commit"


def features(observation: Observation, legal_actions: Sequence[object]) -> tuple[str, list[list[float]]]:
    """Returns the decision's kind and one feature row per legal action, in their order."""
    kind = kind_of(legal_actions[0])
    if kind == "take":
        return kind, [_take(observation, action.pile) for action in legal_actions]  # type: ignore[attr-defined]
    if kind == "place":
        return kind, [_place(observation, action.pile) for action in legal_actions]  # type: ignore[attr-defined]
    return kind, _commit(observation, [action.card for action in legal_actions])  # type: ignore[attr-defined]


def _unseen_by_suit(observation: Observation) -> dict[Suit, int]:
    """Returns, per suit, how many cards the seat has not seen (other hands and the set-aside cards)."""
    seen = set(observation.hand)
    seen.update(card for pile in observation.piles for card in pile.cards)
    seen.update(card for player in observation.players for card in player.collected)
    seen.update(play.card for play in observation.revealed)
    seen.update(play.card for past in observation.history for play in past.plays)
    counts = dict.fromkeys(Suit, 0)
    for card in FULL_DECK:
        if card not in seen:
            counts[card.suit] += 1
    return counts


def _commit(observation: Observation, cards: list[Card]) -> list[list[float]]:
    """Features of committing each card: what it takes now, what it gives away, when it resolves."""
    piles = [pile.cards for pile in observation.piles]
    values = [pile_value(pile) / SCALE for pile in piles]
    unseen = _unseen_by_suit(observation)
    late = observation.round / ROUNDS
    hand = observation.hand
    sorted_values = sorted(card.value for card in hand)
    mine = observation.players[observation.seat].score
    best_other = max((p.score for p in observation.players if p.seat != observation.seat), default=0)
    margin = max(-1.0, min(1.0, (mine - best_other) / 20))
    rows = []
    for card in cards:
        value = card.value / SCALE
        beaten = [values[i] for i, pile in enumerate(piles) if pile and card.beats(pile[-1])]
        gain = max(beaten) if beaten else 0.0
        beats = 1.0 if beaten else 0.0
        early = (card.value + 6) / 16
        rank = sorted_values.index(card.value) / max(1, len(hand) - 1)
        same = sum(1 for other in hand if other.suit == card.suit) / len(hand)
        rows.append(
            [
                value,
                beats,
                gain,
                gain * early,
                len(beaten) / 3,
                (1 - beats) * value,
                (1 - beats) * (min(values) + value),
                value * late,
                rank,
                same,
                unseen[ATTACKER[card.suit]] / 16,
                unseen[BEATS[card.suit]] / 16,
                gain * late,
                margin * value,
            ]
        )
    return rows


def _take(observation: Observation, pile: int) -> list[float]:
    cards = observation.piles[pile].cards
    return [pile_value(cards) / SCALE, len(cards) / 8]


def _place(observation: Observation, pile: int) -> list[float]:
    """Features of placing the resolving card on ``pile``: what the pile is then worth, and whether a
    card still to resolve this round (revealed, so known; another seat's, as a seat plays one card a
    round) beats the card and could take the pile it tops."""
    resolving = observation.resolving or 0
    card = observation.revealed[resolving].card
    cards = observation.piles[pile].cards
    after = (pile_value(cards) + card.value) / SCALE
    rival = any(play.card.beats(card) for play in observation.revealed[resolving + 1 :])
    return [after, len(cards) / 8, after * rival]


def logits(weights: Weights, kind: str, rows: list[list[float]]) -> list[float]:
    """Returns each action's logit: its features dotted with its kind's weights."""
    w = weights[kind]
    return [sum(x * y for x, y in zip(row, w, strict=True)) for row in rows]


def softmax(values: list[float]) -> list[float]:
    top = max(values)
    exps = [math.exp(v - top) for v in values]
    total = sum(exps)
    return [e / total for e in exps]


def best(values: list[float], rng: random.Random) -> int:
    """Returns the index of the highest logit; equal highest ones are broken at random (so the untrained
    policy, all logits 0, plays as the uniform random bot does)."""
    top = max(values)
    ties = [i for i, v in enumerate(values) if v >= top - 1e-12]
    return ties[0] if len(ties) == 1 else rng.choice(ties)


def load(path: Path) -> Weights:
    """Returns the weights saved in ``path`` (JSON written by ``save``), checked against FEATURES."""
    data = json.loads(path.read_text())
    if data["features"] != {kind: list(names) for kind, names in FEATURES.items()}:
        raise ValueError(f"{path}: its features are not this policy's (retrain with train.py)")
    weights: Weights = {kind: [float(x) for x in data["weights"][kind]] for kind in FEATURES}
    return weights


def save(path: Path, weights: Weights, meta: dict[str, object]) -> None:
    """Writes the weights as JSON with the feature names and how they were trained (``meta``)."""
    data = {
        "features": {kind: list(names) for kind, names in FEATURES.items()},
        "weights": {kind: [round(x, 6) for x in weights[kind]] for kind in FEATURES},
        "training": meta,
    }
    path.write_text(json.dumps(data, indent=1) + "\n")
