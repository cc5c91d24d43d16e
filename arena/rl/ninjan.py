"""Ninjan's encoding: 54 actions (a card of the 48 to commit, a pile of 3 to take, a pile of 3 to place on)
and the seat's observation with its tuples capped as below (docs/rl.md lists every column)."""

from __future__ import annotations

from arena.games.ninjan.engine import FULL_DECK, HAND_SIZE, NUM_PILES, ROUNDS, PlacePile, PlayCard, TakePile
from arena.rl.encoding import Encoding, ordered

MAX_PLAYERS = 5
CAPACITIES = {
    "hand": HAND_SIZE,
    "piles": NUM_PILES,
    "piles.cards": 8,  # the top 8 cards of a pile (its top card is the one that counts)
    "players": MAX_PLAYERS,
    "players.collected": 16,  # the last 16 cards a seat collected (its score is a column of its own)
    "revealed": MAX_PLAYERS,
    "history": ROUNDS,
    "history.plays": MAX_PLAYERS,
}

ENCODING = Encoding(
    game_name="ninjan",
    capacities=CAPACITIES,
    actions=ordered(
        "ninjan",
        [
            *(PlayCard(card) for card in FULL_DECK),
            *(TakePile(pile) for pile in range(NUM_PILES)),
            *(PlacePile(pile) for pile in range(NUM_PILES)),
        ],
    ),
)
