"""The ``builder`` bot of Pirates, Ninjas, Robots & Zombies, and the tile-play scoring it shares.

The builder is greedy over a board value: the sum of its own factions' best-section scores minus the
strongest opponent's. Tile plays are scored incrementally (``Sections.gain``: only the sections the four
new pictures touch are recomputed), so it looks at every tile, position and rotation in a few
milliseconds; extra actions and base moves are scored on a pruned candidate set, each board's layout
made from the board it came from (``Boards``: the engine's ``Layout``, kept for one decision).
Tie-breaks keep its best sections open (pictures of its own faction on the new tile's outer sides
facing free space) and prefer spending tiles that help it least.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import TypeVar, cast

from arena.games.pnrz.board import (
    _FRIEND,
    _POINTS,
    ENEMY,
    NEIGHBOURS,
    PICTURES,
    Board,
    Picture,
    frontier,
    picture_cells,
    rotations,
    sections,
    tile_cells,
)
from arena.games.pnrz.engine import (
    TILES,
    Action,
    ChooseFaction,
    Faction,
    Icon,
    MoveBase,
    Observation,
    OrientSwapped,
    PassTurn,
    Phase,
    Placement,
    PlaceTile,
    PutTile,
    RotateTile,
    SelectTile,
    SkipAction,
    SwapFirst,
    SwapWith,
    TakeTile,
)
from arena.games.pnrz.scoring import Layout
from arena.sdk import Bot

Cell = tuple[int, int]
ActionT = TypeVar("ActionT", bound=Action)  # the one kind of action a decision offers


def board_of(observation: Observation) -> tuple[Placement, ...]:
    """Returns the engine board (sorted placements) seen in an observation."""
    return tuple(sorted(Placement(p.y, p.x, p.tile_id, p.rotation) for p in observation.board))


class Sections:
    """The sections of every faction on one board, for fast what-if scoring of a single tile play."""

    def __init__(self, board: tuple[Placement, ...]) -> None:
        self.cells = picture_cells(board)
        self.label: dict[Faction, dict[Cell, int]] = {}
        self.scores: dict[Faction, list[int]] = {}
        self.beside_enemy: dict[Faction, set[Cell]] = {}  # cells next to the faction's arch-enemy
        for f in Faction:
            found = sections(self.cells, f)
            self.scores[f] = [s.score for s in found]
            self.label[f] = {c: i for i, s in enumerate(found) for c in s.cells}
            self.beside_enemy[f] = {
                (cx + dx, cy + dy)
                for (cx, cy), p in self.cells.items()
                if p is ENEMY[f]
                for dx, dy in NEIGHBOURS
            }

    def best(self, f: Faction) -> int:
        """Returns the faction's best-section score now."""
        return self.scores[f][0] if self.scores[f] else 0

    def gain(self, new: list[tuple[Cell, Picture]], f: Faction) -> int:
        """Returns the change of faction ``f``'s best-section score if ``new`` pictures were added."""
        cells, label, scores, beside = self.cells, self.label[f], self.scores[f], self.beside_enemy[f]
        enemy = ENEMY[f]
        new_map = dict(new)
        adjust: dict[int, int] = {}
        # New arch-enemies negate the faction's counted pictures beside them.
        lost: set[Cell] = set()
        new_enemy = False
        for (cx, cy), pic in new:
            if pic is enemy:
                new_enemy = True
                for dx, dy in NEIGHBOURS:
                    n = (cx + dx, cy + dy)
                    if n in label and n not in lost and n not in beside and _POINTS[cells[n]] != 5:
                        lost.add(n)
                        adjust[label[n]] = adjust.get(label[n], 0) - _POINTS[cells[n]]
        # New friendly pictures join (and merge) the sections they touch.
        own = [(c, p) for c, p in new if _FRIEND[p] is f]
        groups: list[tuple[set[int], int]] = []
        seen: set[Cell] = set()
        for start, _ in own:
            if start in seen:
                continue
            seen.add(start)
            stack, labels, points, has_base = [start], set(), 0, False
            while stack:
                cx, cy = stack.pop()
                pic = new_map[(cx, cy)]
                if _POINTS[pic] == 5:
                    has_base = True
                elif (cx, cy) not in beside and not (
                    new_enemy and any(new_map.get((cx + dx, cy + dy)) is enemy for dx, dy in NEIGHBOURS)
                ):
                    points += _POINTS[pic]
                for dx, dy in NEIGHBOURS:
                    n = (cx + dx, cy + dy)
                    if n in label:
                        labels.add(label[n])
                    elif n in new_map and _FRIEND[new_map[n]] is f and n not in seen:
                        seen.add(n)
                        stack.append(n)
            groups.append((labels, points + (5 if has_base else 0)))
        if not groups and not adjust:
            return 0
        consumed: set[int] = set()
        best = 0
        for labels, points in groups:
            best = max(best, points + sum(scores[i] + adjust.get(i, 0) for i in labels))
            consumed |= labels
        for i, delta in adjust.items():
            if i not in consumed:
                best = max(best, scores[i] + delta)
        for i, score in enumerate(scores):
            if i not in consumed and i not in adjust:
                best = max(best, score)
                break
        return best - (scores[0] if scores else 0)


