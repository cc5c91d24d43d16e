"""Pirates, Ninjas, Robots & Zombies: what follows from a board, kept up to date tile by tile.

The engine needs at every step what follows from the board: each faction's best-section score (the
count of ``board.cell_scores``: characters 1, bonus items 3, the base 5 once per section; a
character or bonus item beside its faction's arch-enemy counts nothing), the free positions a tile may
go to, and whether a base may move without splitting the area. A ``Layout`` holds all of it for one
board and is never changed once made. The layout of the next board is made from it by ``changed``,
which looks only at what the tiles put down or taken away touch:

- sections: every friendly picture cell is labelled with its section, and each section keeps its
  counted points, base pictures and size. A tile put down joins the sections its pictures touch (the
  smaller ones are relabelled into the largest) and its arch-enemy pictures take away the points of
  the pictures they newly negate: a placement costs about the same on a full board as on an empty
  one. A tile taken away (moved, turned, swapped or replaced: taken away, then put down) takes its
  pictures out of their sections' counts and gives back the points its arch-enemies negated; a
  section that lost pictures is split only if it fell apart, which searches from its cells beside
  the gap, one cell each in turn, find at the cost of the smaller parts.
- the frontier: the free positions beside a tile, in the order they are listed (row by row), updated
  around the positions that changed.
- moving a base: the eight positions around it mostly tell whether the rest stays connected (a table
  of the 256 ways they can be taken); otherwise searches from its neighbours, one position each in
  turn, stop once they have all met or one has run out.

The engine's state carries its layout (``PnrzState.layout``); a bot makes the layouts of the boards it
imagines from the observed board's. Nothing is kept anywhere else: no cache, no lock.

Why it is long: the three kinds of derived data share the labels and the position keys below, and
each is updated from the same list of tiles put down and taken away, so they change together.

Keys (Design Detail): a position (x, y) is the integer ``y * S + x`` and a picture cell (cx, cy) the
integer ``cy * S + cx``, so the row-by-row order is the integers' order (|x| < S / 2) and the four
quadrants (dx, dy) of the tile at position key ``k`` are the cells ``2 * k + dy * S + dx``.
"""

from __future__ import annotations

import collections
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import cast

from arena.games.pnrz.board import (
    _FRIEND,
    _POINTS,
    ENEMY,
    PICTURES,
    QUADRANT_OFFSETS,
    RING,
    TILES,
    Board,
    Faction,
    Picture,
    Placement,
    joined_around,
)

S = 1 << 16  # key stride: a board of 58 tiles, drifting by base moves for 300 turns, keeps |x| < S / 4
_HALF = S // 2
_BASE_POINTS = 5

# By picture value (index 0 unused): the faction it joins or 0, its points, the faction it negates or 0.
_JOINS = (0, *(int(_FRIEND[p] or 0) for p in Picture))
_VALUE = (0, *(_POINTS[p] for p in Picture))
_NEGATES = (0, *(int(p.faction) if _FRIEND[p] is None else 0 for p in Picture))
_ENEMY_OF = (0, *(int(ENEMY[f]) for f in Faction))  # by faction value: its arch-enemy's picture value
_FACTIONS = tuple(Faction)
_UNKNOWN = object()  # no answer kept


def key(x: int, y: int) -> int:
    """Returns the key of position (x, y) (or of picture cell (x, y))."""
    return y * S + x


def xy(k: int) -> tuple[int, int]:
    """Returns the (x, y) of a position key."""
    y, x = divmod(k + _HALF, S)
    return x - _HALF, y


