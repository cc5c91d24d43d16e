"""PNRZ in words: each action and public event as the sentence ``arena match -v``, ``arena replay``
and the replay viewer's step panel show (``Game.describe_action`` / ``describe_event`` find this module
beside the engine).

The board's own numbering: a tile by its number and where it lies as the viewer's grid labels it,
"(x, y)"; a rotation in quarter turns clockwise, as degrees. Seats by their names. A tile's pictures
are named only once it is on the table (a drawn tile stays unnamed: the hand is secret), and only
what the action or the public event carries is said.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.pnrz.board import FROM_LETTER, Faction, Icon, Tile
from arena.games.pnrz.engine import (
    Action,
    ActionSkipped,
    BaseMoved,
    ChooseFaction,
    Event,
    FactionsChosen,
    MoveBase,
    OrientSwapped,
    PassTurn,
    PlaceTile,
    PutTile,
    RotateTile,
    SelectTile,
    SwapFirst,
    SwapWith,
    TakeTile,
    TileDrawn,
    TilePlaced,
    TileReplaced,
    TileRotated,
    TilesDealt,
    TilesOriented,
    TilesSwapped,
    TurnPassed,
)


def name(names: Sequence[str], seat: int) -> str:
    """Returns a seat's name ("seat N" past the names given)."""
    return names[seat] if 0 <= seat < len(names) else f"seat {seat}"


def faction(f: Faction) -> str:
    """Returns a faction in words, plural: "the robots"."""
    return f"the {f.name.lower()}s"


def turned(rotation: int) -> str:
    """Returns a rotation (quarter turns clockwise) in degrees: "turned 90°", or "unturned"."""
    return f"turned {90 * rotation}°" if rotation else "unturned"


def degrees(rotation: int) -> str:
    """Returns a rotation (quarter turns clockwise) as an angle: "270°"."""
    return f"{90 * rotation}°"


def tile(t: Tile) -> str:
    """Returns a tile with its pictures as printed (NW, NE, SE, SW) and its extra action."""
    base = t.base
    if base is not None:
        return f"tile {t.id} ({base.name.lower()} base)"
    pictures = ", ".join(FROM_LETTER[c].name.lower().replace("_", " ") for c in t.pictures)
    action = "" if t.icon is Icon.NONE else f"; {t.icon.name.lower()}"
    return f"tile {t.id} ({pictures}{action})"


def listed(items: Sequence[str]) -> str:
    """Returns items as a list in words: "a", "a and b", "a, b and c"."""
    return " and ".join([", ".join(items[:-1]), items[-1]] if len(items) > 2 else items)


def action_words(action: Action, names: Sequence[str]) -> str:
    """Returns what a seat did: "selects tile 12", "places it at (0, 1), turned 90°", ..."""
    if isinstance(action, ChooseFaction):
        return f"asks for {faction(action.faction)}"
    if isinstance(action, SelectTile):
        return f"selects tile {action.tile_id} from the hand"
    if isinstance(action, PlaceTile):
        return f"places it at ({action.x}, {action.y}), {turned(action.rotation)}"
    if isinstance(action, MoveBase):
        return f"moves its base, tile {action.tile_id}"
    if isinstance(action, RotateTile):
        return f"rotates tile {action.tile_id} to {degrees(action.rotation)}"
    if isinstance(action, SwapFirst):
        return f"swaps tile {action.tile_id}"
    if isinstance(action, SwapWith):
        return f"with tile {action.tile_id}"
    if isinstance(action, OrientSwapped):
        return f"sets them at {degrees(action.first_rotation)} and {degrees(action.second_rotation)}"
    if isinstance(action, TakeTile):
        return f"takes tile {action.tile_id} into the hand"
    if isinstance(action, PutTile):
        return f"puts tile {action.tile_id} in its place, {turned(action.rotation)}"
    if isinstance(action, PassTurn):
        return "passes"
    return "skips the extra action"


def event_words(event: Event, names: Sequence[str]) -> str:
    """Returns a public event as a sentence."""
    if isinstance(event, FactionsChosen):
        asked = listed([f"{name(names, p.seat)} {faction(p.faction)}" for p in event.picks])
        got = listed([f"{name(names, p.seat)} {faction(p.faction)}" for p in event.granted])
        return f"Faction choice {event.round}: asked for {asked}; given {got}."
    if isinstance(event, TilesDealt):
        unused = f"; out of play: {listed([faction(f) for f in event.unused])}" if event.unused else ""
        return f"Tiles dealt: {event.pile_size} in the draw pile{unused}."
    if isinstance(event, TilePlaced):
        where = f"({event.x}, {event.y}), {turned(event.rotation)}"
        return f"{name(names, event.seat)} places {tile(event.tile)} at {where}."
    if isinstance(event, TileDrawn):
        return f"{name(names, event.seat)} draws a tile; {event.pile_size} left in the pile."
    if isinstance(event, BaseMoved):
        return (
            f"{name(names, event.seat)} moves its base, tile {event.tile_id}, from ({event.from_x}, "
            f"{event.from_y}) to ({event.x}, {event.y})."
        )
    if isinstance(event, TileRotated):
        return f"{name(names, event.seat)} rotates tile {event.tile_id} to {degrees(event.rotation)}."
    if isinstance(event, TilesSwapped):
        return f"{name(names, event.seat)} swaps tiles {event.first_id} and {event.second_id}."
    if isinstance(event, TilesOriented):
        first, second = degrees(event.first_rotation), degrees(event.second_rotation)
        return f"{name(names, event.seat)} sets the swapped tiles at {first} and {second}."
    if isinstance(event, TileReplaced):
        return (
            f"{name(names, event.seat)} takes tile {event.taken_id} into the hand and puts "
            f"{tile(event.tile)} in its place, {turned(event.rotation)}."
        )
    if isinstance(event, ActionSkipped):
        return f"{name(names, event.seat)} skips the extra action."
    assert isinstance(event, TurnPassed)
    return f"{name(names, event.seat)} passes."
