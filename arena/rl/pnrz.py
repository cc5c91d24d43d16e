"""PNRZ's encoding, factorised as the game itself factorises a turn.

The full product of tile x position x rotation is too large to enumerate on an unbounded board, so the
action space keeps the game's own two steps: ``SelectTile(tile)`` (which tile, 58 actions), then
``PlaceTile(x, y, rotation)`` (where and how turned, ``GRID`` x ``GRID`` x 4 actions). Positions are
seen from the board's own corner: the frame's origin is one left of and one above the board's
leftmost and topmost tiles (``frame_origin``), so ``x`` and ``y`` run 0..GRID-1 whatever the board's
drift. The play area stays connected (docs/rules/pnrz.md), so 58 tiles span at most 58 columns and
a placement is at most one beyond them: 60 is enough. The observation's board coordinates are
shifted by the same origin. The extra actions (rotate, swap, replace) and base moves name tiles by id.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from arena.games.pnrz.board import BASE_TILES, TILES, Faction, rotations
from arena.games.pnrz.engine import (
    ChooseFaction,
    MoveBase,
    Observation,
    OrientSwapped,
    PassTurn,
    PlaceTile,
    PutTile,
    RotateTile,
    SelectTile,
    SkipAction,
    SwapFirst,
    SwapWith,
    TakeTile,
)
from arena.rl.encoding import Encoding, ordered

GRID = 60
MAX_PLAYERS = 4
CAPACITIES = {
    "factions": 2,
    "hand": 4,
    "board": len(TILES),
    "players": MAX_PLAYERS,
    "players.factions": 2,
    "available": len(Faction),
    "pending": 2,
    "faction_scores": len(Faction),
}


def frame_origin(observation: Observation) -> tuple[int, int]:
    """Returns the frame's origin: one left of the leftmost tile, one above the topmost ((0, 0) is
    the first tile's place, so an empty board's origin is (-1, -1))."""
    xs = [tile.x for tile in observation.board] or [0]
    ys = [tile.y for tile in observation.board] or [0]
    return min(xs) - 1, min(ys) - 1


def framed(observation: Observation) -> Observation:
    """Returns the observation with its board's coordinates seen from ``frame_origin``."""
    ox, oy = frame_origin(observation)
    board = tuple(dataclasses.replace(t, x=t.x - ox, y=t.y - oy) for t in observation.board)
    return dataclasses.replace(observation, board=board)


def canonical(action: Any, observation: Observation) -> Any:
    """Returns a ``PlaceTile`` at its framed position; any other action as it is."""
    if not isinstance(action, PlaceTile):
        return action
    ox, oy = frame_origin(observation)
    return PlaceTile(action.x - ox, action.y - oy, action.rotation)


def _all_actions() -> list[Any]:
    return [
        *(ChooseFaction(faction) for faction in Faction),
        *(SelectTile(t) for t in TILES),
        *(PlaceTile(x, y, r) for y in range(GRID) for x in range(GRID) for r in range(4)),
        *(MoveBase(base.id) for base in BASE_TILES.values()),
        PassTurn(),
        *(RotateTile(t, r) for t in TILES for r in range(4)),
        *(SwapFirst(t) for t in TILES),
        *(SwapWith(t) for t in TILES),
        *(OrientSwapped(a, b) for a in range(4) for b in range(4)),
        *(TakeTile(t) for t in TILES),
        *(PutTile(t, r) for t in TILES for r in rotations(t)),
        SkipAction(),
    ]


ENCODING = Encoding(
    game_name="pnrz",
    capacities=CAPACITIES,
    actions=ordered("pnrz", _all_actions()),
    frame=framed,
    canonical=canonical,
)
