"""Pirates, Ninjas, Robots & Zombies: grow the best-scoring connected section of your characters.

Rules as implemented: docs/rules/pnrz.md. In short: each player picks one faction (two with 2 players)
and takes its base tile. Square tiles, each showing four pictures (one per quadrant), are laid edge to
edge on an unbounded grid. A turn plays one tile from the hand next to the play area and draws one, or
moves one of one's own bases. Tiles with a centre icon grant one extra action: Rotate a tile, Swap two
tiles, or Replace a tile with one from the hand. Once the last tile is drawn everyone has one last turn;
then each faction scores its best section (characters 1, bonus items 3, base 5; a character or bonus
item beside its faction's arch-enemy scores nothing).

Geometry (Design Detail): tile positions are integer ``(x, y)`` with y growing downwards. A tile's
quadrants are numbered clockwise from the top left (0 NW, 1 NE, 2 SE, 3 SW); rotating a tile by
``r`` quarter turns clockwise shows its printed quadrant ``i`` at position ``(i + r) % 4``. Pictures
live on a grid twice as fine: quadrant ``(dx, dy)`` of the tile at ``(x, y)`` is the picture cell
``(2x + dx, 2y + dy)``, so pictures on neighbouring tiles touch exactly when their cells do.

=====================  =========================================================
players                2 to 4 (with 2, each player owns two factions)
decisions              simultaneous (faction choice), then sequential turns; an extra action is a
                       follow-up decision of the same player (Swap takes two: the pair, then the
                       orientations)
chance                 seeded clash draws when players choose the same faction; one seeded shuffle
information            imperfect: hands and the draw pile are hidden (only their sizes are public)
length                 58 tile plays at most, plus one last turn each; capped at 300 turns
tiles                  54 game tiles (our list: tiles.txt beside this module) + 4 base tiles
=====================  =========================================================

Why it is long: the engine keeps every rule of a turn (plays, the three extra actions, base moves,
the last round) beside the geometry they share, so one rule reads top to bottom against
docs/rules/pnrz.md (the tiles and geometry are ``board``, the kept sections ``scoring``).
"""

from __future__ import annotations

import dataclasses
import itertools
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from arena.games.base import Game, GameSpec, IllegalActionError, Termination, evolve
from arena.games.pnrz.board import (
    _FRIEND,
    _POINTS,
    BASE_OF,
    BASE_TILES,
    GAME_TILES,
    LETTER,
    PICTURES,
    TILES,
    Board,
    Faction,
    Icon,
    Phase,
    Placement,
    Tile,
    picture_cells,
    rotations,
    sections,
)
from arena.games.pnrz.scoring import Layout, key, xy
from arena.games.pnrz.scoring import faction_scores as faction_scores  # the bots' and pages' count
from arena.games.rng import derive

# the public names, with those of board and scoring that the bots and tests import from here
__all__ = [
    "BASE_OF",
    "BASE_TILES",
    "GAME",
    "GAME_TILES",
    "HAND_SIZE",
    "LETTER",
    "MAX_CHOICE_ROUNDS",
    "MAX_TURNS",
    "PICTURES",
    "TILES",
    "Action",
    "ActionSkipped",
    "BaseMoved",
    "Board",
    "Cell",
    "ChooseFaction",
    "Event",
    "Faction",
    "FactionScore",
    "FactionsChosen",
    "Icon",
    "MoveBase",
    "Observation",
    "OrientSwapped",
    "PassTurn",
    "Phase",
    "Pick",
    "PlaceTile",
    "PlacedTile",
    "Placement",
    "Player",
    "Pnrz",
    "PnrzState",
    "PublicView",
    "PutTile",
    "RotateTile",
    "ScoredRegion",
    "SelectTile",
    "SkipAction",
    "SwapFirst",
    "SwapWith",
    "TakeTile",
    "Tile",
    "TileDrawn",
    "TilePlaced",
    "TileReplaced",
    "TileRotated",
    "TilesDealt",
    "TilesOriented",
    "TilesSwapped",
    "TurnPassed",
    "faction_scores",
    "picture_cells",
    "rotations",
    "scored_regions",
    "sections",
]

_T = TypeVar("_T")