class Boards:
    """The layouts of the boards one decision starts from, so that the boards it imagines from them
    are scored by what changed (``Layout.derive``: only the sections the changes touch are counted
    again). One per decision: nothing is kept from one decision to the next.

    Design detail: keyed by identity (hashing fifty placements costs more than deriving); an entry
    keeps its board alive, so an id is never reused while the entry lives. Only the boards that
    others are made from are kept, not the imagined ones.
    """

    def __init__(self) -> None:
        self._layouts: dict[int, tuple[Board, Layout]] = {}

    def layout(self, board: Board) -> Layout:
        """Returns the layout of ``board`` (made once per decision)."""
        hit = self._layouts.get(id(board))
        if hit is None:
            hit = self._layouts[id(board)] = (board, Layout.build(board))
        return hit[1]

    def scores(self, board: Board, parent: Board | None = None) -> tuple[int, ...]:
        """Returns each faction's best-section score on ``board`` by faction value (made from
        ``parent``, when given, by a few changes)."""
        if parent is None:
            return self.layout(board).best
        return self.layout(parent).derive(board).best


def play_rank(play: tuple[float, int, PlaceTile]) -> tuple[float, int, int, int, int]:
    """Orders tile plays: higher value first, then lower tile id, row, column and rotation."""
    score, tile_id, place = play
    return (score, -tile_id, -place.y, -place.x, -place.rotation)


def tile_plays(
    board: tuple[Placement, ...],
    hand: Sequence[int],
    mine: tuple[Faction, ...],
    theirs: list[tuple[Faction, ...]],
    weight: float,
    spots: Sequence[Cell] | None = None,
) -> list[tuple[float, int, PlaceTile]]:
    """Returns (value, tile, placement) of every play of a ``hand`` tile at ``spots`` (default: every
    free position) for a seat owning ``mine`` against seats owning ``theirs``: its own gain minus
    ``weight`` times the strongest opponent's gain, with the builder's tie-breaks (keep own sections
    open, spend tiles rich in own pictures last, spend a base where it joins a section)."""
    secs = Sections(board)
    positions = [(p.x, p.y) for p in board]
    if spots is None:
        spots = frontier(positions) if positions else [(0, 0)]
    occupied = set(positions)
    plays = []
    for tile_id in hand:
        is_base = TILES[tile_id].base is not None
        # Spending a tile rich in own pictures costs a little future potential.
        richness = sum(_FRIEND[p] in mine for p in PICTURES[tile_id]) * 0.05
        touched = TOUCHES[tile_id]
        own_f = [f for f in mine if f in touched]
        their_f = [[f for f in fs if f in touched] for fs in theirs]
        for x, y in spots:
            for r in rotations(tile_id):
                new = tile_cells(tile_id, x, y, r)
                own = sum(secs.gain(new, f) for f in own_f)
                other = max((sum(secs.gain(new, f) for f in fs) for fs in their_f), default=0)
                score = own - weight * other + 0.1 * openness(new, x, y, occupied, mine) - richness
                if is_base and own <= 0:
                    score -= 1.0  # a base is worth most where it joins a section
                plays.append((score, tile_id, PlaceTile(x, y, r)))
    return plays


TOUCHES = {
    t: frozenset(f for f in Faction if any(_FRIEND[p] is f or p is ENEMY[f] for p in PICTURES[t]))
    for t in TILES
}  # tile id -> the factions whose sections its pictures can join or negate


def openness(
    new: list[tuple[Cell, Picture]], x: int, y: int, occupied: set[tuple[int, int]], mine: tuple[Faction, ...]
) -> int:
    """Returns how many own pictures of the new tile face a free neighbouring position."""
    count = 0
    for (cx, cy), pic in new:
        if _FRIEND[pic] not in mine:
            continue
        side_x = x + (1 if cx % 2 else -1)
        side_y = y + (1 if cy % 2 else -1)
        count += ((side_x, y) not in occupied) + ((x, side_y) not in occupied)
    return count


