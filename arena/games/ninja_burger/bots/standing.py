"""Ninja Burger's standing table: a seat's chance of winning a 2-player game from both seats' honor and
who plays next, counted over self-play games.

``ninja`` weighs every card and reroll by its *standing*, a logistic curve in the lead. That curve
ignores how near the game is to its end: a lead of 2 at a total of 18 honor (one success from the end)
is worth far more than at 12, and a mission that ties the game at its end is worth half a win, not
nothing. The table counts, over games of ``SharpNinja`` (with the curve alone) against ``ninja``,
how often the seat went on to win from each position between missions: its honor, the rival's, and
who plays next (``ROUND_OVER``: a new round, order by honor; ``MINE_NEXT`` / ``RIVAL_NEXT``: one
mission is left this round, the seat's or the rival's). A cell seen few times leans on the curve
(``PRIOR_GAMES`` pseudo-games), so every position has a value.

``bench/ninja_burger_standing.py`` plays the games and writes ``data/ninja_burger_standing.json``;
rerunning it writes the same file. Nothing here knows the engine's internals beyond its public
end-of-game rule.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path

from arena.games.ninja_burger.engine import MeetingHeld, MissionEnded, honor_ends_game

ROUND_OVER, MINE_NEXT, RIVAL_NEXT = "round-over", "mine-next", "rival-next"
PRIOR_GAMES = 20  # pseudo-games of the logistic curve mixed into each cell
PRIOR_SLOPE = 0.4  # the curve: logit of winning per honor point of lead (ninja's slope)
STORED = Path(__file__).with_name("standing.json")

Cell = tuple[int, int, str]  # (seat's honor, rival's honor, situation)


def situation_after(order: tuple[int, ...], active: int, seat: int) -> str:
    """Returns who plays next, from ``seat``'s view, once ``active``'s mission (of a 2-player
    round played in ``order``) is over."""
    if order.index(active) == len(order) - 1:
        return ROUND_OVER
    return RIVAL_NEXT if active == seat else MINE_NEXT


@dataclasses.dataclass(frozen=True)
class StandingTable:
    """Counts per position: ``cells[(mine, rival, situation)] = (games, score)``, where a win scores 1
    and a shared first place 1/2. An empty table is the logistic curve alone."""

    cells: Mapping[Cell, tuple[int, float]] = dataclasses.field(default_factory=dict)

    def chance(self, mine: int, rival: int, situation: str) -> float:
        """Returns the seat's chance of winning (a draw counted half) from this position: exact where
        the game has ended, else the cell's count mixed with the curve."""
        if honor_ends_game((mine, rival)):
            return 1.0 if mine > rival else 0.5 if mine == rival else 0.0
        prior = 1 / (1 + math.exp(-PRIOR_SLOPE * (mine - rival)))
        games, score = self.cells.get((mine, rival, situation), (0, 0.0))
        return (score + PRIOR_GAMES * prior) / (games + PRIOR_GAMES)

    def to_json(self, **about: object) -> str:
        """Returns the table as the stored file's text (``about`` says how it was made)."""
        rows = [[*cell, games, score] for cell, (games, score) in sorted(self.cells.items())]
        return json.dumps({**about, "cells": rows}, indent=None, separators=(",", ":")) + "\n"

    @classmethod
    def from_json(cls, text: str) -> StandingTable:
        """Returns the table stored as ``text`` (``to_json``'s format)."""
        rows = json.loads(text)["cells"]
        return cls({(m, r, s): (games, score) for m, r, s, games, score in rows})


def game_positions(events: Iterable[object], seat: int, start: tuple[int, int]) -> list[Cell]:
    """Returns the positions ``seat`` passed through in a 2-player game whose public ``events`` are
    given in order: the start, then the table after each mission that did not end the game.

    ``start`` is the honor by seat before the first round.
    """
    honor = list(start)
    order: tuple[int, ...] = (0, 1)  # the meeting's order of play, as MeetingHeld gives it
    cells: list[Cell] = [(honor[seat], honor[1 - seat], ROUND_OVER)]
    for event in events:
        if isinstance(event, MeetingHeld):
            order = event.order
        elif isinstance(event, MissionEnded):
            honor[event.seat] += event.honor
            if not honor_ends_game(honor):
                cells.append((honor[seat], honor[1 - seat], situation_after(order, event.seat, seat)))
    return cells


@functools.cache
def stored_table() -> StandingTable:
    """Returns the table shipped with arena (read once)."""
    return StandingTable.from_json(STORED.read_text())