HAND_SIZE = 3  # game tiles dealt to each player
MAX_TURNS = 300  # guard: a game where players only move bases ends (and is scored) here
MAX_CHOICE_ROUNDS = 4  # every choice round grants at least one of the 4 factions
# Observation ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class PlacedTile:
    """A tile in play as seen: its id, position, rotation and the pictures it shows after rotation.

    Design Detail: ``shown`` spells the four pictures as one-letter codes (``LETTER``) rather than a
    repeated enum, which keeps a full board cheap to encode in every observation.
    """

    tile_id: int
    x: int
    y: int
    rotation: int
    shown: str  # NW, NE, SE, SW after rotation, one LETTER each, e.g. "PK*F"


@dataclasses.dataclass(frozen=True)
class Player:
    seat: int
    factions: tuple[Faction, ...]
    hand_size: int
    score: int


@dataclasses.dataclass(frozen=True)
class FactionScore:
    faction: Faction
    score: int


@dataclasses.dataclass(frozen=True)
class Observation:
    seat: int
    phase: Phase
    current: int | None
    turn: int
    factions: tuple[Faction, ...]
    hand: tuple[Tile, ...]
    board: tuple[PlacedTile, ...]
    players: tuple[Player, ...]
    pile_size: int
    available: tuple[Faction, ...]
    icon: Icon
    pending: tuple[int, ...]
    final_turns_left: int | None
    faction_scores: tuple[FactionScore, ...]


@dataclasses.dataclass(frozen=True)
class Cell:
    """A picture cell: quadrant ``(x % 2, y % 2)`` of the tile at ``(x // 2, y // 2)``."""

    x: int
    y: int


@dataclasses.dataclass(frozen=True)
class ScoredRegion:
    """A faction's best section, the one that scores: its picture cells (sorted) and its points."""

    faction: Faction
    score: int
    cells: tuple[Cell, ...]


@dataclasses.dataclass(frozen=True)
class PublicView:
    """What a spectator sees: an observation without a seat, its hand and its own factions (every
    seat's factions show in ``players``), plus each faction's scored region, which anyone at the table
    sees at a glance but the observations leave to the players to work out. ``pending`` is what the
    seats not to move see: empty while the player to move has picked a tile from its hand to place."""

    phase: Phase
    current: int | None
    turn: int
    board: tuple[PlacedTile, ...]
    players: tuple[Player, ...]
    pile_size: int
    available: tuple[Faction, ...]
    icon: Icon
    pending: tuple[int, ...]
    final_turns_left: int | None
    faction_scores: tuple[FactionScore, ...]
    regions: tuple[ScoredRegion, ...]  # the in-game factions whose best section scores, in Faction order


# Actions ----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, order=True)
class ChooseFaction:
    faction: Faction


@dataclasses.dataclass(frozen=True, order=True)
class SelectTile:
    tile_id: int  # a tile from the hand, to be placed by the PlaceTile that follows


@dataclasses.dataclass(frozen=True, order=True)
class PlaceTile:
    x: int
    y: int
    rotation: int


@dataclasses.dataclass(frozen=True, order=True)
class MoveBase:
    tile_id: int  # one of the seat's bases in play, put at a new position by the PlaceTile that follows


@dataclasses.dataclass(frozen=True, order=True)
class PassTurn:
    pass


@dataclasses.dataclass(frozen=True, order=True)
class RotateTile:
    tile_id: int
    rotation: int  # the new rotation, different from the current one


@dataclasses.dataclass(frozen=True, order=True)
class SwapFirst:
    tile_id: int  # the first tile of the swap


@dataclasses.dataclass(frozen=True, order=True)
class SwapWith:
    tile_id: int  # the second tile of the swap


@dataclasses.dataclass(frozen=True, order=True)
class OrientSwapped:
    first_rotation: int
    second_rotation: int


@dataclasses.dataclass(frozen=True, order=True)
class TakeTile:
    tile_id: int  # the tile in play that goes into the hand


@dataclasses.dataclass(frozen=True, order=True)
class PutTile:
    tile_id: int  # the tile from the hand put where the taken tile was
    rotation: int


@dataclasses.dataclass(frozen=True, order=True)
class SkipAction:
    pass


Action = (
    ChooseFaction
    | SelectTile
    | PlaceTile
    | MoveBase
    | PassTurn
    | RotateTile
    | SwapFirst
    | SwapWith
    | OrientSwapped
    | TakeTile
    | PutTile
    | SkipAction
)


