from arena.v1 import ninja_burger_pb2 as _ninja_burger_pb2
from arena.v1 import ninja_master_pb2 as _ninja_master_pb2
from arena.v1 import ninjan_pb2 as _ninjan_pb2
from arena.v1 import pnrz_pb2 as _pnrz_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ErrorCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERROR_CODE_UNSPECIFIED: _ClassVar[ErrorCode]
    ERROR_CODE_ILLEGAL_ACTION: _ClassVar[ErrorCode]
    ERROR_CODE_BAD_INDEX: _ClassVar[ErrorCode]
    ERROR_CODE_MALFORMED: _ClassVar[ErrorCode]
    ERROR_CODE_TIMEOUT: _ClassVar[ErrorCode]
    ERROR_CODE_UNEXPECTED_MESSAGE: _ClassVar[ErrorCode]
    ERROR_CODE_STALE_ANSWER: _ClassVar[ErrorCode]
ERROR_CODE_UNSPECIFIED: ErrorCode
ERROR_CODE_ILLEGAL_ACTION: ErrorCode
ERROR_CODE_BAD_INDEX: ErrorCode
ERROR_CODE_MALFORMED: ErrorCode
ERROR_CODE_TIMEOUT: ErrorCode
ERROR_CODE_UNEXPECTED_MESSAGE: ErrorCode
ERROR_CODE_STALE_ANSWER: ErrorCode

class BotMessage(_message.Message):
    __slots__ = ("join", "answer")
    JOIN_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    join: Join
    answer: Answer
    def __init__(self, join: _Optional[_Union[Join, _Mapping]] = ..., answer: _Optional[_Union[Answer, _Mapping]] = ...) -> None: ...

class Join(_message.Message):
    __slots__ = ("token", "bot_name", "client", "events_in_requests")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    EVENTS_IN_REQUESTS_FIELD_NUMBER: _ClassVar[int]
    token: str
    bot_name: str
    client: str
    events_in_requests: bool
    def __init__(self, token: _Optional[str] = ..., bot_name: _Optional[str] = ..., client: _Optional[str] = ..., events_in_requests: _Optional[bool] = ...) -> None: ...