class BuilderBot(Bot):
    """Grows its best sections, keeps them open, blocks opponents and uses extra actions greedily."""

    name = "builder"
    revision = 1  # of its moves: bump it when they change (tests/test_builtin_versions.py)
    OPPONENT_WEIGHT = 0.8  # how much an opponent's point counts against one of its own
    SHORTLIST = 10  # tiles considered for Swap and Replace (the ones touching the best sections)

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], deadline: timedelta
    ) -> Action:
        phase = observation.phase
        if phase is Phase.CHOOSE:
            return self.choose_faction(observation, legal_actions)
        self.boards = Boards()
        board = board_of(observation)
        if phase is Phase.PLAY:
            hand = [a.tile_id for a in legal_actions if isinstance(a, SelectTile)]
            if hand:
                _, tile_id, _ = self.best_play(observation, board, hand)
                return SelectTile(tile_id)
            moves = [a for a in legal_actions if isinstance(a, MoveBase)]
            if moves:
                return self.best_base_move(observation, board, moves)
            return PassTurn()
        if phase is Phase.PLACE:
            _, _, place = self.best_play(observation, board, [observation.pending[0]])
            return place
        # From here on a phase's legal actions are all of one kind (the engine's legal_actions).
        if phase is Phase.MOVE:
            moves_to = cast(Sequence[PlaceTile], legal_actions)
            return self.best_full(observation, board, moves_to, self.after_move)
        if phase is Phase.ACTION:
            return self.best_extra(observation, board, legal_actions)
        if phase is Phase.SWAP:
            plan = getattr(self, "plan", None)
            if plan and plan[0] == observation.pending[0] and SwapWith(plan[1]) in legal_actions:
                return SwapWith(plan[1])
            swaps = cast(Sequence[SwapWith], legal_actions)
            return self.best_full(observation, board, swaps, self.after_swap)
        if phase is Phase.ORIENT:
            orients = cast(Sequence[OrientSwapped], legal_actions)
            return self.best_full(observation, board, orients, self.after_orient)
        if phase is Phase.REPLACE:
            puts = cast(Sequence[PutTile], legal_actions)
            return self.best_full(observation, board, puts, self.after_put)
        return legal_actions[0]

    # -- evaluation ----------------------------------------------------------------------------

    def mine(self, obs: Observation) -> tuple[Faction, ...]:
        return obs.factions

    def theirs(self, obs: Observation) -> list[tuple[Faction, ...]]:
        return [p.factions for p in obs.players if p.seat != obs.seat]

    def value(self, obs: Observation, board: tuple[Placement, ...], parent: Board | None = None) -> float:
        """Returns own points minus the strongest opponent's (weighted) on ``board`` (scored from
        ``parent``'s sections when ``board`` was made from it: only what changed is recounted)."""
        scores = self.boards.scores(board, parent)
        own = sum(scores[f] for f in self.mine(obs))
        other = max((sum(scores[f] for f in fs) for fs in self.theirs(obs)), default=0)
        return own - self.OPPONENT_WEIGHT * other

    def choose_faction(self, obs: Observation, legal: Sequence[Action]) -> Action:
        """Picks a faction, spreading seats over the list to avoid clashes."""
        options = [a for a in legal if isinstance(a, ChooseFaction)]
        return options[(obs.seat + len(obs.factions)) % len(options)]

    def best_play(
        self, obs: Observation, board: tuple[Placement, ...], hand: list[int]
    ) -> tuple[float, int, PlaceTile]:
        """Returns (value, tile, placement) of the best tile play from ``hand``."""
        plays = tile_plays(board, hand, self.mine(obs), self.theirs(obs), self.OPPONENT_WEIGHT)
        return max(plays, key=play_rank)

    def best_full(
        self,
        obs: Observation,
        board: Board,
        legal: Sequence[ActionT],
        after: Callable[[Observation, Board, ActionT], Board],
    ) -> ActionT:
        """Returns the legal action whose resulting board has the highest value (first on ties)."""
        return max(legal, key=lambda a: self.value(obs, after(obs, board, a), board))

    def best_base_move(self, obs: Observation, board: tuple[Placement, ...], moves: list[MoveBase]) -> Action:
        """Returns the base move whose best new position raises the value most, else passes."""
        best: Action = PassTurn()
        best_value = self.value(obs, board) + 1e-9
        for move in moves:
            old = next(p for p in board if p.tile_id == move.tile_id)
            rest = [(p.x, p.y) for p in board if p is not old]
            for x, y in frontier(rest):
                if (x, y) != (old.x, old.y):
                    v = self.value(obs, self.after_move(obs, board, PlaceTile(x, y, 0), move.tile_id), board)
                    if v > best_value:
                        best, best_value = move, v
        return best

    # -- what-if boards --------------------------------------------------------------------------

    @staticmethod
    def after_move(obs: Observation, board: Board, action: PlaceTile, tile_id: int | None = None) -> Board:
        moving = tile_id if tile_id is not None else obs.pending[0]
        rest = [p for p in board if p.tile_id != moving]
        return tuple(sorted((*rest, Placement(action.y, action.x, moving, 0))))

    @staticmethod
    def after_rotate(board: Board, tile_id: int, rotation: int) -> Board:
        return tuple(Placement(p.y, p.x, p.tile_id, rotation) if p.tile_id == tile_id else p for p in board)

    @staticmethod
    def swapped(board: Board, a: int, b: int, ra: int | None = None, rb: int | None = None) -> Board:
        pa = next(p for p in board if p.tile_id == a)
        pb = next(p for p in board if p.tile_id == b)
        out = []
        for p in board:
            if p.tile_id == a:
                out.append(Placement(pb.y, pb.x, a, pa.rotation if ra is None else ra))
            elif p.tile_id == b:
                out.append(Placement(pa.y, pa.x, b, pb.rotation if rb is None else rb))
            else:
                out.append(p)
        return tuple(sorted(out))

    def after_swap(self, obs: Observation, board: Board, action: SwapWith) -> Board:
        return self.swapped(board, obs.pending[0], action.tile_id)

    def after_orient(self, obs: Observation, board: Board, action: OrientSwapped) -> Board:
        a, b = obs.pending
        return tuple(
            Placement(
                p.y, p.x, p.tile_id, action.first_rotation if p.tile_id == a else action.second_rotation
            )
            if p.tile_id in (a, b)
            else p
            for p in board
        )

    def after_put(self, obs: Observation, board: Board, action: PutTile) -> Board:
        taken = obs.pending[0]
        return tuple(
            Placement(p.y, p.x, action.tile_id, action.rotation) if p.tile_id == taken else p for p in board
        )

    # -- extra actions ---------------------------------------------------------------------------

    def shortlist(self, obs: Observation, board: tuple[Placement, ...]) -> list[int]:
        """Returns the tiles that matter most: those holding or touching the factions' best sections."""
        cells = picture_cells(board)
        weight: dict[int, float] = {}
        where = {}
        for p in board:
            for c, _ in tile_cells(p.tile_id, p.x, p.y, p.rotation):
                where[c] = p.tile_id
        in_play = [f for fs in (self.mine(obs), *self.theirs(obs)) for f in fs]
        for f in in_play:
            found = sections(cells, f)
            if not found:
                continue
            for c in found[0].cells:
                for dx, dy in ((0, 0), *NEIGHBOURS):
                    n = (c[0] + dx, c[1] + dy)
                    if n in where:
                        weight[where[n]] = weight.get(where[n], 0) + 1
        ranked = sorted(weight, key=lambda t: (-weight[t], t))
        return ranked[: self.SHORTLIST]

    def best_extra(self, obs: Observation, board: tuple[Placement, ...], legal: Sequence[Action]) -> Action:
        """Returns the extra action (or SkipAction) that raises the board value most."""
        base_value = self.value(obs, board)
        best: Action = SkipAction()
        best_value = base_value + 1e-9
        if obs.icon is Icon.ROTATE:
            for a in legal:
                if isinstance(a, RotateTile):
                    v = self.value(obs, self.after_rotate(board, a.tile_id, a.rotation), board)
                    if v > best_value:
                        best, best_value = a, v
        elif obs.icon is Icon.SWAP:
            short = self.shortlist(obs, board)
            mine = self.mine(obs)
            rich = sorted(
                (p.tile_id for p in board),
                key=lambda t: (-sum(_FRIEND[q] in mine for q in PICTURES[t]), t),
            )[:6]
            pool = sorted(set(short) | set(rich))
            for i, first in enumerate(pool):
                for second in pool[i + 1 :]:
                    for ra in rotations(first):
                        v = self.value(obs, self.swapped(board, first, second, ra=ra), board)
                        if v > best_value:
                            best, best_value = SwapFirst(first), v
                            self.plan = (first, second)
        elif obs.icon is Icon.REPLACE:
            takeable = {a.tile_id for a in legal if isinstance(a, TakeTile)}
            for taken in [t for t in self.shortlist(obs, board) if t in takeable][:8]:
                for tile in obs.hand:
                    for r in rotations(tile.id):
                        put = PutTile(tile.id, r)
                        v = self.value(obs, self.after_put_taken(board, taken, put), board)
                        if v > best_value:
                            best, best_value = TakeTile(taken), v
        return best

    @staticmethod
    def after_put_taken(board: Board, taken: int, put: PutTile) -> Board:
        return tuple(
            Placement(p.y, p.x, put.tile_id, put.rotation) if p.tile_id == taken else p for p in board
        )
