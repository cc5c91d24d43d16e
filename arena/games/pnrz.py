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
tiles                  54 game tiles (our list: arena/games/data/pnrz_tiles.txt) + 4 base tiles
=====================  =========================================================

Why it is long: the engine keeps every rule of a turn (plays, the three extra actions, base moves,
the last round) beside the geometry they share, so one rule reads top to bottom against
docs/rules/pnrz.md; the move to a package per game (``arena/games/pnrz/``) splits it by subject.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Iterable, Mapping
from typing import Any

from arena.games.base import Game, GameSpec, IllegalActionError, Termination, evolve
from arena.games.memo import IdentityMemo
from arena.games.pnrz_board import (
    BASE_OF,
    BASE_TILES,
    GAME_TILES,
    LETTER,
    TILES,
    Board,
    Faction,
    Icon,
    Phase,
    Placement,
    Tile,
    frontier,
    picture_cells,
    positions,
    rotations,
    sections,
    stays_joined,
)
from arena.games.pnrz_scoring import faction_scores
from arena.games.rng import derive

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


@functools.lru_cache(maxsize=1 << 16)
def _action(kind: type, *fields: int) -> Action:
    """Returns the one shared ``kind(*fields)``.

    Design detail: ``legal_actions`` lists up to ~200 actions a step, and building a frozen dataclass
    costs about a microsecond, ten times this lookup.
    """
    return kind(*fields)


@functools.lru_cache(maxsize=1 << 14)
def _game_tile_placements(spot: tuple[int, int]) -> tuple[PlaceTile, ...]:
    """Returns the placements of a game tile at ``spot``, in rotations 0..3."""
    return tuple(_action(PlaceTile, *spot, r) for r in range(4))


@functools.lru_cache(maxsize=1 << 14)
def _base_placements(spot: tuple[int, int]) -> tuple[PlaceTile, ...]:
    """Returns the placement of a base at ``spot`` (one rotation: its four quadrants are alike)."""
    return (_action(PlaceTile, *spot, 0),)


@functools.lru_cache(maxsize=1 << 10)
def _rotations_of(tile_id: int, rotation: int) -> tuple[RotateTile, ...]:
    """Returns the Rotate actions of a tile in play now turned by ``rotation``: the three others."""
    return tuple(_action(RotateTile, tile_id, r) for r in range(4) if r != rotation)


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

    def needs(self, seat: int) -> int:
        """Returns how many more factions ``seat`` must choose."""
        return (2 if self.num_players == 2 else 1) - len(self.factions[seat])

    def available(self) -> tuple[Faction, ...]:
        """Returns the factions nobody has chosen."""
        return _available(self.factions)

    def placement(self, tile_id: int) -> Placement:
        """Returns where tile ``tile_id`` is in play; raises IllegalActionError if it is not."""
        for p in self.board:
            if p.tile_id == tile_id:
                return p
        raise IllegalActionError(f"tile {tile_id} is not in play")


@functools.lru_cache(maxsize=4096)
def _seen(p: Placement) -> PlacedTile:
    printed = TILES[p.tile_id].pictures
    shown = "".join(printed[(q - p.rotation) % 4] for q in range(4))
    return PlacedTile(p.tile_id, p.x, p.y, p.rotation, shown)


@IdentityMemo
def _shown(board: Board) -> tuple[PlacedTile, ...]:
    """Returns the board as observations show it (the same for every seat and every step it lasts)."""
    return tuple(map(_seen, board))


@IdentityMemo
def _available(factions: tuple[tuple[Faction, ...], ...]) -> tuple[Faction, ...]:
    taken = {f for fs in factions for f in fs}
    return tuple(f for f in Faction if f not in taken)


@IdentityMemo
def _score_rows(
    board: Board, factions: tuple[tuple[Faction, ...], ...]
) -> tuple[tuple[int, ...], tuple[FactionScore, ...]]:
    """Returns each seat's score and the in-game factions' scores (once per board and factions)."""
    by_faction = faction_scores(board)
    seats = tuple(sum(by_faction[f] for f in fs) for fs in factions)
    in_game = sorted(f for fs in factions for f in fs)
    return seats, tuple(FactionScore(f, by_faction[f]) for f in in_game)


def scored_regions(board: Board, factions: tuple[tuple[Faction, ...], ...]) -> tuple[ScoredRegion, ...]:
    """Returns each in-game faction's best section where it scores (more than 0), in Faction order.

    Design detail: a flood fill of the whole board (``pnrz_board.sections``), not the incremental
    count the engine keeps for scores: only spectators ask for it, once per step shown.
    """
    cells = picture_cells(board)
    regions = []
    for faction in sorted({f for fs in factions for f in fs}):
        best = next(iter(sections(cells, faction)), None)
        if best is not None and best.score > 0:
            shown = tuple(Cell(x, y) for x, y in sorted(best.cells))
            regions.append(ScoredRegion(faction, best.score, shown))
    return tuple(regions)


