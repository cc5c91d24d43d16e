from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class NinjaMasterColour(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NINJA_MASTER_COLOUR_UNSPECIFIED: _ClassVar[NinjaMasterColour]
    NINJA_MASTER_COLOUR_ORANGE: _ClassVar[NinjaMasterColour]
    NINJA_MASTER_COLOUR_PINK: _ClassVar[NinjaMasterColour]
    NINJA_MASTER_COLOUR_BLUE: _ClassVar[NinjaMasterColour]
    NINJA_MASTER_COLOUR_GREEN: _ClassVar[NinjaMasterColour]
    NINJA_MASTER_COLOUR_PURPLE: _ClassVar[NinjaMasterColour]

class NinjaMasterSymbol(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NINJA_MASTER_SYMBOL_UNSPECIFIED: _ClassVar[NinjaMasterSymbol]
    NINJA_MASTER_SYMBOL_NINJA: _ClassVar[NinjaMasterSymbol]
    NINJA_MASTER_SYMBOL_SMOKE: _ClassVar[NinjaMasterSymbol]
    NINJA_MASTER_SYMBOL_SWORD: _ClassVar[NinjaMasterSymbol]
    NINJA_MASTER_SYMBOL_SHURIKEN: _ClassVar[NinjaMasterSymbol]

class NinjaMasterComponent(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NINJA_MASTER_COMPONENT_UNSPECIFIED: _ClassVar[NinjaMasterComponent]
    NINJA_MASTER_COMPONENT_ORANGE_NINJA: _ClassVar[NinjaMasterComponent]
    NINJA_MASTER_COMPONENT_PINK_NINJA: _ClassVar[NinjaMasterComponent]
    NINJA_MASTER_COMPONENT_BLUE_NINJA: _ClassVar[NinjaMasterComponent]
    NINJA_MASTER_COMPONENT_GREEN_NINJA: _ClassVar[NinjaMasterComponent]
    NINJA_MASTER_COMPONENT_PURPLE_NINJA: _ClassVar[NinjaMasterComponent]
    NINJA_MASTER_COMPONENT_SWORD: _ClassVar[NinjaMasterComponent]

class NinjaMasterPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NINJA_MASTER_PHASE_UNSPECIFIED: _ClassVar[NinjaMasterPhase]
    NINJA_MASTER_PHASE_ROLL: _ClassVar[NinjaMasterPhase]
    NINJA_MASTER_PHASE_GRAB: _ClassVar[NinjaMasterPhase]
    NINJA_MASTER_PHASE_OVER: _ClassVar[NinjaMasterPhase]

class NinjaMasterRoundEnd(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NINJA_MASTER_ROUND_END_UNSPECIFIED: _ClassVar[NinjaMasterRoundEnd]
    NINJA_MASTER_ROUND_END_CALL: _ClassVar[NinjaMasterRoundEnd]
    NINJA_MASTER_ROUND_END_NO_GRAB: _ClassVar[NinjaMasterRoundEnd]
    NINJA_MASTER_ROUND_END_TICK_LIMIT: _ClassVar[NinjaMasterRoundEnd]
NINJA_MASTER_COLOUR_UNSPECIFIED: NinjaMasterColour
NINJA_MASTER_COLOUR_ORANGE: NinjaMasterColour
NINJA_MASTER_COLOUR_PINK: NinjaMasterColour
NINJA_MASTER_COLOUR_BLUE: NinjaMasterColour
NINJA_MASTER_COLOUR_GREEN: NinjaMasterColour
NINJA_MASTER_COLOUR_PURPLE: NinjaMasterColour
NINJA_MASTER_SYMBOL_UNSPECIFIED: NinjaMasterSymbol
NINJA_MASTER_SYMBOL_NINJA: NinjaMasterSymbol
NINJA_MASTER_SYMBOL_SMOKE: NinjaMasterSymbol
NINJA_MASTER_SYMBOL_SWORD: NinjaMasterSymbol
NINJA_MASTER_SYMBOL_SHURIKEN: NinjaMasterSymbol
NINJA_MASTER_COMPONENT_UNSPECIFIED: NinjaMasterComponent
NINJA_MASTER_COMPONENT_ORANGE_NINJA: NinjaMasterComponent
NINJA_MASTER_COMPONENT_PINK_NINJA: NinjaMasterComponent
NINJA_MASTER_COMPONENT_BLUE_NINJA: NinjaMasterComponent
NINJA_MASTER_COMPONENT_GREEN_NINJA: NinjaMasterComponent
NINJA_MASTER_COMPONENT_PURPLE_NINJA: NinjaMasterComponent
NINJA_MASTER_COMPONENT_SWORD: NinjaMasterComponent
NINJA_MASTER_PHASE_UNSPECIFIED: NinjaMasterPhase
NINJA_MASTER_PHASE_ROLL: NinjaMasterPhase
NINJA_MASTER_PHASE_GRAB: NinjaMasterPhase
NINJA_MASTER_PHASE_OVER: NinjaMasterPhase
NINJA_MASTER_ROUND_END_UNSPECIFIED: NinjaMasterRoundEnd
NINJA_MASTER_ROUND_END_CALL: NinjaMasterRoundEnd
NINJA_MASTER_ROUND_END_NO_GRAB: NinjaMasterRoundEnd
NINJA_MASTER_ROUND_END_TICK_LIMIT: NinjaMasterRoundEnd

class NinjaMasterFace(_message.Message):
    __slots__ = ("symbol", "colour", "ninjas")
    SYMBOL_FIELD_NUMBER: _ClassVar[int]
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    NINJAS_FIELD_NUMBER: _ClassVar[int]
    symbol: NinjaMasterSymbol
    colour: NinjaMasterColour
    ninjas: int
    def __init__(self, symbol: _Optional[_Union[NinjaMasterSymbol, str]] = ..., colour: _Optional[_Union[NinjaMasterColour, str]] = ..., ninjas: _Optional[int] = ...) -> None: ...

class NinjaMasterHolding(_message.Message):
    __slots__ = ("component", "holder")
    COMPONENT_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    component: NinjaMasterComponent
    holder: int
    def __init__(self, component: _Optional[_Union[NinjaMasterComponent, str]] = ..., holder: _Optional[int] = ...) -> None: ...

class NinjaMasterPlayer(_message.Message):
    __slots__ = ("seat", "score", "contending")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    CONTENDING_FIELD_NUMBER: _ClassVar[int]
    seat: int
    score: int
    contending: bool
    def __init__(self, seat: _Optional[int] = ..., score: _Optional[int] = ..., contending: _Optional[bool] = ...) -> None: ...

class NinjaMasterObservation(_message.Message):
    __slots__ = ("seat", "round", "phase", "tick", "dice", "components", "players", "sword_holder", "shuriken_holder", "playoff")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TICK_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    COMPONENTS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SWORD_HOLDER_FIELD_NUMBER: _ClassVar[int]
    SHURIKEN_HOLDER_FIELD_NUMBER: _ClassVar[int]
    PLAYOFF_FIELD_NUMBER: _ClassVar[int]
    seat: int
    round: int
    phase: NinjaMasterPhase
    tick: int
    dice: _containers.RepeatedCompositeFieldContainer[NinjaMasterFace]
    components: _containers.RepeatedCompositeFieldContainer[NinjaMasterHolding]
    players: _containers.RepeatedCompositeFieldContainer[NinjaMasterPlayer]
    sword_holder: int
    shuriken_holder: int
    playoff: bool
    def __init__(self, seat: _Optional[int] = ..., round: _Optional[int] = ..., phase: _Optional[_Union[NinjaMasterPhase, str]] = ..., tick: _Optional[int] = ..., dice: _Optional[_Iterable[_Union[NinjaMasterFace, _Mapping]]] = ..., components: _Optional[_Iterable[_Union[NinjaMasterHolding, _Mapping]]] = ..., players: _Optional[_Iterable[_Union[NinjaMasterPlayer, _Mapping]]] = ..., sword_holder: _Optional[int] = ..., shuriken_holder: _Optional[int] = ..., playoff: _Optional[bool] = ...) -> None: ...

class NinjaMasterGrab(_message.Message):
    __slots__ = ("component",)
    COMPONENT_FIELD_NUMBER: _ClassVar[int]
    component: NinjaMasterComponent
    def __init__(self, component: _Optional[_Union[NinjaMasterComponent, str]] = ...) -> None: ...

class NinjaMasterCall(_message.Message):
    __slots__ = ("number",)
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    number: int
    def __init__(self, number: _Optional[int] = ...) -> None: ...

class NinjaMasterWait(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class NinjaMasterAction(_message.Message):
    __slots__ = ("grab", "call", "wait")
    GRAB_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    WAIT_FIELD_NUMBER: _ClassVar[int]
    grab: NinjaMasterGrab
    call: NinjaMasterCall
    wait: NinjaMasterWait
    def __init__(self, grab: _Optional[_Union[NinjaMasterGrab, _Mapping]] = ..., call: _Optional[_Union[NinjaMasterCall, _Mapping]] = ..., wait: _Optional[_Union[NinjaMasterWait, _Mapping]] = ...) -> None: ...

class NinjaMasterDiceRolled(_message.Message):
    __slots__ = ("round", "roller", "dice")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ROLLER_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    round: int
    roller: int
    dice: _containers.RepeatedCompositeFieldContainer[NinjaMasterFace]
    def __init__(self, round: _Optional[int] = ..., roller: _Optional[int] = ..., dice: _Optional[_Iterable[_Union[NinjaMasterFace, _Mapping]]] = ...) -> None: ...

class NinjaMasterChoice(_message.Message):
    __slots__ = ("seat", "action")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    action: NinjaMasterAction
    def __init__(self, seat: _Optional[int] = ..., action: _Optional[_Union[NinjaMasterAction, _Mapping]] = ...) -> None: ...

class NinjaMasterGrabResult(_message.Message):
    __slots__ = ("component", "grabbers", "winner")
    COMPONENT_FIELD_NUMBER: _ClassVar[int]
    GRABBERS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    component: NinjaMasterComponent
    grabbers: _containers.RepeatedScalarFieldContainer[int]
    winner: int
    def __init__(self, component: _Optional[_Union[NinjaMasterComponent, str]] = ..., grabbers: _Optional[_Iterable[int]] = ..., winner: _Optional[int] = ...) -> None: ...

class NinjaMasterCallResult(_message.Message):
    __slots__ = ("seat", "number", "correct")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    CORRECT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    number: int
    correct: bool
    def __init__(self, seat: _Optional[int] = ..., number: _Optional[int] = ..., correct: _Optional[bool] = ...) -> None: ...

class NinjaMasterTickResolved(_message.Message):
    __slots__ = ("round", "tick", "choices", "grabs", "calls", "call_winner")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TICK_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    GRABS_FIELD_NUMBER: _ClassVar[int]
    CALLS_FIELD_NUMBER: _ClassVar[int]
    CALL_WINNER_FIELD_NUMBER: _ClassVar[int]
    round: int
    tick: int
    choices: _containers.RepeatedCompositeFieldContainer[NinjaMasterChoice]
    grabs: _containers.RepeatedCompositeFieldContainer[NinjaMasterGrabResult]
    calls: _containers.RepeatedCompositeFieldContainer[NinjaMasterCallResult]
    call_winner: int
    def __init__(self, round: _Optional[int] = ..., tick: _Optional[int] = ..., choices: _Optional[_Iterable[_Union[NinjaMasterChoice, _Mapping]]] = ..., grabs: _Optional[_Iterable[_Union[NinjaMasterGrabResult, _Mapping]]] = ..., calls: _Optional[_Iterable[_Union[NinjaMasterCallResult, _Mapping]]] = ..., call_winner: _Optional[int] = ...) -> None: ...

class NinjaMasterTallyLine(_message.Message):
    __slots__ = ("seat", "before", "sword", "ninjas", "shuriken", "call", "after")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    SWORD_FIELD_NUMBER: _ClassVar[int]
    NINJAS_FIELD_NUMBER: _ClassVar[int]
    SHURIKEN_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    before: int
    sword: int
    ninjas: int
    shuriken: int
    call: int
    after: int
    def __init__(self, seat: _Optional[int] = ..., before: _Optional[int] = ..., sword: _Optional[int] = ..., ninjas: _Optional[int] = ..., shuriken: _Optional[int] = ..., call: _Optional[int] = ..., after: _Optional[int] = ...) -> None: ...

class NinjaMasterRoundTallied(_message.Message):
    __slots__ = ("round", "ended_by", "ninja_total", "swords", "shurikens", "thief", "lines", "game_over", "contenders", "sword_holder", "shuriken_holder", "sword_draw")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ENDED_BY_FIELD_NUMBER: _ClassVar[int]
    NINJA_TOTAL_FIELD_NUMBER: _ClassVar[int]
    SWORDS_FIELD_NUMBER: _ClassVar[int]
    SHURIKENS_FIELD_NUMBER: _ClassVar[int]
    THIEF_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    CONTENDERS_FIELD_NUMBER: _ClassVar[int]
    SWORD_HOLDER_FIELD_NUMBER: _ClassVar[int]
    SHURIKEN_HOLDER_FIELD_NUMBER: _ClassVar[int]
    SWORD_DRAW_FIELD_NUMBER: _ClassVar[int]
    round: int
    ended_by: NinjaMasterRoundEnd
    ninja_total: int
    swords: int
    shurikens: int
    thief: int
    lines: _containers.RepeatedCompositeFieldContainer[NinjaMasterTallyLine]
    game_over: bool
    contenders: _containers.RepeatedScalarFieldContainer[int]
    sword_holder: int
    shuriken_holder: int
    sword_draw: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, round: _Optional[int] = ..., ended_by: _Optional[_Union[NinjaMasterRoundEnd, str]] = ..., ninja_total: _Optional[int] = ..., swords: _Optional[int] = ..., shurikens: _Optional[int] = ..., thief: _Optional[int] = ..., lines: _Optional[_Iterable[_Union[NinjaMasterTallyLine, _Mapping]]] = ..., game_over: _Optional[bool] = ..., contenders: _Optional[_Iterable[int]] = ..., sword_holder: _Optional[int] = ..., shuriken_holder: _Optional[int] = ..., sword_draw: _Optional[_Iterable[int]] = ...) -> None: ...

class NinjaMasterEvent(_message.Message):
    __slots__ = ("dice_rolled", "tick_resolved", "round_tallied")
    DICE_ROLLED_FIELD_NUMBER: _ClassVar[int]
    TICK_RESOLVED_FIELD_NUMBER: _ClassVar[int]
    ROUND_TALLIED_FIELD_NUMBER: _ClassVar[int]
    dice_rolled: NinjaMasterDiceRolled
    tick_resolved: NinjaMasterTickResolved
    round_tallied: NinjaMasterRoundTallied
    def __init__(self, dice_rolled: _Optional[_Union[NinjaMasterDiceRolled, _Mapping]] = ..., tick_resolved: _Optional[_Union[NinjaMasterTickResolved, _Mapping]] = ..., round_tallied: _Optional[_Union[NinjaMasterRoundTallied, _Mapping]] = ...) -> None: ...
