"""Pirates, Ninjas, Robots & Zombies: pictures, tiles, the grid and scoring (pure geometry, no turns).

The game's rules engine (``engine``) builds on this; bots and tests use it to score boards.
See that module's docstring for the geometry conventions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Set
from enum import IntEnum
from operator import itemgetter
from pathlib import Path
from typing import NamedTuple

TILES_FILE = Path(__file__).with_name("tiles.txt")


class Faction(IntEnum):
    PIRATE = 1
    NINJA = 2
    ROBOT = 3
    ZOMBIE = 4


class Kind(IntEnum):
    CHARACTER = 0  # 1 point
    BONUS = 1  # 3 points
    ENEMY = 2  # the faction's arch-enemy: negates its characters and bonus items beside it
    BASE = 3  # 5 points, once per section


class Picture(IntEnum):
    """One quadrant's picture. ``(value - 1) % 4`` gives the faction, ``(value - 1) // 4`` the kind."""

    PIRATE = 1
    NINJA = 2
    ROBOT = 3
    ZOMBIE = 4
    TREASURE_CHEST = 5
    THROWING_STAR = 6
    BATTERY = 7
    BRAIN = 8
    KRAKEN = 9
    DRAGON = 10
    SOLDIERS = 11
    HUNTER = 12
    PIRATE_SHIP = 13
    CASTLE = 14
    FACTORY = 15
    GRAVEYARD = 16

    @property
    def faction(self) -> Faction:
        return Faction((self.value - 1) % 4 + 1)

    @property
    def kind(self) -> Kind:
        return Kind((self.value - 1) // 4)


POINTS = {Kind.CHARACTER: 1, Kind.BONUS: 3, Kind.ENEMY: 0, Kind.BASE: 5}
ENEMY = {f: Picture(8 + f.value) for f in Faction}  # each faction's arch-enemy
_FRIEND = {p: None if p.kind is Kind.ENEMY else p.faction for p in Picture}  # whose section it joins
_POINTS = {p: POINTS[p.kind] for p in Picture}
LETTER = dict(zip(Picture, "PNRZT*BMKDXHSCFG", strict=True))  # one-letter codes (board, render)
FROM_LETTER = {letter: picture for picture, letter in LETTER.items()}


class Icon(IntEnum):
    NONE = 1
    ROTATE = 2
    SWAP = 3
    REPLACE = 4


class Phase(IntEnum):
    CHOOSE = 1  # seats still needing a faction choose one, all at once
    PLAY = 2  # the current seat selects a tile from its hand, moves a base or passes
    PLACE = 3  # the current seat puts the selected tile at a position, in a rotation
    MOVE = 4  # the current seat puts the base it chose to move at its new position
    ACTION = 5  # the current seat uses (or skips) the extra action of the tile it just placed
    SWAP = 6  # Swap: the current seat picks the second tile to swap with the first
    ORIENT = 7  # Swap: the current seat sets the rotations of the two swapped tiles
    REPLACE = 8  # Replace: the current seat puts a hand tile where the taken tile is
    OVER = 9


@dataclasses.dataclass(frozen=True, order=True)
class Tile:
    id: int  # 1..54 game tiles, 55..58 the bases of Pirates, Ninjas, Robots, Zombies
    pictures: str  # the 4 quadrants as printed (NW, NE, SE, SW), one LETTER each, e.g. "PK*Z"
    icon: Icon

    @property
    def base(self) -> Faction | None:
        """Returns the faction whose base this tile is, or None for a game tile."""
        first = FROM_LETTER[self.pictures[0]]
        return first.faction if first.kind is Kind.BASE else None


_NAMES = {
    "chest": Picture.TREASURE_CHEST,
    "star": Picture.THROWING_STAR,
    "ship": Picture.PIRATE_SHIP,
    **{p.name.lower(): p for p in Picture},
}


def load_tiles(path: Path = TILES_FILE) -> tuple[Tile, ...]:
    """Returns the game tiles listed in the data file (see its header for the format)."""
    tiles = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        number, *names, icon = line.split()
        pictures = "".join(LETTER[_NAMES[name]] for name in names)
        tiles.append(Tile(int(number), pictures, Icon.NONE if icon == "-" else Icon[icon.upper()]))
    return tuple(tiles)


GAME_TILES: tuple[Tile, ...] = load_tiles()
BASE_TILES: dict[Faction, Tile] = {
    f: Tile(len(GAME_TILES) + f.value, LETTER[Picture(12 + f.value)] * 4, Icon.NONE) for f in Faction
}
TILES: dict[int, Tile] = {t.id: t for t in (*GAME_TILES, *BASE_TILES.values())}
PICTURES: dict[int, tuple[Picture, ...]] = {
    t.id: tuple(FROM_LETTER[c] for c in t.pictures) for t in TILES.values()
}  # tile id -> its 4 pictures as printed
QUADRANT_OFFSETS = ((0, 0), (1, 0), (1, 1), (0, 1))  # NW, NE, SE, SW
NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))


