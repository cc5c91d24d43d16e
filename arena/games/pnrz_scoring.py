"""Pirates, Ninjas, Robots & Zombies: every faction's best-section score, kept up to date board by board.

The count is the one of ``pnrz_board.cell_scores`` (characters 1, bonus items 3, the base 5 once per
section; a character or bonus item beside its faction's arch-enemy counts nothing), but the engine asks
for it at every step, on boards of up to 58 tiles that change by one or two tiles a turn. So a board's
sections are derived from the previous board's: only the sections touching a changed tile are flood
filled again. Pure bookkeeping: the result never depends on which boards were seen before.

Picture cells are integer keys ``cx * _W + cy`` (see ``pnrz_board`` for the picture cell grid).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable

from arena.games.pnrz_board import _FRIEND, _POINTS, ENEMY, PICTURES, QUADRANT_OFFSETS, TILES, Board, Faction

_W = 1 << 16  # cell key stride: a connected board of 58 tiles keeps |cy| far below _W / 2
_BASE_POINTS = 5
_NO_SCORES = dict.fromkeys(Faction, 0)


def _tile_cell_table(tile_id: int) -> tuple[tuple[tuple[int, int, int, int], ...], ...]:
    """Returns per rotation the tile's four (cell key offset, faction joined or 0, points, faction
    negated or 0)."""
    negated = {picture: faction for faction, picture in ENEMY.items()}
    table = []
    for rotation in range(4):
        cells = []
        for q, (dx, dy) in enumerate(QUADRANT_OFFSETS):
            picture = PICTURES[tile_id][(q - rotation) % 4]
            joins, beaten = _FRIEND[picture], negated.get(picture)
            cells.append((dx * _W + dy, int(joins or 0), _POINTS[picture], int(beaten or 0)))
        table.append(tuple(cells))
    return tuple(table)


_CELLS = {tile_id: _tile_cell_table(tile_id) for tile_id in TILES}


@dataclasses.dataclass
class _Sections:
    """One board's pictures and sections (never changed once built: a derived board copies)."""

    friends: dict[int, tuple[int, int]]  # friendly picture cell -> (faction joined, printed points)
    negates: dict[int, int]  # arch-enemy picture cell -> the faction it negates
    label: dict[int, int]  # friendly picture cell -> its section's id
    sections: dict[int, tuple[int, int, tuple[int, ...]]]  # section id -> (faction, score, cells)
    next_id: int = 0

    def best(self) -> dict[Faction, int]:
        best = [0] * (len(Faction) + 1)
        for faction, score, _cells in self.sections.values():
            if score > best[faction]:
                best[faction] = score
        return {f: best[f] for f in Faction}


def _cells_of(placements: Iterable) -> Iterable[tuple[int, int, int, int]]:
    """Yields (cell key, faction joined or 0, points, faction negated or 0) of each picture."""
    for p in placements:
        origin = 2 * p.x * _W + 2 * p.y
        for offset, joins, points, negates in _CELLS[p.tile_id][p.rotation]:
            yield origin + offset, joins, points, negates


def _fill(s: _Sections, region: set[int]) -> None:
    """Labels the friendly cells of ``region`` (whole sections: no same-faction cell outside it
    touches one inside) as new sections and scores them."""
    friends, label, enemy = s.friends, s.label, s.negates.get
    for start in region:
        if start in label:
            continue
        faction = friends[start][0]
        sid = s.next_id
        s.next_id += 1
        label[start] = sid
        stack, members, total, has_base = [start], [], 0, False
        while stack:
            cell = stack.pop()
            members.append(cell)
            value = friends[cell][1]
            if value == _BASE_POINTS:
                has_base = True
            elif not (
                enemy(cell + 1) == faction
                or enemy(cell - 1) == faction
                or enemy(cell + _W) == faction
                or enemy(cell - _W) == faction
            ):
                total += value
            for n in (cell + 1, cell - 1, cell + _W, cell - _W):
                if n not in label and n in friends and friends[n][0] == faction:
                    label[n] = sid
                    stack.append(n)
        s.sections[sid] = (faction, total + (_BASE_POINTS if has_base else 0), tuple(members))


def _build(board: Board) -> _Sections:
    s = _Sections({}, {}, {}, {})
    for cell, joins, value, negates in _cells_of(board):
        if joins:
            s.friends[cell] = (joins, value)
        else:
            s.negates[cell] = negates
    _fill(s, set(s.friends))
    return s


def _derive(parent: _Sections, removed: Iterable, added: Iterable) -> _Sections:
    """Returns the sections after taking the ``removed`` placements off and putting ``added`` on.

    Every section that holds a removed picture or touches a changed one is dissolved (it may split,
    merge or gain or lose a negation) and its cells, with the new friendly ones, are filled again.
    """
    s = _Sections(
        dict(parent.friends), dict(parent.negates), dict(parent.label), dict(parent.sections), parent.next_id
    )
    friends, negates, label = s.friends, s.negates, s.label
    changed: list[int] = []
    for cell, _joins, _value, _negates in _cells_of(removed):
        friends.pop(cell, None)
        negates.pop(cell, None)
        changed.append(cell)
    region: set[int] = set()
    for cell, joins, value, negated in _cells_of(added):
        if joins:
            friends[cell] = (joins, value)
            region.add(cell)
        else:
            negates[cell] = negated
        changed.append(cell)
    dissolved = {label[n] for c in changed for n in (c, c + 1, c - 1, c + _W, c - _W) if n in label}
    for sid in dissolved:
        for cell in s.sections.pop(sid)[2]:
            del label[cell]
            if cell in friends:
                region.add(cell)
    _fill(s, region)
    return s


class BoardScores:
    """Each faction's best-section score by board, derived from the board it came from when known.

    Boards are keyed by identity (hashing fifty placements would cost more than deriving); entries
    keep their boards alive, so an id is never reused while its entry lives.
    """

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._sections: dict[int, tuple[Board, _Sections, dict[Faction, int]]] = {}
        self._parents: dict[int, tuple[Board, Board]] = {}  # id(board) -> (board, the board before)
        self._lock = threading.Lock()

    def __call__(self, board: Board) -> dict[Faction, int]:
        """Returns each faction's score on ``board`` (callers must not mutate the dict)."""
        if not board:
            return _NO_SCORES
        hit = self._sections.get(id(board))
        return hit[2] if hit is not None else self._add(board)[2]

    def changed(self, before: Board, after: Board) -> None:
        """Notes that ``after`` was made from ``before``, so its sections can be derived."""
        self._remember(self._parents, after, (after, before))

    def _add(self, board: Board) -> tuple[Board, _Sections, dict[Faction, int]]:
        link = self._parents.get(id(board))
        parent = self._sections.get(id(link[1])) if link is not None else None
        if parent is not None:
            before, now = set(link[1]), set(board)
            sections = _derive(parent[1], before - now, now - before)
        else:
            sections = _build(board)
        entry = (board, sections, sections.best())
        self._remember(self._sections, board, entry)
        return entry

    def _remember(self, table: dict, board: Board, entry: tuple) -> None:
        with self._lock:  # threads may share the engine (the leaderboard's replay pages)
            if len(table) >= self._size:
                del table[next(iter(table))]  # the oldest
            table[id(board)] = entry


faction_scores = BoardScores()
"""Each faction's best-section score on a board: the one ``BoardScores`` of the engine and the bots."""