def _replace_at(items: tuple, index: int, value: object) -> tuple:
    return (*items[:index], value, *items[index + 1 :])


def _sorted_board(placements: Iterable[Placement]) -> Board:
    return tuple(sorted(placements))


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
            return tuple(_action(ChooseFaction, f) for f in state.available())
        if phase is Phase.PLAY:
            hand = state.hands[seat]
            pass_turn = () if hand else (PassTurn(),)
            movable = (_action(MoveBase, t) for t in self.movable_bases(state, seat))
            return (*(_action(SelectTile, t) for t in hand), *movable, *pass_turn)
        if phase is Phase.MOVE:
            return tuple(_action(PlaceTile, x, y, 0) for x, y in self.base_spots(state, state.pending[0]))
        if phase is Phase.PLACE:
            spots = frontier(positions(state.board)) if state.board else [(0, 0)]
            per_spot = _game_tile_placements if len(rotations(state.pending[0])) == 4 else _base_placements
            return tuple(itertools.chain.from_iterable(map(per_spot, spots)))
        if phase is Phase.ACTION:
            return (*self._extra_actions(state, seat), SkipAction())
        if phase is Phase.SWAP:
            return tuple(
                _action(SwapWith, t) for t in sorted(p.tile_id for p in state.board) if t != state.pending[0]
            )
        if phase is Phase.ORIENT:
            first, second = state.pending
            return tuple(_action(OrientSwapped, a, b) for a in rotations(first) for b in rotations(second))
        assert phase is Phase.REPLACE
        return tuple(_action(PutTile, t, r) for t in state.hands[seat] for r in rotations(t))

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
        mine = state.factions[seat]
        taken = positions(state.board)
        return sorted(
            p.tile_id for p in state.board if BASE_OF[p.tile_id] in mine and stays_joined(taken, p.x, p.y)
        )

    def base_spots(self, state: PnrzState, tile_id: int) -> list[tuple[int, int]]:
        """Returns the new positions a base in play may move to (none if the area would split)."""
        old = state.placement(tile_id)
        taken = positions(state.board)
        if not stays_joined(taken, old.x, old.y):
            return []
        return [spot for spot in frontier(taken - {(old.x, old.y)}) if spot != (old.x, old.y)]

    def _extra_actions(self, state: PnrzState, seat: int) -> list[Action]:
        """Returns the first decisions of the extra action on offer (without SkipAction)."""
        ids = sorted(p.tile_id for p in state.board)
        if state.icon is Icon.ROTATE:
            rotation = {p.tile_id: p.rotation for p in state.board}
            return [
                *itertools.chain.from_iterable(
                    _rotations_of(t, rotation[t]) for t in ids if BASE_OF[t] is None
                )
            ]
        if state.icon is Icon.SWAP:
            return [_action(SwapFirst, t) for t in ids] if len(ids) >= 2 else []
        if state.icon is Icon.REPLACE:
            if not state.hands[seat]:
                return []
            mine = set(state.factions[seat])
            return [_action(TakeTile, t) for t in ids if BASE_OF[t] is None or BASE_OF[t] in mine]
        return []

    # -- applying -----------------------------------------------------------------------------

    def apply_legal(self, state: PnrzState, actions: Mapping[int, Action]) -> PnrzState:
        after = self._next(evolve(state, last_events=()), actions)
        if after.board is not state.board:
            faction_scores.changed(state.board, after.board)  # its scores derive from the old board's
        return after

    def _next(self, state: PnrzState, actions: Mapping[int, Action]) -> PnrzState:
        if state.phase is Phase.CHOOSE:
            return self._choose(state, actions)
        ((seat, action),) = actions.items()
        if seat != state.current:
            raise IllegalActionError(f"seat {state.current} is to move, not seat {seat}")
        if isinstance(action, SelectTile):
            if action.tile_id not in state.hands[seat]:
                raise IllegalActionError(f"tile {action.tile_id} is not in seat {seat}'s hand")
            return evolve(state, phase=Phase.PLACE, pending=(action.tile_id,))
        if isinstance(action, MoveBase):
            state.placement(action.tile_id)
            return evolve(state, phase=Phase.MOVE, pending=(action.tile_id,))
        if isinstance(action, PlaceTile) and state.phase is Phase.MOVE:
            old = state.placement(state.pending[0])
            board = _sorted_board(
                (*(p for p in state.board if p is not old), Placement(action.y, action.x, old.tile_id, 0))
            )
            event = BaseMoved(seat, old.tile_id, old.x, old.y, action.x, action.y)
            return self._end_turn(evolve(state, board=board, last_events=(event,)), drew=False)
        if isinstance(action, PlaceTile):
            return self._place(state, seat, action)
        if isinstance(action, PassTurn):
            return self._end_turn(evolve(state, last_events=(TurnPassed(seat),)), drew=False)
        if isinstance(action, RotateTile):
            old = state.placement(action.tile_id)
            board = _sorted_board(
                p._replace(rotation=action.rotation) if p is old else p for p in state.board
            )
            event = TileRotated(seat, action.tile_id, action.rotation)
            return self._end_turn(evolve(state, board=board, last_events=(event,)), drew=True)
        if isinstance(action, SwapFirst):
            state.placement(action.tile_id)
            return evolve(state, phase=Phase.SWAP, pending=(action.tile_id,))
        if isinstance(action, SwapWith):
            return self._swap(state, seat, state.pending[0], action.tile_id)
        if isinstance(action, OrientSwapped):
            rotation = dict(zip(state.pending, (action.first_rotation, action.second_rotation), strict=True))
            board = _sorted_board(
                p._replace(rotation=rotation[p.tile_id]) if p.tile_id in rotation else p for p in state.board
            )
            event = TilesOriented(seat, action.first_rotation, action.second_rotation)
            return self._end_turn(evolve(state, board=board, last_events=(event,)), drew=True)
        if isinstance(action, TakeTile):
            state.placement(action.tile_id)
            return evolve(state, phase=Phase.REPLACE, pending=(action.tile_id,))
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
        board = _sorted_board((*state.board, Placement(action.y, action.x, tile.id, action.rotation)))
        event = TilePlaced(seat, tile, action.x, action.y, action.rotation)
        state = evolve(
            state, hands=_replace_at(state.hands, seat, hand), board=board, pending=(), last_events=(event,)
        )
        if tile.icon is not Icon.NONE:
            offered = evolve(state, phase=Phase.ACTION, icon=tile.icon)
            if self._extra_actions(offered, seat):
                return offered
        return self._end_turn(state, drew=True)

    def _swap(self, state: PnrzState, seat: int, first: int, second: int) -> PnrzState:
        a, b = state.placement(first), state.placement(second)
        moved = {
            a.tile_id: a._replace(x=b.x, y=b.y),
            b.tile_id: b._replace(x=a.x, y=a.y),
        }
        board = _sorted_board(moved.get(p.tile_id, p) for p in state.board)
        event = TilesSwapped(seat, first, second)
        state = evolve(state, board=board, last_events=(event,))
        if len(rotations(first)) * len(rotations(second)) == 1:
            return self._end_turn(state, drew=True)
        return evolve(state, phase=Phase.ORIENT, pending=(first, second))

    def _replace(self, state: PnrzState, seat: int, action: PutTile) -> PnrzState:
        old = state.placement(state.pending[0])
        if action.tile_id not in state.hands[seat]:
            raise IllegalActionError(f"tile {action.tile_id} is not in seat {seat}'s hand")
        new = Placement(old.y, old.x, action.tile_id, action.rotation)
        board = _sorted_board(new if p is old else p for p in state.board)
        hand = tuple(sorted((*(t for t in state.hands[seat] if t != action.tile_id), old.tile_id)))
        event = TileReplaced(seat, old.tile_id, TILES[action.tile_id], action.rotation)
        state = evolve(state, board=board, hands=_replace_at(state.hands, seat, hand), last_events=(event,))
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
        return dict(faction_scores(state.board))

    def scores(self, state: PnrzState) -> tuple[int, ...]:
        return _score_rows(state.board, state.factions)[0]

    def observe(self, state: PnrzState, seat: int) -> Observation:
        return Observation(
            seat=seat,
            factions=state.factions[seat],
            hand=tuple(map(TILES.__getitem__, state.hands[seat])),
            pending=state.pending if state.phase is not Phase.PLACE or seat == state.current else (),
            **self._shared(state),
        )

    def public_view(self, state: PnrzState) -> PublicView:
        return PublicView(
            pending=state.pending if state.phase is not Phase.PLACE else (),
            regions=scored_regions(state.board, state.factions),
            **self._shared(state),
        )

    def _shared(self, state: PnrzState) -> dict[str, Any]:
        """Returns the fields every seat's observation and the public view have alike."""
        seat_scores, rows = _score_rows(state.board, state.factions)
        players = tuple(
            Player(s, fs, len(hand), score)
            for s, (fs, hand, score) in enumerate(zip(state.factions, state.hands, seat_scores, strict=True))
        )
        return {
            "phase": state.phase,
            "current": None if state.phase in (Phase.CHOOSE, Phase.OVER) else state.current,
            "turn": state.turn,
            "board": _shown(state.board),
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