# Design detail: ``legal_actions`` lists up to ~250 actions a step, and building a frozen dataclass
# costs about a microsecond, ten times a lookup: the actions are made once, at import, in tables that
# never change (placements at positions beyond ``_REACH`` are made when listed).
_CHOOSE = {f: ChooseFaction(f) for f in Faction}
_SELECT = {t: SelectTile(t) for t in TILES}
_MOVE_BASE = {t.id: MoveBase(t.id) for t in BASE_TILES.values()}
_PASS = PassTurn()
_SKIP = SkipAction()
_ROTATE = {  # (tile, its rotation now) -> the Rotate actions to the three others
    (t, r): tuple(RotateTile(t, q) for q in range(4) if q != r) for t in TILES for r in range(4)
}
_SWAP_FIRST = {t: SwapFirst(t) for t in TILES}
_SWAP_WITH = {t: SwapWith(t) for t in TILES}
_ORIENT = {  # (rotations of the first tile, of the second) -> the orientations
    (a, b): tuple(OrientSwapped(x, y) for x in range(a) for y in range(b)) for a in (1, 4) for b in (1, 4)
}
_TAKE = {t: TakeTile(t) for t in TILES}
_PUT = {t: tuple(PutTile(t, r) for r in rotations(t)) for t in TILES}
_REACH = 16  # the placements at positions up to this far from the first tile's are made at import


def _placements_at(k: int) -> tuple[PlaceTile, ...]:
    """Returns the placements of a game tile at position key ``k``, in rotations 0..3 (a base's is
    the first: its four quadrants are alike)."""
    x, y = xy(k)
    return tuple(PlaceTile(x, y, r) for r in range(4))


_PLACEMENTS = {
    key(x, y): _placements_at(key(x, y))
    for y in range(-_REACH, _REACH + 1)
    for x in range(-_REACH, _REACH + 1)
}


def _placements(spots: Sequence[int]) -> list[tuple[PlaceTile, ...]]:
    """Returns the placements at each position key of ``spots``."""
    try:
        return list(map(_PLACEMENTS.__getitem__, spots))
    except KeyError:  # a board that drifted far by base moves
        return [_PLACEMENTS.get(k) or _placements_at(k) for k in spots]


# Events -----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Pick:
    seat: int
    faction: Faction


@dataclasses.dataclass(frozen=True)
class FactionsChosen:
    round: int
    picks: tuple[Pick, ...]
    granted: tuple[Pick, ...]


@dataclasses.dataclass(frozen=True)
class TilesDealt:
    pile_size: int
    unused: tuple[Faction, ...]


@dataclasses.dataclass(frozen=True)
class TilePlaced:
    seat: int
    tile: Tile
    x: int
    y: int
    rotation: int


@dataclasses.dataclass(frozen=True)
class TileDrawn:
    seat: int
    pile_size: int


@dataclasses.dataclass(frozen=True)
class BaseMoved:
    seat: int
    tile_id: int
    from_x: int
    from_y: int
    x: int
    y: int


@dataclasses.dataclass(frozen=True)
class TileRotated:
    seat: int
    tile_id: int
    rotation: int


@dataclasses.dataclass(frozen=True)
class TilesSwapped:
    seat: int
    first_id: int
    second_id: int


@dataclasses.dataclass(frozen=True)
class TilesOriented:
    seat: int
    first_rotation: int
    second_rotation: int


@dataclasses.dataclass(frozen=True)
class TileReplaced:
    seat: int
    taken_id: int
    tile: Tile
    rotation: int


@dataclasses.dataclass(frozen=True)
class ActionSkipped:
    seat: int


@dataclasses.dataclass(frozen=True)
class TurnPassed:
    seat: int


Event = (
    FactionsChosen
    | TilesDealt
    | TilePlaced
    | TileDrawn
    | BaseMoved
    | TileRotated
    | TilesSwapped
    | TilesOriented
    | TileReplaced
    | ActionSkipped
    | TurnPassed
)


