from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class NinjaBurgerSkill(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NINJA_BURGER_SKILL_UNSPECIFIED: _ClassVar[NinjaBurgerSkill]
    NINJA_BURGER_SKILL_STEALTH: _ClassVar[NinjaBurgerSkill]
    NINJA_BURGER_SKILL_CLIMBING: _ClassVar[NinjaBurgerSkill]
    NINJA_BURGER_SKILL_SWIMMING: _ClassVar[NinjaBurgerSkill]
    NINJA_BURGER_SKILL_DRIVING: _ClassVar[NinjaBurgerSkill]
    NINJA_BURGER_SKILL_COMPUTERS: _ClassVar[NinjaBurgerSkill]
    NINJA_BURGER_SKILL_ANIMALS: _ClassVar[NinjaBurgerSkill]
    NINJA_BURGER_SKILL_CUSTOMER_SERVICE: _ClassVar[NinjaBurgerSkill]
    NINJA_BURGER_SKILL_OTHER_STUFF: _ClassVar[NinjaBurgerSkill]

class NinjaBurgerAbility(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NINJA_BURGER_ABILITY_UNSPECIFIED: _ClassVar[NinjaBurgerAbility]
    NINJA_BURGER_ABILITY_NEVER_FAILS: _ClassVar[NinjaBurgerAbility]
    NINJA_BURGER_ABILITY_PLUS_TWO: _ClassVar[NinjaBurgerAbility]
    NINJA_BURGER_ABILITY_REROLL: _ClassVar[NinjaBurgerAbility]
    NINJA_BURGER_ABILITY_SALARY: _ClassVar[NinjaBurgerAbility]

class NinjaBurgerFortuneKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NINJA_BURGER_FORTUNE_KIND_UNSPECIFIED: _ClassVar[NinjaBurgerFortuneKind]
    NINJA_BURGER_FORTUNE_KIND_NINJA_STUFF: _ClassVar[NinjaBurgerFortuneKind]
    NINJA_BURGER_FORTUNE_KIND_INTERESTING_TIMES: _ClassVar[NinjaBurgerFortuneKind]
    NINJA_BURGER_FORTUNE_KIND_GOOD_FORTUNE: _ClassVar[NinjaBurgerFortuneKind]

class NinjaBurgerEffect(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NINJA_BURGER_EFFECT_UNSPECIFIED: _ClassVar[NinjaBurgerEffect]
    NINJA_BURGER_EFFECT_ITEM: _ClassVar[NinjaBurgerEffect]
    NINJA_BURGER_EFFECT_PENALTY: _ClassVar[NinjaBurgerEffect]
    NINJA_BURGER_EFFECT_EXTRA_CHECK: _ClassVar[NinjaBurgerEffect]
    NINJA_BURGER_EFFECT_FINE: _ClassVar[NinjaBurgerEffect]
    NINJA_BURGER_EFFECT_REROLL: _ClassVar[NinjaBurgerEffect]
    NINJA_BURGER_EFFECT_BONUS: _ClassVar[NinjaBurgerEffect]

class NinjaBurgerPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NINJA_BURGER_PHASE_UNSPECIFIED: _ClassVar[NinjaBurgerPhase]
    NINJA_BURGER_PHASE_CHOOSE_NINJA: _ClassVar[NinjaBurgerPhase]
    NINJA_BURGER_PHASE_MEETING: _ClassVar[NinjaBurgerPhase]
    NINJA_BURGER_PHASE_TRADE: _ClassVar[NinjaBurgerPhase]
    NINJA_BURGER_PHASE_CHOOSE_SKILL: _ClassVar[NinjaBurgerPhase]
    NINJA_BURGER_PHASE_WINDOW: _ClassVar[NinjaBurgerPhase]
    NINJA_BURGER_PHASE_REROLL: _ClassVar[NinjaBurgerPhase]
    NINJA_BURGER_PHASE_OVER: _ClassVar[NinjaBurgerPhase]
NINJA_BURGER_SKILL_UNSPECIFIED: NinjaBurgerSkill
NINJA_BURGER_SKILL_STEALTH: NinjaBurgerSkill
NINJA_BURGER_SKILL_CLIMBING: NinjaBurgerSkill
NINJA_BURGER_SKILL_SWIMMING: NinjaBurgerSkill
NINJA_BURGER_SKILL_DRIVING: NinjaBurgerSkill
NINJA_BURGER_SKILL_COMPUTERS: NinjaBurgerSkill
NINJA_BURGER_SKILL_ANIMALS: NinjaBurgerSkill
NINJA_BURGER_SKILL_CUSTOMER_SERVICE: NinjaBurgerSkill
NINJA_BURGER_SKILL_OTHER_STUFF: NinjaBurgerSkill
NINJA_BURGER_ABILITY_UNSPECIFIED: NinjaBurgerAbility
NINJA_BURGER_ABILITY_NEVER_FAILS: NinjaBurgerAbility
NINJA_BURGER_ABILITY_PLUS_TWO: NinjaBurgerAbility
NINJA_BURGER_ABILITY_REROLL: NinjaBurgerAbility
NINJA_BURGER_ABILITY_SALARY: NinjaBurgerAbility
NINJA_BURGER_FORTUNE_KIND_UNSPECIFIED: NinjaBurgerFortuneKind
NINJA_BURGER_FORTUNE_KIND_NINJA_STUFF: NinjaBurgerFortuneKind
NINJA_BURGER_FORTUNE_KIND_INTERESTING_TIMES: NinjaBurgerFortuneKind
NINJA_BURGER_FORTUNE_KIND_GOOD_FORTUNE: NinjaBurgerFortuneKind
NINJA_BURGER_EFFECT_UNSPECIFIED: NinjaBurgerEffect
NINJA_BURGER_EFFECT_ITEM: NinjaBurgerEffect
NINJA_BURGER_EFFECT_PENALTY: NinjaBurgerEffect
NINJA_BURGER_EFFECT_EXTRA_CHECK: NinjaBurgerEffect
NINJA_BURGER_EFFECT_FINE: NinjaBurgerEffect
NINJA_BURGER_EFFECT_REROLL: NinjaBurgerEffect
NINJA_BURGER_EFFECT_BONUS: NinjaBurgerEffect
NINJA_BURGER_PHASE_UNSPECIFIED: NinjaBurgerPhase
NINJA_BURGER_PHASE_CHOOSE_NINJA: NinjaBurgerPhase
NINJA_BURGER_PHASE_MEETING: NinjaBurgerPhase
NINJA_BURGER_PHASE_TRADE: NinjaBurgerPhase
NINJA_BURGER_PHASE_CHOOSE_SKILL: NinjaBurgerPhase
NINJA_BURGER_PHASE_WINDOW: NinjaBurgerPhase
NINJA_BURGER_PHASE_REROLL: NinjaBurgerPhase
NINJA_BURGER_PHASE_OVER: NinjaBurgerPhase

class NinjaBurgerNinjaCard(_message.Message):
    __slots__ = ("id", "name", "skills", "values", "other_stuff", "ability", "ability_skill")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SKILLS_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    OTHER_STUFF_FIELD_NUMBER: _ClassVar[int]
    ABILITY_FIELD_NUMBER: _ClassVar[int]
    ABILITY_SKILL_FIELD_NUMBER: _ClassVar[int]
    id: int
    name: str
    skills: _containers.RepeatedScalarFieldContainer[NinjaBurgerSkill]
    values: _containers.RepeatedScalarFieldContainer[int]
    other_stuff: int
    ability: NinjaBurgerAbility
    ability_skill: NinjaBurgerSkill
    def __init__(self, id: _Optional[int] = ..., name: _Optional[str] = ..., skills: _Optional[_Iterable[_Union[NinjaBurgerSkill, str]]] = ..., values: _Optional[_Iterable[int]] = ..., other_stuff: _Optional[int] = ..., ability: _Optional[_Union[NinjaBurgerAbility, str]] = ..., ability_skill: _Optional[_Union[NinjaBurgerSkill, str]] = ...) -> None: ...

class NinjaBurgerCheck(_message.Message):
    __slots__ = ("skills", "modifier")
    SKILLS_FIELD_NUMBER: _ClassVar[int]
    MODIFIER_FIELD_NUMBER: _ClassVar[int]
    skills: _containers.RepeatedScalarFieldContainer[NinjaBurgerSkill]
    modifier: int
    def __init__(self, skills: _Optional[_Iterable[_Union[NinjaBurgerSkill, str]]] = ..., modifier: _Optional[int] = ...) -> None: ...

class NinjaBurgerMissionCard(_message.Message):
    __slots__ = ("id", "name", "errand", "checks", "reward_honor", "reward_money", "penalty_honor", "penalty_money")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ERRAND_FIELD_NUMBER: _ClassVar[int]
    CHECKS_FIELD_NUMBER: _ClassVar[int]
    REWARD_HONOR_FIELD_NUMBER: _ClassVar[int]
    REWARD_MONEY_FIELD_NUMBER: _ClassVar[int]
    PENALTY_HONOR_FIELD_NUMBER: _ClassVar[int]
    PENALTY_MONEY_FIELD_NUMBER: _ClassVar[int]
    id: int
    name: str
    errand: bool
    checks: _containers.RepeatedCompositeFieldContainer[NinjaBurgerCheck]
    reward_honor: int
    reward_money: int
    penalty_honor: int
    penalty_money: int
    def __init__(self, id: _Optional[int] = ..., name: _Optional[str] = ..., errand: _Optional[bool] = ..., checks: _Optional[_Iterable[_Union[NinjaBurgerCheck, _Mapping]]] = ..., reward_honor: _Optional[int] = ..., reward_money: _Optional[int] = ..., penalty_honor: _Optional[int] = ..., penalty_money: _Optional[int] = ...) -> None: ...

class NinjaBurgerFortuneCard(_message.Message):
    __slots__ = ("id", "name", "kind", "effect", "skill", "value", "price", "single_use", "immediate")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    EFFECT_FIELD_NUMBER: _ClassVar[int]
    SKILL_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    PRICE_FIELD_NUMBER: _ClassVar[int]
    SINGLE_USE_FIELD_NUMBER: _ClassVar[int]
    IMMEDIATE_FIELD_NUMBER: _ClassVar[int]
    id: int
    name: str
    kind: NinjaBurgerFortuneKind
    effect: NinjaBurgerEffect
    skill: NinjaBurgerSkill
    value: int
    price: int
    single_use: bool
    immediate: bool
    def __init__(self, id: _Optional[int] = ..., name: _Optional[str] = ..., kind: _Optional[_Union[NinjaBurgerFortuneKind, str]] = ..., effect: _Optional[_Union[NinjaBurgerEffect, str]] = ..., skill: _Optional[_Union[NinjaBurgerSkill, str]] = ..., value: _Optional[int] = ..., price: _Optional[int] = ..., single_use: _Optional[bool] = ..., immediate: _Optional[bool] = ...) -> None: ...

class NinjaBurgerPlay(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: NinjaBurgerFortuneCard
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[NinjaBurgerFortuneCard, _Mapping]] = ...) -> None: ...

class NinjaBurgerPlayerView(_message.Message):
    __slots__ = ("seat", "ninja", "honor", "money", "hand_size", "items", "attended", "mission")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NINJA_FIELD_NUMBER: _ClassVar[int]
    HONOR_FIELD_NUMBER: _ClassVar[int]
    MONEY_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    ATTENDED_FIELD_NUMBER: _ClassVar[int]
    MISSION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    ninja: int
    honor: int
    money: int
    hand_size: int
    items: _containers.RepeatedScalarFieldContainer[int]
    attended: bool
    mission: NinjaBurgerMissionCard
    def __init__(self, seat: _Optional[int] = ..., ninja: _Optional[int] = ..., honor: _Optional[int] = ..., money: _Optional[int] = ..., hand_size: _Optional[int] = ..., items: _Optional[_Iterable[int]] = ..., attended: _Optional[bool] = ..., mission: _Optional[_Union[NinjaBurgerMissionCard, _Mapping]] = ...) -> None: ...

class NinjaBurgerObservation(_message.Message):
    __slots__ = ("seat", "round", "phase", "players", "hand", "mission", "ninja_options", "order", "active", "checks", "plan", "check_index", "plays", "mission_deck", "fortune_deck")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    MISSION_FIELD_NUMBER: _ClassVar[int]
    NINJA_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    CHECKS_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    CHECK_INDEX_FIELD_NUMBER: _ClassVar[int]
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    MISSION_DECK_FIELD_NUMBER: _ClassVar[int]
    FORTUNE_DECK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    round: int
    phase: NinjaBurgerPhase
    players: _containers.RepeatedCompositeFieldContainer[NinjaBurgerPlayerView]
    hand: _containers.RepeatedCompositeFieldContainer[NinjaBurgerFortuneCard]
    mission: NinjaBurgerMissionCard
    ninja_options: _containers.RepeatedCompositeFieldContainer[NinjaBurgerNinjaCard]
    order: _containers.RepeatedScalarFieldContainer[int]
    active: int
    checks: _containers.RepeatedCompositeFieldContainer[NinjaBurgerCheck]
    plan: _containers.RepeatedScalarFieldContainer[NinjaBurgerSkill]
    check_index: int
    plays: _containers.RepeatedCompositeFieldContainer[NinjaBurgerPlay]
    mission_deck: int
    fortune_deck: int
    def __init__(self, seat: _Optional[int] = ..., round: _Optional[int] = ..., phase: _Optional[_Union[NinjaBurgerPhase, str]] = ..., players: _Optional[_Iterable[_Union[NinjaBurgerPlayerView, _Mapping]]] = ..., hand: _Optional[_Iterable[_Union[NinjaBurgerFortuneCard, _Mapping]]] = ..., mission: _Optional[_Union[NinjaBurgerMissionCard, _Mapping]] = ..., ninja_options: _Optional[_Iterable[_Union[NinjaBurgerNinjaCard, _Mapping]]] = ..., order: _Optional[_Iterable[int]] = ..., active: _Optional[int] = ..., checks: _Optional[_Iterable[_Union[NinjaBurgerCheck, _Mapping]]] = ..., plan: _Optional[_Iterable[_Union[NinjaBurgerSkill, str]]] = ..., check_index: _Optional[int] = ..., plays: _Optional[_Iterable[_Union[NinjaBurgerPlay, _Mapping]]] = ..., mission_deck: _Optional[int] = ..., fortune_deck: _Optional[int] = ...) -> None: ...

class NinjaBurgerChooseNinja(_message.Message):
    __slots__ = ("ninja",)
    NINJA_FIELD_NUMBER: _ClassVar[int]
    ninja: int
    def __init__(self, ninja: _Optional[int] = ...) -> None: ...

class NinjaBurgerAttend(_message.Message):
    __slots__ = ("attend",)
    ATTEND_FIELD_NUMBER: _ClassVar[int]
    attend: bool
    def __init__(self, attend: _Optional[bool] = ...) -> None: ...

class NinjaBurgerForceTrade(_message.Message):
    __slots__ = ("target",)
    TARGET_FIELD_NUMBER: _ClassVar[int]
    target: int
    def __init__(self, target: _Optional[int] = ...) -> None: ...

class NinjaBurgerChooseSkills(_message.Message):
    __slots__ = ("skills",)
    SKILLS_FIELD_NUMBER: _ClassVar[int]
    skills: _containers.RepeatedScalarFieldContainer[NinjaBurgerSkill]
    def __init__(self, skills: _Optional[_Iterable[_Union[NinjaBurgerSkill, str]]] = ...) -> None: ...

class NinjaBurgerChooseSkill(_message.Message):
    __slots__ = ("skill",)
    SKILL_FIELD_NUMBER: _ClassVar[int]
    skill: NinjaBurgerSkill
    def __init__(self, skill: _Optional[_Union[NinjaBurgerSkill, str]] = ...) -> None: ...

class NinjaBurgerPlayFortune(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: int
    def __init__(self, card: _Optional[int] = ...) -> None: ...

class NinjaBurgerDecline(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class NinjaBurgerAction(_message.Message):
    __slots__ = ("choose_ninja", "attend", "force_trade", "choose_skills", "play_fortune", "decline", "choose_skill")
    CHOOSE_NINJA_FIELD_NUMBER: _ClassVar[int]
    ATTEND_FIELD_NUMBER: _ClassVar[int]
    FORCE_TRADE_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_SKILLS_FIELD_NUMBER: _ClassVar[int]
    PLAY_FORTUNE_FIELD_NUMBER: _ClassVar[int]
    DECLINE_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_SKILL_FIELD_NUMBER: _ClassVar[int]
    choose_ninja: NinjaBurgerChooseNinja
    attend: NinjaBurgerAttend
    force_trade: NinjaBurgerForceTrade
    choose_skills: NinjaBurgerChooseSkills
    play_fortune: NinjaBurgerPlayFortune
    decline: NinjaBurgerDecline
    choose_skill: NinjaBurgerChooseSkill
    def __init__(self, choose_ninja: _Optional[_Union[NinjaBurgerChooseNinja, _Mapping]] = ..., attend: _Optional[_Union[NinjaBurgerAttend, _Mapping]] = ..., force_trade: _Optional[_Union[NinjaBurgerForceTrade, _Mapping]] = ..., choose_skills: _Optional[_Union[NinjaBurgerChooseSkills, _Mapping]] = ..., play_fortune: _Optional[_Union[NinjaBurgerPlayFortune, _Mapping]] = ..., decline: _Optional[_Union[NinjaBurgerDecline, _Mapping]] = ..., choose_skill: _Optional[_Union[NinjaBurgerChooseSkill, _Mapping]] = ...) -> None: ...

class NinjaBurgerNinjasChosen(_message.Message):
    __slots__ = ("ninjas",)
    NINJAS_FIELD_NUMBER: _ClassVar[int]
    ninjas: _containers.RepeatedCompositeFieldContainer[NinjaBurgerNinjaCard]
    def __init__(self, ninjas: _Optional[_Iterable[_Union[NinjaBurgerNinjaCard, _Mapping]]] = ...) -> None: ...

class NinjaBurgerRoundStarted(_message.Message):
    __slots__ = ("round", "leader", "salaries")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    SALARIES_FIELD_NUMBER: _ClassVar[int]
    round: int
    leader: int
    salaries: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, round: _Optional[int] = ..., leader: _Optional[int] = ..., salaries: _Optional[_Iterable[int]] = ...) -> None: ...

class NinjaBurgerMeetingHeld(_message.Message):
    __slots__ = ("attendees", "order")
    ATTENDEES_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    attendees: _containers.RepeatedScalarFieldContainer[int]
    order: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, attendees: _Optional[_Iterable[int]] = ..., order: _Optional[_Iterable[int]] = ...) -> None: ...

class NinjaBurgerMissionsTraded(_message.Message):
    __slots__ = ("seat", "target")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    seat: int
    target: int
    def __init__(self, seat: _Optional[int] = ..., target: _Optional[int] = ...) -> None: ...

class NinjaBurgerMissionRevealed(_message.Message):
    __slots__ = ("seat", "mission")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MISSION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    mission: int
    def __init__(self, seat: _Optional[int] = ..., mission: _Optional[int] = ...) -> None: ...

class NinjaBurgerFortunePlayed(_message.Message):
    __slots__ = ("seat", "card", "on")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    ON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: int
    on: int
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[int] = ..., on: _Optional[int] = ...) -> None: ...

class NinjaBurgerCheckRolled(_message.Message):
    __slots__ = ("seat", "check", "skill", "dice", "total", "target", "passed")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CHECK_FIELD_NUMBER: _ClassVar[int]
    SKILL_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    check: int
    skill: NinjaBurgerSkill
    dice: _containers.RepeatedScalarFieldContainer[int]
    total: int
    target: int
    passed: bool
    def __init__(self, seat: _Optional[int] = ..., check: _Optional[int] = ..., skill: _Optional[_Union[NinjaBurgerSkill, str]] = ..., dice: _Optional[_Iterable[int]] = ..., total: _Optional[int] = ..., target: _Optional[int] = ..., passed: _Optional[bool] = ...) -> None: ...

class NinjaBurgerMissionEnded(_message.Message):
    __slots__ = ("seat", "mission", "success", "honor", "money")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MISSION_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    HONOR_FIELD_NUMBER: _ClassVar[int]
    MONEY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    mission: int
    success: bool
    honor: int
    money: int
    def __init__(self, seat: _Optional[int] = ..., mission: _Optional[int] = ..., success: _Optional[bool] = ..., honor: _Optional[int] = ..., money: _Optional[int] = ...) -> None: ...

class NinjaBurgerEvent(_message.Message):
    __slots__ = ("ninjas_chosen", "round_started", "meeting_held", "missions_traded", "mission_revealed", "fortune_played", "check_rolled", "mission_ended")
    NINJAS_CHOSEN_FIELD_NUMBER: _ClassVar[int]
    ROUND_STARTED_FIELD_NUMBER: _ClassVar[int]
    MEETING_HELD_FIELD_NUMBER: _ClassVar[int]
    MISSIONS_TRADED_FIELD_NUMBER: _ClassVar[int]
    MISSION_REVEALED_FIELD_NUMBER: _ClassVar[int]
    FORTUNE_PLAYED_FIELD_NUMBER: _ClassVar[int]
    CHECK_ROLLED_FIELD_NUMBER: _ClassVar[int]
    MISSION_ENDED_FIELD_NUMBER: _ClassVar[int]
    ninjas_chosen: NinjaBurgerNinjasChosen
    round_started: NinjaBurgerRoundStarted
    meeting_held: NinjaBurgerMeetingHeld
    missions_traded: NinjaBurgerMissionsTraded
    mission_revealed: NinjaBurgerMissionRevealed
    fortune_played: NinjaBurgerFortunePlayed
    check_rolled: NinjaBurgerCheckRolled
    mission_ended: NinjaBurgerMissionEnded
    def __init__(self, ninjas_chosen: _Optional[_Union[NinjaBurgerNinjasChosen, _Mapping]] = ..., round_started: _Optional[_Union[NinjaBurgerRoundStarted, _Mapping]] = ..., meeting_held: _Optional[_Union[NinjaBurgerMeetingHeld, _Mapping]] = ..., missions_traded: _Optional[_Union[NinjaBurgerMissionsTraded, _Mapping]] = ..., mission_revealed: _Optional[_Union[NinjaBurgerMissionRevealed, _Mapping]] = ..., fortune_played: _Optional[_Union[NinjaBurgerFortunePlayed, _Mapping]] = ..., check_rolled: _Optional[_Union[NinjaBurgerCheckRolled, _Mapping]] = ..., mission_ended: _Optional[_Union[NinjaBurgerMissionEnded, _Mapping]] = ...) -> None: ...
