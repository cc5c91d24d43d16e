"""The wire contract: generated code is fresh, and the server speaks health and reflection."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena import protogen
from arena.referee.leases import LeaseRegistry
from arena.referee.server import SERVICE_NAME, start_server

GENERATED = Path(protogen.__file__).parent / "v1"


def test_generated_code_matches_the_proto(tmp_path: Path) -> None:
    pytest.importorskip("grpc_tools", reason="grpcio-tools is a dev dependency: pip install -e '.[dev]'")
    fresh = {p.name: p.read_bytes() for p in protogen.generate(tmp_path)}
    committed = {
        p.name: p.read_bytes() for p in GENERATED.iterdir() if p.name.endswith(protogen.GENERATED_SUFFIXES)
    }
    assert sorted(fresh) == sorted(committed), "generated files differ: run scripts/gen_proto"
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"{stale} are stale against proto/: run scripts/gen_proto and commit the result"


def test_health_and_reflection_are_served() -> None:
    async def scenario() -> tuple[int, list[str]]:
        server, port = await start_server(LeaseRegistry())
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=SERVICE_NAME)
            )
            stream = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(
                iter([reflection_pb2.ServerReflectionRequest(list_services="")])
            )
            services = [s.name async for r in stream for s in r.list_services_response.service]
        await server.stop(None)
        return health.status, services

    status, services = asyncio.run(scenario())
    assert status == health_pb2.HealthCheckResponse.SERVING
    assert "arena.v1.Referee" in services and "grpc.health.v1.Health" in services


def test_reflection_v1_lists_and_describes_the_referee() -> None:
    """grpcurl asks for reflection v1 first: the service list and the contract's file come back."""

    async def scenario() -> list[reflection_pb2.ServerReflectionResponse]:
        server, port = await start_server(LeaseRegistry())
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = channel.stream_stream(
                "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
                request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
            )
            requests = [
                reflection_pb2.ServerReflectionRequest(list_services=""),
                reflection_pb2.ServerReflectionRequest(file_containing_symbol="arena.v1.Referee"),
            ]
            answers = [answer async for answer in call(iter(requests))]
        await server.stop(None)
        return answers

    listed, described = asyncio.run(scenario())
    names = {s.name for s in listed.list_services_response.service}
    assert {"arena.v1.Referee", "grpc.reflection.v1.ServerReflection"} <= names
    files = described.file_descriptor_response.file_descriptor_proto
    assert any(b"arena.v1" in f and b"Referee" in f for f in files)


FIELDS_SNAPSHOT = Path(__file__).with_name("proto_fields.txt")


def wire_fields() -> set[str]:
    """Returns every field and enum value of arena.v1 as 'Message.field = number type', the facts that
    bots in other languages compile against."""
    from google.protobuf.descriptor import FieldDescriptor

    from arena.v1 import arena_pb2

    scalar = {
        v: k.removeprefix("TYPE_").lower() for k, v in vars(FieldDescriptor).items() if k.startswith("TYPE_")
    }
    facts: set[str] = set()

    def enum_values(enum) -> None:
        facts.update(f"{enum.full_name}.{v.name} = {v.number}" for v in enum.values)

    def visit(message) -> None:
        for field in message.fields:
            described = field.message_type or field.enum_type
            kind = described.full_name if described else scalar[field.type]
            fact = f"{message.full_name}.{field.name} = {field.number} {kind}"
            if field.is_repeated:
                fact += " repeated"
            if field.containing_oneof is not None:
                fact += f" oneof {field.containing_oneof.name}"
            facts.add(fact)
        for nested in message.nested_types:
            visit(nested)
        for enum in message.enum_types:
            enum_values(enum)

    for file in (arena_pb2.DESCRIPTOR, *arena_pb2.DESCRIPTOR.dependencies):
        for message in file.message_types_by_name.values():
            visit(message)
        for enum in file.enum_types_by_name.values():
            enum_values(enum)
    return facts


def test_the_wire_contract_only_grows() -> None:
    """No field or enum value of a published protocol is removed, renumbered or retyped."""
    published = {line for line in FIELDS_SNAPSHOT.read_text().splitlines() if line}
    current = wire_fields()
    missing = sorted(published - current)
    assert not missing, f"these published fields changed or went away (bots depend on them): {missing}"
    added = sorted(current - published)
    assert not added, (
        f"new fields {added}: append them to {FIELDS_SNAPSHOT.name} "
        "(python -c 'from tests.test_proto import wire_fields; print(*sorted(wire_fields()), sep=chr(10))')"
    )