@dataclasses.dataclass(frozen=True)
class PnrzState:
    """The whole table. Hands, pile and board hold tile ids (``TILES`` maps them to tiles)."""

    seed: int
    num_players: int
    phase: Phase = Phase.CHOOSE
    factions: tuple[tuple[Faction, ...], ...] = ()
    choice_round: int = 1
    hands: tuple[tuple[int, ...], ...] = ()
    pile: tuple[int, ...] = ()  # top first
    board: Board = ()
    out: tuple[int, ...] = ()  # the base left out of a 3-player game
    current: int = 0
    icon: Icon = Icon.NONE  # the extra action on offer in the ACTION phase
    pending: tuple[int, ...] = ()  # the tile ids of the decision in progress (see Observation.pending)
    final_turns: int | None = None  # turns left once the pile is empty
    turn: int = 0  # turns completed
    last_events: tuple[Event, ...] = ()
    # What follows from the board (derived: not compared). The engine makes the next board's from
    # this one's (``_with_board``: ``evolve`` skips ``__post_init__``, so a board is never evolved
    # alone); a state made any other way (tests, ``dataclasses.replace``) has them made from its
    # board in ``__post_init__``.
    layout: Layout = dataclasses.field(default=None, compare=False, repr=False)  # type: ignore[assignment]
    shown: tuple[PlacedTile, ...] = dataclasses.field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.layout is None or self.layout.board is not self.board:
            object.__setattr__(self, "layout", Layout.build(self.board))
            object.__setattr__(self, "shown", tuple(map(_seen, self.board)))

    def needs(self, seat: int) -> int:
        """Returns how many more factions ``seat`` must choose."""
        return (2 if self.num_players == 2 else 1) - len(self.factions[seat])

    def available(self) -> tuple[Faction, ...]:
        """Returns the factions nobody has chosen."""
        return _available(self.factions)

    def placement(self, tile_id: int) -> Placement:
        """Returns where tile ``tile_id`` is in play; raises IllegalActionError if it is not."""
        p = self.layout.where.get(tile_id)
        if p is None:
            raise IllegalActionError(f"tile {tile_id} is not in play")
        return p


_SHOWN = {  # (tile, rotation) -> its pictures after rotation, NW, NE, SE, SW
    (t.id, r): "".join(t.pictures[(q - r) % 4] for q in range(4)) for t in TILES.values() for r in range(4)
}


def _seen(p: Placement) -> PlacedTile:
    """Returns a placement as observations show it."""
    return PlacedTile(p.tile_id, p.x, p.y, p.rotation, _SHOWN[p.tile_id, p.rotation])


def _with_board(
    state: PnrzState, removed: Sequence[Placement], added: Sequence[Placement], **changes: Any
) -> PnrzState:
    """Returns ``state`` with the ``removed`` placements taken off the board and the ``added`` ones
    put on, its layout and shown board made from the old ones, and ``changes``."""
    board, shown = list(state.board), list(state.shown)
    for p in removed:
        i = bisect_left(board, p)
        del board[i], shown[i]
    for p in added:
        i = bisect_left(board, p)
        board.insert(i, p)
        shown.insert(i, _seen(p))
    after = tuple(board)
    layout = state.layout.changed(removed, added, after)
    return evolve(state, board=after, layout=layout, shown=tuple(shown), **changes)


_AVAILABLE = tuple(  # by the bits of the factions taken -> the factions left
    tuple(f for f in Faction if not taken >> f & 1) for taken in range(1 << (len(Faction) + 1))
)


def _available(factions: tuple[tuple[Faction, ...], ...]) -> tuple[Faction, ...]:
    taken = 0
    for fs in factions:
        for f in fs:
            taken |= 1 << f
    return _AVAILABLE[taken]


_MOST = max(  # the most a faction can score: all its pictures counted, its base once
    sum(_POINTS[p] for pictures in PICTURES.values() for p in pictures if _FRIEND[p] is f) for f in Faction
)
_FACTION_SCORES = {f: tuple(FactionScore(f, v) for v in range(_MOST + 1)) for f in Faction}


def _score_rows(
    layout: Layout, factions: tuple[tuple[Faction, ...], ...]
) -> tuple[tuple[int, ...], tuple[FactionScore, ...]]:
    """Returns each seat's score and the in-game factions' scores."""
    best = layout.best
    seats = tuple([sum([best[f] for f in fs]) for fs in factions])
    in_game = sorted(itertools.chain.from_iterable(factions))
    return seats, tuple([_FACTION_SCORES[f][best[f]] for f in in_game])


def scored_regions(board: Board, factions: tuple[tuple[Faction, ...], ...]) -> tuple[ScoredRegion, ...]:
    """Returns each in-game faction's best section where it scores (more than 0), in Faction order.

    Design detail: a flood fill of the whole board (``board.sections``), not the layout the
    state keeps for scores: only spectators ask for it, once per step shown.
    """
    cells = picture_cells(board)
    regions = []
    for faction in sorted({f for fs in factions for f in fs}):
        best = next(iter(sections(cells, faction)), None)
        if best is not None and best.score > 0:
            shown = tuple(Cell(x, y) for x, y in sorted(best.cells))
            regions.append(ScoredRegion(faction, best.score, shown))
    return tuple(regions)