class Answer(_message.Message):
    __slots__ = ("request_id", "index", "action")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    index: int
    action: Action
    def __init__(self, request_id: _Optional[int] = ..., index: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("match_start", "decision", "event", "error", "result")
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    match_start: MatchStart
    decision: DecisionRequest
    event: Event
    error: Error
    result: MatchResult
    def __init__(self, match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., decision: _Optional[_Union[DecisionRequest, _Mapping]] = ..., event: _Optional[_Union[Event, _Mapping]] = ..., error: _Optional[_Union[Error, _Mapping]] = ..., result: _Optional[_Union[MatchResult, _Mapping]] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "game", "seat", "num_players", "players", "deadline_ms", "max_strikes")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_STRIKES_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    seat: int
    num_players: int
    players: _containers.RepeatedScalarFieldContainer[str]
    deadline_ms: int
    max_strikes: int
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., seat: _Optional[int] = ..., num_players: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., deadline_ms: _Optional[int] = ..., max_strikes: _Optional[int] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("request_id", "step", "observation", "legal_actions", "deadline_ms", "events")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    step: int
    observation: Observation
    legal_actions: _containers.RepeatedCompositeFieldContainer[Action]
    deadline_ms: int
    events: _containers.RepeatedCompositeFieldContainer[Event]
    def __init__(self, request_id: _Optional[int] = ..., step: _Optional[int] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., deadline_ms: _Optional[int] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("step", "ninjan", "ninja_burger", "pnrz", "ninja_master")
    STEP_FIELD_NUMBER: _ClassVar[int]
    NINJAN_FIELD_NUMBER: _ClassVar[int]
    NINJA_BURGER_FIELD_NUMBER: _ClassVar[int]
    PNRZ_FIELD_NUMBER: _ClassVar[int]
    NINJA_MASTER_FIELD_NUMBER: _ClassVar[int]
    step: int
    ninjan: _ninjan_pb2.NinjanEvent
    ninja_burger: _ninja_burger_pb2.NinjaBurgerEvent
    pnrz: _pnrz_pb2.PnrzEvent
    ninja_master: _ninja_master_pb2.NinjaMasterEvent
    def __init__(self, step: _Optional[int] = ..., ninjan: _Optional[_Union[_ninjan_pb2.NinjanEvent, _Mapping]] = ..., ninja_burger: _Optional[_Union[_ninja_burger_pb2.NinjaBurgerEvent, _Mapping]] = ..., pnrz: _Optional[_Union[_pnrz_pb2.PnrzEvent, _Mapping]] = ..., ninja_master: _Optional[_Union[_ninja_master_pb2.NinjaMasterEvent, _Mapping]] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("code", "message", "request_id", "strikes", "max_strikes", "forfeited")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    MAX_STRIKES_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    code: ErrorCode
    message: str
    request_id: int
    strikes: int
    max_strikes: int
    forfeited: bool
    def __init__(self, code: _Optional[_Union[ErrorCode, str]] = ..., message: _Optional[str] = ..., request_id: _Optional[int] = ..., strikes: _Optional[int] = ..., max_strikes: _Optional[int] = ..., forfeited: _Optional[bool] = ...) -> None: ...

class PlayerResult(_message.Message):
    __slots__ = ("seat", "bot", "score", "rank", "forfeit", "strikes")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    FORFEIT_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bot: str
    score: int
    rank: int
    forfeit: bool
    strikes: int
    def __init__(self, seat: _Optional[int] = ..., bot: _Optional[str] = ..., score: _Optional[int] = ..., rank: _Optional[int] = ..., forfeit: _Optional[bool] = ..., strikes: _Optional[int] = ...) -> None: ...

class MatchResult(_message.Message):
    __slots__ = ("match_id", "players", "termination", "events")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    players: _containers.RepeatedCompositeFieldContainer[PlayerResult]
    termination: str
    events: _containers.RepeatedCompositeFieldContainer[Event]
    def __init__(self, match_id: _Optional[str] = ..., players: _Optional[_Iterable[_Union[PlayerResult, _Mapping]]] = ..., termination: _Optional[str] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("ninjan", "ninja_burger", "pnrz", "ninja_master")
    NINJAN_FIELD_NUMBER: _ClassVar[int]
    NINJA_BURGER_FIELD_NUMBER: _ClassVar[int]
    PNRZ_FIELD_NUMBER: _ClassVar[int]
    NINJA_MASTER_FIELD_NUMBER: _ClassVar[int]
    ninjan: _ninjan_pb2.NinjanObservation
    ninja_burger: _ninja_burger_pb2.NinjaBurgerObservation
    pnrz: _pnrz_pb2.PnrzObservation
    ninja_master: _ninja_master_pb2.NinjaMasterObservation
    def __init__(self, ninjan: _Optional[_Union[_ninjan_pb2.NinjanObservation, _Mapping]] = ..., ninja_burger: _Optional[_Union[_ninja_burger_pb2.NinjaBurgerObservation, _Mapping]] = ..., pnrz: _Optional[_Union[_pnrz_pb2.PnrzObservation, _Mapping]] = ..., ninja_master: _Optional[_Union[_ninja_master_pb2.NinjaMasterObservation, _Mapping]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("ninjan", "ninja_burger", "pnrz", "ninja_master")
    NINJAN_FIELD_NUMBER: _ClassVar[int]
    NINJA_BURGER_FIELD_NUMBER: _ClassVar[int]
    PNRZ_FIELD_NUMBER: _ClassVar[int]
    NINJA_MASTER_FIELD_NUMBER: _ClassVar[int]
    ninjan: _ninjan_pb2.NinjanAction
    ninja_burger: _ninja_burger_pb2.NinjaBurgerAction
    pnrz: _pnrz_pb2.PnrzAction
    ninja_master: _ninja_master_pb2.NinjaMasterAction
    def __init__(self, ninjan: _Optional[_Union[_ninjan_pb2.NinjanAction, _Mapping]] = ..., ninja_burger: _Optional[_Union[_ninja_burger_pb2.NinjaBurgerAction, _Mapping]] = ..., pnrz: _Optional[_Union[_pnrz_pb2.PnrzAction, _Mapping]] = ..., ninja_master: _Optional[_Union[_ninja_master_pb2.NinjaMasterAction, _Mapping]] = ...) -> None: ...
