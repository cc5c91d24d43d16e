from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PnrzFaction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PNRZ_FACTION_UNSPECIFIED: _ClassVar[PnrzFaction]
    PNRZ_FACTION_PIRATE: _ClassVar[PnrzFaction]
    PNRZ_FACTION_NINJA: _ClassVar[PnrzFaction]
    PNRZ_FACTION_ROBOT: _ClassVar[PnrzFaction]
    PNRZ_FACTION_ZOMBIE: _ClassVar[PnrzFaction]

class PnrzPicture(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PNRZ_PICTURE_UNSPECIFIED: _ClassVar[PnrzPicture]
    PNRZ_PICTURE_PIRATE: _ClassVar[PnrzPicture]
    PNRZ_PICTURE_NINJA: _ClassVar[PnrzPicture]
    PNRZ_PICTURE_ROBOT: _ClassVar[PnrzPicture]
    PNRZ_PICTURE_ZOMBIE: _ClassVar[PnrzPicture]
    PNRZ_PICTURE_TREASURE_CHEST: _ClassVar[PnrzPicture]
    PNRZ_PICTURE_THROWING_STAR: _ClassVar[PnrzPicture]
    PNRZ_PICTURE_BATTERY: _ClassVar[PnrzPicture]
    PNRZ_PICTURE_BRAIN: _ClassVar[PnrzPicture]
    PNRZ_PICTURE_KRAKEN: _ClassVar[PnrzPicture]
    PNRZ_PICTURE_DRAGON: _ClassVar[PnrzPicture]
    PNRZ_PICTURE_SOLDIERS: _ClassVar[PnrzPicture]
    PNRZ_PICTURE_HUNTER: _ClassVar[PnrzPicture]
    PNRZ_PICTURE_PIRATE_SHIP: _ClassVar[PnrzPicture]
    PNRZ_PICTURE_CASTLE: _ClassVar[PnrzPicture]
    PNRZ_PICTURE_FACTORY: _ClassVar[PnrzPicture]
    PNRZ_PICTURE_GRAVEYARD: _ClassVar[PnrzPicture]

class PnrzIcon(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PNRZ_ICON_UNSPECIFIED: _ClassVar[PnrzIcon]
    PNRZ_ICON_NONE: _ClassVar[PnrzIcon]
    PNRZ_ICON_ROTATE: _ClassVar[PnrzIcon]
    PNRZ_ICON_SWAP: _ClassVar[PnrzIcon]
    PNRZ_ICON_REPLACE: _ClassVar[PnrzIcon]

class PnrzPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PNRZ_PHASE_UNSPECIFIED: _ClassVar[PnrzPhase]
    PNRZ_PHASE_CHOOSE: _ClassVar[PnrzPhase]
    PNRZ_PHASE_PLAY: _ClassVar[PnrzPhase]
    PNRZ_PHASE_PLACE: _ClassVar[PnrzPhase]
    PNRZ_PHASE_MOVE: _ClassVar[PnrzPhase]
    PNRZ_PHASE_ACTION: _ClassVar[PnrzPhase]
    PNRZ_PHASE_SWAP: _ClassVar[PnrzPhase]
    PNRZ_PHASE_ORIENT: _ClassVar[PnrzPhase]
    PNRZ_PHASE_REPLACE: _ClassVar[PnrzPhase]
    PNRZ_PHASE_OVER: _ClassVar[PnrzPhase]
PNRZ_FACTION_UNSPECIFIED: PnrzFaction
PNRZ_FACTION_PIRATE: PnrzFaction
PNRZ_FACTION_NINJA: PnrzFaction
PNRZ_FACTION_ROBOT: PnrzFaction
PNRZ_FACTION_ZOMBIE: PnrzFaction
PNRZ_PICTURE_UNSPECIFIED: PnrzPicture
PNRZ_PICTURE_PIRATE: PnrzPicture
PNRZ_PICTURE_NINJA: PnrzPicture
PNRZ_PICTURE_ROBOT: PnrzPicture
PNRZ_PICTURE_ZOMBIE: PnrzPicture
PNRZ_PICTURE_TREASURE_CHEST: PnrzPicture
PNRZ_PICTURE_THROWING_STAR: PnrzPicture
PNRZ_PICTURE_BATTERY: PnrzPicture
PNRZ_PICTURE_BRAIN: PnrzPicture
PNRZ_PICTURE_KRAKEN: PnrzPicture
PNRZ_PICTURE_DRAGON: PnrzPicture
PNRZ_PICTURE_SOLDIERS: PnrzPicture
PNRZ_PICTURE_HUNTER: PnrzPicture
PNRZ_PICTURE_PIRATE_SHIP: PnrzPicture
PNRZ_PICTURE_CASTLE: PnrzPicture
PNRZ_PICTURE_FACTORY: PnrzPicture
PNRZ_PICTURE_GRAVEYARD: PnrzPicture
PNRZ_ICON_UNSPECIFIED: PnrzIcon
PNRZ_ICON_NONE: PnrzIcon
PNRZ_ICON_ROTATE: PnrzIcon
PNRZ_ICON_SWAP: PnrzIcon
PNRZ_ICON_REPLACE: PnrzIcon
PNRZ_PHASE_UNSPECIFIED: PnrzPhase
PNRZ_PHASE_CHOOSE: PnrzPhase
PNRZ_PHASE_PLAY: PnrzPhase
PNRZ_PHASE_PLACE: PnrzPhase
PNRZ_PHASE_MOVE: PnrzPhase
PNRZ_PHASE_ACTION: PnrzPhase
PNRZ_PHASE_SWAP: PnrzPhase
PNRZ_PHASE_ORIENT: PnrzPhase
PNRZ_PHASE_REPLACE: PnrzPhase
PNRZ_PHASE_OVER: PnrzPhase

class PnrzTile(_message.Message):
    __slots__ = ("id", "pictures", "icon")
    ID_FIELD_NUMBER: _ClassVar[int]
    PICTURES_FIELD_NUMBER: _ClassVar[int]
    ICON_FIELD_NUMBER: _ClassVar[int]
    id: int
    pictures: str
    icon: PnrzIcon
    def __init__(self, id: _Optional[int] = ..., pictures: _Optional[str] = ..., icon: _Optional[_Union[PnrzIcon, str]] = ...) -> None: ...

class PnrzPlacedTile(_message.Message):
    __slots__ = ("tile_id", "x", "y", "rotation", "shown")
    TILE_ID_FIELD_NUMBER: _ClassVar[int]
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    tile_id: int
    x: int
    y: int
    rotation: int
    shown: str
    def __init__(self, tile_id: _Optional[int] = ..., x: _Optional[int] = ..., y: _Optional[int] = ..., rotation: _Optional[int] = ..., shown: _Optional[str] = ...) -> None: ...

class PnrzPlayer(_message.Message):
    __slots__ = ("seat", "factions", "hand_size", "score")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    FACTIONS_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    factions: _containers.RepeatedScalarFieldContainer[PnrzFaction]
    hand_size: int
    score: int
    def __init__(self, seat: _Optional[int] = ..., factions: _Optional[_Iterable[_Union[PnrzFaction, str]]] = ..., hand_size: _Optional[int] = ..., score: _Optional[int] = ...) -> None: ...

class PnrzFactionScore(_message.Message):
    __slots__ = ("faction", "score")
    FACTION_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    faction: PnrzFaction
    score: int
    def __init__(self, faction: _Optional[_Union[PnrzFaction, str]] = ..., score: _Optional[int] = ...) -> None: ...

class PnrzObservation(_message.Message):
    __slots__ = ("seat", "phase", "current", "turn", "factions", "hand", "board", "players", "pile_size", "available", "icon", "pending", "final_turns_left", "faction_scores")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    FACTIONS_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    ICON_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    FINAL_TURNS_LEFT_FIELD_NUMBER: _ClassVar[int]
    FACTION_SCORES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    phase: PnrzPhase
    current: int
    turn: int
    factions: _containers.RepeatedScalarFieldContainer[PnrzFaction]
    hand: _containers.RepeatedCompositeFieldContainer[PnrzTile]
    board: _containers.RepeatedCompositeFieldContainer[PnrzPlacedTile]
    players: _containers.RepeatedCompositeFieldContainer[PnrzPlayer]
    pile_size: int
    available: _containers.RepeatedScalarFieldContainer[PnrzFaction]
    icon: PnrzIcon
    pending: _containers.RepeatedScalarFieldContainer[int]
    final_turns_left: int
    faction_scores: _containers.RepeatedCompositeFieldContainer[PnrzFactionScore]
    def __init__(self, seat: _Optional[int] = ..., phase: _Optional[_Union[PnrzPhase, str]] = ..., current: _Optional[int] = ..., turn: _Optional[int] = ..., factions: _Optional[_Iterable[_Union[PnrzFaction, str]]] = ..., hand: _Optional[_Iterable[_Union[PnrzTile, _Mapping]]] = ..., board: _Optional[_Iterable[_Union[PnrzPlacedTile, _Mapping]]] = ..., players: _Optional[_Iterable[_Union[PnrzPlayer, _Mapping]]] = ..., pile_size: _Optional[int] = ..., available: _Optional[_Iterable[_Union[PnrzFaction, str]]] = ..., icon: _Optional[_Union[PnrzIcon, str]] = ..., pending: _Optional[_Iterable[int]] = ..., final_turns_left: _Optional[int] = ..., faction_scores: _Optional[_Iterable[_Union[PnrzFactionScore, _Mapping]]] = ...) -> None: ...

class PnrzChooseFaction(_message.Message):
    __slots__ = ("faction",)
    FACTION_FIELD_NUMBER: _ClassVar[int]
    faction: PnrzFaction
    def __init__(self, faction: _Optional[_Union[PnrzFaction, str]] = ...) -> None: ...

class PnrzSelectTile(_message.Message):
    __slots__ = ("tile_id",)
    TILE_ID_FIELD_NUMBER: _ClassVar[int]
    tile_id: int
    def __init__(self, tile_id: _Optional[int] = ...) -> None: ...

class PnrzPlaceTile(_message.Message):
    __slots__ = ("x", "y", "rotation")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    x: int
    y: int
    rotation: int
    def __init__(self, x: _Optional[int] = ..., y: _Optional[int] = ..., rotation: _Optional[int] = ...) -> None: ...

class PnrzMoveBase(_message.Message):
    __slots__ = ("tile_id",)
    TILE_ID_FIELD_NUMBER: _ClassVar[int]
    tile_id: int
    def __init__(self, tile_id: _Optional[int] = ...) -> None: ...

class PnrzPassTurn(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PnrzRotateTile(_message.Message):
    __slots__ = ("tile_id", "rotation")
    TILE_ID_FIELD_NUMBER: _ClassVar[int]
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    tile_id: int
    rotation: int
    def __init__(self, tile_id: _Optional[int] = ..., rotation: _Optional[int] = ...) -> None: ...

class PnrzSwapFirst(_message.Message):
    __slots__ = ("tile_id",)
    TILE_ID_FIELD_NUMBER: _ClassVar[int]
    tile_id: int
    def __init__(self, tile_id: _Optional[int] = ...) -> None: ...

class PnrzSwapWith(_message.Message):
    __slots__ = ("tile_id",)
    TILE_ID_FIELD_NUMBER: _ClassVar[int]
    tile_id: int
    def __init__(self, tile_id: _Optional[int] = ...) -> None: ...

class PnrzOrientSwapped(_message.Message):
    __slots__ = ("first_rotation", "second_rotation")
    FIRST_ROTATION_FIELD_NUMBER: _ClassVar[int]
    SECOND_ROTATION_FIELD_NUMBER: _ClassVar[int]
    first_rotation: int
    second_rotation: int
    def __init__(self, first_rotation: _Optional[int] = ..., second_rotation: _Optional[int] = ...) -> None: ...

class PnrzTakeTile(_message.Message):
    __slots__ = ("tile_id",)
    TILE_ID_FIELD_NUMBER: _ClassVar[int]
    tile_id: int
    def __init__(self, tile_id: _Optional[int] = ...) -> None: ...

class PnrzPutTile(_message.Message):
    __slots__ = ("tile_id", "rotation")
    TILE_ID_FIELD_NUMBER: _ClassVar[int]
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    tile_id: int
    rotation: int
    def __init__(self, tile_id: _Optional[int] = ..., rotation: _Optional[int] = ...) -> None: ...

class PnrzSkipAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PnrzAction(_message.Message):
    __slots__ = ("choose_faction", "select_tile", "place_tile", "move_base", "pass_turn", "rotate_tile", "swap_first", "swap_with", "orient_swapped", "take_tile", "put_tile", "skip_action")
    CHOOSE_FACTION_FIELD_NUMBER: _ClassVar[int]
    SELECT_TILE_FIELD_NUMBER: _ClassVar[int]
    PLACE_TILE_FIELD_NUMBER: _ClassVar[int]
    MOVE_BASE_FIELD_NUMBER: _ClassVar[int]
    PASS_TURN_FIELD_NUMBER: _ClassVar[int]
    ROTATE_TILE_FIELD_NUMBER: _ClassVar[int]
    SWAP_FIRST_FIELD_NUMBER: _ClassVar[int]
    SWAP_WITH_FIELD_NUMBER: _ClassVar[int]
    ORIENT_SWAPPED_FIELD_NUMBER: _ClassVar[int]
    TAKE_TILE_FIELD_NUMBER: _ClassVar[int]
    PUT_TILE_FIELD_NUMBER: _ClassVar[int]
    SKIP_ACTION_FIELD_NUMBER: _ClassVar[int]
    choose_faction: PnrzChooseFaction
    select_tile: PnrzSelectTile
    place_tile: PnrzPlaceTile
    move_base: PnrzMoveBase
    pass_turn: PnrzPassTurn
    rotate_tile: PnrzRotateTile
    swap_first: PnrzSwapFirst
    swap_with: PnrzSwapWith
    orient_swapped: PnrzOrientSwapped
    take_tile: PnrzTakeTile
    put_tile: PnrzPutTile
    skip_action: PnrzSkipAction
    def __init__(self, choose_faction: _Optional[_Union[PnrzChooseFaction, _Mapping]] = ..., select_tile: _Optional[_Union[PnrzSelectTile, _Mapping]] = ..., place_tile: _Optional[_Union[PnrzPlaceTile, _Mapping]] = ..., move_base: _Optional[_Union[PnrzMoveBase, _Mapping]] = ..., pass_turn: _Optional[_Union[PnrzPassTurn, _Mapping]] = ..., rotate_tile: _Optional[_Union[PnrzRotateTile, _Mapping]] = ..., swap_first: _Optional[_Union[PnrzSwapFirst, _Mapping]] = ..., swap_with: _Optional[_Union[PnrzSwapWith, _Mapping]] = ..., orient_swapped: _Optional[_Union[PnrzOrientSwapped, _Mapping]] = ..., take_tile: _Optional[_Union[PnrzTakeTile, _Mapping]] = ..., put_tile: _Optional[_Union[PnrzPutTile, _Mapping]] = ..., skip_action: _Optional[_Union[PnrzSkipAction, _Mapping]] = ...) -> None: ...

class PnrzPick(_message.Message):
    __slots__ = ("seat", "faction")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    FACTION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    faction: PnrzFaction
    def __init__(self, seat: _Optional[int] = ..., faction: _Optional[_Union[PnrzFaction, str]] = ...) -> None: ...

class PnrzFactionsChosen(_message.Message):
    __slots__ = ("round", "picks", "granted")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PICKS_FIELD_NUMBER: _ClassVar[int]
    GRANTED_FIELD_NUMBER: _ClassVar[int]
    round: int
    picks: _containers.RepeatedCompositeFieldContainer[PnrzPick]
    granted: _containers.RepeatedCompositeFieldContainer[PnrzPick]
    def __init__(self, round: _Optional[int] = ..., picks: _Optional[_Iterable[_Union[PnrzPick, _Mapping]]] = ..., granted: _Optional[_Iterable[_Union[PnrzPick, _Mapping]]] = ...) -> None: ...

class PnrzTilesDealt(_message.Message):
    __slots__ = ("pile_size", "unused")
    PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    UNUSED_FIELD_NUMBER: _ClassVar[int]
    pile_size: int
    unused: _containers.RepeatedScalarFieldContainer[PnrzFaction]
    def __init__(self, pile_size: _Optional[int] = ..., unused: _Optional[_Iterable[_Union[PnrzFaction, str]]] = ...) -> None: ...

class PnrzTilePlaced(_message.Message):
    __slots__ = ("seat", "tile", "x", "y", "rotation")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    tile: PnrzTile
    x: int
    y: int
    rotation: int
    def __init__(self, seat: _Optional[int] = ..., tile: _Optional[_Union[PnrzTile, _Mapping]] = ..., x: _Optional[int] = ..., y: _Optional[int] = ..., rotation: _Optional[int] = ...) -> None: ...

class PnrzTileDrawn(_message.Message):
    __slots__ = ("seat", "pile_size")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    pile_size: int
    def __init__(self, seat: _Optional[int] = ..., pile_size: _Optional[int] = ...) -> None: ...

class PnrzBaseMoved(_message.Message):
    __slots__ = ("seat", "tile_id", "from_x", "from_y", "x", "y")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TILE_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_X_FIELD_NUMBER: _ClassVar[int]
    FROM_Y_FIELD_NUMBER: _ClassVar[int]
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    seat: int
    tile_id: int
    from_x: int
    from_y: int
    x: int
    y: int
    def __init__(self, seat: _Optional[int] = ..., tile_id: _Optional[int] = ..., from_x: _Optional[int] = ..., from_y: _Optional[int] = ..., x: _Optional[int] = ..., y: _Optional[int] = ...) -> None: ...

class PnrzTileRotated(_message.Message):
    __slots__ = ("seat", "tile_id", "rotation")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TILE_ID_FIELD_NUMBER: _ClassVar[int]
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    tile_id: int
    rotation: int
    def __init__(self, seat: _Optional[int] = ..., tile_id: _Optional[int] = ..., rotation: _Optional[int] = ...) -> None: ...

class PnrzTilesSwapped(_message.Message):
    __slots__ = ("seat", "first_id", "second_id")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    FIRST_ID_FIELD_NUMBER: _ClassVar[int]
    SECOND_ID_FIELD_NUMBER: _ClassVar[int]
    seat: int
    first_id: int
    second_id: int
    def __init__(self, seat: _Optional[int] = ..., first_id: _Optional[int] = ..., second_id: _Optional[int] = ...) -> None: ...

class PnrzTilesOriented(_message.Message):
    __slots__ = ("seat", "first_rotation", "second_rotation")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    FIRST_ROTATION_FIELD_NUMBER: _ClassVar[int]
    SECOND_ROTATION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    first_rotation: int
    second_rotation: int
    def __init__(self, seat: _Optional[int] = ..., first_rotation: _Optional[int] = ..., second_rotation: _Optional[int] = ...) -> None: ...

class PnrzTileReplaced(_message.Message):
    __slots__ = ("seat", "taken_id", "tile", "rotation")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TAKEN_ID_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    taken_id: int
    tile: PnrzTile
    rotation: int
    def __init__(self, seat: _Optional[int] = ..., taken_id: _Optional[int] = ..., tile: _Optional[_Union[PnrzTile, _Mapping]] = ..., rotation: _Optional[int] = ...) -> None: ...

class PnrzActionSkipped(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class PnrzTurnPassed(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class PnrzEvent(_message.Message):
    __slots__ = ("factions_chosen", "tiles_dealt", "tile_placed", "tile_drawn", "base_moved", "tile_rotated", "tiles_swapped", "tiles_oriented", "tile_replaced", "action_skipped", "turn_passed")
    FACTIONS_CHOSEN_FIELD_NUMBER: _ClassVar[int]
    TILES_DEALT_FIELD_NUMBER: _ClassVar[int]
    TILE_PLACED_FIELD_NUMBER: _ClassVar[int]
    TILE_DRAWN_FIELD_NUMBER: _ClassVar[int]
    BASE_MOVED_FIELD_NUMBER: _ClassVar[int]
    TILE_ROTATED_FIELD_NUMBER: _ClassVar[int]
    TILES_SWAPPED_FIELD_NUMBER: _ClassVar[int]
    TILES_ORIENTED_FIELD_NUMBER: _ClassVar[int]
    TILE_REPLACED_FIELD_NUMBER: _ClassVar[int]
    ACTION_SKIPPED_FIELD_NUMBER: _ClassVar[int]
    TURN_PASSED_FIELD_NUMBER: _ClassVar[int]
    factions_chosen: PnrzFactionsChosen
    tiles_dealt: PnrzTilesDealt
    tile_placed: PnrzTilePlaced
    tile_drawn: PnrzTileDrawn
    base_moved: PnrzBaseMoved
    tile_rotated: PnrzTileRotated
    tiles_swapped: PnrzTilesSwapped
    tiles_oriented: PnrzTilesOriented
    tile_replaced: PnrzTileReplaced
    action_skipped: PnrzActionSkipped
    turn_passed: PnrzTurnPassed
    def __init__(self, factions_chosen: _Optional[_Union[PnrzFactionsChosen, _Mapping]] = ..., tiles_dealt: _Optional[_Union[PnrzTilesDealt, _Mapping]] = ..., tile_placed: _Optional[_Union[PnrzTilePlaced, _Mapping]] = ..., tile_drawn: _Optional[_Union[PnrzTileDrawn, _Mapping]] = ..., base_moved: _Optional[_Union[PnrzBaseMoved, _Mapping]] = ..., tile_rotated: _Optional[_Union[PnrzTileRotated, _Mapping]] = ..., tiles_swapped: _Optional[_Union[PnrzTilesSwapped, _Mapping]] = ..., tiles_oriented: _Optional[_Union[PnrzTilesOriented, _Mapping]] = ..., tile_replaced: _Optional[_Union[PnrzTileReplaced, _Mapping]] = ..., action_skipped: _Optional[_Union[PnrzActionSkipped, _Mapping]] = ..., turn_passed: _Optional[_Union[PnrzTurnPassed, _Mapping]] = ...) -> None: ...