def _replace_at(items: tuple[_T, ...], index: int, value: _T) -> tuple[_T, ...]:
    return (*items[:index], value, *items[index + 1 :])


class Pnrz(Game[PnrzState, Action]):
    spec = GameSpec(
        name="pnrz",
        wire_name="pnrz",
        title="Pirates, Ninjas, Robots & Zombies",
        min_players=2,
        max_players=4,
        simultaneous=True,
        chance=True,
        perfect_information=False,
        max_steps=MAX_CHOICE_ROUNDS + 3 * MAX_TURNS,
        description="Lay four-picture tiles on an open grid; score your faction's best connected section.",
        aliases=("pirates-ninjas-robots-zombies",),
        rules=2,  # 2: a seat's movable bases are listed by tile id (they were in board order)
    )
    observation_type = Observation
    public_view_type = PublicView
    action_type = Action
    event_type = Event

    def initial_state(self, num_players: int, seed: int) -> PnrzState:
        """Returns the table before anyone has chosen a faction (no tile dealt yet)."""
        self.check_players(num_players)
        return PnrzState(
            seed=seed, num_players=num_players, factions=((),) * num_players, hands=((),) * num_players
        )

    # -- who acts, and how --------------------------------------------------------------------

    def to_move(self, state: PnrzState) -> tuple[int, ...]:
        if state.phase is Phase.OVER:
            return ()
        if state.phase is Phase.CHOOSE:
            return tuple(s for s in range(state.num_players) if state.needs(s) > 0)
        return (state.current,)

    def legal_actions(self, state: PnrzState, seat: int) -> tuple[Action, ...]:
        if seat not in self.to_move(state):
            return ()
        phase = state.phase
        if phase is Phase.CHOOSE:
            return tuple(map(_CHOOSE.__getitem__, state.available()))
        if phase is Phase.PLAY:
            hand = state.hands[seat]
            pass_turn = () if hand else (_PASS,)
            movable = map(_MOVE_BASE.__getitem__, self.movable_bases(state, seat))
            return (*map(_SELECT.__getitem__, hand), *movable, *pass_turn)
        if phase is Phase.MOVE:
            old = state.placement(state.pending[0])
            return tuple(p[0] for p in _placements(self._base_spots(state.layout, key(old.x, old.y))))
        if phase is Phase.PLACE:
            per_spot = _placements(state.layout.frontier if state.board else (key(0, 0),))
            if len(rotations(state.pending[0])) == 1:
                return tuple(p[0] for p in per_spot)  # a base: its four quadrants are alike
            return tuple(itertools.chain.from_iterable(per_spot))
        if phase is Phase.ACTION:
            return (*self._extra_actions(state, seat), _SKIP)
        if phase is Phase.SWAP:
            first = state.pending[0]
            return tuple(_SWAP_WITH[t] for t in sorted(state.layout.where) if t != first)
        if phase is Phase.ORIENT:
            first, second = state.pending
            return _ORIENT[len(rotations(first)), len(rotations(second))]
        assert phase is Phase.REPLACE
        return tuple(itertools.chain.from_iterable(map(_PUT.__getitem__, state.hands[seat])))

    def action_order(self, action: Action) -> tuple[Any, ...]:
        """Lists positions as the board is drawn, row by row (y, then x), then rotation."""
        kind, fields = super().action_order(action)
        if isinstance(action, PlaceTile):
            return (kind, (action.y, action.x, action.rotation))
        return (kind, fields)

    def movable_bases(self, state: PnrzState, seat: int) -> list[int]:
        """Returns the seat's bases in play that may move: the area stays connected without them.

        (A base that may move always has somewhere to go: the frontier of the rest has at least four
        positions, and only one of them is where the base was.)
        """
        layout = state.layout
        movable = []
        for f in sorted(state.factions[seat]):  # base tile ids ascend with the factions
            p = layout.where.get(BASE_TILES[f].id)
            if p is not None and layout.stays_joined(key(p.x, p.y)):
                movable.append(p.tile_id)
        return movable

    def base_spots(self, state: PnrzState, tile_id: int) -> list[tuple[int, int]]:
        """Returns the new positions a base in play may move to (none if the area would split)."""
        old = state.placement(tile_id)
        return list(map(xy, self._base_spots(state.layout, key(old.x, old.y))))

    @staticmethod
    def _base_spots(layout: Layout, k: int) -> list[int]:
        return layout.spots_without(k) if layout.stays_joined(k) else []

    @staticmethod
    def _offers(state: PnrzState, seat: int) -> bool:
        """Returns whether the extra action on offer has a first decision (``_extra_actions``)."""
        where = state.layout.where
        if state.icon is Icon.ROTATE:
            return any(BASE_OF[t] is None for t in where)
        if state.icon is Icon.SWAP:
            return len(where) >= 2
        if state.icon is Icon.REPLACE:
            mine = state.factions[seat]
            return bool(state.hands[seat]) and any(BASE_OF[t] is None or BASE_OF[t] in mine for t in where)
        return False

    def _extra_actions(self, state: PnrzState, seat: int) -> list[Action]:
        """Returns the first decisions of the extra action on offer (without SkipAction)."""
        where = state.layout.where
        ids = sorted(where)
        if state.icon is Icon.ROTATE:
            return [
                *itertools.chain.from_iterable(
                    _ROTATE[t, where[t].rotation] for t in ids if BASE_OF[t] is None
                )
            ]
        if state.icon is Icon.SWAP:
            return [_SWAP_FIRST[t] for t in ids] if len(ids) >= 2 else []
        if state.icon is Icon.REPLACE:
            if not state.hands[seat]:
                return []
            mine = set(state.factions[seat])
            return [_TAKE[t] for t in ids if BASE_OF[t] is None or BASE_OF[t] in mine]
        return []

    # -- applying -----------------------------------------------------------------------------

    def apply_legal(self, state: PnrzState, actions: Mapping[int, Action]) -> PnrzState:
        return self._next(state, actions)  # every branch sets last_events: the step's events

    def _next(self, state: PnrzState, actions: Mapping[int, Action]) -> PnrzState:
        if state.phase is Phase.CHOOSE:
            return self._choose(state, actions)
        ((seat, action),) = actions.items()
        if seat != state.current:
            raise IllegalActionError(f"seat {state.current} is to move, not seat {seat}")
        if isinstance(action, SelectTile):
            if action.tile_id not in state.hands[seat]:
                raise IllegalActionError(f"tile {action.tile_id} is not in seat {seat}'s hand")
            return evolve(state, phase=Phase.PLACE, pending=(action.tile_id,), last_events=())
        if isinstance(action, MoveBase):
            state.placement(action.tile_id)
            return evolve(state, phase=Phase.MOVE, pending=(action.tile_id,), last_events=())
        if isinstance(action, PlaceTile) and state.phase is Phase.MOVE:
            old = state.placement(state.pending[0])
            new = Placement(action.y, action.x, old.tile_id, 0)
            event: Event = BaseMoved(seat, old.tile_id, old.x, old.y, action.x, action.y)
            return self._end_turn(_with_board(state, (old,), (new,), last_events=(event,)), drew=False)
        if isinstance(action, PlaceTile):
            return self._place(state, seat, action)
        if isinstance(action, PassTurn):
            return self._end_turn(evolve(state, last_events=(TurnPassed(seat),)), drew=False)
        if isinstance(action, RotateTile):
            old = state.placement(action.tile_id)
            new = old._replace(rotation=action.rotation)
            event = TileRotated(seat, action.tile_id, action.rotation)
            return self._end_turn(_with_board(state, (old,), (new,), last_events=(event,)), drew=True)
        if isinstance(action, SwapFirst):
            state.placement(action.tile_id)
            return evolve(state, phase=Phase.SWAP, pending=(action.tile_id,), last_events=())
        if isinstance(action, SwapWith):
            return self._swap(state, seat, state.pending[0], action.tile_id)
        if isinstance(action, OrientSwapped):
            olds = tuple(map(state.placement, state.pending))
            rotation = (action.first_rotation, action.second_rotation)
            news = tuple(p._replace(rotation=r) for p, r in zip(olds, rotation, strict=True))
            event = TilesOriented(seat, action.first_rotation, action.second_rotation)
            return self._end_turn(_with_board(state, olds, news, last_events=(event,)), drew=True)
        if isinstance(action, TakeTile):
            state.placement(action.tile_id)
            return evolve(state, phase=Phase.REPLACE, pending=(action.tile_id,), last_events=())
        if isinstance(action, PutTile):
            return self._replace(state, seat, action)
        if isinstance(action, SkipAction):
            return self._end_turn(evolve(state, last_events=(ActionSkipped(seat),)), drew=True)
        raise IllegalActionError(f"{action!r} is not a pnrz action")

    def _choose(self, state: PnrzState, actions: Mapping[int, Action]) -> PnrzState:
        """Grants the faction choices of one round; a clash is settled by a seeded draw."""
        by_faction: dict[Faction, list[int]] = {}
        picks = []
        for seat in sorted(actions):
            action = actions[seat]
            if not isinstance(action, ChooseFaction):
                raise IllegalActionError(f"seat {seat} must choose a faction, not {action!r}")
            by_faction.setdefault(action.faction, []).append(seat)
            picks.append(Pick(seat, action.faction))
        factions = list(state.factions)
        granted = []
        for faction in sorted(by_faction):
            seats = by_faction[faction]
            draw = derive(state.seed, "clash", state.choice_round, int(faction))
            winner = seats[0] if len(seats) == 1 else draw.choice(seats)
            factions[winner] = (*factions[winner], faction)
            granted.append(Pick(winner, faction))
        state = evolve(state, factions=tuple(factions))
        # A seat left alone needing exactly as many factions as are left gets them without choosing.
        needing = [s for s in range(state.num_players) if state.needs(s) > 0]
        if len(needing) == 1 and state.needs(needing[0]) == len(state.available()):
            seat, rest = needing[0], state.available()
            granted.extend(Pick(seat, f) for f in rest)
            factions[seat] = (*factions[seat], *rest)
            state = evolve(state, factions=tuple(factions))
        event = FactionsChosen(state.choice_round, tuple(picks), tuple(granted))
        state = evolve(state, choice_round=state.choice_round + 1, last_events=(event,))
        if any(state.needs(s) > 0 for s in range(state.num_players)):
            return state
        return self._deal(state)

    def _deal(self, state: PnrzState) -> PnrzState:
        """Shuffles the game tiles, deals 3 to each seat and adds each seat's base tile(s) to its hand."""
        deck = [t.id for t in GAME_TILES]
        derive(state.seed, "shuffle").shuffle(deck)
        hands = tuple(
            tuple(sorted((*deck[s * HAND_SIZE : (s + 1) * HAND_SIZE], *(BASE_TILES[f].id for f in fs))))
            for s, fs in enumerate(state.factions)
        )
        unused = state.available()
        pile = tuple(deck[state.num_players * HAND_SIZE :])
        event = TilesDealt(len(pile), unused)
        return evolve(
            state,
            phase=Phase.PLAY,
            hands=hands,
            pile=pile,
            out=tuple(BASE_TILES[f].id for f in unused),
            current=0,
            last_events=(*state.last_events, event),
        )

    def _place(self, state: PnrzState, seat: int, action: PlaceTile) -> PnrzState:
        tile = TILES[state.pending[0]]
        hand = tuple(t for t in state.hands[seat] if t != tile.id)
        new = Placement(action.y, action.x, tile.id, action.rotation)
        event = TilePlaced(seat, tile, action.x, action.y, action.rotation)
        state = _with_board(
            state, (), (new,), hands=_replace_at(state.hands, seat, hand), pending=(), last_events=(event,)
        )
        if tile.icon is not Icon.NONE:
            offered = evolve(state, phase=Phase.ACTION, icon=tile.icon)
            if self._offers(offered, seat):
                return offered
        return self._end_turn(state, drew=True)

    def _swap(self, state: PnrzState, seat: int, first: int, second: int) -> PnrzState:
        a, b = state.placement(first), state.placement(second)
        moved = (a._replace(x=b.x, y=b.y), b._replace(x=a.x, y=a.y))
        event = TilesSwapped(seat, first, second)
        state = _with_board(state, (a, b), moved, last_events=(event,))
        if len(rotations(first)) * len(rotations(second)) == 1:
            return self._end_turn(state, drew=True)
        return evolve(state, phase=Phase.ORIENT, pending=(first, second))

    def _replace(self, state: PnrzState, seat: int, action: PutTile) -> PnrzState:
        old = state.placement(state.pending[0])
        if action.tile_id not in state.hands[seat]:
            raise IllegalActionError(f"tile {action.tile_id} is not in seat {seat}'s hand")
        new = Placement(old.y, old.x, action.tile_id, action.rotation)
        hand = tuple(sorted((*(t for t in state.hands[seat] if t != action.tile_id), old.tile_id)))
        event = TileReplaced(seat, old.tile_id, TILES[action.tile_id], action.rotation)
        hands = _replace_at(state.hands, seat, hand)
        state = _with_board(state, (old,), (new,), hands=hands, last_events=(event,))
        return self._end_turn(state, drew=True)

    def _end_turn(self, state: PnrzState, drew: bool) -> PnrzState:
        """Draws a tile after a tile play (if any are left), counts down the last turns, passes on."""
        seat = state.current
        hands, pile, events = state.hands, state.pile, state.last_events
        final = state.final_turns
        if final is not None:
            final -= 1
        elif drew and pile:
            hands = _replace_at(hands, seat, tuple(sorted((*hands[seat], pile[0]))))
            pile = pile[1:]
            events = (*events, TileDrawn(seat, len(pile)))
            if not pile:
                final = state.num_players  # everyone, starting with the next seat, has one last turn
        turn = state.turn + 1
        over = final == 0 or turn >= MAX_TURNS
        return evolve(
            state,
            phase=Phase.OVER if over else Phase.PLAY,
            hands=hands,
            pile=pile,
            current=(seat + 1) % state.num_players,
            icon=Icon.NONE,
            pending=(),
            final_turns=final,
            turn=turn,
            last_events=events,
        )

    # -- outcome and views ----------------------------------------------------------------------

    def is_terminal(self, state: PnrzState) -> bool:
        return state.phase is Phase.OVER

    def termination(self, state: PnrzState) -> Termination:
        over_by_cap = state.phase is Phase.OVER and state.final_turns != 0
        return Termination.TURN_CAP if over_by_cap else Termination.NORMAL

    def faction_scores(self, state: PnrzState) -> dict[Faction, int]:
        """Returns each faction's best-section score on the current board."""
        return state.layout.scores

    def scores(self, state: PnrzState) -> tuple[int, ...]:
        best = state.layout.best
        return tuple(sum(best[f] for f in fs) for fs in state.factions)

    def observe(self, state: PnrzState, seat: int) -> Observation:
        # Design detail: filled like ``evolve`` fills a state (the frozen __init__ sets its fifteen
        # fields one by one: a sixth of the observation's cost); the same fields, all of them.
        observation = object.__new__(Observation)
        observation.__dict__.update(
            self._shared(state),
            seat=seat,
            factions=state.factions[seat],
            hand=tuple(map(TILES.__getitem__, state.hands[seat])),
            pending=state.pending if state.phase is not Phase.PLACE or seat == state.current else (),
        )
        return observation

    def public_view(self, state: PnrzState) -> PublicView:
        return PublicView(
            pending=state.pending if state.phase is not Phase.PLACE else (),
            regions=scored_regions(state.board, state.factions),
            **self._shared(state),
        )

    def _shared(self, state: PnrzState) -> dict[str, Any]:
        """Returns the fields every seat's observation and the public view have alike."""
        seat_scores, rows = _score_rows(state.layout, state.factions)
        seats = zip(range(len(seat_scores)), state.factions, map(len, state.hands), seat_scores, strict=True)
        players = tuple([Player(*row) for row in seats])
        return {
            "phase": state.phase,
            "current": None if state.phase in (Phase.CHOOSE, Phase.OVER) else state.current,
            "turn": state.turn,
            "board": state.shown,
            "players": players,
            "pile_size": len(state.pile),
            "available": state.available(),
            "icon": state.icon,
            "final_turns_left": state.final_turns,
            "faction_scores": rows,
        }

    def events(self, state: PnrzState) -> tuple[Event, ...]:
        return state.last_events

    def hidden_from(self, state: PnrzState, seat: int) -> frozenset[Tile]:
        """Returns the tiles in the other hands and in the draw pile."""
        others = (t for s, hand in enumerate(state.hands) if s != seat for t in hand)
        return frozenset(TILES[t] for t in (*others, *state.pile))

    def legend(self) -> str:
        pictures = (
            f"{letter} {picture.name.lower().replace('_', ' ')}" for picture, letter in LETTER.items()
        )
        return "grid: one letter per picture, " + ", ".join(pictures) + ", . empty"

    def render(self, state: PnrzState) -> str:
        """Returns the picture grid (one letter per picture, see LETTER) and the scores."""
        head = f"turn {state.turn} {state.phase.name.lower()}  pile {len(state.pile)}  scores " + " ".join(
            f"seat{s}={v}" for s, v in enumerate(self.scores(state))
        )
        cells = picture_cells(state.board)
        if not cells:
            return head
        xs, ys = [c[0] for c in cells], [c[1] for c in cells]
        rows = [
            "".join(LETTER[cells[(x, y)]] if (x, y) in cells else "." for x in range(min(xs), max(xs) + 1))
            for y in range(min(ys), max(ys) + 1)
        ]
        return "\n".join([head, *rows])


GAME = Pnrz()
