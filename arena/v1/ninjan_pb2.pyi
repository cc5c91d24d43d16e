from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class NinjanSuit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NINJAN_SUIT_UNSPECIFIED: _ClassVar[NinjanSuit]
    NINJAN_SUIT_ROCK: _ClassVar[NinjanSuit]
    NINJAN_SUIT_PAPER: _ClassVar[NinjanSuit]
    NINJAN_SUIT_SCISSORS: _ClassVar[NinjanSuit]

class NinjanPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NINJAN_PHASE_UNSPECIFIED: _ClassVar[NinjanPhase]
    NINJAN_PHASE_COMMIT: _ClassVar[NinjanPhase]
    NINJAN_PHASE_TAKE: _ClassVar[NinjanPhase]
    NINJAN_PHASE_PLACE: _ClassVar[NinjanPhase]
    NINJAN_PHASE_OVER: _ClassVar[NinjanPhase]
NINJAN_SUIT_UNSPECIFIED: NinjanSuit
NINJAN_SUIT_ROCK: NinjanSuit
NINJAN_SUIT_PAPER: NinjanSuit
NINJAN_SUIT_SCISSORS: NinjanSuit
NINJAN_PHASE_UNSPECIFIED: NinjanPhase
NINJAN_PHASE_COMMIT: NinjanPhase
NINJAN_PHASE_TAKE: NinjanPhase
NINJAN_PHASE_PLACE: NinjanPhase
NINJAN_PHASE_OVER: NinjanPhase

class NinjanCard(_message.Message):
    __slots__ = ("suit", "value")
    SUIT_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    suit: NinjanSuit
    value: int
    def __init__(self, suit: _Optional[_Union[NinjanSuit, str]] = ..., value: _Optional[int] = ...) -> None: ...

class NinjanPile(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[NinjanCard]
    def __init__(self, cards: _Optional[_Iterable[_Union[NinjanCard, _Mapping]]] = ...) -> None: ...

class NinjanPlay(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: NinjanCard
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[NinjanCard, _Mapping]] = ...) -> None: ...

class NinjanRound(_message.Message):
    __slots__ = ("round", "plays")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    round: int
    plays: _containers.RepeatedCompositeFieldContainer[NinjanPlay]
    def __init__(self, round: _Optional[int] = ..., plays: _Optional[_Iterable[_Union[NinjanPlay, _Mapping]]] = ...) -> None: ...

class NinjanPlayer(_message.Message):
    __slots__ = ("seat", "hand_size", "collected", "score")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    COLLECTED_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    hand_size: int
    collected: _containers.RepeatedCompositeFieldContainer[NinjanCard]
    score: int
    def __init__(self, seat: _Optional[int] = ..., hand_size: _Optional[int] = ..., collected: _Optional[_Iterable[_Union[NinjanCard, _Mapping]]] = ..., score: _Optional[int] = ...) -> None: ...

class NinjanObservation(_message.Message):
    __slots__ = ("seat", "round", "phase", "hand", "piles", "players", "revealed", "resolving", "history")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    PILES_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    REVEALED_FIELD_NUMBER: _ClassVar[int]
    RESOLVING_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    round: int
    phase: NinjanPhase
    hand: _containers.RepeatedCompositeFieldContainer[NinjanCard]
    piles: _containers.RepeatedCompositeFieldContainer[NinjanPile]
    players: _containers.RepeatedCompositeFieldContainer[NinjanPlayer]
    revealed: _containers.RepeatedCompositeFieldContainer[NinjanPlay]
    resolving: int
    history: _containers.RepeatedCompositeFieldContainer[NinjanRound]
    def __init__(self, seat: _Optional[int] = ..., round: _Optional[int] = ..., phase: _Optional[_Union[NinjanPhase, str]] = ..., hand: _Optional[_Iterable[_Union[NinjanCard, _Mapping]]] = ..., piles: _Optional[_Iterable[_Union[NinjanPile, _Mapping]]] = ..., players: _Optional[_Iterable[_Union[NinjanPlayer, _Mapping]]] = ..., revealed: _Optional[_Iterable[_Union[NinjanPlay, _Mapping]]] = ..., resolving: _Optional[int] = ..., history: _Optional[_Iterable[_Union[NinjanRound, _Mapping]]] = ...) -> None: ...

class NinjanPlayCard(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: NinjanCard
    def __init__(self, card: _Optional[_Union[NinjanCard, _Mapping]] = ...) -> None: ...

class NinjanTakePile(_message.Message):
    __slots__ = ("pile",)
    PILE_FIELD_NUMBER: _ClassVar[int]
    pile: int
    def __init__(self, pile: _Optional[int] = ...) -> None: ...

class NinjanPlacePile(_message.Message):
    __slots__ = ("pile",)
    PILE_FIELD_NUMBER: _ClassVar[int]
    pile: int
    def __init__(self, pile: _Optional[int] = ...) -> None: ...

class NinjanAction(_message.Message):
    __slots__ = ("play_card", "take_pile", "place_pile")
    PLAY_CARD_FIELD_NUMBER: _ClassVar[int]
    TAKE_PILE_FIELD_NUMBER: _ClassVar[int]
    PLACE_PILE_FIELD_NUMBER: _ClassVar[int]
    play_card: NinjanPlayCard
    take_pile: NinjanTakePile
    place_pile: NinjanPlacePile
    def __init__(self, play_card: _Optional[_Union[NinjanPlayCard, _Mapping]] = ..., take_pile: _Optional[_Union[NinjanTakePile, _Mapping]] = ..., place_pile: _Optional[_Union[NinjanPlacePile, _Mapping]] = ...) -> None: ...

class NinjanCardsRevealed(_message.Message):
    __slots__ = ("round", "plays")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    round: int
    plays: _containers.RepeatedCompositeFieldContainer[NinjanPlay]
    def __init__(self, round: _Optional[int] = ..., plays: _Optional[_Iterable[_Union[NinjanPlay, _Mapping]]] = ...) -> None: ...

class NinjanPileTaken(_message.Message):
    __slots__ = ("seat", "pile", "card", "taken")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PILE_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    pile: int
    card: NinjanCard
    taken: _containers.RepeatedCompositeFieldContainer[NinjanCard]
    def __init__(self, seat: _Optional[int] = ..., pile: _Optional[int] = ..., card: _Optional[_Union[NinjanCard, _Mapping]] = ..., taken: _Optional[_Iterable[_Union[NinjanCard, _Mapping]]] = ...) -> None: ...

class NinjanCardPlaced(_message.Message):
    __slots__ = ("seat", "pile", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PILE_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    pile: int
    card: NinjanCard
    def __init__(self, seat: _Optional[int] = ..., pile: _Optional[int] = ..., card: _Optional[_Union[NinjanCard, _Mapping]] = ...) -> None: ...

class NinjanEvent(_message.Message):
    __slots__ = ("cards_revealed", "pile_taken", "card_placed")
    CARDS_REVEALED_FIELD_NUMBER: _ClassVar[int]
    PILE_TAKEN_FIELD_NUMBER: _ClassVar[int]
    CARD_PLACED_FIELD_NUMBER: _ClassVar[int]
    cards_revealed: NinjanCardsRevealed
    pile_taken: NinjanPileTaken
    card_placed: NinjanCardPlaced
    def __init__(self, cards_revealed: _Optional[_Union[NinjanCardsRevealed, _Mapping]] = ..., pile_taken: _Optional[_Union[NinjanPileTaken, _Mapping]] = ..., card_placed: _Optional[_Union[NinjanCardPlaced, _Mapping]] = ...) -> None: ...