BASE_OF: dict[int, Faction | None] = {t.id: t.base for t in TILES.values()}  # tile id -> Tile.base
_ROTATIONS = {t: (0,) if base else (0, 1, 2, 3) for t, base in BASE_OF.items()}


def rotations(tile_id: int) -> tuple[int, ...]:
    """Returns the distinct rotations of a tile: (0,) for a base (all four quadrants alike), else 0..3."""
    return _ROTATIONS[tile_id]


# Board ------------------------------------------------------------------------------------------


class Placement(NamedTuple):
    """A tile in play (engine form; the observation shows ``PlacedTile`` with the tile's pictures).

    Design detail: a named tuple, not a dataclass, because boards are compared, sorted and hashed at
    every step, which tuples do in C.
    """

    y: int
    x: int
    tile_id: int
    rotation: int  # quarter turns clockwise, 0..3


Board = tuple[Placement, ...]  # sorted by (y, x)


def tile_cells(tile_id: int, x: int, y: int, rotation: int) -> list[tuple[tuple[int, int], Picture]]:
    """Returns the four (picture cell, picture) pairs of a tile placed at (x, y) with a rotation."""
    pictures = PICTURES[tile_id]
    return [
        ((2 * x + dx, 2 * y + dy), pictures[(q - rotation) % 4])
        for q, (dx, dy) in enumerate(QUADRANT_OFFSETS)
    ]


def picture_cells(board: Iterable[Placement]) -> dict[tuple[int, int], Picture]:
    """Returns every picture in play by picture cell."""
    cells: dict[tuple[int, int], Picture] = {}
    for p in board:
        cells.update(tile_cells(p.tile_id, p.x, p.y, p.rotation))
    return cells


@dataclasses.dataclass(frozen=True)
class Section:
    """A set of one faction's pictures (characters, bonus items, base) connected orthogonally."""

    faction: Faction
    cells: frozenset[tuple[int, int]]
    score: int  # counted points: negated pictures excluded, the base counted once


def sections(cells: Mapping[tuple[int, int], Picture], faction: Faction) -> list[Section]:
    """Returns the faction's sections in play, highest score first (ties: larger, then by cell)."""
    own = {c for c, p in cells.items() if _FRIEND[p] is faction}
    enemy = ENEMY[faction]
    found = []
    seen: set[tuple[int, int]] = set()
    for start in sorted(own):
        if start in seen:
            continue
        seen.add(start)
        stack, members = [start], []
        while stack:
            cx, cy = stack.pop()
            members.append((cx, cy))
            for nxt in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
                if nxt in own and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        score, has_base = 0, False
        for cx, cy in members:
            points = _POINTS[cells[(cx, cy)]]
            if points == 5:
                has_base = True
            elif not any(
                cells.get(n) is enemy for n in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1))
            ):
                score += points
        found.append(Section(faction, frozenset(members), score + (5 if has_base else 0)))
    found.sort(key=lambda s: (-s.score, -len(s.cells), min(s.cells)))
    return found


def cell_scores(cells: Mapping[tuple[int, int], Picture]) -> dict[Faction, int]:
    """Returns each faction's best-section score on a picture grid (picture cell -> picture)."""
    return {f: max((s.score for s in sections(cells, f)), default=0) for f in Faction}


_BY_ROW = itemgetter(1, 0)  # (x, y) -> (y, x)


def frontier(positions: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Returns the empty positions sharing a full side with a tile at ``positions``, sorted (y, x)."""
    taken = set(positions)
    free: set[tuple[int, int]] = set()
    for x, y in taken:
        free.update(((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)))
    free -= taken
    return sorted(free, key=_BY_ROW)


def is_connected(positions: Iterable[tuple[int, int]]) -> bool:
    """Returns whether the tile positions form one orthogonally connected area (True when empty)."""
    todo = set(positions)
    if not todo:
        return True
    stack = [todo.pop()]
    while stack:
        x, y = stack.pop()
        for dx, dy in NEIGHBOURS:
            nxt = (x + dx, y + dy)
            if nxt in todo:
                todo.remove(nxt)
                stack.append(nxt)
    return not todo


RING = ((-1, -1), (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0))  # around a tile, in order
_SIDES = frozenset((1, 3, 5, 7))  # the ring's positions that share a side with the tile


def joined_around(taken: Set[tuple[int, int]], x: int, y: int) -> bool:
    """Returns whether the tile at (x, y) has neighbours and they are joined without it by the eight
    positions around it: then taking it away cannot split a connected area. (Consecutive ring
    positions share a side, so one unbroken run of taken positions holding every neighbour joins
    them; the converse does not hold, which is why False means "flood fill to know".)"""
    filled = [(x + dx, y + dy) in taken for dx, dy in RING]
    if not any(filled[i] for i in _SIDES):
        return False
    if all(filled):
        return True
    start = filled.index(False)  # walk the ring from a gap, counting the runs that hold a neighbour
    runs, in_run, holds = 0, False, False
    for k in range(1, 9):
        i = (start + k) % 8
        if filled[i]:
            in_run, holds = True, holds or i in _SIDES
        elif in_run:
            runs, in_run, holds = runs + holds, False, False
    return runs + (in_run and holds) == 1
