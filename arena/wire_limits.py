"""The largest values the wire protocol can carry for the numbers a user chooses (``--deadline-ms``,
``--max-strikes``), read from the generated descriptors of ``proto/arena/v1/arena.proto``.

Design detail: the limits come from the field types, not from literals, so a wider field in the
.proto widens what ``arena match`` and ``arena tournament`` accept, and a value the referee could not
send (protobuf refuses 5,000,000,000 for a uint32 in the middle of a match) is refused on the command
line instead.
"""

from __future__ import annotations

from google.protobuf.descriptor import FieldDescriptor

from arena.v1 import arena_pb2 as pb

_LARGEST = {
    FieldDescriptor.TYPE_UINT32: 2**32 - 1,
    FieldDescriptor.TYPE_INT32: 2**31 - 1,
    FieldDescriptor.TYPE_SINT32: 2**31 - 1,
    FieldDescriptor.TYPE_UINT64: 2**64 - 1,
    FieldDescriptor.TYPE_INT64: 2**63 - 1,
    FieldDescriptor.TYPE_SINT64: 2**63 - 1,
}


def largest(field: str) -> int:
    """Returns the largest value every message of arena.v1 with an integer field ``field`` can carry."""
    messages = pb.DESCRIPTOR.message_types_by_name.values()
    found = [_LARGEST[f.type] for m in messages for f in m.fields if f.name == field and f.type in _LARGEST]
    if not found:
        raise KeyError(f"no integer field {field!r} in arena.v1")
    return min(found)


DEADLINE_MS_MAX = largest("deadline_ms")  # 4294967295 ms (uint32): about 49.7 days
MAX_STRIKES_MAX = largest("max_strikes")  # 4294967295 (uint32)