def _tile_cells(tile_id: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Returns per rotation the tile's four (cell key offset from ``2 * k``, picture value)."""
    return tuple(
        tuple(
            (dy * S + dx, int(PICTURES[tile_id][(q - rotation) % 4]))
            for q, (dx, dy) in enumerate(QUADRANT_OFFSETS)
        )
        for rotation in range(4)
    )


_CELLS = {tile_id: _tile_cells(tile_id) for tile_id in TILES}
assert RING == ((-1, -1), (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0))  # stays_joined's bits
# Whether a tile whose ring of eight neighbouring positions is taken as the bits of the index say
# (bit i: RING[i]) has side neighbours joined without it (board.joined_around).
_JOINED = tuple(joined_around({RING[i] for i in range(8) if mask >> i & 1}, 0, 0) for mask in range(256))

Section = tuple[int, int, int]  # counted points (the base apart), base pictures, number of cells


def _best(sections: dict[int, Section]) -> int:
    """Returns the best score of a faction's sections."""
    return max((points + (_BASE_POINTS if bases else 0) for points, bases, _ in sections.values()), default=0)


class Layout:
    """What follows from one board (never changed once made: ``changed`` makes the next one; only
    ``cuts`` fills up with answers about this very board as they are asked).

    Design detail: a class with slots, not a frozen dataclass, as ``changed`` fills a new one in
    place before anyone sees it. Threads may share a layout: an answer written to ``cuts`` is the
    same whoever writes it.
    """

    __slots__ = ("best", "board", "cuts", "frontier", "label", "next_id", "pics", "secs", "tiles", "where")

    board: Board
    tiles: dict[int, Placement]  # position key -> the tile there
    where: dict[int, Placement]  # tile id -> where it is
    frontier: tuple[int, ...]  # the free position keys beside a tile, ascending (row by row)
    pics: dict[int, int]  # picture cell key -> picture value
    label: dict[int, int]  # friendly picture cell key -> the id of its section
    secs: tuple[dict[int, Section], ...]  # by faction value (0 unused): section id -> section
    next_id: int
    best: tuple[int, ...]  # by faction value (0 unused): its best section's score
    # Position key -> None when the area stays connected without the tile there, else the positions
    # of a part that tile alone joins to the rest: ``stays_joined``'s answers, filled as they are
    # asked (answers of this board alone), carried to the next layout where a tile put down leaves
    # them true (``_carried``).
    cuts: dict[int, frozenset[int] | None]

    @staticmethod
    def build(board: Board) -> Layout:
        """Returns the layout of ``board``, made tile by tile from the empty one."""
        return EMPTY.changed((), board, board)

    @property
    def scores(self) -> dict[Faction, int]:
        """Returns each faction's best-section score."""
        best = self.best
        return {f: best[f] for f in _FACTIONS}

    def derive(self, board: Board) -> Layout:
        """Returns the layout of ``board``, a board made from this one by a few changes."""
        before, after = set(self.board), set(board)
        return self.changed(sorted(before - after), sorted(after - before), board)

    def changed(self, removed: Sequence[Placement], added: Iterable[Placement], board: Board) -> Layout:
        """Returns the layout of ``board``: this one's with the ``removed`` placements taken away and
        the ``added`` ones put down (a tile turned or moved is both)."""
        new = object.__new__(Layout)
        new.board = board
        new.tiles = dict(self.tiles)
        new.where = dict(self.where)
        new.pics = dict(self.pics)
        new.label = dict(self.label)
        new.secs = [dict(s) for s in self.secs]  # type: ignore[assignment]
        new.next_id = self.next_id
        new.best = list(self.best)  # type: ignore[assignment]
        if removed:
            new.cuts = {}
            new._rework(self, removed, added)
        else:
            frontier = list(self.frontier)
            for p in added:
                new._add(p, frontier)
            new.frontier = tuple(frontier)
            new.cuts = new._carried(self.cuts, added)
        new.secs = tuple(new.secs)
        new.best = tuple(new.best)
        return new

    # -- a tile put down -----------------------------------------------------------------------

    def _add(self, p: Placement, frontier: list[int] | None) -> None:
        """Puts ``p`` down on this layout in the making (``frontier``: its frontier as a list, kept
        up to date; None when the caller updates it)."""
        k = p.y * S + p.x
        tiles, pics, label, secs, best = self.tiles, self.pics, self.label, self.secs, self.best
        tiles[k] = p
        self.where[p.tile_id] = p
        if frontier is not None:
            i = bisect_left(frontier, k)
            if i < len(frontier) and frontier[i] == k:
                del frontier[i]
            for n in (k - S, k - 1, k + 1, k + S):
                if n not in tiles:
                    i = bisect_left(frontier, n)
                    if i == len(frontier) or frontier[i] != n:
                        frontier.insert(i, n)
        origin = 2 * k
        cells = [(origin + offset, pic) for offset, pic in _CELLS[p.tile_id][p.rotation]]
        for c, pic in cells:
            pics[c] = pic
        rescan = set()
        lost: set[int] = set()
        get = label.get
        for c, pic in cells:  # its arch-enemies negate the counted pictures beside them
            g = _NEGATES[pic]
            if not g:
                continue
            mine = (origin, origin + 1, origin + S, origin + S + 1)
            for n in (c + 1, c - 1, c + S, c - S):
                sid = get(n)
                if sid is None or n in lost:
                    continue
                value = _VALUE[pics[n]]
                if _JOINS[pics[n]] != g or value == _BASE_POINTS:
                    continue
                if any(m not in mine and pics.get(m) == pic for m in (n + 1, n - 1, n + S, n - S)):
                    continue  # negated already
                lost.add(n)
                points, base, size = secs[g][sid]
                secs[g][sid] = (points - value, base, size)
                rescan.add(g)
        for c, pic in cells:  # its friendly pictures join the sections they touch
            f = _JOINS[pic]
            if not f:
                continue
            value = _VALUE[pic]
            is_base = value == _BASE_POINTS
            enemy = _ENEMY_OF[f]
            if is_base or enemy in (pics.get(c + 1), pics.get(c - 1), pics.get(c + S), pics.get(c - S)):
                value = 0
            own = secs[f]
            touched = set()
            for n in (c + 1, c - 1, c + S, c - S):
                sid = get(n)
                if sid is not None and sid in own:
                    touched.add(sid)
            if not touched:
                sid = self.next_id
                self.next_id += 1
                own[sid] = (value, int(is_base), 1)
                label[c] = sid
                score = value + (_BASE_POINTS if is_base else 0)
            elif len(touched) == 1:
                (keep,) = touched
                points, base, size = own[keep]
                points, base = points + value, base + is_base
                own[keep] = (points, base, size + 1)
                label[c] = keep
                score = points + (_BASE_POINTS if base else 0)
            else:
                keep = max(touched, key=lambda s: (own[s][2], s))  # the largest keeps its label
                points, base, size = own[keep]
                for sid in touched - {keep}:
                    more, more_base, more_size = own.pop(sid)
                    points, base, size = points + more, base + more_base, size + more_size
                    self._relabel(next(n for n in (c + 1, c - 1, c + S, c - S) if label.get(n) == sid), keep)
                label[c] = keep
                points, base = points + value, base + is_base
                own[keep] = (points, base, size + 1)
                score = points + (_BASE_POINTS if base else 0)
            if score > best[f]:
                best[f] = score  # type: ignore[index]
        for g in rescan:  # a section lost points: the best may be another one now
            best[g] = _best(secs[g])  # type: ignore[index]

    def _relabel(self, start: int, sid: int) -> None:
        """Gives the section of cell ``start`` the id ``sid``."""
        label = self.label
        old = label[start]
        label[start] = sid
        stack = [start]
        while stack:
            c = stack.pop()
            for n in (c + 1, c - 1, c + S, c - S):
                if label.get(n) == old:
                    label[n] = sid
                    stack.append(n)

    # -- tiles taken away, turned, moved or replaced --------------------------------------------

    def _rework(self, parent: Layout, removed: Sequence[Placement], added: Iterable[Placement]) -> None:
        """Takes ``removed`` away (``_remove``), then puts ``added`` down (``_add``), then updates the
        frontier around the positions freed or taken."""
        moved = {p.y * S + p.x for p in removed}  # positions freed or taken
        rescan = self._remove(parent, removed)
        for p in added:
            k = p.y * S + p.x
            moved.symmetric_difference_update((k,))
            self._add(p, None)
        for f in rescan:
            self.best[f] = _best(self.secs[f])  # type: ignore[index]
        if not moved:
            self.frontier = parent.frontier
            return
        tiles = self.tiles
        frontier = set(parent.frontier)
        for k in moved:
            for n in (k, k - S, k - 1, k + 1, k + S):
                if n not in tiles and (n - S in tiles or n - 1 in tiles or n + 1 in tiles or n + S in tiles):
                    frontier.add(n)
                else:
                    frontier.discard(n)
        self.frontier = tuple(sorted(frontier))

    def _remove(self, parent: Layout, removed: Sequence[Placement]) -> set[int]:
        """Takes the ``removed`` placements away: their pictures leave their sections' counts, the
        pictures their arch-enemies negated count again, and a section that lost pictures is split
        if it fell apart (``_split``). Returns the factions whose best section must be found again."""
        tiles, where, pics, label, secs = self.tiles, self.where, self.pics, self.label, self.secs
        gone: dict[int, int] = {}  # picture cell taken away -> its picture
        for p in removed:
            k = p.y * S + p.x
            del tiles[k]
            del where[p.tile_id]
            for offset, pic in _CELLS[p.tile_id][p.rotation]:
                del pics[2 * k + offset]
                gone[2 * k + offset] = pic
        old = parent.pics
        rescan: set[int] = set()
        seeds: dict[int, tuple[int, set[int]]] = {}  # section -> (faction, its cells beside those gone)
        for c, pic in gone.items():
            f = _JOINS[pic]
            if not f:
                continue
            sid = label.pop(c)
            value = _VALUE[pic]
            points, base, size = secs[f][sid]
            if value == _BASE_POINTS:
                base -= 1
            elif _ENEMY_OF[f] not in (old.get(c + 1), old.get(c - 1), old.get(c + S), old.get(c - S)):
                points -= value  # it counted
            secs[f][sid] = (points, base, size - 1)
            rescan.add(f)
            beside = seeds.setdefault(sid, (f, set()))[1]
            beside.update(n for n in (c + 1, c - 1, c + S, c - S) if n not in gone and label.get(n) == sid)
        freed: set[int] = set()
        for c, pic in gone.items():  # arch-enemies taken away: the pictures they negated may count
            g = _NEGATES[pic]
            if not g:
                continue
            for n in (c + 1, c - 1, c + S, c - S):
                q = pics.get(n)
                if q is None or n in freed or _JOINS[q] != g or _VALUE[q] == _BASE_POINTS:
                    continue
                if pic in (pics.get(n + 1), pics.get(n - 1), pics.get(n + S), pics.get(n - S)):
                    continue  # still negated
                freed.add(n)
                sid = label[n]
                points, base, size = secs[g][sid]
                secs[g][sid] = (points + _VALUE[q], base, size)
                rescan.add(g)
        for sid, (f, beside) in seeds.items():
            if secs[f][sid][2] == 0:
                del secs[f][sid]
            elif len(beside) > 1:
                self._split(f, sid, beside)
        return rescan

    def _split(self, f: int, sid: int, seeds: set[int]) -> None:
        """Splits section ``sid`` (of faction ``f``) into its parts if it fell apart: ``seeds`` are
        its cells beside the pictures taken away, and every part holds one of them.

        Design detail: one search from every seed, taking one cell each in turn; searches that meet
        join. A search that runs out has found a part apart from the others, which gets its own id;
        once one search is left, the rest keeps the section's id. So the cost is that of the smaller
        parts, not of the section.
        """
        label = self.label
        starts = sorted(seeds)
        owner = {c: i for i, c in enumerate(starts)}
        group = list(range(len(starts)))  # search -> the search it joined (itself while it runs)
        queues = [collections.deque([c]) for c in starts]
        found: list[list[int]] = [[c] for c in starts]
        live = len(starts)
        while live > 1:
            for i in range(len(starts)):
                if group[i] != i:
                    continue
                queue = queues[i]
                if not queue:  # a part apart: its own section
                    group[i] = -1
                    live -= 1
                    self._part_off(f, sid, found[i])
                    if live == 1:
                        return
                    continue
                c = queue.popleft()
                for n in (c + 1, c - 1, c + S, c - S):
                    if label.get(n) != sid:
                        continue
                    o = owner.get(n)
                    if o is None:
                        owner[n] = i
                        queue.append(n)
                        found[i].append(n)
                        continue
                    while group[o] != o:  # the search that one joined
                        o = group[o]
                    if o != i:  # two searches meet: one part
                        group[o] = i
                        queue.extend(queues[o])
                        found[i].extend(found[o])
                        live -= 1
                        if live == 1:
                            return

    def _part_off(self, f: int, sid: int, cells: list[int]) -> None:
        """Makes ``cells``, a part of section ``sid`` (of faction ``f``) apart from the rest, a
        section of its own."""
        label, pics, own = self.label, self.pics, self.secs[f]
        enemy = _ENEMY_OF[f]
        new = self.next_id
        self.next_id += 1
        points = bases = 0
        for c in cells:
            label[c] = new
            value = _VALUE[pics[c]]
            if value == _BASE_POINTS:
                bases += 1
            elif enemy not in (pics.get(c + 1), pics.get(c - 1), pics.get(c + S), pics.get(c - S)):
                points += value
        own[new] = (points, bases, len(cells))
        rest_points, rest_bases, rest_size = own[sid]
        own[sid] = (rest_points - points, rest_bases - bases, rest_size - len(cells))

    # -- the area ------------------------------------------------------------------------------

    def stays_joined(self, k: int) -> bool:
        """Returns whether the area stays connected without its tile at position key ``k``.

        Design detail: every other tile reaches the area through one of that tile's neighbours, so the
        rest is connected exactly when those neighbours reach each other without it. Mostly the eight
        positions around show it at once (``_JOINED``); otherwise one search from every neighbour,
        taking one position each in turn, stops as soon as they have all met (joined) or one has run
        out (it holds a part the tile joins to the rest): the cost is that of the smaller parts.
        """
        known = self.cuts.get(k, _UNKNOWN)
        if known is not _UNKNOWN:
            return known is None
        part = self._cut(k)
        if part is not _UNKNOWN:
            # an answer about this board: any thread would write the same
            self.cuts[k] = cast("frozenset[int] | None", part)
        return part is None

    def _cut(self, k: int) -> object:
        """Returns None if the area stays connected without the tile at ``k``, else the positions of
        a part of the rest apart from the others (``_UNKNOWN``: the tile is the whole area)."""
        tiles = self.tiles
        around = [n for n in (k - S, k - 1, k + 1, k + S) if n in tiles]
        if not around:
            return _UNKNOWN  # the tile is the whole area
        if len(around) == 1:
            return None
        mask = (  # the ring's positions taken, as bits (``RING`` order)
            (k - S - 1 in tiles)
            | (k - S in tiles) << 1
            | (k - S + 1 in tiles) << 2
            | (k + 1 in tiles) << 3
            | (k + S + 1 in tiles) << 4
            | (k + S in tiles) << 5
            | (k + S - 1 in tiles) << 6
            | (k - 1 in tiles) << 7
        )
        if _JOINED[mask]:
            return None
        owner = {n: i for i, n in enumerate(around)}
        owner[k] = -1
        group = list(range(len(around)))  # search -> the search it joined (itself while it runs)
        queues = [collections.deque([n]) for n in around]
        found = [[n] for n in around]
        live = len(around)
        while True:
            for i, queue in enumerate(queues):
                if group[i] != i:
                    continue
                if not queue:
                    return frozenset(found[i])
                c = queue.popleft()
                for n in (c - S, c - 1, c + 1, c + S):
                    if n not in tiles:
                        continue
                    o = owner.get(n)
                    if o is None:
                        owner[n] = i
                        queue.append(n)
                        found[i].append(n)
                        continue
                    if o < 0:
                        continue
                    while group[o] != o:
                        o = group[o]
                    if o != i:
                        group[o] = i
                        queue.extend(queues[o])
                        found[i].extend(found[o])
                        live -= 1
                        if live == 1:
                            return None

    def _carried(
        self, cuts: dict[int, frozenset[int] | None], added: Iterable[Placement]
    ) -> dict[int, frozenset[int] | None]:
        """Returns the answers of ``stays_joined`` on the board before one tile was put down that
        still hold with it (none after several tiles: a layout built at once asks again).

        A tile put down at ``q`` beside another tile than ``k`` keeps the rest joined without ``k``;
        beside ``k`` alone, it is a part apart. A part apart stays apart when ``q`` touches only it
        (and ``k``: the part grows by ``q``) or only the others; ``q`` touching both asks again.
        """
        placed = list(added)
        if not cuts or len(placed) != 1:
            return {}
        q = placed[0].y * S + placed[0].x
        tiles = self.tiles
        around = [n for n in (q - S, q - 1, q + 1, q + S) if n in tiles]
        carried: dict[int, frozenset[int] | None] = {}
        for k, part in cuts.items():
            others = [n for n in around if n != k]
            if not others:
                carried[k] = frozenset((q,)) if part is None else part
            elif part is None:
                carried[k] = None
            else:
                inside = sum(n in part for n in others)
                if inside == len(others):
                    carried[k] = part | {q}
                elif not inside:
                    carried[k] = part
        return carried

    def spots_without(self, k: int) -> list[int]:
        """Returns the free positions beside a tile once the tile at ``k`` is taken away, but ``k``
        itself (where a base moved from there may go), ascending."""
        tiles = self.tiles
        gone = {
            n
            for n in (k - S, k - 1, k + 1, k + S)
            if n not in tiles and not any(m != k and m in tiles for m in (n - S, n - 1, n + 1, n + S))
        }
        return [n for n in self.frontier if n not in gone] if gone else list(self.frontier)


EMPTY = object.__new__(Layout)
EMPTY.board = ()
EMPTY.tiles, EMPTY.where, EMPTY.pics, EMPTY.label = {}, {}, {}, {}
EMPTY.frontier = ()
EMPTY.secs = tuple({} for _ in range(len(Faction) + 1))
EMPTY.next_id = 0
EMPTY.best = (0,) * (len(Faction) + 1)
EMPTY.cuts = {}


def faction_scores(board: Board) -> dict[Faction, int]:
    """Returns each faction's best-section score on ``board`` (its layout made from scratch: the
    engine's state and the bots keep theirs)."""
    return Layout.build(board).scores
