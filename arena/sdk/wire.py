"""Reading observations field by field from their wire bytes, reusing the fields that did not change.

Design detail: decoding a whole observation into the game's dataclasses on every decision cost a
bot more than the gRPC round trip that carried it (a Ninjan observation: ~20 us against ~100 us), and
most of it is the same from one decision to the next: the history, the table, the hand until it is
played. So ``ObservationReader`` splits the observation's bytes into the runs of its top-level
fields (a short scan of tags and lengths, no decoding), and looks each run's bytes up in a table of
that field's recent values: only a field whose bytes are new is parsed and decoded. Equal bytes mean
equal values (game values are frozen), so a bot gets the same value it would have got from
``codec.observation_from_proto``, often the very object of the last decision.

A message whose fields are not each in one run (legal protobuf, but not what the referee or any
protobuf library writes) is decoded whole, the ordinary way.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message

from arena import codec
from arena.games.base import Game
from arena.v1 import arena_pb2 as pb

FIELD_MEMO = 1024  # values remembered per field; the table starts again when it is full


def field_runs(data: bytes) -> dict[int, bytes] | None:
    """Returns each field number's bytes (its entries, tags included) of the message ``data``, or
    None when a field's entries are not contiguous or the bytes are not a message.

    Design detail: the inner loop steps over the entries of one run (the same tag again and again:
    a hand's cards, a game's history) with a tag of one byte compared whole; this runs per decision.
    """
    try:
        return _runs(data)
    except IndexError:  # cut short: not a message
        return None


def _runs(data: bytes) -> dict[int, bytes] | None:
    runs: dict[int, bytes] = {}
    size = len(data)
    i = 0
    while i < size:
        start = i
        tag = data[i]
        if tag >= 0x80:
            return None  # a field number over 15: none of the games' observations has one at top level
        number, wire = tag >> 3, tag & 7
        if number in runs or wire not in (0, 1, 2, 5):
            return None
        while True:
            i += 1
            if wire == 2:
                length = data[i]
                i += 1
                if length >= 0x80:
                    length, i = _varint(data, i, length)
                i += length
            elif wire == 0:
                while data[i] >= 0x80:
                    i += 1
                i += 1
            else:
                i += 8 if wire == 1 else 4
            if i >= size or data[i] != tag:
                break
        runs[number] = data[start:i]
    return runs if i == size else None


def _varint(data: bytes, i: int, first: int) -> tuple[int, int]:
    """Returns the varint whose first byte (``first``, >= 0x80) was just read, and where it ends."""
    value, shift = first & 0x7F, 7
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, i
        shift += 7


class ObservationReader:
    """Decodes one game's wire observations (``codec.observation_from_proto``'s values), each field
    looked up by its bytes first (see the module's Design detail)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.wire_name = game.spec.wire_name
        self.payload: type[Message] = type(getattr(pb.Observation(), self.wire_name))
        self.cls = game.observation_type  # a dataclass, its fields in the message's order or not
        self.fields = codec.field_decoders(self.cls, self.payload)
        self.memo: list[dict[bytes, Any]] = [{} for _ in self.fields]

    def read(self, observation: pb.Observation) -> Any:
        """Returns the engine observation a wire Observation carries; raises CodecError."""
        if observation.WhichOneof("game") != self.wire_name:
            return codec.observation_from_proto(self.game, observation)  # it says what is wrong
        payload = getattr(observation, self.wire_name)
        runs = field_runs(payload.SerializeToString())
        if runs is None:
            return codec.observation_from_proto(self.game, observation)
        values = []
        for (_, number, decode), memo in zip(self.fields, self.memo, strict=True):
            data = runs.get(number, b"")
            value = memo.get(data, memo)
            if value is memo:
                value = decode(self.payload.FromString(data))
                if len(memo) >= FIELD_MEMO:
                    memo.clear()
                memo[data] = value
            values.append(value)
        return self.cls(*values)
